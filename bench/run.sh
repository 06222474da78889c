#!/usr/bin/env bash
# Measures usdt's probes against systemtap's sys/sdt.h and writes docs/PERFORMANCE.md:
#
#   bench/run.sh [build directory]      (as root, for the hits with bpftrace attached)
#
# Installs what is missing with apt (tests/install-dependencies.sh bench), builds bench/
# with GCC and with Clang (-DUSDT_BUILD_BENCHMARKS=ON) under the build directory (default:
# build/bench), runs every measurement and writes the document. Takes a few minutes.
set -euo pipefail

repository=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repository/build/bench}

"$repository/tests/install-dependencies.sh" bench

for compiler in gcc:g++:GCC clang:clang++:Clang; do
  IFS=: read -r cc cxx name <<<"$compiler"
  cmake -S "$repository" -B "$build/$name" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
        -DUSDT_BUILD_BENCHMARKS=ON -DUSDT_BUILD_TESTS=OFF -DUSDT_INSTALL=OFF >/dev/null
  cmake --build "$build/$name" -j "$(nproc)" >/dev/null
done

# x86-64: the default 1-byte nop against the USDT_X86_NOP5 opt-in.
nop5=()
if [ "$(uname -m)" = x86_64 ]; then
  python3 "$repository/bench/nop5/nop5_hit_cost.py" --build-dir "$build/nop5" >"$build/nop5.json"
  nop5=(--nop5 "$build/nop5.json")
fi

# usdt trace's start-up: the command as users run it, installed, on the example project built
# against that install.
cmake -S "$repository" -B "$build/usdt" -DUSDT_BUILD_TESTS=OFF >/dev/null
cmake --install "$build/usdt" --prefix "$build/usdt/prefix" >/dev/null
cmake -S "$repository/example-project" -B "$build/example" -DCMAKE_PREFIX_PATH="$build/usdt/prefix" >/dev/null
cmake --build "$build/example" >/dev/null

# The Python CMake chose for the generator: the generator's timing is its.
python=$(sed -n 's/^USDT_PYTHON_EXECUTABLE:[A-Z]*=//p' "$build/GCC/CMakeCache.txt")

# usdt trace's hits per second, printed and counted in maps (root and bpftrace).
trace_rate=()
if ((EUID == 0)) && command -v bpftrace >/dev/null; then
  "$python" "$repository/bench/trace_rate/trace_rate.py" --usdt "$build/GCC/bin/usdt" \
            --build-dir "$build/trace_rate" >"$build/trace_rate.json"
  trace_rate=(--trace-rate "$build/trace_rate.json")
fi
"$python" "$repository/bench/report.py" --build "GCC=$build/GCC" --build "Clang=$build/Clang" \
          --output "$repository/docs/PERFORMANCE.md" --command "bench/run.sh" "${nop5[@]}" "${trace_rate[@]}" \
          --usdt "$build/usdt/prefix/bin/usdt" --example "$build/example/kvserver"
