"""The argument rule of docs/api.md ("What an argument takes"), checked mechanically: every
declared type of the .d grammar (usdtgen.types) against every kind of argument expression, through
the C++ API and through the probe macros in C++, with each C++ compiler at C++11, C++17 and C++20.

The expected verdict is not a table: it is the rule itself, written below with <type_traits>
(RULES), which the compiler evaluates for each case on the case's own line, in a static_assert that
fails when the rule refuses the argument. So a case is one line that must draw the rule's error
exactly when the call on it draws errors of its own, and each refusal must name the argument's
index and say what it takes. All cases of one compiler and standard share one translation unit
(test_compile_errors.diagnostic_groups attributes each diagnostic to its line).

Usage (CTest passes these): test_argument_rule.py --include-dir DIR --cxx-compiler CXX [...]
"""

import argparse
import functools
import re
import subprocess
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import usdt_testing
from test_compile_errors import diagnostic_groups, is_clang
from usdtgen import header_view, model, render, types
from usdtgen.errors import SourceLocation
from usdtgen.parser import parse

OPTIONS = argparse.Namespace()
STANDARDS = ("c++11", "c++17", "c++20")

# Every declared type the grammar resolves (types.py's tables, bool, strings, pointers), once per
# C type the header gives it: the C++ API's class and the macros' cast depend on that alone.
DECLARED_SPELLINGS = (list(types.NAMED_INTEGERS) + list(types.KEYWORD_INTEGERS)
                      + ["char", "bool", "string", "char *", "const char *", "void *", "struct point *"])


def declared_types():
    by_c_type = {}
    for spelling in DECLARED_SPELLINGS:
        resolved = types.resolve(spelling.replace("*", " * ").split(), SourceLocation("rule.d", 1, 1))
        by_c_type.setdefault(resolved.c_type, (spelling, resolved))
    return list(by_c_type.values())


# The argument expressions: name -> (expression, first standard it compiles in). Their variables
# are PROLOGUE's.
EXPRESSIONS = {
    **{f"a {name} variable": (f"v_{name.replace(' ', '_')}", "c++11") for name in (
        "signed char", "unsigned char", "char", "short", "unsigned short", "int", "unsigned", "long",
        "unsigned long", "long long", "unsigned long long", "bool", "wchar_t", "char16_t", "char32_t",
        "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
        "size_t", "ssize_t", "uintptr_t", "ptrdiff_t", "pid_t", "double", "float", "int128")},
    "a volatile int8_t": ("volatile_int8", "c++11"),
    "a const volatile int": ("const_volatile_int", "c++11"),
    "a volatile uint64_t": ("volatile_uint64", "c++11"),
    "a const volatile bool": ("const_volatile_bool", "c++11"),
    "a const int (a constant)": ("const_int", "c++11"),
    "an int reference": ("int_reference", "c++11"),
    "a const int reference": ("const_int_reference", "c++11"),
    "an unsigned bit-field": ("bits.small", "c++11"),
    "a uint64_t bit-field": ("bits.wide", "c++11"),
    "a bool bit-field": ("bits.flag", "c++11"),
    "a volatile bit-field": ("bits.shaky", "c++11"),
    "an enum variable": ("color", "c++11"),
    "an enumerator": ("red", "c++11"),
    "an enum with uint8_t underlying": ("small_enum", "c++11"),
    "a scoped enum": ("Scoped::one", "c++11"),
    "a scoped enum of int64_t": ("wide_scoped", "c++11"),
    "0": ("0", "c++11"),
    "1": ("1", "c++11"),
    "-1": ("-1", "c++11"),
    "200": ("200", "c++11"),
    "70000": ("70000", "c++11"),
    "1L": ("1L", "c++11"),
    "1ull": ("1ull", "c++11"),
    "'c'": ("'c'", "c++11"),
    "true": ("true", "c++11"),
    "1.5": ("1.5", "c++11"),
    "NULL": ("NULL", "c++11"),
    "nullptr": ("nullptr", "c++11"),
    "a string literal": ('"literal"', "c++11"),
    "an int8_t{-1} temporary": ("std::int8_t{-1}", "c++11"),
    "a call returning int": ("make_int()", "c++11"),
    "a const char pointer": ("c_string", "c++11"),
    "a char pointer": ("chars", "c++11"),
    "a const pointer to char": ("const_pointer", "c++11"),
    "a const unsigned char pointer": ("bytes", "c++11"),
    "a volatile char pointer": ("volatile_chars", "c++11"),
    "an int pointer": ("&v_int", "c++11"),
    "a const volatile int pointer": ("const_volatile_int_pointer", "c++11"),
    "a void pointer": ("void_pointer", "c++11"),
    "a function pointer": ("function_pointer", "c++11"),
    "a char array": ("buffer", "c++11"),
    "a const char array": ("const_buffer", "c++11"),
    "an int array": ("ints", "c++11"),
    "a std::string": ("text", "c++11"),
    "a const std::string reference": ("text_reference", "c++11"),
    "a std::string temporary": ('std::string("x")', "c++11"),
    "a std::string_view": ("view", "c++17"),
    "a type with usdt_format()": ("order", "c++11"),
    "a struct": ("point", "c++11"),
    "a std::atomic<int>": ("counter", "c++11"),
    "a std::atomic<bool>": ("atomic_flag", "c++11"),
    "a std::unique_ptr": ("owned", "c++11"),
}

PROLOGUE = """\
#include "rule.h"
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#if __cplusplus >= 201703L
#include <string_view>
std::string_view view;
#endif

signed char v_signed_char; unsigned char v_unsigned_char; char v_char; short v_short;
unsigned short v_unsigned_short; int v_int; unsigned v_unsigned; long v_long; unsigned long v_unsigned_long;
long long v_long_long; unsigned long long v_unsigned_long_long; bool v_bool; wchar_t v_wchar_t;
char16_t v_char16_t; char32_t v_char32_t; std::int8_t v_int8_t; std::uint8_t v_uint8_t; std::int16_t v_int16_t;
std::uint16_t v_uint16_t; std::int32_t v_int32_t; std::uint32_t v_uint32_t; std::int64_t v_int64_t;
std::uint64_t v_uint64_t; std::size_t v_size_t; ssize_t v_ssize_t; std::uintptr_t v_uintptr_t;
std::ptrdiff_t v_ptrdiff_t; pid_t v_pid_t; double v_double; float v_float; __extension__ __int128 v_int128;
volatile std::int8_t volatile_int8 = -1; const volatile int const_volatile_int = 1;
volatile std::uint64_t volatile_uint64; const volatile bool const_volatile_bool = true; const int const_int = 5;
int &int_reference = v_int; const int &const_int_reference = v_int;
struct Bits { unsigned small : 3; std::uint64_t wide : 40; bool flag : 1; volatile unsigned shaky : 2; } bits;
enum Color { red, green } color; enum Small : std::uint8_t { tiny } small_enum;
enum class Scoped { one }; enum class WideScoped : std::int64_t { big } wide_scoped;
int make_int();
const char *c_string; char *chars; char *const const_pointer = nullptr; const unsigned char *bytes;
volatile char *volatile_chars; const volatile int *const_volatile_int_pointer; void *void_pointer;
void (*function_pointer)(); char buffer[16]; const char const_buffer[4] = "abc"; int ints[4];
std::string text; const std::string &text_reference = text; struct Point { int x, y; } point;
namespace shop { struct Order { int id; }; std::string usdt_format(const Order &); } shop::Order order;
std::atomic<int> counter; std::atomic<bool> atomic_flag; std::unique_ptr<int> owned;
"""

REFUSED_BY_RULE = "usdt-test: the rule refuses this argument"

# The rule, as docs/api.md words it, in terms of the standard's traits. A static_assert of
# RULE_API_<KIND>(declared type, expression) fails exactly when the rule refuses the argument.
RULES = f"""\
#define REFUSED_BY_THE_RULE "{REFUSED_BY_RULE}" /* in the message, not on the case's line */
template <class E> using bare = typename std::remove_cv<typename std::remove_reference<E>::type>::type;
template <class...> struct make_void {{ using type = void; }};
template <class... T> using void_t = typename make_void<T...>::type;

/* Integer arguments. (1) An integer or enum type no wider than the declared type; (2) from C++20
   on, also an integer constant that the declared type holds. */
template <class D, class E> constexpr bool integer_type_fits() {{
    return (std::is_integral<bare<E>>::value || std::is_enum<bare<E>>::value) && sizeof(bare<E>) <= sizeof(D);
}}
template <bool Integral> struct constant_fits {{
    template <class D, class V> static constexpr bool check(V value) {{
        return static_cast<long double>(static_cast<D>(value)) == static_cast<long double>(value);
    }}
}};
template <> struct constant_fits<false> {{
    template <class D, class V> static constexpr bool check(const V &) {{ return false; }}
}};
#define RULE_API_INTEGER(D, e) (integer_type_fits<D, decltype((e))>() \\
    || (__cplusplus > 201703L && std::is_integral<bare<decltype((e))>>::value && __builtin_constant_p(e) \\
        && constant_fits<std::is_integral<bare<decltype((e))>>::value>::template check<D>(e)))

/* Bool arguments: a bool. */
#define RULE_API_BOOL(D, e) (std::is_same<bare<decltype((e))>, bool>::value)

/* String arguments: what a `const char *` parameter takes (null pointer constants included), or a
   class object with c_str(), with data() and size(), or with usdt_format(). */
std::true_type takes_c_string(const char *); std::false_type takes_c_string(...);
template <class T, class = void> struct string_class : std::false_type {{}};
template <class T> struct string_class<T, void_t<decltype(static_cast<const char *>(std::declval<T &>().c_str()))>>
    : std::true_type {{}};
template <class T, class = void> struct has_data_and_size : std::false_type {{}};
template <class T> struct has_data_and_size<T, void_t<decltype(static_cast<const char *>(std::declval<T &>().data())),
                                                      decltype(std::declval<T &>().size())>> : std::true_type {{}};
template <class T, class = void> struct formatted : std::false_type {{}};
template <class T> struct formatted<T, void_t<decltype(usdt_format(std::declval<T &>()).c_str())>> : std::true_type {{}};
template <class E, class T = typename std::remove_reference<E>::type> constexpr bool string_object() {{
    return std::is_class<T>::value && (string_class<const T>::value || has_data_and_size<const T>::value
                                       || formatted<const T>::value);
}}
#define RULE_API_STRING(D, e) (decltype(takes_c_string(e))::value || string_object<decltype((e))>())

/* Pointer arguments: what a `const volatile void *` parameter takes: object pointers, arrays,
   nullptr and null pointer constants. */
std::true_type takes_address(const volatile void *); std::false_type takes_address(...);
#define RULE_API_POINTER(D, e) (decltype(takes_address(e))::value)

/* The macros cast, as dtrace -h's do, and refuse in C++ only what is always a mistake: for an
   integer, an address (pointer, array, nullptr) or a class object; for a string or pointer, what a
   `const volatile void *` parameter does not take (an integer that is no null pointer constant);
   for a bool, what a cast to bool does not take. */
#define RULE_MACRO_INTEGER(D, e) (!std::is_pointer<bare<decltype((e))>>::value \\
    && !std::is_array<bare<decltype((e))>>::value && !std::is_same<bare<decltype((e))>, std::nullptr_t>::value \\
    && !std::is_class<bare<decltype((e))>>::value && !std::is_union<bare<decltype((e))>>::value)
template <class E, class = void> struct casts_to_bool : std::false_type {{}};
template <class E> struct casts_to_bool<E, void_t<decltype((bool)std::declval<E>())>> : std::true_type {{}};
#define RULE_MACRO_BOOL(D, e) (casts_to_bool<decltype((e))>::value)
#define RULE_MACRO_STRING(D, e) RULE_API_POINTER(D, e)
#define RULE_MACRO_POINTER(D, e) RULE_API_POINTER(D, e)
"""

# Warnings whose verdict is the compiler's, not the rule's: GCC's of NULL (an integer, __null,
# in C++) passed for an integer, which it gives a function taking one too.
NOT_THE_RULES_BUSINESS = ("-Wno-conversion-null",)

KIND_NAMES = {types.Kind.INTEGER: "INTEGER", types.Kind.BOOLEAN: "BOOL", types.Kind.STRING: "STRING",
              types.Kind.POINTER: "POINTER"}

# What a refusal says the argument takes, by kind: the C++ API's static_assert messages, and the
# macros'; each also names the argument (index 1).
API_TAKES = {
    types.Kind.INTEGER: "usdt: an integer argument takes an integer or enum no wider than its declared type",
    types.Kind.BOOLEAN: "usdt: a bool argument takes a bool",
    types.Kind.STRING: "usdt: a string argument takes a C string, std::string, std::string_view, nullptr",
    types.Kind.POINTER: "usdt: a pointer argument takes an object pointer or nullptr",
}
MACRO_TAKES = {
    types.Kind.INTEGER: "usdt: argument {index} of this probe is an integer: it takes",
    types.Kind.BOOLEAN: "usdt: argument {index} of this probe is a bool: it takes",
    types.Kind.STRING: "usdt: argument {index} of this probe is a string: it takes",
    types.Kind.POINTER: "usdt: argument {index} of this probe is a pointer: it takes",
}
# From C++20 on, an integer constant's check is a consteval constructor: the compiler's words.
CONSTEVAL = re.compile(r"constant expression|integer_constant_does_not_fit_the_declared_type"
                       r"|call to non-.constexpr. function")


def cases(declared, standard):
    """(name, through, kind, index, line) of each case, `through` "api" or "macro", and the
    provider file the macro cases call: a probe per declared type, the type at index 1 (index 0 is
    an int). An API case initializes the parameter type of the C++ API, as a call does, with an
    index of its own: a compiler reports a function template's error once per specialization, so
    a second case refused by the same constructor of the same class would draw no error."""
    result, probes = [], []
    for number, (spelling, resolved) in enumerate(declared):
        kind = KIND_NAMES[resolved.kind]
        probes.append(f"    probe t{number}(int first, {spelling} tested);\n")
        for name, (expression, since) in EXPRESSIONS.items():
            if STANDARDS.index(standard) < STANDARDS.index(since):
                continue
            index = 2 + len(result) // 2
            parameter = (f"::usdt::integer_argument<{resolved.c_type}, {index}>" if resolved.kind == types.Kind.INTEGER
                         else f"::usdt::{header_view.CXX_ARGUMENT_TYPES[resolved.kind]}<{index}>")
            for through, index, call in (("api", index, f"{parameter} tested = {expression}; (void)tested"),
                                         ("macro", 1, f"RULE_T{number}(0, {expression})")):
                rule = f"RULE_{through.upper()}_{kind}({resolved.c_type}, {expression})"
                line = f"    {{ static_assert({rule}, REFUSED_BY_THE_RULE); {call}; }}"
                result.append((f"{spelling} <- {name} ({through})", through, resolved.kind, index, line))
    return result, f"struct point;\nprovider rule {{\n{''.join(probes)}}};\n"


class Verdicts:
    """One compile of every case: per case, whether the rule refused it, whether the call drew
    errors of its own, and those errors."""

    def __init__(self, compiler, standard):
        self.cases, provider_file = cases(declared_types(), standard)
        with tempfile.TemporaryDirectory(prefix="usdt-rule-") as directory:
            source = model.build(parse(provider_file, "rule.d"), "rule.d", "rule.d")
            (Path(directory) / "rule.h").write_text(render.render(source, ["header"])["header"])
            text = PROLOGUE + RULES + "void cases();\nvoid cases() {\n"
            first_line = text.count("\n") + 1
            text += "".join(line + "\n" for *_, line in self.cases) + "}\n"
            (Path(directory) / "cases.cpp").write_text(text)
            result = subprocess.run(
                [compiler, f"-std={standard}", "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                 *NOT_THE_RULES_BUSINESS, *(["-ferror-limit=0"] if is_clang(compiler) else ["-fmax-errors=0"]),
                 f"-I{OPTIONS.include_dir}", "-I.", "cases.cpp"],
                capture_output=True, text=True, check=False, cwd=directory)
        self.stderr = result.stderr
        self.refused_by_rule = [False] * len(self.cases)
        self.errors = [""] * len(self.cases)
        number = None
        for group in diagnostic_groups(result.stderr):
            lines = {int(line) - first_line for line in re.findall(r"^cases\.cpp:(\d+):", group, re.M)}
            numbers = [line for line in lines if 0 <= line < len(self.cases)]
            if len(numbers) > 1 or (not numbers and (number is None or re.search(r": (error|warning):", group))):
                raise AssertionError(f"{compiler} {standard}: a diagnostic naming no single case:\n{group}")
            # A group of notes alone (an ambiguous call's candidates) continues the one before it.
            number = numbers[0] if numbers else number
            if REFUSED_BY_RULE in group:
                self.refused_by_rule[number] = True
            else:
                self.errors[number] += group


@functools.lru_cache(maxsize=None)
def verdicts(compiler, standard):
    return Verdicts(compiler, standard)


class ArgumentRuleTest(unittest.TestCase):
    def compilers(self):
        for compiler in OPTIONS.cxx_compiler:
            usdt_testing.require_tracer(self, compiler, needs_root=False, package=compiler)
        # Two compilers at once: each takes seconds, and the tests read the same results.
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(lambda pair: verdicts(*pair),
                          [(compiler, standard) for compiler in OPTIONS.cxx_compiler for standard in STANDARDS]))
        return OPTIONS.cxx_compiler

    def test_every_declared_type_of_the_grammar_is_covered(self):
        """Every C type a declared type resolves to has a probe (the list above is the grammar's)."""
        c_types = {resolved.c_type for _, resolved in declared_types()}
        for spelling in list(types.NAMED_INTEGERS) + list(types.KEYWORD_INTEGERS):
            with self.subTest(spelling=spelling):
                self.assertIn(types.resolve(spelling.split(), SourceLocation("rule.d", 1, 1)).c_type, c_types)

    def test_calls_compile_exactly_when_the_rule_accepts(self):
        for compiler in self.compilers():
            for standard in STANDARDS:
                result = verdicts(compiler, standard)
                disagreements = [
                    f"{name}: the rule {'refuses' if refused else 'accepts'}, the call "
                    f"{'compiles' if not errors else 'does not compile:' + chr(10) + errors}"
                    for (name, *_), refused, errors in zip(result.cases, result.refused_by_rule, result.errors)
                    if refused != bool(errors)]
                with self.subTest(compiler=compiler, standard=standard):
                    self.assertEqual(disagreements, [], "\n".join(disagreements[:20]))

    def test_every_refusal_names_the_argument_and_what_it_takes(self):
        for compiler in self.compilers():
            for standard in STANDARDS:
                result = verdicts(compiler, standard)
                for (name, through, kind, index, _), errors in zip(result.cases, result.errors):
                    if not errors:
                        continue
                    with self.subTest(compiler=compiler, standard=standard, case=name):
                        if through == "macro":
                            self.assertIn(MACRO_TAKES[kind].format(index=index), errors)
                        elif standard == "c++20" and kind == types.Kind.INTEGER and CONSTEVAL.search(errors):
                            # The consteval constructor: Clang names the class, GCC the value.
                            if is_clang(compiler):
                                self.assertRegex(errors, rf"integer_argument<[^>]*, {index}>")
                        else:
                            self.assertIn(API_TAKES[kind], errors)
                            self.assertRegex(errors, rf"ArgumentIndex = {index}\]|_argument<(?:[^<>]*, )?{index}>")


def add_options(parser):
    parser.add_argument("--include-dir", required=True)
    parser.add_argument("--cxx-compiler", action="append", default=[])


if __name__ == "__main__":
    options, _ = usdt_testing.parse_options(add_options)
    vars(OPTIONS).update(vars(options))
    usdt_testing.main()
