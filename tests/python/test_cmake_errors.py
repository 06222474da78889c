"""CMake-level errors: a real project (cmake_error/) using usdt_add_provider, configured and built.

The project finds the usdt CTest installed once (the fixture usdt_installed) with find_package. A bad
.d file must fail the build with the generator's `probes.d:LINE:COL: error:` and leave no
header; fixing it must build; an up-to-date build must not run the generator again; misuses
of usdt_add_provider must fail at configure time with a message naming the function, and so
must a compiler whose assembler is older than the probes need (a fake GNU as 2.34, found
first through -B), with one error and none of the assembler's; one that warns about the notes'
section flag (a fake GNU as 2.35) builds them without it, and without a warning.

Usage (CTest passes these): test_cmake_errors.py --source-dir REPO --installed-prefix PREFIX
    [--cmake CMAKE] [--generator GENERATOR] [--c-compiler CC] [unittest options]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import usdt_testing

PROJECT = Path(__file__).resolve().parent / "cmake_error"

# From the command line (add_options), then usdt_dir from setUpModule.
OPTIONS = argparse.Namespace()

GOOD = """\
/* The demo provider main.c fires. */
provider demo {
    probe tick(int n);
    probe tock(uint32_t seconds);
};
"""

# The same file with an error on line 4, column 16 (the parameter's type).
BAD = GOOD.replace("uint32_t seconds", "float seconds")

GENERATING = "Generating USDT probes"

# A stand-in for an old GNU as on x86-64, written as `as` into a directory that -B puts first:
# a section flag it does not know is the fatal error gas's x86-64 back end reports, and one of
# WARNED_FLAGS on a `.note` section the warning of binutils 2.35 (an error with --fatal-warnings)
# (binutils gas/config/obj-elf.c and tc-i386.c); anything else goes to the real assembler. Every
# input is appended to the file USDT_FAKE_AS_LOG names, if set.
FAKE_ASSEMBLER = """\
#!{python}
import os, re, subprocess, sys
UNKNOWN_FLAGS = {unknown_flags!r}
WARNED_FLAGS = {warned_flags!r}
arguments = sys.argv[1:]
inputs = [argument for argument in arguments if argument.endswith(".s")]
texts = [(path, open(path).read()) for path in inputs] or [("{{standard input}}", sys.stdin.read())]
warned = False
for path, text in texts:
    if os.environ.get("USDT_FAKE_AS_LOG"):
        with open(os.environ["USDT_FAKE_AS_LOG"], "a") as log:
            log.write(text)
    for number, line in enumerate(text.splitlines(), 1):
        flags = re.match(r'\\s*\\.(?:push)?section\\s+[^,"]+,\\s*"([^"]*)"', line)
        if flags and set(flags.group(1)) & set(UNKNOWN_FLAGS):
            sys.stderr.write(f"{{path}}: Assembler messages:\\n{{path}}:{{number}}: Fatal error: "
                             "bad .section directive: want a,l,w,x,M,S,G,T in string\\n")
            sys.exit(1)
        note = re.match(r'\\s*\\.(?:push)?section\\s+(\\.note[^,"]*),\\s*"([^"]*)"', line)
        if note and set(note.group(2)) & set(WARNED_FLAGS):
            sys.stderr.write(f"{{path}}: Assembler messages:\\n{{path}}:{{number}}: Warning: "
                             f"setting incorrect section attributes for {{note.group(1)}}\\n")
            warned = True
if warned and "--fatal-warnings" in arguments:
    sys.exit(1)
sys.exit(subprocess.run([{real_as!r}, *arguments], input=None if inputs else texts[0][1], text=True).returncode)
"""

# The section flags GNU as did not know yet, by release: `o` came with 2.35, which warns about it
# on a `.note` section, and 2.36 does not.
BINUTILS_2_34 = {"unknown_flags": "o"}
BINUTILS_2_35 = {"warned_flags": "o"}
# The label of the check's semaphore (cmake/usdtCheckAssembler.cmake), once in each check.
ASSEMBLER_CHECK_LABEL = "usdt_assembler_check_semaphore:"


def run_cmake(*arguments):
    """(exit status, stdout + stderr) of cmake with `arguments`."""
    result = subprocess.run([OPTIONS.cmake, *map(str, arguments)], capture_output=True, text=True, check=False)
    return result.returncode, result.stdout + result.stderr


def toolchain_options():
    """The generator and compiler CTest's build uses, and the interpreter running this test (it has Jinja2)."""
    options = [f"-DUSDT_PYTHON_EXECUTABLE={sys.executable}"]
    if OPTIONS.generator:
        options += ["-G", OPTIONS.generator]
    if OPTIONS.c_compiler:
        options.append(f"-DCMAKE_C_COMPILER={OPTIONS.c_compiler}")
    return options


def setUpModule():
    (config,) = OPTIONS.installed_prefix.rglob("usdtConfig.cmake")
    OPTIONS.usdt_dir = config.parent


class CMakeProjectTestCase(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="usdt-cmake-"))
        self.addCleanup(shutil.rmtree, self.directory)
        self.source = self.directory / "source"
        self.build_directory = self.directory / "build"
        self.header = self.build_directory / "app.usdt" / "probes.h"
        shutil.copytree(PROJECT, self.source)

    def write_provider(self, text):
        (self.source / "probes.d").write_text(text, encoding="utf-8")

    def configure(self, *definitions):
        return run_cmake("-S", self.source, "-B", self.build_directory, *toolchain_options(), *definitions)

    def build(self):
        return run_cmake("--build", self.build_directory, "-j2")

    def assertSucceeded(self, status_and_output):
        status, output = status_and_output
        self.assertEqual(status, 0, output)
        return output

    def assertFailed(self, status_and_output):
        status, output = status_and_output
        self.assertNotEqual(status, 0, output)
        self.assertNotIn("Traceback", output)
        return output


class BuildErrorTest(CMakeProjectTestCase):
    def test_bad_file_fails_fixed_file_builds_then_nothing_regenerates(self):
        self.write_provider(BAD)
        self.assertSucceeded(self.configure(f"-Dusdt_DIR={OPTIONS.usdt_dir}"))

        output = self.assertFailed(self.build())
        self.assertRegex(output, r"(?m)^/\S*/probes\.d:4:16: error: argument type 'float': floating-point")
        self.assertFalse(self.header.exists(), "no generated header after a failure")

        # Nothing changed: the generator runs and fails again, as no output was left behind.
        output = self.assertFailed(self.build())
        self.assertIn("probes.d:4:16: error:", output)

        self.write_provider(GOOD)
        output = self.assertSucceeded(self.build())
        self.assertIn(GENERATING, output)
        self.assertTrue(self.header.is_file())

        output = self.assertSucceeded(self.build())
        self.assertNotIn(GENERATING, output)

        # Breaking the file again removes the outputs the good build wrote.
        self.write_provider(BAD)
        output = self.assertFailed(self.build())
        self.assertIn("probes.d:4:16: error:", output)
        self.assertFalse(self.header.exists(), "a stale header must be removed")

    def test_add_subdirectory_consumer_builds(self):
        # usdt_add_provider is called from the parent project, outside usdt's directory scope.
        self.write_provider(GOOD)
        self.assertSucceeded(self.configure(f"-DUSDT_SOURCE_DIR={OPTIONS.source_dir}"))
        self.assertIn(GENERATING, self.assertSucceeded(self.build()))


class SharedBuildTestCase(CMakeProjectTestCase):
    """The cases of a class configure the same build directory again, each from a fresh copy of
    the project in the same place, with the outputs of usdt_add_provider removed: what a case
    checks comes from the CMakeLists.txt and the module, run afresh on every configure, and from
    the generator's rules, run again for the new copy; the compiler detection and the assembler
    check, cached after the first case, would only repeat what the fresh configures of
    BuildErrorTest, UserDirectoriesTest and AssemblerFloorTest check."""

    @classmethod
    def setUpClass(cls):
        cls.shared_directory = Path(tempfile.mkdtemp(prefix="usdt-cmake-"))
        cls.addClassCleanup(shutil.rmtree, cls.shared_directory)

    def setUp(self):
        self.directory = self.shared_directory
        self.source = self.directory / "source"
        self.build_directory = self.directory / "build"
        self.header = self.build_directory / "app.usdt" / "probes.h"
        shutil.rmtree(self.source, ignore_errors=True)
        shutil.copytree(PROJECT, self.source)
        for outputs in self.build_directory.glob("**/*.usdt"):
            shutil.rmtree(outputs)


class ConfigureErrorTest(SharedBuildTestCase):

    def assertConfigureFails(self, call, expected, *definitions):
        """Configuring with USDT_TEST_CALL=`call` (none if None) and `definitions` fails with a
        message matching regex `expected`."""
        self.write_provider(GOOD)
        definitions += (f"-DUSDT_TEST_CALL={call}",) if call is not None else ("-UUSDT_TEST_CALL",)
        output = self.assertFailed(self.configure(f"-Dusdt_DIR={OPTIONS.usdt_dir}", *definitions))
        # CMake prints `CMake Error at FILE:LINE (message):` then the message, indented and wrapped.
        message = re.search(r"CMake Error at [^\n]*\(message\):\n(.*?)\n\n", output, re.DOTALL)
        self.assertIsNotNone(message, output)
        self.assertRegex(" ".join(message.group(1).split()), expected)
        self.assertEqual(output.count("CMake Error"), 1, output)

    def test_not_a_target(self):
        self.assertConfigureFails(
            "not_a_target", r"^usdt_add_provider: 'not_a_target' is not a target; create it first")

    def test_unknown_keyword(self):
        self.assertConfigureFails(
            "unknown_keyword", r"^usdt_add_provider: 'PRIVATE' is neither a \.d provider file nor a keyword")

    def test_not_a_provider_file(self):
        self.assertConfigureFails(
            "not_a_provider_file",
            r"^usdt_add_provider: 'probes\.txt' is neither a \.d provider file nor a keyword")

    def test_unknown_tracer(self):
        self.assertConfigureFails(
            "unknown_tracer", r"^usdt_add_provider: 'dtrace' after TRACER_SCRIPTS is not a tracer; "
                              r"expected one or more of bpftrace, systemtap, perf\.")

    def test_tracer_scripts_without_tracer(self):
        self.assertConfigureFails(
            "tracer_scripts_without_tracer",
            r"^usdt_add_provider: TRACER_SCRIPTS names no tracer; expected one or more of bpftrace, systemtap, perf\.")

    def test_two_calls_with_files_of_the_same_name(self):
        (self.source / "other").mkdir()
        (self.source / "other" / "probes.d").write_text(GOOD, encoding="utf-8")
        self.assertConfigureFails(
            "same_stem_twice", r"^usdt_add_provider: '/\S+/other/probes\.d' and '/\S+/probes\.d' would both "
                               r"generate 'probes\.h' for 'app'; give each \.d file of a target its own name")

    def test_the_same_file_twice(self):
        self.assertConfigureFails(
            "same_file_twice", r"^usdt_add_provider: '/\S+/probes\.d' is given twice for 'app'; "
                               r"name each \.d file of a target once, in one call\.")

    def test_imported_target(self):
        self.assertConfigureFails(
            "imported", r"^usdt_add_provider: 'imported_tool' is an IMPORTED target, built outside this project; "
                        r"probes can only be added to a target this project compiles")

    def test_alias_target(self):
        self.assertConfigureFails(
            "alias", r"^usdt_add_provider: 'app_alias' is an ALIAS of 'app'; call usdt_add_provider\(app \.\.\.\)\.")

    def test_interface_library(self):
        self.assertConfigureFails(
            "interface", r"^usdt_add_provider: 'headers' is an INTERFACE library, which compiles no code; "
                         r"call usdt_add_provider on the executable or library whose code fires the probes")

    def test_an_option_the_preprocessor_does_not_take(self):
        self.assertConfigureFails(
            "not_a_preprocessor_option",
            r"^usdt_add_provider: '-O2' after PREPROCESSOR_OPTIONS is not a -I, -D or -U option; ")

    def test_a_provider_file_among_the_preprocessor_options(self):
        self.assertConfigureFails(
            "provider_file_after_options",
            r"^usdt_add_provider: 'probes\.d' after PREPROCESSOR_OPTIONS is a provider file, not an option; "
            r"list the \.d files before the keywords\.")

    def test_python_without_jinja2_is_refused_at_find_package(self):
        # /bin/false stands for an interpreter that cannot `import jinja2`.
        self.assertConfigureFails(
            None, r"^usdt: USDT_PYTHON_EXECUTABLE \(/bin/false\) cannot import jinja2\. Install Jinja2",
            "-DUSDT_PYTHON_EXECUTABLE=/bin/false")


class CallTest(SharedBuildTestCase):
    """Calls that must work: preprocessor options on any .d file, calls from another directory."""

    def build_and_run(self, call):
        self.assertSucceeded(self.configure(f"-Dusdt_DIR={OPTIONS.usdt_dir}", f"-DUSDT_TEST_CALL={call}"))
        self.assertIn(GENERATING, self.assertSucceeded(self.build()))
        program = self.build_directory / "app"
        self.assertEqual(subprocess.run([str(program)], check=False).returncode, 0)
        return program

    def test_defines_reach_a_file_without_directives(self):
        # As with `dtrace -C`: -D applies although the file has no `#` of its own.
        self.write_provider(GOOD.replace("int n", "TICK_T n"))
        self.build_and_run("preprocessor_options")

    def test_relative_include_directories_are_the_calling_directory_s(self):
        (self.source / "include").mkdir()
        (self.source / "include" / "ticks.h").write_text("#define TICKS_T uint32_t\n", encoding="utf-8")
        self.write_provider('#include "ticks.h"\n' + GOOD.replace("uint32_t seconds", "TICKS_T seconds"))
        self.build_and_run("preprocessor_options")

    def test_call_from_another_directory_than_the_target_s(self):
        self.write_provider(GOOD)
        (self.source / "other").mkdir()
        (self.source / "other" / "CMakeLists.txt").write_text("usdt_add_provider(app ../probes.d)\n")
        self.build_and_run("from_subdirectory")
        self.assertTrue(self.header.is_file(), "the header is in the target's binary directory")
        # Up to date: the rule does not run again.
        self.assertNotIn(GENERATING, self.assertSucceeded(self.build()))

    def test_library_of_another_directory(self):
        self.write_provider(GOOD)
        (self.source / "other").mkdir()
        (self.source / "other" / "CMakeLists.txt").write_text("add_library(ticks STATIC ticks.c)\n")
        (self.source / "other" / "ticks.c").write_text('#include "probes.h"\n'
                                                       "int ticks(void) { DEMO_TOCK(2u); return 2; }\n")
        self.build_and_run("library_in_subdirectory")
        self.assertTrue((self.build_directory / "other" / "ticks.usdt" / "probes.h").is_file())


# Imported when run by Python, whatever the caller's directories hold: each writes a marker
# file and exits 1.
BOOBY_TRAP = """\
import pathlib, sys
pathlib.Path({marker!r}).write_text(__file__)
sys.exit(1)
"""


class UserDirectoriesTest(CMakeProjectTestCase):
    """The generator imports nothing from the caller's source or build directory or from the .d
    file's, and leaves no __pycache__ behind, in them or in the installed share/usdt."""

    def test_modules_beside_the_project_are_not_imported(self):
        self.write_provider(GOOD)
        marker = self.directory / "imported"
        self.build_directory.mkdir()
        for directory in (self.source, self.build_directory, self.build_directory / "app.usdt"):
            directory.mkdir(exist_ok=True)
            for module in ("argparse", "re", "jinja2", "usdtgen", "tempfile"):
                (directory / f"{module}.py").write_text(BOOBY_TRAP.format(marker=str(marker)))
        # PYTHONPATH naming the source directory too: the generator's interpreter ignores it.
        os.environ["PYTHONPATH"] = str(self.source)
        self.addCleanup(os.environ.pop, "PYTHONPATH")
        install_prefix = OPTIONS.usdt_dir.parents[2]
        installed_caches = sorted(install_prefix.rglob("__pycache__/*"))   # byte-compiled by the install
        self.assertSucceeded(self.configure(f"-Dusdt_DIR={OPTIONS.usdt_dir}"))
        self.assertIn(GENERATING, self.assertSucceeded(self.build()))
        self.assertFalse(marker.exists(), marker.read_text() if marker.exists() else "")
        self.assertTrue(self.header.is_file())
        for tree in (self.source, self.build_directory):
            self.assertEqual(list(tree.rglob("__pycache__")), [], tree)
        self.assertEqual(sorted(install_prefix.rglob("__pycache__/*")), installed_caches)


class AssemblerFloorTest(CMakeProjectTestCase):
    """An assembler without the section flags the probes use stops the configure step with
    one sentence, instead of an assembler error in every file that includes a probe header."""

    def fake_assembler(self, unknown_flags="", warned_flags=""):
        """-B option that makes GCC run an `as` rejecting `unknown_flags` and warning about
        `warned_flags` on notes, as an old GNU as does."""
        directory = self.directory / f"as-without-{unknown_flags or 'nothing'}-warning-{warned_flags or 'nothing'}"
        directory.mkdir()
        script = directory / "as"
        script.write_text(FAKE_ASSEMBLER.format(python=sys.executable, unknown_flags=unknown_flags,
                                                warned_flags=warned_flags, real_as=shutil.which("as")))
        script.chmod(0o755)
        return f"-B{directory}/"

    def assertOneAssemblerError(self, output, compiler_name, language):
        self.assertEqual(output.count("CMake Error"), 1, output)
        self.assertNotIn("Assembler messages", output)
        self.assertNotIn("Fatal error", output)
        # Up to the call stack CMake prints after the message of an error raised in a function.
        message = re.search(r"CMake Error at [^\n]*\(message\):\n(.*?)\n(?:Call Stack|\n)", output, re.DOTALL)
        self.assertIsNotNone(message, output)
        self.assertRegex(
            " ".join(message.group(1).split()),
            rf"^usdt_add_provider: the assembler of the {compiler_name} \S+ rejects the section flag "
            r"`o` \(SHF_LINK_ORDER\) or another directive that USDT probes use; "
            r"use GNU as from binutils 2\.35 or later .* or Clang 11 or later with its integrated assembler "
            rf"\(the assembler's output: \S+assembler-check-{language}\.log\)\.$")

    def configure_with(self, usdt, *definitions):
        self.write_provider(GOOD)
        if usdt == "installed":
            return self.configure(f"-Dusdt_DIR={OPTIONS.usdt_dir}", *definitions)
        return self.configure(f"-DUSDT_SOURCE_DIR={OPTIONS.source_dir}", *definitions)

    def test_binutils_2_34_is_refused_at_configure_time(self):
        flags = self.fake_assembler(**BINUTILS_2_34)
        # Both in the same build directory: a failed check is not cached, so it fails again.
        for usdt in ("installed", "add_subdirectory"):
            with self.subTest(usdt=usdt):
                output = self.assertFailed(self.configure_with(usdt, f"-DCMAKE_C_FLAGS={flags}"))
                self.assertOneAssemblerError(output, "C compiler", "C")

    def test_binutils_2_34_is_refused_in_a_cxx_only_project(self):
        output = self.assertFailed(self.configure_with(
            "installed", "-DUSDT_TEST_LANGUAGE=CXX", f"-DCMAKE_CXX_FLAGS={self.fake_assembler(**BINUTILS_2_34)}"))
        self.assertOneAssemblerError(output, r"C\+\+ compiler", "CXX")

    def test_binutils_2_35_builds_notes_without_the_flag_it_warns_about(self):
        # The real GNU as 2.35 in a Debian 11 root: the suite run there (tests/run-all.sh).
        flags = self.fake_assembler(**BINUTILS_2_35)
        for language, compiler_flags in (("C", "CMAKE_C_FLAGS"), ("CXX", "CMAKE_CXX_FLAGS")):
            with self.subTest(language=language):
                self.assertSucceeded(self.configure_with("installed", f"-DUSDT_TEST_LANGUAGE={language}",
                                                         f"-D{compiler_flags}={flags}"))
                output = self.assertSucceeded(run_cmake("--build", self.build_directory, "--verbose"))
                self.assertIn("-DUSDT_UNLINKED_NOTES", output)
                self.assertNotIn("Warning", output)
                shutil.rmtree(self.build_directory)

    def test_a_good_assembler_is_checked_once_per_compiler_and_flags(self):
        log = self.directory / "assembled.s"
        os.environ["USDT_FAKE_AS_LOG"] = str(log)
        self.addCleanup(os.environ.pop, "USDT_FAKE_AS_LOG")
        flags = self.fake_assembler("")

        def checks():
            return log.read_text().count(ASSEMBLER_CHECK_LABEL) if log.exists() else 0

        self.assertSucceeded(self.configure_with("installed", f"-DCMAKE_C_FLAGS={flags}"))
        # One build, or two where the probes need USDT_UNLINKED_NOTES (binutils 2.35).
        tries = checks()
        self.assertIn(tries, (1, 2))
        self.assertSucceeded(self.configure())
        self.assertEqual(checks(), tries, "an unchanged compiler is not checked again")
        self.assertSucceeded(self.configure(f"-DCMAKE_C_FLAGS={flags} -O1"))
        self.assertEqual(checks(), 2 * tries, "changed flags are checked again")
        self.assertSucceeded(self.build())


def add_options(parser):
    parser.add_argument("--source-dir", required=True, help="the usdt repository")
    parser.add_argument("--installed-prefix", type=Path, required=True,
                        help="where the fixture usdt_installed has installed usdt")
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--generator", default="")
    parser.add_argument("--c-compiler", default="")


if __name__ == "__main__":
    OPTIONS, _ = usdt_testing.parse_options(add_options)
    usdt_testing.main()
