/* A static library with a probe, linked into two shared libraries (core_a.c, core_b.c): each
 * gets its own copy of the probe site, its note and its semaphore. */
#include "core.h"
#include "core_api.h"

void core_hit(int who, long value, const char *from) {
    CORE_HIT(who, value, from);
}
