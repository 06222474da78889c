/*
 * The probe sites the benchmarks compare, spelled once: disabled_sites.cpp counts their
 * instructions and times them, site_sizes.cpp measures their bytes, enabled_hits.cpp times
 * their hits under bpftrace. A site is a kind (how the probe is written) applied to a probe
 * of bench.d and a source (where its arguments come from):
 *
 *   kinds    none         no probe: the baseline, which keeps the argument values alive
 *            sdt          systemtap's STAP_PROBEn (sys/sdt.h), the reference
 *            sdt_guarded  STAP_PROBEn behind the guard `dtrace -h` generates (the note
 *                         records no semaphore: only the guard's cost is compared)
 *            macro        our BENCH_A2(...)
 *            function     our typed C++ bench::a2(...)
 *            guarded      if (BENCH_A2_ENABLED()) BENCH_A2(...)
 *            guarded_function  if (BENCH_A2_ENABLED()) bench::a2(...)
 *   sources  reg          values the code already has in registers: i + k
 *            mem          fields of a struct the code points at: p->v[k]
 *            str          a string field, in a loop that also updates a global
 *            item         the id and the name of the i-th struct of an array, a plain loop over
 *                         it: bench_records[i].id, bench_records[i].name (loops run at most
 *                         BENCH_RECORDS iterations)
 *            costly       a call per argument: bench_expensive(i + k)
 *
 * Sites are macros, not inline functions, so that sys/sdt.h sees the argument expressions
 * themselves (an lvalue may become a memory operand) exactly as in application code.
 */
#ifndef USDT_BENCH_SITES_H
#define USDT_BENCH_SITES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/sdt.h>

#include "bench.h"
#include "support.h"

#define BENCH_NOINLINE __attribute__((noinline))

/* ARGS_n(value) is value(0), ..., value(n-1); COMMA_ARGS_n(value) the same after a comma. */
#define ARGS_0(value)
#define ARGS_1(value) value(0)
#define ARGS_2(value) value(0), value(1)
#define ARGS_6(value) ARGS_2(value), value(2), value(3), value(4), value(5)
#define ARGS_12(value) ARGS_6(value), value(6), value(7), value(8), value(9), value(10), value(11)
#define COMMA_ARGS_0(value)
#define COMMA_ARGS_1(value) , ARGS_1(value)
#define COMMA_ARGS_2(value) , ARGS_2(value)
#define COMMA_ARGS_6(value) , ARGS_6(value)
#define COMMA_ARGS_12(value) , ARGS_12(value)
/* sys/sdt.h's macro for n arguments. */
#define REFERENCE_PROBE_0 STAP_PROBE
#define REFERENCE_PROBE_1 STAP_PROBE1
#define REFERENCE_PROBE_2 STAP_PROBE2
#define REFERENCE_PROBE_6 STAP_PROBE6
#define REFERENCE_PROBE_12 STAP_PROBE12
/* Expands `arguments` (built by the macros above) before `macro` sees them. */
#define APPLY(macro, arguments) macro arguments

/* Sources, each for a variable `i`: what runs before the site, the value of argument k, and
   what the baseline does instead of a probe (keep the same values where they are). */
#define SETUP_reg
#define VALUE_reg(k) (i + k)
#define REG_OPERAND(k) "r"(VALUE_reg(k))
#define SINK_reg(n) __asm__ __volatile__("" : : ARGS_##n(REG_OPERAND))

#define SETUP_mem const struct bench_item *p = &bench_items[i % BENCH_ITEMS];
#define VALUE_mem(k) (p->v[k])
#define SINK_mem(n) __asm__ __volatile__("" : : "m"(*p))

#define SETUP_str SETUP_mem bench_total += p->v[0];
#define VALUE_str(k) (p->name)
#define SINK_str(n) __asm__ __volatile__("" : : "m"(*p))

#define SETUP_item const struct bench_record *p = &bench_records[i];
#define VALUE_item(k) ITEM_FIELD_##k
#define ITEM_FIELD_0 (p->id)
#define ITEM_FIELD_1 (p->name)
#define SINK_item(n) __asm__ __volatile__("" : : "m"(*p))

#define SETUP_costly
#define VALUE_costly(k) bench_expensive(i + k)
#define SINK_costly(n) __asm__ __volatile__("")

/* Kinds: SITE_<kind>(probe, PROBE, n, source) for probe `probe` of n arguments, whose
   dtrace -h macro is BENCH_<PROBE>. */
#define SITE_none(probe, PROBE, n, source) SINK_##source(n)
#define SITE_sdt(probe, PROBE, n, source) \
    APPLY(REFERENCE_PROBE_##n, (bench_sdt, probe COMMA_ARGS_##n(VALUE_##source)))
#define SITE_sdt_guarded(probe, PROBE, n, source) \
    if (__builtin_expect(bench_sdt_##probe##_semaphore, 0)) SITE_sdt(probe, PROBE, n, source)
#define SITE_macro(probe, PROBE, n, source) APPLY(BENCH_##PROBE, (ARGS_##n(VALUE_##source)))
#define SITE_function(probe, PROBE, n, source) bench::probe(ARGS_##n(VALUE_##source))
#define SITE_guarded(probe, PROBE, n, source) \
    if (BENCH_##PROBE##_ENABLED()) SITE_macro(probe, PROBE, n, source)
#define SITE_guarded_function(probe, PROBE, n, source) \
    if (BENCH_##PROBE##_ENABLED()) SITE_function(probe, PROBE, n, source)

/* The (source, probe) pairs: X(kind, source, probe, PROBE, n). */
#define CHEAP_SITES(X, kind) \
    X(kind, reg, a0, A0, 0) \
    X(kind, reg, a2, A2, 2) X(kind, mem, a2, A2, 2) \
    X(kind, reg, a6, A6, 6) X(kind, mem, a6, A6, 6) \
    X(kind, reg, a12, A12, 12) X(kind, mem, a12, A12, 12) \
    X(kind, str, s1, S1, 1) X(kind, item, item, ITEM, 2)
#define COSTLY_SITES(X, kind) \
    X(kind, costly, a0, A0, 0) X(kind, costly, a2, A2, 2) X(kind, costly, a6, A6, 6) X(kind, costly, a12, A12, 12)

#endif /* USDT_BENCH_SITES_H */
