/* The functions of the libraries with probes that the program `linked` calls. */
#ifndef USDT_INTEGRATION_LIBRARIES_H
#define USDT_INTEGRATION_LIBRARIES_H

#include <stdint.h>

/* Shared library `solib`: fires solib:work, and solib:guarded while traced. */
int solib_work(int64_t n, const char *what);
/* Static library `archive`: fires archive:fire(1, where). */
void archive_fire(const char *where);
/* Object library `objects`: fires objects:built(count). */
void objects_build(uint16_t count);

#endif
