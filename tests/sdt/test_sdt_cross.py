"""usdt's sys/sdt.h on the other targets (tests/cross/targets.py): programs/sdt_probes.c and
sdt_more.c built by each Debian cross compiler installed, as C99 at -O2 (and -O0 where the
arguments go in a block only then: s390x), run under qemu-user and read by gdb-multiarch at
every probe: each value test_sdt.py's EXPECTED says, each operand in the form the target's
tracers parse (a register, or argument N at byte 8 * N of the argument block).
"""

import re
import shutil
import subprocess
import sys
import unittest
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "cross"))

import elf_notes  # noqa: E402
import remote_gdb_probes  # noqa: E402
import test_sdt  # noqa: E402
import usdt_testing  # noqa: E402
from targets import TARGETS  # noqa: E402

# The probes of the .S file and the x86-64 asm statement are x86-64's.
X86_64_ONLY = ("asm_file", "asm_file0", "asm_specs")
SPEC = re.compile(r"-?\d+@(?P<operand>.+)")

OPTIONS = None


def builds():
    """(target, optimization) of every target whose cross compiler and qemu are installed."""
    found = []
    for target in TARGETS.values():
        if not target.has_probes or not shutil.which(f"{target.triple}-gcc") or not shutil.which(target.qemu):
            continue
        found.append((target, "-O2"))
        if target.block_unoptimized_only:
            found.append((target, "-O0"))
    return found


class SdtCrossTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = usdt_testing.fresh_directory(OPTIONS.work_dir)
        with ThreadPoolExecutor(max_workers=2) as pool:
            cls.results = list(pool.map(lambda build: cls.build_and_run(*build), builds()))

    @classmethod
    def build_and_run(cls, target, optimization):
        program = cls.directory / f"{target.name}{optimization}"
        built = subprocess_run([f"{target.triple}-gcc", "-std=c99", optimization, *test_sdt.WARNING_FLAGS, "-Werror",
                                f"-I{test_sdt.USDT_INCLUDE}", str(test_sdt.PROGRAMS / "sdt_probes.c"),
                                str(test_sdt.PROGRAMS / "sdt_more.c"), str(test_sdt.PROGRAMS / "sdt_no_asm.c"),
                                "-o", str(program)])
        if built.returncode != 0:
            return target, optimization, built.stderr, [], None
        notes = elf_notes.notes(str(program))
        spec_notes = None
        if not target.gdb_reads_arguments:
            spec_notes = defaultdict(lambda: defaultdict(list))
            for note in notes:
                spec_notes[program.name][note.probe].append((note.location, note.arguments))
        expected = cls.expected(target)
        strings = {f"sdt:{name}": [index for index, value in enumerate(values) if isinstance(value, str)]
                   for name, values in expected.items()}
        run = remote_gdb_probes.run((target.qemu, "-L", target.sysroot), target.sysroot, str(program), [],
                                    strings, notes=spec_notes)
        return target, optimization, None, notes, run

    @staticmethod
    def expected(target):
        expected = {**test_sdt.EXPECTED, **test_sdt.VARIADIC, **test_sdt.ASM_STATEMENTS, **test_sdt.BOOLEAN}
        if target.pointer_size == 4:
            # In an asm statement an 8-byte value is in a register pair there, of which the spec
            # names the first, its low half on these little-endian targets (as with systemtap's).
            expected["asm_template"] = [1, 5]
            del expected["wide"]   # no __int128
        return {name: values for name, values in expected.items() if name not in X86_64_ONLY}

    def test_every_target_reads_every_argument(self):
        self.assertTrue(self.results, "no cross compiler installed (tests/install-dependencies.sh)")
        for target, optimization, errors, notes, run in self.results:
            expected = self.expected(target)
            with self.subTest(target=target.name, optimization=optimization):
                self.assertIsNone(errors)
                in_block = target.block is not None and not (target.block_unoptimized_only and optimization != "-O0")
                for note in notes:
                    self.assertEqual(len(note.arguments), len(expected[note.name]), note)
                    operands = [SPEC.match(argument)["operand"] for argument in note.arguments]
                    # An asm statement's operands are the compiler's choice of register or memory.
                    if note.name == "asm_template":
                        continue
                    if in_block:
                        slots = [re.fullmatch(target.block, operand) for operand in operands]
                        self.assertTrue(all(slots), note)
                        self.assertEqual([int(slot["offset"]) for slot in slots], [8 * i for i in range(len(slots))])
                    else:
                        for operand in operands:
                            self.assertRegex(operand, f"^{target.register}$", note)
                self.assertTrue(run.exited_normally, run.output[-3000:])
                hits = {hit.probe.partition(":")[2]: list(hit.values) for hit in run.hits}
                self.assertEqual(sorted(hits), sorted(expected), run.output[-3000:])
                for name, values in expected.items():
                    self.assertEqual(len(hits[name]), len(values), (name, hits[name]))
                    for index, (got, want) in enumerate(zip(hits[name], values)):
                        if want is test_sdt.NONZERO:
                            self.assertNotEqual(got, 0, (name, index))
                        else:
                            self.assertEqual(got, want, (name, index, hits[name]))


def subprocess_run(command):
    return subprocess.run(command, capture_output=True, text=True, check=False)


def add_options(parser):
    parser.add_argument("--work-dir", type=Path, required=True)


if __name__ == "__main__":
    OPTIONS, _ = usdt_testing.parse_options(add_options)
    usdt_testing.main()
