"""Unit tests of usdtgen.dtrace (`usdt-dtrace`): systemtap's dtrace command line read into an
Invocation, the compiler words and flags it takes from $CC and $CFLAGS, and main() through the
pipeline: the header written, the no-provider warning, errors reported with no output left.
tests/dropin/dtrace_cli runs the installed command on real builds."""

import contextlib
import io
import tempfile
import unittest
from pathlib import Path

import usdt_testing
from usdtgen import dtrace, pipeline
from usdtgen.dtrace import UsageError, parse_command_line


def invocation(*argv, **environment):
    return parse_command_line(list(argv), environment)


class CommandLineTest(unittest.TestCase):
    def assertUsageError(self, message, *argv, **environment):
        with self.assertRaises(UsageError) as caught:
            invocation(*argv, **environment)
        self.assertEqual(str(caught.exception), message)

    def test_header_and_object(self):
        header = invocation("-h", "-s", "probes.d", "-o", "out/probes.h")
        self.assertEqual((header.mode, header.provider_file, header.output_path), ("header", "probes.d",
                                                                                  Path("out/probes.h")))
        self.assertEqual(invocation("-G", "-s", "dir/probes.d").output_path, Path("probes.o"))
        self.assertEqual(invocation("-s", "dir/app.probes.d", "-h").output_path, Path("app.probes.h"))

    def test_preprocessor_options_joined_or_split(self):
        parsed = invocation("-C", "-I", "inc", "-Dx=1", "-U", "y", "-h", "-s", "p.d")
        self.assertTrue(parsed.always_preprocess)
        self.assertEqual(parsed.cpp_options, ["-Iinc", "-Dx=1", "-Uy"])

    def test_options_that_mean_nothing_here_and_object_files(self):
        parsed = invocation("-G", "-k", "-64", "-fPIC", "-x", "nolibs", "-xnolibs", "--types", "-s", "p.d", "a.o", "b.o")
        self.assertEqual((parsed.mode, parsed.provider_file, parsed.cpp_options), ("object", "p.d", []))

    def test_help_and_version_win(self):
        self.assertEqual(invocation("-h", "--help").action, "help")
        self.assertEqual(invocation("--version", "--bogus").action, "version")

    def test_usage_errors(self):
        self.assertUsageError("-h and -G cannot be combined; run usdt-dtrace once for each", "-h", "-G", "-s", "p.d")
        self.assertUsageError("-s given twice", "-h", "-s", "p.d", "-s", "q.d")
        self.assertUsageError("option -o needs an argument", "-h", "-s", "p.d", "-o")
        self.assertUsageError("unknown option '-Z'", "-h", "-Z")
        self.assertUsageError("give -h to generate a header or -G to build an object", "-s", "p.d")
        self.assertUsageError("no provider file: give -s FILE.d", "-h")
        self.assertUsageError("$CFLAGS is not a valid command line: No closing quotation", "-h", "-s", "p.d",
                              CFLAGS="-DX='1")

    def test_the_compiler_and_the_flags_the_preprocessor_shares(self):
        parsed = invocation("-I", "inc", "-h", "-s", "p.d", CC="ccache gcc",
                            CFLAGS="-O2 --sysroot /sys -m32 -Wall -Iflags -DA=1 -isystem sys -Xassembler -mfoo \\\n -g")
        self.assertEqual(parsed.compiler, ["ccache", "gcc"])
        self.assertEqual(parsed.preprocessor, ["ccache", "gcc", "--sysroot", "/sys", "-m32"])
        self.assertEqual(parsed.preprocessor_options, ["-Iinc", "-Iflags", "-DA=1", "-isystem", "sys"])
        self.assertEqual(invocation("-h", "-s", "p.d").compiler, ["cc"])


class MainTest(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix="test_dtrace.")
        self.addCleanup(scratch.cleanup)
        self.directory = Path(scratch.name)

    def run_main(self, *argv):
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            status = dtrace.main(list(argv))
        return status, stdout.getvalue(), stderr.getvalue()

    def test_the_header_is_the_pipelines(self):
        provider_file = self.directory / "probes.d"
        provider_file.write_text("provider app { probe tick(int n); };\n")
        output = self.directory / "probes.h"
        self.assertEqual(self.run_main("-h", "-s", str(provider_file), "-o", str(output)), (0, "", ""))
        self.assertEqual(output.read_text(), pipeline.generate(str(provider_file), kinds=("header",)).outputs["header"])

    def test_a_file_without_providers_gets_a_warning_and_a_header(self):
        provider_file = self.directory / "conftest.d"
        provider_file.write_text("BEGIN{}\n")
        output = self.directory / "conftest.h"
        status, stdout, stderr = self.run_main("-h", "-s", str(provider_file), "-o", str(output))
        self.assertEqual((status, stdout), (0, ""))
        self.assertEqual(stderr, f"{provider_file}:1:1: warning: no provider declared; the header defines no probes\n")
        self.assertTrue(output.exists())

    def test_an_error_is_reported_and_leaves_no_output(self):
        provider_file = self.directory / "probes.d"
        provider_file.write_text("provider app {\n  probe x(float f);\n};\n")
        output = self.directory / "probes.h"
        output.write_text("/* stale */\n")
        status, stdout, stderr = self.run_main("-h", "-s", str(provider_file), "-o", str(output))
        self.assertEqual((status, stdout), (1, ""))
        self.assertTrue(stderr.startswith(f"{provider_file}:2:11: error: argument type 'float': "), stderr)
        self.assertFalse(output.exists())

    def test_usage_errors_exit_2_with_the_usage_line(self):
        self.assertEqual(self.run_main("-h"), (2, "", f"usdt-dtrace: error: no provider file: give -s FILE.d\n"
                                                      f"{dtrace.USAGE}\n"))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
