/* The probes the benchmarks fire: one per measured arity, one with a string argument, and one
   with an id and a name. */
provider bench {
    probe a0();
    probe a2(uint64_t x0, uint64_t x1);
    probe a6(uint64_t x0, uint64_t x1, uint64_t x2, uint64_t x3, uint64_t x4, uint64_t x5);
    probe a12(uint64_t x0, uint64_t x1, uint64_t x2, uint64_t x3, uint64_t x4, uint64_t x5,
              uint64_t x6, uint64_t x7, uint64_t x8, uint64_t x9, uint64_t x10, uint64_t x11);
    probe s1(const char *text);
    probe item(uint64_t id, const char *name);
};
