/* mylib's own program: for each of COUNT rounds (default 2), fires the probe inlined from
   mylib.h (value = round) and the library's (value = 10 * round), then prints the round and
   MYLIB_TICK_ENABLED() as this program and as the library see it. */
#include <stdio.h>
#include <stdlib.h>

#include <mylib.h>

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 2;
    int round;
    for (round = 1; round <= rounds; ++round) {
        mylib_inline_tick(round);
        mylib_tick(10 * round);
        printf("round %d: inline enabled=%d library enabled=%d\n", round, mylib_inline_tick_enabled(),
               mylib_tick_enabled());
    }
    return 0;
}
