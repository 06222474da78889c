// Counts how often probe arguments are evaluated and whether an _ENABLED() guard opens,
// through the C++ API and a macro. Built with and without USDT_DISABLE; untraced, both
// must answer the same.
#include "counted.h"

#include <cstdio>

#ifdef USDT_DISABLE
static_assert(!COUNTED_GUARDED_ENABLED(), "a disabled probe is never enabled, at compile time");
#endif

namespace {

int evaluations = 0;

int next() {
    return ++evaluations;
}

}  // namespace

int main() {
    int guarded_blocks = 0;
    counted::pair(next(), next());
    counted::labelled(next(), "label");
    COUNTED_LABELLED(next(), "label");
    counted::nothing();
    if (COUNTED_GUARDED_ENABLED()) {
        ++guarded_blocks;
        counted::guarded("expensive");
    }
    std::printf("have_probes=%d evaluations=%d enabled=%d guarded_blocks=%d\n", USDT_HAVE_PROBES,
                evaluations, COUNTED_GUARDED_ENABLED() ? 1 : 0, guarded_blocks);
    return 0;
}
