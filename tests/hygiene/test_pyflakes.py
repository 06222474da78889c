"""pyflakes finds nothing in the Python code: the generator, the usdt tool, the tests and the benchmarks.

pyflakes runs under the first of this interpreter and Debian's /usr/bin/python3 (package
python3-pyflakes, which tests/install-dependencies.sh installs) that has it (tool_python.py).
"""

import subprocess
import unittest
from pathlib import Path

import tool_python
import usdt_testing

REPOSITORY = Path(__file__).resolve().parents[2]
CHECKED = ("usdtgen", "usdttool", "tests", "bench")


class PyflakesTest(unittest.TestCase):
    def test_python_code_is_clean(self):
        python = tool_python.interpreter_with("pyflakes")
        self.assertIsNotNone(python, "pyflakes not found (Debian: apt-get install python3-pyflakes)")
        paths = [str(REPOSITORY / name) for name in CHECKED if (REPOSITORY / name).exists()]
        result = subprocess.run([python, "-m", "pyflakes", *paths], capture_output=True, text=True, check=False)
        self.assertEqual(result.stdout + result.stderr, "", "pyflakes' findings")
        self.assertEqual(result.returncode, 0)

    def test_pyflakes_reports_what_it_is_for(self):
        python = tool_python.interpreter_with("pyflakes")
        self.assertIsNotNone(python)
        result = subprocess.run([python, "-m", "pyflakes"], input="import os\n", capture_output=True,
                                text=True, check=False)
        self.assertIn("'os' imported but unused", result.stdout)


if __name__ == "__main__":
    usdt_testing.main()
