"""CLI tests: usdtgen's command line on inline fixture files in a temporary directory.

Success is silent and deterministic; every error is one `file:line:col: error:` line on stderr,
exit status 1, no traceback, and no output file left behind (stale ones included).

Most cases call the command line's main() in this process (tests/support/in_process.py: its
file descriptors 1 and 2, exit status and any traceback observed as a subprocess's). The cases
that depend on a process of their own run `python3 -m usdtgen`: success and an error through
the entry point, and byte-identical output across runs, which needs a new hash seed per run.
"""

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import in_process
import usdt_testing

REPOSITORY = Path(__file__).resolve().parents[2]
if str(REPOSITORY) not in sys.path:
    sys.path.insert(0, str(REPOSITORY))

from usdtgen import cli  # noqa: E402  (importable once REPOSITORY is on the path)

PROVIDERS = """\
provider myapp {
    probe request__start(uint64_t id, const char *path);
    probe done(int status);
};
"""

FLOAT_REASON = ("floating-point arguments are not supported: gdb and libbpf reject the 'f' "
                "argument spec and bpftrace cannot parse it; pass a scaled integer or a pointer "
                "to the value")

# Any compiler diagnostic or generator error line: `file:line:col: [fatal ]error: ...`.
ERROR_LINE = re.compile(r"^[^:\n]+:\d+:\d+: (?:fatal )?error: ", re.MULTILINE)


class CliTestCase(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="usdtgen-cli-"))
        self.addCleanup(shutil.rmtree, self.directory)

    def write(self, name, content):
        path = self.directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    def usdtgen(self, *arguments, cwd=None, command_line=False):
        """usdtgen with `arguments` in `cwd`: main() in this process, or with `command_line`,
        `python3 -m usdtgen`. Either way a CompletedProcess with text stdout and stderr."""
        if command_line:
            # PYTHONPATH is set here, not inherited, so the test also runs outside CTest.
            environment = dict(os.environ, PYTHONPATH=str(REPOSITORY), PYTHONDONTWRITEBYTECODE="1")
            return subprocess.run([sys.executable, "-m", "usdtgen", *map(str, arguments)],
                                  cwd=cwd or self.directory, env=environment,
                                  capture_output=True, text=True, check=False)
        return in_process.run(cli.main, arguments, cwd or self.directory)

    def generate(self, input_name="probes.d", *options, output="out", cwd=None, command_line=False):
        """Runs with --header/--bpftrace under `output`; returns (result, {kind: bytes or None})."""
        header = self.directory / output / "probes.h"
        script = self.directory / output / "probes.bt"
        result = self.usdtgen(input_name, "--header", header, "--bpftrace", script, *options, cwd=cwd,
                              command_line=command_line)
        contents = {kind: path.read_bytes() if path.exists() else None
                    for kind, path in (("header", header), ("bpftrace", script))}
        return result, contents

    def assertSucceeded(self, result, contents):
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))
        self.assertNotIn(None, contents.values())

    def assertFailedWith(self, expected_stderr, input_name="probes.d", *options, command_line=False):
        """Runs over stale outputs; expects exit 1, exactly `expected_stderr` and no outputs left."""
        self.write("out/probes.h", "/* stale */\n")
        self.write("out/probes.bt", "/* stale */\n")
        result, contents = self.generate(input_name, *options, command_line=command_line)
        self.assertEqual(result.stderr, expected_stderr)
        self.assertEqual(len(ERROR_LINE.findall(result.stderr)), 1)
        self.assertNotIn("Traceback", result.stderr)
        self.assertEqual((result.returncode, result.stdout), (1, ""))
        self.assertEqual(contents, {"header": None, "bpftrace": None}, "outputs must be removed")


class SuccessTest(CliTestCase):
    def test_success_prints_nothing_and_writes_both_outputs(self):
        self.write("probes.d", PROVIDERS)
        result, contents = self.generate(output="new/directory", command_line=True)
        self.assertSucceeded(result, contents)
        self.assertIn(b'"myapp", "request__start"', contents["header"])
        self.assertIn(b"_USDT_SEMAPHORE_DEFINE(myapp_done_semaphore);", contents["header"])
        self.assertIn(b"usdt:$1:myapp:done", contents["bpftrace"])

    def test_no_semaphores_option(self):
        self.write("probes.d", "#pragma usdt semaphore myapp:done\n" + PROVIDERS)
        result, contents = self.generate("probes.d", "--no-semaphores")
        self.assertSucceeded(result, contents)
        self.assertIn(b'_USDT_SITE("myapp", "request__start", "0", "0", "i"(0), ', contents["header"])
        self.assertNotIn(b"myapp_request__start_semaphore", contents["header"])
        self.assertIn(b"_USDT_SEMAPHORE_DEFINE(myapp_done_semaphore);", contents["header"])

    def test_header_only(self):
        self.write("probes.d", PROVIDERS)
        result = self.usdtgen("probes.d", "--header", "only.h")
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))
        self.assertEqual(sorted(path.name for path in self.directory.iterdir()), ["only.h", "probes.d"])

    def test_output_is_byte_identical_across_runs(self):
        self.write("probes.d", PROVIDERS)
        first = self.generate(output="first", command_line=True)
        second = self.generate(output="second", command_line=True)
        self.assertSucceeded(*first)
        self.assertEqual(first[1], second[1])

    def test_output_does_not_depend_on_working_directory_or_path_spelling(self):
        probes = self.write("probes.d", PROVIDERS)
        (self.directory / "sub").mkdir()
        runs = [
            self.generate("probes.d", output="a"),
            self.generate(probes, output="b", cwd="/"),
            self.generate("../probes.d", output="c", cwd=self.directory / "sub"),
        ]
        for result, contents in runs:
            self.assertSucceeded(result, contents)
        self.assertEqual(runs[0][1], runs[1][1])
        self.assertEqual(runs[0][1], runs[2][1])

    def test_option_order_does_not_matter(self):
        self.write("probes.d", PROVIDERS)
        _, expected = self.generate(output="a")
        header, script = self.directory / "b/probes.h", self.directory / "b/probes.bt"
        result = self.usdtgen("--bpftrace", script, "--header", header, "probes.d")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual({"header": header.read_bytes(), "bpftrace": script.read_bytes()}, expected)

    def test_banner_names_the_file_without_path_or_timestamp(self):
        probes = self.write("probes.d", PROVIDERS)
        result, contents = self.generate(probes)  # an absolute input path could leak
        self.assertSucceeded(result, contents)
        for kind, text in contents.items():
            with self.subTest(output=kind):
                text = text.decode("utf-8")
                self.assertRegex(text.splitlines()[0], r"^/\* Generated by usdtgen \d+\.\d+\.\d+ from "
                                                       r"probes\.d\. Do not edit: edit probes\.d\. \*/$")
                self.assertNotIn(str(self.directory), text)
                self.assertNotIn(tempfile.gettempdir() + "/", text)
                self.assertNotRegex(text, r"\d{4}-\d\d-\d\d|\d\d:\d\d|\b20\d\d\b")


class TracerScriptTest(CliTestCase):
    """--bpftrace, --systemtap and --perf write the tracer scripts; an error removes them too."""
    SCRIPTS = {"--bpftrace": "probes.bt", "--systemtap": "probes.stp", "--perf": "probes.perf.sh"}

    def generate_scripts(self):
        options = [item for option, name in self.SCRIPTS.items() for item in (option, self.directory / "out" / name)]
        return self.usdtgen("probes.d", *options)

    def test_scripts_alone(self):
        self.write("probes.d", PROVIDERS)
        result = self.generate_scripts()
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))
        out = self.directory / "out"
        self.assertEqual(sorted(path.name for path in out.iterdir()), sorted(self.SCRIPTS.values()))
        self.assertIn("\nusdt:$1:myapp:request__start\n", (out / "probes.bt").read_text())
        self.assertIn('\nprobe process(@1).provider("myapp").mark("done") ?\n', (out / "probes.stp").read_text())
        self.assertIn("\n    add sdt_myapp:done\n", (out / "probes.perf.sh").read_text())
        # Readable as a plain open() would create them, so that another user (root) can run them.
        umask = os.umask(0o022)
        os.umask(umask)
        for path in out.iterdir():
            self.assertEqual(path.stat().st_mode & 0o777, 0o666 & ~umask, path.name)

    def test_error_removes_the_scripts(self):
        self.write("probes.d", PROVIDERS.replace("int status", "float status"))
        for name in self.SCRIPTS.values():
            self.write(f"out/{name}", "stale\n")
        result = self.generate_scripts()
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(list((self.directory / "out").iterdir()), [])


class PreprocessorTest(CliTestCase):
    def test_define_in_the_file(self):
        self.write("probes.d", "#define request_id uint64_t\n"
                               "provider myapp { probe start(request_id id); };\n")
        result, contents = self.generate()
        self.assertSucceeded(result, contents)
        self.assertIn(b'#define _USDT_SPEC_myapp_start _USDT_ARGSPEC(u64, 0)\n', contents["header"])
        self.assertIn(b"((_USDT_ARG(u64, uint64_t, arg0)))", contents["header"])

    def test_include_with_I_option(self):
        self.write("inc/types.h", "#define small_t int8_t\n")
        self.write("probes.d", '#include "types.h"\nprovider p { probe x(small_t v); };\n')
        result, contents = self.generate("probes.d", "-I", "inc")
        self.assertSucceeded(result, contents)
        self.assertIn(b'#define _USDT_SPEC_p_x _USDT_ARGSPEC(i8, 0)\n', contents["header"])
        self.assertIn(b"((_USDT_ARG(i8, int8_t, arg0)))", contents["header"])

    def test_D_option(self):
        self.write("probes.d", "#ifndef ID_TYPE\n#define ID_TYPE int\n#endif\n"
                               "provider p { probe x(ID_TYPE id); };\n")
        _, default = self.generate(output="default")
        result, defined = self.generate("probes.d", "-DID_TYPE=uint16_t", output="defined")
        self.assertSucceeded(result, defined)
        self.assertIn(b'#define _USDT_SPEC_p_x _USDT_ARGSPEC(i32, 0)\n', default["header"])
        self.assertIn(b"((_USDT_ARG(i32, int, arg0)))", default["header"])
        self.assertIn(b'#define _USDT_SPEC_p_x _USDT_ARGSPEC(u16, 0)\n', defined["header"])
        self.assertIn(b"((_USDT_ARG(u16, uint16_t, arg0)))", defined["header"])

    def test_D_and_U_options_reach_a_file_without_directives(self):
        # As with `dtrace -C`: the macros of the command line apply even where the file has no `#`.
        self.write("probes.d", "provider p { probe x(ID_TYPE id); };\n")
        result, defined = self.generate("probes.d", "-DID_TYPE=uint16_t")
        self.assertSucceeded(result, defined)
        self.assertIn(b'#define _USDT_SPEC_p_x _USDT_ARGSPEC(u16, 0)\n', defined["header"])
        self.assertIn(b"((_USDT_ARG(u16, uint16_t, arg0)))", defined["header"])
        result, undefined = self.generate("probes.d", "-DID_TYPE=uint16_t", "-UID_TYPE", output="undefined")
        self.assertIn("unknown type", result.stderr)

    def test_I_option_alone_does_not_run_the_preprocessor(self):
        self.write("probes.d", PROVIDERS)
        self.assertSucceeded(*self.generate("probes.d", "-Iinc", f"--cc={self.directory / 'no-such-compiler'}"))

    def test_pragma_d_alone_does_not_run_the_preprocessor(self):
        self.write("probes.d", "#pragma D option quiet\n" + PROVIDERS)
        self.assertSucceeded(*self.generate("probes.d", f"--cc={self.directory / 'no-such-compiler'}"))

    def test_pragma_usdt_alone_does_not_run_the_preprocessor(self):
        self.write("probes.d", "#pragma usdt no_semaphore myapp:done\n" + PROVIDERS)
        self.assertSucceeded(*self.generate("probes.d", f"--cc={self.directory / 'no-such-compiler'}"))

    def test_pragma_usdt_survives_the_preprocessor(self):
        self.write("probes.d", "#define status_t int\n#pragma usdt no_semaphore p:x\n"
                               "provider p { probe x(status_t s); probe y(); };\n")
        result, contents = self.generate()
        self.assertSucceeded(result, contents)
        self.assertIn(b'_USDT_SITE("p", "x", "0", "0", "i"(0), ', contents["header"])
        self.assertIn(b'_USDT_SITE("p", "y", "p_y_semaphore", "p_y_semaphore", "m"(p_y_semaphore), ', contents["header"])

    def test_error_in_a_pragma_after_the_preprocessor(self):
        self.write("probes.d", "#define status_t int\n#pragma usdt no_semaphore p:z\n"
                               "provider p { probe x(status_t s); };\n")
        self.assertFailedWith("probes.d:2:27: error: '#pragma usdt' names probe 'p:z', "
                              "which this file does not declare\n")

    def test_error_line_after_an_include(self):
        self.write("defs.h", "/* Types\n   of the probes. */\n#define request_id uint64_t\n")
        self.write("probes.d",
                   '#include "defs.h"\n'
                   "\n"
                   "provider myapp {\n"
                   "    probe start(request_id id);\n"
                   "    probe stop(request_id id);\n"
                   "\n"
                   "    probe broken(float x);\n"
                   "};\n")
        self.assertFailedWith(f"probes.d:7:18: error: argument type 'float': {FLOAT_REASON}\n")

    def test_error_inside_an_included_provider_file(self):
        self.write("inc/more.d", "/* included */\nprovider extra {\n    probe bad(long double x);\n};\n")
        self.write("probes.d", 'provider main { probe ok(); };\n#include "inc/more.d"\n')
        self.assertFailedWith(f"inc/more.d:3:15: error: argument type 'long double': {FLOAT_REASON}\n")

    def test_error_column_after_preprocessing(self):
        self.write("probes.d", "#define UNUSED 1\nprovider myapp {\n\tprobe  start(int   a,    double   b);\n};\n")
        self.assertFailedWith(f"probes.d:3:27: error: argument type 'double': {FLOAT_REASON}\n")

    def test_missing_include(self):
        self.write("out/probes.h", "/* stale */\n")
        self.write("probes.d", '#include "missing.h"\nprovider p { probe x(); };\n')
        result, contents = self.generate(command_line=True)
        # The preprocessor's own diagnostic, passed through (gcc and clang word it differently).
        self.assertRegex(result.stderr, r"(?m)^probes\.d:1:10: fatal error: .*missing\.h")
        self.assertEqual(len(ERROR_LINE.findall(result.stderr)), 1)
        self.assertNotIn("Traceback", result.stderr)
        self.assertEqual((result.returncode, result.stdout), (1, ""))
        self.assertEqual(contents, {"header": None, "bpftrace": None})

    def test_preprocessor_error_without_a_line(self):
        # GCC leaves the line out of a diagnostic a `# 0` line marker placed (found by fuzz.generator).
        self.write("probes.d", "provider p {\n# 0\n/* unfinished\n};\n")
        result, contents = self.generate(command_line=True)
        self.assertRegex(result.stderr, r"(?m)^probes\.d:1:1: error: the C preprocessor failed on this file$")
        self.assertNotIn("Traceback", result.stderr)
        self.assertEqual((result.returncode, contents["header"]), (1, None))

    def test_preprocessor_not_found(self):
        self.write("probes.d", "#define T int\nprovider p { probe x(T); };\n")
        self.assertFailedWith("probes.d:1:1: error: cannot run the C preprocessor '/no/such/cc': "
                              "No such file or directory\n", "probes.d", "--cc=/no/such/cc")


class InputErrorTest(CliTestCase):
    def test_lexer_error(self):
        self.write("probes.d", "provider myapp {\n    probe request-start();\n};\n")
        self.assertFailedWith("probes.d:2:18: error: unexpected character '-': names cannot contain "
                              "'-' (DTrace's probe request-start is written request__start)\n")

    def test_unterminated_comment(self):
        self.write("probes.d", PROVIDERS + "\n  /* unfinished\n")
        self.assertFailedWith("probes.d:6:3: error: unterminated comment\n")

    def test_syntax_error(self):
        self.write("probes.d", "provider myapp {\n    probe start(int a)\n    int stop;\n};\n")
        self.assertFailedWith("probes.d:2:23: error: expected ';' after the probe declaration, "
                              "found 'int'\n", command_line=True)

    def test_type_error(self):
        self.write("probes.d", "provider myapp {\n    probe start(struct request r);\n};\n")
        self.assertFailedWith("probes.d:2:17: error: argument type 'struct request': struct arguments "
                              "by value are not supported: no tracer can read them from a stapsdt note; "
                              "pass a pointer ('struct request *')\n")

    def test_semantic_error(self):
        self.write("probes.d", PROVIDERS + "provider myapp { probe other(); };\n")
        self.assertFailedWith("probes.d:5:10: error: duplicate provider 'myapp' (first declared at "
                              "probes.d:1:10)\n")

    def test_empty_file(self):
        self.write("probes.d", "")
        self.assertFailedWith("probes.d:1:1: error: no provider declared; expected "
                              "'provider NAME { probe NAME(TYPE, ...); };'\n")

    def test_error_path_is_spelled_as_given(self):
        self.write("sub/bad.d", "provider p {\n  probe x(double d);\n};\n")
        self.assertFailedWith(f"sub/../sub/bad.d:2:11: error: argument type 'double': {FLOAT_REASON}\n",
                              "sub/../sub/bad.d")

    def test_nonexistent_input(self):
        self.assertFailedWith("missing.d:1:1: error: cannot read: No such file or directory\n", "missing.d")

    def test_directory_as_input(self):
        (self.directory / "dir.d").mkdir()
        self.assertFailedWith("dir.d:1:1: error: cannot read: Is a directory\n", "dir.d")

    def test_non_utf8_input(self):
        self.write("probes.d", b"provider p { probe x(); };\n/* caf\xe9 */\n")
        self.assertFailedWith("probes.d:2:7: error: not UTF-8 text: byte 0xe9\n")

    def test_qualifier_without_type(self):
        self.write("probes.d", "provider p {\n  probe x(const);\n};\n")
        result, contents = self.generate()
        self.assertNotIn("Traceback", result.stderr)
        self.assertRegex(result.stderr, r"\Aprobes\.d:2:11: error: [^\n]*\n\Z")
        self.assertEqual((result.returncode, contents["header"]), (1, None))

    def test_unnamed_const_typedef_is_accepted(self):
        self.write("probes.d", "provider p {\n  probe x(const uint64_t);\n};\n")
        self.assertSucceeded(*self.generate())


class DepfileAndStampTest(CliTestCase):
    """--depfile lists, for the build, the .d file and what it #includes; --stamp is touched on
    every success, so that Make need not run a rule whose header was left unchanged again."""

    def test_depfile_names_the_stamp_and_every_included_file_absolutely(self):
        self.write("my dir/types$.h", "#define ID_T uint64_t\n")
        self.write("probes.d", '#include "my dir/types$.h"\nprovider p { probe x(ID_T id); };\n')
        result = self.usdtgen("probes.d", "--header", "out/probes.h", "--depfile", "out/probes.deps",
                              "--stamp", "out/probes.stamp")
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))
        # Make's escapes: a space as `\ `, a `$` as `$$`. The compiler's own headers
        # (stdc-predef.h) may be listed too.
        directory = str(self.directory).replace(" ", "\\ ")
        lines = (self.directory / "out/probes.deps").read_text().split(" \\\n  ")
        self.assertEqual(lines[:2], [f"{directory}/out/probes.stamp:", f"{directory}/probes.d"])
        self.assertIn(f"{directory}/my\\ dir/types$$.h\n", lines)
        self.assertTrue(all(line.startswith("/") for line in lines), lines)

    def test_depfile_of_a_file_without_directives_names_it_alone(self):
        self.write("probes.d", PROVIDERS)
        self.assertEqual(self.usdtgen("probes.d", "--header", "probes.h", "--depfile", "probes.deps").returncode, 0)
        self.assertEqual((self.directory / "probes.deps").read_text(),
                         f"{self.directory}/probes.h: \\\n  {self.directory}/probes.d\n")

    def test_stamp_is_touched_though_the_header_is_unchanged(self):
        self.write("probes.d", PROVIDERS)
        header, stamp = self.directory / "probes.h", self.directory / "probes.stamp"
        self.assertEqual(self.usdtgen("probes.d", "--header", header, "--stamp", stamp).returncode, 0)
        for path in (header, stamp):
            os.utime(path, (1_000_000, 1_000_000))
        self.assertEqual(self.usdtgen("probes.d", "--header", header, "--stamp", stamp).returncode, 0)
        self.assertEqual(header.stat().st_mtime, 1_000_000, "an unchanged header keeps its time")
        self.assertGreater(stamp.stat().st_mtime, 1_000_000)

    def test_an_output_that_cannot_be_written(self):
        self.write("probes.d", PROVIDERS)
        self.write("file", "not a directory\n")
        result = self.usdtgen("probes.d", "--header", "file/probes.h")
        self.assertEqual(result.returncode, 1)
        self.assertRegex(result.stderr, r"^usdtgen: error: cannot write file/probes\.h: [^\n]+\n$")

    def test_check_unique_files_and_their_options(self):
        # usdt_add_provider's rule per target: every file of the target, each with its options.
        self.write("probes.d", PROVIDERS)
        self.write("other.d", "provider myapp { probe done(STATUS status); };\n")
        result = self.usdtgen("--check-unique", "other.d", "--check-unique-option=-DSTATUS=int",
                              "--check-unique", "probes.d", "--stamp", "unique.check")
        self.assertEqual((result.returncode, result.stdout), (1, ""))
        self.assertEqual(result.stderr, "probes.d:3:11: error: probe 'myapp:done' is declared in two provider "
                                        "files of the same target; declare it in one of them\n"
                                        "other.d:1:24: note: probe 'myapp:done' is also declared here\n")
        self.assertFalse((self.directory / "unique.check").exists())
        self.write("other.d", "provider myapp { probe started(STATUS status); };\n")
        result = self.usdtgen("--check-unique", "other.d", "--check-unique-option=-DSTATUS=int",
                              "--check-unique", "probes.d", "--stamp", "unique.check")
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", ""))
        self.assertTrue((self.directory / "unique.check").is_file())

    def test_check_unique_usage_errors(self):
        for arguments, message in (
                (("--check-unique-option=-DSTATUS=int", "--check-unique", "other.d"),
                 "--check-unique-option must follow the --check-unique file it is for"),
                (("--check-unique", "other.d", "probes.d"), "--check-unique generates nothing"),
                (("--check-unique", "other.d", "--header", "probes.h"), "--check-unique generates nothing"),
                (("--check-unique", "other.d", "-DSTATUS=int"), "--check-unique generates nothing"),
                (("--header", "probes.h"), "the following arguments are required: input")):
            with self.subTest(arguments=arguments):
                result = self.usdtgen(*arguments)
                self.assertEqual(result.returncode, 2)
                self.assertIn(f"usdtgen: error: {message}", result.stderr)

    def test_an_error_removes_the_depfile_too(self):
        self.write("probes.d", PROVIDERS.replace("int status", "float status"))
        self.write("probes.deps", "stale\n")
        result = self.usdtgen("probes.d", "--header", "probes.h", "--depfile", "probes.deps")
        self.assertEqual(result.returncode, 1)
        self.assertFalse((self.directory / "probes.deps").exists())

    def test_an_error_leaves_outputs_that_are_not_regular_files(self):
        # As usdt-dtrace (files.remove_stale): a FIFO, /dev/null and a link the user made stay;
        # /dev/null through a link here, never the machine's own, which as root the command
        # removed. (Its own regular files go: assertFailedWith's stale outputs.)
        self.write("probes.d", PROVIDERS.replace("int status", "float status"))
        fifo = self.directory / "fifo"
        os.mkfifo(fifo)
        (self.directory / "null").symlink_to("/dev/null")
        self.write("target.h", "the user's\n")
        (self.directory / "link.bt").symlink_to("target.h")
        result = self.usdtgen("probes.d", "--header", "fifo", "--bpftrace", "link.bt", "--perf", "null",
                              "--depfile", "null")
        self.assertEqual((result.returncode, result.stdout), (1, ""))
        self.assertRegex(result.stderr, r"^probes\.d:3:16: error: argument type 'float'")
        self.assertTrue(stat.S_ISFIFO(fifo.lstat().st_mode))
        self.assertTrue((self.directory / "null").is_symlink())
        self.assertEqual((self.directory / "link.bt").read_text(), "the user's\n")


if __name__ == "__main__":
    usdt_testing.main()
