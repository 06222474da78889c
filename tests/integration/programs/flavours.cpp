/*
 * Fires a lazy probe, which evaluates its arguments and fires only while traced, and a probe
 * without a semaphore, whose ENABLED() guard is always true. Prints what it evaluated.
 * Built with -O2.
 */
#include <cstdio>
#include <string>
#include <tuple>

#include "flavours.h"

int main() {
    int evaluated = 0;
    // A std::string, not a literal: bpftrace cannot read a page the process never touched.
    const std::string label = "lazy";
    lazy::guarded_lazy([&] {
        ++evaluated;
        return std::make_tuple(int64_t{-77}, label);
    });
    LAZY_PLAIN(3u);
    if (LAZY_PLAIN_ENABLED()) {
        lazy::plain(uint32_t{4});
    }
    std::printf("evaluated=%d\n", evaluated);
    return 0;
}
