"""Providers in several targets, built with `cmake --build -j8`, with each CMake generator.

The project (written by the test) has PROVIDERS .d files that each #include headers through
a relative PREPROCESSOR_OPTIONS -I, in an executable and a shared library that both use every
file, the executable listing the providers in one order and the library in the opposite one.
Built from scratch, the build succeeds and both targets get the same bytes (race-free,
order-independent). Then: nothing regenerates when nothing changed or an unrelated file
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

# A race needs two generator runs that may overlap and share something. Two .d files of one
# target share its output directory; one .d file in two targets shares its input, and the
# generator's working directory. Two providers in two targets have both kinds, and a
# provider whose edit must regenerate nothing of the other; more would only repeat them.
PROVIDERS = 2
# target -> the order in which it lists the providers: one forward, one backward.
TARGETS = {"app": list(range(PROVIDERS)), "shared_lib": list(reversed(range(PROVIDERS)))}
EDITED = PROVIDERS - 1      # the provider whose inputs the regeneration checks change
JOBS = "8"
GENERATING = re.compile(r"Generating USDT probes (\S+)")

OPTIONS = argparse.Namespace()

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.18)
project(usdt_parallel LANGUAGES C)
set(USDT_SOURCE_DIR "" CACHE PATH "usdt's source tree")
set(FORWARD "" CACHE STRING "the .d files, in the order app gives them to usdt_add_provider")
set(BACKWARD "" CACHE STRING "the same, in the order shared_lib gives them")
add_subdirectory("${USDT_SOURCE_DIR}" usdt)
add_executable(app main.c)
add_library(shared_lib SHARED library.c)
usdt_add_provider(app ${FORWARD} PREPROCESSOR_OPTIONS -Iinclude)
usdt_add_provider(shared_lib ${BACKWARD} PREPROCESSOR_OPTIONS -Iinclude)
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


def generated_files(build, target):
    """Every file generated for `target`, its bytes by name; the target's output directory,
    which depfiles name, replaced by a placeholder."""
    directory = build / f"{target}.usdt"
    return {path.name: path.read_bytes().replace(str(directory).encode(), b"<output>")
            for path in sorted(directory.iterdir())}


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

    def configure_and_build(self, build):
        options = [f"-DUSDT_SOURCE_DIR={OPTIONS.source_dir}", f"-DUSDT_PYTHON_EXECUTABLE={sys.executable}",
                   "-DFORWARD=" + ";".join(f"p{index}.d" for index in TARGETS["app"]),
                   "-DBACKWARD=" + ";".join(f"p{index}.d" for index in TARGETS["shared_lib"]), "-G", self.generator]
        if OPTIONS.c_compiler:
            options.append(f"-DCMAKE_C_COMPILER={OPTIONS.c_compiler}")
        self.cmake("-S", self.source, "-B", build, *options)
        return self.build(build)

    def build(self, build):
        """The headers the build regenerated, sorted."""
        return sorted(GENERATING.findall(self.cmake("--build", build, "-j", JOBS)))

    def test_parallel_build_and_regeneration(self):
        build = self.directory / "build"
        self.assertEqual(len(self.configure_and_build(build)), PROVIDERS * len(TARGETS))
        forward_files, backward_files = (generated_files(build, target) for target in TARGETS)
        # A header per provider and target (next to files of the build's own: depfiles...).
        self.assertEqual(len([name for name in forward_files if name.endswith(".h")]), PROVIDERS)
        self.assertEqual(forward_files.keys(), backward_files.keys())
        for name, text in forward_files.items():
            self.assertEqual(text, backward_files[name], name)
        self.check_regeneration(build)

    def tracks_included_files(self):
        """Whether builds regenerate a header when a file its .d file includes changes: from
        CMake 3.20, which reads the generator's depfile (docs/cmake.md)."""
        version = re.search(r"version (\d+)\.(\d+)", self.cmake("--version"))
        return (int(version.group(1)), int(version.group(2))) >= (3, 20)

    def check_regeneration(self, build):
        edited = f"p{EDITED}"
        edited_headers = sorted(f"{target}.usdt/{edited}.h" for target in TARGETS)
        # Where builds track only the .d file, an included file's change regenerates nothing
        # until the .d file changes.
        regenerated_for_includes = edited_headers if self.tracks_included_files() else []
        with self.subTest("nothing changed"):
            self.assertEqual(self.build(build), [])
        with self.subTest("unrelated files touched"):
            for name in ("README.txt", "main.c"):
                os.utime(self.source / name)
            self.assertEqual(self.build(build), [])
        with self.subTest("an included header touched"):
            os.utime(self.source / "include" / f"{edited}_types.h")
            self.assertEqual(self.build(build), regenerated_for_includes)
        with self.subTest("an included header edited"):
            (self.source / "include" / f"{edited}_types.h").write_text(f"#define P{EDITED}_COUNT uint64_t\n")
            self.assertEqual(self.build(build), regenerated_for_includes)
        with self.subTest("the .d file touched"):
            os.utime(self.source / f"{edited}.d")
            self.assertEqual(self.build(build), edited_headers)
            for target in TARGETS:
                header = (build / f"{target}.usdt" / f"{edited}.h").read_text()
                self.assertIn(f"{edited}:fire(uint64_t count", header)
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
