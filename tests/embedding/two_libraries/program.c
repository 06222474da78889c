/* Loads liba.so and libb.so (linked, found through RUNPATH). `two_libraries [COUNT]` runs COUNT
   rounds (default 3); `two_libraries --serve` runs one every 100 ms until killed. Round N calls
   a_work(N), which fires core:enter(1) and core:hit(1, N, "a") in liba.so, then b_work(N),
   core:enter(2) and core:hit(2, 100 + N, "b") in libb.so, and prints what each library's
   CORE_HIT_ENABLED() said. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libraries.h"

int main(int argc, char **argv) {
    int serve = argc > 1 && strcmp(argv[1], "--serve") == 0;
    int rounds = argc > 1 && !serve ? atoi(argv[1]) : 3;
    int round;
    for (round = 1; serve || round <= rounds; ++round) {
        int a_enabled = a_work(round);
        int b_enabled = b_work(round);
        printf("round %d: a enabled=%d b enabled=%d\n", round, a_enabled, b_enabled);
        fflush(stdout);
        if (serve) {
            struct timespec pause = {0, 100 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
    return 0;
}
