"""cmake/usdtCheckAssembler.cmake through usdt_add_provider: a compiler whose assembler is
older than the probes need (a fake GNU as 2.34, found first through -B) must fail the
configure step with one error and none of the assembler's; one that warns about the notes'
section flag (a fake GNU as 2.35) builds them without it, and without a warning; a good
assembler is checked once per compiler and flags. (add_provider_support.py: the project, its
options and how CMake is run.)
"""

import os
import re
import shutil
import sys

import usdt_testing
from add_provider_support import GOOD, OPTIONS, CMakeProjectTestCase, parse_options, run_cmake

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


if __name__ == "__main__":
    parse_options()
    usdt_testing.main()
