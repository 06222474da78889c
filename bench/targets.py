"""The targets docs/PERFORMANCE.md judges, each from the figures of every compiler (figures.py)
or of the generator and compilers (measure.py), with what a missed one means (when_missed).
"""

import statistics
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from figures import (CHEAP_ROWS, COSTLY_ROWS, GUARDED, HIT_ROWS, STRING_ROWS, UNGUARDED, Compiler, row_label)
from measure import EARLIER_RELEASE, Site
from start_up import StartUp

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
               "3× what C adds with the same compiler",
               ", ".join(f"`{cxx}` {added[cxx]:+.0f} ms (×{ratio:.1f} `{c}`{_earlier(compile_ms[cxx])})"
                         for (c, cxx), ratio in zip(pairs, ratios)),
               all(value < 150 for value in cxx_added) and all(ratio <= 3 for ratio in ratios), CXX_API_COMPILE_COST),
    ]


def _earlier(times: Dict[str, float]) -> str:
    if "earlier header" not in times:
        return ""
    return f"; {EARLIER_RELEASE}'s header: {times['earlier header'] - times['alone']:+.0f} ms"


START_UP_LIMIT_MS = 300


def start_up_target(start_up: Dict[str, object]) -> Target:
    """usdt's own part of `usdt trace`'s start: `start_up` maps a condition to a StartUp, or to
    the NotMeasured that says why not."""
    measured = [(condition, value) for condition, value in start_up.items() if isinstance(value, StartUp)]
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
them is the compiler's loop around the skipped branch. In the Clang rows of twelve arguments,
Clang's loop strength reduction (`-mllvm -print-after=loop-reduce`) rewrites the loop's counter
for the twelve `i + k` the branch computes: it counts `i + 11`, computes `i` before the check
and tests the loop's end in three instructions instead of one, in every iteration, taken or
not (built with `-mllvm -disable-lsr`, the loop runs 5 instructions per iteration, not 8). The
same loop with an ordinary function call in place of the probe is rewritten the same way: the
arguments bring it, not the site. sys/sdt.h's `dtrace -h` guard, a plain branch, escapes it
with Clang 14 by accident: the compiler copies the branch's `i + 1` into the path that skips
it, and a counter merged from two copies is not one the pass recognizes. Clang 21 rewrites
that loop too (7 instructions over no probe, as ours); Clang 19 leaves ours alone (3). usdt's
guard is an `asm goto`, whose edges the compiler cannot split, so it makes no such copy. A
volatile read instead, which Clang also compares in place, brought this row to 3 with Clang 14
but to 8 with Clang 21, and cost one instruction more per iteration with Clang 14, 19 and 21
around a guarded probe of cheap arguments (`i`, `i + 1`...), whose `i + 1` the compiler then
computes before the check. A guarded probe is user code around `_ENABLED()`, so usdt cannot
shape that loop further."""

MACHINE_TIME = """These are CPU times, which follow the machine's speed: the same virtual machine has measured
the same commit up to 2.5 times slower on one day than on another. The *alone* figures (the
same file compiled without usdt, in the same run) give this run's scale; to tell a change of
usdt from one of the machine, measure the commit before it in the same conditions (`git
worktree add`, then its bench/run.sh)."""

START_UP_COST = """usdt's own start-up is its interpreter, its imports (Jinja2's takes most of it), reading
the ELF files of the program and the libraries it loads, and rendering the program, all before
bpftrace starts; after bpftrace has attached, only the announcement. The installed command
runs its byte-compiled modules under the interpreter CMake found (a shim first on PATH is not
on its way); a build tree's compiles its own modules at each start. A loaded machine slows all
of it: compare with the bpftrace-alone column of the same run."""

CXX_API_COMPILE_COST = """A C translation unit sees the macros, the semaphores and `.stapsdt.base`; a C++ one also
compiles the typed API: one inline function per probe, whose parameters are the runtime
header's few shared argument types, and whose body is the probe's site. C expands a site only
where the code fires the probe; C++ parses every probe function's site in every unit that
includes the header, fired or not. Where the time goes (clang's -ftime-trace, GCC's
-ftime-report): parsing and checking the bodies (the site's asm statement and its operands) and
expanding the site's macros; instantiating the argument types is a small part. The *empty
bodies* column is this design's floor: the same header with each function's body left empty,
its 1,000 declarations and the runtime's C++ part, most of the 150 ms already; what the bodies
add beyond it (the *with a 1,000-probe header* column minus that one) is the sites, a fraction
of a millisecond each, which no function of its own can do without. Tried for issue 33: function
templates with dependent parameters, whose bodies are checked only where called, saved about
a tenth with Clang and nothing with GCC (the bodies are still parsed); the site's macros
expanded in advance saved about a quarter with Clang and a sixth with GCC, but a site's spec
depends on the target, so a header cannot carry it expanded. A C++ file that fires probes only
through the macros can define `USDT_NO_CXX_API` before including the header and pays what C
pays; a large provider split into one `.d` file per subsystem costs each file only the probes
it includes."""


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
