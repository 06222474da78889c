"""Equivalence with systemtap's `dtrace`: each provider file in probes/, written with the
constructs of real projects' provider files, and its program in programs/ are built
three times, each as C and as C++:

- with systemtap's `dtrace -C -h` and `dtrace -C -G` and <sys/sdt.h> (Debian's
  systemtap-sdt-dev), as those projects build them (without -C the files of
  WITHOUT_PREPROCESSOR, as libvirt builds its own);
- with the same two commands run by usdt-dtrace instead, the drop-in;
- with usdt's generator (usdtgen --header), as usdt_add_provider does.

Each header and object is generated once per provider file and used by both programs.

All must record the same probes, one note per probe with the same number of arguments and
each argument's size and sign, and a semaphore per probe, named as `dtrace -h` names it and
placed in `.probes`. The specs are also written out below, so that every build going wrong
the same way fails too.

usdt takes each argument's size and sign from the type the .d file declares; sys/sdt.h
takes them from the expression the program passes. The programs pass expressions of the
declared types, except where DIFFERENCES says otherwise: that difference is deliberate and
documented in docs/migration.md. x86-64 only: there `char` is signed for both (on aarch64
sys/sdt.h records `char` as unsigned, usdt as signed).
"""

import os
import subprocess
import sys
import unittest
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import elf_notes
import usdt_testing

HERE = Path(__file__).resolve().parent
PROBES = HERE / "probes"
PROGRAMS = HERE / "programs"
WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]

# Per provider file: each probe's argument sizes, `-` for signed, as both builds record them.
EXPECTED = {
    "aliases": {
        "store:txn__begin": "4",
        "store:txn__commit": "4",
        "store:lock__wait__start": "4 -4",
        "store:lock__wait__done": "4 -4 1",
        "store:page__read__start": "-4 4 4 4 4 -4 1",
        "store:page__read__done": "-4 4 4 4 4 -4 1 1",
        "store:page__write__done": "-4 4 4 4 4 -4 -8 -4",
        "store:statement__parse": "8",
        "store:lock__detail": "4 8 -4",
    },
    "translated": {
        "netrt:net__server__connection": "8 8 -4 -4",
        "netrt:net__stream__end": "8 8 -4 -4",
        "netrt:http__server__request": "8 8 8 -4 8 8 -4",
        "netrt:socket__read": "-4 8",
        "netrt:gc__start": "-4 -4 8",
        "netrt:gc__done": "-4 -4 8",
    },
    "keywords": {
        "interp:method__entry": "8 8 8 -4",
        "interp:method__return": "8 8 8 -4",
        "interp:object__new": "8 8 -4",
        "interp:object__free": "8 8",
        "interp:operator__call": "-4 -8 8 8 8 -4 -2 -1",
        "interp:Script__Compile": "8 -4",
        "interp:compileQueue__Done": "4",
        "interp:GC__Begin": "",
        "interp:GC__End": "",
        "hosting:args__parsed": "-4 8",
        "hosting:request__queued": "8 8",
        "hosting:request__chain": "8 8 8",
        "vm:message__send": "8 8 4 -4 -4 -4 -8 1",
        "vm:user__trace__i4s4": "8 8 -4 -4 -4 -4 8 8 8 8",
        "vm:port__control": "8 8 2 -8 8 -4 -1 1 -8 8 -8 8",
    },
    "declarations": {
        "jobs:job__queued": "8 4 8",
        "jobs:job__started": "4 8 -8",
        "jobs:job__finished": "4 8 -8 -4",
    },
    "declared_types": {
        "typed:narrowed": "-1 2 -8",
        "typed:matching": "-1 2 -8",
    },
    "comments": {
        "virt:object_new": "8 8",
        "virt:object_ref": "8",
        "virt:object_unref": "8",
        "virt:rpc_server_client_msg_tx_queue": "8 -4 -4 -4 -4 -4 -4 -4",
    },
}

# Built with `dtrace -h` and `dtrace -G`, no -C: their `#` lines are comments, which the
# preprocessor would reject (libvirt's `# file:` lines).
WITHOUT_PREPROCESSOR = {"comments"}

# Where sys/sdt.h records something else than EXPECTED, and why: systemtap's specs.
DIFFERENCES = {
    "declared_types": {
        # programs/declared_types.c passes int expressions for char, unsigned short and long.
        "typed:narrowed": "-4 -4 -4",
    },
}


@dataclass(frozen=True)
class Language:
    name: str
    flags: Sequence[str]
    cxx: bool


LANGUAGES = (Language("c", ("-x", "c", "-std=c99"), cxx=False),
             Language("cxx", ("-x", "c++", "-std=c++11"), cxx=True))


@dataclass(frozen=True)
class Setup:
    work_dir: Path
    usdt_dtrace: Path
    cc: str
    cxx: str


SETUP: Optional[Setup] = None  # set by parse_arguments()


def parse_arguments() -> None:
    global SETUP

    def add_options(parser):
        parser.add_argument("--work-dir", type=Path, required=True)
        parser.add_argument("--usdt-dtrace", type=Path, required=True, help="the build tree's usdt-dtrace")
        parser.add_argument("--cc", default="cc")
        parser.add_argument("--cxx", default="c++")
    options, _ = usdt_testing.parse_options(add_options)
    SETUP = Setup(usdt_testing.fresh_directory(options.work_dir).resolve(), options.usdt_dtrace,
                  options.cc, options.cxx)


def run(command: Sequence, cwd: Path, environment: Dict[str, str] = None) -> None:
    result = subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True,
                            env=None if environment is None else {**os.environ, **environment})
    if result.returncode != 0:
        raise AssertionError(f"in {cwd}: {' '.join(str(part) for part in command)}\nexited "
                             f"{result.returncode}\n--- stdout\n{result.stdout}--- stderr\n{result.stderr}")


def compiler(language: Language) -> str:
    return SETUP.cxx if language.cxx else SETUP.cc


def generated_with_dtrace(dtrace: str, stem: str) -> Path:
    """`dtrace -C -h` for the header, `dtrace -C -G` for the semaphores' object (without -C for
    WITHOUT_PREPROCESSOR), as a Makefile written for systemtap runs them: once per provider
    file, for the C and the C++ program."""
    directory = SETUP.work_dir / stem / Path(dtrace).name
    if not directory.is_dir():
        directory.mkdir(parents=True)
        provider_file = PROBES / f"{stem}.d"
        preprocessor = [] if stem in WITHOUT_PREPROCESSOR else ["-C", f"-I{PROBES}"]
        # systemtap's dtrace writes its temporary files into the current directory.
        run([dtrace, *preprocessor, "-h", "-s", provider_file, "-o", f"{stem}.h"], directory)
        run([dtrace, *preprocessor, "-G", "-s", provider_file, "-o", f"{stem}-probes.o"], directory,
            {"CC": SETUP.cc})
    return directory


def build_with_dtrace(dtrace: str, stem: str, language: Language, flags: Sequence[str] = ()) -> Path:
    """The program compiled against dtrace's header and linked with its object; `flags` for
    compiling the program."""
    generated = generated_with_dtrace(dtrace, stem)
    directory = SETUP.work_dir / stem / language.name / Path(dtrace).name
    directory.mkdir(parents=True)
    run([compiler(language), *language.flags, "-O2", *flags, f"-I{generated}", f"-I{PROBES}",
         "-c", PROGRAMS / f"{stem}.c", "-o", "program.o"], directory)
    run([compiler(language), "program.o", generated / f"{stem}-probes.o", "-o", "program"], directory)
    return directory / "program"


def build_with_systemtap(stem: str, language: Language) -> Path:
    """The program includes <sys/sdt.h> through the header."""
    return build_with_dtrace("dtrace", stem, language)


def build_with_usdt_dtrace(stem: str, language: Language) -> Path:
    """The header is self-contained: no include flags."""
    return build_with_dtrace(str(SETUP.usdt_dtrace), stem, language, WARNINGS)


def build_with_usdt(stem: str, language: Language) -> Path:
    """The generator's header, as usdt_add_provider generates it (once per provider file):
    nothing else to compile or link."""
    generated = SETUP.work_dir / stem / "usdt"
    if not generated.is_dir():
        generated.mkdir(parents=True)
        run([sys.executable, "-m", "usdtgen", PROBES / f"{stem}.d", "--header", f"{stem}.h",
             f"--cc={SETUP.cc}", f"-I{PROBES}"], generated)
    directory = SETUP.work_dir / stem / language.name / "usdt"
    directory.mkdir(parents=True)
    run([compiler(language), *language.flags, "-O2", *WARNINGS, f"-I{generated}", f"-I{PROBES}",
         "-c", PROGRAMS / f"{stem}.c", "-o", "program.o"], directory)
    run([compiler(language), "program.o", "-o", "program"], directory)
    return directory / "program"


def recorded_specs(program: Path) -> Dict[str, List[str]]:
    """provider:name -> the argument sizes of each of its notes (`-4 8`)."""
    specs = defaultdict(list)
    for note in elf_notes.notes(str(program)):
        specs[note.probe].append(" ".join(argument.partition("@")[0] for argument in note.arguments))
    return dict(specs)


class EquivalenceTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        usdt_testing.require_tracer(self, "dtrace", needs_root=False, package="systemtap-sdt-dev")

    def check_equivalent(self, stem: str) -> None:
        differences = DIFFERENCES.get(stem, {})
        expected_usdt = {probe: [specs] for probe, specs in EXPECTED[stem].items()}
        expected_systemtap = {**expected_usdt, **{probe: [specs] for probe, specs in differences.items()}}
        for language in LANGUAGES:
            with self.subTest(language=language.name):
                systemtap_program = build_with_systemtap(stem, language)
                usdt_dtrace_program = build_with_usdt_dtrace(stem, language)
                usdt_program = build_with_usdt(stem, language)
                systemtap_specs = recorded_specs(systemtap_program)
                usdt_specs = recorded_specs(usdt_program)
                self.assertEqual(systemtap_specs, expected_systemtap, "systemtap's notes")
                self.assertEqual(usdt_specs, expected_usdt, "usdt's notes")
                self.assertEqual(recorded_specs(usdt_dtrace_program), expected_usdt, "usdt-dtrace's notes")
                differing = {probe for probe in usdt_specs if usdt_specs[probe] != systemtap_specs.get(probe)}
                self.assertEqual(differing, set(differences), "probes whose notes differ")
                for program in (systemtap_program, usdt_dtrace_program, usdt_program):
                    self.assert_semaphores(program)

    def assert_semaphores(self, program: Path) -> None:
        """Every note names its probe's semaphore, `<provider>_<name>_semaphore` in `.probes`."""
        probes_section = elf_notes.sections(str(program)).get(".probes")
        self.assertIsNotNone(probes_section, f"{program} has no .probes section")
        symbols = dict(elf_notes.symbols(str(program)))
        for note in elf_notes.notes(str(program)):
            semaphore = f"{note.provider}_{note.name}_semaphore"
            where = f"{program}: {note.probe}"
            self.assertNotEqual(note.semaphore, 0, f"{where} has no semaphore")
            self.assertEqual(note.semaphore, symbols.get(semaphore), f"{where}: not {semaphore}")
            self.assertTrue(probes_section.contains(note.semaphore), f"{where}: semaphore outside .probes")

    def test_preprocessor_aliases_and_a_local_header(self):
        self.check_equivalent("aliases")

    def test_typedef_structs_translated_arguments_and_pragmas(self):
        self.check_equivalent("translated")

    def test_several_providers_keywords_mixed_case_and_many_arguments(self):
        self.check_equivalent("keywords")

    def test_c_declarations_around_the_provider(self):
        self.check_equivalent("declarations")

    def test_declared_types_decide_sizes(self):
        self.check_equivalent("declared_types")

    def test_hash_comments_without_the_preprocessor(self):
        self.check_equivalent("comments")

    def test_every_provider_file_is_checked(self):
        self.assertEqual(sorted(path.stem for path in PROBES.glob("*.d")), sorted(EXPECTED))
        self.assertEqual(sorted(path.stem for path in PROGRAMS.glob("*.c")), sorted(EXPECTED))


if __name__ == "__main__":
    parse_arguments()
    usdt_testing.main()
