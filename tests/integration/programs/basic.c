/* Fires each probe of basic.d once, from one site each; guarded only while a tracer holds
   its semaphore. Prints what it passed, `SENT provider:name|value|...` per probe, and
   `guarded off` when the guard was off. */
#include <stdint.h>
#include <stdio.h>

#include "basic.h"

struct thing {
    int unused;
};

static struct thing thing;

int main(void) {
    BASIC_SIGNED_INTS(-100, -30000, -2000000000, INT64_MIN);
    printf("SENT basic:signed__ints|-100|-30000|-2000000000|%lld\n", (long long)INT64_MIN);
    BASIC_UNSIGNED_INTS(200, 60000, 4000000000u, UINT64_MAX);
    printf("SENT basic:unsigned__ints|200|60000|4000000000|%llu\n", (unsigned long long)UINT64_MAX);
    BASIC_WORDS(1, (size_t)1 << 40, "text", &thing);
    printf("SENT basic:words|1|%llu|text|%llu\n", (unsigned long long)1 << 40,
           (unsigned long long)(uintptr_t)&thing);
    if (BASIC_GUARDED_ENABLED()) {
        BASIC_GUARDED(7);
        printf("SENT basic:guarded|7\n");
    } else {
        printf("guarded off\n");
    }
    return 0;
}
