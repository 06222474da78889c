"""What test_add_provider.py and test_assembler_check.py share: usdt_add_provider/, a consumer
project that finds the usdt CTest installed once (the fixture usdt_installed) with find_package,
or adds usdt's source tree as a subproject, copied into a scratch directory per test; the
provider files it is given; running CMake with this build's generator and compiler.

Usage of either module (CTest passes these): MODULE --source-dir REPO --installed-prefix PREFIX
    [--cmake CMAKE] [--generator GENERATOR] [--c-compiler CC] [unittest options]
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import usdt_testing

PROJECT = Path(__file__).resolve().parent / "usdt_add_provider"

# From the command line (parse_options).
OPTIONS = argparse.Namespace()

GOOD = """\
/* The demo provider main.c fires. */
provider demo {
    probe tick(int n);
    probe tock(uint32_t seconds);
};
"""

# The same file with an error on line 4, column 16 (the parameter's type).
BAD = GOOD.replace("uint32_t seconds", "float seconds")

GENERATING = "Generating USDT probes"


def run_cmake(*arguments):
    """(exit status, stdout + stderr) of cmake with `arguments`."""
    result = subprocess.run([OPTIONS.cmake, *map(str, arguments)], capture_output=True, text=True, check=False)
    return result.returncode, result.stdout + result.stderr


def toolchain_options():
    """The generator and compiler CTest's build uses, and the interpreter running this test (it has Jinja2)."""
    options = [f"-DUSDT_PYTHON_EXECUTABLE={sys.executable}"]
    if OPTIONS.generator:
        options += ["-G", OPTIONS.generator]
    if OPTIONS.c_compiler:
        options.append(f"-DCMAKE_C_COMPILER={OPTIONS.c_compiler}")
    return options


def parse_options():
    """Takes the options off the command line (usdt_testing.parse_options) into
    OPTIONS, and finds the installed usdtConfig.cmake's directory (OPTIONS.usdt_dir)."""
    options, _ = usdt_testing.parse_options(add_options)
    vars(OPTIONS).update(vars(options))
    (config,) = OPTIONS.installed_prefix.rglob("usdtConfig.cmake")
    OPTIONS.usdt_dir = config.parent


class CMakeProjectTestCase(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="usdt-cmake-"))
        self.addCleanup(shutil.rmtree, self.directory)
        self.source = self.directory / "source"
        self.build_directory = self.directory / "build"
        self.header = self.build_directory / "app.usdt" / "probes.h"
        shutil.copytree(PROJECT, self.source)

    def write_provider(self, text):
        (self.source / "probes.d").write_text(text, encoding="utf-8")

    def configure(self, *definitions):
        return run_cmake("-S", self.source, "-B", self.build_directory, *toolchain_options(), *definitions)

    def build(self):
        return run_cmake("--build", self.build_directory, "-j2")

    def assertSucceeded(self, status_and_output):
        status, output = status_and_output
        self.assertEqual(status, 0, output)
        return output

    def assertFailed(self, status_and_output):
        status, output = status_and_output
        self.assertNotEqual(status, 0, output)
        self.assertNotIn("Traceback", output)
        return output


class SharedBuildTestCase(CMakeProjectTestCase):
    """The cases of a class configure the same build directory again, each from a fresh copy of
    the project in the same place, with the outputs of usdt_add_provider removed: what a case
    checks comes from the CMakeLists.txt and the module, run afresh on every configure, and from
    the generator's rules, run again for the new copy; the compiler detection and the assembler
    check, cached after the first case, would only repeat what the fresh configures of
    BuildErrorTest, UserDirectoriesTest (test_add_provider.py) and AssemblerFloorTest
    (test_assembler_check.py) check."""

    @classmethod
    def setUpClass(cls):
        cls.shared_directory = Path(tempfile.mkdtemp(prefix="usdt-cmake-"))
        cls.addClassCleanup(shutil.rmtree, cls.shared_directory)

    def setUp(self):
        self.directory = self.shared_directory
        self.source = self.directory / "source"
        self.build_directory = self.directory / "build"
        self.header = self.build_directory / "app.usdt" / "probes.h"
        shutil.rmtree(self.source, ignore_errors=True)
        shutil.copytree(PROJECT, self.source)
        for outputs in self.build_directory.glob("**/*.usdt"):
            shutil.rmtree(outputs)


def add_options(parser):
    parser.add_argument("--source-dir", required=True, help="the usdt repository")
    parser.add_argument("--installed-prefix", type=Path, required=True,
                        help="where the fixture usdt_installed has installed usdt")
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--generator", default="")
    parser.add_argument("--c-compiler", default="")
