"""The generated headers compile without a warning as C99, C11, C++11, C++17, C++20, under
the strictest warning sets users build with (tests/embedding/CMakeLists.txt: GCC's long list,
Clang's -Weverything), in a project that consumes an installed usdt.

CompilerMatrixTest: one configure of strict_warnings/ per compiler pair (--cc, --cxx) and
warning set (--c-warnings, --cxx-warnings; by default -Wall -Wextra -Wpedantic -Werror)
against an installed usdt, at -O2, builds one program per standard from the headers of
all_types.d (every argument kind) and unguarded.d (a probe without a semaphore), whose
macros, _ENABLED() checks and C++ API (fire.c, fire.cpp) are all used. Each program must run,
report the standard it was built for and that only the probe without a semaphore reads as
enabled, and carry the notes the .d files declare, with every argument in a register.
compile_commands.json shows that the flags were really used and that nothing but the
program's own source was compiled.
ExampleProjectTest: example-project/, which enables only C++, builds with the same C++
compiler and -Wall -Wextra -Wpedantic -Werror against the installed usdt.

Every standard with both compilers and each link mode is the matrix's (tests/matrix), which
builds with -Wall -Wextra -Wpedantic -Werror too; the install itself, package.find_package's.
"""

import json
import re
import shlex
import unittest
from pathlib import Path

from embedding_support import package
import elf_notes
import usdt_testing

PROJECT = Path(__file__).with_name("strict_warnings")
WARNING_FLAGS = "-Wall -Wextra -Wpedantic -Werror"
OPTIMISATION = "-O2"

# program -> (its source, that source's -std= flags, what it prints: __STDC_VERSION__ or
# __cplusplus), the flag and the output each one of those given. For C++20, CMake gives GCC 10
# (Debian 11) -std=c++2a, whose __cplusplus is 201709.
PROGRAMS = {
    "c99": ("fire.c", ("-std=c99",), ("C 199901 unguarded\n",)),
    "c11": ("fire.c", ("-std=c11",), ("C 201112 unguarded\n",)),
    "cxx11": ("fire.cpp", ("-std=c++11",), ("C++ 201103 unguarded\n",)),
    "cxx17": ("fire.cpp", ("-std=c++17",), ("C++ 201703 unguarded\n",)),
    "cxx20": ("fire.cpp", ("-std=c++20", "-std=c++2a"), ("C++ 202002 unguarded\n", "C++ 201709 unguarded\n")),
}

# Each probe of all_types.d and unguarded.d and its declared argument sizes and signs on x86-64/aarch64.
EXPECTED_NOTES = {
    "matrix:no__args": "",
    "matrix:void__args": "",
    "matrix:signed__keywords": "-1 -1 -2 -4 -8 -8",
    "matrix:unsigned__keywords": "1 2 4 4 8 8",
    "matrix:spelled__out": "-2 -8 -8 -4 2 8",
    "matrix:fixed__width": "-1 -2 -4 -8 1 2 4 8",
    "matrix:sizes": "8 -8 -8 -8 8 -8 8",
    "matrix:flags": "1 1",
    "matrix:pointers": "8 8 8 8 8 8 8 8",
    "matrix:twelve": "-1 1 -2 2 -4 4 -8 8 1 8 8 -8",
    "matrix:unnamed": "-4 8",
    "matrix:delete": "-4",
    "unguarded:plain": "-4",
    "unguarded:guarded": "-8",
}
WITHOUT_SEMAPHORE = "unguarded:plain"   # by unguarded.d's #pragma usdt no_semaphore
# fire.cpp also fires these two through the macros: two sites, two notes.
FIRED_TWICE_FROM_CXX = ("matrix:signed__keywords", "matrix:pointers")


class CompilerMatrixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        options = package.SETUP.options
        cls.cc, cls.cxx = options.cc, options.cxx
        cls.warnings = {".c": options.c_warnings.split(), ".cpp": options.cxx_warnings.split()}
        cls.build = package.SETUP.work_dir / "build"
        package.configure(PROJECT, cls.build, f"CMAKE_PREFIX_PATH={package.installed_usdt()}",
                          f"CMAKE_C_COMPILER={cls.cc}", f"CMAKE_CXX_COMPILER={cls.cxx}",
                          f"CMAKE_C_FLAGS={options.c_warnings} {OPTIMISATION}",
                          f"CMAKE_CXX_FLAGS={options.cxx_warnings} {OPTIMISATION}")
        package.build(cls.build)

    def test_each_program_runs_and_reports_its_standard(self):
        for program, (_, _, printed) in PROGRAMS.items():
            with self.subTest(program=program):
                self.assertIn(package.run([self.build / program]).stdout, printed)

    def test_each_program_has_the_declared_notes_with_register_operands(self):
        for program, (source, _, _) in PROGRAMS.items():
            expected = sorted(EXPECTED_NOTES.items())
            if source == "fire.cpp":
                expected = sorted(expected + [(name, EXPECTED_NOTES[name]) for name in FIRED_TWICE_FROM_CXX])
            notes = elf_notes.notes(str(self.build / program))
            with self.subTest(program=program):
                self.assertEqual(sorted((note.probe, package.argument_sizes(" ".join(note.arguments)))
                                        for note in notes), expected)
                for note in notes:
                    for argument in note.arguments:
                        self.assertRegex(argument, r"^-?[1248]@%[a-z0-9]+$", f"{note.probe}: {note.arguments}")

    def test_only_the_probe_without_a_semaphore_has_none(self):
        for program in PROGRAMS:
            with self.subTest(program=program):
                for note in elf_notes.notes(str(self.build / program)):
                    self.assertEqual(note.semaphore == 0, note.probe == WITHOUT_SEMAPHORE, note.probe)

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
                self.assertTrue(set(self.warnings[Path(source).suffix]) <= set(command), command)
                self.assertNotIn("-isystem", command)  # would hide warnings in the headers
        # Nothing is generated to compile: the program's own source is all there is.
        self.assertEqual(sorted(compiled), sorted((program, source) for program, (source, _, _) in PROGRAMS.items()))
        for program, (source, standards, _) in PROGRAMS.items():
            with self.subTest(program=program):
                self.assertTrue(set(standards) & set(compiled[(program, source)]), compiled[(program, source)])


class ExampleProjectTest(unittest.TestCase):
    def test_a_cxx_only_project_builds_without_warnings(self):
        options = package.SETUP.options
        build = package.SETUP.work_dir / "cxx-only"
        package.configure(package.SETUP.source_dir / "example-project", build,
                          f"CMAKE_PREFIX_PATH={package.installed_usdt()}", f"CMAKE_CXX_COMPILER={options.cxx}",
                          f"CMAKE_CXX_FLAGS={WARNING_FLAGS} {OPTIMISATION}", "CMAKE_NO_SYSTEM_FROM_IMPORTED=ON")
        package.build(build)


def add_options(parser):
    parser.add_argument("--cc", required=True, help="the C compiler, as CMAKE_C_COMPILER")
    parser.add_argument("--cxx", required=True, help="the C++ compiler, as CMAKE_CXX_COMPILER")
    parser.add_argument("--c-warnings", default=WARNING_FLAGS, help="warning options for C, one string")
    parser.add_argument("--cxx-warnings", default=WARNING_FLAGS, help="warning options for C++, one string")


if __name__ == "__main__":
    package.parse_arguments(add_options)
    usdt_testing.main()
