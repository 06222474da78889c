"""Unit tests of usdtgen.checks: each named semantic check, on the parser's syntax or the plain
data the model hands it, and the exact place and message of each error. tests/python/
test_model.py checks that model.build() runs them on whole files."""

import unittest

import usdt_testing
from usdtgen import checks
from usdtgen.errors import GeneratorError, SourceLocation
from usdtgen.parser import parse


def at(line, column):
    return SourceLocation("t.d", line, column)


class CheckTestCase(unittest.TestCase):
    def assertFails(self, expected, check, *arguments):
        with self.assertRaises(GeneratorError) as caught:
            check(*arguments)
        self.assertEqual(str(caught.exception), expected)


class SyntaxCheckTest(CheckTestCase):
    def test_a_file_declares_providers(self):
        self.assertFails("t.d:1:1: error: no provider declared; expected 'provider NAME { probe NAME(TYPE, ...); };'",
                         checks.check_file_declares_providers, parse("BEGIN{}\n", "t.d"), "t.d")
        checks.check_file_declares_providers(parse("provider p { probe x(); };", "t.d"), "t.d")

    def test_a_file_name_the_header_can_quote(self):
        for name in ('a"b.d', "a\\b.d", "a\nb.d", "a\x1bb.d"):
            with self.subTest(name=name):
                self.assertFails(f"t.d:1:1: error: the file name {name!r} cannot stand in the header's C strings "
                                 "(no quotes, backslashes or control characters); rename the file",
                                 checks.check_file_name_quotable, name, "t.d")
        for name in ("probes.d", "my probes-2.d", "é.d"):
            checks.check_file_name_quotable(name, "t.d")

    def test_a_provider_declares_probes(self):
        (provider,) = parse("provider p {\n};", "t.d").providers
        self.assertFails("t.d:1:10: error: provider 'p' declares no probes",
                         checks.check_provider_declares_probes, provider)

    def test_at_most_twelve_arguments_the_error_at_the_thirteenth(self):
        many = ", ".join(["int"] * 13)
        (provider,) = parse(f"provider p {{ probe x({many}); }};", "t.d").providers
        self.assertFails("t.d:1:82: error: probe 'x' has 13 arguments; at most 12 are supported "
                         "(the limit of sys/sdt.h and libbpf)", checks.check_argument_count, provider.probes[0])
        (provider,) = parse(f"provider p {{ probe x({', '.join(['int'] * 12)}); }};", "t.d").providers
        checks.check_argument_count(provider.probes[0])

    def test_pragma_settings(self):
        (pragma,) = parse("#pragma usdt semaphores p:*\nprovider p { probe x(); };", "t.d").pragmas
        self.assertFails("t.d:1:14: error: unknown '#pragma usdt' setting 'semaphores'; expected 'semaphore' or "
                         "'no_semaphore'", checks.check_pragma_setting_known, pragma)
        self.assertEqual(checks.SEMAPHORE_SETTINGS, {"semaphore": True, "no_semaphore": False})

    def test_pragma_targets_name_declared_probes(self):
        syntax = parse("#pragma usdt semaphore q:x p:y p:x p:*\nprovider p { probe x(); };", "t.d")
        unknown_provider, unknown_probe, probe, every_probe = syntax.pragmas[0].targets
        declared = {"p": {"x"}}
        self.assertFails("t.d:1:24: error: '#pragma usdt' names provider 'q', which this file does not declare",
                         checks.check_pragma_target_declared, unknown_provider, declared)
        self.assertFails("t.d:1:28: error: '#pragma usdt' names probe 'p:y', which this file does not declare",
                         checks.check_pragma_target_declared, unknown_probe, declared)
        checks.check_pragma_target_declared(probe, declared)
        checks.check_pragma_target_declared(every_probe, declared)

    def test_unique_names_the_first_declaration(self):
        self.assertFails("t.d:3:1: error: duplicate probe 'a' in provider 'p' (first declared at t.d:1:1)",
                         checks.check_unique, [("a", at(1, 1)), ("b", at(2, 1)), ("a", at(3, 1)), ("a", at(4, 1))],
                         "probe", " in provider 'p'")
        checks.check_unique([("a", at(1, 1)), ("A", at(2, 1))], "provider")


class GeneratedNameCheckTest(CheckTestCase):
    """The checks of what the header would declare, on (what, where, names) per declaration."""

    def test_two_declarations_that_generate_one_name(self):
        probes = [("probe 'p:a__b'", at(1, 20), ("P_A_B", "P_A_B_ENABLED", "p_a__b_semaphore", "p::a_b")),
                  ("probe 'p:a_b'", at(2, 20), ("P_A_B", "P_A_B_ENABLED", "p_a_b_semaphore", "p::a_b"))]
        self.assertFails("t.d:2:20: error: probe 'p:a_b' and probe 'p:a__b' (declared at t.d:1:20) would both "
                         "generate 'P_A_B'; rename one of them", checks.check_generated_names_unique, probes)

    def test_one_declaration_may_repeat_a_name(self):
        checks.check_generated_names_unique([("probe 'p:x'", at(1, 1), ("X", "X")),
                                             ("probe 'p:y'", at(2, 1), ("Y",))])

    def test_names_reserved_for_the_implementation(self):
        for name in ("__x", "_X", "_Bool"):
            self.assertFails(f"t.d:1:2: error: argument '{name}' would generate '{name}', a name reserved for the "
                             "C implementation (it starts with '__' or '_' and a capital letter); rename it",
                             checks.check_generated_names_free, [(f"argument '{name}'", at(1, 2), (name,))], ())
        checks.check_generated_names_free([("argument '_x'", at(1, 2), ("_x",))], ())

    def test_macros_the_header_sees(self):
        for name in ("INT32_MAX", "UINT8_C", "NULL", "linux", "USDT_ABI_VERSION", "USDT_X", "true"):
            with self.subTest(name=name):
                self.assertFails(f"t.d:1:2: error: probe 'p:x' would generate '{name}', which the generated "
                                 "header's includes or the compiler define as a macro; rename it",
                                 checks.check_generated_names_free, [("probe 'p:x'", at(1, 2), (name,))], ())

    def test_types_the_generated_code_uses(self):
        self.assertFails("t.d:1:2: error: argument 'size_t' would generate 'size_t', the name of a type the "
                         "generated code uses; rename it",
                         checks.check_generated_names_free, [("argument 'size_t'", at(1, 2), ("size_t",))], ())
        self.assertFails("t.d:1:2: error: argument 'req_t' would generate 'req_t', the name of a type the "
                         "generated code uses; rename it",
                         checks.check_generated_names_free, [("argument 'req_t'", at(1, 2), ("req_t",))], ["req_t"])
        checks.check_generated_names_free([("argument 'req_t'", at(1, 2), ("req_t",))], ())

    def test_the_runtime_headers_own_names(self):
        for name in ("usdt", "_usdt_slot"):
            self.assertFails(f"t.d:1:2: error: provider '{name}' would generate '{name}', a name the generated "
                             "header uses itself; rename it",
                             checks.check_generated_names_free, [(f"provider '{name}'", at(1, 2), (name,))], ())
        checks.check_generated_names_free([("provider 'usdtapp'", at(1, 2), ("usdtapp",))], ())

    def test_namespaces_the_cxx_standard_reserves(self):
        for namespace in ("std", "std1", "posix"):
            self.assertFails(f"t.d:1:10: error: provider '{namespace}' would generate namespace '{namespace}', "
                             "which the C++ standard reserves (std, std followed by digits, posix); rename it",
                             checks.check_provider_namespace_not_reserved, namespace, namespace, at(1, 10))
        for namespace in ("stdx", "mystd", "posix_"):
            checks.check_provider_namespace_not_reserved(namespace, namespace, at(1, 10))


class AcrossFilesCheckTest(CheckTestCase):
    def located(self, path, line, column):
        return SourceLocation(path, line, column)

    def reported(self, check, *arguments):
        with self.assertRaises(GeneratorError) as caught:
            check(*arguments)
        return str(caught.exception), caught.exception.notes

    def test_the_same_probe_in_another_file(self):
        own = [("probe 'p:y'", self.located("b.d", 2, 9), ("P_Y",)),
               ("probe 'p:x'", self.located("b.d", 3, 9), ("P_X", "P_X_ENABLED"))]
        elsewhere = [("probe 'p:x'", self.located("a.d", 1, 20), ("P_X", "P_X_ENABLED"))]
        self.assertEqual(self.reported(checks.check_probes_unique_across_files, own, elsewhere), (
            "b.d:3:9: error: probe 'p:x' is declared in two provider files of the same target; declare it in one "
            "of them", ((self.located("a.d", 1, 20), "probe 'p:x' is also declared here"),)))

    def test_two_probes_that_would_generate_the_same_name(self):
        own = [("probe 'p:a_b'", self.located("b.d", 1, 20), ("P_A_B", "p_a_b_semaphore"))]
        elsewhere = [("probe 'p:a__b'", self.located("a.d", 4, 11), ("P_A_B", "p_a__b_semaphore"))]
        self.assertEqual(self.reported(checks.check_probes_unique_across_files, own, elsewhere), (
            "b.d:1:20: error: probe 'p:a_b' and probe 'p:a__b' (declared in another provider file of the same "
            "target) would both generate 'P_A_B'; rename one of them",
            ((self.located("a.d", 4, 11), "probe 'p:a__b' is declared here"),)))

    def test_distinct_probes_pass_and_clashes_among_the_others_are_theirs(self):
        own = [("probe 'p:x'", self.located("b.d", 1, 1), ("P_X",))]
        elsewhere = [("probe 'p:y'", self.located("a.d", 1, 1), ("P_Y",)),
                     ("probe 'p:y'", self.located("c.d", 1, 1), ("P_Y",))]
        checks.check_probes_unique_across_files(own, elsewhere)


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
