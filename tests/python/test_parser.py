"""Unit tests of usdtgen.parser: the syntax tree it builds and its syntax errors, with coordinates."""

import unittest

import usdt_testing
from usdtgen.errors import GeneratorError
from usdtgen.parser import parse


def parameters(probe):
    """(type words, name) of each parameter."""
    return [(parameter.type_words, parameter.name) for parameter in probe.parameters]


class ParseTest(unittest.TestCase):
    def test_provider_probes_and_parameters(self):
        syntax = parse(
            "provider myapp {\n"
            "    probe request__start(uint64_t id, const char *path);\n"
            "    probe tick(void);\n"
            "    probe idle();\n"
            "};\n", "t.d")
        (provider,) = syntax.providers
        self.assertEqual(provider.name, "myapp")
        self.assertEqual(str(provider.location), "t.d:1:10")
        self.assertEqual([probe.name for probe in provider.probes], ["request__start", "tick", "idle"])
        start, tick, idle = provider.probes
        self.assertEqual(str(start.location), "t.d:2:11")
        self.assertEqual(parameters(start), [(("uint64_t",), "id"), (("const", "char", "*"), "path")])
        id_, path = start.parameters
        self.assertEqual([str(id_.location), str(id_.name_location)], ["t.d:2:26", "t.d:2:35"])
        self.assertEqual([str(path.location), str(path.name_location)], ["t.d:2:39", "t.d:2:51"])
        self.assertEqual(tick.parameters, ())
        self.assertEqual(idle.parameters, ())
        self.assertEqual(str(syntax.end), "t.d:6:1")

    def test_unnamed_parameters(self):
        (provider,) = parse(
            "provider p { probe anon(int, unsigned long, char *, struct foo **, string); };", "t.d").providers
        (probe,) = provider.probes
        self.assertEqual(parameters(probe), [
            (("int",), None),
            (("unsigned", "long"), None),
            (("char", "*"), None),
            (("struct", "foo", "*", "*"), None),
            (("string",), None),
        ])
        self.assertEqual([parameter.name_location for parameter in probe.parameters], [None] * 5)

    def test_void_starting_a_pointer_parameter(self):
        (provider,) = parse("provider p { probe x(void *buffer, void **); };", "t.d").providers
        self.assertEqual(parameters(provider.probes[0]), [
            (("void", "*"), "buffer"), (("void", "*", "*"), None)])

    def test_void_followed_by_more_is_left_to_the_type_check(self):
        (provider,) = parse("provider p { probe x(void, int); };", "t.d").providers
        self.assertEqual(parameters(provider.probes[0]), [(("void",), None), (("int",), None)])

    def test_translated_argument_list_is_ignored(self):
        (provider,) = parse(
            "provider p {\n"
            "  probe x(int a, char *b) : (string b, int a, int c);\n"
            "  probe y() : ();\n"
            "};\n", "t.d").providers
        x, y = provider.probes
        self.assertEqual(parameters(x), [(("int",), "a"), (("char", "*"), "b")])
        self.assertEqual(y.parameters, ())

    def test_several_providers_in_order(self):
        syntax = parse(
            "provider b { probe one(); };\n"
            "provider a { probe two(); probe three(); };\n", "t.d")
        self.assertEqual([(provider.name, [probe.name for probe in provider.probes])
                          for provider in syntax.providers],
                         [("b", ["one"]), ("a", ["two", "three"])])
        self.assertEqual(str(syntax.providers[1].probes[1].location), "t.d:2:33")

    def test_semicolons_after_probes_and_providers_may_be_left_out(self):
        # As systemtap's dtrace reads them (`Optional(semi)` in its grammar).
        syntax = parse("provider p {\n  probe x(int a)\n  probe y() : (int b)\n  probe z()\n}\n"
                       "provider q { probe w(); }\ntypedef int n_t;\nprovider r { probe v(n_t n) }", "t.d")
        self.assertEqual([(provider.name, [probe.name for probe in provider.probes]) for provider in syntax.providers],
                         [("p", ["x", "y", "z"]), ("q", ["w"]), ("r", ["v"])])
        self.assertEqual([typedef.name for typedef in syntax.typedefs], ["n_t"])

    def test_no_whitespace_needed_around_punctuation(self):
        (provider,) = parse("provider p{probe x(int,int*y):(int);};", "t.d").providers
        self.assertEqual(parameters(provider.probes[0]), [(("int",), None), (("int", "*"), "y")])

    def test_empty_file_parses_to_no_providers(self):
        # An empty file is a semantic error (model.check_file_declares_providers), not a syntax one.
        syntax = parse("/* nothing */\n", "t.d")
        self.assertEqual(syntax.providers, ())


class PragmaTest(unittest.TestCase):
    def test_pragmas_anywhere_are_collected_in_order(self):
        syntax = parse("#pragma usdt semaphore p:*\nprovider p {\n"
                       "#pragma usdt no_semaphore p:x q:y\n  probe x();\n};\n", "t.d")
        self.assertEqual([probe.name for probe in syntax.providers[0].probes], ["x"])
        self.assertEqual([(pragma.setting, str(pragma.location)) for pragma in syntax.pragmas],
                         [("semaphore", "t.d:1:14"), ("no_semaphore", "t.d:3:14")])
        self.assertEqual([(target.provider, target.probe, str(target.location))
                          for pragma in syntax.pragmas for target in pragma.targets],
                         [("p", "*", "t.d:1:24"), ("p", "x", "t.d:3:27"), ("q", "y", "t.d:3:31")])

    def assertPragmaError(self, pragma, expected):
        with self.assertRaises(GeneratorError) as caught:
            parse(pragma + "\nprovider p { probe x(); };", "t.d")
        self.assertEqual(str(caught.exception), expected)

    def test_no_setting(self):
        self.assertPragmaError("#pragma usdt", "t.d:1:13: error: expected a setting in '#pragma usdt', "
                                               "found the end of the line")

    def test_no_target(self):
        self.assertPragmaError("#pragma usdt semaphore ", "t.d:1:23: error: expected a 'provider:probe' "
                                                          "target in '#pragma usdt', found the end of the line")

    def test_target_without_probe(self):
        self.assertPragmaError("#pragma usdt semaphore p", "t.d:1:25: error: expected ':' after the provider "
                                                           "name in '#pragma usdt', found the end of the line")

    def test_target_with_a_bad_probe(self):
        self.assertPragmaError("#pragma usdt semaphore p:x p:-", "t.d:1:30: error: expected a probe name or '*' "
                                                                 "in '#pragma usdt', found '-'")


class SyntaxErrorTest(unittest.TestCase):
    def assertSyntaxError(self, text, expected, preprocessed=False):
        with self.assertRaises(GeneratorError) as caught:
            parse(text, "t.d", preprocessed)
        self.assertEqual(str(caught.exception), expected)

    def test_probe_outside_a_provider(self):
        self.assertSyntaxError("probe x();", "t.d:1:1: error: expected 'provider', found 'probe'")

    def test_missing_provider_name(self):
        self.assertSyntaxError("provider {", "t.d:1:10: error: expected a provider name, found '{'")

    def test_missing_opening_brace(self):
        self.assertSyntaxError("provider p\n  probe x();", "t.d:2:3: error: expected '{', found 'probe'")

    def test_not_a_probe_inside_a_provider(self):
        self.assertSyntaxError("provider p {\n  x();\n};",
                               "t.d:2:3: error: expected 'probe' or '}', found 'x'")

    def test_missing_probe_name(self):
        self.assertSyntaxError("provider p {\n  probe (int);\n};",
                               "t.d:2:9: error: expected a probe name, found '('")

    def test_missing_parameter_list(self):
        self.assertSyntaxError("provider p {\n  probe x int a);\n};",
                               "t.d:2:11: error: expected '(', found 'int'")

    def test_missing_semicolon_after_probe(self):
        # Before anything but another probe or the provider's '}', right after the ')'.
        self.assertSyntaxError("provider p {\n  probe x(int a)\n  int b;\n};",
                               "t.d:2:17: error: expected ';' after the probe declaration, found 'int'")
        self.assertSyntaxError("provider p {\n  probe x(int a) : (int b)  struct\n};",
                               "t.d:2:27: error: expected ';' after the probe declaration, found 'struct'")

    def test_semicolon_between_parameters(self):
        self.assertSyntaxError("provider p {\n  probe x(int a; int b);\n};",
                               "t.d:2:16: error: expected ',' or ')' after a parameter, found ';'")

    def test_trailing_comma(self):
        self.assertSyntaxError("provider p {\n  probe x(int a,);\n};",
                               "t.d:2:17: error: expected a parameter type, found ')'")

    def test_star_without_a_type(self):
        self.assertSyntaxError("provider p {\n  probe x(int a, *b);\n};",
                               "t.d:2:18: error: expected a parameter type before '*'")

    def test_unclosed_parameter_list_at_end_of_file(self):
        self.assertSyntaxError("provider p {\n  probe x(int a",
                               "t.d:2:16: error: expected ',' or ')' after a parameter, found end of file")

    def test_unclosed_provider_at_end_of_file(self):
        self.assertSyntaxError("provider p {\n  probe x();\n",
                               "t.d:3:1: error: expected 'probe' or '}', found end of file")


    def test_identifier_starting_with_a_digit(self):
        self.assertSyntaxError("provider p {\n  probe 9abc();\n",
                               "t.d:2:9: error: invalid identifier '9abc': identifiers start with a letter or '_'")

    def test_minus_in_a_probe_name(self):
        self.assertSyntaxError("provider p {\n  probe request-start();\n",
                               "t.d:2:16: error: unexpected character '-': names cannot contain '-' "
                               "(DTrace's probe request-start is written request__start)")

    def test_minus_after_line_marker_uses_marked_location(self):
        self.assertSyntaxError('# 20 "real.d"\nprovider p {\n  probe a-b();',
                               "real.d:21:10: error: unexpected character '-': names cannot "
                               "contain '-' (DTrace's probe request-start is written request__start)",
                               preprocessed=True)

    def test_c_token_in_a_parameter_list(self):
        self.assertSyntaxError("provider p { probe x(char name[16]); };",
                               "t.d:1:31: error: expected ',' or ')' after a parameter, found '['")


class DeclarationTest(unittest.TestCase):
    """C declarations around the providers are skipped, as systemtap's dtrace skips them;
    typedefs are kept for the argument types."""

    def test_declarations_before_between_and_after_providers(self):
        syntax = parse("struct req { char path[64]; int (*done)(struct req *); };\n"
                       "enum state { IDLE = 0, BUSY = 1 << 1 };\n"
                       "provider p { probe x(); };\n"
                       "extern const char *names[];\n"
                       "provider q { probe y(); };;\n"
                       "int after(int, ...);\n", "t.d")
        self.assertEqual([provider.name for provider in syntax.providers], ["p", "q"])
        self.assertEqual(syntax.typedefs, ())

    def test_typedefs(self):
        syntax = parse("typedef unsigned int txid_t;\ntypedef txid_t *txid_pointer;\n"
                       "typedef struct { int fd; char name[16]; } conn_t;\n"
                       "typedef enum mode { A, B } mode_t2;\n"
                       "typedef struct req req_t;\n"
                       "typedef int (*callback_t)(int);\n"          # not an argument type: not kept
                       "provider p { probe x(); };", "t.d")
        self.assertEqual([(typedef.name, typedef.type_words, str(typedef.location)) for typedef in syntax.typedefs], [
            ("txid_t", ("unsigned", "int"), "t.d:1:22"),
            ("txid_pointer", ("txid_t", "*"), "t.d:2:17"),
            ("conn_t", ("struct", "conn_t"), "t.d:3:43"),
            ("mode_t2", ("enum", "mode_t2"), "t.d:4:28"),
            ("req_t", ("struct", "req"), "t.d:5:20"),
        ])

    def test_clauses_end_at_their_closing_brace(self):
        # A D program (configure scripts run `dtrace -G` on `BEGIN{}`) and a function
        # definition need no ';'; a struct body or an initializer in braces still does.
        syntax = parse("BEGIN{}\n"
                       "syscall::read:entry /pid == 1/ { trace(\"x\"); exit(0); }\n"
                       "static int f(void) { return 0; }\n"
                       "provider p { probe x(); };\n"
                       "struct s { int a; } s1;\n"
                       "int numbers[] = { 1, 2 };\n", "t.d")
        self.assertEqual([provider.name for provider in syntax.providers], ["p"])
        self.assertEqual(parse("BEGIN{}\n", "t.d").providers, ())

    def assertSyntaxError(self, text, expected, preprocessed=False):
        with self.assertRaises(GeneratorError) as caught:
            parse(text, "t.d", preprocessed)
        self.assertEqual(str(caught.exception), expected)

    def test_struct_body_without_a_semicolon(self):
        # The ';' is expected right after the declaration's last token, as compilers say.
        self.assertSyntaxError("struct s { int a; }\n",
                               "t.d:1:20: error: expected ';' to end the declaration at t.d:1:1, found end of file")

    def assertSyntaxErrors(self, cases):
        """assertSyntaxError on each (text, expected) of `cases`."""
        for text, expected in cases:
            with self.subTest(text=text):
                self.assertSyntaxError(text, expected)

    def test_a_declaration_without_its_semicolon_before_a_provider(self):
        # Not "unknown type 'txid_t'" nor "expected 'provider', found 'typedef'" elsewhere.
        self.assertSyntaxErrors((
                ("typedef unsigned int txid_t\nprovider p { probe a(txid_t x); };",
                 "t.d:1:28: error: expected ';' to end the declaration at t.d:1:1, found 'provider'"),
                ("/* c */ typedef struct conn {\n  int fd;\n} conn_t\n\nprovider p { probe a(conn_t *c); };",
                 "t.d:3:9: error: expected ';' to end the declaration at t.d:1:9, found 'provider'"),
                ("struct s { int a; }\nprovider p { probe a(); };",
                 "t.d:1:20: error: expected ';' to end the declaration at t.d:1:1, found 'provider'"),
                ("enum e { A, B }\n  provider {",
                 "t.d:1:16: error: expected ';' to end the declaration at t.d:1:1, found 'provider'")))

    def test_a_declaration_without_its_semicolon_before_another(self):
        self.assertSyntaxErrors((
                ("typedef unsigned int a_t\ntypedef int b_t;\nprovider p { probe a(a_t x); };",
                 "t.d:1:25: error: expected ';' to end the declaration at t.d:1:1, found 'typedef'"),
                ("struct a { int x; }\nstruct b { int y; };",
                 "t.d:1:20: error: expected ';' to end the declaration at t.d:1:1, found 'struct'"),
                ("provider p { probe a(); };\nint n\ntypedef int b_t;",
                 "t.d:2:6: error: expected ';' to end the declaration at t.d:2:1, found 'typedef'")))

    def test_provider_as_a_struct_tag_is_no_provider(self):
        syntax = parse("struct provider { int a; };\nstruct provider *current;\nprovider p { probe x(); };", "t.d")
        self.assertEqual([provider.name for provider in syntax.providers], ["p"])

    def test_misspelt_provider_without_a_semicolon_is_not_a_clause(self):
        self.assertSyntaxError("provder p {\n  probe x();\n}", "t.d:1:1: error: expected 'provider', found 'provder'")

    def test_unterminated_declaration(self):
        self.assertSyntaxError("provider p { probe x(); };\nint after(void)\n",
                               "t.d:2:16: error: expected ';' to end the declaration at t.d:2:1, found end of file")

    def test_unbalanced_bracket(self):
        self.assertSyntaxError("int x);", "t.d:1:6: error: unbalanced ')'")

    def test_misspelt_provider_is_not_a_declaration(self):
        self.assertSyntaxError("provder p {\n  probe x();\n};", "t.d:1:1: error: expected 'provider', found 'provder'")

    def test_error_inside_the_translated_list_is_still_reported(self):
        self.assertSyntaxError("provider p {\n  probe x(int a) : (int;\n};",
                               "t.d:2:24: error: expected ',' or ')' after a parameter, found ';'")

    def test_error_location_follows_line_markers(self):
        self.assertSyntaxError('# 30 "orig.d"\nprovider p {\n  probe x() y;\n};',
                               "orig.d:31:12: error: expected ';' after the probe declaration, found 'y'",
                               preprocessed=True)


if __name__ == "__main__":
    usdt_testing.main()
