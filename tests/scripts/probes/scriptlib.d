/* The tracer-script tests' shared library probe: a script attaches to the library's path. */
provider scriptlib {
    probe work(int64_t id, const char *name);
};
