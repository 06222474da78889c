/*
 * Times a loop that fires nop5_bench:hit COUNT times, after timing its first hit alone (the
 * one the kernel optimizes a 5-byte nop on); `empty` times the same loop without the probe.
 * usage: hit_cost probe|empty COUNT
 * output: `first_hit_ns=N ns_per_iteration=F trampoline=yes|no`
 *
 * nop5_hit_cost.py builds it twice, with the default site and with USDT_X86_NOP5, and runs
 * it untraced, under callgrind and under bpftrace. `trampoline` tells whether the kernel
 * mapped [uprobes-trampoline] into the process, i.e. optimized a probe.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../tests/support/uprobes_trampoline.h"

#include "hit_cost.h"

/* noinline, so that both loops are the same code around what differs. */
static __attribute__((noinline)) void fire(uint64_t first, uint64_t end) {
    for (uint64_t iteration = first; iteration < end; ++iteration) {
        NOP5_BENCH_HIT(iteration);
    }
}

/* The empty asm keeps the loop and its counter in a register, as the probe's operand does. */
static __attribute__((noinline)) void spin(uint64_t first, uint64_t end) {
    for (uint64_t iteration = first; iteration < end; ++iteration) {
        __asm__ __volatile__("" : : "r"(iteration));
    }
}

static double now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "probe") != 0 && strcmp(argv[1], "empty") != 0)) {
        fprintf(stderr, "usage: %s probe|empty COUNT\n", argv[0]);
        return 2;
    }
    void (*loop)(uint64_t, uint64_t) = strcmp(argv[1], "probe") == 0 ? fire : spin;
    uint64_t count = strtoull(argv[2], NULL, 10);
    if (count < 2) {
        fprintf(stderr, "%s: COUNT must be at least 2\n", argv[0]);
        return 2;
    }
    double start = now_ns();
    loop(0, 1);
    double first = now_ns() - start;
    start = now_ns();
    loop(1, count);
    double rest = now_ns() - start;
    printf("first_hit_ns=%.0f ns_per_iteration=%.3f trampoline=%s\n", first, rest / (double)(count - 1),
           trampoline_mapped() ? "yes" : "no");
    return 0;
}
