/*
 * The tracer-script tests' program probes: every kind of argument the scripts format, more
 * arguments than bpftrace reads, five strings in one line (perl's sub__entry and more: bpftrace
 * 0.17 builds a printf's arguments on its 512-byte stack), unnamed arguments, a probe without
 * arguments named after a C++ keyword, and a second provider. What programs/traced.c fires: ../test_scripts.py.
 */
provider scripted {
    probe signed__ints(int8_t i8, int16_t i16, int32_t i32, int64_t i64);
    probe unsigned__ints(uint8_t u8, uint16_t u16, uint32_t u32, uint64_t u64);
    probe flags(bool yes, bool no);
    probe text(const char *path, string empty);
    probe pointers(struct request *request, void *null);
    probe eight(int a, int b, int c, int d, int e, int f, int g, int h);
    probe strings(const char *sub, const char *file, int line, const char *package, string s4, string s5,
                  string s6);
    probe unnamed(int, size_t);
    probe delete();
};

provider extra {
    probe hello(const char *who, long delta);
};
