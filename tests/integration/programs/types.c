/*
 * Fires every probe of myapp.d (but `guarded`) and other.d once per value, in the order
 * expected.TYPES_HITS lists. usage: types FIRST_ROW PATH NAME; the tests pass 0.
 *
 * Values come from tables indexed at run time, from argv, from expressions and from
 * literals, so the compiler cannot turn them all into constants. Strings are ones the
 * process has touched: a tracer reading memory cannot fault pages in.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myapp.h"
#include "other.h"

struct foo {
    int value;
};

struct signed_row {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
};

struct unsigned_row {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
};

/* Minimum, maximum, -1 and 0; and for unsigned types 0, maximum, small values, 0. */
static const struct signed_row signed_rows[] = {
    {INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN},
    {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX},
    {-1, -1, -1, -1},
    {0, 0, 0, 0},
};
static const struct unsigned_row unsigned_rows[] = {
    {0, 0, 0, 0},
    {UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT64_MAX},
    {1, 2, 3, 4},
    {0, 0, 0, 0},
};
#define ROWS (sizeof signed_rows / sizeof signed_rows[0])

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s FIRST_ROW PATH NAME\n", argv[0]);
        return 2;
    }
    int first = atoi(argv[1]);
    const char *path = argv[2];
    const char *name = argv[3];
    struct foo foo = {first};
    const char *world = "world";
    char copy[32];

    for (size_t row = (size_t)first; row < ROWS; row++) {
        const struct signed_row *s = &signed_rows[row];
        const struct unsigned_row *u = &unsigned_rows[row];
        MYAPP_SIGNED_INTS(s->i8, s->i16, s->i32, s->i64);
        MYAPP_UNSIGNED_INTS(u->u8, u->u16, u->u32, u->u64);
    }
    /* A negative literal: the probe converts it to each declared unsigned type. */
    MYAPP_UNSIGNED_INTS(-1, -1, -1, -1);
    MYAPP_KEYWORD_INTS(name[0], -1000 * argc, INT_MIN + first, LONG_MAX - first, UINT_MAX, ULLONG_MAX);
    /* argc converts to bool 1. */
    MYAPP_FLAGS(argc, argc == 0, strlen(path), -(ssize_t)strlen(name));

    /* The empty string is the end of an argv string; the copy lives on the stack. */
    memcpy(copy, name, strlen(name));
    memcpy(copy + strlen(name), "-copy", sizeof "-copy");
    MYAPP_STRINGS(path, path + strlen(path), copy);

    printf("foo=%p\n", (void *)&foo);
    MYAPP_POINTERS(&foo, NULL, (uintptr_t)&foo);
    MYAPP_NOTHING();
    MYAPP_TWELVE(INT8_MIN, UINT8_MAX, INT16_MIN, UINT16_MAX, INT32_MIN, UINT32_MAX,
                 INT64_MIN, UINT64_MAX, name[1], argc > 1, name, SIZE_MAX - (size_t)first);
    MYAPP_REQUEST_START((UINT64_C(1) << 40) + (uint64_t)first, path);
    MYAPP_DELETE(-42 - first);

    printf("hello %s\n", world);
    SECOND_HELLO(argc, world);
    SECOND_BYE();
    OTHER_TICK(UINT64_C(12345678901234) + (uint64_t)first, first - 2);
    return 0;
}
