"""Macros of a `usdt-dtrace -h` header behave as systemtap's do, in real programs.

programs/semantics.d and semantics.c, with one compiler pair (--cc, --cxx): the header from
`-C -h` and the object from `-G` (CC and CFLAGS in the environment, as Make passes them),
linked into C99 programs (-O0, -O2) and a C++11 program, all with -pedantic -Wall -Wextra
-Werror. Each program must print the same line: every argument evaluated once, the
unbraced if/else right. Its notes name each probe with the semaphore the program reads by
systemtap's name, and gdb, which arms the semaphores, reads the arguments without changing
how often they were evaluated. The header needs no include path, and the `.stapsdt.base` of
the program's code and the object's are one COMDAT group, so one byte remains.
"""

import shutil
import unittest
from pathlib import Path

import dtrace_support as support
import elf_notes
import gdb_probes
import usdt_testing

PROGRAMS = Path(__file__).with_name("programs")
WARNINGS = ["-pedantic", "-Wall", "-Wextra", "-Werror"]

# name -> (compiler: "cc" or "cxx", flags)
BUILDS = {
    "c99_O0": ("cc", ["-std=c99", "-O0"]),
    "c99_O2": ("cc", ["-std=c99", "-O2"]),
    "cxx11_O2": ("cxx", ["-x", "c++", "-std=c++11", "-O2"]),
}

UNTRACED_OUTPUT = "evaluations=3 else=else enabled=0 semaphores=0,0,0 the program's own request_id_t\n"
TRACED_OUTPUT = "evaluations=3 else=else enabled=3 semaphores=1,1,1 the program's own request_id_t\n"

# probe -> its argument sizes; `hidden` is inside `#if 0` and must not be there.
EXPECTED_PROBES = {"request__start": "8 8", "done": "4", "nothing": ""}
# probe -> indices of its string arguments, and the values gdb must read at each hit, in order.
GDB_PROBES = {"myapp:request__start": [1], "myapp:done": [], "myapp:nothing": []}
GDB_HITS = [("myapp:request__start", (42, "/index.html")), ("myapp:done", (200,)), ("myapp:nothing", ())]


def add_options(parser):
    parser.add_argument("--cc", required=True)
    parser.add_argument("--cxx", required=True)


class SemanticsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        options = support.OPTIONS
        for compiler in (options.cc, options.cxx):
            if shutil.which(compiler) is None:
                raise unittest.SkipTest(f"{compiler} is not installed")
        cls.directory = options.work_dir
        shutil.copy(PROGRAMS / "semantics.d", cls.directory)
        support.run([options.command, "-C", "-h", "-s", "semantics.d", "-o", "semantics.h"], cwd=cls.directory)
        support.run([options.command, "-C", "-G", "-s", "semantics.d"], cwd=cls.directory,
                    environment={"CC": options.cc, "CFLAGS": " ".join(["-std=c99", "-O2", *WARNINGS])})
        cls.programs = {name: cls.build(name, compiler, flags) for name, (compiler, flags) in BUILDS.items()}

    @classmethod
    def build(cls, name, compiler, flags):
        options = support.OPTIONS
        driver = options.cc if compiler == "cc" else options.cxx
        program = cls.directory / name
        support.run([driver, *flags, *WARNINGS, "-I", cls.directory,
                     PROGRAMS / "semantics.c", "-x", "none", cls.directory / "semantics.o", "-o", program])
        return program

    def test_each_argument_is_evaluated_once_and_if_else_takes_the_right_branch(self):
        for name, program in self.programs.items():
            with self.subTest(name):
                self.assertEqual(support.run([program]).stdout, UNTRACED_OUTPUT)

    def test_notes_name_each_probe_with_its_semaphore_and_the_base(self):
        for name, program in self.programs.items():
            with self.subTest(name):
                notes = elf_notes.notes(str(program))
                symbols = dict(elf_notes.symbols(str(program)))
                base = elf_notes.sections(str(program))[".stapsdt.base"]
                self.assertEqual(base.size, 1)
                self.assertEqual({note.name: " ".join(argument.partition("@")[0] for argument in note.arguments)
                                  for note in notes}, EXPECTED_PROBES)
                for note in notes:
                    self.assertEqual(note.provider, "myapp")
                    self.assertEqual(note.semaphore, symbols[f"myapp_{note.name}_semaphore"], note)
                    self.assertEqual(note.base, base.address, note)

    def test_gdb_reads_every_probe_and_arming_changes_no_evaluation(self):
        usdt_testing.require_tracer(self, "gdb", needs_root=False)
        for name, program in self.programs.items():
            with self.subTest(name):
                run = gdb_probes.run(str(program), [], GDB_PROBES)
                self.assertTrue(run.exited_normally, run.output)
                self.assertEqual([(hit.probe, hit.values) for hit in run.hits], GDB_HITS, run.output)
                self.assertIn(TRACED_OUTPUT, run.output)


if __name__ == "__main__":
    support.parse_arguments(add_options)
    usdt_testing.main()
