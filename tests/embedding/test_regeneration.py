"""Regenerating a header whose content did not change rewrites nothing, so nothing recompiles;
a real edit of the .d file regenerates the header and recompiles the program.

A copy of cxx_only/ (its probes.d #includes app_types.h, which the program does not) is
built once with the generator CTest passes (registered for Ninja and for Unix Makefiles).
Then, in order: touching probes.d, and touching app_types.h, each runs the generator (its
COMMENT is printed) yet leaves probes.h and main.cpp's object as they were (same bytes, same
mtime) and compiles nothing, and with Ninja the next build has no work to do (restat); last,
a probe added to probes.d is in a rewritten probes.h and main.cpp is compiled again.
"""

import re
import shutil
import time
import unittest

from embedding_support import PROJECTS, build_embedding, package
import usdt_testing

GENERATING = "Generating USDT probes"
COMPILING = re.compile(r"Building \w+ object")   # Ninja and Makefiles both say so


class RegenerationTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.source = package.SETUP.work_dir / "source"
        shutil.copytree(PROJECTS / "cxx_only", cls.source)
        cls.build = build_embedding(cls.source, "build")
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


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
