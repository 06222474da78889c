/* programs/spans.c's probes: spans matched by id (across threads) and per thread, a signed
   value, and a probe fired in a flood. */
provider spans {
    probe request__start(uint64_t id, string op);
    probe request__done(uint64_t id, int status);
    probe step__start(int round);
    probe step__done(int round);
    probe value(int64_t v);
    probe flood(uint64_t n);
};
