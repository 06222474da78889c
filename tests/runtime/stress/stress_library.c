/* Loaded and unloaded in a loop by stress.c while a tracer attaches to this file. */
#include "stress_library.h"

long stresslib_call(long value);

long stresslib_call(long value) {
    if (STRESSLIB_CALL_ENABLED()) {
        STRESSLIB_CALL(value);
    }
    return value + 1;
}
