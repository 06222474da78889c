/* The shared library programs/traced.c calls: fires scriptlib:work. */
#ifndef USDT_TESTS_SCRIPTS_LIBRARY_H
#define USDT_TESTS_SCRIPTS_LIBRARY_H

#include <stdint.h>

void library_work(int64_t id, const char *name);

#endif
