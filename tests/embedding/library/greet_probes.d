/* greet's probes, fired inside the library. */
provider greet {
    probe hello(const char *name, unsigned count);
};
