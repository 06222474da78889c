"""The integration programs cross-compiled for aarch64 (project/, toolchain file
aarch64-linux-gnu.cmake), then read and run on this x86-64 machine:

  - readelf: every probe, each argument's declared size and sign (tests/integration/
    expected.py), every operand an aarch64 register (`x<N>` for 8 bytes, `w<N>` below),
    Base the `.stapsdt.base` address, semaphores inside `.probes`;
  - qemu-aarch64: each program's exit status and output (cross_project.ProgramRunChecks);
  - gdb-multiarch on qemu's gdb stub: every argument of every probe hit.

The project is configured and built once, in the work directory CTest passes
(cross_project.py, shared with test_unsupported.py, the 32-bit ARM build without probes).
"""

import re
from pathlib import Path

import cross_project   # first: puts tests/integration and tests/package on sys.path
import elf_notes
import expected
import package_support as package
import remote_gdb_probes
from usdt_testing import main

TOOLCHAIN_FILE = Path(__file__).with_name("aarch64-linux-gnu.cmake")
SYSROOT = "/usr/aarch64-linux-gnu"
EMULATOR = ("qemu-aarch64", "-L", SYSROOT)
MODULE_FILES = cross_project.MODULE_FILES
TYPES_PROGRAMS = cross_project.TYPES_PROGRAMS

SPEC_PREFIX = re.compile(r"-?\d+@")
REGISTER_NUMBER = r"([0-9]|[12][0-9]|30)"   # x0..x30; 31 is sp or xzr
WIDE_ARGUMENT = re.compile(rf"-?8@x{REGISTER_NUMBER}")
NARROW_ARGUMENT = re.compile(rf"-?[124]@w{REGISTER_NUMBER}")
SEMAPHORE_SIZE = 2   # unsigned short


class CrossTestCase(cross_project.CrossTestCase):
    project_build = cross_project.ProjectBuild("aarch64", TOOLCHAIN_FILE)
    tools = {"aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu", "aarch64-linux-gnu-g++": "g++-aarch64-linux-gnu"}


class NotesTest(CrossTestCase):
    def test_modules_are_aarch64(self):
        for module in MODULE_FILES:
            with self.subTest(module=module):
                header = package.run(["readelf", "-h", self.path(module)]).stdout
                self.assertRegex(header, r"Machine:\s+AArch64\n")

    def test_probes_and_argument_sizes(self):
        for module in MODULE_FILES:
            with self.subTest(module=module):
                expectation = expected.MODULES[module]
                specs = expectation.expected_specs()
                notes = elf_notes.notes(self.path(module))
                self.assertEqual(sorted({note.probe for note in notes}), sorted(specs), "probes with notes")
                for note in notes:
                    prefixes = tuple(SPEC_PREFIX.match(argument).group() for argument in note.arguments)
                    self.assertEqual(prefixes, specs[note.probe],
                                     f"{note.probe} at {note.location:#x}: {' '.join(note.arguments)}")
                for probe, count in expectation.sites.items():
                    self.assertEqual(sum(note.probe == probe for note in notes), count, f"sites of {probe}")

    def test_operands_are_registers_of_the_declared_width(self):
        # `[sp, 40]` and bare immediates are what aarch64 compilers give other constraints;
        # 8-byte values name the x register, smaller ones its 32-bit w half (the %w modifier).
        for module in MODULE_FILES:
            with self.subTest(module=module):
                for note in elf_notes.notes(self.path(module)):
                    for argument in note.arguments:
                        form = WIDE_ARGUMENT if argument.lstrip("-").startswith("8@") else NARROW_ARGUMENT
                        self.assertRegex(argument, f"^{form.pattern}$",
                                         f"{note.probe} at {note.location:#x}: {' '.join(note.arguments)}")

    def test_base_is_the_stapsdt_base_section(self):
        for module in MODULE_FILES:
            with self.subTest(module=module):
                base_section = elf_notes.sections(self.path(module)).get(".stapsdt.base")
                self.assertIsNotNone(base_section, "no .stapsdt.base section")
                self.assertNotEqual(base_section.address, 0)
                for note in elf_notes.notes(self.path(module)):
                    self.assertEqual(note.base, base_section.address, f"{note.probe} at {note.location:#x}")

    def test_one_semaphore_per_probe_in_probes_section(self):
        for module in MODULE_FILES:
            with self.subTest(module=module):
                path = self.path(module)
                declared = expected.MODULES[module].declared
                probes_section = elf_notes.sections(path).get(".probes")
                self.assertIsNotNone(probes_section, "no .probes section")
                # Exactly the declared probes' semaphores: a second copy would grow the section.
                self.assertEqual(probes_section.size, SEMAPHORE_SIZE * len(declared),
                                 f".probes size for {len(declared)} probes")
                symbols = elf_notes.symbols(path)
                semaphore_of = {}
                for probe in declared:
                    symbol = probe.replace(":", "_") + "_semaphore"
                    values = [value for name, value in symbols if name == symbol]
                    self.assertEqual(len(values), 1, f"symbol {symbol} (hidden: not in .dynsym)")
                    self.assertTrue(probes_section.contains(values[0]), f"{symbol} at {values[0]:#x}")
                    semaphore_of[probe] = values[0]
                for note in elf_notes.notes(path):
                    self.assertEqual(note.semaphore, semaphore_of[note.probe],
                                     f"{note.probe} at {note.location:#x}: semaphore")

    def test_locations_are_in_text(self):
        for module in MODULE_FILES:
            with self.subTest(module=module):
                text = elf_notes.sections(self.path(module))[".text"]
                for note in elf_notes.notes(self.path(module)):
                    self.assertTrue(text.contains(note.location), f"{note.probe} at {note.location:#x}")


class UnderQemuTest(cross_project.ProgramRunChecks, CrossTestCase):
    tools = {**CrossTestCase.tools, "qemu-aarch64": "qemu-user"}
    emulator = EMULATOR


class UnderGdbTest(CrossTestCase):
    tools = {**CrossTestCase.tools, "qemu-aarch64": "qemu-user", "gdb-multiarch": "gdb-multiarch"}

    def gdb_run(self, module, arguments, hits, start_first=False):
        return remote_gdb_probes.run(EMULATOR, SYSROOT, self.path(module), arguments,
                                     expected.string_indices(hits), start_first)

    def assertHits(self, run, hits):
        actual = [(hit.probe, hit.values) for hit in run.hits]
        wanted = [(hit.probe, expected.resolve(hit.values, run.output)) for hit in hits]
        self.assertEqual(actual, wanted, run.output)
        self.assertTrue(run.exited_normally, run.output)

    def test_types_programs_every_probe_listed_and_every_value(self):
        for module in TYPES_PROGRAMS:
            with self.subTest(module=module):
                run = self.gdb_run(module, expected.TYPES_ARGUMENTS, expected.TYPES_HITS)
                self.assertEqual(sorted({probe for probe, _ in run.listed}),
                                 sorted(expected.MODULES[module].expected_specs()), run.output)
                self.assertHits(run, expected.TYPES_HITS)

    def test_shared_library_probes_and_every_value(self):
        # solib:guarded fires too: gdb raises its semaphore inside the library over the stub.
        run = self.gdb_run("linked", expected.LINKED_ARGUMENTS, expected.LINKED_HITS, start_first=True)
        listed = dict(run.listed)
        self.assertEqual(sorted(listed), ["archive:fire", "objects:built", "solib:guarded", "solib:work"],
                         run.output)
        self.assertEqual(listed["solib:work"], self.path("solib"), "object of solib:work")
        self.assertEqual(listed["archive:fire"], self.path("linked"), "object of archive:fire")
        self.assertHits(run, expected.LINKED_HITS)


if __name__ == "__main__":
    package.parse_arguments()
    main()
