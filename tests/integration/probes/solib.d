/* Probes inside the shared library `solib`. */
provider solib {
    probe work(int64_t n, const char *what);
    probe guarded(uint32_t value);
};
