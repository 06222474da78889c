"""One install of usdt, made on this x86-64 machine, serves aarch64 builds.

usdt's build under test, installed once by CTest (the fixture usdt_installed), must hold no machine
code at all (no prebuilt runtime to link). cross_consumer/ is configured against it
(-Dusdt_DIR, a host package) twice, each with the stand-in sysroot aarch64_sysroot/
(CMAKE_SYSROOT) whose target_word.h the .d file #includes, and built once each:

  - GCC: aarch64-gcc-sysroot.cmake (tests/cross/debian.cmake for aarch64 and the sysroot),
    with CMAKE_C_COMPILER_LAUNCHER a script that records what it runs: the .d file is
    preprocessed through it, with --sysroot;
  - Clang: aarch64-clang-sysroot.cmake, the build machine's clang told the target with
    CMAKE_C_COMPILER_TARGET: only with --target= does the .d file see __aarch64__.

For each: the header declares the aarch64 probe (the #if saw the target), the program is
AArch64 with that probe's note (the argument's size from the sysroot's header, in an aarch64
register) and runs under qemu-aarch64; gdb-multiarch on qemu's gdb stub reads the GCC
build's arguments.
"""

import re
import stat
import unittest
from pathlib import Path

from embedding_support import PROJECTS, assert_notes, package
import elf_notes
import remote_gdb_probes
import usdt_testing
from targets import TARGETS

PROJECT = PROJECTS / "cross_consumer"
SYSROOT = PROJECTS / "aarch64_sysroot"   # the toolchain files' CMAKE_SYSROOT
NOTES = {"target:aarch64": "2 8"}   # TARGET_WORD is unsigned short in the sysroot's target_word.h
AARCH64 = TARGETS["aarch64"]
EMULATOR = (AARCH64.qemu, "-L", AARCH64.sysroot)
LAUNCHER = """\
#!/bin/sh
# A compiler launcher, as ccache is one: records each command, then runs it.
printf '%s\\n' "$*" >> '{log}'
exec "$@"
"""


def require_tools(tools):
    """Skips the calling class (fails it with USDT_REQUIRE_TRACERS=1) without one of `tools`
    (program -> Debian package)."""
    for tool, package_name in tools.items():
        reason = usdt_testing.tracer_unavailable_reason(tool, needs_root=False, package=package_name)
        if reason is not None:
            if usdt_testing.tracers_required():
                raise AssertionError(f"USDT_REQUIRE_TRACERS=1 but {reason}")
            raise unittest.SkipTest(reason)


class CrossBuildTestCase(unittest.TestCase):
    """cross_consumer/ built in `name` with `toolchain_file` and more `definitions`."""
    maxDiff = None
    name = ""
    toolchain_file = Path()
    definitions = ()
    tools = {}

    @classmethod
    def setUpClass(cls):
        require_tools(cls.tools)
        config = next(package.installed_usdt().rglob("usdtConfig.cmake"))
        cls.build = package.SETUP.work_dir / cls.name
        package.configure(PROJECT, cls.build, f"CMAKE_TOOLCHAIN_FILE={cls.toolchain_file}",
                          f"usdt_DIR={config.parent}", *cls.definitions)
        package.build(cls.build)
        cls.program = cls.build / "cross_app"

    def test_the_d_file_was_preprocessed_for_the_target(self):
        header = (self.build / "cross_app.usdt" / "target.h").read_text()
        self.assertIn("TARGET_AARCH64(", header)
        self.assertNotIn("TARGET_HOST(", header)

    def test_the_program_is_aarch64(self):
        self.assertRegex(package.run(["readelf", "-h", self.program]).stdout, r"Machine:\s+AArch64\n")

    def test_has_the_probes_note_in_aarch64_registers(self):
        assert_notes(self, self.program, NOTES)
        for note in elf_notes.notes(str(self.program)):
            for argument in note.arguments:
                self.assertRegex(argument, rf"^-?[1248]@{AARCH64.register}$", " ".join(note.arguments))

    def test_runs_under_qemu(self):
        usdt_testing.require_tracer(self, "qemu-aarch64", needs_root=False, package="qemu-user")
        result = package.run([*EMULATOR, self.program, "Ada"])
        self.assertEqual((result.stdout, result.stderr), ("target:aarch64 fired for Ada\n", ""))


class InstalledPackageTest(unittest.TestCase):
    def test_holds_no_machine_code(self):
        prefix = package.installed_usdt()
        for path in prefix.rglob("*"):
            if path.is_file():
                with self.subTest(file=str(path.relative_to(prefix))):
                    with open(path, "rb") as stream:
                        magic = stream.read(8)
                    self.assertFalse(magic.startswith(b"\x7fELF") or magic == b"!<arch>\n")


class GccToolchainTest(CrossBuildTestCase):
    name = "gcc"
    toolchain_file = PROJECTS / "aarch64-gcc-sysroot.cmake"
    tools = {"aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu"}

    @classmethod
    def setUpClass(cls):
        cls.log = package.SETUP.work_dir / "launched.log"
        launcher = package.SETUP.work_dir / "launcher.sh"
        launcher.write_text(LAUNCHER.format(log=cls.log))
        launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
        cls.definitions = (f"CMAKE_C_COMPILER_LAUNCHER={launcher}",)
        super().setUpClass()

    def test_the_launcher_preprocessed_the_d_file_with_the_sysroot(self):
        commands = self.log.read_text().splitlines()
        preprocessed = [command for command in commands if re.search(r"\s-E\s.*target\.d$", command)]
        self.assertEqual(len(preprocessed), 1, commands)
        self.assertRegex(preprocessed[0], r"^\S*aarch64-linux-gnu-gcc\s")
        self.assertIn(f"--sysroot={SYSROOT}", preprocessed[0].split())

    def test_the_launcher_compiled_the_program(self):
        self.assertTrue(any(re.search(r"\s-c\s.*main\.c$", command) for command in self.log.read_text().splitlines()))

    def test_gdb_reads_the_arguments_over_qemu(self):
        for tool, package_name in (("qemu-aarch64", "qemu-user"), ("gdb-multiarch", "gdb-multiarch")):
            usdt_testing.require_tracer(self, tool, needs_root=False, package=package_name)
        run = remote_gdb_probes.run(EMULATOR, AARCH64.sysroot, str(self.program), ["Ada"],
                                    {"target:aarch64": [1]})
        self.assertEqual([(hit.probe, hit.values) for hit in run.hits], [("target:aarch64", (2, "Ada"))], run.output)
        self.assertTrue(run.exited_normally, run.output)


class ClangTargetTest(CrossBuildTestCase):
    name = "clang"
    toolchain_file = PROJECTS / "aarch64-clang-sysroot.cmake"
    tools = {"clang": "clang", "aarch64-linux-gnu-ld": "binutils-aarch64-linux-gnu",
             "aarch64-linux-gnu-gcc": "gcc-aarch64-linux-gnu"}


del CrossBuildTestCase   # only its subclasses, which name a toolchain, run


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
