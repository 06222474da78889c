/* core: a static library with probes, linked into liba.so and libb.so. */
#ifndef CORE_H
#define CORE_H

#include "core_probes.h"

/* Fires core:hit(library, count, name) from core's code; returns CORE_HIT_ENABLED() != 0. */
int core_hit(int library, int count, const char *name);

/* Fires core:enter(library) in the caller's code. */
static inline void core_enter(int library) {
    CORE_ENTER(library);
}

#endif
