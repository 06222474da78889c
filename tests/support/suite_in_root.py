"""The test suite in a Debian root of another release (debian_roots.py): usdt configured in
build/tests-SUITE with the root's own CMake and compilers, built and run by the root's CTest,
every test but the ones that cannot apply there. NOT_APPLYING is the one place that says which
those are, and why; every other test runs, tracer tests included (USDT_REQUIRE_TRACERS passes
through, so that CI fails a skip there as on the host).

usage: suite_in_root.py SUITE [CTEST ARGUMENT...]   (tests/run-all.sh --release SUITE runs it)

The root holds debian_roots.SUITE_TEST_PACKAGES[SUITE], built on first use and cached. The
repository is bound at its own path inside, so build/tests-SUITE is seen from the host too.
"""

import os
import shlex
import sys
import time
from pathlib import Path
from typing import List, NamedTuple, Sequence, Tuple

import debian_roots

REPOSITORY = Path(__file__).resolve().parents[2]
ALL_SUITES = tuple(debian_roots.SUITE_TEST_PACKAGES)

class NotApplying(NamedTuple):
    """What does not apply in the roots of `suites`, and why: whole tests (CTest name patterns,
    left out with ctest -E, without groups: CTest's regular expressions hold 9 at most, and
    CTest 3.18 ignores a longer one) and tools that some tests of modules which otherwise run need
    (those skip, even under USDT_REQUIRE_TRACERS=1: usdt_testing.left_out_reason). The host's
    run covers them all."""
    suites: Sequence[str]
    tests: Tuple[str, ...]
    tools: Tuple[str, ...]
    reason: str


NOT_APPLYING = (
    NotApplying(ALL_SUITES, (r"cross\..*", r"embedding\.cross_install", r"sdt\.cross"), ("aarch64-linux-gnu-gcc",),
                "the ten cross toolchains, qemu-user and gdb-multiarch are not installed in roots"),
    NotApplying(ALL_SUITES, (r"tool\.bpftrace_releases", r"tool\.trace_answers_releases", r"package\.debian"), (),
                "they build Debian roots themselves: no roots inside roots"),
    NotApplying(ALL_SUITES, (r"tool\.timeline_viewer", r"tool\.timeline_viewer_install"), ("node", "npm"),
                "the trace viewer's parser needs Node.js 20 and npm packages, not installed in roots"),
    NotApplying(("bullseye",), (r"tool\.trace", r"tool\.trace_script", r"tool\.trace_answers",
                                r"tool\.trace_answers_script", r"cookbook\.usdt"), ("bpftrace",),
                "Debian 11's bpftrace 0.11.3 reads 1-, 2- and 4-byte signed arguments without their sign, "
                "gives every site of a probe the first site's argument locations, lacks the script syntax "
                "the tests use (s64), and usdt trace needs 0.17; integration.bpftrace_basic reads each kind "
                "of argument and a semaphore with it"),
    NotApplying(("bullseye",), (), ("mold", "perf"),
                "Debian 11 packages no mold, and perf only as its own kernel's perf_5.10, without the perf "
                "command"),
    NotApplying(("bullseye",), (r"hygiene\.clang_tidy",), (),
                "clang-tidy 11 lacks checks .clang-tidy enables"),
    NotApplying(("bullseye",), (r"sdt\.headers",), (),
                "binutils 2.35's GNU ld refuses usdt's sys/sdt.h there: its C probes' notes are linked to "
                "their code (SHF_LINK_ORDER), its asm-statement and .S probes' are not, and that ld links "
                "no program with both (issue 34 is open for it)"),
    NotApplying(ALL_SUITES, (r"cookbook\.bcc", r"cookbook\.systemtap", r"scripts\.systemtap"), (),
                "bcc and SystemTap are not installed in roots: they compile against kernel headers a root "
                "has no package of"),
)


def not_applying(suite: str) -> List[NotApplying]:
    return [entry for entry in NOT_APPLYING if suite in entry.suites]


def suite_script(suite: str, build: Path, ctest_arguments: Sequence[str]) -> str:
    """The shell commands run in the root: configure, build, ctest."""
    excluded = "|".join(f"^{test}$" for entry in not_applying(suite) for test in entry.tests)
    jobs = str(min(os.cpu_count() or 1, 2))
    configure = ["cmake", "-S", str(REPOSITORY), "-B", str(build), "-DCMAKE_BUILD_TYPE=RelWithDebInfo"]
    compile_ = ["cmake", "--build", str(build), "--parallel", jobs]
    ctest = ["ctest", "--output-on-failure", "--parallel", jobs, *(["-E", excluded] if excluded else []),
             *ctest_arguments]
    # From the build directory: before CMake 3.20, ctest reads only the current directory.
    return " && ".join([shlex.join(configure), shlex.join(compile_), f"cd {shlex.quote(str(build))}",
                        shlex.join(ctest)])


def run_suite(suite: str, ctest_arguments: Sequence[str] = ()) -> int:
    directory = debian_roots.root(suite, debian_roots.SUITE_TEST_PACKAGES[suite])
    build = REPOSITORY / "build" / f"tests-{suite}"
    print(f"suite_in_root: {suite} in {directory}, building in {build}", flush=True)
    for entry in not_applying(suite):
        what = " ".join([*entry.tests, *(f"(tests needing {tool})" for tool in entry.tools)])
        print(f"suite_in_root: not in {suite}: {what}: {entry.reason}", flush=True)
    environment = {name: os.environ[name] for name in ("USDT_REQUIRE_TRACERS",) if name in os.environ}
    environment["USDT_LEFT_OUT"] = " ".join(tool for entry in not_applying(suite) for tool in entry.tools)
    started = time.monotonic()
    result = debian_roots.run_in_root(suite, ["sh", "-c", suite_script(suite, build, ctest_arguments)],
                                      [REPOSITORY], packages=debian_roots.SUITE_TEST_PACKAGES[suite],
                                      environment=environment)
    print(f"suite_in_root: {suite}: exit status {result.returncode} after {time.monotonic() - started:.0f} s",
          flush=True)
    return result.returncode


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in ALL_SUITES:
        print(f"usage: {Path(sys.argv[0]).name} {{{','.join(ALL_SUITES)}}} [CTEST ARGUMENT...]", file=sys.stderr)
        return 2
    try:
        return run_suite(sys.argv[1], sys.argv[2:])
    except (debian_roots.RootUnavailable, RuntimeError) as error:
        print(f"suite_in_root: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
