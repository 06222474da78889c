"""The generated header and usdt/usdt.h under -Wconversion -Wsign-conversion -Werror.

conversion/conversion.c and conversion/conversion.cpp fire every probe of the compiler
matrix's all_types.d (every argument type the generator accepts) with variables of exactly
the declared types, through the macros and, in C++, the typed API. Each is compiled as
several standards with GCC and Clang, at -O0 and -O2, with no include path but the generated
header's (it embeds usdt/usdt.h): nothing may be reported.
"""

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import usdt_testing
from usdtgen import cli

HERE = Path(__file__).resolve().parent
PROVIDER = HERE.parent / "embedding" / "strict_warnings" / "all_types.d"
FLAGS = ["-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Wsign-conversion", "-Werror"]
# (compiler, source, standards)
BUILDS = [
    (compiler, "conversion.c", ["-std=c99", "-std=c11"]) for compiler in ("gcc", "clang")
] + [
    (compiler, "conversion.cpp", ["-std=c++11", "-std=c++17", "-std=c++20"]) for compiler in ("g++", "clang++")
]

class ConversionWarningsTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.directory = Path(tempfile.mkdtemp(prefix="usdt-conversion-"))
        cls.addClassCleanup(shutil.rmtree, cls.directory)
        status = cli.main([str(PROVIDER), "--header", str(cls.directory / "all_types.h")])
        if status != 0:
            raise RuntimeError(f"generating {PROVIDER.name} failed")

    def test_every_type_compiles_without_a_conversion_warning(self):
        for compiler, source, standards in BUILDS:
            if shutil.which(compiler) is None:
                continue
            for standard in standards:
                for optimisation in ("-O0", "-O2"):
                    with self.subTest(compiler=compiler, standard=standard, optimisation=optimisation):
                        argv = [compiler, standard, optimisation, *FLAGS, *usdt_testing.probe_flags(), "-I", str(self.directory),
                                "-c", str(HERE / "conversion" / source),
                                "-o", str(self.directory / "fire.o")]
                        result = subprocess.run(argv, capture_output=True, text=True, check=False)
                        self.assertEqual((result.returncode, result.stderr), (0, ""), " ".join(argv))

    def test_both_compiler_families_are_installed(self):
        # Without one of them the test above would silently check half of the matrix.
        missing = [compiler for compiler, _, _ in BUILDS if shutil.which(compiler) is None]
        self.assertEqual(missing, [], "install gcc, g++ and clang (Debian: apt-get install gcc g++ clang)")


if __name__ == "__main__":
    usdt_testing.main()
