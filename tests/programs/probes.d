provider myapp {
    probe request__start(uint64_t id, const char *path);
    probe request__done(uint64_t id, int status, uint32_t micros);
};
