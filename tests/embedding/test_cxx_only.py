"""A C++-only project (`project(app LANGUAGES CXX)`) that embeds usdt, with FetchContent and
with add_subdirectory, and adds probes with `usdt_add_provider(app probes.d)`.

cxx_only/ is configured and built once each way, with the generator CTest passes (the test
is registered once for Ninja and once for Unix Makefiles). Each build must configure without
C (nothing of usdt enables it), compile nothing but main.cpp (no generated source), run, carry
the probes' notes, and let gdb read their arguments. The probes.d there #includes a header,
so the .d file is preprocessed, by the C++ compiler.
"""

import json
import unittest
from pathlib import Path

from embedding_support import PROJECTS, assert_gdb_reads, assert_notes, build_embedding, package
import usdt_testing

PROJECT = PROJECTS / "cxx_only"
# Build directory -> APP_FETCH_USDT.
EMBEDDINGS = {"fetchcontent": "ON", "add_subdirectory": "OFF"}
EXPECTED_NOTES = {"app:greeting": "-4 8", "app:done": "4"}


class CxxOnlyProjectTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.builds = {name: build_embedding(PROJECT, name, f"APP_FETCH_USDT={fetch}", "CMAKE_EXPORT_COMPILE_COMMANDS=ON")
                      for name, fetch in EMBEDDINGS.items()}

    def test_no_c_compiler_was_looked_for(self):
        for name, build in self.builds.items():
            with self.subTest(embedding=name):
                cache = (build / "CMakeCache.txt").read_text()
                self.assertNotIn("CMAKE_C_COMPILER", cache)
                self.assertIn("CMAKE_CXX_COMPILER:", cache)

    def test_only_the_program_source_is_compiled(self):
        for name, build in self.builds.items():
            with self.subTest(embedding=name):
                entries = json.loads((build / "compile_commands.json").read_text())
                self.assertEqual([Path(entry["file"]).name for entry in entries], ["main.cpp"])

    def test_runs(self):
        for name, build in self.builds.items():
            with self.subTest(embedding=name):
                result = package.run([build / "app", "Ada", "Grace"])
                self.assertEqual((result.stdout, result.stderr), ("hello, Ada\nhello, Grace\n", ""))

    def test_has_the_probes_notes(self):
        for name, build in self.builds.items():
            with self.subTest(embedding=name):
                assert_notes(self, build / "app", EXPECTED_NOTES)

    def test_gdb_reads_the_arguments(self):
        for name, build in self.builds.items():
            with self.subTest(embedding=name):
                assert_gdb_reads(self, build / "app", ["Ada", "Grace"], {"app:greeting": [1], "app:done": []},
                                 [("app:greeting", (1, "Ada")), ("app:greeting", (2, "Grace")), ("app:done", (2,))])


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
