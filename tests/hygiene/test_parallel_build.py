"""Many providers in several targets, built with `cmake --build -j8`, with each CMake generator.

The project (written by the test) has PROVIDERS .d files that each #include headers through
a relative PREPROCESSOR_OPTIONS -I, in TARGETS targets (executables and a shared library)
that all use every file. Built twice from scratch, the second time with the providers listed
in the opposite order: both builds succeed and generate the same bytes (race-free, order-
independent). On the second build: nothing regenerates when nothing changed or an unrelated file
changed; touching or editing a header one .d file includes regenerates exactly that file's
outputs, with the edit visible in them (the DEPFILE); touching that .d file does the same.

Usage (CTest passes these): test_parallel_build.py --source-dir REPO --cmake CMAKE
    [--c-compiler CC] [unittest options]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import usdt_testing

PROVIDERS = 12
TARGETS = ("app_one", "app_two", "shared_lib")
JOBS = "8"
GENERATING = re.compile(r"Generating USDT probes (\S+)")

OPTIONS = argparse.Namespace()

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(usdt_parallel LANGUAGES C)
set(USDT_SOURCE_DIR "" CACHE PATH "usdt's source tree")
set(PROVIDER_FILES "" CACHE STRING "the .d files, in the order given to usdt_add_provider")
add_subdirectory("${USDT_SOURCE_DIR}" usdt)
add_executable(app_one main.c)
add_executable(app_two main.c)
add_library(shared_lib SHARED library.c)
foreach(target IN ITEMS app_one app_two shared_lib)
  usdt_add_provider(${target} ${PROVIDER_FILES} PREPROCESSOR_OPTIONS -Iinclude)
endforeach()
"""


def provider_text(index):
    return (f'#include "common.h"\n#include "p{index}_types.h"\n'
            f"provider p{index} {{\n    probe fire(P{index}_COUNT count, NAME_TYPE name);\n    probe idle();\n}};\n")


def write_project(source):
    (source / "include").mkdir(parents=True)
    (source / "CMakeLists.txt").write_text(CMAKELISTS)
    (source / "include" / "common.h").write_text("#define NAME_TYPE const char *\n")
    calls = []
    for index in range(PROVIDERS):
        (source / f"p{index}.d").write_text(provider_text(index))
        (source / "include" / f"p{index}_types.h").write_text(f"#define P{index}_COUNT int32_t\n")
        calls.append(f"    P{index}_FIRE(count, \"p{index}\");\n    P{index}_IDLE();\n")
    includes = "".join(f'#include "p{index}.h"\n' for index in range(PROVIDERS))
    fire_all = f"void fire_all(int count);\nvoid fire_all(int count) {{\n{''.join(calls)}}}\n"
    (source / "library.c").write_text(includes + fire_all)
    (source / "main.c").write_text(includes + fire_all + "int main(void) {\n    fire_all(1);\n    return 0;\n}\n")
    (source / "README.txt").write_text("not an input of any rule\n")


def generated_files(build):
    """Every generated file's bytes, by path relative to the build directory; the build
    directory's own path, which depfiles name, replaced by a placeholder."""
    files = {}
    for target in TARGETS:
        for path in sorted((build / f"{target}.usdt").iterdir()):
            files[str(path.relative_to(build))] = path.read_bytes().replace(str(build).encode(), b"<build>")
    return files


class ParallelBuildTest(unittest.TestCase):
    generator = None   # set by the subclasses

    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="usdt-parallel-"))
        self.addCleanup(shutil.rmtree, self.directory)
        self.source = self.directory / "source"
        write_project(self.source)

    def cmake(self, *arguments):
        result = subprocess.run([OPTIONS.cmake, *map(str, arguments)], capture_output=True, text=True,
                                check=False)
        self.assertEqual(result.returncode, 0, f"cmake {arguments}\n{result.stdout}{result.stderr}")
        return result.stdout + result.stderr

    def configure_and_build(self, build, provider_order):
        options = [f"-DUSDT_SOURCE_DIR={OPTIONS.source_dir}", f"-DUSDT_PYTHON_EXECUTABLE={sys.executable}",
                   "-DPROVIDER_FILES=" + ";".join(f"p{index}.d" for index in provider_order), "-G", self.generator]
        if OPTIONS.c_compiler:
            options.append(f"-DCMAKE_C_COMPILER={OPTIONS.c_compiler}")
        self.cmake("-S", self.source, "-B", build, *options)
        return self.build(build)

    def build(self, build):
        """The headers the build regenerated, sorted."""
        return sorted(GENERATING.findall(self.cmake("--build", build, "-j", JOBS)))

    def test_parallel_builds_and_regeneration(self):
        forward, backward = self.directory / "forward", self.directory / "backward"
        self.assertEqual(len(self.configure_and_build(forward, range(PROVIDERS))), PROVIDERS * len(TARGETS))
        self.assertEqual(len(self.configure_and_build(backward, reversed(range(PROVIDERS)))),
                         PROVIDERS * len(TARGETS))
        forward_files, backward_files = generated_files(forward), generated_files(backward)
        # A header per provider and target (next to files of the build's own: depfiles...).
        self.assertEqual(len([name for name in forward_files if name.endswith(".h")]), PROVIDERS * len(TARGETS))
        self.assertEqual(forward_files.keys(), backward_files.keys())
        for name, text in forward_files.items():
            self.assertEqual(text, backward_files[name], name)
        self.check_regeneration(backward)

    def check_regeneration(self, build):
        p3_headers = sorted(f"{target}.usdt/p3.h" for target in TARGETS)
        with self.subTest("nothing changed"):
            self.assertEqual(self.build(build), [])
        with self.subTest("unrelated files touched"):
            for name in ("README.txt", "main.c"):
                os.utime(self.source / name)
            self.assertEqual(self.build(build), [])
        with self.subTest("an included header touched"):
            os.utime(self.source / "include" / "p3_types.h")
            self.assertEqual(self.build(build), p3_headers)
        with self.subTest("an included header edited"):
            (self.source / "include" / "p3_types.h").write_text("#define P3_COUNT uint64_t\n")
            self.assertEqual(self.build(build), p3_headers)
            for target in TARGETS:
                header = (build / f"{target}.usdt" / "p3.h").read_text()
                self.assertIn("p3:fire(uint64_t count", header)
        with self.subTest("the .d file touched"):
            os.utime(self.source / "p3.d")
            self.assertEqual(self.build(build), p3_headers)
        with self.subTest("nothing changed since"):
            self.assertEqual(self.build(build), [])


class MakefilesTest(ParallelBuildTest):
    generator = "Unix Makefiles"


@unittest.skipIf(shutil.which("ninja") is None, "ninja is not installed (Debian: apt-get install ninja-build)")
class NinjaTest(ParallelBuildTest):
    generator = "Ninja"


del ParallelBuildTest   # only its subclasses, which name a generator, run


def add_options(parser):
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--c-compiler", default="")


if __name__ == "__main__":
    OPTIONS, _ = usdt_testing.parse_options(add_options)
    usdt_testing.main()
