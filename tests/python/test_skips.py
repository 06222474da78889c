"""usdt_testing.main()'s exit status, as CTest reads it: a module whose tests all pass, or that
has optional skips (a test, a subtest, a class in setUpClass) beside its passes, passes; one in
which nothing passed and something skipped is "Skipped" (77); one with a failure, or with no
test at all, fails; and with USDT_REQUIRE_TRACERS=1, as CI runs, any skip fails but one for a
capability the running kernel lacks. Each case is a small test module run in a child process.
A file the kernel cannot execute (ENOEXEC, as i386 programs are without IA32 emulation) is
what such a skip is detected by.
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

# case -> the test module's classes.
MODULES = {
    "passes": """
        class Case(unittest.TestCase):
            def test_a(self): pass
            def test_b(self): pass
        """,
    "one skip beside passes": """
        class Case(unittest.TestCase):
            def test_a(self): pass
            def test_b(self): self.skipTest('optional')
        """,
    "a class skipped in setUpClass beside a pass": """
        class Skipped(unittest.TestCase):
            @classmethod
            def setUpClass(cls): raise unittest.SkipTest('no tool')
            def test_a(self): pass
            def test_b(self): pass
        class Case(unittest.TestCase):
            def test_c(self): pass
        """,
    "a skipped subtest beside passing ones": """
        class Case(unittest.TestCase):
            def test_a(self):
                for n in range(3):
                    with self.subTest(n=n):
                        if n == 1:
                            self.skipTest('optional')
        """,
    "an expected failure beside a skip": """
        class Case(unittest.TestCase):
            @unittest.expectedFailure
            def test_a(self): self.fail('known')
            def test_b(self): self.skipTest('optional')
        """,
    "all skipped": """
        class Case(unittest.TestCase):
            def test_a(self): self.skipTest('not here')
            def test_b(self): self.skipTest('nor here')
        """,
    "a class skipped in setUpClass beside a skip": """
        class Skipped(unittest.TestCase):
            @classmethod
            def setUpClass(cls): raise unittest.SkipTest('no tool')
            def test_a(self): pass
        class Case(unittest.TestCase):
            def test_b(self): self.skipTest('nor here')
        """,
    "the module skipped in setUpModule": """
        def setUpModule(): raise unittest.SkipTest('not on this machine')
        class Case(unittest.TestCase):
            def test_a(self): pass
        """,
    "a kernel skip beside a pass": """
        class Case(unittest.TestCase):
            def test_a(self): pass
            def test_b(self): self.skipTest(usdt_testing.KERNEL_LACKS + 'run i386 programs')
        """,
    "only kernel skips": """
        class Case(unittest.TestCase):
            def test_a(self): self.skipTest(usdt_testing.KERNEL_LACKS + 'run i386 programs')
        """,
    "a kernel skip beside another skip": """
        class Case(unittest.TestCase):
            def test_a(self): self.skipTest(usdt_testing.KERNEL_LACKS + 'run i386 programs')
            def test_b(self): self.skipTest('no tool')
        """,
    "a left-out tool beside a pass": """
        import os
        os.environ["USDT_LEFT_OUT"] = "node npm"
        class Case(unittest.TestCase):
            def test_a(self): pass
            def test_b(self): usdt_testing.require_tracer(self, 'node', needs_root=False)
        """,
    "a failure": """
        class Case(unittest.TestCase):
            def test_a(self): pass
            def test_b(self): self.fail('wrong')
        """,
    "no test": """
        class Case(unittest.TestCase):
            pass
        """,
}


def status(classes: str, require_tracers: bool) -> int:
    source = "import unittest\nimport usdt_testing\n" + textwrap.dedent(classes) + \
        'if __name__ == "__main__":\n    usdt_testing.main()\n'
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
        skipped = usdt_testing.SKIP_RETURN_CODE
        wanted = {  # case -> (status, status with USDT_REQUIRE_TRACERS=1)
            "passes": (0, 0),
            "one skip beside passes": (0, 1),
            "a class skipped in setUpClass beside a pass": (0, 1),
            "a skipped subtest beside passing ones": (0, 1),
            "an expected failure beside a skip": (0, 1),
            "all skipped": (skipped, 1),
            "a class skipped in setUpClass beside a skip": (skipped, 1),
            "the module skipped in setUpModule": (skipped, 1),
            "a kernel skip beside a pass": (0, 0),
            "only kernel skips": (skipped, skipped),
            "a kernel skip beside another skip": (skipped, 1),
            "a left-out tool beside a pass": (0, 0),
            "a failure": (1, 1),
            "no test": (1, 1),
        }
        self.assertEqual(sorted(wanted), sorted(MODULES))
        for case, body in MODULES.items():
            with self.subTest(case):
                self.assertEqual((status(body, False), status(body, True)), wanted[case])


class KernelCapabilityTest(unittest.TestCase):
    def test_a_file_the_kernel_cannot_execute(self):
        with tempfile.TemporaryDirectory(prefix="usdt-skips-") as directory:
            program = Path(directory) / "no-format"
            program.write_bytes(b"\x7fELF but not one the kernel runs\n")
            program.chmod(0o755)
            reason = usdt_testing.kernel_lacks_reason([str(program)], "such programs")
        self.assertEqual(reason, f"{usdt_testing.KERNEL_LACKS}run such programs ({program}: Exec format error)")

    def test_a_program_the_kernel_runs(self):
        self.assertIsNone(usdt_testing.kernel_lacks_reason([sys.executable, "-c", "pass"], "Python"))


if __name__ == "__main__":
    usdt_testing.main()
