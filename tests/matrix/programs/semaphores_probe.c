/*
 * The probe code of test_semaphores.py's programs, linked into the program or into a shared
 * library: fires semaphores:guarded (value 42) if its ENABLED() says a tracer is attached.
 */
#include "semaphores.h"

__attribute__((visibility("default"))) int semaphores_fire(void);

/* 1 when the semaphore was raised (and the probe fired), else 0. */
int semaphores_fire(void) {
    if (SEMAPHORES_GUARDED_ENABLED()) {
        SEMAPHORES_GUARDED(42);
        return 1;
    }
    return 0;
}
