/*
 * The integration tests' main provider file: every kind of argument usdtgen maps, a probe
 * without arguments, one with the maximum of 12, a C++ keyword as a probe name, and a
 * second provider in the same file. Expected notes and values: ../expected.py.
 */
provider myapp {
    probe signed__ints(int8_t i8, int16_t i16, int32_t i32, int64_t i64);
    probe unsigned__ints(uint8_t u8, uint16_t u16, uint32_t u32, uint64_t u64);
    probe keyword__ints(char c, short s, int i, long l, unsigned int ui, unsigned long long ull);
    probe flags(bool yes, bool no, size_t size, ssize_t delta);
    probe strings(const char *path, const char *empty, string copy);
    probe pointers(struct foo *foo, struct foo *null, uintptr_t address);
    probe nothing();
    probe twelve(int8_t a0, uint8_t a1, int16_t a2, uint16_t a3, int32_t a4, uint32_t a5,
                 int64_t a6, uint64_t a7, char a8, bool a9, const char *a10, size_t a11);
    probe request__start(uint64_t id, const char *path);
    probe delete(int32_t id);
    probe guarded(int64_t value);
};

provider second {
    probe hello(int32_t n, const char *who);
    probe bye(void);
};
