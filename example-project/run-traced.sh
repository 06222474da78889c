#!/usr/bin/env bash
# Quick start: builds and installs usdt into build/prefix, builds this example against
# that install, and runs it under `usdt trace` (bpftrace, arguments by name and type), then
# again for a summary of its requests' latencies, counted in the kernel.
# Debian 12 / Ubuntu; as root it also installs what is missing. Without root it builds the
# example, lists its probes with `usdt list` and runs it untraced.
set -euo pipefail

example_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$example_dir")"
build="$repo/build"

"$repo/tests/install-dependencies.sh" build

cmake -S "$repo" -B "$build/usdt" -DUSDT_BUILD_TESTS=OFF
cmake --build "$build/usdt" -j "$(nproc)"
cmake --install "$build/usdt" --prefix "$build/prefix"

cmake -S "$example_dir" -B "$build/example" -DCMAKE_PREFIX_PATH="$build/prefix"
cmake --build "$build/example" -j "$(nproc)"

kvserver="$build/example/kvserver"
command=("$kvserver" --count 24 --interval-ms 400)
echo
usdt="$build/prefix/bin/usdt"
"$usdt" list "$kvserver"
echo
if ((EUID == 0)); then
    "$usdt" trace "$kvserver" -- "${command[@]}"
    echo
    # The same requests again, faster, as a latency summary counted in the kernel.
    "$usdt" trace "$kvserver" --latency -- "$kvserver" --count 200 --interval-ms 5
else
    echo "Tracing needs root: bpftrace attaches uprobes. Running kvserver untraced;"
    echo "run '$0' as root (sudo) to watch its probes fire."
    "${command[@]}"
fi
