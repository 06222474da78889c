"""Wrong arguments to the generated C++ API fail to compile, with GCC and with Clang, with a
message that says what the argument takes, at the user's call, naming the argument's class
(so its declared type) and its index; right ones compile. From C++20 on, an integer constant
that fits the declared type is accepted, one that does not fit and a variable that would
narrow are not. In C, the macros diagnose an argument of the wrong kind (a string for an
integer, an integer for a string) as a call to a function with a prototype does, probes
compiled in or not, with one diagnostic and a short macro backtrace, and take every argument a
function would, narrowing included, without a warning. Each case is a one-line call in a function of its own, compiled against the header
generated from runtime_probes.d. The cases of one compiler and standard share one translation
unit: the compiler reports every error, and each diagnostic is attributed to the case whose call
line it names, so each case still shows its own message at its own line and column.

Usage (CTest passes these): test_compile_errors.py --header-dir DIR --include-dir DIR
    --cxx-compiler CXX [--cxx-compiler CXX...] --c-compiler CC [--c-compiler CC...]
"""

import argparse
import functools
import re
import subprocess
import tempfile
import unittest
from pathlib import Path
from typing import NamedTuple, Tuple

import usdt_testing

OPTIONS = argparse.Namespace()

PROLOGUE = """\
#include "runtime_probes.h"
#include <memory>
#include <string>
struct Point { int x, y; };
"""
# One case: its call on the line of `{call}`, which the function's name keeps apart from the others'.
CASE = """\
void case_{number}(int number);
void case_{number}(int number) {{
    std::string text; std::unique_ptr<int> owned; long long wide = 0; long double real = 0; Point point{{}};
    __extension__ unsigned __int128 huge = 0; (void)text; (void)owned; (void)wide; (void)real; (void)point; (void)huge;
    (void)number;
    {call};
}}
"""

INTEGER = "usdt: an integer argument takes an integer or enum no wider than its declared type"
BEFORE_CXX20 = "(before C++20, int constants too: uint8_t{200})"
POINTER = "usdt: a pointer argument takes an object pointer or nullptr (smart pointers: pass .get())"
STRING = "usdt: a string argument takes a C string, std::string, std::string_view, nullptr, or a type with usdt_format()"


class Rejected(NamedTuple):
    call: str
    argument: str           # the argument as the call writes it, where Clang points
    index: int
    kind: str               # its class: integer_argument, string_argument...
    declared: Tuple[str, str]   # the declared type as GCC and as Clang name it; () for other kinds
    message: str


# Rejected in every standard: the message, and where and what it names.
REJECTED = {
    "a std::string for an integer": Rejected(
        'myapp::request_start(text, "/")', "text", 0, "integer_argument", ("long unsigned int", "unsigned long"),
        INTEGER),
    "an int for a bool": Rejected(
        "myapp::class_('k', 1, short{1}, 1L)", "1", 1, "bool_argument", (), "usdt: a bool argument takes a bool"),
    "an integer for a string": Rejected(
        "myapp::request_start(1, 42)", "42", 1, "string_argument", (), STRING),
    "a struct for a string": Rejected(
        "myapp::request_start(1, point)", "point", 1, "string_argument", (), STRING),
    "a smart pointer for a pointer": Rejected(
        "myapp::delete_(owned)", "owned", 0, "pointer_argument", (), POINTER),
    "a long double for an integer": Rejected(
        "register_::done(real)", "real", 0, "integer_argument", ("unsigned int", "unsigned int"), INTEGER),
    "a 128-bit integer": Rejected(
        'myapp::request_start(huge, "/")', "huge", 0, "integer_argument", ("long unsigned int", "unsigned long"),
        INTEGER),
}

# Before C++20, a wider integer variable is rejected, and so is an int constant for a narrower
# type, and the message says how to write it.
REJECTED_BEFORE_CXX20 = {
    "a wider integer": Rejected(
        "myapp::request_done(wide)", "wide", 0, "integer_argument", ("int", "int"), INTEGER),
    "an int constant for a short": Rejected(
        "myapp::class_('k', true, 1, 1L)", "1, 1L", 2, "integer_argument", ("short int", "short"),
        f"{INTEGER}; convert other values explicitly {BEFORE_CXX20}"),
    "an int constant for a uint8_t": Rejected(
        "myapp::tiny(200, int8_t{-100}, int16_t{-30000}, uint16_t{60000})", "200", 0, "integer_argument",
        ("unsigned char", "unsigned char"), BEFORE_CXX20),
}

# From C++20 on: constants that do not fit, and variables that would narrow. The compiler's own
# words differ; each names the constant evaluation that failed.
REJECTED_FROM_CXX20 = {
    "a constant too large": ("myapp::tiny(256, 0, 0, 0)", "integer_constant_does_not_fit_the_declared_type"),
    "a negative constant for an unsigned type": (
        "myapp::tiny(0, 0, 0, -1)", "integer_constant_does_not_fit_the_declared_type"),
    "a constant too small": ("myapp::tiny(0, -129, 0, 0)", "integer_constant_does_not_fit_the_declared_type"),
    "an int variable for a uint8_t": ("myapp::tiny(number, 0, 0, 0)", "constant expression"),
    "a wider integer variable": ("myapp::request_done(wide)", "constant expression"),
}

ACCEPTED = [
    "myapp::request_start(1, text)",
    "myapp::request_start(1u, text.c_str())",
    "myapp::request_start(wide, nullptr)",
    "myapp::delete_(owned.get())",
    "myapp::delete_(nullptr)",
    "myapp::class_('k', true, short{1}, wide)",
    "myapp::tiny(uint8_t{200}, int8_t{-100}, int16_t{-30000}, uint16_t{60000})",
    "register_::done(3u)",
]
ACCEPTED_FROM_CXX20 = [
    "myapp::tiny(200, -100, -30000, 60000)",
    "myapp::tiny(255, -128, 32767, 0)",
    "myapp::class_('k', true, 1, 1)",
]


C_PROLOGUE = """\
#include <stddef.h>
#include "runtime_probes.h"
"""
C_CASE = """\
void case_{number}(const char *text, char *buffer, int number, long long wide, unsigned char *bytes);
void case_{number}(const char *text, char *buffer, int number, long long wide, unsigned char *bytes) {{
    (void)text; (void)buffer; (void)number; (void)wide; (void)bytes;
    {call};
}}
"""

# The call, and the diagnostic that must reject it (-Werror): what a function would draw.
C_REJECTED = {
    "a string for an integer": ("MYAPP_REQUEST_START(text, text)", "int-conversion"),
    "an integer for a string": ("MYAPP_REQUEST_START(1, number)", "int-conversion"),
    "an integer for a pointer": ("MYAPP_DELETE(number)", "int-conversion"),
    "a pointer of another signedness for a string": ("MYAPP_REQUEST_START(1, bytes)", "pointer-sign"),
    "a string for a narrower integer": ("MYAPP_TINY(text, 0, 0, 0)", "int-conversion"),
    "a long integer for a pointer": ("MYAPP_DELETE(wide)", "int-conversion"),
}
C_ACCEPTED = [
    "MYAPP_REQUEST_START(1, text)",
    "MYAPP_REQUEST_START(wide, buffer)",   # char * for const char *, long long for uint64_t
    "MYAPP_REQUEST_START(-1, NULL)",
    "MYAPP_REQUEST_DONE(wide)",            # narrowing: no -Wconversion, as with dtrace -h's cast
    "MYAPP_CLASS(number, number, number, number)",
    "MYAPP_CLASS('k', text, 1, 1)",       # a pointer converts to bool, as for a function
    "MYAPP_TINY(200, -100, -30000, 60000)",
    "MYAPP_DELETE(0)",
    "MYAPP_DELETE(&number)",
    "MYAPP_DELETE(text)",
    "REGISTER_DONE(-1)",
]


class Batch(NamedTuple):
    """One compile of several calls: the exit status, the whole stderr, and per case its call
    line and the diagnostics attributed to it."""
    returncode: int
    stderr: str
    lines: dict
    diagnostics: dict


# The lines that lead into a diagnostic: the include chain, GCC's "In function ..." and
# "In instantiation of ..." context, and its "required from" chain.
LEAD_IN = re.compile(r"In file included from |\s+from |[^\s:][^:]*: In |\S+:\d+:\d+:   (required|in )")
DIAGNOSTIC = re.compile(r"\S+:\d+:\d+: (fatal error|error|warning):")
MACRO_NOTE = re.compile(r"note: (in expansion of|in definition of|expanded from) macro")
# A source excerpt and its caret line, which belong to the line above them: GCC 14 and later quote
# the call under "required from here" too.
EXCERPT = re.compile(r" +(\d+ )?\|")
SUMMARY = re.compile(r"\d+ (errors?|warnings?)( and \d+ (errors?|warnings?))? generated\.$")


def diagnostic_groups(stderr):
    """stderr split into diagnostics, each with its lead-in lines, notes and source excerpts."""
    groups, leading_in = [], False
    for line in stderr.splitlines():
        if SUMMARY.match(line):
            continue
        if EXCERPT.match(line) and groups:
            groups[-1].append(line)
            continue
        lead_in = bool(LEAD_IN.match(line))
        if (lead_in or DIAGNOSTIC.match(line)) and not leading_in:
            groups.append([])
        leading_in = lead_in
        if not groups:
            groups.append([])
        groups[-1].append(line)
    return ["\n".join(group) + "\n" for group in groups]


def compile_batch(compiler, prologue, case, calls, suffix, flags):
    """Compiles the `calls` ({case name: call}) in one translation unit, each in a function of its
    own, and attributes each diagnostic to the one case whose call line it names; a diagnostic
    naming no case line, or several, fails the compile as a whole (AssertionError)."""
    text, lines = prologue, {}
    for number, (name, call) in enumerate(calls.items()):
        function = case.format(number=number, call=call)
        lines[name] = text.count("\n") + function.splitlines().index(f"    {call};") + 1
        text += function
    source_name = f"call{suffix}"
    with tempfile.TemporaryDirectory(prefix="usdt-compile-") as directory:
        (Path(directory) / source_name).write_text(text)
        result = subprocess.run(
            [compiler, "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic", "-Werror", *flags,
             *(["-ferror-limit=0"] if is_clang(compiler) else ["-fmax-errors=0"]),
             f"-I{OPTIONS.header_dir}", f"-I{OPTIONS.include_dir}", source_name],
            capture_output=True, text=True, check=False, cwd=directory)
    case_of_line = {line: name for name, line in lines.items()}
    diagnostics = {name: "" for name in calls}
    for group in diagnostic_groups(result.stderr):
        named = {case_of_line[int(line)] for line in re.findall(rf"^{re.escape(source_name)}:(\d+):", group, re.M)
                 if int(line) in case_of_line}
        if len(named) != 1:
            raise AssertionError(f"{compiler}: a diagnostic naming {sorted(named) or 'no case'}:\n{group}"
                                 f"in\n{result.stderr}")
        diagnostics[named.pop()] += group
    return Batch(result.returncode, result.stderr, lines, diagnostics)


@functools.lru_cache(maxsize=None)
def compile_cxx_cases(compiler, standard, names):
    """The C++ cases `names` (keys of REJECTED... or ACCEPTED calls) in one translation unit."""
    return compile_batch(compiler, PROLOGUE, CASE, {name: CXX_CALLS[name] for name in names}, ".cpp",
                         (f"-std={standard}",))


@functools.lru_cache(maxsize=None)
def compile_c_cases(compiler, names, flags):
    return compile_batch(compiler, C_PROLOGUE, C_CASE, {name: C_CALLS[name] for name in names}, ".c",
                         ("-std=c99", *flags))


def is_clang(compiler):
    return "clang" in Path(compiler).name


# Every call by its name: a rejected case's name, an accepted call itself.
CXX_CALLS = {
    **{name: case.call for name, case in {**REJECTED, **REJECTED_BEFORE_CXX20}.items()},
    **{name: call for name, (call, _) in REJECTED_FROM_CXX20.items()},
    **{call: call for call in ACCEPTED + ACCEPTED_FROM_CXX20},
}
C_CALLS = {**{name: call for name, (call, _) in C_REJECTED.items()}, **{call: call for call in C_ACCEPTED}}

# The translation units of rejected calls, by standard.
REJECTED_IN = {
    "c++11": tuple(REJECTED) + tuple(REJECTED_BEFORE_CXX20),
    "c++20": tuple(REJECTED) + tuple(REJECTED_FROM_CXX20),
}


class CompilerTestCase(unittest.TestCase):
    def compilers(self, compilers):
        for compiler in compilers:
            usdt_testing.require_tracer(self, compiler, needs_root=False, package=compiler)
        return compilers

    def assertRejected(self, batch, case):
        """The case drew an error of its own, and the compile failed."""
        self.assertNotEqual(batch.returncode, 0, batch.stderr)
        self.assertRegex(batch.diagnostics[case], r"(?m)^\S+:\d+:\d+: error:",
                         f"{case} compiled; the translation unit's stderr:\n{batch.stderr}")

    def assertAccepted(self, batch):
        self.assertEqual(batch.returncode, 0, batch.stderr)
        self.assertEqual(batch.stderr, "")


class CompileErrorTest(CompilerTestCase):
    def assertNamesTheArgument(self, compiler, case, line, stderr):
        """The message, at the case's call line, with the argument's class and index: GCC in its
        "In instantiation of" line, Clang in its note, which points at the argument itself."""
        self.assertIn(case.message, stderr)
        call = f"    {case.call};"
        if is_clang(compiler):
            column = call.index(case.argument) + 1
            declared = f"{case.declared[1]}, " if case.declared else ""
            self.assertIn(f"call.cpp:{line}:{column}: note: in instantiation of function template "
                          f"specialization 'usdt::{case.kind}<{declared}{case.index}>::", stderr)
        else:
            declared = f"Declared = {case.declared[0]}; " if case.declared else ""
            self.assertIn(f"{declared}int ArgumentIndex = {case.index}]", stderr)
            self.assertIn(f"call.cpp:{line}:", stderr)

    def test_wrong_arguments_name_the_argument_and_what_it_takes(self):
        for compiler in self.compilers(OPTIONS.cxx_compiler):
            for standard, cases in (("c++11", {**REJECTED, **REJECTED_BEFORE_CXX20}), ("c++20", REJECTED)):
                batch = compile_cxx_cases(compiler, standard, REJECTED_IN[standard])
                for case, rejected in cases.items():
                    with self.subTest(compiler=compiler, standard=standard, case=case):
                        self.assertRejected(batch, case)
                        self.assertNamesTheArgument(compiler, rejected, batch.lines[case], batch.diagnostics[case])

    def test_the_hint_on_int_constants_is_for_integers_only(self):
        case = "a std::string for an integer"
        for compiler in self.compilers(OPTIONS.cxx_compiler):
            with self.subTest(compiler=compiler):
                diagnostics = compile_cxx_cases(compiler, "c++11", REJECTED_IN["c++11"]).diagnostics[case]
                self.assertIn(f"{INTEGER}; convert other values explicitly", diagnostics)
                self.assertNotIn(BEFORE_CXX20, diagnostics)

    def test_constants_that_do_not_fit_and_narrowing_variables_are_rejected_from_cxx20(self):
        for compiler in self.compilers(OPTIONS.cxx_compiler):
            batch = compile_cxx_cases(compiler, "c++20", REJECTED_IN["c++20"])
            for case, (_, message) in REJECTED_FROM_CXX20.items():
                with self.subTest(compiler=compiler, case=case):
                    self.assertRejected(batch, case)
                    self.assertIn(message, batch.diagnostics[case])
                    self.assertIn(f"call.cpp:{batch.lines[case]}:", batch.diagnostics[case])

    def test_natural_arguments_compile(self):
        for compiler in self.compilers(OPTIONS.cxx_compiler):
            for standard, calls in (("c++11", ACCEPTED), ("c++17", ACCEPTED), ("c++20", ACCEPTED + ACCEPTED_FROM_CXX20)):
                with self.subTest(compiler=compiler, standard=standard):
                    # All in one translation unit: a rejected call would say which line.
                    self.assertAccepted(compile_cxx_cases(compiler, standard, tuple(calls)))


class CTypeTest(CompilerTestCase):
    SETTINGS = ((), ("-DUSDT_DISABLE",))   # probes compiled in, and compiled away

    def test_arguments_of_the_wrong_kind_are_diagnosed(self):
        for compiler in self.compilers(OPTIONS.c_compiler):
            for flags in self.SETTINGS:
                batch = compile_c_cases(compiler, tuple(C_REJECTED), flags)
                for case, (_, diagnostic) in C_REJECTED.items():
                    with self.subTest(compiler=compiler, case=case, flags=flags):
                        self.assertRejected(batch, case)
                        # GCC says [-Werror=int-conversion], Clang [-Werror,-Wint-conversion].
                        self.assertIn(f"{diagnostic}]", batch.diagnostics[case])
                        self.assertIn(f"call.c:{batch.lines[case]}:", batch.diagnostics[case])
                        # One diagnostic, not a second from the conversion after the check, and a
                        # short macro backtrace: the check is at the top of the probe's macro.
                        self.assertEqual(len(DIAGNOSTIC.findall(batch.diagnostics[case])), 1, batch.diagnostics[case])
                        self.assertLessEqual(len(MACRO_NOTE.findall(batch.diagnostics[case])), 4,
                                             batch.diagnostics[case])

    def test_what_a_function_takes_compiles_without_a_warning(self):
        for compiler in self.compilers(OPTIONS.c_compiler):
            for flags in self.SETTINGS + (("-Wconversion", "-Wsign-conversion"),):
                with self.subTest(compiler=compiler, flags=flags):
                    self.assertAccepted(compile_c_cases(compiler, tuple(C_ACCEPTED), flags))


def add_options(parser):
    parser.add_argument("--header-dir", required=True)
    parser.add_argument("--include-dir", required=True)
    parser.add_argument("--cxx-compiler", action="append", default=[])
    parser.add_argument("--c-compiler", action="append", default=[])


if __name__ == "__main__":
    options, _ = usdt_testing.parse_options(add_options)
    vars(OPTIONS).update(vars(options))
    usdt_testing.main()
