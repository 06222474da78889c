/* Loops over the sites of sites.h, as the unit callgrind counts and Google Benchmark times. */
#ifndef USDT_BENCH_RUNS_H
#define USDT_BENCH_RUNS_H

#include <string>

#include <benchmark/benchmark.h>

#include "sites.h"

/* run_<kind>_<source>_<probe>(iterations): a loop executing the site `iterations` times, the
   unit callgrind counts and Google Benchmark times. */
#define DEFINE_RUN(kind, source, probe, PROBE, n) \
    extern "C" BENCH_NOINLINE void run_##kind##_##source##_##probe(uint64_t iterations) { \
        for (uint64_t i = 0; i < iterations; ++i) { \
            SETUP_##source \
            SITE_##kind(probe, PROBE, n, source); \
        } \
    }
#define RUN_ENTRY(kind, source, probe, PROBE, n) {#kind "_" #source "_" #probe, run_##kind##_##source##_##probe},

struct bench_run {
    const char *name;
    void (*run)(uint64_t iterations);
};

/* Registers `<group>/<name>` for each run, each benchmark iteration executing `batch` sites. */
template <size_t count>
void register_runs(const char *group, const bench_run (&runs)[count], uint64_t batch) {
    for (const bench_run &run : runs) {
        benchmark::RegisterBenchmark((std::string(group) + "/" + run.name).c_str(),
                                     [run, batch](benchmark::State &state) {
                                         for (auto _ : state) {
                                             run.run(batch);
                                         }
                                         state.counters["sites_per_iteration"] = static_cast<double>(batch);
                                     });
    }
}

#endif /* USDT_BENCH_RUNS_H */
