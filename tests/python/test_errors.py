"""Unit tests of usdtgen.errors: source locations, the generator's errors, and report(), the one
way usdtgen, usdt-dtrace and usdt write them."""

import io
import unittest

import usdt_testing
from usdtgen import errors
from usdtgen.errors import GeneratorError, PreprocessorFailed, SourceLocation


class LocationTest(unittest.TestCase):
    def test_file_line_column(self):
        self.assertEqual(str(SourceLocation("probes.d", 3, 14)), "probes.d:3:14")

    def test_a_path_with_unprintable_characters_stays_on_one_line(self):
        self.assertEqual(str(SourceLocation("a\nb\x1b[31m.d", 1, 2)), "a\\nb\\x1b[31m.d:1:2")
        self.assertEqual(errors.printable("é ok"), "é ok")
        self.assertEqual(errors.printable("tab\there"), "tab\\there")

    def test_locations_compare_by_value_and_are_frozen(self):
        self.assertEqual(SourceLocation("a.d", 1, 2), SourceLocation("a.d", 1, 2))
        self.assertNotEqual(SourceLocation("a.d", 1, 2), SourceLocation("a.d", 2, 1))
        with self.assertRaises(AttributeError):
            SourceLocation("a.d", 1, 2).line = 3


class ReportTest(unittest.TestCase):
    def reported(self, failure) -> str:
        stream = io.StringIO()
        errors.report(failure, stream)
        return stream.getvalue()

    def test_a_generator_error_is_one_compiler_style_line(self):
        error = GeneratorError(SourceLocation("p.d", 2, 5), "duplicate probe 'x'")
        self.assertEqual((error.location, error.message), (SourceLocation("p.d", 2, 5), "duplicate probe 'x'"))
        self.assertEqual(self.reported(error), "p.d:2:5: error: duplicate probe 'x'\n")

    def test_each_note_follows_on_a_line_of_its_own(self):
        error = GeneratorError(SourceLocation("b.d", 3, 11), "probe 'p:x' is declared twice",
                               [(SourceLocation("a.d", 1, 20), "also here"), (SourceLocation("c.d", 2, 1), "and here")])
        self.assertEqual(str(error), "b.d:3:11: error: probe 'p:x' is declared twice")
        self.assertEqual(self.reported(error), "b.d:3:11: error: probe 'p:x' is declared twice\n"
                                               "a.d:1:20: note: also here\nc.d:2:1: note: and here\n")

    def test_the_preprocessors_diagnostics_as_it_wrote_them(self):
        diagnostics = "p.d:1:10: fatal error: x.h: No such file or directory\ncompilation terminated.\n"
        self.assertEqual(self.reported(PreprocessorFailed(diagnostics)), diagnostics)

    def test_every_failure_an_entry_point_catches(self):
        self.assertEqual(set(errors.FAILURES), {GeneratorError, PreprocessorFailed})

    def test_standard_error_by_default(self):
        import contextlib
        stream = io.StringIO()
        with contextlib.redirect_stderr(stream):
            errors.report(GeneratorError(SourceLocation("p.d", 1, 1), "no provider declared"))
        self.assertEqual(stream.getvalue(), "p.d:1:1: error: no provider declared\n")


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
