/* liba.so: core's probes with library 1. It has code and data that libb.so has not, so that
   core's sites and semaphores are at other offsets in each library: a tracer that takes one
   library's offsets for the other's misses, or hits the middle of an instruction. */
#include "core.h"
#include "libraries.h"

int a_table[256] = {1};

int a_scramble(int count) {
    int result = count;
    int round;
    for (round = 0; round < count; ++round) {
        result = result * 31 + a_table[round & 255];
        a_table[(round * 7) & 255] ^= result;
    }
    return result;
}

int a_work(int count) {
    core_enter(1);
    return core_hit(1, count, "a");
}
