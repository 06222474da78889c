"""bpftrace (root) reads a subset of the matrix's cells (cells.BPFTRACE_CELLS): every probe's
hits, every argument of each (the first six before bpftrace 0.25), strings through str() as far as
bpftrace reads them by default (64 bytes with the terminator in 0.17, 1024 from 0.23: longer ones
are cut; bpftrace_attach says which release does what), edges:guarded firing because the
kernel raised its semaphore. A program's probes are traced with `-c`; a shared library's
by attaching to the library file first, since `-c` does not reach a library the child has
not mapped yet.
"""

import subprocess
import unittest
from concurrent.futures import ThreadPoolExecutor

import bpftrace_attach
import build
import cells
import expected_matrix
from test_matrix import parse_arguments
from usdt_testing import main, require_tracer

expected = expected_matrix.expected


def script(module):
    """One action per probe printing `HIT provider:name|v0|v1...`: %lld for signed arguments,
    %llu for unsigned ones (a wrong sign shows as a wrong number), %s for strings."""
    specs = expected_matrix.specs()
    first_hits = {}
    for hit in expected_matrix.HITS:
        first_hits.setdefault(hit.probe, hit)
    lines = [bpftrace_attach.BEGIN_READY]
    for probe, hit in first_hits.items():
        action = bpftrace_attach.printf_action(probe, specs[probe], hit.values,
                                               lambda value: isinstance(value, expected.Text))
        lines.append(f"usdt:{module}:{probe} {action}")
    return "\n".join(lines)


def wanted_lines(program_output):
    lines = []
    for hit in expected_matrix.HITS:
        values = []
        for value in expected.resolve(hit.values[:bpftrace_attach.arguments_read()], program_output):
            if isinstance(value, str):
                value = value.encode()[:bpftrace_attach.string_bytes()].decode(errors="replace")
            values.append(str(value))
        lines.append("|".join([f"HIT {hit.probe}", *values]))
    return lines


def run(command, **options):
    return subprocess.run(command, capture_output=True, encoding="utf-8", errors="replace",
                          timeout=120, **options)


class BpftraceTest(unittest.TestCase):
    maxDiff = None
    inputs: build.Inputs
    builds = {}

    @classmethod
    def setUpClass(cls):
        # Most of a trace is bpftrace detaching, which the kernel does one attached site at a
        # time while the CPU idles: the cells build meanwhile, one at a time, in the order
        # the tests run (unittest sorts them by name).
        cls.builder = ThreadPoolExecutor(max_workers=1)
        cls.builds = {cell: cls.builder.submit(build.build, cell, cls.inputs)
                      for cell in sorted(cells.BPFTRACE_CELLS, key=lambda cell: cell.name)}

    @classmethod
    def tearDownClass(cls):
        cls.builder.shutdown(cancel_futures=True)

    def built(self, cell):
        future = self.builds[cell]
        return build.result_or_raise(future.exception() or future.result(), cell.name)

    def trace(self, built):
        """bpftrace's output and the program's, with the program run once while traced."""
        module = str(built.probe_module)
        arguments = [str(built.program), *expected_matrix.ARGUMENTS]
        if built.probe_module == built.program:
            completed = run(["bpftrace", "-e", script(module), "-c", " ".join(arguments)])
            # stderr carries harmless warnings (RLIMIT_MEMLOCK); the exit status matters.
            self.assertEqual(completed.returncode, 0, completed.stdout + completed.stderr)
            return completed.stdout, completed.stdout
        output, program = bpftrace_attach.trace(script(module), lambda: run(arguments),
                                                len(expected_matrix.HITS))
        self.assertEqual(program.returncode, 0, program.stderr)
        return output, program.stdout

    def check(self, cell):
        require_tracer(self, "bpftrace")
        built = self.built(cell)
        output, program_output = self.trace(built)
        self.assertEqual(bpftrace_attach.hit_lines(output), wanted_lines(program_output), output)


def add_cell_tests():
    for cell in cells.BPFTRACE_CELLS:
        def test(self, cell=cell):
            self.check(cell)
        reason = cells.known_failures(cell).get("gdb")
        setattr(BpftraceTest, f"test_{cell.name}", unittest.expectedFailure(test) if reason else test)


if __name__ == "__main__":
    BpftraceTest.inputs = build.inputs_from(parse_arguments())
    add_cell_tests()
    main()
