/* Fires every probe of all_types.d and unguarded.d from C, through the dtrace -h style
   macros, with a value of each declared type, and asks every probe's _ENABLED(); built once
   per C standard. Prints the standard it was built for, then "unguarded" when the probe
   without a semaphore reads as enabled (always) and "traced" when another does. */
#include "all_types.h"
#include "unguarded.h"

#include <stdio.h>

struct matrix_point {
    int x, y;
};

int main(void) {
    struct matrix_point point = {1, 2};
    int value = 3;
    int *value_pointer = &value;
    char text[] = "text";
    int traced = 0;

    MATRIX_NO_ARGS();
    MATRIX_VOID_ARGS();
    MATRIX_SIGNED_KEYWORDS('c', (signed char)-2, (short)-3, -4, -5L, -6LL);
    MATRIX_UNSIGNED_KEYWORDS((unsigned char)1, (unsigned short)2, 3u, 4u, 5ul, 6ull);
    MATRIX_SPELLED_OUT((short)-1, -2L, -3LL, -4, (unsigned short)5, 6ul);
    MATRIX_FIXED_WIDTH(INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN, UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT64_MAX);
    MATRIX_SIZES(sizeof point, (ssize_t)-1, &text[4] - &text[0], (intptr_t)&point, (uintptr_t)&point,
                 INTMAX_MIN, UINTMAX_MAX);
    MATRIX_FLAGS(true, value == 3);
    MATRIX_POINTERS("literal", text, text, &point, &point, &point, &value_pointer, &value);
    MATRIX_TWELVE(-1, 1, -2, 2, -3, 3, -4, 4, false, text, NULL, -5L);
    MATRIX_UNNAMED(value, text);
    MATRIX_DELETE(value);
    UNGUARDED_PLAIN(value);
    UNGUARDED_GUARDED(-6L);
    if (MATRIX_NO_ARGS_ENABLED() || MATRIX_VOID_ARGS_ENABLED() || MATRIX_SIGNED_KEYWORDS_ENABLED()
        || MATRIX_UNSIGNED_KEYWORDS_ENABLED() || MATRIX_SPELLED_OUT_ENABLED() || MATRIX_FIXED_WIDTH_ENABLED()
        || MATRIX_SIZES_ENABLED() || MATRIX_FLAGS_ENABLED() || MATRIX_POINTERS_ENABLED() || MATRIX_TWELVE_ENABLED()
        || MATRIX_UNNAMED_ENABLED() || MATRIX_DELETE_ENABLED() || UNGUARDED_GUARDED_ENABLED()) {
        traced = 1;
    }

    printf("C %ld%s%s\n", (long)__STDC_VERSION__, UNGUARDED_PLAIN_ENABLED() ? " unguarded" : "",
           traced ? " traced" : "");
    return 0;
}
