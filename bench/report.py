#!/usr/bin/env python3
"""Writes docs/PERFORMANCE.md: runs measure.py's measurements on the benchmark builds
bench/run.sh made (one per compiler), judges the issue's targets from the figures and
prints every figure with its ratio to systemtap's sys/sdt.h measured in the same run.

    report.py --build GCC=<build dir> --build Clang=<build dir> --output docs/PERFORMANCE.md
"""

import argparse
import datetime
import json
import re
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import measure
from measure import Site

# Rows of the tables, in the order bench/sites.h lists them: (source, probe).
CHEAP_ROWS = [("reg", "a0"), ("reg", "a2"), ("mem", "a2"), ("reg", "a6"), ("mem", "a6"),
              ("reg", "a12"), ("mem", "a12"), ("str", "s1"), ("item", "item")]
# The rows whose probe has a string argument.
STRING_ROWS = [("str", "s1"), ("item", "item")]
COSTLY_ROWS = [("costly", "a0"), ("costly", "a2"), ("costly", "a6"), ("costly", "a12")]
HIT_ROWS = [("reg", "a0"), ("reg", "a2"), ("reg", "a6"), ("reg", "a12")]
SOURCES = {"reg": "in registers", "mem": "in memory", "costly": "a call each"}
KINDS = {"none": "no probe", "sdt": "sys/sdt.h", "sdt_guarded": "sys/sdt.h, `dtrace -h` guard",
         "macro": "ours: macro", "function": "ours: C++ function", "guarded": "ours: guarded",
         "guarded_function": "ours: guarded C++ function"}
UNGUARDED = ["macro", "function"]
GUARDED = ["guarded", "guarded_function"]
CHEAP_KINDS = ["sdt", "macro", "function"]
COSTLY_KINDS = ["sdt", "macro", "sdt_guarded", "guarded", "guarded_function"]
SIZE_KINDS = ["sdt", "macro", "function", "sdt_guarded", "guarded", "guarded_function"]
SITES_PER_SIZE_FUNCTION = 100  # bench/site_sizes.cpp


def row_label(source: str, probe: str) -> str:
    if source == "str":
        return "1 string, loop updating a global"
    if source == "item":
        return "id and name, a loop over an array of structs"
    arity = probe[1:]
    return "0" if arity == "0" else f"{arity} {SOURCES[source]}"


def reference_kind(kind: str) -> str:
    """The kind a kind is compared with: itself for the references and the baseline."""
    if kind in ("none", "sdt", "sdt_guarded"):
        return kind
    return "sdt_guarded" if kind in GUARDED else "sdt"


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


def operand_form(argument: str) -> str:
    """What an x86-64 argument spec (`-4@%edi`, `8@8(%rsp)`) names."""
    operand = argument.split("@", 1)[1]
    if operand.startswith("%"):
        return "register"
    if operand.startswith("$"):
        return "immediate"
    if "(%rip)" in operand:
        return "rip-relative"
    if re.search(r"\(%r[sb]p\)", operand):
        return "stack"
    return "indexed" if "," in operand else "memory"


@dataclass
class Compiler:
    """The figures of one compiler's build."""
    name: str
    instructions: Dict[Site, float]      # per loop iteration
    nanoseconds: Dict[Site, float]       # per loop iteration
    hits: Optional[measure.Hits]
    hits_missing: str                    # why hits is None
    sizes: measure.Code                  # of site_sizes' functions
    keep_bytes_per_site: float           # .init_usdt_keep
    reference_operands: Dict[Tuple[str, str], Set[str]]  # (source, probe) -> forms in sys/sdt.h's notes

    def spills(self, source: str, probe: str) -> bool:
        return "stack" in self.reference_operands[(source, probe)]

    def added_instructions(self, kind: str, source: str, probe: str) -> Optional[float]:
        """Instructions a site adds to the same loop without a probe."""
        value = self.instructions.get(Site(kind, source, probe))
        baseline = self.instructions.get(Site("none", source, probe))
        return None if value is None or baseline is None else value - baseline

    def time(self, kind: str, source: str, probe: str) -> Optional[float]:
        return self.nanoseconds.get(Site(kind, source, probe))

    def added_text(self, kind: str, source: str, probe: str) -> Optional[float]:
        """`.text` bytes a site adds to the same code without a probe."""
        sizes = self.sizes.bytes
        name, baseline = f"sizes_{kind}_{source}_{probe}", f"sizes_none_{source}_{probe}"
        if name not in sizes or baseline not in sizes:
            return None
        return (sizes[name] - sizes[baseline]) / SITES_PER_SIZE_FUNCTION

    def note_bytes(self, kind: str, source: str, probe: str) -> Optional[float]:
        notes = self.sizes.notes.get(f"sizes_{kind}_{source}_{probe}")
        return sum(note.size for note in notes) / len(notes) if notes else None


def measure_compiler(name: str, build: Path) -> Compiler:
    bench = build / "bench"
    print(f"{name}: counting instructions (callgrind)", file=sys.stderr)
    instructions = measure.instructions_per_execution(bench / "disabled_sites")
    print(f"{name}: timing disabled sites (Google Benchmark)", file=sys.stderr)
    nanoseconds = measure.nanoseconds_per_execution(bench / "disabled_sites")
    print(f"{name}: timing hits with bpftrace attached", file=sys.stderr)
    hits, hits_missing = None, ""
    try:
        hits = measure.nanoseconds_per_hit(bench / "enabled_hits")
    except measure.NotMeasured as reason:
        hits_missing = str(reason)
    sizes = measure.code_by_function(bench / "site_sizes", "sizes_")
    our_sites = sum(1 for notes in sizes.notes.values() for note in notes if note.provider == "bench")
    keep = measure.section_size(bench / "site_sizes", ".init_usdt_keep") / our_sites
    runs = measure.code_by_function(bench / "disabled_sites", "run_")
    operands = {(source, probe): {operand_form(argument) for note in runs.notes.get(f"run_sdt_{source}_{probe}", [])
                                  for argument in note.arguments.split()}
                for source, probe in CHEAP_ROWS}
    return Compiler(name, instructions, nanoseconds, hits, hits_missing, sizes, keep, operands)


def cmake_cache(build: Path, variable: str) -> str:
    match = re.search(rf"^{variable}:[A-Z]+=(.*)$", (build / "CMakeCache.txt").read_text(), re.M)
    if not match:
        sys.exit(f"report.py: {build} has no {variable}; configure it with bench/run.sh")
    return match.group(1)


# --- Targets -----------------------------------------------------------------------------

@dataclass
class Target:
    text: str
    measured: str
    passed: Optional[bool]  # None: not measured
    when_missed: str = ""   # why, from the design and the tables, and what to do instead

    @property
    def result(self) -> str:
        return {True: "PASS", False: "**FAIL**", None: "NOT MEASURED"}[self.passed]


def _failing(failures: List[str]) -> str:
    return "; fails for: " + "; ".join(failures) if failures else ""


def _site(compiler: Compiler, kind: str, source: str, probe: str) -> str:
    return f"{compiler.name} {kind}, {row_label(source, probe)}"


def unguarded_instructions_target(compilers: List[Compiler]) -> Target:
    differences, failures = [], []
    for compiler in compilers:
        for source, probe in CHEAP_ROWS:
            reference = compiler.added_instructions("sdt", source, probe)
            must_be_fewer = compiler.name == "Clang" and compiler.spills(source, probe)
            for kind in UNGUARDED:
                ours = compiler.added_instructions(kind, source, probe)
                differences.append(ours - reference)
                if ours > reference or (must_be_fewer and ours >= reference):
                    failures.append(f"{_site(compiler, kind, source, probe)}: {ours:.2f} vs {reference:.2f}")
    return Target("A disabled unguarded probe (macro, C++ function) costs no more instructions than sys/sdt.h "
                  "for every arity and compiler, and fewer with Clang where sys/sdt.h spills arguments to the stack",
                  f"ours − sys/sdt.h: {min(differences):+.2f} to {max(differences):+.2f} instructions"
                  + _failing(failures), not failures, OPERANDS_IN_REGISTERS)


def guarded_instructions_target(compilers: List[Compiler]) -> Target:
    costs, failures = [], []
    for compiler in compilers:
        for source, probe in COSTLY_ROWS:
            for kind in GUARDED:
                cost = compiler.added_instructions(kind, source, probe)
                costs.append(cost)
                if cost > 3:
                    failures.append(f"{_site(compiler, kind, source, probe)}: {cost:.2f}")
    return Target("A guarded disabled probe (macro or C++ function) costs at most 3 instructions over no probe, "
                  "whatever its arguments cost to compute",
                  f"{min(costs):.2f} to {max(costs):.2f} instructions over no probe" + _failing(failures),
                  not failures, GUARD_AND_LOOP_SHAPE)


def hit_target(compilers: List[Compiler]) -> Target:
    text = "An enabled probe's hit costs within 5% of sys/sdt.h's"
    measured = [compiler for compiler in compilers if compiler.hits]
    if not measured:
        return Target(text, compilers[0].hits_missing, None)
    uncounted = [f"{compiler.name} {probe}" for compiler in measured for probe, fired in compiler.hits.fired.items()
                 if compiler.hits.counted.get(probe, 0) < fired]
    if uncounted:
        return Target(text, "invalid: bpftrace counted fewer hits than were timed for " + ", ".join(uncounted), False)
    ratios, failures = [], []
    for compiler in measured:
        for source, probe in HIT_ROWS:
            for kind in ["macro", "guarded"]:
                value = statistics.median(compiler.hits.ratios(Site(kind, source, probe), Site("sdt", source, probe)))
                ratios.append(value)
                if value > 1.05:
                    failures.append(f"{_site(compiler, kind, source, probe)}: ×{value:.3f}")
    missing = "" if len(measured) == len(compilers) else "; not measured for some compilers"
    return Target(text, f"ours / sys/sdt.h, median of the rounds' ratios: ×{min(ratios):.3f} to ×{max(ratios):.3f}"
                  + missing + _failing(failures), not failures)


def text_target(compilers: List[Compiler]) -> Target:
    differences, failures = [], []
    for compiler in compilers:
        for source, probe in CHEAP_ROWS:
            reference = compiler.added_text("sdt", source, probe)
            for kind in UNGUARDED:
                ours = compiler.added_text(kind, source, probe)
                differences.append(ours - reference)
                if ours > reference:
                    failures.append(f"{_site(compiler, kind, source, probe)}: {ours:.2f} vs {reference:.2f} bytes")
    return Target("`.text` per unguarded site is no larger than sys/sdt.h's",
                  f"ours − sys/sdt.h: {min(differences):+.2f} to {max(differences):+.2f} bytes per site"
                  + _failing(failures), not failures, OPERANDS_IN_REGISTERS)


def string_target(compilers: List[Compiler]) -> Target:
    """A string argument may cost a register load and the stores its site needs done first,
    and nothing more: at most 2 instructions and 16 bytes over sys/sdt.h's site."""
    instructions, text, failures = [], [], []
    for compiler in compilers:
        for source, probe in STRING_ROWS:
            reference_instructions = compiler.added_instructions("sdt", source, probe)
            reference_text = compiler.added_text("sdt", source, probe)
            for kind in UNGUARDED:
                added_instructions = compiler.added_instructions(kind, source, probe) - reference_instructions
                added_text = compiler.added_text(kind, source, probe) - reference_text
                instructions.append(added_instructions)
                text.append(added_text)
                if added_instructions > 2 or added_text > 16:
                    failures.append(f"{_site(compiler, kind, source, probe)}: {added_instructions:+.2f} "
                                    f"instructions, {added_text:+.2f} bytes")
    return Target("An untraced string probe costs at most 2 instructions and 16 bytes of `.text` more than "
                  "sys/sdt.h's, for every compiler and string row",
                  f"ours − sys/sdt.h: {min(instructions):+.2f} to {max(instructions):+.2f} instructions, "
                  f"{min(text):+.2f} to {max(text):+.2f} bytes per site" + _failing(failures),
                  not failures, OPERANDS_IN_REGISTERS)


def compile_targets(compile_ms: Dict[str, Dict[str, float]], pairs: List[Tuple[str, str]]) -> List[Target]:
    """C's cost of including a 1,000-probe header, and C++'s with the typed API beside it, from
    the same run: `pairs` are each compiler's C and C++ commands (gcc and g++)."""
    added = {name: times["header"] - times["alone"] for name, times in compile_ms.items()}
    c_added = [added[c] for c, _ in pairs]
    cxx_added = [added[cxx] for _, cxx in pairs]
    ratios = [added[cxx] / added[c] if added[c] > 0 else float("inf") for c, cxx in pairs]
    return [
        Target("Including a 1,000-probe header adds under 100 ms to a C translation unit's compile",
               ", ".join(f"`{c}` {added[c]:+.0f} ms (alone: {compile_ms[c]['alone']:.0f} ms)" for c, _ in pairs),
               all(value < 100 for value in c_added), MACHINE_TIME),
        Target("Including it in a C++ translation unit, with the typed API, adds under 150 ms and at most "
               "5× what C adds with the same compiler",
               ", ".join(f"`{cxx}` {added[cxx]:+.0f} ms (×{ratio:.1f} `{c}`)" for (c, cxx), ratio in zip(pairs, ratios)),
               all(value < 150 for value in cxx_added) and all(ratio <= 5 for ratio in ratios), CXX_API_COMPILE_COST),
    ]


START_UP_LIMIT_MS = 300


def start_up_target(start_up: Dict[str, object]) -> Target:
    """usdt's own part of `usdt trace`'s start: `start_up` maps a condition to a StartUp, or to
    the NotMeasured that says why not."""
    measured = [(condition, value) for condition, value in start_up.items() if isinstance(value, measure.StartUp)]
    if not measured:
        reasons = sorted({str(value) for value in start_up.values()})
        return Target(f"usdt trace's own start-up under {START_UP_LIMIT_MS} ms", "; ".join(reasons) or "not measured",
                      None)
    return Target(f"usdt trace's own start-up (exec to bpftrace started, plus bpftrace attached to the "
                  f"announcement) under {START_UP_LIMIT_MS} ms for the example project, with or without a "
                  f"shim first on PATH",
                  ", ".join(f"{condition}: {value.usdt_own:.0f} ms" for condition, value in measured),
                  all(value.usdt_own < START_UP_LIMIT_MS for _, value in measured), START_UP_COST)


def targets(compilers: List[Compiler], generator_seconds: float,
            compile_ms: Dict[str, Dict[str, float]], compile_pairs: List[Tuple[str, str]],
            start_up: Optional[Dict[str, object]] = None) -> List[Target]:
    return [
        unguarded_instructions_target(compilers),
        guarded_instructions_target(compilers),
        hit_target(compilers),
        text_target(compilers),
        string_target(compilers),
        Target("10,000 probes generate in under 2 s", f"{generator_seconds:.2f} s", generator_seconds < 2, MACHINE_TIME),
        *compile_targets(compile_ms, compile_pairs),
        *([start_up_target(start_up)] if start_up is not None else []),
    ]


def start_up_section(start_up: Optional[Dict[str, object]]) -> List[str]:
    if start_up is None:
        return []
    rows = []
    for condition, value in start_up.items():
        if isinstance(value, measure.StartUp):
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


OPERANDS_IN_REGISTERS = """Where the *sys/sdt.h's operands* column says *indexed* or *memory*, sys/sdt.h names each
argument where it lies (`8@8(%rdx,%rax,8)`, `8@sym(%rip)`): free for the site, but perf skips
those arguments, libbpf before 1.7 rejects indexed ones, and gdb and bpftrace misread
`sym(%rip)` (see docs/internals.md, "Argument specs"). usdt passes every argument in a
register so that every tracer reads it, which costs one load, and its bytes, per argument not
already in a register. With the values in registers, the case sys/sdt.h's one-instruction
floor is about, usdt equals sys/sdt.h with GCC and beats it with Clang. In the *string* rows,
usdt's site takes the memory the string points to as an input, so the compiler must have
stored, before the site, whatever might be there: GCC stores the loop's global at every
iteration (it cannot tell that `p->name` does not point at it). Without that, GCC dropped
stores to a buffer only the probe reads, and tracers read an empty string (tests/integration,
`FreshStrings`). The site does nothing else for a string: no semaphore check, no reading
(docs/internals.md, "Strings on pages the process never touched"). Where these costs
matter, guard the probe: see the guarded columns, whatever the arguments cost."""

GUARD_AND_LOOP_SHAPE = """usdt's guard is two instructions on x86-64, `cmpw $0, semaphore(%rip)` and `jne`
(objdump -d the `run_guarded_*` functions of bench/disabled_sites). What a row adds beyond
them is the compiler's loop around the skipped branch: with many arguments to compute in
that branch, a compiler may rewrite the loop's counter for them, adding instructions to every
iteration, taken or not. A guarded probe is user code around `_ENABLED()`, so usdt cannot
shape that loop."""

MACHINE_TIME = """These are CPU times, which follow the machine's speed: the same virtual machine has measured
the same commit up to 2.5 times slower on one day than on another. The *alone* figures (the
same file compiled without usdt, in the same run) give this run's scale; to tell a change of
usdt from one of the machine, measure the commit before it in the same conditions (`git
worktree add`, then its bench/run.sh)."""

START_UP_COST = """usdt's own start-up is its interpreter, its imports (Jinja2 and pyelftools take most of it), reading
the ELF files of the program and the libraries it loads, and rendering the program, all before
bpftrace starts; after bpftrace has attached, only the announcement. The installed command
runs its byte-compiled modules under the interpreter CMake found (a shim first on PATH is not
on its way); a build tree's compiles its own modules at each start. A loaded machine slows all
of it: compare with the bpftrace-alone column of the same run."""

CXX_API_COMPILE_COST = """A C translation unit sees the macros, the semaphores and `.stapsdt.base`; a C++ one also
compiles the typed API: one inline function per probe, whose parameters are the runtime
header's few shared argument types, and whose body is the probe's site. That site is what
costs: C expands it only where the code fires the probe, C++ once per probe in every unit that
includes the header (see the *with a 1,000-probe header* and *macros only* columns). A C++
file that fires probes only through the macros can define `USDT_NO_CXX_API` before including
the header and pays what C pays; a large provider split into one `.d` file per subsystem costs
each file only the probes it includes."""


# --- The document ------------------------------------------------------------------------

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
bench/compile_cost.c compiled at -O2 alone, including `<usdt/usdt.h>`, and including a
generated 1,000-probe header, median of 7 runs, the variants alternating.
"""


def missed_targets(measured_targets: List[Target]) -> List[str]:
    missed = [target for target in measured_targets if target.passed is False]
    if not missed:
        return []
    lines = ["### Where a target is not met", ""]
    explained = set()
    for target in missed:
        explanation = target.when_missed or "No explanation yet: read the tables below."
        if explanation in explained:
            explanation = "For the reason given above."
        explained.add(target.when_missed)
        lines += [f"**{target.text}.**", "", explanation, ""]
    return lines


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
             start_up: Optional[Dict[str, object]] = None) -> str:
    measured_targets = targets(compilers, generator_seconds, compile_ms, compile_pairs, start_up)
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
              *table(["Compiler", "alone: ms", "with `<usdt/usdt.h>`", "with a 1,000-probe header",
                      "added by the header", "macros only (`USDT_NO_CXX_API`): added"],
                     [[f"`{name}`", f"{times['alone']:.0f}", f"{times['usdt.h']:.0f}", f"{times['header']:.0f}",
                       f"{times['header'] - times['alone']:+.0f}", f"{times['macros only'] - times['alone']:+.0f}"]
                      for name, times in compile_ms.items()]),
              *nop5_section(nop5), *trace_rate_section(trace_rates), "", *start_up_section(start_up)]
    return "\n".join(lines).rstrip("\n") + "\n"


def measure_start_up(usdt: Path, example: Path) -> Dict[str, object]:
    """Condition -> measure.StartUp, or the NotMeasured saying why not."""
    print("usdt trace start-up", file=sys.stderr)
    results: Dict[str, object] = {}
    with tempfile.TemporaryDirectory() as directory:
        for condition, environment in (("installed usdt", None),
                                       ("a python3 shim first on PATH", measure.shim_environment(Path(directory)))):
            try:
                results[condition] = measure.start_up_milliseconds(usdt, example, environment=environment)
            except measure.NotMeasured as reason:
                results[condition] = reason
    return results


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
    compile_ms = measure.compile_milliseconds(commands, python)
    nop5 = json.loads(arguments.nop5.read_text()) if arguments.nop5 else None
    trace_rates = json.loads(arguments.trace_rate.read_text()) if arguments.trace_rate else None
    start_up = measure_start_up(arguments.usdt, arguments.example) if arguments.usdt and arguments.example else None
    arguments.output.write_text(document(compilers, machine, generator_seconds, compile_ms, compile_pairs,
                                         arguments.command, nop5, trace_rates, start_up))
    print(f"wrote {arguments.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
