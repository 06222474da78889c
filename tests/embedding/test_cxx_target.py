"""A C++ target in a project that also enables C gets nothing compiled as C: its C++-only
flags (-Wold-style-cast, -fno-rtti) with -Werror and its precompiled <cstdint> and <string>
apply to its own C++ sources only.

cxx_target/ (usdt as a subdirectory; a C library `store` and a C++ program `app`, each with
probes) is configured and built once. The build must succeed, compile_commands.json must
show C++ flags and a C++ precompiled header on C++ sources only and no generated source,
and the program must run with both providers' notes.
"""

import json
import unittest
from pathlib import Path

from embedding_support import PROJECTS, assert_notes, build_embedding, package
import usdt_testing

PROJECT = PROJECTS / "cxx_target"
CXX_ONLY_FLAGS = ("-Wold-style-cast", "-fno-rtti")


class CxxTargetTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.build = build_embedding(PROJECT, "build", "CMAKE_EXPORT_COMPILE_COMMANDS=ON")
        cls.compiled = [(Path(entry["file"]).name, entry["command"])
                        for entry in json.loads((cls.build / "compile_commands.json").read_text())]

    def test_compiles_the_sources_and_cxx_precompiled_header_only(self):
        # CMake names a target's precompiled header source cmake_pch.hxx.cxx for C++, cmake_pch.h.c for C.
        self.assertEqual(sorted(name for name, _ in self.compiled), ["cmake_pch.hxx.cxx", "main.cpp", "store.c"])

    def test_cxx_only_flags_reach_cxx_sources_only(self):
        for name, command in self.compiled:
            with self.subTest(source=name):
                for flag in CXX_ONLY_FLAGS:
                    if name == "store.c":
                        self.assertNotIn(flag, command.split())
                    else:
                        self.assertIn(flag, command.split())

    def test_runs(self):
        result = package.run([self.build / "app", "one", "three"])
        self.assertEqual((result.stdout, result.stderr), ("stored 2 keys\n", ""))

    def test_has_both_providers_notes(self):
        assert_notes(self, self.build / "app",
                     {"app:request": "8 8", "app:stored": "4", "store:put": "8 8"})


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
