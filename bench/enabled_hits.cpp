/* The cost of a hit: bench/measure.py attaches bpftrace to every probe of this program, then
   Google Benchmark times ours against sys/sdt.h's, repetitions interleaved at random. */
#include "runs.h"

#define HIT_SITES(X, kind) \
    X(kind, reg, a0, A0, 0) X(kind, reg, a2, A2, 2) X(kind, reg, a6, A6, 6) X(kind, reg, a12, A12, 12)
#define ALL_RUNS(X) HIT_SITES(X, sdt) HIT_SITES(X, macro) HIT_SITES(X, guarded)

ALL_RUNS(DEFINE_RUN)

static const bench_run runs[] = {ALL_RUNS(RUN_ENTRY)};

int main(int argc, char **argv) {
    register_runs("hit", runs, 100);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
