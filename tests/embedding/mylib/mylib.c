/* The library's own probe site. */
#include "mylib.h"

void mylib_tick(int value) {
    MYLIB_TICK(value, "library");
}

int mylib_tick_enabled(void) {
    return MYLIB_TICK_ENABLED() != 0;
}
