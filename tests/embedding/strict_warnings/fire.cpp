// Fires every probe of all_types.d and unguarded.d from C++, through the typed API and the
// macros, with a value of each declared type, and asks every probe's _ENABLED(); built once per C++ standard. Prints the standard it was built for, then
// "unguarded" when the probe without a semaphore reads as enabled (always) and "traced" when
// another does.
#include "all_types.h"
#include "unguarded.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace {

struct matrix_point {
    int x, y;
};

}  // namespace

int main() {
    matrix_point point = {1, 2};
    int value = 3;
    int *value_pointer = &value;
    char text[] = "text";
    std::size_t size = sizeof point;

    matrix::no_args();
    matrix::void_args();
    // Integer literals are int: arguments narrower than int take typed values.
    matrix::signed_keywords('c', static_cast<signed char>(-2), short{-3}, -4, -5L, -6LL);
    matrix::unsigned_keywords(std::uint8_t{1}, std::uint16_t{2}, 3u, 4u, 5ul, 6ull);
    matrix::spelled_out(short{-1}, -2L, -3LL, -4, std::uint16_t{5}, 6ul);
    matrix::fixed_width(std::int8_t{INT8_MIN}, std::int16_t{INT16_MIN}, INT32_MIN, INT64_MIN,
                        std::uint8_t{UINT8_MAX}, std::uint16_t{UINT16_MAX}, UINT32_MAX, UINT64_MAX);
    matrix::sizes(size, -1, &text[4] - &text[0], reinterpret_cast<std::intptr_t>(&point),
                  reinterpret_cast<std::uintptr_t>(&point), INTMAX_MIN, UINTMAX_MAX);
    matrix::flags(true, value == 3);
    matrix::pointers("literal", text, text, &point, &point, &point, &value_pointer, &value);
    matrix::twelve(std::int8_t{-1}, std::uint8_t{1}, std::int16_t{-2}, std::uint16_t{2}, -3, 3u, -4L, 4ul,
                   false, text, nullptr, -5L);
    matrix::unnamed(value, text);
    matrix::delete_(value);
    unguarded::plain(value);
    unguarded::guarded(-6L);
    // The macros work in C++ too, as systemtap's dtrace -h headers do.
    MATRIX_SIGNED_KEYWORDS('c', -2, -3, -4, -5L, -6LL);
    MATRIX_POINTERS("literal", text, text, &point, &point, &point, &value_pointer, &value);
    const bool traced = MATRIX_NO_ARGS_ENABLED() || MATRIX_VOID_ARGS_ENABLED() || MATRIX_SIGNED_KEYWORDS_ENABLED()
                        || MATRIX_UNSIGNED_KEYWORDS_ENABLED() || MATRIX_SPELLED_OUT_ENABLED()
                        || MATRIX_FIXED_WIDTH_ENABLED() || MATRIX_SIZES_ENABLED() || MATRIX_FLAGS_ENABLED()
                        || MATRIX_POINTERS_ENABLED() || MATRIX_TWELVE_ENABLED() || MATRIX_UNNAMED_ENABLED()
                        || MATRIX_DELETE_ENABLED() || UNGUARDED_GUARDED_ENABLED();

    // No %s: Clang 20's -Wunsafe-buffer-usage-in-libc-call (-Weverything) takes any %s argument
    // it cannot prove terminated, a choice between two literals too, for an unsafe call.
    std::printf("C++ %ld", __cplusplus);
    if (UNGUARDED_PLAIN_ENABLED()) {
        std::printf(" unguarded");
    }
    if (traced) {
        std::printf(" traced");
    }
    std::printf("\n");
    return 0;
}
