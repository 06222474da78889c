/*
 * The matrix's edge values beyond ../../integration/probes/myapp.d: the C keyword integer
 * types at their limits, bools made from expressions, long and UTF-8 strings, twelve
 * arguments that arrive on the stack, a probe behind its ENABLED() guard, and one in a
 * function nothing calls (linker garbage collection). Expected values: ../expected_edges.py.
 */
provider edges {
    probe signed__keywords(signed char c, short s, int i, long l, long long ll);
    probe unsigned__keywords(unsigned char c, unsigned short s, unsigned int i, unsigned long l,
                             unsigned long long ll);
    probe bools(bool from_int, bool from_pointer, bool from_comparison, bool from_zero);
    probe text(string empty, string long_text, string utf8);
    probe stacked(int8_t a0, uint8_t a1, int16_t a2, uint16_t a3, int32_t a4, uint32_t a5,
                  int64_t a6, uint64_t a7, char a8, bool a9, const char *a10, uintptr_t a11);
    probe guarded(int64_t value);
    probe unused(int32_t value);
};
