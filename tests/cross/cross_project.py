"""What the cross tests share: project/ built for one target, and how its programs must run.

test_target.py and test_unsupported.py each build project/ once, for the target their
--target option names (targets.py), in the work directory CTest passes (`ProjectBuild`);
test_native.py reads the build test_target.py made for i686 (`FinishedBuild`, --project-build).
Their test cases derive from `CrossTestCase`. `ProgramRunChecks` holds what the programs print
and return, the same on every target as on x86-64, whether the target has probes or not.

Importing this module puts tests/integration (expected.py) and tests/package
(package_support.py) on sys.path.
"""

import subprocess
import sys
import unittest
from pathlib import Path
from typing import Dict, Optional, Union

TESTS_DIR = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(TESTS_DIR / "integration"), str(TESTS_DIR / "package")]

import expected
import package_support as package
from targets import TARGETS, Target
from usdt_testing import require_tracer

PROJECT = Path(__file__).with_name("project")
TOOLCHAIN_FILE = Path(__file__).with_name("debian.cmake")

# project/evaluations.c fires three of myapp.d's probes, with the types programs' notes; the
# linker dropped the fourth, myapp:nothing, with the dead function it is in. It links with
# --gc-sections, which keeps only the semaphores a site refers to: those three probes'.
EVALUATIONS_FIRED = ("myapp:signed__ints", "myapp:strings", "myapp:twelve")
EVALUATIONS = expected.Module(
    "\n".join(line for line in expected.TYPES_NOTES.splitlines() if line.partition(" ")[0] in EVALUATIONS_FIRED),
    EVALUATIONS_FIRED)
# The modules linked with --gc-sections (project/CMakeLists.txt).
GARBAGE_COLLECTED = {"evaluations"}

# Module project/ builds -> (its file, what its notes say).
MODULES = {
    "types_c": ("types_c", expected.MODULES["types_c"]),
    "types_c_o3": ("types_c_o3", expected.MODULES["types_c"]),
    "types_cxx": ("types_cxx", expected.MODULES["types_cxx"]),
    "types_cxx_o1": ("types_cxx_o1", expected.MODULES["types_cxx"]),
    "types_cxx_o2": ("types_cxx_o2", expected.MODULES["types_cxx"]),
    "flavours": ("flavours", expected.MODULES["flavours"]),
    "evaluations": ("evaluations", EVALUATIONS),
    "linked": ("linked", expected.MODULES["linked"]),
    "solib": ("libsolib.so", expected.MODULES["solib"]),
}
TYPES_PROGRAMS = ("types_c", "types_c_o3", "types_cxx", "types_cxx_o1", "types_cxx_o2")
# Built without optimization: where s390x passes the argument block.
UNOPTIMIZED = {"types_c", "types_cxx", "evaluations", "linked", "solib"}
EVALUATED_ARGUMENTS = 19   # project/evaluations.c


def add_target_option(parser) -> None:
    parser.add_argument("--target", choices=sorted(TARGETS), required=True)


def add_project_build_option(parser) -> None:
    add_target_option(parser)
    parser.add_argument("--project-build", type=Path, required=True,
                        help="project/ built for --target by another test (a CTest fixture)")


def target() -> Target:
    return TARGETS[package.SETUP.options.target]


class ProjectBuild:
    """project/ configured and built for the --target on first use; later calls reuse the
    result, a failure included, so that a broken build is not retried by every test."""

    def __init__(self, *definitions: str):
        self.definitions = definitions   # more `NAME=VALUE` cache entries
        self.output = ""                 # what the build printed, stdout and stderr
        self._directory: Optional[Path] = None
        self._error: Optional[str] = None

    def directory(self) -> Path:
        if self._directory is None and self._error is None:
            build = package.SETUP.work_dir / "build"
            try:
                package.configure(PROJECT, build, f"CMAKE_TOOLCHAIN_FILE={TOOLCHAIN_FILE}",
                                  f"USDT_CROSS_TRIPLE={target().triple}",
                                  f"USDT_CROSS_EMULATOR={target().qemu}",
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
            raise AssertionError(f"building {PROJECT} for {target().triple} failed:\n{self._error}")
        return self._directory


class FinishedBuild:
    """project/ built for the --target by another test, the setup of a CTest fixture
    (tests/cross/CMakeLists.txt): CTest runs this test only once that one has passed."""

    def directory(self) -> Path:
        build = package.SETUP.options.project_build
        if not (build / "CMakeCache.txt").is_file():
            raise AssertionError(f"{build} holds no build of {PROJECT} for {target().triple}: run this test "
                                 "through ctest, which runs the test that builds it first")
        return build


class CrossTestCase(unittest.TestCase):
    """Reads or runs what `project_build` built; skips (or fails, USDT_REQUIRE_TRACERS=1)
    when the cross compilers or one of `tools` is missing."""
    maxDiff = None
    project_build: Union[ProjectBuild, FinishedBuild]
    tools: Dict[str, str] = {}   # tool ("{qemu}": the target's) -> the Debian package with it

    def setUp(self):
        self.target = target()
        compilers = {f"{self.target.triple}-gcc": f"gcc-{self.target.triple}",
                     f"{self.target.triple}-g++": f"g++-{self.target.triple}"}
        for tool, package_name in {**compilers, **self.tools}.items():
            require_tracer(self, tool.format(qemu=self.target.qemu), needs_root=False, package=package_name)
        self.build = self.project_build.directory()

    def path(self, module: str) -> str:
        return str(self.build / MODULES[module][0])

    def expectation(self, module: str) -> expected.Module:
        return MODULES[module][1]


class ProgramRunChecks:
    """Mixed into a CrossTestCase: each program's exit status and output under qemu-user,
    written as tests/integration's programs give them on x86-64."""
    tools = {"{qemu}": "qemu-user"}

    def run_program(self, module, *arguments):
        return subprocess.run([self.target.qemu, "-L", self.target.sysroot, self.path(module), *arguments],
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

    def test_untraced_probe_formats_nothing(self):
        completed = self.run_program("flavours")
        self.assertEqual((completed.returncode, completed.stdout, completed.stderr), (0, "evaluated=0\n", ""))

    def test_probes_evaluate_each_argument_once(self):
        completed = self.run_program("evaluations")
        self.assertEqual((completed.returncode, completed.stdout, completed.stderr),
                         (0, f"evaluated={EVALUATED_ARGUMENTS}\n", ""))
