#include "core.h"

int core_hit(int library, int count, const char *name) {
    CORE_HIT(library, count, name);
    return CORE_HIT_ENABLED() != 0;
}
