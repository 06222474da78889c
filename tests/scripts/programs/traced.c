/*
 * Fires every probe of traced.d once, then the library's scriptlib:work, in the order
 * ../test_scripts.py expects. usage: traced PATH; it prints its pid and the address it
 * passes as a pointer, which the test cannot know otherwise.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "library.h"
#include "traced.h"

struct request {
    int id;
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    struct request request = {argc};

    printf("pid=%d\nrequest=%p\n", (int)getpid(), (void *)&request);
    fflush(stdout);

    SCRIPTED_SIGNED_INTS(INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN);
    SCRIPTED_SIGNED_INTS(INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX);
    SCRIPTED_UNSIGNED_INTS(UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT64_MAX);
    SCRIPTED_FLAGS(argc == 2, argc != 2);
    /* The empty string is the end of an argv string: a page the process has touched. */
    SCRIPTED_TEXT(path, path + strlen(path));
    SCRIPTED_POINTERS(&request, NULL);
    SCRIPTED_EIGHT(1, -2, 3, -4, 5, -6, 7, -8);
    SCRIPTED_STRINGS(path, path + 1, 42, path + 2, path + 3, path + 4, path + 5);
    SCRIPTED_UNNAMED(-5, strlen(path));
    SCRIPTED_DELETE();
    EXTRA_HELLO(path, -3L * argc);
    library_work(-7, path);
    return 0;
}
