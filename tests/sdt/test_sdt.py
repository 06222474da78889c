"""usdt's <sys/sdt.h> (runtime/include/sdt) as a drop-in for systemtap's: the same sources,
programs/sdt_probes.c (every kind of argument, 0 to 12 arguments, every probe macro),
programs/sdt_more.c (semaphores, STAP_PROBEV, probes in asm statements), programs/sdt_asm.S
(the assembler form) and, in C++, programs/sdt_exceptions.cc (libstdc++'s exception probes, as
libstdc++ writes them), built against each header by GCC and Clang, as C89 to C23 and C++98 to
C++23 (as far as each compiler goes), -O2 with -Wall -Wextra -Wpedantic, each configuration
once. Then:
- the notes, probe by probe: the same provider, name, argument count, each argument's size and
  sign, semaphore and base as systemtap's header gives, but for what usdt's does differently on
  purpose (DIFFERENCES); every operand usdt's header chose a register; no `.note.usdt` record;
  libstdcxx:throw, rethrow and catch with the argument sizes of libstdc++'s own, where the
  system's libstdc++ has them;
- warnings: usdt's header draws none from C99 and C++11 on, and never more than systemtap's
  (a copy outside the system include directories, whose warnings compilers hide);
- values: gdb (no root) reads every argument of every probe of usdt's builds (EXPECTED), at
  -O2 and -O0; bpftrace (root) reads them too, and raises the semaphores through the kernel.
x86-64: the .S file and one asm statement name x86-64 registers.
"""

import os
import re
import shutil
import subprocess
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import bpftrace_attach
import elf_notes
import gdb_probes
import usdt_testing

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
REPOSITORY = HERE.parents[1]
USDT_INCLUDE = REPOSITORY / "runtime" / "include" / "sdt"

# What each probe passes, as gdb reads it: str for a string, NONZERO for an address that is
# only checked to be one. The C++ build adds sdt:bitfields_direct (systemtap's header rejects
# a bit-field) and every build from C99 and C++98 on sdt:boolean.
NONZERO = object()
ARGUMENTS = [-1, 2, -3, 4, -5, 6, -7, 8, -9, 10, 11, -12]
EXPECTED = {
    "none": [],
    "signed": [-8, -16, -32, -64],
    "unsigned": [208, 65016, 4000000032, 2**64 - 64],
    "plain": [99, -3, 253, -300, 65000, -70000, 70000],
    "pointers": ["text", 0x1000, 0x2000, 0x3000],
    "arrays": ["buffer", "literal", NONZERO],
    "enums": [2, -2],
    "constants": [5, -1, 120, 40000, 1 << 40],
    "qualified": [-42, -5, 250],
    "bitfields": [5, -7, 100000],
    "underscore": [-32, "text"],
    "floating": [2, -3],
    "wide": [-3],
    **{f"stap{count}": ARGUMENTS[:count] for count in range(1, 13)},
    **{f"dtrace{count}": ARGUMENTS[:count] for count in range(0, 13)},
    "asm_file": [7, -8],
    "asm_file0": [],
    # sdt_more.c, called with argc (1); gdb writes the semaphore of a probe it breaks on.
    "guarded": [1, 1],
}
VARIADIC = {"variadic0": [], "variadic3": [1, 1000, "three"]}
ASM_STATEMENTS = {"asm_template": [1, (1 << 33) + 5], "asm_specs": [42]}
BOOLEAN = {"boolean": [1]}
BITFIELDS = {"bitfields_direct": [5, -7, 100000]}
# sdt_exceptions.cc, in C++: the exception object (which starts with its message) and its type.
LIBSTDCXX = {f"libstdcxx:{name}": ["overflow", NONZERO] for name in ("throw", "rethrow", "catch")}
LIBSTDCXX_SOURCE = PROGRAMS / "sdt_exceptions.cc"
SEMAPHORES = ("guarded", "variadic0", "variadic3", "asm_template", "asm_specs")
# Probes whose specs are written out (the .S file, an asm statement's), not chosen by a compiler.
WRITTEN = {"asm_file": "-4@%edi -8@%rsi", "asm_file0": "", "asm_specs": "-4@%eax"}

# What usdt's header records otherwise, on purpose (sys/sdt.h's comment): (language, probe,
# argument index) -> (usdt's spec size, systemtap's).
DIFFERENCES = {
    # A C++ enum with a negative value: its underlying type, int (systemtap's: unsigned).
    ("c++", "enums", 1): ("-4", "4"),
    # Floating-point values converted to integers (systemtap's: their bits, `8f@`, which gdb and
    # bpftrace cannot read); an __int128 as its low 8 bytes (no tracer reads `16@`; systemtap's C++
    # templates know no __int128 and call it unsigned).
    **{(language, "floating", index): ("-8", size) for language in ("c", "c++") for index, size in ((0, "8f"), (1, "4f"))},
    ("c", "wide", 0): ("-8", "-16"),
    ("c++", "wide", 0): ("-8", "16"),
}

# Standards, oldest first, each by the spellings compilers have taken for it.
C_STANDARDS = {"c89": ["c89"], "c99": ["c99"], "c11": ["c11"], "c17": ["c17"], "c23": ["c23", "c2x"]}
CXX_STANDARDS = {"c++98": ["c++98"], "c++11": ["c++11"], "c++14": ["c++14"], "c++17": ["c++17"],
                 "c++20": ["c++20", "c++2a"], "c++23": ["c++23", "c++2b"]}
# From these on, usdt's header draws no warning at all (before them: usdt_site.h defines a
# variadic macro, which C89 and C++98 do not have, as systemtap's header defines several).
NO_WARNINGS_FROM = {"c99", "c11", "c17", "c23", "c++11", "c++14", "c++17", "c++20", "c++23"}
COMPILERS = {"gcc": ("gcc", "g++"), "clang": ("clang", "clang++")}
WARNING_FLAGS = ["-Wall", "-Wextra", "-Wpedantic"]
# The builds gdb reads (unoptimized ones added): each compiler, each language.
# (compiler, standard, optimization, linker: "" for the compiler's default).
GDB_BUILDS = [("gcc", "c99", "-O2", ""), ("clang", "c++17", "-O2", ""), ("clang", "c89", "-O0", ""),
              ("gcc", "c++98", "-O0", "")]
# lld and mold put `.probes` on the page where RELRO ends unless it starts a page of its own:
# then `bpftrace -c` never raises a semaphore (FIELD-NOTES), and the program exits 3.
LINKED_BUILDS = [("clang", "c11", "-O2", "lld"), ("gcc", "c++17", "-O2", "mold")]
BPFTRACE_BUILDS = [("gcc", "c11", "-O2", ""), *LINKED_BUILDS]

OPTIONS = None


def systemtap_header() -> Optional[Path]:
    """The directory holding systemtap's sys/sdt.h, as the C compiler finds it, or None."""
    found = subprocess.run(["gcc", "-M", "-E", "-x", "c", "-"], input="#include <sys/sdt.h>\n",
                           capture_output=True, text=True, check=False)
    match = re.search(r"(\S+)/sys/sdt\.h", found.stdout)
    return Path(match[1]) if found.returncode == 0 and match else None


def language(standard: str) -> str:
    return "c++" if standard.startswith("c++") else "c"


class Build:
    """One program: a compiler, a standard, an optimization level and a header (usdt's or
    systemtap's), built once; its notes, warnings and path."""

    def __init__(self, directory: Path, compiler: str, standard: str, spelling: str, optimization: str,
                 header: str, include: Path, linker: str = ""):
        self.compiler, self.standard, self.optimization, self.header = compiler, standard, optimization, header
        self.linker = linker
        self.language = language(standard)
        # No `+` in the name, which bpftrace takes for an operator in a probe's path.
        self.path = directory / f"{header}-{compiler}-{standard.replace('+', 'x')}{optimization}{linker}"
        driver = COMPILERS[compiler][self.language == "c++"]
        source_language = "c++" if self.language == "c++" else "c"
        definitions = ["-DSDT_TEST_BITFIELDS"] if header == "usdt" and self.language == "c++" else []
        # The .S file by the C compiler: clang++ preprocesses assembler source as C++.
        assembled = self.path.with_suffix(".S.o")
        commands = [[COMPILERS[compiler][0], *WARNING_FLAGS, f"-I{include}", "-c", str(PROGRAMS / "sdt_asm.S"),
                     "-o", str(assembled)],
                    [driver, f"-std={spelling}", optimization, *WARNING_FLAGS, *definitions, f"-I{include}",
                     "-x", source_language, str(PROGRAMS / "sdt_probes.c"), str(PROGRAMS / "sdt_more.c"),
                     *([str(LIBSTDCXX_SOURCE)] if self.language == "c++" else []),
                     "-x", "none", str(assembled), *([f"-fuse-ld={linker}"] if linker else []), "-o", str(self.path)]]
        self.command = " && ".join(" ".join(command) for command in commands)
        self.errors, self.warnings = None, []
        for command in commands:
            built = subprocess.run(command, capture_output=True, text=True, check=False)
            self.warnings += [line for line in built.stderr.splitlines() if "warning:" in line]
            if built.returncode != 0:
                self.errors = built.stderr
                break
        self.notes = [] if self.errors else elf_notes.notes(str(self.path))
        self.descriptions = [] if self.errors else elf_notes.descriptions(str(self.path))

    @property
    def key(self) -> Tuple[str, ...]:
        return (self.compiler, self.standard, self.optimization, self.linker)

    def expected(self) -> Dict[str, List]:
        """What each probe passes, by `provider:name`."""
        expected = dict(EXPECTED)
        if self.standard not in ("c89", "c++98"):
            expected.update(VARIADIC)
        if self.language == "c" and self.standard != "c89":
            expected.update(ASM_STATEMENTS)
        if self.standard != "c89":
            expected.update(BOOLEAN)
        if self.header == "usdt" and self.language == "c++":
            expected.update(BITFIELDS)
        expected = {f"sdt:{name}": values for name, values in expected.items()}
        if self.language == "c++":
            expected.update(LIBSTDCXX)
        return expected


def spelling_taken(driver: str, spellings: Sequence[str], source_language: str) -> Optional[str]:
    for spelling in spellings:
        tried = subprocess.run([driver, f"-std={spelling}", "-fsyntax-only", "-x", source_language, "-"],
                               input="", capture_output=True, text=True, check=False)
        if tried.returncode == 0:
            return spelling
    return None


def configurations() -> List[Tuple[str, str, str]]:
    """(compiler, standard, spelling) of every standard each installed compiler takes."""
    found = []
    for compiler, (c_driver, cxx_driver) in COMPILERS.items():
        if shutil.which(c_driver) is None or shutil.which(cxx_driver) is None:
            continue
        for standards, driver, source_language in ((C_STANDARDS, c_driver, "c"), (CXX_STANDARDS, cxx_driver, "c++")):
            for standard, spellings in standards.items():
                spelling = spelling_taken(driver, spellings, source_language)
                if spelling:
                    found.append((compiler, standard, spelling))
    return found


def argument_size(spec: str) -> str:
    return spec.partition("@")[0]


def register_operand(spec: str) -> bool:
    return re.fullmatch(r"-?[1248]@%[a-z0-9]+", spec) is not None


@unittest.skipUnless(os.uname().machine == "x86_64", "the test's .S file and asm statement are x86-64's")
class SdtHeaderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = usdt_testing.fresh_directory(OPTIONS.work_dir)
        systemtap = systemtap_header()
        cls.systemtap_missing = systemtap is None
        headers = {"usdt": USDT_INCLUDE}
        if systemtap is not None:
            # A copy, outside the system include directories, whose warnings compilers hide.
            copy = cls.directory / "systemtap" / "sys"
            copy.mkdir(parents=True)
            for name in ("sdt.h", "sdt-config.h"):
                shutil.copy(systemtap / "sys" / name, copy / name)
            headers["systemtap"] = copy.parent
        cls.configurations = configurations()
        jobs = [(compiler, standard, spelling, "-O2", header, include)
                for compiler, standard, spelling in cls.configurations for header, include in headers.items()]
        spellings = {(compiler, standard): spelling for compiler, standard, spelling in cls.configurations}
        jobs += [(compiler, standard, spellings[(compiler, standard)], optimization, "usdt", USDT_INCLUDE, linker)
                 for compiler, standard, optimization, linker in GDB_BUILDS + LINKED_BUILDS
                 if (optimization != "-O2" or linker) and (compiler, standard) in spellings
                 and (not linker or shutil.which(f"ld.{linker}") or shutil.which(linker))]
        with ThreadPoolExecutor(max_workers=2) as pool:
            builds = list(pool.map(lambda job: Build(cls.directory, *job), jobs))
        cls.builds = {(build.header, *build.key): build for build in builds}

    def our_build(self, compiler, standard, optimization="-O2", linker="") -> Build:
        return self.builds[("usdt", compiler, standard, optimization, linker)]

    def their_build(self, compiler, standard) -> Build:
        return self.builds[("systemtap", compiler, standard, "-O2", "")]

    def test_every_standard_builds(self):
        self.assertTrue(self.configurations, "no compiler found")
        for (header, compiler, standard, optimization, linker), build in self.builds.items():
            with self.subTest(header=header, compiler=compiler, standard=standard, optimization=optimization,
                              linker=linker):
                self.assertIsNone(build.errors, build.command)
        # Both compilers, and both languages' oldest and newest standards this machine has.
        standards = {standard for _, standard, _ in self.configurations}
        self.assertTrue({"c89", "c11", "c++98", "c++17"} <= standards, standards)

    def test_notes_match_systemtaps_probe_by_probe(self):
        if self.systemtap_missing:
            self.skip_without_systemtap()
        for compiler, standard, _ in self.configurations:
            ours, theirs = self.our_build(compiler, standard), self.their_build(compiler, standard)
            if ours.errors or theirs.errors:
                continue   # test_every_standard_builds says why
            with self.subTest(compiler=compiler, standard=standard):
                our_probes, their_probes = self.by_probe(ours), self.by_probe(theirs)
                expected = theirs.expected()
                self.assertEqual(sorted(their_probes), sorted(expected))
                self.assertEqual(sorted(our_probes), sorted(ours.expected()))
                for probe, their_notes in their_probes.items():
                    name = probe.partition(":")[2]
                    for our_note, their_note in zip(our_probes[probe], their_notes):
                        self.assertEqual(len(our_note.arguments), len(their_note.arguments), probe)
                        for index, (our_spec, their_spec) in enumerate(zip(our_note.arguments, their_note.arguments)):
                            sizes = DIFFERENCES.get((ours.language, name, index))
                            self.assertEqual((argument_size(our_spec), argument_size(their_spec)),
                                             sizes or (argument_size(their_spec),) * 2, f"{probe} argument {index}")
                        self.assertEqual(bool(our_note.semaphore), bool(their_note.semaphore), probe)
                    self.assertEqual(len(our_probes[probe]), len(their_notes), probe)

    def test_notes_name_registers_semaphores_and_base(self):
        for build in [build for build in self.builds.values() if build.header == "usdt"]:
            if build.errors:
                continue
            with self.subTest(compiler=build.compiler, standard=build.standard, optimization=build.optimization,
                              linker=build.linker):
                symbols = dict(elf_notes.symbols(str(build.path)))
                base = elf_notes.sections(str(build.path))[".stapsdt.base"].address
                for note in build.notes:
                    name = note.name
                    self.assertEqual(note.base, base, note)
                    if name in WRITTEN:
                        self.assertEqual(" ".join(note.arguments), WRITTEN[name], note)
                    else:
                        self.assertTrue(all(register_operand(spec) for spec in note.arguments), note)
                    if name in SEMAPHORES:
                        self.assertEqual(note.semaphore, symbols[f"sdt_{name}_semaphore"], note)
                    else:
                        self.assertEqual(note.semaphore, 0, note)
                    self.assertEqual(len(note.arguments), len(build.expected()[note.probe]), note)
                # sys/sdt.h's probes declare no types: nothing for `usdt list` to set aside.
                self.assertEqual(build.descriptions, [])
                # The semaphores a program declares start a page of their own (lld and mold).
                self.assertEqual(elf_notes.sections(str(build.path))[".probes"].address % 4096, 0)

    def test_libstdcxx_probes_as_libstdcxxs_own(self):
        """The system's libstdc++ was built with systemtap's header: sdt_exceptions.cc's probes,
        built with usdt's, have the names and argument sizes of its own (but in registers, where
        its catch probe has a stack slot)."""
        library = Path(subprocess.run(["g++", "-print-file-name=libstdc++.so"], capture_output=True, text=True,
                                      check=False).stdout.strip()).resolve()
        theirs = {note.probe: [argument_size(spec) for spec in note.arguments]
                  for note in (elf_notes.notes(str(library)) if library.is_file() else []) if note.provider == "libstdcxx"}
        if sorted(theirs) != sorted(LIBSTDCXX):
            self.skipTest(f"{library} has no libstdcxx probes (built without sys/sdt.h)")
        builds = [build for build in self.builds.values()
                  if build.header == "usdt" and build.language == "c++" and not build.errors]
        self.assertTrue(builds)
        for build in builds:
            with self.subTest(compiler=build.compiler, standard=build.standard, optimization=build.optimization):
                ours = {note.probe: [argument_size(spec) for spec in note.arguments]
                        for note in build.notes if note.provider == "libstdcxx"}
                self.assertEqual(ours, theirs)

    def test_semaphores_in_a_shared_library(self):
        """The program's semaphores may be preemptible there: nothing may refer to one but the
        notes and the code (a PC-relative reference from the site does not link)."""
        library = self.directory / "libsdt_more.so"
        for compiler, (driver, _) in COMPILERS.items():
            with self.subTest(compiler=compiler):
                built = subprocess.run([driver, "-std=c99", "-O2", "-fPIC", "-shared", f"-I{USDT_INCLUDE}",
                                        str(PROGRAMS / "sdt_more.c"), "-o", str(library)],
                                       capture_output=True, text=True, check=False)
                self.assertEqual(built.returncode, 0, built.stderr)
                symbols = dict(elf_notes.symbols(str(library)))
                semaphores = {note.name: note.semaphore for note in elf_notes.notes(str(library))}
                self.assertEqual(semaphores, {name: symbols[f"sdt_{name}_semaphore"] for name in SEMAPHORES})

    def test_no_more_warnings_than_systemtaps(self):
        for compiler, standard, _ in self.configurations:
            ours = self.our_build(compiler, standard)
            with self.subTest(compiler=compiler, standard=standard):
                if standard in NO_WARNINGS_FROM:
                    self.assertEqual(ours.warnings, [], ours.command)
                if not self.systemtap_missing:
                    theirs = self.their_build(compiler, standard)
                    self.assertLessEqual(len(ours.warnings), len(theirs.warnings), "\n".join(ours.warnings))

    def test_gdb_reads_every_argument(self):
        usdt_testing.require_tracer(self, "gdb", needs_root=False)
        builds = [self.builds[("usdt", *key)] for key in GDB_BUILDS
                  if ("usdt", *key) in self.builds and not self.builds[("usdt", *key)].errors]

        def gdb_run(build):
            strings = {probe: [index for index, value in enumerate(values) if isinstance(value, str)]
                       for probe, values in build.expected().items()}
            return gdb_probes.run(str(build.path), [], strings)
        with ThreadPoolExecutor(max_workers=2) as pool:
            runs = list(pool.map(gdb_run, builds))
        for build, run in zip(builds, runs):
            with self.subTest(compiler=build.compiler, standard=build.standard, optimization=build.optimization):
                expected = build.expected()
                self.assertTrue(run.exited_normally, run.output[-3000:])
                hits = {hit.probe: list(hit.values) for hit in run.hits}
                self.assertEqual(len(run.hits), len(expected), run.output[-3000:])
                for name, values in expected.items():
                    read = hits.get(name)
                    self.assertIsNotNone(read, name)
                    self.assertEqual(len(read), len(values), (name, read))
                    for index, (got, want) in enumerate(zip(read, values)):
                        if want is NONZERO:
                            self.assertNotEqual(got, 0, (name, index))
                        else:
                            self.assertEqual(got, want, (name, index, read))

    def test_bpftrace_reads_arguments_and_raises_semaphores(self):
        usdt_testing.require_tracer(self, "bpftrace")
        for key in BPFTRACE_BUILDS:
            build = self.builds.get(("usdt", *key))
            if build is None or build.errors:
                continue
            with self.subTest(compiler=build.compiler, standard=build.standard, linker=build.linker):
                expected = build.expected()
                specs = {note.probe: note.arguments for note in build.notes}
                actions = [f"usdt:{build.path}:{probe} "
                           + bpftrace_attach.printf_action(probe, specs[probe], values,
                                                           lambda value: isinstance(value, str))
                           for probe, values in expected.items()]
                traced = subprocess.run(["bpftrace", "-e", "\n".join(actions), "-c", str(build.path)],
                                        capture_output=True, text=True, timeout=120, check=False)
                # The program exits 0 only when sdt:guarded's semaphore was raised (by the kernel).
                self.assertEqual(traced.returncode, 0, traced.stdout + traced.stderr)
                read = {line.split("|")[0][len("HIT "):]: line.split("|")[1:]
                        for line in bpftrace_attach.hit_lines(traced.stdout)}
                for name, values in expected.items():
                    shown = [str(value) if value is not NONZERO else None
                             for value in values[:bpftrace_attach.arguments_read()]]
                    got = read.get(name)
                    self.assertIsNotNone(got, (name, traced.stdout + traced.stderr))
                    self.assertEqual([None if want is None else value for value, want in zip(got, shown)], shown,
                                     name)

    def by_probe(self, build: Build) -> Dict[str, List[elf_notes.Note]]:
        found: Dict[str, List[elf_notes.Note]] = {}
        for note in sorted(build.notes, key=lambda note: note.location):
            found.setdefault(note.probe, []).append(note)
        return found

    def skip_without_systemtap(self):
        reason = "systemtap's sys/sdt.h is not installed (Debian: apt-get install systemtap-sdt-dev)"
        if usdt_testing.tracers_required():
            self.fail(f"USDT_REQUIRE_TRACERS=1 but {reason}")
        self.skipTest(reason)


def add_options(parser):
    parser.add_argument("--work-dir", type=Path, required=True)


if __name__ == "__main__":
    OPTIONS, _ = usdt_testing.parse_options(add_options)
    usdt_testing.main()
