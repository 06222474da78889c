/*
 * Fires flood:request__start and flood:request__done COUNT times each, back to back, as fast
 * as it can, and prints `hits=N ns=ELAPSED` on stderr (its stdout may be a trace's): the
 * rate the uprobe path allows, traced or not.
 * usage: flood COUNT
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "flood.h"

static uint64_t now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (uint64_t)time.tv_sec * 1000000000u + (uint64_t)time.tv_nsec;
}

int main(int argc, char **argv) {
    uint64_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    uint64_t start = now();
    for (uint64_t id = 0; id < count; ++id) {
        FLOOD_REQUEST_START(id, (uint32_t)(id % 4096));
        FLOOD_REQUEST_DONE(id, 200);
    }
    fprintf(stderr, "hits=%llu ns=%llu\n", (unsigned long long)(2 * count), (unsigned long long)(now() - start));
    return 0;
}
