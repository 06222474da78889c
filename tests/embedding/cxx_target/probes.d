/* The program's probes. */
provider app {
    probe request(uint64_t id, const char *key);
    probe stored(uint32_t count);
};
