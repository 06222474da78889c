/* Fires every probe of all_types.d through the macros with variables of exactly the declared
   types: -Wconversion -Wsign-conversion must find nothing to say about the generated code. */
#include "all_types.h"

struct matrix_point {
    int x, y;
};

void fire_all(char c, signed char sc, short s, int i, long l, long long ll, unsigned char uc,
              unsigned short us, unsigned u, unsigned long ul, unsigned long long ull, int8_t i8,
              int16_t i16, int32_t i32, int64_t i64, uint8_t u8, uint16_t u16, uint32_t u32,
              uint64_t u64, size_t size, ssize_t ssize, ptrdiff_t difference, intptr_t ip,
              uintptr_t up, intmax_t im, uintmax_t um, bool b, _Bool raw, const char *text,
              char *mutable_text, void *pointer, struct matrix_point *point, int **pp,
              const volatile int *cvp);

void fire_all(char c, signed char sc, short s, int i, long l, long long ll, unsigned char uc,
              unsigned short us, unsigned u, unsigned long ul, unsigned long long ull, int8_t i8,
              int16_t i16, int32_t i32, int64_t i64, uint8_t u8, uint16_t u16, uint32_t u32,
              uint64_t u64, size_t size, ssize_t ssize, ptrdiff_t difference, intptr_t ip,
              uintptr_t up, intmax_t im, uintmax_t um, bool b, _Bool raw, const char *text,
              char *mutable_text, void *pointer, struct matrix_point *point, int **pp,
              const volatile int *cvp) {
    MATRIX_NO_ARGS();
    MATRIX_VOID_ARGS();
    MATRIX_SIGNED_KEYWORDS(c, sc, s, i, l, ll);
    MATRIX_UNSIGNED_KEYWORDS(uc, us, u, u, ul, ull);
    MATRIX_SPELLED_OUT(s, l, ll, i, us, ul);
    MATRIX_FIXED_WIDTH(i8, i16, i32, i64, u8, u16, u32, u64);
    MATRIX_SIZES(size, ssize, difference, ip, up, im, um);
    MATRIX_FLAGS(b, raw);
    MATRIX_POINTERS(text, mutable_text, text, pointer, pointer, point, pp, cvp);
    MATRIX_TWELVE(i8, u8, i16, u16, i32, u32, i64, u64, b, text, pointer, l);
    MATRIX_UNNAMED(i, text);
    MATRIX_DELETE(i);
    if (MATRIX_FLAGS_ENABLED() || MATRIX_DELETE_ENABLED()) {
        MATRIX_NO_ARGS();
    }
}
