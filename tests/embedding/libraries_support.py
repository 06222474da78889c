"""What the libraries tests (public_header, two_libraries) share: the two ways they read a
module's probes back: gdb breaking on probes while a program runs, and bpftrace attached by file
path (a program or a shared library) before the program starts, each also returning what the
program printed, since the programs print what their `_ENABLED()` checks saw.
"""

import re
import subprocess
import unittest
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

LIBRARIES = Path(__file__).resolve().parent

import bpftrace_attach
import elf_notes
import usdt_testing
from embedding_support import package


def program_lines(output: str) -> str:
    """The lines the test programs print (`round N: ...`), from gdb's output, where they are
    interleaved with gdb's own."""
    return "".join(line + "\n" for line in re.findall(r"^round \d+: .*$", output, re.MULTILINE))


@dataclass(frozen=True)
class Attach:
    """One bpftrace probe: `probe` (provider:name) of the file `path`, printed as
    `HIT <label>|values...`; `strings` are the indices of its string arguments."""
    path: Path
    probe: str
    strings: Sequence[int] = ()

    @property
    def label(self) -> str:
        return f"{self.path.name}:{self.probe}"


def bpftrace_run(test: unittest.TestCase, attaches: Sequence[Attach], command: Sequence,
                 expected_hits: int) -> Tuple[List[Tuple[str, Tuple]], subprocess.CompletedProcess]:
    """Attaches bpftrace to every probe of `attaches` by file path, then runs `command` (which
    must exit 0) and waits for `expected_hits` hits: returns them, (label, values) in the order
    printed, and the command's result."""
    usdt_testing.require_tracer(test, "bpftrace")
    script, by_label = bpftrace_attach.BEGIN_READY, {}
    for attach in attaches:
        specs = next(note.arguments for note in elf_notes.notes(str(attach.path)) if note.probe == attach.probe)
        placeholders = ["" if index in attach.strings else 0 for index in range(len(specs))]
        action = bpftrace_attach.printf_action(attach.label, specs, placeholders, lambda value: isinstance(value, str))
        script += f"usdt:{attach.path}:{attach.probe} {action}\n"
        by_label[attach.label] = attach
    output, completed = bpftrace_attach.trace(
        script, lambda: package.run(command), expected_hits)
    hits = []
    for line in output.splitlines():
        if line.startswith("HIT "):
            label, *values = line[len("HIT "):].split("|")
            strings = by_label[label].strings
            hits.append((label, tuple(value if index in strings else int(value) for index, value in enumerate(values))))
    return hits, completed


def assert_traced(test: unittest.TestCase, hits: Sequence[Tuple[str, Tuple]], expected: Sequence[Tuple[str, Tuple]],
                  output: str = "") -> None:
    """bpftrace printed exactly `expected` ((label, values)), in any order across probes (each
    CPU has its own buffer), in order for each probe. A string may read empty: BPF cannot fault
    in the page of a constant the process never touched (issue 13, section 3)."""
    def per_label(entries):
        result: Dict[str, List[Tuple]] = {}
        for label, values in entries:
            result.setdefault(label, []).append(values)
        return result
    got, wanted = per_label(hits), per_label(expected)
    for label, values in got.items():
        for index, (seen, value) in enumerate(zip(values, wanted.get(label, []))):
            got[label][index] = tuple(want if have == "" and isinstance(want, str) else have
                                      for have, want in zip(seen, value))
    test.assertEqual(got, wanted, output)
