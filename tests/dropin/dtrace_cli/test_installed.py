"""The installed usdt-dtrace and usdt.pc, as a Makefile project uses them, from a prefix moved
after the install.

From the prefix CTest installed once and then moved (the fixture usdt_installed,
tests/package/install_prefix.py): `usdt-dtrace -h` and `-G` on programs/semantics.d, and
programs/semantics.c compiled and linked with no flag naming the prefix (the header is
self-contained). The program must run and carry its probes. The same through a symlink to
the command. Running the command must not write into the prefix (no __pycache__). usdt.pc,
for code that includes usdt/usdt.h itself, names the runtime headers' directory in the prefix it was
installed to (tests/package/test_install.py); moved, `pkg-config --define-prefix` gives the
prefix's own, as a clean path.
"""

import shutil
import unittest
from pathlib import Path

import dtrace_support as support
from dtrace_support import files_in
import elf_notes
import usdt_testing
from test_semantics import PROGRAMS, UNTRACED_OUTPUT, WARNINGS
from usdtgen import VERSION


def add_options(parser):
    parser.add_argument("--installed-prefix", type=Path, required=True,
                        help="where the fixture usdt_installed has installed usdt")


class InstalledTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.prefix = support.OPTIONS.installed_prefix
        cls.installed_files = files_in(cls.prefix)

    def build_with(self, prefix: Path, command: Path, name: str) -> Path:
        """Generates and builds semantics.c as a Makefile would, with `command` and no flag naming `prefix`."""
        directory = support.work_directory(name)
        shutil.copy(PROGRAMS / "semantics.d", directory)
        # CTest's PYTHONPATH names the source tree: the installed command must do without.
        environment = {"PYTHONPATH": "", "CC": "cc"}
        for mode in ("-h", "-G"):
            result = support.usdt_dtrace(["-C", mode, "-s", "semantics.d"], directory, command, environment)
            self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))
        program = directory / "semantics"
        support.run(["cc", "-std=c99", "-O2", *WARNINGS, "-I.", PROGRAMS / "semantics.c", "semantics.o",
                     "-o", program], cwd=directory)
        return program

    def assert_serves_a_makefile_project(self, prefix: Path, command: Path, name: str):
        program = self.build_with(prefix, command, name)
        self.assertEqual(support.run([program]).stdout, UNTRACED_OUTPUT)
        self.assertEqual({note.name for note in elf_notes.notes(str(program))}, {"done", "nothing", "request__start"})
        # The command wrote nothing into the prefix.
        self.assertEqual(files_in(prefix), self.installed_files)

    def test_installs_the_command_and_the_pkg_config_file(self):
        self.assertIn("bin/usdt-dtrace", self.installed_files)
        self.assertIn("share/pkgconfig/usdt.pc", self.installed_files)
        self.assertTrue((self.prefix / "bin" / "usdt-dtrace").stat().st_mode & 0o111)
        environment = {"PKG_CONFIG_PATH": str(self.prefix / "share" / "pkgconfig")}
        # One version number: the package's (CMake's project(VERSION)) is the generator's.
        version = support.run(["pkg-config", "--modversion", "usdt"], environment=environment).stdout
        self.assertEqual(version, f"{VERSION}\n")
        package_version = (self.prefix / "share" / "cmake" / "usdt" / "usdtConfigVersion.cmake").read_text()
        self.assertIn(f'set(PACKAGE_VERSION "{VERSION}")', package_version)
        # The prefix moved: pkg-config takes it from usdt.pc's directory, <prefix>/share/pkgconfig.
        flags = support.run(["pkg-config", "--define-prefix", "--cflags", "--libs", "usdt"],
                            environment=environment).stdout.split()
        self.assertEqual(flags, [f"-I{self.prefix}/share/usdt/runtime/include"])

    def test_installed_command_serves_a_makefile_project(self):
        self.assert_serves_a_makefile_project(self.prefix, self.prefix / "bin" / "usdt-dtrace", "installed")

    def test_through_a_symlink(self):
        links = support.work_directory("links")
        (links / "usdt-dtrace").symlink_to(self.prefix / "bin" / "usdt-dtrace")
        self.assert_serves_a_makefile_project(self.prefix, links / "usdt-dtrace", "symlinked")


if __name__ == "__main__":
    support.parse_arguments(add_options)
    usdt_testing.main()
