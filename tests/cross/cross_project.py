"""What the cross tests share: project/ built for one target, and how its programs must run.

test_aarch64.py and test_unsupported.py each build project/ once, with their own toolchain
file, in the work directory CTest passes (`ProjectBuild`); their test cases derive from
`CrossTestCase`. `ProgramRunChecks` holds what the programs print and return, the same on
every target as on x86-64, whether the target has probes (aarch64) or not (32-bit ARM).

Importing this module puts tests/integration (expected.py) and tests/package
(package_support.py) on sys.path.
"""

import subprocess
import sys
import unittest
from pathlib import Path
from typing import Dict, Optional, Sequence

TESTS_DIR = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(TESTS_DIR / "integration"), str(TESTS_DIR / "package")]

import expected
import package_support as package
from usdt_testing import require_tracer

PROJECT = Path(__file__).with_name("project")

# Module of expected.MODULES -> the file project/ builds for it.
MODULE_FILES = {
    "types_c": "types_c", "types_c_o2": "types_c_o2",
    "types_cxx": "types_cxx", "types_cxx_o2": "types_cxx_o2",
    "linked": "linked", "solib": "libsolib.so",
}
TYPES_PROGRAMS = ("types_c", "types_c_o2", "types_cxx", "types_cxx_o2")


class ProjectBuild:
    """project/ configured and built for one target on first use; later calls reuse the
    result, a failure included, so that a broken build is not retried by every test."""

    def __init__(self, target: str, toolchain_file: Path, *definitions: str):
        self.target = target
        self.toolchain_file = toolchain_file
        self.definitions = definitions   # more `NAME=VALUE` cache entries
        self.output = ""                 # what the build printed, stdout and stderr
        self._directory: Optional[Path] = None
        self._error: Optional[str] = None

    def directory(self) -> Path:
        if self._directory is None and self._error is None:
            build = package.SETUP.work_dir / "build"
            try:
                package.configure(PROJECT, build, f"CMAKE_TOOLCHAIN_FILE={self.toolchain_file}",
                                  f"USDT_SOURCE_DIR={package.SETUP.source_dir}",
                                  f"USDT_INTEGRATION_DIR={TESTS_DIR / 'integration'}",
                                  f"USDT_PYTHON_EXECUTABLE={sys.executable}", *self.definitions)
                # Not package.build, which keeps stdout only: compiler and linker warnings
                # are on stderr.
                completed = package.run([package.SETUP.cmake, "--build", build, "-j2"])
                self.output = completed.stdout + completed.stderr
                self._directory = build
            except AssertionError as error:
                self._error = str(error)
        if self._error is not None:
            raise AssertionError(f"building {PROJECT} for {self.target} failed:\n{self._error}")
        return self._directory


class CrossTestCase(unittest.TestCase):
    """Reads or runs what `project_build` built; skips (or fails, USDT_REQUIRE_TRACERS=1)
    when one of `tools` is missing."""
    maxDiff = None
    project_build: ProjectBuild
    tools: Dict[str, str] = {}   # tool -> the Debian package that installs it

    def setUp(self):
        for tool, package_name in self.tools.items():
            require_tracer(self, tool, needs_root=False, package=package_name)
        self.build = self.project_build.directory()

    def path(self, module: str) -> str:
        return str(self.build / MODULE_FILES[module])


class ProgramRunChecks:
    """Mixed into a CrossTestCase whose `emulator` is the qemu-user command: each program's
    exit status and output, written as tests/integration's programs give them on x86-64."""
    emulator: Sequence[str] = ()

    def run_program(self, module, *arguments):
        return subprocess.run([*self.emulator, self.path(module), *arguments],
                              capture_output=True, text=True, timeout=60)

    def test_types_programs_run(self):
        for module in TYPES_PROGRAMS:
            with self.subTest(module=module):
                completed = self.run_program(module, *expected.TYPES_ARGUMENTS)
                self.assertEqual((completed.returncode, completed.stderr), (0, ""))
                self.assertRegex(completed.stdout, r"^foo=0x[0-9a-f]+\nhello world\n$")

    def test_types_programs_check_their_arguments(self):
        for module in TYPES_PROGRAMS:
            with self.subTest(module=module):
                completed = self.run_program(module)
                self.assertEqual((completed.returncode, completed.stdout), (2, ""))
                self.assertIn("usage:", completed.stderr)

    def test_linked_program_calls_its_libraries(self):
        completed = self.run_program("linked", *expected.LINKED_ARGUMENTS)
        self.assertEqual((completed.returncode, completed.stdout, completed.stderr),
                         (0, "libs has 4 characters\n", ""))
