#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs the dependencies (as root),
# builds usdt and its tests in build/tests, runs every test with ctest.
# Tracer tests skip without root or bpftrace; USDT_REQUIRE_TRACERS=1 turns such skips into failures.
#
#   tests/run-all.sh                  this machine's suite
#   tests/run-all.sh --release SUITE  the suite in a Debian root of SUITE (bullseye, trixie, sid),
#                                     built in build/tests-SUITE (tests/support/suite_in_root.py)
#   tests/run-all.sh --all-releases   this machine's, then each root's; a summary, and failure if any failed
set -euo pipefail
repository=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$repository/build/tests"
releases=(bullseye trixie sid)

host_suite() {
  "$repository/tests/install-dependencies.sh" tests
  cmake -S "$repository" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cmake --build "$build" --parallel "$(nproc)"
  # From the build directory: before CMake 3.20, ctest reads only the current directory.
  cd "$build"
  ctest --output-on-failure --parallel "$(nproc)"
}

release_suite() {
  "$repository/tests/install-dependencies.sh" tests
  /usr/bin/python3 "$repository/tests/support/suite_in_root.py" "$1"
}

case "${1:-}" in
  "") host_suite ;;
  --release) [ $# -eq 2 ] || { echo "usage: $0 --release SUITE" >&2; exit 2; }
             release_suite "$2" ;;
  --all-releases)
    summary=()
    failed=0
    for suite in host "${releases[@]}"; do
      echo "=== run-all: $suite suite"
      started=$(date +%s)
      set +e
      if [ "$suite" = host ]; then (set -e; host_suite); else (set -e; release_suite "$suite"); fi
      status=$?
      set -e
      seconds=$(($(date +%s) - started))
      if ((status == 0)); then outcome=passed; else outcome="FAILED (exit status $status)"; failed=1; fi
      summary+=("$(printf '%-9s %-28s %dm%02ds' "$suite" "$outcome" $((seconds / 60)) $((seconds % 60)))")
    done
    echo "=== run-all: summary"
    printf '%s\n' "${summary[@]}"
    exit "$failed" ;;
  *) echo "usage: $0 [--release SUITE | --all-releases]" >&2; exit 2 ;;
esac
