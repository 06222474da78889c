#include "support.h"

struct bench_item bench_items[BENCH_ITEMS] = {{{0}, "item"}};
struct bench_record bench_records[BENCH_RECORDS];
uint64_t bench_total;

unsigned short bench_sdt_a0_semaphore, bench_sdt_a2_semaphore, bench_sdt_a6_semaphore,
    bench_sdt_a12_semaphore, bench_sdt_s1_semaphore, bench_sdt_item_semaphore;

__attribute__((noinline)) uint64_t bench_expensive(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdu;
    return x ^ (x >> 33);
}

__attribute__((noinline)) uint64_t bench_next(void) {
    return ++bench_total;
}
