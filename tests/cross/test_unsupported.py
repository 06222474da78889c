"""A target usdt has no probes for (--target, targets.py: 32-bit MIPS): the integration
programs cross-compiled for it (project/, toolchain file debian.cmake). usdt/usdt.h sets
USDT_HAVE_PROBES to 0 there, so a probe must compile to the evaluation of its arguments
instead of failing the build:

  - the build: every source compiled by the cross compiler with -Wall -Wextra -Wpedantic
    -Werror, and not one warning printed (the linker's included);
  - readelf: every module the target's, without a stapsdt note or a `.note.stapsdt`,
    `.note.usdt` or `.stapsdt.base` section; each semaphore still a variable, zero, in
    `.probes` as on targets with probes (units built either way agree on it), but where
    --gc-sections dropped them, as nothing refers to them;
  - qemu-user: each program's exit status and output, the same as on x86-64, and each
    probe argument evaluated exactly once.

The project is configured and built once, in the work directory CTest passes (cross_project.py).
"""

import json
import re
import shlex
from pathlib import Path

import cross_project   # first: puts tests/integration and tests/package on sys.path
import elf_notes
import package_support as package
from usdt_testing import main

STRICT_FLAGS = ("-Wall", "-Wextra", "-Wpedantic", "-Werror")
# project/ already compiles its programs strictly; these flags make sure of it for every
# file. compile_commands.json shows what ran.
PROJECT_BUILD = cross_project.ProjectBuild(
    f"CMAKE_C_FLAGS={' '.join(STRICT_FLAGS)}", f"CMAKE_CXX_FLAGS={' '.join(STRICT_FLAGS)}",
    "CMAKE_EXPORT_COMPILE_COMMANDS=ON")

# Every file project/ compiles: the program sources (generated headers add none).
COMPILED_FILES = {"types.c", "types.cpp", "flavours.cpp", "evaluations.c", "solib.c", "archive.c",
                  "objects.c", "linked.c"}
PROBE_SECTIONS = {".note.stapsdt", ".note.usdt", ".stapsdt.base"}


class CrossTestCase(cross_project.CrossTestCase):
    project_build = PROJECT_BUILD


class BuildTest(CrossTestCase):
    def test_build_printed_no_warning(self):
        output = self.project_build.output
        self.assertIn("Linking C executable linked", output)   # the output is the build's
        self.assertNotRegex(output, r"(?i)warning", output)

    def test_every_source_compiled_strictly_by_the_cross_compiler(self):
        entries = json.loads((self.build / "compile_commands.json").read_text())
        self.assertEqual({Path(entry["file"]).name for entry in entries}, COMPILED_FILES)
        for entry in entries:
            with self.subTest(file=entry["file"]):
                command = shlex.split(entry["command"])
                self.assertRegex(Path(command[0]).name, rf"^{re.escape(self.target.triple)}-g(cc|\+\+)$")
                for flag in STRICT_FLAGS:
                    self.assertIn(flag, command)


class NotesTest(CrossTestCase):
    def test_modules_are_the_targets(self):
        for module in cross_project.MODULES:
            with self.subTest(module=module):
                header = package.run(["readelf", "-h", self.path(module)]).stdout
                self.assertRegex(header, rf"Class:\s+{self.target.elf_class}\n")
                self.assertRegex(header, rf"Machine:\s+{re.escape(self.target.machine)}\n")

    def test_no_probe_notes_or_sections(self):
        for module in cross_project.MODULES:
            with self.subTest(module=module):
                self.assertEqual(elf_notes.notes(self.path(module)), [])
                self.assertEqual(PROBE_SECTIONS & set(package.section_names(self.path(module))), set())

    def test_semaphores_are_plain_zero_variables(self):
        # Code may name a semaphore (systemtap's header allows it), so each still links:
        # one zero-initialized variable per probe, in `.probes`.
        for module in cross_project.MODULES:
            with self.subTest(module=module):
                path = self.path(module)
                if module in cross_project.GARBAGE_COLLECTED:
                    self.assertNotIn(".probes", elf_notes.sections(path))
                    continue
                probes = elf_notes.sections(path)[".probes"]
                symbols = elf_notes.symbols(path)
                for probe in self.expectation(module).declared:
                    symbol = probe.replace(":", "_") + "_semaphore"
                    # A shared library lists it in .dynsym and .symtab: one address either way.
                    addresses = {value for name, value in symbols if name == symbol}
                    self.assertEqual(len(addresses), 1, f"addresses of {symbol}")
                    self.assertTrue(probes.contains(addresses.pop()), f"{symbol} not in .probes")


class UnderQemuTest(cross_project.ProgramRunChecks, CrossTestCase):
    pass


if __name__ == "__main__":
    package.parse_arguments(cross_project.add_target_option)
    main()
