"""The USDT_X86_NOP5 opt-in keeps a leaf function's red zone intact while traced.

Linux 6.18 turns a uprobe on a 5-byte nop into a call to its [uprobes-trampoline] after the
first hit, and that call writes below the stack pointer. red_zone.c's leaf functions, built
at -O0, keep their locals there across the probe. Under bpftrace (root), usdt's opt-in site
must give every result right and every argument; the control, a bare 5-byte nop, must give
wrong results, which proves the leaf really depends on its red zone. Both traced tests skip
when the kernel did not optimize the probe (no trampoline mapped): nothing is tested then.
Without root: the leaf functions' code, the note's address, and gdb reading the arguments.

usage: test_red_zone.py red_zone=PATH [unittest options]
"""

import os
import re
import subprocess
import unittest

import bpftrace_attach
import elf_notes
import gdb_probes
from usdt_testing import main, parse_options, require_tracer

PROGRAM = ""
HITS = 1000      # the first hit traps; every later one goes through the trampoline
NOP5 = "0f 1f 44 00 00"
_RESULT_RE = re.compile(r"^wrong=(\d+) trampoline=(yes|no)$", re.MULTILINE)


def disassembly(*options):
    """`objdump -d` lines `ADDRESS: BYTES<TAB>INSTRUCTION` of PROGRAM, restricted by `options`."""
    return subprocess.run(["objdump", "-d", "--wide", *options, PROGRAM], check=True,
                          capture_output=True, text=True).stdout


def instructions(text):
    """(address, bytes, instruction) of each instruction line of objdump's output."""
    return [(int(match[1], 16), match[2].strip(), " ".join(match[3].split()))
            for match in re.finditer(r"^\s*([0-9a-f]+):\t([0-9a-f ]+)\t(.*)$", text, re.MULTILINE)]


def run_result(stdout):
    """(wrong results, trampoline mapped) from red_zone's output."""
    match = _RESULT_RE.search(stdout)
    if match is None:
        raise AssertionError(f"red_zone printed no result line:\n{stdout}")
    return int(match[1]), match[2] == "yes"


class LeafFunctions(unittest.TestCase):
    def test_keep_locals_below_the_stack_pointer(self):
        # Otherwise the traced tests would prove nothing: the frame pointer equals the stack
        # pointer, which nothing lowers, and locals are stored below it.
        for function in ("leaf_opt_in", "leaf_bare"):
            with self.subTest(function=function):
                code = [instruction for _, _, instruction in
                        instructions(disassembly(f"--disassemble={function}"))]
                self.assertEqual(code[:2], ["push %rbp", "mov %rsp,%rbp"], code)
                self.assertFalse([line for line in code if re.search(r"^(sub|add) .*,%rsp$", line)], code)
                self.assertTrue([line for line in code if re.search(r"^mov %r\w+,-0x[0-9a-f]+\(%rbp\)$", line)], code)

    def test_note_points_at_the_nop5_between_the_stack_pointer_moves(self):
        notes = {note.probe: note for note in elf_notes.notes(PROGRAM)}
        self.assertEqual(sorted(notes), ["red_zone:bare_nop5", "red_zone:nop5"])
        for probe, moved in (("red_zone:nop5", True), ("red_zone:bare_nop5", False)):
            with self.subTest(probe=probe):
                location = notes[probe].location
                # lea -128 (5 bytes), the nop, lea 128 (8 bytes); the control from its nop on.
                start = location - 5 if moved else location
                code = instructions(disassembly(f"--start-address={start}", f"--stop-address={location + 13}"))
                at_site = [(address, raw) for address, raw, _ in code if address == location]
                self.assertEqual(at_site, [(location, NOP5)], code)
                around = [instruction for address, _, instruction in code if address != location]
                if moved:
                    self.assertEqual(around, ["lea -0x80(%rsp),%rsp", "lea 0x80(%rsp),%rsp"], code)
                else:
                    self.assertNotIn("lea -0x80(%rsp),%rsp", around, code)


class OptInUnderGdb(unittest.TestCase):
    def setUp(self):
        require_tracer(self, "gdb", needs_root=False)

    def test_reads_the_argument_and_keeps_results(self):
        run = gdb_probes.run(PROGRAM, ["opt-in", "3"], {"red_zone:nop5": []})
        self.assertEqual([(hit.probe, hit.values) for hit in run.hits],
                         [("red_zone:nop5", (seed,)) for seed in range(3)], run.output)
        self.assertTrue(run.exited_normally, run.output)
        self.assertEqual(run_result(run.output)[0], 0, run.output)


class RedZoneUnderBpftrace(unittest.TestCase):
    """Each site traced once by bpftrace attached to the file, which prints every argument."""
    maxDiff = None
    runs = {}

    def setUp(self):
        require_tracer(self, "bpftrace")

    def traced(self, variant):
        """(HIT lines bpftrace printed, wrong results, trampoline mapped) for `variant`."""
        if variant not in self.runs:
            probe = "red_zone:nop5" if variant == "opt-in" else "red_zone:bare_nop5"
            script = (bpftrace_attach.BEGIN_READY
                      + f'usdt:{PROGRAM}:{probe} {{ printf("HIT %lld\\n", arg0); }}\n')
            output, program = bpftrace_attach.trace(
                script, lambda: subprocess.run([PROGRAM, variant, str(HITS)], capture_output=True,
                                               text=True, timeout=60), HITS)
            self.assertEqual(program.returncode, 0, program.stderr)
            hits = [line for line in output.splitlines() if line.startswith("HIT ")]
            self.runs[variant] = (hits, *run_result(program.stdout))
        return self.runs[variant]

    def skip_unless_optimized(self, variant):
        if not self.traced(variant)[2]:
            self.skipTest(f"kernel {os.uname().release} did not optimize the uprobe on the 5-byte nop "
                          f"(no [uprobes-trampoline] in /proc/PID/maps; Linux 6.18 or later does)")

    def test_opt_in_keeps_the_red_zone_and_reads_every_argument(self):
        if not self.traced("opt-in")[2] and self.traced("bare")[2]:
            self.fail("the kernel optimized the bare 5-byte nop but not usdt's opt-in site")
        self.skip_unless_optimized("opt-in")
        hits, wrong, _ = self.traced("opt-in")
        self.assertEqual(wrong, 0, f"{wrong} of {HITS} calls returned a wrong result")
        self.assertEqual(hits, [f"HIT {seed}" for seed in range(HITS)])

    def test_control_bare_nop5_loses_the_red_zone(self):
        self.skip_unless_optimized("bare")
        hits, wrong, _ = self.traced("bare")
        self.assertEqual(len(hits), HITS)
        self.assertGreater(wrong, 0, "the bare 5-byte nop kept the red zone: the leaf function "
                                     "does not test what the opt-in protects")


if __name__ == "__main__":
    _, programs = parse_options(program_names=("red_zone",))
    PROGRAM = programs["red_zone"]
    main()
