"""Runs a test module inside Debian roots of other releases (debian_roots.py), one test per
suite, so that the module meets the tracers those releases ship: the same module, the same
programs built on this host, another bpftrace, Python and libraries.

usage: in_debian_roots.py --suite SUITE [--suite SUITE]... [--bind DIR]... -- MODULE.py ARGUMENTS...

The root is the one the suite's own run there uses (debian_roots.SUITE_TEST_PACKAGES), so
CI builds one root per release. The module runs under the root's /usr/bin/python3 with the
environment's PYTHONPATH and USDT_REQUIRE_TRACERS; `{suite}` in its arguments becomes the
suite (a work directory of its own for each). Each --bind directory (the source and build trees) is seen at the same path
inside. The module's skip (77) is this test's skip, so USDT_REQUIRE_TRACERS=1 fails it.
Without root, debootstrap or the network every suite skips with the reason; under
USDT_REQUIRE_TRACERS=1 that fails too (usdt_testing). CMake adds such a test with
usdt_add_debian_roots_test (tests/CMakeLists.txt).
"""

import os
import sys
import time
import unittest
from pathlib import Path
from typing import List

import debian_roots
import usdt_testing

SUITES: List[str] = []
BINDS: List[Path] = []
MODULE_COMMAND: List[str] = []
# Passed into the roots: what the module reads from its environment.
PASSED_VARIABLES = ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "USDT_REQUIRE_TRACERS")
# The module's own timeout: a root to build (minutes), then the module.
MODULE_TIMEOUT = 40 * 60


class InRootTest(unittest.TestCase):
    def run_module_in(self, suite: str) -> None:
        try:
            directory = debian_roots.root(suite, debian_roots.SUITE_TEST_PACKAGES[suite])
        except debian_roots.RootUnavailable as error:
            if usdt_testing.tracers_required():
                self.fail(f"USDT_REQUIRE_TRACERS=1 but no Debian {suite} root: {error}")
            self.skipTest(f"no Debian {suite} root: {error}")
        command = ["/usr/bin/python3", *(argument.replace("{suite}", suite) for argument in MODULE_COMMAND)]
        environment = {name: os.environ[name] for name in PASSED_VARIABLES if name in os.environ}
        print(f"--- in {suite} ({directory}): {' '.join(command)}", flush=True)
        started = time.monotonic()
        # The module's output goes straight to this test's, as it comes.
        result = debian_roots.run_in_root(suite, command, BINDS, packages=debian_roots.SUITE_TEST_PACKAGES[suite],
                                          environment=environment, timeout=MODULE_TIMEOUT)
        print(f"--- in {suite}: exit status {result.returncode} after {time.monotonic() - started:.0f} s", flush=True)
        if result.returncode == usdt_testing.SKIP_RETURN_CODE:
            self.skipTest(f"{Path(MODULE_COMMAND[0]).name} skipped everything in {suite} (its reasons are above)")
        self.assertEqual(result.returncode, 0, f"{Path(MODULE_COMMAND[0]).name} failed in {suite} (see above)")


def _add_suite_tests() -> None:
    for suite in SUITES:
        setattr(InRootTest, f"test_{suite.replace('-', '_')}", lambda self, suite=suite: self.run_module_in(suite))


def _options(parser) -> None:
    parser.add_argument("--suite", action="append", required=True, help="a Debian suite (trixie, sid)")
    parser.add_argument("--bind", action="append", default=[], type=Path,
                        help="a host directory the module needs, seen at the same path inside")


if __name__ == "__main__":
    if "--" not in sys.argv:
        sys.exit("usage: in_debian_roots.py --suite SUITE... [--bind DIR]... -- MODULE.py ARGUMENTS...")
    separator = sys.argv.index("--")
    MODULE_COMMAND = sys.argv[separator + 1:]
    del sys.argv[separator:]
    options, _ = usdt_testing.parse_options(_options)
    SUITES, BINDS = options.suite, options.bind
    _add_suite_tests()
    usdt_testing.main()
