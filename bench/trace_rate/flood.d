/* bench/trace_rate/flood.c's probe: a request's id and size, as a busy server would fire it. */
provider flood {
    probe request__start(uint64_t id, uint32_t bytes);
    probe request__done(uint64_t id, int status);
};
