// The C++ twin of types.c: the same probes with the same values, in the same order
// (expected.TYPES_HITS), fired through the typed API (myapp::request_start(...)) and, where
// a C++ call would need a cast of its own, through the macros.
// usage: types_cxx FIRST_ROW PATH NAME; the tests pass 0.
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "myapp.h"
#include "other.h"

namespace {

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

const signed_row signed_rows[] = {
    {INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN},
    {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX},
    {-1, -1, -1, -1},
    {0, 0, 0, 0},
};
const unsigned_row unsigned_rows[] = {
    {0, 0, 0, 0},
    {UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT64_MAX},
    {1, 2, 3, 4},
    {0, 0, 0, 0},
};
const std::size_t rows = sizeof signed_rows / sizeof signed_rows[0];

}  // namespace

int main(int argc, char **argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s FIRST_ROW PATH NAME\n", argv[0]);
        return 2;
    }
    int first = std::atoi(argv[1]);
    const char *path = argv[2];
    const char *name = argv[3];
    foo object = {first};
    const char *world = "world";
    char copy[32];

    for (std::size_t row = static_cast<std::size_t>(first); row < rows; row++) {
        const signed_row &s = signed_rows[row];
        const unsigned_row &u = unsigned_rows[row];
        myapp::signed_ints(s.i8, s.i16, s.i32, s.i64);
        myapp::unsigned_ints(u.u8, u.u16, u.u32, u.u64);
    }
    // The macro converts the negative literal; a call would need casts to compile cleanly.
    MYAPP_UNSIGNED_INTS(-1, -1, -1, -1);
    myapp::keyword_ints(static_cast<signed char>(name[0]), static_cast<short>(-1000 * argc),
                        INT_MIN + first, LONG_MAX - first, UINT_MAX, ULLONG_MAX);
    MYAPP_FLAGS(argc, argc == 0, std::strlen(path), -static_cast<ssize_t>(std::strlen(name)));

    std::memcpy(copy, name, std::strlen(name));
    std::memcpy(copy + std::strlen(name), "-copy", sizeof "-copy");
    myapp::strings(path, path + std::strlen(path), copy);

    std::printf("foo=%p\n", static_cast<void *>(&object));
    myapp::pointers(&object, nullptr, reinterpret_cast<uintptr_t>(&object));
    myapp::nothing();
    MYAPP_TWELVE(INT8_MIN, UINT8_MAX, INT16_MIN, UINT16_MAX, INT32_MIN, UINT32_MAX,
                 INT64_MIN, UINT64_MAX, name[1], argc > 1, name, SIZE_MAX - static_cast<std::size_t>(first));
    myapp::request_start((UINT64_C(1) << 40) + static_cast<uint64_t>(first), path);
    myapp::delete_(-42 - first);

    std::printf("hello %s\n", world);
    second::hello(argc, world);
    second::bye();
    other::tick(UINT64_C(12345678901234) + static_cast<uint64_t>(first), static_cast<short>(first - 2));
    return 0;
}
