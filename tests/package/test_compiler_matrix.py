"""The generated header and usdt/usdt.h compile without a warning as C99, C11, C++11, C++17, C++20.

One configure of compiler_matrix/ per compiler pair (--cc, --cxx) against an installed usdt,
with -Wall -Wextra -Wpedantic -Werror -O2, builds one program per standard. Each must run,
report the standard it was built for, and carry the notes all_types.d declares, with every
argument in a register. compile_commands.json shows that the flags were really used.
example-project/, which enables only C++, must build with the same compiler and flags too:
there the generated semaphore source is compiled as C++.
"""

import json
import re
import shlex
import unittest
from pathlib import Path

import package_support as package
import usdt_testing

PROJECT = Path(__file__).with_name("compiler_matrix")
WARNING_FLAGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
FLAGS = " ".join(WARNING_FLAGS + ["-O2"])

# program -> (its source, that source's -std= flag, what it prints: __STDC_VERSION__ or __cplusplus)
PROGRAMS = {
    "c99": ("fire.c", "-std=c99", "C 199901\n"),
    "c11": ("fire.c", "-std=c11", "C 201112\n"),
    "cxx11": ("fire.cpp", "-std=c++11", "C++ 201103\n"),
    "cxx17": ("fire.cpp", "-std=c++17", "C++ 201703\n"),
    "cxx20": ("fire.cpp", "-std=c++20", "C++ 202002\n"),
}

# Each probe of all_types.d and its declared argument sizes and signs on x86-64/aarch64.
EXPECTED_NOTES = {
    "no__args": "",
    "void__args": "",
    "signed__keywords": "-1 -1 -2 -4 -8 -8",
    "unsigned__keywords": "1 2 4 4 8 8",
    "spelled__out": "-2 -8 -8 -4 2 8",
    "fixed__width": "-1 -2 -4 -8 1 2 4 8",
    "sizes": "8 -8 -8 -8 8 -8 8",
    "flags": "1 1",
    "pointers": "8 8 8 8 8 8 8 8",
    "twelve": "-1 1 -2 2 -4 4 -8 8 1 8 8 -8",
    "unnamed": "-4 8",
    "delete": "-4",
}
# fire.cpp also fires these two through the macros: two sites, two notes.
FIRED_TWICE_FROM_CXX = ("signed__keywords", "pointers")


class CompilerMatrixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        setup = package.SETUP
        cls.cc, cls.cxx = setup.options.cc, setup.options.cxx
        cls.prefix = prefix = setup.work_dir / "prefix"
        package.install_usdt(prefix)
        cls.build = setup.work_dir / "build"
        package.configure(PROJECT, cls.build, f"CMAKE_PREFIX_PATH={prefix}",
                          f"CMAKE_C_COMPILER={cls.cc}", f"CMAKE_CXX_COMPILER={cls.cxx}",
                          f"CMAKE_C_FLAGS={FLAGS}", f"CMAKE_CXX_FLAGS={FLAGS}")
        package.build(cls.build)

    def test_each_program_runs_and_reports_its_standard(self):
        for program, (_, _, printed) in PROGRAMS.items():
            with self.subTest(program=program):
                self.assertEqual(package.run([self.build / program]).stdout, printed)

    def test_each_program_has_the_declared_notes_with_register_operands(self):
        for program, (source, _, _) in PROGRAMS.items():
            expected = sorted(EXPECTED_NOTES.items())
            if source == "fire.cpp":
                expected = sorted(expected + [(name, EXPECTED_NOTES[name]) for name in FIRED_TWICE_FROM_CXX])
            notes = package.stapsdt_notes(self.build / program)
            with self.subTest(program=program):
                self.assertEqual(sorted((name, package.argument_sizes(arguments)) for _, name, arguments in notes),
                                 expected)
                self.assertEqual({provider for provider, _, _ in notes}, {"matrix"})
                for _, name, arguments in notes:
                    for argument in arguments.split():
                        self.assertRegex(argument, r"^-?[1248]@%[a-z0-9]+$", f"{name}: {arguments}")

    def test_every_source_was_compiled_by_the_chosen_compiler_with_the_flags(self):
        entries = json.loads((self.build / "compile_commands.json").read_text())
        compiled = {}
        for entry in entries:
            command = shlex.split(entry["command"])
            program = re.search(r"CMakeFiles/(\w+)\.dir/", entry["command"]).group(1)
            source = Path(entry["file"]).name
            compiled[(program, source)] = command
            with self.subTest(program=program, source=source):
                compiler = self.cxx if source.endswith(".cpp") else self.cc
                self.assertEqual(Path(command[0]).name, compiler)
                self.assertTrue(set(WARNING_FLAGS) <= set(command), command)
                self.assertNotIn("-isystem", command)  # would hide warnings in usdt/usdt.h
        for program, (source, standard, _) in PROGRAMS.items():
            with self.subTest(program=program):
                self.assertIn(standard, compiled[(program, source)])
                self.assertIn((program, "all_types.usdt.c"), compiled)

    def test_a_cxx_only_project_builds_without_warnings(self):
        build = package.SETUP.work_dir / "cxx-only"
        package.configure(package.SETUP.source_dir / "example-project", build,
                          f"CMAKE_PREFIX_PATH={self.prefix}", f"CMAKE_CXX_COMPILER={self.cxx}",
                          f"CMAKE_CXX_FLAGS={FLAGS}", "CMAKE_NO_SYSTEM_FROM_IMPORTED=ON")
        package.build(build)


def add_options(parser):
    parser.add_argument("--cc", required=True, help="the C compiler, as CMAKE_C_COMPILER")
    parser.add_argument("--cxx", required=True, help="the C++ compiler, as CMAKE_CXX_COMPILER")


if __name__ == "__main__":
    package.parse_arguments(add_options)
    usdt_testing.main()
