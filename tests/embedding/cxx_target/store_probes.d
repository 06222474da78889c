/* The C library's probes. */
provider store {
    probe put(const char *key, unsigned long size);
};
