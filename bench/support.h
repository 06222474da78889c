/* What the benchmarked sites read and call, defined in support.c so that the compiler cannot
   see through it: argument values in memory, a costly argument, and the non-volatile
   semaphores systemtap's `dtrace -h` declares (the guarded reference). */
#ifndef USDT_BENCH_SUPPORT_H
#define USDT_BENCH_SUPPORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { BENCH_ITEMS = 16 };
struct bench_item {
    uint64_t v[12];
    const char *name;
};
extern struct bench_item bench_items[BENCH_ITEMS];
/* Records a loop walks through, one per iteration (callgrind's loops run 32768 iterations). */
enum { BENCH_RECORDS = 1 << 16 };
struct bench_record {
    uint64_t id;
    const char *name;
};
extern struct bench_record bench_records[BENCH_RECORDS];
/* State a loop keeps in memory; the compiler may hold it in a register across a probe
   unless the probe clobbers memory. */
extern uint64_t bench_total;

uint64_t bench_expensive(uint64_t x);
uint64_t bench_next(void);

extern unsigned short bench_sdt_a0_semaphore, bench_sdt_a2_semaphore, bench_sdt_a6_semaphore,
    bench_sdt_a12_semaphore, bench_sdt_s1_semaphore, bench_sdt_item_semaphore;

#ifdef __cplusplus
}
#endif

#endif /* USDT_BENCH_SUPPORT_H */
