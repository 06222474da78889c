/* Bytes per probe site: sizes_<kind>_<source>_<probe>() holds 100 sites of one kind, each
   after the call that produces its arguments. bench/measure.py reads the functions' sizes
   (nm) and the notes (readelf) of this program and subtracts the baseline kind `none`. */
#include "sites.h"

#define TIMES_10(x) x x x x x x x x x x
#define TIMES_100(x) TIMES_10(TIMES_10(x))

#define DEFINE_SIZES(kind, source, probe, PROBE, n) \
    extern "C" BENCH_NOINLINE void sizes_##kind##_##source##_##probe(void) { \
        TIMES_100({ \
            const uint64_t i = bench_next(); \
            (void)i; \
            SETUP_##source \
            SITE_##kind(probe, PROBE, n, source); \
        }) \
    }

#define ALL_SIZES(X) \
    CHEAP_SITES(X, none) CHEAP_SITES(X, sdt) CHEAP_SITES(X, macro) CHEAP_SITES(X, function) \
    CHEAP_SITES(X, sdt_guarded) CHEAP_SITES(X, guarded) CHEAP_SITES(X, guarded_function)

ALL_SIZES(DEFINE_SIZES)

int main() {
    return 0;
}
