"""Shared test support: the command line of a test module, tracer availability and a unittest
runner that reports skips to CTest.

Every test module reads its options, and the paths of the programs CTest passes as NAME=PATH,
with `parse_options()`; unittest gets the rest of the command line.

Tests that need root or a tracer call `require_tracer(test, "bpftrace")`. It skips with the
reason, or fails when USDT_REQUIRE_TRACERS=1 (set by .ci/run), where a skip would hide a
test that never ran. `main()` exits 1 on failure, and when no test ran at all; 77, which
CTest shows as "Skipped" (SKIP_RETURN_CODE 77), when nothing passed and something skipped (a
test, a subtest, a class in its setUpClass, the module in setUpModule); 0 when anything passed,
however much else skipped, the skips' reasons in the log. With USDT_REQUIRE_TRACERS=1 any
skip is a failure, but one for a capability the running kernel lacks (`require_kernel_runs`),
which no installation gives: CI must be able to land on such a machine, nor for a tool the
run leaves out on purpose (USDT_LEFT_OUT, set in another release's root by
tests/support/suite_in_root.py, which says why).
"""

import argparse
import errno
import os
import shlex
import shutil
import subprocess
import sys
import unittest
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

SKIP_RETURN_CODE = 77


def probe_flags() -> List[str]:
    """The compiler options probes need from this toolchain, as usdt_add_provider gives its
    targets (`-DUSDT_UNLINKED_NOTES` with binutils 2.35, the runtime headers' `-I`): for tests
    that compile a target's generated header themselves. tests/CMakeLists.txt finds them."""
    return shlex.split(os.environ.get("USDT_TEST_PROBE_FLAGS", ""))


def tracers_required() -> bool:
    return os.environ.get("USDT_REQUIRE_TRACERS") == "1"


# How the reason of a skip for a tool the run leaves out on purpose begins.
LEFT_OUT = "left out of this run: "


def left_out_reason(tool: str):
    """Why `tool` is not here on purpose (it is in USDT_LEFT_OUT, space-separated names), or None."""
    if tool in os.environ.get("USDT_LEFT_OUT", "").split():
        return f"{LEFT_OUT}{tool} (tests/support/suite_in_root.py, NOT_APPLYING, says why)"
    return None


def tracer_unavailable_reason(tool: str, needs_root: bool = True, package: str = ""):
    """Why `tool` cannot run here, or None when it can. `package` is the Debian package that
    installs it, when its name differs from the tool's."""
    if shutil.which(tool) is None:
        return f"{tool} is not installed (Debian: apt-get install {package or tool})"
    if needs_root and os.geteuid() != 0:
        return f"{tool} needs root to attach uprobes; run the tests as root"
    return None


def require_tracer(test: unittest.TestCase, tool: str, needs_root: bool = True, package: str = "",
                   every_release: bool = False) -> None:
    """`every_release`: the test reads what every release of `tool` reads, so it runs even where
    the run leaves the tool out for the other tests (USDT_LEFT_OUT)."""
    left_out = left_out_reason(tool)
    if left_out is not None and not every_release:
        test.skipTest(left_out)
    reason = tracer_unavailable_reason(tool, needs_root, package)
    if reason is None:
        return
    if tracers_required():
        test.fail(f"USDT_REQUIRE_TRACERS=1 but {reason}")
    test.skipTest(reason)


# How the reason of a skip for a capability the running kernel lacks begins.
KERNEL_LACKS = "the running kernel cannot "


def kernel_lacks_reason(command: Sequence[str], what: str):
    """Why the kernel cannot run `command` (ENOEXEC: a binary format it was built without,
    such as 32-bit x86 programs without IA32 emulation), or None when it can. It runs the
    command once, its output discarded."""
    try:
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60, check=False)
    except OSError as error:
        if error.errno != errno.ENOEXEC:
            raise
        return f"{KERNEL_LACKS}run {what} ({command[0]}: {error.strerror})"
    return None


def require_kernel_runs(test: unittest.TestCase, command: Sequence[str], what: str) -> None:
    """Skips `test`, even under USDT_REQUIRE_TRACERS=1, when the kernel cannot run `command`."""
    reason = kernel_lacks_reason(command, what)
    if reason is not None:
        test.skipTest(reason)


def add_usdt_options(parser: argparse.ArgumentParser) -> None:
    """The options of the modules that run bin/usdt: its path and a directory of their own."""
    parser.add_argument("--usdt", required=True, help="the build tree's bin/usdt")
    parser.add_argument("--work-dir", type=Path, required=True)


def parse_usdt_options(program_names: Sequence[str]) -> Tuple[argparse.Namespace, Dict[str, str]]:
    """parse_options() for a module that runs bin/usdt (add_usdt_options), its work directory
    made fresh."""
    options, programs = parse_options(add_usdt_options, program_names)
    fresh_directory(options.work_dir)
    return options, programs


def parse_options(add_options: Callable[[argparse.ArgumentParser], object] = lambda parser: None,
                  program_names: Sequence[str] = ()) -> Tuple[argparse.Namespace, Dict[str, str]]:
    """The command line of every test module, taken off sys.argv: the options `add_options`
    declares on the parser, and the NAME=PATH arguments by which CTest passes the programs
    CMake built, one for each NAME of `program_names` (a missing one is a usage error).
    unittest gets the rest (test names, -v, -k)."""
    programs_usage = f"Programs, as NAME=PATH: {', '.join(program_names)}. " if program_names else ""
    parser = argparse.ArgumentParser(allow_abbrev=False,  # no option swallows one of unittest's
                                     epilog=f"{programs_usage}Other arguments (test names, -v, -k) go to unittest.")
    add_options(parser)
    options, rest = parser.parse_known_args()
    programs: Dict[str, str] = {}
    remaining = [sys.argv[0]]
    for argument in rest:
        name, separator, path = argument.partition("=")
        if separator and name in program_names:
            programs[name] = path
        else:
            remaining.append(argument)
    missing = [name for name in program_names if name not in programs]
    if missing:
        parser.error(f"missing program paths (NAME=PATH) for: {', '.join(missing)}")
    sys.argv[:] = remaining
    return options, programs


def fresh_directory(path: Path) -> Path:
    """`path`, emptied or created: a run starts from nothing and leaves its files to look at."""
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


class CountingResult(unittest.TextTestResult):
    """A TextTestResult that counts what passed: tests, passing subtests and expected failures.
    testsRun cannot tell: it counts skipped tests, and not the tests of a class whose
    setUpClass skipped."""

    def __init__(self, *arguments, **keywords):
        super().__init__(*arguments, **keywords)
        self.passed = 0

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1

    def addSubTest(self, test, subtest, outcome):
        super().addSubTest(test, subtest, outcome)
        if outcome is None:
            self.passed += 1

    def addExpectedFailure(self, test, error):
        super().addExpectedFailure(test, error)
        self.passed += 1


class _Runner(unittest.TextTestRunner):
    resultclass = CountingResult


def main() -> None:
    """Runs the calling module's tests; exits as the module docstring says."""
    program = unittest.main(module="__main__", exit=False, verbosity=2, testRunner=_Runner)
    sys.exit(exit_status(program.result))


def exit_status(result: CountingResult) -> int:
    if not result.wasSuccessful():
        return 1
    required = [reason for _, reason in result.skipped if not reason.startswith((KERNEL_LACKS, LEFT_OUT))]
    if required and tracers_required():
        reasons = "; ".join(sorted(set(required)))
        print(f"USDT_REQUIRE_TRACERS=1 but {len(required)} skipped: {reasons}", file=sys.stderr)
        return 1
    if result.passed == 0:
        if result.skipped:
            return SKIP_RETURN_CODE
        print("no test ran", file=sys.stderr)
        return 1
    return 0
