/*
 * Fires a probe whose string argument is formatted (usdt_format()) only while traced, and a
 * probe without a semaphore, whose ENABLED() guard is always true. Prints how often the
 * argument was formatted. Built with -O2.
 */
#include <cstdio>
#include <string>

#include "flavours.h"

namespace {
struct Label {
    int *formatted;
};

// Found by argument-dependent lookup: what a string argument of this type records.
std::string usdt_format(const Label &label) {
    ++*label.formatted;
    return "lazy";
}
}  // namespace

int main() {
    int evaluated = 0;
    lazy::guarded(int64_t{-77}, Label{&evaluated});
    LAZY_PLAIN(3u);
    if (LAZY_PLAIN_ENABLED()) {
        lazy::plain(uint32_t{4});
    }
    std::printf("evaluated=%d\n", evaluated);
    return 0;
}
