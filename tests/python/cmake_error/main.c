/* Fires the one probe every version of probes.d written by test_cmake_errors.py declares. */
#include "probes.h"

int main(void) {
    DEMO_TICK(1);
    return 0;
}
