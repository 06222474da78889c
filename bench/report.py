#!/usr/bin/env python3
"""Writes docs/PERFORMANCE.md: runs measure.py's measurements on the benchmark builds
bench/run.sh made (one per compiler, figures.py), judges the issue's targets from the
figures (targets.py) and prints every figure with its ratio to systemtap's sys/sdt.h
measured in the same run.

    report.py --build GCC=<build dir> --build Clang=<build dir> --output docs/PERFORMANCE.md
"""

import argparse
import datetime
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import measure
from figures import (CHEAP_KINDS, CHEAP_ROWS, COSTLY_KINDS, COSTLY_ROWS, HIT_ROWS, KINDS, SITES_PER_SIZE_FUNCTION,
                     SIZE_KINDS, Compiler, measure_compiler, reference_kind, row_label)
from measure import Site
from start_up import ShortTrace, StartUp, shim_environment, short_trace_seconds, start_up_milliseconds
from targets import missed_targets, targets


def number(value: Optional[float], digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def with_ratio(value: Optional[float], reference: Optional[float], digits: int) -> str:
    """`value (×ratio)`; the ratio is left out where it means nothing (no reference, or one
    that is not positive)."""
    if value is None:
        return "—"
    if reference is None or reference <= 0:
        return number(value, digits)
    return f"{number(value, digits)} (×{value / reference:.2f})"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> List[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *["| " + " | ".join(row) + " |" for row in rows], ""]


def cmake_cache(build: Path, variable: str) -> str:
    match = re.search(rf"^{variable}:[A-Z]+=(.*)$", (build / "CMakeCache.txt").read_text(), re.M)
    if not match:
        sys.exit(f"report.py: {build} has no {variable}; configure it with bench/run.sh")
    return match.group(1)


def start_up_section(start_up: Optional[Dict[str, object]]) -> List[str]:
    if start_up is None:
        return []
    rows = []
    for condition, value in start_up.items():
        if isinstance(value, StartUp):
            rows.append([condition, f"{value.usdt_to_bpftrace:.0f}", f"{value.printed_to_announced:.1f}",
                         f"{value.usdt_own:.0f}", f"{value.usdt_total:.0f}", f"{value.bpftrace_alone:.0f}",
                         f"×{value.usdt_total / value.bpftrace_alone:.2f}"])
        else:
            rows.append([condition, str(value), "", "", "", "", ""])
    return ["## usdt trace start-up", "",
            "`usdt trace` on the example project's kvserver, until it announces that it traces, against bpftrace "
            "alone running the same program (`usdt trace --script`) until it prints that it has attached; "
            "milliseconds, medians of the runs, kernel timestamps. usdt's own part: from its exec to its "
            "bpftrace's, and from the line where that bpftrace says it has attached to the announcement.", "",
            *table(["Condition", "usdt exec to bpftrace exec", "bpftrace attached to announcement", "usdt's own",
                    "usdt exec to announcement", "bpftrace alone, exec to attached", "usdt total / bpftrace alone"],
                   rows)]


# The example's kvserver for about 3 s: 600 batches of 4 requests, one every 5 ms.
SHORT_TRACE_ARGUMENTS = ("--count", "2400", "--interval-ms", "5")
SHORT_TRACE_PROBE = "kvserver:request__start"


def short_trace_section(short_trace: Optional[object]) -> List[str]:
    if short_trace is None:
        return []
    lines = ["## usdt trace: a short trace", "",
             f"`usdt trace kvserver {SHORT_TRACE_PROBE} -- kvserver {' '.join(SHORT_TRACE_ARGUMENTS)}` (about 3 s) "
             "against `bpftrace -c` with the program `usdt trace --script` prints for it, run alternately in the "
             "same runs; seconds, medians: from the start to the first hit line, from the command's last line "
             "to the tracer's exit, and in all.", ""]
    if not isinstance(short_trace, ShortTrace):
        return lines + [str(short_trace), ""]
    rows = [[what, f"{usdt:.2f}", f"{bpftrace:.2f}", f"{usdt - bpftrace:+.2f}",
             f"×{usdt / bpftrace:.2f}" if bpftrace > 0 else "—"]
            for what, usdt, bpftrace in (
                ("first hit", short_trace.usdt_first_hit, short_trace.bpftrace_first_hit),
                ("exit after the command's", short_trace.usdt_exit, short_trace.bpftrace_exit),
                ("in all", short_trace.usdt_total, short_trace.bpftrace_total))]
    return lines + table(["", "usdt trace", "bpftrace -c", "usdt − bpftrace", "usdt / bpftrace"], rows)


Column = Tuple[str, Callable[[str, str], str]]  # heading, cell of (source, probe)


def kind_table(rows: Sequence[Tuple[str, str]], kinds: Sequence[str], first: Column,
               value: Callable, digits: int, last: Sequence[Column] = ()) -> List[str]:
    """A row per (source, probe), a column per kind: `value(kind, source, probe)` with its
    ratio to the reference kind's; the `first` column before them, the `last` ones after."""
    header = ["Arguments", first[0], *[KINDS[kind] for kind in kinds], *[heading for heading, _ in last]]
    lines = []
    for source, probe in rows:
        row = [row_label(source, probe), first[1](source, probe)]
        for kind in kinds:
            reference = None if kind == reference_kind(kind) else value(reference_kind(kind), source, probe)
            row.append(with_ratio(value(kind, source, probe), reference, digits))
        lines.append(row + [cell(source, probe) for _, cell in last])
    return table(header, lines)


def instruction_tables(compiler: Compiler) -> List[str]:
    baseline = ("no probe: instructions per iteration",
                lambda source, probe: number(compiler.instructions.get(Site("none", source, probe)), 2))
    operands = ("sys/sdt.h's operands",
                lambda source, probe: ", ".join(sorted(compiler.reference_operands[(source, probe)])) or "—")
    return [f"### {compiler.name}", "",
            *kind_table(CHEAP_ROWS, CHEAP_KINDS, baseline, compiler.added_instructions, 2, [operands]),
            "Arguments costing a call each, which guards skip. The `dtrace -h` guard reads a plain "
            "(non-volatile) semaphore, which the compiler may read once before the loop (Clang 14 "
            "does at -O2): such a loop never notices a tracer that attaches while it runs. usdt's "
            "guard reads the semaphore at every iteration.", "",
            *kind_table(COSTLY_ROWS, COSTLY_KINDS, baseline, compiler.added_instructions, 2)]


def time_tables(compiler: Compiler) -> List[str]:
    baseline = ("no probe", lambda source, probe: number(compiler.time("none", source, probe), 2))
    return [f"### {compiler.name}", "",
            *kind_table(CHEAP_ROWS, CHEAP_KINDS, baseline, compiler.time, 2),
            "Arguments costing a call each, which guards skip:", "",
            *kind_table(COSTLY_ROWS, COSTLY_KINDS, baseline, compiler.time, 2)]


def hit_table(compilers: List[Compiler]) -> List[str]:
    rows = []
    for compiler in compilers:
        if not compiler.hits:
            rows.append([compiler.name, compiler.hits_missing, "", "", "", ""])
            continue
        hits = compiler.hits
        for source, probe in HIT_ROWS:
            reference = Site("sdt", source, probe)
            cells = []
            for kind in ("macro", "guarded"):
                quartiles = statistics.quantiles(hits.ratios(Site(kind, source, probe), reference), n=4)
                cells.append(f"{hits.median(Site(kind, source, probe)):.0f} (×{quartiles[1]:.3f}; "
                             f"×{quartiles[0]:.3f} to ×{quartiles[2]:.3f})")
            counted = ", ".join(f"{hits.counted.get(key, 0):,} / {hits.fired[key]:,}"
                                for key in (f"bench_sdt:{probe}", f"bench:{probe}"))
            rows.append([compiler.name, row_label(source, probe), f"{hits.median(reference):.0f}", *cells, counted])
    return table(["Compiler", "Arguments", "sys/sdt.h: ns per hit", KINDS["macro"], KINDS["guarded"],
                  "hits bpftrace counted / timed (sys/sdt.h, ours)"], rows)


def size_table(compiler: Compiler) -> List[str]:
    baseline = ("no probe: bytes per site", lambda source, probe: number(
        compiler.sizes.bytes.get(f"sizes_none_{source}_{probe}", 0) / SITES_PER_SIZE_FUNCTION, 2))
    notes = ("note bytes: sys/sdt.h, ours", lambda source, probe: ", ".join(
        [number(compiler.note_bytes("sdt", source, probe), 1),
         with_ratio(compiler.note_bytes("macro", source, probe), compiler.note_bytes("sdt", source, probe), 1)]))
    keep = ("ours: `.init_usdt_keep`", lambda source, probe: f"{compiler.keep_bytes_per_site:g}")
    return [f"### {compiler.name}", "",
            *kind_table(CHEAP_ROWS, SIZE_KINDS, baseline, compiler.added_text, 2, [notes, keep])]


METHOD = """\
Each site is one of bench/sites.h's kinds applied to a probe of bench/bench.d, its arguments
taken, for a loop counter `i`, from one of these sources:

- *in registers*: `i + k`, values the code already has in registers;
- *in memory*: `p->v[k]`, fields of the struct `p` points at (sys/sdt.h may name them as
  memory operands; ours loads them into registers);
- *string*: `p->name`, in a loop that also adds to a global (our string probes take the
  memory the string points to as an input, so the global is stored before the site);
- *id and name*: `records[i].id` and `records[i].name`, a plain loop over an array of structs;
- *a call each*: `bench_expensive(i + k)`, a function in another translation unit.

**Instructions** (callgrind, exact): each `run_<kind>_<source>_<probe>` loop of
bench/disabled_sites.cpp runs N and 2N times; the difference divided by N is the cost of one
iteration. Tables show what a site adds to the same loop without a probe, which keeps the
same values alive with an empty `asm` (the registers, or the struct); for arguments costing a
call, the loop without a probe is empty, as skipping them is what a guard is for. Ratios are
to sys/sdt.h's `STAP_PROBEn`, or for guarded probes to `STAP_PROBEn` behind the
guard `dtrace -h` generates (`__builtin_expect` on a non-volatile semaphore). The operands
column says what sys/sdt.h's notes name: registers, stack slots (spilled arguments), memory
through a register, or indexed forms (`8@8(%rdx,%rax,8)`, which perf skips; see
docs/internals.md); ours always name registers.

**Time** (Google Benchmark, CPU time, so that other processes do not count): the same loops,
1,000 sites per benchmark iteration, median of 3 repetitions interleaved at random;
informational, as a disabled site costs a fraction of a nanosecond.

**Hits**: bpftrace counts the hits of every probe of bench/enabled_hits.cpp (a
`usdt:BIN:provider:probe { @provider__probe = count(); }` block each) while Google Benchmark
times 100 hits per iteration, CPU time (the trap and the BPF program run on the process's
behalf). The program runs 21 rounds, each timing every site once in a random order; a
site's time is the median of its rounds, its ratio the median of the rounds' ratios to
sys/sdt.h's site of the same round, followed by their first and third quartiles (the
spread the machine's noise gives).

**Bytes**: each `sizes_<kind>_<source>_<probe>` function of bench/site_sizes.cpp holds 100
sites, each after the call that produces its values; `.text` per site is the function's size
(nm; its cold parts and lambdas included) minus that of the function without probes, divided
by 100. Note bytes are one site's bytes in `.note.stapsdt` (header, owner, descriptor,
padding).

**Generator and compiler** (CPU time of the process and its children): `python3 -m usdtgen`
on a 10,000-probe provider (0 to 4 arguments of mixed types), median of 5 runs;
bench/compile_cost.c compiled at -O2 alone, including the runtime a generated header embeds
(`<usdt/usdt_site.h>`, in C++ `<usdt/usdt_cxx_api.h>`), and including a
generated 1,000-probe header, median of 7 runs, the variants alternating.
"""


def nop5_section(nop5: Optional[dict]) -> List[str]:
    """bench/nop5/nop5_hit_cost.py's figures: the 1-byte nop against the USDT_X86_NOP5 opt-in."""
    lines = ["## The 5-byte nop opt-in (x86-64, `USDT_X86_NOP5`)", "",
             "Measured by bench/nop5/nop5_hit_cost.py (GCC, -O2); what the opt-in is: docs/api.md.", ""]
    if nop5 is None:
        return lines + ["Not measured.", ""]
    disabled, enabled = nop5["disabled"], nop5.get("enabled")
    rows = [["untraced: instructions per site (callgrind)",
             *(f"{disabled['instructions_per_site'][site]:.2f}" for site in ("nop1", "nop5"))]]
    if enabled:
        rows += [["traced: ns per hit, bpftrace attached",
                  f"{enabled['ns_per_hit']['nop1']:.0f}",
                  f"{enabled['ns_per_hit']['nop5']:.0f} (×{enabled['nop5_over_nop1']:.3f})"],
                 ["traced: ns for a process's first hit",
                  *(f"{enabled['first_hit_ns'][site]:.0f}" for site in ("nop1", "nop5"))],
                 ["kernel mapped `[uprobes-trampoline]`",
                  *("yes" if enabled["trampoline_mapped"][site] else "no" for site in ("nop1", "nop5"))]]
    lines += table(["Linux " + nop5["kernel"], "1-byte nop (default)", "`USDT_X86_NOP5`"], rows)
    if not enabled:
        lines += [f"Hits not measured: {nop5.get('enabled_skipped', 'no tracer')}.", ""]
    return lines


def trace_rate_section(rates: Optional[dict]) -> List[str]:
    """bench/trace_rate/trace_rate.py's figures: hits per second `usdt trace` keeps up with."""
    lines = ["## usdt trace: hits per second", "",
             "Measured by bench/trace_rate/trace_rate.py: a program fires two probes as fast as it can "
             "(its own clock, the loop alone), untraced and under `usdt trace` in each way of tracing "
             "it (output to /dev/null), medians of its runs. Summaries are counted in BPF maps and lose "
             "nothing; printing each hit goes through bpftrace's per-CPU buffer, which drops what bpftrace "
             "and usdt do not read in time (docs/tracing.md, \"Lost hits\").", ""]
    if rates is None:
        return lines + ["Not measured.", ""]
    untraced = rates["untraced"]["hits_per_s"]
    names = {"untraced": "untraced", "--count": "`--count` (BPF maps)", "--latency": "`--latency` (BPF maps)",
             "lines": "hit lines", "--json": "`--json`"}
    rows = []
    for mode, result in rates.items():
        added = 1e9 / result["hits_per_s"] - 1e9 / untraced
        rows.append([names.get(mode, mode), f"{result['hits_per_s']:,.0f}",
                     "" if mode == "untraced" else f"{added:,.0f}",
                     f"{result['lost']:,.0f} of {result['fired']:,}"])
    return lines + table(["way", "hits/s", "ns added per hit", "hits lost"], rows)


def document(compilers: List[Compiler], machine: Dict[str, str], generator_seconds: float,
             compile_ms: Dict[str, Dict[str, float]], compile_pairs: List[Tuple[str, str]], command: str,
             nop5: Optional[dict] = None, trace_rates: Optional[dict] = None,
             start_up: Optional[Dict[str, object]] = None, short_trace: Optional[object] = None) -> str:
    measured_targets = targets(compilers, generator_seconds, compile_ms, compile_pairs, start_up)
    cxx_compilers = {cxx for _, cxx in compile_pairs}
    lines = ["# Performance", "",
             f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by `{command}` "
             "(as root, for bpftrace), which wrote this file: do not edit it, run the command again. "
             "Every figure is compared with systemtap's `sys/sdt.h`, measured in the same run.", "",
             "## Targets", "",
             *table(["Target", "Measured", "Result"],
                    [[target.text, target.measured, target.result] for target in measured_targets]),
             *missed_targets(measured_targets),
             "## Machine", "", *[f"- {name}: {value}" for name, value in machine.items()], "",
             "## How it is measured", "", METHOD,
             "## Disabled probes: instructions per execution (callgrind)", ""]
    for compiler in compilers:
        lines += instruction_tables(compiler)
    lines += ["## Disabled probes: nanoseconds per loop iteration (Google Benchmark)", ""]
    for compiler in compilers:
        lines += time_tables(compiler)
    lines += ["## Enabled probes: nanoseconds per hit, bpftrace attached", "", *hit_table(compilers),
              "## Bytes per site", "",
              "`.text` bytes a site adds to the same code without a probe; note bytes per site; bytes per "
              "site of our `.init_usdt_keep` (an allocated section outside `.text`).", ""]
    for compiler in compilers:
        lines += size_table(compiler)
    lines += ["## Generator and compile time", "",
              f"Generating a 10,000-probe provider: {generator_seconds:.2f} s.", "",
              *table(["Compiler", "alone: ms", "with the runtime", "with a 1,000-probe header",
                      "added by the header", "macros only (`USDT_NO_CXX_API`): added",
                      "C++ API functions with empty bodies: added", f"{measure.EARLIER_RELEASE}'s header: added"],
                     [[f"`{name}`", f"{times['alone']:.0f}", f"{times['usdt.h']:.0f}", f"{times['header']:.0f}",
                       f"{times['header'] - times['alone']:+.0f}", f"{times['macros only'] - times['alone']:+.0f}",
                       f"{times['empty bodies'] - times['alone']:+.0f}" if name in cxx_compilers else "—",
                       f"{times['earlier header'] - times['alone']:+.0f}" if "earlier header" in times else "not measured"]
                      for name, times in compile_ms.items()]),
              *nop5_section(nop5), *trace_rate_section(trace_rates), "", *start_up_section(start_up),
              *short_trace_section(short_trace)]
    return "\n".join(lines).rstrip("\n") + "\n"


def measure_start_up(usdt: Path, example: Path) -> Dict[str, object]:
    """Condition -> StartUp, or the NotMeasured saying why not."""
    print("usdt trace start-up", file=sys.stderr)
    results: Dict[str, object] = {}
    with tempfile.TemporaryDirectory() as directory:
        for condition, environment in (("installed usdt", None),
                                       ("a python3 shim first on PATH", shim_environment(Path(directory)))):
            try:
                results[condition] = start_up_milliseconds(usdt, example, environment=environment)
            except measure.NotMeasured as reason:
                results[condition] = reason
    return results


def measure_short_trace(usdt: Path, example: Path) -> object:
    """The ShortTrace, or the NotMeasured saying why not."""
    print("usdt trace: a short trace", file=sys.stderr)
    try:
        return short_trace_seconds(usdt, example, SHORT_TRACE_PROBE, SHORT_TRACE_ARGUMENTS, "requests in")
    except measure.NotMeasured as reason:
        return reason


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", action="append", required=True, metavar="NAME=DIRECTORY",
                        help="a build with -DUSDT_BUILD_BENCHMARKS=ON, and its compiler's name (GCC, Clang)")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--command", default="bench/run.sh", help="the command the document names as its source")
    parser.add_argument("--nop5", type=Path, help="bench/nop5/nop5_hit_cost.py's JSON output")
    parser.add_argument("--trace-rate", type=Path, help="bench/trace_rate/trace_rate.py's JSON output")
    parser.add_argument("--usdt", type=Path, help="an installed usdt command, for usdt trace's start-up")
    parser.add_argument("--example", type=Path, help="the example project's kvserver, built against that usdt")
    arguments = parser.parse_args()
    builds = dict(build.split("=", 1) for build in arguments.build)

    commands: Dict[str, List[str]] = {}
    compile_pairs: List[Tuple[str, str]] = []
    for build in builds.values():
        c, cxx = cmake_cache(Path(build), "CMAKE_C_COMPILER"), cmake_cache(Path(build), "CMAKE_CXX_COMPILER")
        commands[Path(c).name] = [c]
        commands[Path(cxx).name] = [cxx, "-x", "c++"]
        compile_pairs.append((Path(c).name, Path(cxx).name))
    python = sys.executable
    machine = measure.machine([command[0] for command in commands.values()], python)

    compilers = [measure_compiler(name, Path(build)) for name, build in builds.items()]
    print("generator and compile time", file=sys.stderr)
    generator_seconds = measure.generator_seconds(python)
    with tempfile.TemporaryDirectory() as earlier:
        compile_ms = measure.compile_milliseconds(commands, python, earlier_generator=measure.earlier_generator(Path(earlier)))
    nop5 = json.loads(arguments.nop5.read_text()) if arguments.nop5 else None
    trace_rates = json.loads(arguments.trace_rate.read_text()) if arguments.trace_rate else None
    start_up = measure_start_up(arguments.usdt, arguments.example) if arguments.usdt and arguments.example else None
    short_trace = measure_short_trace(arguments.usdt, arguments.example) if arguments.usdt and arguments.example \
        else None
    arguments.output.write_text(document(compilers, machine, generator_seconds, compile_ms, compile_pairs,
                                         arguments.command, nop5, trace_rates, start_up, short_trace))
    print(f"wrote {arguments.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
