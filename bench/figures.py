"""The figures of one compiler's benchmark build, as report.py's tables and targets.py's
judgments read them: the rows (an argument source and a probe) and kinds of site bench/sites.h
defines, and Compiler, measured from a build with measure.py.
"""

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Set, Tuple

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
