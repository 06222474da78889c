"""usdt-dtrace's command line: systemtap's dtrace invocations, run from the build tree.

Each form a Makefile uses works and prints nothing; options that do not apply are accepted
and ignored; usage errors are one `usdt-dtrace: error:` line and the usage, exit 2;
provider-file and compiler errors exit 1; never a traceback, and a failed run leaves no
output file behind, neither a partial one nor a stale one from an earlier run.

Cases about what usdt-dtrace makes of its arguments and environment call usdtgen.dtrace.main()
in this process (tests/support/in_process.py); the cases marked `command=True` run the
command as a Makefile does, through its launcher: a header, an object and an error through
it, --help and --version, reproducible outputs across processes, and the launcher's own
check for Jinja2.
"""

import os
import re
import stat
import subprocess
import unittest

import dtrace_support as support
from dtrace_support import files_in, usdt_dtrace
import elf_notes
import in_process
import usdt_testing
from usdtgen import VERSION, cli, dtrace

PROVIDERS = """\
provider myapp {
    probe request__start(uint64_t id, const char *path);
    probe done(int status);
};
"""

# Needs the preprocessor: an #include found through -I, a type from -D, a probe under #if.
PREPROCESSED = """\
#include "types.h"
provider myapp {
    probe request__start(request_id_t id, const char *path);
#if defined(WITH_DONE) && !defined(WITHOUT_DONE)
    probe done(STATUS_TYPE status);
#endif
};
"""

USAGE_LINE = "usage: usdt-dtrace (-h | -G) -s FILE.d [-o FILE]"
# A generator or compiler diagnostic: `file:line:col: [fatal ]error: ...`.
ERROR_LINE = re.compile(r"^[^:\n]+:\d+:\d+: (?:fatal )?error: ", re.MULTILINE)


class CommandLineTestCase(unittest.TestCase):
    def setUp(self):
        self.directory = support.work_directory(self.id().rpartition(".")[2])
        (self.directory / "probes.d").write_text(PROVIDERS)

    def usdt_dtrace(self, *arguments, environment=None, cwd=None, command=False):
        """usdt-dtrace `arguments`: main() in this process, or with `command`, the command itself."""
        if command:
            return usdt_dtrace(arguments, cwd or self.directory, environment=environment)
        return in_process.run(dtrace.main, arguments, cwd or self.directory, environment)

    def assert_succeeds(self, result):
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))

    def assert_fails(self, result, status, message):
        """Exit `status`, `message` on stderr, nothing on stdout, no traceback."""
        self.assertEqual(result.returncode, status, result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertIn(message, result.stderr)
        self.assertNotIn("Traceback", result.stderr)

    def generator_header(self, provider_file="probes.d", *options):
        """The header usdtgen's command line writes for the same file."""
        header = self.directory / "usdtgen" / "probes.h"
        result = in_process.run(cli.main, [provider_file, "--header", header, *options], self.directory)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        return header.read_bytes()


class InvocationTest(CommandLineTestCase):
    def test_header_is_the_generators_and_named_after_the_provider_file_by_default(self):
        (self.directory / "src").mkdir()
        (self.directory / "probes.d").rename(self.directory / "src" / "probes.d")
        self.assert_succeeds(self.usdt_dtrace("-h", "-s", "src/probes.d", command=True))
        self.assertEqual((self.directory / "probes.h").read_bytes(), self.generator_header("src/probes.d"))
        self.assertEqual(files_in(self.directory), ["probes.h", "src/probes.d", "usdtgen/probes.h"])

    def test_object_defines_the_semaphores_and_stapsdt_base_and_is_named_after_the_provider_file(self):
        self.assert_succeeds(self.usdt_dtrace("-G", "-s", "probes.d", command=True))
        self.assertEqual(files_in(self.directory), ["probes.d", "probes.o"])
        symbols = dict(elf_notes.symbols(str(self.directory / "probes.o")))
        self.assertIn("myapp_request__start_semaphore", symbols)
        self.assertIn("myapp_done_semaphore", symbols)
        self.assertIn("_.stapsdt.base", symbols)
        sections = support.run(["readelf", "--wide", "--section-groups", "--sections", self.directory / "probes.o"]).stdout
        # Semaphores where the kernel finds them; the base in the COMDAT group sys/sdt.h uses.
        self.assertRegex(sections, r"\] \.probes\s+PROGBITS")
        self.assertRegex(sections, r"COMDAT group section \[\s*\d+\] `\.group' \[\.stapsdt\.base\] contains 1 sections")

    def test_output_option_names_the_file_exactly_and_creates_its_directory(self):
        self.assert_succeeds(self.usdt_dtrace("-h", "-s", "probes.d", "-o", "generated/probes.h.tmp"))
        self.assert_succeeds(self.usdt_dtrace("-o", "objects/probes", "-G", "-s", "probes.d"))
        self.assertEqual(files_in(self.directory), ["generated/probes.h.tmp", "objects/probes", "probes.d"])
        self.assertEqual((self.directory / "generated/probes.h.tmp").read_bytes(), self.generator_header())

    def test_outputs_are_readable_as_any_new_file(self):
        self.assert_succeeds(self.usdt_dtrace("-h", "-s", "probes.d"))
        self.assert_succeeds(self.usdt_dtrace("-G", "-s", "probes.d"))
        umask = os.umask(0o022)
        os.umask(umask)
        for name in ("probes.h", "probes.o"):
            self.assertEqual((self.directory / name).stat().st_mode & 0o777, 0o666 & ~umask, name)

    def test_object_files_after_the_options_are_ignored(self):
        # PostgreSQL: $(DTRACE) $(DTRACEFLAGS) -C -G -s probes.d <every object of the backend>.
        self.assert_succeeds(self.usdt_dtrace("-C", "-G", "-s", "probes.d", "-o", "probes.o", "a.o", "sub/b.o"))
        self.assertEqual(files_in(self.directory), ["probes.d", "probes.o"])

    def test_ignored_options_change_nothing(self):
        ignored = ["-x", "nolibs", "-xnolibs", "-64", "-32", "-fpic", "-fPIC", "-k", "-q", "--types",
                   "--no-pyparsing"]
        self.assert_succeeds(self.usdt_dtrace("-h", *ignored, "-s", "probes.d"))
        self.assert_succeeds(self.usdt_dtrace(*ignored, "-G", "-s", "probes.d"))
        self.assert_succeeds(self.usdt_dtrace("-G", "-s", "probes.d", "-o", "plain.o"))
        self.assertEqual((self.directory / "probes.h").read_bytes(), self.generator_header())
        self.assertEqual((self.directory / "probes.o").read_bytes(), (self.directory / "plain.o").read_bytes())

    def test_outputs_are_reproducible(self):
        for run in ("first", "second"):
            self.assert_succeeds(self.usdt_dtrace("-h", "-s", "probes.d", "-o", f"{run}/probes.h", command=True))
            # With debug information too, which would name a temporary source file.
            self.assert_succeeds(self.usdt_dtrace("-G", "-s", "probes.d", "-o", f"{run}/probes.o",
                                                  environment={"CFLAGS": "-g"}, command=True))
        for name in ("probes.h", "probes.o"):
            self.assertEqual((self.directory / "first" / name).read_bytes(),
                             (self.directory / "second" / name).read_bytes(), name)

    def test_help_and_version(self):
        result = self.usdt_dtrace("--help", command=True)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertTrue(result.stdout.startswith(USAGE_LINE), result.stdout)
        result = self.usdt_dtrace("--version", command=True)
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, f"usdt-dtrace (usdt) {VERSION}\n", ""))


class PreprocessorTest(CommandLineTestCase):
    def setUp(self):
        super().setUp()
        (self.directory / "probes.d").write_text(PREPROCESSED)
        (self.directory / "include").mkdir()
        (self.directory / "include" / "types.h").write_text("#define request_id_t uint64_t\n")

    def test_joined_and_split_options(self):
        for name, options in (("joined", ["-Iinclude", "-DWITH_DONE", "-DSTATUS_TYPE=int", "-UWITHOUT_DONE"]),
                              ("split", ["-I", "include", "-D", "WITH_DONE", "-D", "STATUS_TYPE=int",
                                         "-U", "WITHOUT_DONE"])):
            self.assert_succeeds(self.usdt_dtrace("-C", *options, "-h", "-s", "probes.d", "-o", f"{name}.h"))
            self.assert_succeeds(self.usdt_dtrace("-C", *options, "-G", "-s", "probes.d", "-o", f"{name}.o"))
            header = (self.directory / f"{name}.h").read_text()
            self.assertIn("#define MYAPP_DONE(arg0)", header)
            self.assertIn("_USDT_ARG(i32, int, arg0)", header)
            self.assertIn("myapp_done_semaphore", dict(elf_notes.symbols(str(self.directory / f"{name}.o"))))

    def test_without_dash_C_a_hash_starts_a_comment_and_directives_are_comments_too(self):
        # As systemtap's dtrace reads the file: libvirt's `# file:` lines, a trailing `# note`,
        # and the directives, so that `#include` includes nothing and `#if` keeps its probe.
        (self.directory / "probes.d").write_text(
            "provider myapp {\n\t# file: src/util/virobject.c\n\t# prefix: object\n"
            "\tprobe done(int status); # note\n#if 0\n\tprobe removed();\n#endif\n};\n")
        self.assert_succeeds(self.usdt_dtrace("-h", "-s", "probes.d", "-Iinclude"))
        header = (self.directory / "probes.h").read_text()
        self.assertIn("#define MYAPP_DONE(arg0)", header)
        self.assertIn("#define MYAPP_REMOVED()", header)
        result = self.usdt_dtrace("-h", "-s", "probes.d", "-o", "cpp.h", "-C")
        # As with systemtap's dtrace -C (the column is the compiler's: GCC counts a tab as 8).
        self.assert_fails(result, 1, "invalid preprocessing directive #file")
        self.assertTrue(result.stderr.startswith("probes.d:2:"), result.stderr)
        (self.directory / "probes.d").write_text(PREPROCESSED)
        result = self.usdt_dtrace("-h", "-s", "probes.d", "-Iinclude", "-DWITH_DONE", "-DSTATUS_TYPE=int")
        self.assert_fails(result, 1, "probes.d:3:26: error: argument type 'request_id_t': unknown type")

    def test_dash_C_preprocesses_a_file_without_directives(self):
        (self.directory / "probes.d").write_text("provider myapp { probe done(STATUS_TYPE status); };\n")
        self.assert_succeeds(self.usdt_dtrace("-C", "-DSTATUS_TYPE=short", "-h", "-s", "probes.d"))
        self.assertIn("_USDT_ARG(i16, short, arg0)", (self.directory / "probes.h").read_text())
        # Without -C, as with systemtap's dtrace, -D does not reach a file without directives.
        result = self.usdt_dtrace("-DSTATUS_TYPE=short", "-h", "-s", "probes.d")
        self.assert_fails(result, 1, "probes.d:1:29: error: argument type 'STATUS_TYPE'")
        self.assertEqual(files_in(self.directory), ["include/types.h", "probes.d"])

    def test_preprocessor_errors_pass_through(self):
        result = self.usdt_dtrace("-C", "-h", "-s", "probes.d")   # no -Iinclude
        self.assert_fails(result, 1, "probes.d:1:10: fatal error: types.h: No such file or directory")
        self.assertEqual(files_in(self.directory), ["include/types.h", "probes.d"])


class UsageErrorTest(CommandLineTestCase):
    CASES = {
        "no arguments": ([], "give -h to generate a header or -G to build an object"),
        "no mode": (["-s", "probes.d"], "give -h to generate a header or -G to build an object"),
        "no provider file": (["-h"], "no provider file: give -s FILE.d"),
        "both modes": (["-h", "-G", "-s", "probes.d"], "-h and -G cannot be combined; run usdt-dtrace once for each"),
        "unknown option": (["-h", "-s", "probes.d", "-Z"], "unknown option '-Z'"),
        "unknown long option": (["-G", "--header", "-s", "probes.d"], "unknown option '--header'"),
        "-s without its file": (["-h", "-s"], "option -s needs an argument"),
        "-o without its file": (["-h", "-s", "probes.d", "-o"], "option -o needs an argument"),
        "-I without its directory": (["-h", "-s", "probes.d", "-I"], "option -I needs an argument"),
        "-x without its argument": (["-h", "-s", "probes.d", "-x"], "option -x needs an argument"),
        "two provider files": (["-h", "-s", "probes.d", "-s", "other.d"], "-s given twice"),
    }

    def test_each_prints_the_error_and_the_usage_and_writes_nothing(self):
        for case, (arguments, message) in self.CASES.items():
            with self.subTest(case):
                result = self.usdt_dtrace(*arguments)
                self.assert_fails(result, 2, f"usdt-dtrace: error: {message}\n{USAGE_LINE}")
                self.assertEqual(len(result.stderr.splitlines()), 2, result.stderr)
                self.assertEqual(files_in(self.directory), ["probes.d"])


class FailureTest(CommandLineTestCase):
    def test_provider_file_errors_remove_the_output(self):
        (self.directory / "probes.d").write_text("provider myapp {\n    probe done(float seconds);\n};\n")
        for mode, output in (("-h", "probes.h"), ("-G", "probes.o")):
            with self.subTest(mode):
                (self.directory / output).write_text("stale, from an earlier run\n")
                result = self.usdt_dtrace(mode, "-s", "probes.d", command=True)
                self.assert_fails(result, 1, "probes.d:2:16: error: argument type 'float'")
                self.assertEqual(len(ERROR_LINE.findall(result.stderr)), 1, result.stderr)
                self.assertEqual(files_in(self.directory), ["probes.d"])

    def test_a_missing_provider_file(self):
        result = self.usdt_dtrace("-h", "-s", "missing.d")
        self.assert_fails(result, 1, "missing.d:1:1: error: cannot read: No such file or directory")
        self.assertEqual(files_in(self.directory), ["probes.d"])

    def test_a_failing_compiler_removes_the_object(self):
        (self.directory / "probes.o").write_text("stale, from an earlier run\n")
        result = self.usdt_dtrace("-G", "-s", "probes.d", environment={"CC": "false"})
        self.assert_fails(result, 1, "usdt-dtrace: error: 'false' failed to compile the semaphores for probes.o")
        self.assertEqual(files_in(self.directory), ["probes.d"])

    def test_flags_the_compiler_rejects(self):
        result = self.usdt_dtrace("-G", "-s", "probes.d", environment={"CFLAGS": "-fno-such-option-at-all"})
        self.assert_fails(result, 1, "usdt-dtrace: error: ")
        self.assertEqual(files_in(self.directory), ["probes.d"])

    def test_a_missing_compiler(self):
        result = self.usdt_dtrace("-G", "-s", "probes.d", environment={"CC": "no-such-compiler-here"})
        self.assert_fails(result, 1, "usdt-dtrace: error: cannot run the C compiler 'no-such-compiler-here': ")
        self.assertEqual(files_in(self.directory), ["probes.d"])

    def test_an_output_that_cannot_be_written(self):
        (self.directory / "a-directory").mkdir()
        for mode in ("-h", "-G"):
            for output in ("probes.d/inside", "a-directory"):
                with self.subTest(mode=mode, output=output):
                    result = self.usdt_dtrace(mode, "-s", "probes.d", "-o", output)
                    self.assert_fails(result, 1, "usdt-dtrace: error: ")
                    self.assertEqual(files_in(self.directory), ["probes.d"])
                    self.assertTrue((self.directory / "a-directory").is_dir())

    def test_outputs_that_are_not_regular_files_are_written_in_place_and_left(self):
        # `-o /dev/stdout` piped into sed, `-o /dev/null`: written as systemtap's dtrace writes
        # them, never read first (a pipe's /dev/stdout read back waited forever), replaced or
        # removed (as root, /dev/null became a regular file, or went on an error). Through
        # links and a FIFO in the work directory: never the machine's own /dev, as root.
        stdout = self.directory / "stdout"
        stdout.symlink_to("/proc/self/fd/1")
        result = subprocess.run([str(support.OPTIONS.command), "-h", "-s", "probes.d", "-o", stdout.name],
                                cwd=self.directory, capture_output=True, timeout=120, check=False)
        self.assertEqual((result.returncode, result.stderr), (0, b""))
        self.assertEqual(result.stdout, self.generator_header())
        self.assertTrue(stdout.is_symlink())
        fifo = self.directory / "fifo"
        os.mkfifo(fifo)
        (self.directory / "probes.d").write_text("provider myapp {\n    probe done(float seconds);\n};\n")
        for mode in ("-h", "-G"):
            with self.subTest(mode):
                result = self.usdt_dtrace(mode, "-s", "probes.d", "-o", fifo.name, command=True)
                self.assert_fails(result, 1, "probes.d:2:16: error: argument type 'float'")
                self.assertTrue(stat.S_ISFIFO(fifo.lstat().st_mode))

    def test_a_python_without_jinja2(self):
        # What a python3 on PATH without Jinja2 gives: a clear error, not a traceback.
        fake = self.directory / "fake-modules"
        fake.mkdir()
        (fake / "jinja2.py").write_text('raise ModuleNotFoundError("No module named \'jinja2\'", name="jinja2")\n')
        result = self.usdt_dtrace("-h", "-s", "probes.d", environment={"PYTHONPATH": str(fake)}, command=True)
        self.assert_fails(result, 1, "cannot import jinja2 (Debian/Ubuntu: apt-get install python3-jinja2)")
        self.assertEqual(files_in(self.directory), ["fake-modules/jinja2.py", "probes.d"])


class EnvironmentTest(CommandLineTestCase):
    def test_object_builds_under_the_strictest_cflags(self):
        # The header compiled on its own has unused macros and helpers: not the user's warnings.
        for compiler, flags in (("clang", "-Weverything -Werror"), ("gcc", "-Wall -Wextra -Wunused-macros -Werror")):
            with self.subTest(compiler=compiler):
                self.assert_succeeds(self.usdt_dtrace("-G", "-s", "probes.d", "-o", f"{compiler}.o",
                                                      environment={"CC": compiler, "CFLAGS": flags}))

    def test_cc_with_arguments_and_cflags_with_line_continuations(self):
        # Make's `CFLAGS = -g \<newline> -O2` reaches the environment with the backslash-newline.
        # clang -frecord-command-line keeps the compile's options in the object.
        result = self.usdt_dtrace("-G", "-s", "probes.d", environment={
            "CC": "clang -frecord-command-line", "CFLAGS": "-O2 \\\n -ffunction-sections"})
        self.assert_succeeds(result)
        recorded = support.run(["readelf", "-p", ".GCC.command.line", self.directory / "probes.o"]).stdout
        self.assertRegex(recorded, r"clang.* -O2 -ffunction-sections ")
        comment = support.run(["readelf", "-p", ".comment", self.directory / "probes.o"]).stdout
        self.assertIn("clang version", comment)


if __name__ == "__main__":
    support.parse_arguments()
    usdt_testing.main()
