"""The generator's input contract under fuzzing: the CI run of fuzz.py (seeded, bounded in
time), then hand-written adversarial inputs that try to carry text from a provider file, or
from its file name, into the generated C, C++ or assembler.

Usage (CTest passes these): test_fuzz.py [--cc CC] [--cxx CXX] [--failures DIR]
"""

import argparse
import sys
import tempfile
import unittest
from pathlib import Path

import usdt_testing

import fuzz
import harness

OPTIONS = argparse.Namespace(cc="gcc", cxx="g++", failures=None)

# Text that must never reach the output other than as an identifier (quotes, new lines,
# statement and directive syntax, assembler operands and sections, escapes), then
# identifiers that the generated code cannot take (macros, types, the runtime's own names).
ADVERSARIAL_PROVIDERS = {
    "quote in a probe name": 'provider p { probe a"b(int x); };',
    "quoted probe name": 'provider p { probe "a"(int x); };',
    "new line in a name": "provider p { probe a\nb(int x); };",
    "escaped new line in a name": "provider p { probe a\\\nb(int x); };",
    "semicolon in a provider name": "provider p;q { probe a(int x); };",
    "section directive as a name": "provider p { probe .section(int x); };",
    "section directive in a string": 'provider p { probe a(int x) : (".section .text"); };',
    "percent operand in a name": "provider p { probe a%0(int x); };",
    "dollar in a name": "provider p$1 { probe a(int x); };",
    "at sign in a type": "provider p { probe a(int@x y); };",
    "backslash in a name": "provider p { probe a\\b(int x); };",
    "NUL in a name": "provider p { probe a\0b(int x); };",
    "comment splitting a name": "provider p { probe a/**/b(int x); };",
    "unicode identifier": "provider p { probe caf\u00e9(int x); };",
    "zero-width space in a name": "provider p { probe a\u200bb(int x); };",
    "string literal as a type": 'provider p { probe a("int" x); };',
    "type words with a comment terminator": "provider p { probe a(int */ x); };",
    "pragma target with a quote": '#pragma usdt semaphore p:"a"\nprovider p { probe a(int x); };',
    "pragma target with a percent": "#pragma usdt semaphore p:%0\nprovider p { probe a(int x); };",
    "pragma setting with a section": "#pragma usdt .section p:*\nprovider p { probe a(int x); };",
    "line marker naming a new line": '# 3 "a\\nb.d"\nprovider p { probe a(unknown_t x); };',
    "line marker naming a carriage return": '# 3 "a\\rb.d"\nprovider p { probe a(unknown_t x); };',
    "line marker with a comment terminator": '# 3 "*/ int x; /*"\nprovider p { probe a(int x); };',
    "line marker naming an endless file": '# 1 "/dev/zero"\nprovider p { probe a(int x); };',
    "line marker naming no file": '# 5 ""\nprovider p { probe a(unknown_t x); };',
    "macro expanding to a quote": '#define NAME a"b\nprovider p { probe NAME(int x); };',
    "macro expanding to an asm statement": '#define T int); __asm__(".section x"\nprovider p { probe a(T x); };',
    "argument named like a <stdint.h> macro": "provider p { probe a(int INT8_MAX); };",
    "argument named like GNU's predefined macro": "provider p { probe a(int linux); };",
    "argument named NULL": "provider p { probe a(int NULL); };",
    "provider named like GNU's predefined macro": "provider unix { probe a(int x); };",
    "probe macro named like the runtime's": "provider usdt { probe probe(int x); };",
    "probe macro named like a <stdint.h> macro": "provider SIZE { probe MAX(int x); };",
    "provider named like the runtime's namespace": "provider usdt { probe detail(int x); };",
    "probe named like a template parameter": "provider p { probe UsdtArg0(int x); };",
    "argument named like a type it uses": "provider p { probe a(int32_t int64_t, int64_t b); };",
    "probe macro named like a libstdc++ one": "provider _ { probe n(void); };",
    "argument named like a GNU keyword": "provider p { probe a(int __asm__); };",
    "provider named like a <stdint.h> type": "provider uint32_t { probe a(int x); };",
}

# The input file's name reaches the banner, the include guard and the `#error` text; the
# header's own name is `#include`d by the programs that call the probes.
ADVERSARIAL_FILE_NAMES = ('a"b.d', "a b.d", "a\\b.d", "1st.d", "caf\u00e9.d", "x*y.d", "-x.d", "no-suffix",
                          "a.b.d", "%s.d", "a'b.d")

BODY = b"provider p { probe a(int x, const char *s); };\n"


def compilers():
    return (harness.Compiler(OPTIONS.cc, "c", "c99"), harness.Compiler(OPTIONS.cxx, "c++", "gnu++11"))


class FuzzTest(unittest.TestCase):
    def setUp(self):
        directory = tempfile.TemporaryDirectory(prefix="usdt-fuzz-test-")
        self.addCleanup(directory.cleanup)
        self.directory = Path(directory.name)
        self.generator = harness.GeneratorProcess(self.directory)
        self.addCleanup(self.generator.close)

    def problems(self, data: bytes, name: str = harness.INPUT_NAME) -> list:
        """What breaks the contract for one input, compiling the output when there is one.
        (The text checks assume the fuzzer's ASCII file name; other names are judged by
        whether their output compiles.)"""
        outcome = self.generator.run(data, name=name)
        if outcome.kind != "generated" or name == harness.INPUT_NAME:
            found = harness.problem(outcome)
            if found:
                return [found]
        if outcome.kind != "generated":
            return []
        stem = name[:-2] if name.endswith(".d") else name
        case = self.directory / "case"
        harness.write_case(case, outcome, stem)
        return [problem for problem in (harness.compile_case(case, compiler) for compiler in compilers()) if problem]

    def test_ci_fuzz_run_keeps_the_contract(self):
        report = fuzz.run(seed=1, inputs=fuzz.CI_INPUTS, compiled=fuzz.CI_COMPILED, budget=fuzz.CI_BUDGET,
                          compilers=compilers())
        print(report.summary(), file=sys.stderr)
        if report.failures and OPTIONS.failures:
            fuzz.save_failures(report, OPTIONS.failures)
        if report.failures:
            listed = "\n".join(f"{data[:200]!r}\n    -> {found[:600]}" for data, found in report.failures[:10])
            kept = f" (inputs and problems in {OPTIONS.failures})" if OPTIONS.failures else ""
            self.fail(f"{len(report.failures)} inputs broke the contract{kept}:\n{listed}")
        # However loaded the machine, the run must have done enough to mean something.
        self.assertGreaterEqual(report.inputs, 300)
        self.assertGreaterEqual(report.compiled, 10)
        self.assertGreater(report.kinds.get("generated", 0), 30)

    def test_adversarial_names_are_rejected_or_stay_identifiers(self):
        for description, text in ADVERSARIAL_PROVIDERS.items():
            with self.subTest(description):
                self.assertEqual(self.problems(text.encode("utf-8")), [])

    def test_adversarial_file_names_leave_compilable_output(self):
        for name in ADVERSARIAL_FILE_NAMES:
            with self.subTest(name):
                self.assertEqual(self.problems(BODY, name=name), [])

    def test_harness_catches_what_it_is_for(self):
        """The oracle itself: a traceback, a multi-line message and a name that is not an
        identifier are each reported."""
        self.assertIn("crash", harness.problem(harness.Outcome("crash", "Traceback ...")))
        self.assertIsNotNone(harness.problem(harness.Outcome("error", "f.d:1:2: error: a\nb")))
        self.assertIsNone(harness.problem(harness.Outcome("error", "f.d:1:2: error: expected ';'")))
        outcome = self.generator.run(BODY)
        self.assertIsNone(harness.problem(outcome))
        outcome.providers[0]["probes"][0]["name"] = 'a", "b'
        self.assertIn("not a C identifier", harness.problem(outcome))
        outcome = self.generator.run(BODY)
        outcome.texts["header"] = outcome.texts["header"].replace('"p", "a"', '"p", ".section x"')
        self.assertIn("probe site string", harness.problem(outcome))


def add_options(parser):
    parser.add_argument("--cc", default="gcc")
    parser.add_argument("--cxx", default="g++")
    parser.add_argument("--failures", type=Path)


if __name__ == "__main__":
    options, _ = usdt_testing.parse_options(add_options)
    vars(OPTIONS).update(vars(options))
    usdt_testing.main()
