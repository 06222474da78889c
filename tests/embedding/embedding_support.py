"""What the embedding tests share: tests/package (package_support.py) and tests/cross
(remote_gdb_probes.py, targets.py) made importable, where the consumer
projects are, and the checks every module with probes must pass: its notes (readelf) and the
values gdb reads at its probes.

Each test module imports this module first, then calls `package.parse_arguments()`: CTest
passes usdt's trees, the test's scratch directory and the CMake generator as it does for
the package tests.
"""

import sys
import unittest
from pathlib import Path
from typing import Dict, Sequence, Tuple

PROJECTS = Path(__file__).resolve().parent
TESTS_DIR = PROJECTS.parent
sys.path[:0] = [str(TESTS_DIR / "package"), str(TESTS_DIR / "cross")]

import elf_notes
import gdb_probes
import package_support as package
import usdt_testing


def build_embedding(project: Path, name: str, *definitions: str) -> Path:
    """Configures `project`, which embeds usdt from the source tree under test (its cache entry
    USDT_SOURCE_DIR), with `definitions` (`NAME=VALUE`), and builds it, in the work directory's
    `name`; returns that build directory."""
    build = package.SETUP.work_dir / name
    package.configure(project, build, f"USDT_SOURCE_DIR={package.SETUP.source_dir}", *definitions)
    package.build(build)
    return build


def assert_notes(test: unittest.TestCase, binary: Path, expected) -> None:
    """`binary` has exactly the stapsdt notes of `expected`, one per probe site: (provider:name,
    the declared argument sizes and signs, `-4 8`) pairs, or a dict of them where each probe
    has one site; each relocated by the module's own `.stapsdt.base` and guarded by a
    semaphore inside its own `.probes` section."""
    notes = elf_notes.notes(str(binary))
    sections = elf_notes.sections(str(binary))
    sites = expected.items() if isinstance(expected, dict) else expected
    test.assertEqual(sorted((note.probe, package.argument_sizes(" ".join(note.arguments))) for note in notes),
                     sorted(sites), f"notes of {binary}")
    base, semaphores = sections.get(".stapsdt.base"), sections.get(".probes")
    test.assertIsNotNone(base, f"{binary} has no .stapsdt.base section")
    test.assertIsNotNone(semaphores, f"{binary} has no .probes section")
    for note in notes:
        test.assertEqual(note.base, base.address, f"{note.probe} in {binary}: base")
        test.assertTrue(semaphores.contains(note.semaphore), f"{note.probe} in {binary}: semaphore {note.semaphore:#x}")


def gdb_run(test: unittest.TestCase, program: Path, arguments: Sequence[str],
            string_indices: Dict[str, Sequence[int]], start_first: bool = False) -> gdb_probes.GdbRun:
    """gdb breaking on every probe of `string_indices` while `program` runs with `arguments`;
    the program must exit normally."""
    usdt_testing.require_tracer(test, "gdb", needs_root=False)
    run = gdb_probes.run(str(program), list(arguments), string_indices, start_first)
    test.assertTrue(run.exited_normally, run.output)
    return run


def assert_gdb_reads(test: unittest.TestCase, program: Path, arguments: Sequence[str],
                     string_indices: Dict[str, Sequence[int]], hits: Sequence[Tuple[str, Tuple]],
                     start_first: bool = False) -> None:
    """gdb_run() reads exactly `hits` ((probe, values) in order)."""
    run = gdb_run(test, program, arguments, string_indices, start_first)
    test.assertEqual([(hit.probe, hit.values) for hit in run.hits], list(hits), run.output)
