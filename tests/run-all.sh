#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs the dependencies (as root),
# builds usdt and its tests in build/tests, runs every test with ctest.
# Tracer tests skip without root or bpftrace; USDT_REQUIRE_TRACERS=1 turns such skips into failures.
set -euo pipefail
repository=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$repository/build/tests"

"$repository/tests/install-dependencies.sh" tests
cmake -S "$repository" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" --parallel "$(nproc)"
# From the build directory: before CMake 3.20, ctest reads only the current directory.
cd "$build"
ctest --output-on-failure --parallel "$(nproc)"
