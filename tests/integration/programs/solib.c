/* The shared library `solib`: its probes, semaphores and `.stapsdt.base` live in the .so. */
#include <string.h>

#include "libraries.h"
#include "solib.h"

int solib_work(int64_t n, const char *what) {
    SOLIB_WORK(n, what);
    if (SOLIB_GUARDED_ENABLED()) {
        SOLIB_GUARDED(strlen(what));
    }
    return (int)strlen(what);
}
