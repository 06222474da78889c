/* mylib's public header: library functions, and inline functions that fire mylib's probe
   in the module that calls them (the generated mylib_probes.h, installed beside this file,
   defines that module's own semaphore). */
#ifndef MYLIB_H
#define MYLIB_H

#include "mylib_probes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fires mylib:tick(value, "library") from the library's own code. */
void mylib_tick(int value);
/* MYLIB_TICK_ENABLED() as the library's own code sees it. */
int mylib_tick_enabled(void);

#ifdef __cplusplus
}
#endif

/* Fires mylib:tick(value, "inline") in the caller's module. */
static inline void mylib_inline_tick(int value) {
    MYLIB_TICK(value, "inline");
}

/* MYLIB_TICK_ENABLED() as the caller's module sees it. */
static inline int mylib_inline_tick_enabled(void) {
    return MYLIB_TICK_ENABLED() != 0;
}

#endif
