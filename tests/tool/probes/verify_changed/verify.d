/* probes/verify.d with request's count an int64_t: the build of a changed argument type. */
provider verify {
    probe request(int64_t count, const char *name);
    probe done(int status);
    probe rare(uint64_t id);
};
