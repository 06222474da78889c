"""The integration programs cross-compiled for one target with probes (--target, targets.py;
project/, toolchain file debian.cmake), then read and run on this x86-64 machine:

  - the configure step's assembler check: it assembles a probe site of the runtime header, with
    its notes linked to the code (the section flag `o`), on this target as on every other;
  - readelf: the target's machine and ELF class; every probe, each argument's declared size
    and sign (tests/integration/expected.py, pointer-sized ones the target's word); every
    operand in a form the target's tracers parse (targets.py): a register, or an 8-byte slot
    of the argument block; Base the `.stapsdt.base` address; semaphores inside `.probes`;
  - Clang (--target): the types programs compiled without a warning, operands as above;
  - `usdt list`: every probe with the names and types its `.note.usdt` records declare;
  - qemu-user: each program's exit status and output (cross_project.ProgramRunChecks), each
    argument evaluated once;
  - gdb-multiarch on qemu's gdb stub: every argument of every probe hit, read by gdb
    ($_probe_argN) where gdb 13 reads the target's arguments, else from the registers and
    memory each spec names.

The project is configured and built once, in the work directory CTest passes
(cross_project.py, shared with test_unsupported.py, a target without probes).
"""

import json
import re
import subprocess
from collections import defaultdict

import cross_project   # first: puts tests/integration and tests/package on sys.path
import elf_notes
import expected
import module_checks
import package_support as package
import remote_gdb_probes
from usdt_testing import main

MODULES = cross_project.MODULES
TYPES_PROGRAMS = cross_project.TYPES_PROGRAMS
SPEC = re.compile(r"(?P<prefix>-?\d+@)(?P<operand>.*)")


def assert_operand_forms(test, target, notes, optimized):
    """Each argument is in a register, or in an 8-byte slot of the argument block (argument N at
    byte 8 * N of one register's address), as the target's tracers parse them."""
    in_block = target.block is not None and not (target.block_unoptimized_only and optimized)
    for note in notes:
        where = f"{note.probe} at {note.location:#x}: {' '.join(note.arguments)}"
        operands = [SPEC.match(argument)["operand"] for argument in note.arguments]
        if not in_block:
            for operand in operands:
                test.assertRegex(operand, f"^{target.register}$", where)
            continue
        slots = [re.fullmatch(target.block, operand) for operand in operands]
        test.assertTrue(all(slots), where)
        test.assertEqual([int(slot["offset"]) for slot in slots], [8 * index for index in range(len(slots))], where)
        test.assertLessEqual(len({slot["base"] for slot in slots}), 1, where)


class CrossTestCase(cross_project.CrossTestCase):
    project_build = cross_project.ProjectBuild()

    def notes(self, module):
        return elf_notes.notes(self.path(module))


class AssemblerCheckTest(CrossTestCase):
    def test_the_configure_check_assembles_a_probe_site_with_linked_notes(self):
        """usdt_add_provider's assembler check (cmake/usdtCheckAssembler.cmake) builds the runtime
        header's own site on this target too, with the section flag `o` that an assembler older
        than binutils 2.35 rejects: such an assembler stops the configure step here, not the build."""
        (source,) = (self.build / "CMakeFiles" / "usdt").glob("assembler-check.*")
        compiler = f"{self.target.triple}-{'gcc' if source.suffix == '.c' else 'g++'}"
        assembly = package.run([compiler, "-S", "-o", "-", f"-I{package.SETUP.source_dir / 'runtime' / 'include'}",
                                source]).stdout
        self.assertRegex(assembly, r'\.pushsection \.note\.stapsdt, "\?o", "note", \S+')


class NotesTest(CrossTestCase):
    def test_modules_are_the_targets(self):
        for module in MODULES:
            with self.subTest(module=module):
                header = package.run(["readelf", "-h", self.path(module)]).stdout
                self.assertRegex(header, rf"Class:\s+{self.target.elf_class}\n")
                self.assertRegex(header, rf"Data:\s+2's complement, {self.target.byte_order} endian\n")
                self.assertRegex(header, rf"Machine:\s+{re.escape(self.target.machine)}\n")

    def test_probes_and_argument_sizes(self):
        for module in MODULES:
            with self.subTest(module=module):
                expectation = self.expectation(module)
                specs = expectation.expected_specs(self.target.pointer_size)
                notes = self.notes(module)
                self.assertEqual(sorted({note.probe for note in notes}), sorted(specs), "probes with notes")
                for note in notes:
                    prefixes = tuple(SPEC.match(argument)["prefix"] for argument in note.arguments)
                    self.assertEqual(prefixes, specs[note.probe],
                                     f"{note.probe} at {note.location:#x}: {' '.join(note.arguments)}")
                for probe, count in expectation.sites.items():
                    self.assertEqual(sum(note.probe == probe for note in notes), count, f"sites of {probe}")

    def test_operands_are_forms_the_targets_tracers_parse(self):
        for module in MODULES:
            optimized = module not in cross_project.UNOPTIMIZED
            with self.subTest(module=module):
                assert_operand_forms(self, self.target, self.notes(module), optimized)

    def test_base_is_the_stapsdt_base_section(self):
        for module in MODULES:
            with self.subTest(module=module):
                module_checks.assert_base_is_stapsdt_base(self, self.path(module))

    def test_one_semaphore_per_probe_in_probes_section(self):
        for module in MODULES:
            with self.subTest(module=module):
                module_checks.assert_one_semaphore_per_probe(self, self.path(module), self.expectation(module).declared)

    def test_locations_are_in_text(self):
        for module in MODULES:
            with self.subTest(module=module):
                module_checks.assert_locations_in_text(self, self.path(module))


class ClangTest(CrossTestCase):
    """The build machine's Clang, told the target (--target), compiles the same programs
    without a warning, and puts their arguments where the target's tracers read them."""
    tools = {"clang": "clang"}
    SOURCES = (("types.c", "clang", "-std=c99"), ("types.cpp", "clang++", "-std=c++11", "-Wold-style-cast"))

    def test_compiles_cleanly_with_operands_tracers_parse(self):
        programs = cross_project.TESTS_DIR / "integration" / "programs"
        headers = self.build / "types_probes.usdt"   # myapp.h and other.h, which the types programs share
        for (source, compiler, *flags), optimization in [(source, level) for source in self.SOURCES
                                                         for level in ("-O0", "-O2")]:
            with self.subTest(source=source, optimization=optimization):
                object_file = package.SETUP.work_dir / f"clang{optimization}-{source}.o"
                completed = package.run([compiler, f"--target={self.target.triple}", *flags, optimization,
                                         "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Wsign-conversion",
                                         "-Werror", f"-I{headers}", "-c", programs / source, "-o", object_file])
                self.assertEqual(completed.stderr, "")
                notes = elf_notes.notes(str(object_file))
                self.assertEqual(sorted({note.probe for note in notes}),
                                 sorted(self.expectation("types_c").expected_specs()))
                assert_operand_forms(self, self.target, notes, optimization != "-O0")


class ListTest(CrossTestCase):
    """`usdt list`, on this machine, reads the target's notes and `.note.usdt` records."""

    def listing(self, module):
        completed = subprocess.run([str(package.SETUP.build_dir / "bin" / "usdt"), "list", "--json",
                                    self.path(module)], capture_output=True, text=True, timeout=60)
        self.assertEqual((completed.returncode, completed.stderr), (0, ""))
        (listed,) = json.loads(completed.stdout)["modules"]
        self.assertEqual(listed["warnings"], [])
        return {f"{probe['provider']}:{probe['name']}": probe for probe in listed["probes"]}

    def test_declared_names_and_types_with_the_notes_sizes(self):
        for module in TYPES_PROGRAMS + ("solib",):
            with self.subTest(module=module):
                listed = self.listing(module)
                notes = self.notes(module)
                specs = self.expectation(module).expected_specs(self.target.pointer_size)
                self.assertEqual(sorted(listed), sorted(specs))
                for probe, (source, arguments) in expected.DESCRIPTIONS.items():
                    if probe not in listed:
                        continue
                    self.assertEqual(listed[probe]["source"], source, probe)
                    self.assertEqual([(argument["name"], argument["type"], argument["kind"])
                                      for argument in listed[probe]["arguments"]], list(arguments), probe)
                for probe, prefixes in specs.items():
                    self.assertEqual(tuple(f"{'-' if argument['signed'] else ''}{argument['size']}@"
                                           for argument in listed[probe]["arguments"]), prefixes, probe)
                    sites = sum(note.probe == probe for note in notes)
                    self.assertEqual(len(listed[probe]["sites"]), sites, probe)


class UnderQemuTest(cross_project.ProgramRunChecks, CrossTestCase):
    pass


class UnderGdbTest(CrossTestCase):
    tools = {"{qemu}": "qemu-user", "gdb-multiarch": "gdb-multiarch"}

    def gdb_run(self, module, arguments, hits, start_first=False, modules=()):
        notes, dynamic = None, None
        if modules and not self.target.gdb_follows_libraries:
            dynamic = (elf_notes.sections(self.path(module))[".dynamic"].address, self.target.pointer_size)
        if not self.target.gdb_reads_arguments:
            notes = defaultdict(lambda: defaultdict(list))
            for noted in (module, *modules):
                for note in self.notes(noted):
                    notes[MODULES[noted][0]][note.probe].append((note.location, note.arguments))
        return remote_gdb_probes.run((self.target.qemu, "-L", self.target.sysroot), self.target.sysroot,
                                     self.path(module), arguments, expected.string_indices(hits),
                                     start_first, notes, dynamic)

    def assertHits(self, run, hits):
        actual = [(hit.probe, hit.values) for hit in run.hits]
        wanted = [(hit.probe, expected.resolve(hit.values, run.output)) for hit in hits]
        self.assertEqual(actual, wanted, run.output)
        self.assertTrue(run.exited_normally, run.output)

    def test_types_programs_every_probe_listed_and_every_value(self):
        hits = expected.types_hits(self.target.pointer_size)
        for module in TYPES_PROGRAMS:
            with self.subTest(module=module):
                run = self.gdb_run(module, expected.TYPES_ARGUMENTS, hits)
                self.assertEqual(sorted({probe for probe, _ in run.listed}),
                                 sorted(self.expectation(module).expected_specs()), run.output)
                self.assertHits(run, hits)

    def test_formatted_argument_and_probe_without_semaphore(self):
        # gdb raises lazy:guarded's semaphore, so its label is formatted and it fires.
        self.assertHits(self.gdb_run("flavours", (), expected.FLAVOURS_TRACED_HITS), expected.FLAVOURS_TRACED_HITS)

    def test_shared_library_probes_and_every_value(self):
        # solib:guarded fires too: gdb raises its semaphore inside the library over the stub.
        run = self.gdb_run("linked", expected.LINKED_ARGUMENTS, expected.LINKED_HITS, start_first=True,
                           modules=("solib",))
        listed = dict(run.listed)
        self.assertEqual(sorted(listed), ["archive:fire", "objects:built", "solib:guarded", "solib:work"],
                         run.output)
        self.assertEqual(listed["solib:work"], self.path("solib"), "object of solib:work")
        self.assertEqual(listed["archive:fire"], self.path("linked"), "object of archive:fire")
        self.assertHits(run, expected.LINKED_HITS)


if __name__ == "__main__":
    package.parse_arguments(cross_project.add_target_option)
    main()
