/* Counts how often probe arguments are evaluated and whether an _ENABLED() guard opens.
   Built with and without USDT_DISABLE; untraced, both must answer the same. */
#include "counted.h"

#include <stdio.h>

#ifdef USDT_DISABLE
_Static_assert(!COUNTED_GUARDED_ENABLED(), "a disabled probe is never enabled, at compile time");
#endif

static int evaluations;

static int next(void) {
    return ++evaluations;
}

int main(void) {
    int guarded_blocks = 0;
    COUNTED_PAIR(next(), next());
    COUNTED_LABELLED(next(), "label");
    COUNTED_NOTHING();
    if (COUNTED_GUARDED_ENABLED()) {
        ++guarded_blocks;
        COUNTED_GUARDED("expensive");
    }
    printf("have_probes=%d evaluations=%d enabled=%d guarded_blocks=%d\n", USDT_HAVE_PROBES,
           evaluations, COUNTED_GUARDED_ENABLED() ? 1 : 0, guarded_blocks);
    return 0;
}
