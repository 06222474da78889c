"""Regenerating a header whose content did not change rewrites nothing, so nothing recompiles;
a real edit of the .d file regenerates the header and recompiles the program.

A copy of cxx_only/ (its probes.d #includes app_types.h, which the program does not) is
built once with the generator CTest passes (registered for Ninja and for Unix Makefiles); with
Ninja, the same build as GeneratorInputsTest's, embedding its copy of usdt (one configure less).
Then, in order: touching probes.d, and touching app_types.h, each runs the generator (its
COMMENT is printed) yet leaves probes.h and main.cpp's object as they were (same bytes, same
mtime) and compiles nothing, and with Ninja the next build has no work to do (restat); last,
a probe added to probes.d is in a rewritten probes.h and main.cpp is compiled again.

The generator's own files (its modules, templates and the runtime headers generated headers
embed) are the rule's other inputs, listed by usdt's configure, not globbed by the rule:
GeneratorInputsTest embeds a copy of usdt's tree and checks, there and on the install of the CTest
fixture usdt_installed, that the rule depends on exactly the files of each kind there (`ninja -t
query`; with Ninja only), that touching one of each kind in-tree runs the generator again, and that
a module added in-tree to usdtgen/ is depended on after the next build (the configure step lists it
again).
"""

import functools
import os
import re
import shutil
import subprocess
import time
import unittest
from pathlib import Path

from embedding_support import PROJECTS, build_embedding, package
import usdt_testing

GENERATING = "Generating USDT probes"
COMPILING = re.compile(r"Building \w+ object")   # Ninja and Makefiles both say so


class RegenerationTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.source, cls.build = embedded_build()
        # Up to date whatever ran on it before (GeneratorInputsTest touches usdt's files).
        package.build(cls.build)
        cls.header = cls.build / "app.usdt" / "probes.h"
        cls.object = cls.build / "CMakeFiles" / "app.dir" / "main.cpp.o"   # both generators' name

    def outputs(self):
        """probes.h's and main.cpp's object's (mtime, bytes)."""
        return {path.name: (path.stat().st_mtime_ns, path.read_bytes()) for path in (self.header, self.object)}

    def touch(self, name):
        # Past the outputs' mtimes even on a file system with a coarse clock.
        time.sleep(0.05)
        (self.source / name).touch()

    def test_touching_inputs_rewrites_and_recompiles_nothing_but_an_edit_does(self):
        before = self.outputs()
        # CMake reads the generator's list of the files probes.d includes from 3.20 on.
        version = (int(package.cache_value(self.build, "CMAKE_CACHE_MAJOR_VERSION")),
                   int(package.cache_value(self.build, "CMAKE_CACHE_MINOR_VERSION")))
        for touched in ("probes.d", "app_types.h") if version >= (3, 20) else ("probes.d",):
            with self.subTest(touched=touched):
                self.touch(touched)
                output = package.build(self.build)
                self.assertIn(GENERATING, output, f"touching {touched} did not run the generator")
                self.assertNotRegex(output, COMPILING)
                self.assertEqual(self.outputs(), before)
                if package.SETUP.generator == "Ninja":
                    # restat: the generator's unchanged output leaves nothing to do next time.
                    self.assertIn("ninja: no work to do.", package.build(self.build))

        with self.subTest("a probe added to probes.d"):
            provider = self.source / "probes.d"
            provider.write_text(provider.read_text().replace("probe done(", "probe idle();\n    probe done("))
            output = package.build(self.build)
            self.assertIn(GENERATING, output)
            self.assertRegex(output, COMPILING)
            after = self.outputs()
            self.assertIn(b"APP_IDLE()", after["probes.h"][1])
            for name in before:
                self.assertGreater(after[name][0], before[name][0], f"{name} was not rewritten")


# What the generator reads, under its root (usdt's tree, or an install's share/usdt).
GENERATOR_FILE_PATTERNS = ("usdtgen/**/*.py", "templates/**/*.j2", "runtime/include/usdt/**/*")
# What usdt's tree needs to be embedded (not its tests, docs or build trees).
USDT_TREE_PARTS = ("CMakeLists.txt", "bin", "cmake", "runtime", "templates", "usdtgen", "usdttool")

FIND_PACKAGE_PROJECT = """cmake_minimum_required(VERSION 3.18)
project(app LANGUAGES CXX)
find_package(usdt CONFIG REQUIRED)
add_executable(app main.cpp)
usdt_add_provider(app probes.d)
"""


@functools.lru_cache(maxsize=None)
def embedded_build():
    """(source, build) of the copy of cxx_only/, configured and built once for both classes: with
    Ninja, embedding a copy of usdt's tree (work dir's usdt/), whose files GeneratorInputsTest
    touches and adds to; with Makefiles, which runs RegenerationTest alone, the tree under test."""
    work = package.SETUP.work_dir
    source = work / "source"
    shutil.copytree(PROJECTS / "cxx_only", source)
    if package.SETUP.generator != "Ninja":
        return source, build_embedding(source, "build")
    usdt = work / "usdt"
    usdt.mkdir()
    for part in USDT_TREE_PARTS:
        tree_part = package.SETUP.source_dir / part
        if tree_part.is_dir():
            shutil.copytree(tree_part, usdt / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(tree_part, usdt / part)
    package.configure(source, work / "build", f"USDT_SOURCE_DIR={usdt}")
    package.build(work / "build")
    return source, work / "build"


def generator_files(root: Path):
    return sorted(path for pattern in GENERATOR_FILE_PATTERNS for path in root.glob(pattern)
                  if path.is_file() and "__pycache__" not in path.parts)


class GeneratorInputsTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        if package.SETUP.generator != "Ninja":
            # The rule's inputs are usdt's list, whatever the generator: one shows them.
            raise unittest.SkipTest("run with the Ninja generator (embedding.regeneration.ninja)")
        work = package.SETUP.work_dir
        # Embedded: cxx_only/ with usdt from the copy (RegenerationTest's build too).
        _, embedded = embedded_build()
        cls.usdt = work / "usdt"
        # Installed: the CTest fixture's install, and a project with find_package(usdt).
        prefix = package.installed_usdt()
        installed_source = work / "installed_source"
        shutil.copytree(PROJECTS / "cxx_only", installed_source)
        (installed_source / "CMakeLists.txt").write_text(FIND_PACKAGE_PROJECT)
        # Configured only: ninja -t query reads the rule without building it.
        package.configure(installed_source, work / "installed", f"CMAKE_PREFIX_PATH={prefix}")
        cls.builds = {"embedded": (embedded, cls.usdt),
                      "installed": (work / "installed", prefix / "share" / "usdt")}

    def rule_inputs(self, build: Path):
        """The generator rule's inputs, as Ninja has them, without the .d file."""
        # Relative to the build directory: CMake 3.18 names outputs only so (later ones add
        # absolute aliases).
        query = subprocess.run(["ninja", "-C", str(build), "-t", "query", "app.usdt/probes.stamp"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=True).stdout
        inputs = query.split("  input:", 1)[1].split("  outputs:", 1)[0].splitlines()[1:]
        paths = {Path(os.path.normpath(build / line.strip().lstrip("|").strip())) for line in inputs}
        return sorted(path for path in paths if path.suffix != ".d")

    def test_the_rule_depends_on_exactly_the_generator_files(self):
        for name, (build, root) in self.builds.items():
            with self.subTest(name):
                self.assertEqual(self.rule_inputs(build), generator_files(root))

    def assert_touching_regenerates(self, build: Path, touched: Path):
        time.sleep(0.05)
        touched.touch()
        output = package.build(build)
        self.assertIn(GENERATING, output, f"touching {touched} did not run the generator")

    def test_touching_a_generator_file_of_each_kind_regenerates(self):
        build, root = self.builds["embedded"]   # the installed rule's inputs are the same list's
        for pattern in GENERATOR_FILE_PATTERNS:
            touched = sorted(path for path in root.glob(pattern) if path.is_file())[-1]
            with self.subTest(touched=str(touched.relative_to(root))):
                self.assert_touching_regenerates(build, touched)

    def test_a_module_added_in_tree_is_depended_on(self):
        build, root = self.builds["embedded"]
        added = root / "usdtgen" / "added_by_the_test.py"
        added.write_text('"""A module the generator does not import; its rule depends on it all the same."""\n')
        package.build(build)   # configures again: usdt's list of the generator's files has changed
        self.assert_touching_regenerates(build, added)


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
