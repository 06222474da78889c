// Fires every probe of all_types.d through the typed C++ API and the macros with variables of
// exactly the declared types: -Wconversion -Wsign-conversion must find nothing to say.
#include "all_types.h"

#include <cstddef>
#include <cstdint>

struct matrix_point {
    int x, y;
};

void fire_all(char c, signed char sc, short s, int i, long l, long long ll, unsigned char uc,
              unsigned short us, unsigned u, unsigned long ul, unsigned long long ull, std::int8_t i8,
              std::int16_t i16, std::int32_t i32, std::int64_t i64, std::uint8_t u8, std::uint16_t u16,
              std::uint32_t u32, std::uint64_t u64, std::size_t size, ssize_t ssize, std::ptrdiff_t difference,
              std::intptr_t ip, std::uintptr_t up, std::intmax_t im, std::uintmax_t um, bool b,
              const char *text, char *mutable_text, void *pointer, matrix_point *point, int **pp,
              const volatile int *cvp);

void fire_all(char c, signed char sc, short s, int i, long l, long long ll, unsigned char uc,
              unsigned short us, unsigned u, unsigned long ul, unsigned long long ull, std::int8_t i8,
              std::int16_t i16, std::int32_t i32, std::int64_t i64, std::uint8_t u8, std::uint16_t u16,
              std::uint32_t u32, std::uint64_t u64, std::size_t size, ssize_t ssize, std::ptrdiff_t difference,
              std::intptr_t ip, std::uintptr_t up, std::intmax_t im, std::uintmax_t um, bool b,
              const char *text, char *mutable_text, void *pointer, matrix_point *point, int **pp,
              const volatile int *cvp) {
    matrix::no_args();
    matrix::void_args();
    matrix::signed_keywords(c, sc, s, i, l, ll);
    matrix::unsigned_keywords(uc, us, u, u, ul, ull);
    matrix::spelled_out(s, l, ll, i, us, ul);
    matrix::fixed_width(i8, i16, i32, i64, u8, u16, u32, u64);
    matrix::sizes(size, ssize, difference, ip, up, im, um);
    matrix::flags(b, b);
    matrix::pointers(text, mutable_text, text, pointer, pointer, point, pp, cvp);
    matrix::twelve(i8, u8, i16, u16, i32, u32, i64, u64, b, text, pointer, l);
    matrix::unnamed(i, text);
    matrix::delete_(i);
    MATRIX_SIGNED_KEYWORDS(c, sc, s, i, l, ll);
    MATRIX_UNSIGNED_KEYWORDS(uc, us, u, u, ul, ull);
    MATRIX_FIXED_WIDTH(i8, i16, i32, i64, u8, u16, u32, u64);
    MATRIX_SIZES(size, ssize, difference, ip, up, im, um);
    MATRIX_POINTERS(text, mutable_text, text, pointer, pointer, point, pp, cvp);
    MATRIX_TWELVE(i8, u8, i16, u16, i32, u32, i64, u64, b, text, pointer, l);
    if (MATRIX_FLAGS_ENABLED() || MATRIX_DELETE_ENABLED()) {
        matrix::no_args();
    }
}
