"""Unit tests of usdtgen.lexer: tokens, their file:line:col, comments (`#` ones too), line markers,
pragmas, bad input."""

import unittest

import usdt_testing
from usdtgen.errors import GeneratorError
from usdtgen.lexer import tokenize


def tokens(text, path="t.d", preprocessed=False):
    """(kind, text, "file:line:col") of every token, END included."""
    return [(token.kind, token.text, str(token.location)) for token in tokenize(text, path, preprocessed)]


def located(text, path="t.d", preprocessed=False):
    """("text", "file:line:col") of every token but END: the common case in these tests."""
    return [(text, location) for kind, text, location in tokens(text, path, preprocessed) if kind != "end of file"]


def preprocessed(text, path="t.d"):
    """located() for the preprocessor's output, whose line markers count."""
    return located(text, path, preprocessed=True)


class TokenTest(unittest.TestCase):
    def test_kinds_texts_and_locations(self):
        text = "provider p {\n  probe x(int a, char *b);\n};\n"
        self.assertEqual(tokens(text), [
            ("identifier", "provider", "t.d:1:1"),
            ("identifier", "p", "t.d:1:10"),
            ("punctuation", "{", "t.d:1:12"),
            ("identifier", "probe", "t.d:2:3"),
            ("identifier", "x", "t.d:2:9"),
            ("punctuation", "(", "t.d:2:10"),
            ("identifier", "int", "t.d:2:11"),
            ("identifier", "a", "t.d:2:15"),
            ("punctuation", ",", "t.d:2:16"),
            ("identifier", "char", "t.d:2:18"),
            ("punctuation", "*", "t.d:2:23"),
            ("identifier", "b", "t.d:2:24"),
            ("punctuation", ")", "t.d:2:25"),
            ("punctuation", ";", "t.d:2:26"),
            ("punctuation", "}", "t.d:3:1"),
            ("punctuation", ";", "t.d:3:2"),
            ("end of file", "", "t.d:4:1"),
        ])

    def test_identifiers_with_underscores_and_digits(self):
        self.assertEqual(located("_a request__start x9_"), [
            ("_a", "t.d:1:1"), ("request__start", "t.d:1:4"), ("x9_", "t.d:1:19")])

    def test_colon_of_translated_arguments_is_punctuation(self):
        self.assertEqual(tokens("):(")[:3], [
            ("punctuation", ")", "t.d:1:1"),
            ("punctuation", ":", "t.d:1:2"),
            ("punctuation", "(", "t.d:1:3")])

    def test_tabs_and_carriage_returns_are_whitespace(self):
        # A tab counts as one column; CRLF files keep their line numbers.
        self.assertEqual(located("\tprovider\r\n\tp\r\n"), [
            ("provider", "t.d:1:2"), ("p", "t.d:2:2")])

    def test_path_is_the_one_given(self):
        self.assertEqual(located("p", "dir/probes.d"), [("p", "dir/probes.d:1:1")])

    def test_empty_text_is_only_end_of_file(self):
        self.assertEqual(tokens(""), [("end of file", "", "t.d:1:1")])


class CommentTest(unittest.TestCase):
    def test_block_and_line_comments_are_skipped(self):
        text = "/* block\n   comment */ provider // line comment\np /* x */ {\n"
        self.assertEqual(located(text), [
            ("provider", "t.d:2:15"), ("p", "t.d:3:1"), ("{", "t.d:3:11")])

    def test_multi_line_comment_keeps_line_numbers(self):
        self.assertEqual(located("/* a\n\n\n */ provider\nx"), [
            ("provider", "t.d:4:5"), ("x", "t.d:5:1")])

    def test_line_comment_at_end_of_file_without_newline(self):
        self.assertEqual(tokens("provider // x")[-1], ("end of file", "", "t.d:1:14"))

    def test_comment_markers_inside_a_line_comment(self):
        self.assertEqual(located("// /* not a block\np"), [("p", "t.d:2:1")])

    def test_unterminated_comment_points_at_its_start(self):
        with self.assertRaises(GeneratorError) as caught:
            tokens("provider p {\n  /* never closed\n  probe x();\n")
        self.assertEqual(str(caught.exception), "t.d:2:3: error: unterminated comment")


class DirectiveTest(unittest.TestCase):
    def test_pragma_d_lines_are_skipped(self):
        text = ("#pragma D option quiet\n"
                "  #pragma D attributes Evolving/Evolving/Common provider p provider\n"
                "provider p\n")
        self.assertEqual(located(text), [("provider", "t.d:3:1"), ("p", "t.d:3:10")])

    def test_pragma_usdt_is_a_token_of_its_settings(self):
        text = "provider p\n  #  pragma usdt  no_semaphore p:x p:*  \n}\n"
        self.assertEqual(tokens(text)[2:], [
            ("pragma", "no_semaphore p:x p:*  ", "t.d:2:19"),
            ("punctuation", "}", "t.d:3:1"),
            ("end of file", "", "t.d:4:1")])

    def test_a_hash_after_a_pragma_usdt_starts_a_comment(self):
        self.assertEqual(tokens("#pragma usdt semaphore p:x # p:y too\nx")[:2], [
            ("pragma", "semaphore p:x ", "t.d:1:14"), ("identifier", "x", "t.d:2:1")])

    def test_a_pragma_is_one_line(self):
        # `#` and `pragma usdt` on two lines: a comment, then words, and the lines still count.
        self.assertEqual(located("#\npragma usdt semaphore p:x\ny"), [
            ("pragma", "t.d:2:1"), ("usdt", "t.d:2:8"), ("semaphore", "t.d:2:13"), ("p", "t.d:2:23"),
            (":", "t.d:2:24"), ("x", "t.d:2:25"), ("y", "t.d:3:1")])

    def test_line_marker_moves_file_and_line(self):
        # The marker names the line that follows it.
        text = 'provider\n# 12 "other.d"\np {\n\n  probe\n'
        self.assertEqual(preprocessed(text), [
            ("provider", "t.d:1:1"), ("p", "other.d:12:1"), ("{", "other.d:12:3"),
            ("probe", "other.d:14:3")])

    def test_line_marker_with_gcc_flags(self):
        self.assertEqual(preprocessed('# 7 "inc/x.h" 1 3 4\nprobe\n# 3 "t.d" 2\n}'), [
            ("probe", "inc/x.h:7:1"), ("}", "t.d:3:1")])

    def test_line_directive_without_file_keeps_the_file(self):
        self.assertEqual(preprocessed('# 5 "a.d"\n#line 40\nx\n'), [("x", "a.d:40:1")])

    def test_escaped_quote_in_line_marker_file(self):
        self.assertEqual(preprocessed('# 2 "a\\"b.d"\nx'), [("x", 'a"b.d:2:1')])

    def test_non_ascii_file_name_in_line_marker(self):
        # gcc -E writes the path as it is ("dir ü/x.d").
        self.assertEqual(preprocessed('# 3 "dir \u00fc/x.d"\nx'), [("x", "dir \u00fc/x.d:3:1")])

    def test_other_hash_lines_are_comments(self):
        # As systemtap's dtrace reads them: libvirt marks sections of its provider with
        # `# file:` and `# prefix:` lines; a directive too, which the pipeline has the
        # preprocessor run first whenever it means something.
        text = 'provider p {\n\t# file: src/util/virobject.c\n  #include "x.h"\n#\n\t# prefix: object\n  probe\n'
        self.assertEqual(located(text), [("provider", "t.d:1:1"), ("p", "t.d:1:10"), ("{", "t.d:1:12"),
                                         ("probe", "t.d:6:3")])

    def test_a_line_marker_in_a_file_read_as_it_is_is_a_comment(self):
        # `# 2 probes per request` must not renumber the lines after it.
        self.assertEqual(located('# 2 probes per request\n# 7 "x.d"\n#line 9\nx\n'), [("x", "t.d:4:1")])

    def test_a_hash_inside_a_line_starts_a_comment(self):
        for text in ("probe x(int a); # note ) ( $\nprobe", "probe x(int a);# note\nprobe",
                     "probe x(int a); #pragma usdt semaphore p:x\nprobe"):
            with self.subTest(text=text):
                self.assertEqual(located(text)[-2:], [(";", "t.d:1:15"), ("probe", "t.d:2:1")])
        self.assertEqual(preprocessed('# 4 "a.d"\nprobe x(); # 9 "b.d"\ny'), [
            ("probe", "a.d:4:1"), ("x", "a.d:4:7"), ("(", "a.d:4:8"), (")", "a.d:4:9"), (";", "a.d:4:10"),
            ("y", "a.d:5:1")])

    def test_comment_markers_inside_a_hash_comment_are_not_comments(self):
        self.assertEqual(located("# see /* below\nx # and */\ny"), [("x", "t.d:2:1"), ("y", "t.d:3:1")])

    def test_a_hash_inside_comments_and_literals_is_theirs(self):
        self.assertEqual(located('/* # */ a // # \nb "#" \'#\''), [
            ("a", "t.d:1:9"), ("b", "t.d:2:1"), ('"#"', "t.d:2:3"), ("'#'", "t.d:2:7")])


class BadCharacterTest(unittest.TestCase):
    def assertLexError(self, text, expected, preprocessed=False):
        with self.assertRaises(GeneratorError) as caught:
            tokens(text, preprocessed=preprocessed)
        self.assertEqual(str(caught.exception), expected)

    def test_dollar(self):
        self.assertLexError("probe x(int $a)", "t.d:1:13: error: unexpected character '$'")

    def test_non_ascii_letter(self):
        self.assertLexError("provider\n caf\u00e9", "t.d:2:5: error: unexpected character '\u00e9'")

    def test_error_after_line_marker_uses_marked_location(self):
        self.assertLexError('# 20 "real.d"\n  probe a$b();', "real.d:20:10: error: unexpected character '$'",
                            preprocessed=True)


class CTokenTest(unittest.TestCase):
    """C declarations may stand around the providers: their numbers, literals and operators
    are tokens of their own kind, which only the parser's declaration skipping accepts."""

    def test_numbers_literals_and_operators(self):
        text = 'char n[16]; int x = -1 << 2; const char *s = "a\\"b;"; char c = \'\\\'\';'
        self.assertEqual([(kind, text) for kind, text, _ in tokens(text) if kind == "other"], [
            ("other", "["), ("other", "16"), ("other", "]"), ("other", "="), ("other", "-"), ("other", "1"),
            ("other", "<"), ("other", "<"), ("other", "2"), ("other", "="), ("other", '"a\\"b;"'),
            ("other", "="), ("other", "'\\''")])

    def test_digit_first_word_is_one_token(self):
        self.assertEqual(located("9abc 1.5e3"), [("9abc", "t.d:1:1"), ("1.5e3", "t.d:1:6")])


if __name__ == "__main__":
    usdt_testing.main()
