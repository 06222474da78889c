"""usdt_testing.main()'s exit status, as CTest reads it: a module whose tests all pass, or that
has one optional skip beside its passes, passes; one whose every test skipped is "Skipped"
(77); one with a failure fails; and with USDT_REQUIRE_TRACERS=1, as CI runs, any skip fails.
Each case is a small test module run in a child process.
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

import usdt_testing

SUPPORT = Path(usdt_testing.__file__).resolve().parent

MODULES = {
    "passes": "def test_a(self): pass\n    def test_b(self): pass",
    "one skip beside passes": "def test_a(self): pass\n    def test_b(self): self.skipTest('optional')",
    "all skipped": "def test_a(self): self.skipTest('not here')\n    def test_b(self): self.skipTest('nor here')",
    "a failure": "def test_a(self): pass\n    def test_b(self): self.fail('wrong')",
}


def status(body: str, require_tracers: bool) -> int:
    source = textwrap.dedent("""\
        import unittest
        import usdt_testing
        class Case(unittest.TestCase):
            {body}
        if __name__ == "__main__":
            usdt_testing.main()
        """).format(body=body)
    with tempfile.TemporaryDirectory(prefix="usdt-skips-") as directory:
        module = Path(directory) / "test_case.py"
        module.write_text(source)
        environment = dict(os.environ, PYTHONPATH=str(SUPPORT))
        environment.pop("USDT_REQUIRE_TRACERS", None)
        if require_tracers:
            environment["USDT_REQUIRE_TRACERS"] = "1"
        return subprocess.run([sys.executable, str(module)], env=environment, capture_output=True,
                              check=False, timeout=60).returncode


class ExitStatusTest(unittest.TestCase):
    def test_statuses(self):
        wanted = {  # case -> (status, status with USDT_REQUIRE_TRACERS=1)
            "passes": (0, 0),
            "one skip beside passes": (0, 1),
            "all skipped": (usdt_testing.SKIP_RETURN_CODE, 1),
            "a failure": (1, 1),
        }
        for case, body in MODULES.items():
            with self.subTest(case):
                self.assertEqual((status(body, False), status(body, True)), wanted[case])


if __name__ == "__main__":
    usdt_testing.main()
