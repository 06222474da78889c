#!/usr/bin/env bash
# Installs, with apt, what usdt needs on Debian 12 / Ubuntu: `build` to build and use it,
# `tests` for the whole test suite as well, `bench` for bench/run.sh. Installs only what is
# missing; needs root.
set -euo pipefail

build_packages=(cmake make gcc g++ binutils python3 python3-jinja2 python3-pyelftools bpftrace)
test_packages=(clang lld mold gdb doctest-dev
               gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user gdb-multiarch
               gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf
               systemtap-sdt-dev meson ninja-build pkg-config
               clang-tidy python3-pyflakes valgrind
               systemtap)
# perf: Debian's linux-perf; Ubuntu packages it per kernel (linux-tools-$(uname -r)).
if apt-cache show linux-perf >/dev/null 2>&1; then
  test_packages+=(linux-perf)
fi

case "${1:-}" in
  build) wanted=("${build_packages[@]}") ;;
  tests) wanted=("${build_packages[@]}" "${test_packages[@]}") ;;
  bench) wanted=("${build_packages[@]}" clang libbenchmark-dev systemtap-sdt-dev valgrind) ;;
  *) echo "usage: $0 build|tests|bench" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  if ((EUID != 0)); then
    echo "$0: missing packages: ${missing[*]}; run as root or install them" >&2
    exit 1
  fi
  echo "Installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# bpftrace detaches its probes through tracefs; mount it where the kernel has it unmounted.
if ((EUID == 0)) && [ -d /sys/kernel/tracing ] && [ ! -e /sys/kernel/tracing/uprobe_events ]; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi
