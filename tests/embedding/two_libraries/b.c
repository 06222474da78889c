/* libb.so: core's probes with library 2. */
#include "core.h"
#include "libraries.h"

int b_work(int count) {
    core_enter(2);
    return core_hit(2, 100 + count, "b");
}
