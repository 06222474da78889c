"""clang-tidy, with the repository's .clang-tidy, finds nothing in headers generated from the
project's provider files, and so in the runtime header they embed: each header is analysed
in a C99 and a C++11 translation unit that calls every probe (macros, and the C++ API in
C++), with probes on and with USDT_DISABLE, and alone (its semaphore definitions and
`.stapsdt.base`) as C and as C++. No include path leads to runtime/include.

Usage (CTest passes this): test_clang_tidy.py --clang-tidy PATH
"""

import argparse
import subprocess
import sys
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import usdt_testing

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "tests" / "fuzz"))
import harness  # tests/fuzz: describes a model and writes the program that calls its probes
from usdtgen import model, parser, render

OPTIONS = argparse.Namespace(clang_tidy="clang-tidy")
CONFIG = REPOSITORY / ".clang-tidy"

# Provider files with every argument kind and keyword names, and whether probes that no
# pragma names get a semaphore (flavours.d's pragmas mix both flavours).
PROVIDER_FILES = (("tests/runtime/runtime_probes.d", True), ("tests/runtime/flavours.d", True),
                  ("tests/runtime/unguarded.d", False), ("tests/embedding/strict_warnings/all_types.d", True))


def generate(provider_file: Path, directory: Path, semaphores: bool) -> Path:
    """Writes `STEM.h` and the calling programs use.c and use.cpp."""
    syntax = parser.parse(provider_file.read_text(encoding="utf-8"), str(provider_file))
    provider_model = model.build(syntax, provider_file.name, str(provider_file), semaphores)
    texts = render.render(provider_model)
    providers = harness.describe(provider_model)
    case = directory / f"{provider_file.stem}-{'semaphores' if semaphores else 'plain'}"
    case.mkdir()
    (case / f"{provider_model.stem}.h").write_text(texts["header"])
    for name, cxx in (("use.c", False), ("use.cpp", True)):
        (case / name).write_text(harness.use_program(providers, f"{provider_model.stem}.h", cxx))
    return case


def clang_tidy(source: Path, *compiler_options: str):
    command = [OPTIONS.clang_tidy, f"--config-file={CONFIG}", "--quiet", str(source), "--",
               "-I", str(source.parent), "-Wall", "-Wextra", *compiler_options]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    return " ".join(command), result


class ClangTidyTest(unittest.TestCase):
    def setUp(self):
        if not OPTIONS.clang_tidy or OPTIONS.clang_tidy.endswith("-NOTFOUND"):
            self.fail("clang-tidy not found (Debian: apt-get install clang-tidy)")
        directory = tempfile.TemporaryDirectory(prefix="usdt-tidy-")
        self.addCleanup(directory.cleanup)
        self.directory = Path(directory.name)

    def assertClean(self, runs):
        """Runs clang-tidy over (source, options...) tuples, two at a time."""
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda run: clang_tidy(*run), runs))
        for command, result in results:
            with self.subTest(command):
                self.assertEqual(result.returncode, 0, f"{command}\n{result.stdout}{result.stderr}")
                self.assertNotIn("warning:", result.stdout)

    def test_generated_headers(self):
        runs = []
        for name, semaphores in PROVIDER_FILES:
            case = generate(REPOSITORY / name, self.directory, semaphores)
            header = next(case.glob("*.h"))
            runs += [(case / "use.c", "-std=c99"), (case / "use.cpp", "-std=c++11"),
                     (case / "use.cpp", "-std=c++11", "-DUSDT_DISABLE"),
                     (header, "-x", "c", "-std=c99"), (header, "-x", "c++", "-std=c++11")]
        self.assertClean(runs)

    def test_configuration_is_in_force(self):
        """A finding of a check the configuration enables, in an included header or in a header
        analysed alone, fails the run."""
        header = self.directory / "finding.h"
        header.write_text("static inline double half(int n) { return n / 2; }\n")
        program = self.directory / "finding.c"
        program.write_text('#include "finding.h"\ndouble use(void);\ndouble use(void) { return half(3); }\n')
        for source, language in ((program, ()), (header, ("-x", "c"))):
            with self.subTest(source.name):
                command, result = clang_tidy(source, *language, "-std=c99")
                self.assertNotEqual(result.returncode, 0, command)
                self.assertIn("finding.h:1:", result.stdout)
                self.assertIn("bugprone-integer-division", result.stdout)


if __name__ == "__main__":
    OPTIONS, _ = usdt_testing.parse_options(
        lambda parser: parser.add_argument("--clang-tidy", default="clang-tidy"))
    usdt_testing.main()
