// For each of COUNT rounds (default 2): the downstream's own probe (where usdt was found),
// mylib.h's inline probe (value = round) and the library's (value = 10 * round), then the
// round and MYLIB_TICK_ENABLED() as this program and as mylib see it, as mylib's app prints.
#include <cstdio>
#include <cstdlib>

#include <mylib.h>
#ifdef DOWNSTREAM_PROBES
#include "downstream_probes.h"
#endif

int main(int argc, char **argv) {
    int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
    for (int round = 1; round <= rounds; ++round) {
#ifdef DOWNSTREAM_PROBES
        downstream::round(round);
#endif
        mylib_inline_tick(round);
        mylib_tick(10 * round);
        std::printf("round %d: inline enabled=%d library enabled=%d\n", round, mylib_inline_tick_enabled(),
                    mylib_tick_enabled());
    }
    return 0;
}
