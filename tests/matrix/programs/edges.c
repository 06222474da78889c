/*
 * Fires edges.d's probes (but `unused`) in the order expected_edges.EDGES_HITS lists.
 * Valid C99 and C++11: the matrix compiles it in each cell's language.
 *
 * Like types.c, values come from tables indexed at run time, from argv and from volatile
 * locals, so the compiler cannot fold them all into constants. Strings live on the stack
 * (a tracer reading memory cannot fault pages in).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edges.h"

/* Keeps fire_stacked() a real call with twelve parameters, six of which the x86-64 and
   aarch64 calling conventions pass on the stack. */
#if defined(__clang__)
#define MATRIX_NOINLINE __attribute__((noinline))
#else
#define MATRIX_NOINLINE __attribute__((noinline, noclone))
#endif

struct signed_keywords {
    signed char c;
    short s;
    int i;
    long l;
    long long ll;
};

struct unsigned_keywords {
    unsigned char c;
    unsigned short s;
    unsigned int i;
    unsigned long l;
    unsigned long long ll;
};

static const struct signed_keywords signed_rows[] = {
    {SCHAR_MIN, SHRT_MIN, INT_MIN, LONG_MIN, LLONG_MIN},
    {SCHAR_MAX, SHRT_MAX, INT_MAX, LONG_MAX, LLONG_MAX},
    {0, 0, 0, 0, 0},
    {-1, -1, -1, -1, -1},
};
static const struct unsigned_keywords unsigned_rows[] = {
    {0, 0, 0, 0, 0},
    {UCHAR_MAX, USHRT_MAX, UINT_MAX, ULONG_MAX, ULLONG_MAX},
};

#define LONG_TEXT_REPEATS 30  /* "0123456789" thirty times: 300 characters */
/* "Grüße, мир, 日本語, 🎉" */
static const char utf8_text[] =
    "Gr\xc3\xbc\xc3\x9f" "e, \xd0\xbc\xd0\xb8\xd1\x80, \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e, \xf0\x9f\x8e\x89";

static MATRIX_NOINLINE void fire_stacked(int8_t a0, uint8_t a1, int16_t a2, uint16_t a3,
                                         int32_t a4, uint32_t a5, int64_t a6, uint64_t a7,
                                         char a8, bool a9, const char *a10, uintptr_t a11) {
    EDGES_STACKED(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
}

int usdt_matrix_edges(int argc, char **argv) {
    size_t first = (size_t)atoi(argv[1]);
    size_t row;
    char empty[1] = "";
    char long_text[10 * LONG_TEXT_REPEATS + 1];
    char utf8[sizeof utf8_text];
    char stacked_name[] = "stacked";

    for (row = first; row < sizeof signed_rows / sizeof signed_rows[0]; row++) {
        const struct signed_keywords *s = &signed_rows[row];
        EDGES_SIGNED_KEYWORDS(s->c, s->s, s->i, s->l, s->ll);
    }
    for (row = first; row < sizeof unsigned_rows / sizeof unsigned_rows[0]; row++) {
        const struct unsigned_keywords *u = &unsigned_rows[row];
        EDGES_UNSIGNED_KEYWORDS(u->c, u->s, u->i, u->l, u->ll);
    }
    /* -1 converted to each declared unsigned type: every one's maximum. */
    EDGES_UNSIGNED_KEYWORDS(-1, -1, -1, -1L - (long)first, -1);

    /* argc is 4: an int, a pointer and a comparison convert to true, argc - argc to false. */
    EDGES_BOOLS(argc, argv, argc > 1, argc - argc);

    for (row = 0; row < LONG_TEXT_REPEATS; row++) {
        memcpy(long_text + 10 * row, "0123456789", 10);
    }
    long_text[10 * LONG_TEXT_REPEATS] = '\0';
    memcpy(utf8, utf8_text, sizeof utf8_text);
    EDGES_TEXT(empty, long_text, utf8);

    {
        /* Volatile: each value is loaded from the stack frame right before the call. */
        volatile int8_t a0 = INT8_MAX;
        volatile uint8_t a1 = 0;
        volatile int16_t a2 = -1;
        volatile uint16_t a3 = UINT16_MAX;
        volatile int32_t a4 = INT32_MAX;
        volatile uint32_t a5 = 1;
        volatile int64_t a6 = -1;
        volatile uint64_t a7 = UINT64_MAX - 1;
        volatile char a8 = (char)SCHAR_MIN;
        volatile bool a9 = false;
        volatile uintptr_t a11 = UINTPTR_MAX;
        fire_stacked(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, stacked_name, a11);
    }

    /* Fires only while a tracer holds the semaphore up: gdb and bpftrace both do. */
    if (EDGES_GUARDED_ENABLED()) {
        EDGES_GUARDED(INT64_MIN + (int64_t)first);
    }
    printf("edges done\n");
    return 0;
}
