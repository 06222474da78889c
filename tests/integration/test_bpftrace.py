"""bpftrace reads the probes back (root): `bpftrace -l` lists every probe, and arg0..arg5
at each hit equal the values written in expected.py (bpftrace 0.17 reads six arguments
reliably). Signed arguments print with %lld and unsigned ones with %llu, so a wrong sign
in a note shows up as a wrong number.
"""

import subprocess
import unittest

import bpftrace_attach
import bpftrace_lines
import built_programs
import expected
from usdt_testing import main, parse_options, require_tracer

PROGRAMS = {}


def listed_probes(path):
    """provider:name of every `usdt:PATH:provider:name` that `bpftrace -l` prints."""
    listing = subprocess.run(["bpftrace", "-l", f"usdt:{path}:*"], capture_output=True, text=True,
                             timeout=60).stdout
    return sorted(line[len(f"usdt:{path}:"):] for line in listing.split())


class BpftraceTestCase(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        require_tracer(self, "bpftrace")

    def trace_command(self, module, program, arguments, hits):
        """Runs `program arguments` under `bpftrace -c`; returns its stdout (the program's too)."""
        script = bpftrace_lines.program(PROGRAMS[module], expected.MODULES[module].expected_specs(), hits)
        completed = subprocess.run(
            ["bpftrace", "-e", script, "-c", " ".join([PROGRAMS[program], *arguments])],
            capture_output=True, text=True, timeout=60)
        # stderr carries harmless warnings (RLIMIT_MEMLOCK); only the exit status matters.
        self.assertEqual(completed.returncode, 0, completed.stdout + completed.stderr)
        return completed.stdout


class TypesUnderBpftrace(BpftraceTestCase):
    def test_lists_every_probe(self):
        wanted = sorted(expected.MODULES["types_c"].expected_specs())
        for program in built_programs.TYPES_PROGRAMS:
            with self.subTest(program=program):
                self.assertEqual(listed_probes(PROGRAMS[program]), wanted)

    def test_every_hit_and_value(self):
        for program in built_programs.TYPES_PROGRAMS:
            with self.subTest(program=program):
                output = self.trace_command(program, program, expected.TYPES_ARGUMENTS, expected.TYPES_HITS)
                self.assertEqual(bpftrace_attach.hit_lines(output), bpftrace_lines.expected_lines(expected.TYPES_HITS, output), output)


class LibrariesUnderBpftrace(BpftraceTestCase):
    def test_lists_program_and_shared_library_probes(self):
        self.assertEqual(listed_probes(PROGRAMS["linked"]), ["archive:fire", "objects:built"])
        self.assertEqual(listed_probes(PROGRAMS["solib"]), ["solib:guarded", "solib:work"])

    def test_static_and_object_library_probes(self):
        hits = [hit for hit in expected.LINKED_HITS if hit.probe in ("archive:fire", "objects:built")]
        output = self.trace_command("linked", "linked", expected.LINKED_ARGUMENTS, hits)
        self.assertEqual(bpftrace_attach.hit_lines(output), bpftrace_lines.expected_lines(hits, output), output)

    def test_shared_library_probes_and_semaphore(self):
        # `-c` does not reach probes of a library the child has not mapped yet (bpftrace 0.17):
        # attach to the library file itself, then start the program.
        hits = [hit for hit in expected.LINKED_HITS if hit.probe.startswith("solib:")]
        script = bpftrace_attach.BEGIN_READY + bpftrace_lines.program(
            PROGRAMS["solib"], expected.MODULES["solib"].expected_specs(), hits)
        output, program = bpftrace_attach.trace(
            script, lambda: subprocess.run([PROGRAMS["linked"], *expected.LINKED_ARGUMENTS],
                                           capture_output=True, text=True, timeout=30), len(hits))
        self.assertEqual(program.returncode, 0, program.stderr)
        # solib:guarded fires only because the kernel raised its semaphore inside the library.
        self.assertEqual(bpftrace_attach.hit_lines(output), bpftrace_lines.expected_lines(hits, output), output)


class FlavoursUnderBpftrace(BpftraceTestCase):
    def test_formatted_argument_and_probe_without_semaphore(self):
        hits = expected.FLAVOURS_TRACED_HITS
        output = self.trace_command("flavours", "flavours", [], hits)
        self.assertEqual(bpftrace_attach.hit_lines(output), bpftrace_lines.expected_lines(hits, output), output)
        self.assertIn("evaluated=1", output)

    def test_untraced_probe_formats_nothing(self):
        completed = subprocess.run([PROGRAMS["flavours"]], capture_output=True, text=True, timeout=30)
        self.assertEqual((completed.returncode, completed.stdout), (0, "evaluated=0\n"))


if __name__ == "__main__":
    _, programs = parse_options(program_names=built_programs.NAMES)
    PROGRAMS.update(programs)
    main()
