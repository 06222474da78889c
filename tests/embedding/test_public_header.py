"""A library whose public header fires its probe (usdt_add_provider(mylib ... PUBLIC)), shared and
static, used by a program of its own project and, once installed with its generated header, by
a downstream project built with usdt available (and probes of its own in the same translation
unit) and without usdt or Python.

mylib/ is built (FetchContent of the usdt under test) and installed once; downstream/ is built
twice on that install. In every program, the probe inlined from mylib.h is a site of the
program itself, guarded by the program's own semaphore (in its `.probes`), and the library's
own site is the library's: gdb reads both; bpftrace attached by one module's path reads that
module's sites and raises that module's semaphore only, so MYLIB_TICK_ENABLED() is nonzero
exactly in the traced module.
"""

import os
import unittest
from pathlib import Path

from libraries_support import LIBRARIES, Attach, assert_traced, bpftrace_run, program_lines
from embedding_support import assert_notes, build_embedding, gdb_run, package
import elf_notes
import usdt_testing
from test_installed_library import path_without_python   # tests/embedding's

ROUNDS = 2
TICK = ("mylib:tick", "-4 8")
ROUND = ("downstream:round", "-4")
# What the installed mylib consists of, relative to the prefix, with {libdir} and {config}.
INSTALLED = ["include/mylib.h", "include/mylib_probes.h", "{libdir}/libmylib.a", "{libdir}/libmylib.so",
             "{libdir}/cmake/mylib/mylibConfig.cmake", "{libdir}/cmake/mylib/mylibConfigVersion.cmake",
             "{libdir}/cmake/mylib/mylibTargets.cmake", "{libdir}/cmake/mylib/mylibTargets-{config}.cmake"]


def expected_output(inline_enabled: int, library_enabled: int) -> str:
    return "".join(f"round {round}: inline enabled={inline_enabled} library enabled={library_enabled}\n"
                   for round in range(1, ROUNDS + 1))


def inline_hits(label="mylib:tick"):
    return [(label, (round, "inline")) for round in range(1, ROUNDS + 1)]


def library_hits(label="mylib:tick"):
    return [(label, (10 * round, "library")) for round in range(1, ROUNDS + 1)]


class PublicHeaderTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        setup = package.SETUP
        cls.library_build = build_embedding(LIBRARIES / "mylib", "mylib", "CMAKE_BUILD_TYPE=RelWithDebInfo")
        cls.libdir = package.cache_value(cls.library_build, "CMAKE_INSTALL_LIBDIR")
        cls.prefix = setup.work_dir / "mylib-prefix"
        package.run([setup.cmake, "--install", cls.library_build, "--prefix", cls.prefix])
        usdt_prefix = package.installed_usdt()

        # With usdt found, the downstream adds probes of its own.
        cls.with_usdt = setup.work_dir / "downstream-with-usdt"
        package.configure(LIBRARIES / "downstream", cls.with_usdt, "CMAKE_BUILD_TYPE=RelWithDebInfo",
                          f"CMAKE_PREFIX_PATH={cls.prefix};{usdt_prefix}")
        package.build(cls.with_usdt)
        # Without: find_package(usdt) disabled, and no Python on PATH.
        cls.without_usdt = setup.work_dir / "downstream-without-usdt"
        environment = dict(os.environ, PATH=path_without_python(setup.work_dir / "bin-without-python"))
        for variable in ("PYTHONPATH", "CMAKE_PREFIX_PATH", "usdt_DIR"):
            environment.pop(variable, None)
        package.run([setup.cmake, "-S", LIBRARIES / "downstream", "-B", cls.without_usdt, "-G", setup.generator,
                     "-DCMAKE_BUILD_TYPE=RelWithDebInfo", f"-DCMAKE_PREFIX_PATH={cls.prefix}",
                     "-DCMAKE_DISABLE_FIND_PACKAGE_usdt=ON"], environment=environment)
        package.run([setup.cmake, "--build", cls.without_usdt], environment=environment)

        cls.library = cls.library_build / "libmylib.so"
        cls.installed_library = cls.prefix / cls.libdir / "libmylib.so"
        # (program, the shared library it loads or None, its probe sites): a static program
        # has the library's site too.
        cls.programs = [
            (cls.library_build / "programs" / "app_shared", cls.library, [TICK]),
            (cls.library_build / "programs" / "app_static", None, [TICK, TICK]),
            (cls.with_usdt / "downstream_shared", cls.installed_library, [TICK, ROUND]),
            (cls.with_usdt / "downstream_static", None, [TICK, TICK, ROUND]),
            (cls.without_usdt / "downstream_shared", cls.installed_library, [TICK]),
            (cls.without_usdt / "downstream_static", None, [TICK, TICK]),
        ]

    def test_installs_the_generated_header_and_a_package_needing_nothing_of_usdt(self):
        installed = sorted(str(path.relative_to(self.prefix)) for path in self.prefix.rglob("*") if not path.is_dir())
        self.assertEqual(installed, sorted(path.format(libdir=self.libdir, config="relwithdebinfo")
                                           for path in INSTALLED))
        for path in (self.prefix / self.libdir / "cmake" / "mylib").iterdir():
            with self.subTest(file=path.name):
                # But the definition the toolchain's probes need, which consumers compile too
                # (USDT_UNLINKED_NOTES with binutils 2.35).
                self.assertNotRegex(path.read_text().replace("USDT_UNLINKED_NOTES", ""), r"(?i)usdt")

    def test_downstream_found_usdt_only_where_available(self):
        self.assertEqual(Path(package.cache_value(self.with_usdt, "usdt_DIR")).parents[2], package.installed_usdt())
        self.assertNotRegex((self.without_usdt / "CMakeCache.txt").read_text(), r"(?m)^usdt_DIR:PATH=(?!.*NOTFOUND)")

    def test_each_module_has_its_own_sites_and_semaphores(self):
        """The inlined site is the program's, guarded by its own hidden semaphore; a static
        program holds the library's site too, with the same semaphore."""
        assert_notes(self, self.library, [TICK])
        assert_notes(self, self.installed_library, [TICK])
        for program, library, sites in self.programs:
            with self.subTest(program=str(program.relative_to(package.SETUP.work_dir))):
                assert_notes(self, program, sites)
                ticks = [note for note in elf_notes.notes(str(program)) if note.probe == "mylib:tick"]
                semaphores = {value for name, value in elf_notes.symbols(str(program)) if name == "mylib_tick_semaphore"}
                self.assertEqual(semaphores, {note.semaphore for note in ticks})

    def test_untraced_programs_see_no_probe_enabled(self):
        for program, _, _ in self.programs:
            with self.subTest(program=str(program.relative_to(package.SETUP.work_dir))):
                self.assertEqual(package.run([program, str(ROUNDS)]).stdout, expected_output(0, 0))

    def test_gdb_reads_the_inlined_and_the_library_sites(self):
        for program, library, _ in self.programs:
            with self.subTest(program=str(program.relative_to(package.SETUP.work_dir))):
                run = gdb_run(self, program, [str(ROUNDS)], {"mylib:tick": [1]}, start_first=library is not None)
                expected = []
                for inline, in_library in zip(inline_hits(), library_hits()):
                    expected += [inline, in_library]
                self.assertEqual([(hit.probe, hit.values) for hit in run.hits], expected, run.output)
                listed = sorted(path for probe, path in run.listed if probe == "mylib:tick")
                self.assertEqual(listed, sorted(str(module) for module in (program, library or program)), run.output)
                # gdb sets the semaphore of each site it breaks on, in both modules.
                self.assertEqual(program_lines(run.output), expected_output(1, 1), run.output)

    def test_bpftrace_by_one_module_path_reads_that_module_only(self):
        """By the program's path: the inlined sites, and only the program's semaphore raised; by
        the library's path: the library's sites and semaphore."""
        for program, library in ((self.library_build / "programs" / "app_shared", self.library),
                                 (self.with_usdt / "downstream_shared", self.installed_library)):
            for module, hits, enabled in ((program, inline_hits, (1, 0)), (library, library_hits, (0, 1))):
                with self.subTest(program=str(program.relative_to(package.SETUP.work_dir)), module=module.name):
                    attach = Attach(module, "mylib:tick", [1])
                    traced, result = bpftrace_run(self, [attach], [program, str(ROUNDS)], ROUNDS)
                    assert_traced(self, traced, hits(attach.label), result.stdout)
                    self.assertEqual(result.stdout, expected_output(*enabled))

    def test_bpftrace_on_a_static_program_reads_both_sites(self):
        program = self.library_build / "programs" / "app_static"
        attach = Attach(program, "mylib:tick", [1])
        hits, result = bpftrace_run(self, [attach], [program, str(ROUNDS)], 2 * ROUNDS)
        expected = []
        for inline, in_library in zip(inline_hits(attach.label), library_hits(attach.label)):
            expected += [inline, in_library]
        assert_traced(self, hits, expected, result.stdout)
        self.assertEqual(result.stdout, expected_output(1, 1))


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
