/* The cost of a disabled probe site, for every kind and source of sites.h. `--list` names
   the loops; with `--count N` each runs N, then 2N times, for callgrind: bench/measure.py
   takes the difference, so what a loop costs outside its iterations cancels out. Otherwise
   Google Benchmark times the loops. */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runs.h"

#define ALL_RUNS(X) \
    CHEAP_SITES(X, none) CHEAP_SITES(X, sdt) CHEAP_SITES(X, macro) CHEAP_SITES(X, function) \
    COSTLY_SITES(X, none) COSTLY_SITES(X, sdt) COSTLY_SITES(X, macro) COSTLY_SITES(X, sdt_guarded) \
    COSTLY_SITES(X, guarded) COSTLY_SITES(X, guarded_function)

ALL_RUNS(DEFINE_RUN)

static const bench_run runs[] = {ALL_RUNS(RUN_ENTRY)};

int main(int argc, char **argv) {
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        for (const bench_run &run : runs) {
            std::printf("%s\n", run.name);
        }
        return 0;
    }
    if (argc == 3 && std::strcmp(argv[1], "--count") == 0) {
        const uint64_t iterations = std::strtoull(argv[2], nullptr, 10);
        for (const bench_run &run : runs) {
            run.run(iterations);
            run.run(2 * iterations);
        }
        return 0;
    }
    register_runs("disabled", runs, 1000);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
