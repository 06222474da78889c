/*
 * What every bpftrace release a supported distribution ships reads right, Debian 11's 0.11.3
 * included: one site per probe, in the program itself, each kind of argument once.
 * programs/basic.c fires them; test_bpftrace_basic.py reads them back.
 */
provider basic {
    probe signed__ints(int8_t i8, int16_t i16, int32_t i32, int64_t i64);
    probe unsigned__ints(uint8_t u8, uint16_t u16, uint32_t u32, uint64_t u64);
    probe words(bool yes, size_t size, const char *text, struct thing *pointer);
    probe guarded(int32_t n);
};
