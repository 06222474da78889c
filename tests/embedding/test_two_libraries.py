"""A static library with probes (core) linked into two shared libraries (liba.so, libb.so) that
one program loads: each library has its own sites of core's probes, relocated by its own
`.stapsdt.base` and guarded by its own semaphores; gdb reads both libraries' values, and
bpftrace attached by each library's path reads that library's values and raises that library's
semaphores only; the program's output and exit status are those of an untraced run.

CTest passes the programs CMake built (two_libraries/) as `program=`, `liba=`, `libb=`.
"""

import re
import subprocess
import threading
import time
import unittest
from pathlib import Path

from libraries_support import Attach, assert_traced, bpftrace_run, program_lines
from embedding_support import assert_notes, gdb_run, package
import bpftrace_attach
import usdt_testing

PROGRAMS = {}
ROUNDS = 3
CORE_NOTES = {"core:enter": "-4", "core:hit": "-4 -4 8"}


def expected_output(a_enabled: int, b_enabled: int) -> str:
    return "".join(f"round {round}: a enabled={a_enabled} b enabled={b_enabled}\n" for round in range(1, ROUNDS + 1))


def library_hits(library: str):
    """What the library `a` or `b` fires in each round: core:enter, then core:hit."""
    number, offset = (1, 0) if library == "a" else (2, 100)
    hits = []
    for round in range(1, ROUNDS + 1):
        hits += [("core:enter", (number,)), ("core:hit", (number, offset + round, library))]
    return hits


class TwoLibrariesTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.program, self.liba, self.libb = (Path(PROGRAMS[name]) for name in ("program", "liba", "libb"))

    def test_each_library_has_its_own_sites_base_and_semaphores(self):
        for library in (self.liba, self.libb):
            with self.subTest(library=library.name):
                assert_notes(self, library, CORE_NOTES.items())

    def test_untraced_program_sees_no_probe_enabled(self):
        result = package.run([self.program, str(ROUNDS)])
        self.assertEqual(result.stdout, expected_output(0, 0))

    def test_gdb_reads_both_libraries(self):
        run = gdb_run(self, self.program, [str(ROUNDS)], {"core:enter": [], "core:hit": [2]}, start_first=True)
        listed = sorted((probe, Path(path).name) for probe, path in run.listed)
        self.assertEqual(listed, sorted((probe, library.name) for probe in CORE_NOTES
                                        for library in (self.liba, self.libb)), run.output)
        expected = []
        for round in range(ROUNDS):
            expected += library_hits("a")[2 * round:2 * round + 2] + library_hits("b")[2 * round:2 * round + 2]
        self.assertEqual([(hit.probe, hit.values) for hit in run.hits], expected, run.output)
        # gdb sets the semaphores of the probes it breaks on, in both libraries.
        self.assertEqual(program_lines(run.output), expected_output(1, 1), run.output)

    def test_bpftrace_by_library_path_reads_both_libraries(self):
        attaches = [Attach(library, probe, [2] if probe == "core:hit" else [])
                    for library in (self.liba, self.libb) for probe in CORE_NOTES]
        hits, result = bpftrace_run(self, attaches, [self.program, str(ROUNDS)], 4 * ROUNDS)
        expected = [(f"lib{library}.so:{probe}", values) for library in "ab" for probe, values in library_hits(library)]
        assert_traced(self, hits, expected, result.stdout)
        self.assertEqual(result.stdout, expected_output(1, 1))

    def test_bpftrace_on_one_library_leaves_the_other_alone(self):
        attaches = [Attach(self.libb, probe, [2] if probe == "core:hit" else []) for probe in CORE_NOTES]
        hits, result = bpftrace_run(self, attaches, [self.program, str(ROUNDS)], 2 * ROUNDS)
        assert_traced(self, hits, [(f"libb.so:{probe}", values) for probe, values in library_hits("b")], result.stdout)
        self.assertEqual(result.stdout, expected_output(0, 1))

    def test_bpftrace_by_library_paths_on_a_running_process(self):
        """Attached to a running `--serve` process by both libraries' paths, filtered by its pid
        (not -p: docs/cmake.md says why): each library's values, both semaphores raised
        while attached and lowered after, the process alive throughout."""
        usdt_testing.require_tracer(self, "bpftrace")
        server = subprocess.Popen([self.program, "--serve"], stdout=subprocess.PIPE, text=True)
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(server.stdout), daemon=True)
        try:
            reader.start()
            script = bpftrace_attach.BEGIN_READY + "".join(
                f'usdt:{library}:core:hit /pid == {server.pid}/ '
                f'{{ printf("HIT {library.name}|%lld|%lld|%s\\n", arg0, arg1, str(arg2)); }}\n'
                for library in (self.liba, self.libb))
            output, _ = bpftrace_attach.trace(script, lambda: None, 6)
            detached_at = len(lines)
            time.sleep(0.5)   # five rounds
            self.assertIsNone(server.poll())
        finally:
            server.kill()
            server.wait()
            reader.join()
        hits = re.findall(r"^HIT (lib[ab])\.so\|(\d+)\|(\d+)\|(\w*)$", output, re.MULTILINE)
        self.assertGreaterEqual(len(hits), 6, output)
        counts = {"liba": [], "libb": []}
        for library, number, count, name in hits:
            expected_number, expected_name = (1, "a") if library == "liba" else (2, "b")
            self.assertEqual(int(number), expected_number, output)
            self.assertIn(name, (expected_name, ""), output)   # empty: see assert_traced
            counts[library].append(int(count))
        # Round N fires core:hit(1, N) in liba.so, then core:hit(2, 100 + N) in libb.so; the
        # first and last libb hits may be those of a round attached or detached halfway.
        self.assertGreaterEqual(len(counts["libb"]), 3, output)
        self.assertTrue(all(count - 100 in counts["liba"] for count in counts["libb"][1:-1]), counts)
        self.assertIn("a enabled=1 b enabled=1", "".join(lines[:detached_at]))
        self.assertRegex(lines[-1], r"^round \d+: a enabled=0 b enabled=0$", lines)

if __name__ == "__main__":
    _, programs = usdt_testing.parse_options(program_names=("program", "liba", "libb"))
    PROGRAMS.update(programs)
    usdt_testing.main()
