"""Wrong arguments to the generated C++ API fail to compile, with a message that names the
probe and the argument; right ones compile. In C, the macros diagnose an argument of the
wrong kind (a string for an integer, an integer for a string) as a call to a function with a
prototype does, with GCC and with Clang, probes compiled in or not, and take every argument a
function would, narrowing included, without a warning. Each case is a one-line call compiled
against the header generated from runtime_probes.d.

Usage (CTest passes these): test_compile_errors.py --header-dir DIR --include-dir DIR --cxx CXX
    --c-compiler CC [--c-compiler CC...]
"""

import argparse
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import usdt_testing

OPTIONS = argparse.Namespace()

PROGRAM = """\
#include "runtime_probes.h"
#include <memory>
#include <string>
struct Point {{ int x, y; }};
void call() {{
    std::string text; std::unique_ptr<int> owned; long long wide = 0; long double real = 0; Point point{{}};
    unsigned __int128 huge = 0; (void)text; (void)owned; (void)wide; (void)real; (void)point; (void)huge;
    {call};
}}
"""

# The call, and the part of the message that must name the probe and the argument.
REJECTED = {
    "a std::string for an integer": (
        "myapp::request_start(text, \"/\")", "myapp::request_start: argument 0 'id' (uint64_t) takes an integer"),
    "a wider integer": (
        "myapp::request_done(wide)", "myapp::request_done: argument 0 'status' (int) takes an integer or enum of at most 4 bytes"),
    "an int for a bool": (
        "myapp::class_('k', 1, short{1}, 1L)", "myapp::class_: argument 1 'flag' (bool) takes a bool"),
    "an integer for a string": (
        "myapp::request_start(1, 42)", "myapp::request_start: argument 1 'path' (const char *) takes a C string"),
    "a struct for a string": (
        "myapp::request_start(1, point)", "myapp::request_start: argument 1 'path'"),
    "a smart pointer for a pointer": (
        "myapp::delete_(owned)", "myapp::delete_: argument 0 'object' (void *) takes an object pointer or nullptr (smart pointers: pass .get())"),
    "a long double for an integer": (
        "register_::done(real)", "register_::done: argument 0 'count' (unsigned int) takes an integer"),
    "an int literal for a narrower integer": (
        "myapp::class_('k', true, 1, 1L)", "myapp::class_: argument 2 'level' (short) takes an integer or enum "
        "of at most 2 bytes (convert wider values explicitly, literals as short{3})"),
    "a lazy callable that returns no tuple": (
        "myapp::request_done_lazy([] { return 5; })",
        "myapp::request_done_lazy: the callable must return std::make_tuple(...) of 1 argument"),
    "a lazy callable that returns too few arguments": (
        "myapp::request_start_lazy([] { return std::make_tuple(1u); })",
        "myapp::request_start_lazy: the callable must return std::make_tuple(...) of 2 arguments"),
    "a lazy argument of the wrong type": (
        "myapp::request_start_lazy([&] { return std::make_tuple(text, text); })",
        "myapp::request_start: argument 0 'id' (uint64_t) takes an integer"),
    "a 128-bit integer": (
        "myapp::request_start(huge, \"/\")", "myapp::request_start: argument 0 'id' (uint64_t) takes an integer or enum of at most 8 bytes"),
}

ACCEPTED = [
    "myapp::request_start(1, text)",
    "myapp::request_start(1u, text.c_str())",
    "myapp::delete_(owned.get())",
    "myapp::class_('k', true, short{1}, wide)",
    "myapp::request_start_lazy([&] { return std::make_tuple(1u, text); })",
]


C_PROGRAM = """\
#include <stddef.h>
#include "runtime_probes.h"
void call(const char *text, char *buffer, int number, long long wide, unsigned char *bytes);
void call(const char *text, char *buffer, int number, long long wide, unsigned char *bytes) {{
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
}
C_ACCEPTED = [
    "MYAPP_REQUEST_START(1, text)",
    "MYAPP_REQUEST_START(wide, buffer)",   # char * for const char *, long long for uint64_t
    "MYAPP_REQUEST_START(-1, NULL)",
    "MYAPP_REQUEST_DONE(wide)",            # narrowing: no -Wconversion, as with dtrace -h's cast
    "MYAPP_CLASS(number, number, number, number)",
    "MYAPP_CLASS('k', text, 1, 1)",       # a pointer converts to bool, as for a function
    "MYAPP_DELETE(0)",
    "MYAPP_DELETE(&number)",
    "MYAPP_DELETE(text)",
    "REGISTER_DONE(-1)",
]


def compile_c_call(compiler, call, *flags):
    with tempfile.TemporaryDirectory(prefix="usdt-compile-") as directory:
        source = Path(directory) / "call.c"
        source.write_text(C_PROGRAM.format(call=call))
        return subprocess.run(
            [compiler, "-std=c99", "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic", "-Werror", *flags,
             f"-I{OPTIONS.header_dir}", f"-I{OPTIONS.include_dir}", str(source)],
            capture_output=True, text=True, check=False)


def compile_call(call):
    with tempfile.TemporaryDirectory(prefix="usdt-compile-") as directory:
        source = Path(directory) / "call.cpp"
        source.write_text(PROGRAM.format(call=call))
        return subprocess.run(
            [OPTIONS.cxx, "-std=c++11", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
             f"-I{OPTIONS.header_dir}", f"-I{OPTIONS.include_dir}", str(source)],
            capture_output=True, text=True, check=False)


class CompileErrorTest(unittest.TestCase):
    def test_wrong_arguments_name_the_probe_and_the_argument(self):
        for case, (call, message) in REJECTED.items():
            with self.subTest(case):
                result = compile_call(call)
                self.assertNotEqual(result.returncode, 0, f"{call} compiled")
                self.assertIn(message, result.stderr)

    def test_natural_arguments_compile(self):
        for call in ACCEPTED:
            with self.subTest(call):
                result = compile_call(call)
                self.assertEqual(result.returncode, 0, result.stderr)


class CTypeTest(unittest.TestCase):
    SETTINGS = ((), ("-DUSDT_DISABLE",))   # probes compiled in, and compiled away

    def compilers(self):
        for compiler in OPTIONS.c_compiler:
            usdt_testing.require_tracer(self, compiler, needs_root=False, package=compiler)
        return OPTIONS.c_compiler

    def test_arguments_of_the_wrong_kind_are_diagnosed(self):
        for compiler in self.compilers():
            for case, (call, diagnostic) in C_REJECTED.items():
                for flags in self.SETTINGS:
                    with self.subTest(compiler=compiler, case=case, flags=flags):
                        result = compile_c_call(compiler, call, *flags)
                        self.assertNotEqual(result.returncode, 0, f"{call} compiled")
                        # GCC says [-Werror=int-conversion], Clang [-Werror,-Wint-conversion].
                        self.assertIn(f"{diagnostic}]", result.stderr)

    def test_what_a_function_takes_compiles_without_a_warning(self):
        for compiler in self.compilers():
            for call in C_ACCEPTED:
                for flags in self.SETTINGS + (("-Wconversion", "-Wsign-conversion"),):
                    with self.subTest(compiler=compiler, call=call, flags=flags):
                        result = compile_c_call(compiler, call, *flags)
                        self.assertEqual(result.returncode, 0, result.stderr)
                        self.assertEqual(result.stderr, "")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--header-dir", required=True)
    parser.add_argument("--include-dir", required=True)
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--c-compiler", action="append", default=[])
    options, sys.argv[1:] = parser.parse_known_args(sys.argv[1:])
    vars(OPTIONS).update(vars(options))
    usdt_testing.main()
