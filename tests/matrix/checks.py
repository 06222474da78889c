"""What every matrix cell must show, as lists of problems (empty when the cell is right), so
that one failure message names everything wrong with a cell.

- note_problems: readelf's view. Every probe of types and edges has a note; each argument
  has the declared size and sign and names a register (the 32-bit name when narrower than
  8 bytes); no note has Location 0 or Base 0; every Location is in .text, every Base is the
  module's .stapsdt.base and every Semaphore is inside .probes, which starts a page
  (test_semaphores.py shows why through the kernel).
- gdb_problems: gdb's view, without root. `info probes` lists every probe in the right
  module, each hit reads every argument as expected (expected_matrix.HITS), and the
  program exits normally.
"""

import os
import re
from typing import List

import elf_notes
import expected_matrix
import gdb_probes

# gdb decodes strings with the host character set, ASCII without a UTF-8 locale.
os.environ["LC_ALL"] = "C.UTF-8"

PROVIDERS = ("myapp", "second", "other", "edges")

SPEC_PREFIX = re.compile(r"-?\d+@")
REGISTER_OPERAND = re.compile(r"^-?[1248]@%[a-z][a-z0-9]*$")
NARROW_REGISTER = re.compile(r"@%(e[a-z]{2}|r\d+d)$")


PAGE_SIZE = 4096   # x86-64's, as usdt/usdt.h aligns .probes

# The probed function gc.c defines and nothing calls.
UNUSED_FUNCTION = "usdt_matrix_unused"


def kept_unused_function(module: str) -> bool:
    """Whether the linker kept gc.c's function (its C++ symbol is mangled)."""
    return any(UNUSED_FUNCTION in name for name, _ in elf_notes.symbols(module))


def ours(probe: str) -> bool:
    return probe.split(":")[0] in PROVIDERS


def note_problems(built) -> List[str]:
    problems = []
    specs = expected_matrix.specs()
    module = str(built.probe_module)
    notes = [note for note in elf_notes.notes(module) if ours(note.probe)]
    sections = elf_notes.sections(module)
    base, text, probes = (sections.get(name) for name in (".stapsdt.base", ".text", ".probes"))
    if base is None or base.address == 0:
        problems.append(f".stapsdt.base missing or at 0: {base}")
    if probes is not None and probes.address % PAGE_SIZE:
        problems.append(f".probes at {probes.address:#x} does not start a page")
    if built.program != built.probe_module:
        stray = [note.probe for note in elf_notes.notes(str(built.program)) if ours(note.probe)]
        if stray:
            problems.append(f"the program itself has notes: {stray}")

    missing = sorted(set(specs) - {note.probe for note in notes})
    if missing:
        problems.append(f"probes without a note: {missing}")
    for note in notes:
        where = f"{note.probe} at {note.location:#x}"
        if note.probe == expected_matrix.UNUSED_PROBE:
            # GNU ld and lld discard the function and the note with it. gold and mold cannot
            # drop a note, so `.init_usdt_keep` keeps the function, and its note stays valid.
            if built.cell.linker in ("bfd", "lld"):
                problems.append(f"{where}: the note of a function nothing calls outlived --gc-sections")
            elif not kept_unused_function(module):
                problems.append(f"{where}: the note outlived its function {UNUSED_FUNCTION}")
        elif note.probe not in specs:
            problems.append(f"unexpected note {where}: {' '.join(note.arguments)}")
            continue
        prefixes = tuple(SPEC_PREFIX.match(argument).group() for argument in note.arguments)
        if note.probe in specs and prefixes != specs[note.probe]:
            problems.append(f"{where}: arguments {' '.join(note.arguments)}, want sizes {specs[note.probe]}")
        for argument in note.arguments:
            if not REGISTER_OPERAND.match(argument):
                problems.append(f"{where}: {argument} is not a register operand")
            elif argument.lstrip("-")[0] in "124" and not NARROW_REGISTER.search(argument):
                problems.append(f"{where}: {argument} does not name a 32-bit register")
        if note.location == 0 or text is None or not text.contains(note.location):
            problems.append(f"{where}: Location outside .text")
        if note.base == 0 or base is None or note.base != base.address:
            problems.append(f"{where}: Base {note.base:#x}, .stapsdt.base is at {base.address if base else None}")
        if note.semaphore == 0 or probes is None or not probes.contains(note.semaphore):
            problems.append(f"{where}: Semaphore {note.semaphore:#x} outside .probes")
    return problems


def run_gdb(built) -> gdb_probes.GdbRun:
    # start_first: the probes of a shared library are known once it is loaded (dlopen mode
    # loads it from a constructor, before main).
    return gdb_probes.run(str(built.program), expected_matrix.ARGUMENTS,
                          expected_matrix.expected.string_indices(expected_matrix.HITS), start_first=True)


def gdb_problems(built, run: gdb_probes.GdbRun) -> List[str]:
    problems = []
    listed = {probe: module for probe, module in run.listed if ours(probe)}
    # The unused function's probe is listed where the linker kept that function (gold, mold).
    if kept_unused_function(str(built.probe_module)):
        listed.pop(expected_matrix.UNUSED_PROBE, None)
    if sorted(listed) != sorted(expected_matrix.specs()):
        problems.append(f"info probes lists {sorted(listed)}")
    wrong_module = sorted(probe for probe, module in listed.items() if module != str(built.probe_module))
    if wrong_module:
        problems.append(f"probes listed in another module than {built.probe_module}: {wrong_module}")
    actual = [(hit.probe, hit.values) for hit in run.hits]
    wanted = [(hit.probe, expected_matrix.expected.resolve(hit.values, run.output))
              for hit in expected_matrix.HITS]
    if actual != wanted:
        wrong = [f"  got  {got}\n  want {want}" for got, want in zip(actual, wanted) if got != want]
        problems.append(f"{len(actual)} hits, want {len(wanted)}; first differences:\n" + "\n".join(wrong[:5]))
    if not run.exited_normally:
        problems.append("the program did not exit normally")
    return problems
