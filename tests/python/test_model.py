"""Unit tests of usdtgen.model: derived names, argument specs and the named semantic checks."""

import unittest

import usdt_testing
from usdtgen import header_view, model
from usdtgen.errors import GeneratorError
from usdtgen.parser import parse


def build(text, source_name="t.d", semaphores=True):
    return model.build(parse(text, source_name), source_name, source_name, semaphores)


def probe(text):
    """The only probe of a one-probe file."""
    (only,) = build(text).probes
    return only


class DerivedNameTest(unittest.TestCase):
    def test_names_of_a_probe(self):
        start = probe("provider myapp { probe request__start(uint64_t id, const char *path); };")
        self.assertEqual(start.provider, "myapp")
        self.assertEqual(start.name, "request__start")  # the note keeps '__'
        self.assertEqual(start.macro_name, "MYAPP_REQUEST_START")
        self.assertEqual(start.enabled_macro_name, "MYAPP_REQUEST_START_ENABLED")
        self.assertEqual(start.semaphore_name, "myapp_request__start_semaphore")
        self.assertEqual(start.cxx_name, "request_start")
        self.assertEqual(header_view.spec_macro_name(start), "_USDT_SPEC_myapp_request__start")
        self.assertEqual(start.signature, "uint64_t id, const char * path")
        self.assertEqual([a.name for a in start.arguments], ["id", "path"])
        self.assertEqual([a.macro_parameter for a in start.arguments], ["arg0", "arg1"])
        self.assertEqual([a.type.c_type for a in start.arguments], ["uint64_t", "const char *"])
        self.assertEqual(str(start.location), "t.d:1:24")

    def test_cxx_keyword_probe_gets_an_underscore(self):
        delete = probe("provider myapp { probe delete(); };")
        self.assertEqual(delete.macro_name, "MYAPP_DELETE")
        self.assertEqual(delete.semaphore_name, "myapp_delete_semaphore")
        self.assertEqual(delete.cxx_name, "delete_")
        self.assertEqual(probe("provider p { probe new__object(); };").cxx_name, "new_object")
        self.assertEqual(probe("provider p { probe co_await(); };").cxx_name, "co_await_")
        self.assertEqual(probe("provider p { probe Delete(); };").cxx_name, "Delete")

    def test_namespace(self):
        self.assertEqual(build("provider myapp { probe x(); };").providers[0].cxx_namespace, "myapp")
        self.assertEqual(build("provider class { probe x(); };").providers[0].cxx_namespace, "class_")

    def test_mixed_case_provider(self):
        tick = probe("provider MyApp { probe Tick(); };")
        self.assertEqual(tick.macro_name, "MYAPP_TICK")
        self.assertEqual(tick.semaphore_name, "MyApp_Tick_semaphore")
        self.assertEqual(tick.cxx_name, "Tick")

    def test_argument_names(self):
        # Unnamed arguments are argN in C++; keyword names get '_' there, and only there.
        x = probe("provider p { probe x(int, char *new, long n, bool); };")
        self.assertEqual([a.name for a in x.arguments], ["arg0", "new_", "n", "arg3"])
        self.assertEqual(x.signature, "int arg0, char * new, long n, bool arg3")

    def test_file_names(self):
        probe_file = build("provider p { probe x(); };", "my-probes.d")
        self.assertEqual(probe_file.source_name, "my-probes.d")
        self.assertEqual(probe_file.stem, "my-probes")
        self.assertEqual(probe_file.include_guard, "USDT_GENERATED_MY_PROBES_H")

    def test_probes_in_declaration_order_across_providers(self):
        probe_file = build("provider b { probe z(); probe y(); };\nprovider a { probe x(); };")
        self.assertEqual([(p.provider, p.name) for p in probe_file.probes], [("b", "z"), ("b", "y"), ("a", "x")])


class ArgumentSpecTest(unittest.TestCase):
    """Each argument's size and sign in the note, on 32-bit (ILP32) and 64-bit (LP64) targets;
    test_targets.py checks the specs each target's header spells from them."""

    def sizes(self, text):
        return [(a.type.note_size(4), a.type.note_size(8), a.type.signed) for a in probe(text).arguments]

    def test_size_and_sign_per_argument(self):
        self.assertEqual(self.sizes("provider p { probe x(uint64_t a, int b); };"), [(8, 8, False), (4, 4, True)])

    def test_pointer_sized_arguments_take_the_targets_word_size(self):
        self.assertEqual(self.sizes("provider p { probe x(long a, size_t b, char *c, long long d); };"),
                         [(4, 8, True), (4, 8, False), (4, 8, False), (8, 8, True)])

    def test_every_kind(self):
        self.assertEqual(self.sizes("provider p { probe x(int a, uint8_t b, char c, bool d, long e, short f, char *g, "
                                    "struct s *h, unsigned i, string j, int16_t k, size_t l); };"),
                         [(4, 4, True), (1, 1, False), (1, 1, True), (1, 1, False), (4, 8, True), (2, 2, True),
                          (4, 8, False), (4, 8, False), (4, 4, False), (4, 8, False), (2, 2, True), (4, 8, False)])

    def test_no_arguments(self):
        self.assertEqual(probe("provider p { probe x(void); };").arguments, ())
        self.assertEqual(probe("provider p { probe x(); };").signature, "")


class SiteDescriptionTest(unittest.TestCase):
    """The `.note.usdt` strings after provider and name, as the site macro takes them: one C string
    literal, the operands of an `.asciz`, escaped for the assembler and then for the compiler."""

    def test_file_then_name_declared_type_and_kind_per_argument(self):
        described = probe("typedef unsigned char op_t;\n"
                          "provider p { probe x(uint64_t id, const char *key, op_t, struct s **pp, bool ok); };")
        self.assertEqual(header_view.site_description(described),
                         r'"\"t.d\", \"id\", \"uint64_t\", \"integer\", \"key\", \"const char \\052\", \"string\", '
                         r'\"arg2\", \"op_t\", \"integer\", \"pp\", \"struct s \\052\\052\", \"pointer\", '
                         r'\"ok\", \"bool\", \"bool\""')

    def test_no_arguments(self):
        self.assertEqual(header_view.site_description(probe("provider p { probe x(void); };")), r'"\"t.d\""')

    def test_a_star_is_octal_out_of_the_reach_of_builds_edits(self):
        # `s,char \*,const char \*,g` (memcached) would rewrite the declared type the note records.
        self.assertEqual(header_view.site_description(probe("provider p { probe x(char *s, void* p); };")),
                         r'"\"t.d\", \"s\", \"char \\052\", \"string\", \"p\", \"void \\052\", \"pointer\""')

    def test_file_name_characters_that_mean_something_in_an_asm_template_are_octal(self):
        # `%` and `{|}` are operand and dialect syntax in GCC's x86 asm templates; non-ASCII
        # goes byte by byte, which is what the assembler's octal escapes produce.
        (only,) = build("provider p { probe x(); };", source_name="a{b|c}%d é.d").probes
        self.assertEqual(header_view.site_description(only), r'"\"a\\173b\\174c\\175\\045d \\303\\251.d\""')

    def test_string_and_pointer_arguments_name_what_they_point_to(self):
        # A tracer dereferences both: the site takes the memory they point to as an input, so
        # that the stores through them are done before it, and each is evaluated once, in a local.
        self.assertEqual(header_view.macro_declarations(probe("provider p { probe x(int a); };")), [])
        self.assertEqual(header_view.macro_operands(probe("provider p { probe x(int a); };")),
                         "_USDT_ARG(i32, int, arg0)")
        strings_and_pointers = probe("provider p { probe x(const char *s, struct req *r, int a); };")
        self.assertEqual(header_view.macro_declarations(strings_and_pointers),
                         ["_USDT_ADDRESS_ARG(_usdt_address_0, char const *, arg0)",
                          "_USDT_ADDRESS_ARG(_usdt_address_1, void const volatile *, arg1)"])
        self.assertEqual(header_view.macro_operands(strings_and_pointers),
                         "_USDT_VALUE(address, _usdt_address_0) _USDT_VALUE(address, _usdt_address_1) "
                         "_USDT_ARG(i32, int, arg2) _USDT_POINTED_TO(_usdt_address_0) _USDT_POINTED_TO(_usdt_address_1)")
        # The C++ API reaches the site as the macros do, from the same locals, of the types its
        # argument classes converted the values to (no conversion left for the header to make).
        self.assertEqual(header_view.cxx_declarations(strings_and_pointers),
                         ["char const *const _usdt_address_0 = s.costly() ? "
                          "s.prepared(_usdt_buffer_0, _USDT_SEMAPHORE_ACTIVE(p_x_semaphore)) : s.text();",
                          "void const *const _usdt_address_1 = r.value;"])
        self.assertEqual(header_view.cxx_operands(strings_and_pointers),
                         "_USDT_VALUE(address, _usdt_address_0) _USDT_VALUE(address, _usdt_address_1) "
                         "_USDT_VALUE(i32, a.value) _USDT_POINTED_TO(_usdt_address_0) _USDT_POINTED_TO(_usdt_address_1)")


class CheckTest(unittest.TestCase):
    def assertModelError(self, text, expected):
        with self.assertRaises(GeneratorError) as caught:
            build(text)
        self.assertEqual(str(caught.exception), expected)

    def test_namespaces_the_cxx_standard_reserves(self):
        for name in ("std", "std2", "std17", "posix"):
            with self.subTest(provider=name):
                self.assertModelError(
                    f"provider {name} {{ probe start(); }};",
                    f"t.d:1:10: error: provider '{name}' would generate namespace '{name}', which the C++ "
                    "standard reserves (std, std followed by digits, posix); rename it")
        for name in ("stdio", "standard", "posix_app", "mystd"):
            with self.subTest(provider=name):
                build(f"provider {name} {{ probe start(); }};")

    def test_empty_file(self):
        expected = ("t.d:1:1: error: no provider declared; expected "
                    "'provider NAME { probe NAME(TYPE, ...); };'")
        self.assertModelError("", expected)
        self.assertModelError("/* only a comment */\n// and another\n", expected)

    def test_no_provider_is_allowed_when_not_required(self):
        # usdt-dtrace's case: configure scripts run `dtrace -G` on `BEGIN{}`.
        provider_file = model.build(parse("BEGIN{}\n", "t.d"), "t.d", "t.d", providers_required=False)
        self.assertEqual((provider_file.providers, provider_file.probes), ((), ()))

    def test_provider_without_probes(self):
        self.assertModelError("provider p { probe x(); };\nprovider empty {\n};",
                              "t.d:2:10: error: provider 'empty' declares no probes")

    def test_duplicate_provider(self):
        self.assertModelError("provider p { probe x(); };\nprovider p { probe y(); };",
                              "t.d:2:10: error: duplicate provider 'p' (first declared at t.d:1:10)")

    def test_duplicate_probe(self):
        self.assertModelError("provider p {\n  probe x();\n  probe x(int);\n};",
                              "t.d:3:9: error: duplicate probe 'x' in provider 'p' (first declared at t.d:2:9)")

    def test_same_probe_name_in_two_providers_is_fine(self):
        self.assertEqual(len(build("provider p { probe x(); };\nprovider q { probe x(); };").probes), 2)

    def test_duplicate_argument_name(self):
        self.assertModelError("provider p {\n  probe x(int a, long a);\n};",
                              "t.d:2:23: error: duplicate argument name 'a' in probe 'x' "
                              "(first declared at t.d:2:15)")

    def test_twelve_arguments_are_accepted(self):
        twelve = probe("provider p {\n  probe many(\n    long, long, long, long,\n    long, long, long, long,\n"
                       "    long, long, long, long);\n};")
        self.assertEqual([(a.index, a.type.c_type) for a in twelve.arguments], [(n, "long") for n in range(12)])

    def test_argument_names_of_the_runtime_header(self):
        # A C++ API function's parameter `_usdt_block` would hide the argument block of 32-bit sites.
        self.assertModelError("provider p { probe x(int _usdt_block); };",
                              "t.d:1:26: error: argument '_usdt_block' would generate '_usdt_block', a name "
                              "the generated header uses itself; rename it")
        self.assertModelError("provider p { probe x(int usdt); };",
                              "t.d:1:26: error: argument 'usdt' would generate 'usdt', a name "
                              "the generated header uses itself; rename it")
        for name in ("usdt_count", "UsdtArg1", "value"):
            with self.subTest(name):
                build(f"provider p {{ probe x(int {name}); }};")

    def test_thirteen_arguments_fail_at_the_thirteenth(self):
        self.assertModelError(
            "provider p {\n  probe many(\n    int, int, int, int,\n    int, int, int, int,\n"
            "    int, int, int, int,\n    long);\n};",
            "t.d:6:5: error: probe 'many' has 13 arguments; at most 12 are supported "
            "(the limit of sys/sdt.h and libbpf)")

    def test_type_error_points_at_the_parameter(self):
        self.assertModelError("provider p {\n  probe x(int a,\n          double b);\n};",
                              "t.d:3:11: error: argument type 'double': floating-point arguments are "
                              "not supported: gdb and libbpf reject the 'f' argument spec and bpftrace "
                              "cannot parse it; pass a scaled integer or a pointer to the value")

    def test_void_among_parameters(self):
        self.assertModelError("provider p {\n  probe x(void, int);\n};",
                              "t.d:2:11: error: argument type 'void': 'void' is only allowed as the "
                              "whole parameter list, as in 'probe name(void)'")
        self.assertModelError("provider p {\n  probe x(int a, void b);\n};",
                              "t.d:2:18: error: argument type 'void': 'void' is only allowed as the "
                              "whole parameter list, as in 'probe name(void)'")

    def test_macro_collision_double_underscore(self):
        self.assertModelError("provider p {\n  probe a__b();\n  probe a_b();\n};",
                              "t.d:3:9: error: probe 'p:a_b' and probe 'p:a__b' (declared at t.d:2:9) "
                              "would both generate 'P_A_B'; rename one of them")

    def test_macro_collision_with_enabled_macro(self):
        self.assertModelError("provider p {\n  probe foo();\n  probe foo_enabled();\n};",
                              "t.d:3:9: error: probe 'p:foo_enabled' and probe 'p:foo' (declared at "
                              "t.d:2:9) would both generate 'P_FOO_ENABLED'; rename one of them")

    def test_macro_collision_by_case(self):
        self.assertModelError("provider p {\n  probe Start();\n  probe start();\n};",
                              "t.d:3:9: error: probe 'p:start' and probe 'p:Start' (declared at "
                              "t.d:2:9) would both generate 'P_START'; rename one of them")

    def test_collision_across_providers(self):
        self.assertModelError("provider a { probe b_c(); };\nprovider a_b { probe c(); };",
                              "t.d:2:22: error: probe 'a_b:c' and probe 'a:b_c' (declared at t.d:1:20) "
                              "would both generate 'A_B_C'; rename one of them")

    def test_semaphore_only_collision_across_providers(self):
        # Macros differ (A_B_C and A_B__C); the semaphores keep '__' and are both a_b__c_semaphore.
        self.assertModelError("provider a { probe b__c(); };\nprovider a_b { probe _c(); };",
                              "t.d:2:22: error: probe 'a_b:_c' and probe 'a:b__c' (declared at t.d:1:20) "
                              "would both generate 'a_b__c_semaphore'; rename one of them")

    def test_cxx_name_collision_with_keyword_rename(self):
        self.assertModelError("provider p {\n  probe delete();\n  probe delete_();\n};",
                              "t.d:3:9: error: probe 'p:delete_' and probe 'p:delete' (declared at "
                              "t.d:2:9) would both generate 'p::delete_'; rename one of them")


class DeclarationsAroundProvidersTest(unittest.TestCase):
    def test_the_files_typedefs_decide_argument_types(self):
        probe_file = build("typedef struct { int fd; char name[16]; } conn_t;\n"
                           "typedef unsigned short port_t;\n"
                           "provider net { probe accept(conn_t *c, port_t port); };\n"
                           "int net_helper(conn_t *);\n")
        (accept,) = probe_file.probes
        self.assertEqual([(a.type.declared, a.type.c_type, a.type.size, a.type.pointer_sized) for a in accept.arguments],
                         [("conn_t *", "const volatile void *", 8, True), ("port_t", "unsigned short", 2, False)])
        self.assertEqual(accept.signature, "conn_t * c, port_t port")


class SemaphoreFlavourTest(unittest.TestCase):
    PROBES = "provider a { probe x(); probe y(); };\nprovider b { probe x(); };\n"

    def flavours(self, pragmas, semaphores=True):
        probe_file = build(pragmas + self.PROBES, semaphores=semaphores)
        return {f"{probe.provider}:{probe.name}": probe.has_semaphore for probe in probe_file.probes}

    def test_every_probe_has_a_semaphore_by_default(self):
        self.assertEqual(self.flavours(""), {"a:x": True, "a:y": True, "b:x": True})

    def test_the_default_can_be_no_semaphores(self):
        self.assertEqual(self.flavours("", semaphores=False), {"a:x": False, "a:y": False, "b:x": False})

    def test_pragma_names_probes(self):
        self.assertEqual(self.flavours("#pragma usdt no_semaphore a:y b:x\n"),
                         {"a:x": True, "a:y": False, "b:x": False})

    def test_pragma_beats_the_default(self):
        self.assertEqual(self.flavours("#pragma usdt semaphore a:x\n", semaphores=False),
                         {"a:x": True, "a:y": False, "b:x": False})

    def test_a_named_probe_beats_its_provider_wildcard(self):
        self.assertEqual(self.flavours("#pragma usdt no_semaphore a:*\n#pragma usdt semaphore a:y\n"),
                         {"a:x": False, "a:y": True, "b:x": True})

    def test_pragma_may_follow_the_declarations(self):
        probe_file = build(self.PROBES + "#pragma usdt no_semaphore b:x\n")
        self.assertEqual([p.has_semaphore for p in probe_file.probes], [True, True, False])

    def test_what_a_probe_without_semaphore_generates(self):
        tick = probe("#pragma usdt no_semaphore p:tick\nprovider p { probe tick(int n); };")
        self.assertEqual((header_view.enabled_expression(tick), header_view.site_semaphore(tick)),
                         ("_USDT_ALWAYS_ACTIVE", '"0", "0", "i"(0)'))
        tock = probe("provider p { probe tock(int n); };")
        self.assertEqual((header_view.enabled_expression(tock), header_view.site_semaphore(tock)),
                         ("_USDT_SEMAPHORE_ACTIVE(p_tock_semaphore)", '"p_tock_semaphore", "p_tock_semaphore", "m"(p_tock_semaphore)'))

    def assertModelError(self, text, expected):
        with self.assertRaises(GeneratorError) as caught:
            build(text)
        self.assertEqual(str(caught.exception), expected)

    def test_unknown_setting(self):
        self.assertModelError("#pragma usdt semaphores a:x\n" + self.PROBES,
                              "t.d:1:14: error: unknown '#pragma usdt' setting 'semaphores'; "
                              "expected 'semaphore' or 'no_semaphore'")

    def test_unknown_provider(self):
        self.assertModelError("#pragma usdt semaphore a:x c:x\n" + self.PROBES,
                              "t.d:1:28: error: '#pragma usdt' names provider 'c', which this file does not declare")

    def test_unknown_probe(self):
        self.assertModelError("#pragma  usdt semaphore b:y\n" + self.PROBES,
                              "t.d:1:25: error: '#pragma usdt' names probe 'b:y', which this file does not declare")

    def test_conflicting_settings(self):
        self.assertModelError(self.PROBES + "#pragma usdt semaphore a:x\n#pragma usdt no_semaphore a:y a:x\n",
                              "t.d:4:31: error: 'a:x' is set to 'no_semaphore' here and to 'semaphore' at t.d:3:14")

    def test_the_same_setting_twice_is_fine(self):
        self.assertEqual(self.flavours("#pragma usdt semaphore a:x\n#pragma usdt semaphore a:x\n")["a:x"], True)


class CxxNameClashTest(unittest.TestCase):
    """Declarations whose C++ spellings could clash: the generator must reject the file or
    produce distinct names, never a header whose C++ does not compile."""

    def assertDistinctOrRejected(self, text, names_of):
        try:
            probe_file = build(text)
        except GeneratorError:
            return
        names = names_of(probe_file)
        self.assertEqual(len(names), len(set(names)), f"C++ names collide: {names}")

    def test_unnamed_argument_and_argument_named_arg0(self):
        self.assertDistinctOrRejected("provider p { probe x(int, int arg0); };",
                                      lambda f: [a.name for a in f.probes[0].arguments])

    def test_keyword_argument_and_its_renamed_spelling(self):
        self.assertDistinctOrRejected("provider p { probe x(int delete, int delete_); };",
                                      lambda f: [a.name for a in f.probes[0].arguments])

    def test_keyword_provider_and_its_renamed_spelling(self):
        self.assertDistinctOrRejected(
            "provider delete { probe x(); };\nprovider delete_ { probe x(); };",
            lambda f: [f"{p.cxx_namespace}::{q.cxx_name}" for p in f.providers for q in p.probes])

    def test_the_usdt_note_records_names_as_declared(self):
        # The C++ API cannot name a parameter `class`; the record keeps what the .d file says.
        (keyword, unnamed) = probe("provider p { probe x(int class, long); };").arguments
        self.assertEqual((keyword.name, keyword.declared_name), ("class_", "class"))
        self.assertEqual((unnamed.name, unnamed.declared_name), ("arg1", "arg1"))
        self.assertIn(r'\"class\", \"int\", \"integer\"', header_view.site_description(probe("provider p { probe x(int class); };")))

    def test_unnamed_qualified_typedef(self):
        (argument,) = probe("provider p { probe x(const uint64_t); };").arguments
        self.assertEqual((argument.name, argument.type.c_type, argument.type.note_size(8), argument.type.signed),
                         ("arg0", "uint64_t", 8, False))


if __name__ == "__main__":
    usdt_testing.main()
