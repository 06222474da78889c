"""Unit tests of usdtgen.preprocess: when a provider file needs the C preprocessor, how its
failures are reported, and the columns of tokens found again in the original lines.
(The command line's preprocessor options and their errors: test_cli.py.)"""

import shutil
import tempfile
import unittest
from pathlib import Path

import usdt_testing
from usdtgen import preprocess
from usdtgen.errors import GeneratorError, PreprocessorFailed, SourceLocation
from usdtgen.lexer import tokenize


class NeedsPreprocessorTest(unittest.TestCase):
    def test_directives_need_it(self):
        for text in ('#include "types.h"\n', "provider p {\n  #define N 1\n", "\t# if X\n#endif\n",
                     "#pragma once\n", "#pragma Dx\n", '# 12 "other.d"\n', "#line 40\n", "#  12\n"):
            with self.subTest(text=text):
                self.assertTrue(preprocess.needs_preprocessor(text))

    def test_what_the_lexer_reads_itself_does_not(self):
        for text in ("provider p { probe x(); };\n", "#pragma D option quiet\nprovider p {};\n",
                     "  # pragma  usdt no_semaphore p:x\n", "#pragma\tD attributes Evolving provider p provider\n",
                     "provider p { probe x(); }; // #include in a comment is not at a line's start\n",
                     # Comments, as systemtap's dtrace reads them (libvirt's provider file).
                     "provider p {\n\t# file: src/util/virobject.c\n\t# prefix: object\n",
                     "provider p { probe x(); }; # include this\n", "#\n", "# 2 probes per request\n",
                     "#includes\n", "#!/usr/sbin/dtrace -s\n"):
            with self.subTest(text=text):
                self.assertFalse(preprocess.needs_preprocessor(text))

    def test_the_pragmas_the_lexer_reads_are_the_pragmas_left_out(self):
        # One recognizer (lexer.provider_pragma): a pragma line needs the preprocessor exactly
        # when the lexer reads it as neither `#pragma usdt` (a pragma token) nor `#pragma D`.
        lines = {"#pragma usdt semaphore p:x": (False, ["semaphore p:x"]), "  # pragma\tusdt": (False, [""]),
                 "#pragma D option quiet": (False, []), "#pragma\tD": (False, []),
                 "#pragma usdtx p:x": (True, []), "#pragma Dx": (True, []), "#pragma once": (True, []),
                 "#pragma GCC poison usdt": (True, [])}
        for line, expected in lines.items():
            with self.subTest(line=line):
                pragmas = [token.text for token in tokenize(line + "\n", "t.d") if token.kind == "pragma"]
                self.assertEqual((preprocess.needs_preprocessor(line + "\n"), pragmas), expected)


class PreprocessTest(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="usdt-preprocess-"))
        self.addCleanup(shutil.rmtree, self.directory)

    def write(self, name, text):
        path = self.directory / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    def require_cc(self):
        if shutil.which("cc") is None:
            self.skipTest("no C compiler driver `cc` to preprocess with")

    def test_macros_and_options_reach_the_text_with_line_markers(self):
        self.require_cc()
        path = self.write("p.d", "#define COUNT_T unsigned\nprovider p {\n  probe x(COUNT_T n, ID_T id);\n};\n")
        text = preprocess.preprocess(path, ["cc"], ["-DID_T=long"])
        self.assertIn("probe x(unsigned n, long id);", text)
        self.assertRegex(text, r'(?m)^# \d+ "' + path.replace(".", r"\.") + '"')

    def test_a_diagnostic_with_a_location_is_passed_through(self):
        self.require_cc()
        path = self.write("p.d", '#include "missing.h"\nprovider p { probe x(); };\n')
        with self.assertRaises(PreprocessorFailed) as caught:
            preprocess.preprocess(path, ["cc"], [])
        self.assertRegex(caught.exception.diagnostics, r"(?m)^\S*p\.d:1:\d+: (fatal )?error: .*missing\.h")
        self.assertNotIn("the C preprocessor failed", caught.exception.diagnostics)

    def test_a_failure_without_a_location_gets_the_files_first_line(self):
        # `false` stands for a preprocessor that fails silently (a crash).
        path = self.write("p.d", "#define X\n")
        with self.assertRaises(PreprocessorFailed) as caught:
            preprocess.preprocess(path, ["false"], [])
        self.assertEqual(caught.exception.diagnostics, f"{path}:1:1: error: the C preprocessor failed on this file\n")

    def test_a_preprocessor_that_cannot_run_is_a_generator_error(self):
        path = self.write("p.d", "#define X\n")
        with self.assertRaises(GeneratorError) as caught:
            preprocess.preprocess(path, ["/nonexistent/cc"], [])
        self.assertEqual(str(caught.exception), f"{path}:1:1: error: cannot run the C preprocessor "
                                                "'/nonexistent/cc': No such file or directory")

    def test_the_compiler_is_a_command_of_several_words(self):
        # `--cc=ccache --cc=gcc`: a launcher before the compiler; here `env` before cc.
        self.require_cc()
        path = self.write("p.d", "#define N int\nprovider p { probe x(N n); };\n")
        self.assertIn("probe x(int n);", preprocess.preprocess(path, ["env", "cc"], []))


class RestoreColumnsTest(unittest.TestCase):
    """restore_columns over the tokens of preprocessed text: each moves back to its column in
    the line its line marker names, where the original line has it."""

    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="usdt-preprocess-"))
        self.addCleanup(shutil.rmtree, self.directory)

    def restored(self, original, preprocessed):
        """(text, "line:col") of each token but the end of `preprocessed`, which names the file
        holding `original` as {path}."""
        path = self.directory / "p.d"
        path.write_text(original, encoding="utf-8")
        tokens = preprocess.restore_columns(tokenize(preprocessed.format(path=path), str(path), preprocessed=True))
        return [(token.text, f"{token.location.line}:{token.location.column}") for token in tokens if token.text]

    def test_collapsed_white_space_is_undone(self):
        original = "provider p {\n    probe   x(int    a);\n};\n"
        preprocessed = '# 1 "{path}"\nprovider p {{\n probe x(int a);\n}};\n'
        self.assertEqual(self.restored(original, preprocessed), [
            ("provider", "1:1"), ("p", "1:10"), ("{", "1:12"),
            ("probe", "2:5"), ("x", "2:13"), ("(", "2:14"), ("int", "2:15"), ("a", "2:22"), (")", "2:23"),
            (";", "2:24"), ("}", "3:1"), (";", "3:2")])

    def test_a_token_a_macro_produced_keeps_the_preprocessors_column(self):
        # `T` expanded to `long`, which line 2 does not hold: its column stays; `n` is found after it.
        original = "provider p {\n  probe x(T n);\n};\n"
        preprocessed = '# 1 "{path}"\nprovider p {{\n probe x(long n);\n}};\n'
        self.assertEqual(self.restored(original, preprocessed)[3:8], [
            ("probe", "2:3"), ("x", "2:9"), ("(", "2:10"), ("long", "2:10"), ("n", "2:13")])

    def test_identifiers_are_found_as_whole_words(self):
        # `a` is searched after `int`: not inside `abc` nor `xa`.
        original = "provider p { probe abc(int xa, int a); };\n"
        preprocessed = '# 1 "{path}"\nprovider p {{ probe abc(int xa,int a); }};\n'
        self.assertEqual([(text, column) for text, column in self.restored(original, preprocessed)
                          if text in ("abc", "xa", "a")], [("abc", "1:20"), ("xa", "1:28"), ("a", "1:36")])

    def test_a_marker_naming_a_device_or_a_missing_file_is_left_alone(self):
        # /dev/zero never ends: it must not be read.
        for name in ("/dev/zero", str(self.directory / "missing.d")):
            with self.subTest(name=name):
                tokens = list(preprocess.restore_columns(tokenize(f'# 3 "{name}"\n  x  y\n', "p.d", preprocessed=True)))
                self.assertEqual([(token.text, token.location) for token in tokens if token.text],
                                 [("x", SourceLocation(name, 3, 3)), ("y", SourceLocation(name, 3, 6))])

    def test_a_line_past_the_files_end_is_left_alone(self):
        original = "provider\n"
        self.assertEqual(self.restored(original, '# 40 "{path}"\n  p\n'), [("p", "40:3")])


if __name__ == "__main__":
    usdt_testing.main()
