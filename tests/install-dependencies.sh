#!/usr/bin/env bash
# Installs, with apt, what usdt needs on Debian 12 / Ubuntu: `build` to build and use it,
# `tests` for the whole test suite as well, `bench` for bench/run.sh. Installs only what is
# missing; needs root.
set -euo pipefail

build_packages=(cmake make gcc g++ binutils python3 python3-jinja2 bpftrace)
# tests/cross: every GNU triple of tests/cross/targets.py, qemu-user and gdb-multiarch.
cross_triples=(i686-linux-gnu arm-linux-gnueabihf arm-linux-gnueabi aarch64-linux-gnu riscv64-linux-gnu
               powerpc64le-linux-gnu powerpc64-linux-gnu s390x-linux-gnu mips64el-linux-gnuabi64
               mipsel-linux-gnu)
test_packages=(clang lld mold gdb doctest-dev qemu-user gdb-multiarch
               systemtap-sdt-dev meson ninja-build pkg-config autoconf
               clang-tidy python3-pyflakes valgrind
               systemtap bpfcc-tools
               debootstrap    # Debian 13 and unstable roots, for their bpftrace (tests/support/debian_roots.py)
               dpkg-dev debhelper dh-python lintian    # the Debian package (tests/package/test_debian_package.py)
               python3-pyelftools)   # the ELF reader's tests read each file with it too (tests/python/test_elf.py)
for triple in "${cross_triples[@]}"; do
  test_packages+=("gcc-$triple" "g++-$triple")
done
# tests/tool/timeline: Node.js and npm, which install and run a trace viewer's parser (package-lock.json
# there). Only where there is no npm: a Node.js from elsewhere (NodeSource's nodejs) bundles its
# own npm and conflicts with Debian's npm package. The viewer wants Node.js 20 or later.
if ! command -v npm >/dev/null 2>&1; then
  test_packages+=(nodejs npm)
fi
# perf: Debian's linux-perf; Ubuntu packages it per kernel (linux-tools-$(uname -r)).
if apt-cache show linux-perf >/dev/null 2>&1; then
  test_packages+=(linux-perf)
fi
# bcc's trace compiles its BPF programs against the running kernel's headers: a distribution
# kernel has a package of them; for one without (a VM's, a cloud's), see below.
if apt-cache show "linux-headers-$(uname -r)" >/dev/null 2>&1; then
  test_packages+=("linux-headers-$(uname -r)")
fi
# Where the running kernel has no headers, the distribution's current ones, unpacked (not
# installed: they are not this kernel's) for tests/cookbook to hand bcc as BCC_KERNEL_SOURCE.
# bcc's USDT programs only read registers from pt_regs, which these headers describe alike.
debian_kernel_headers=/var/cache/usdt-tests/kernel-headers

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

if [ "${1:-}" = tests ] && ((EUID == 0)) && [ ! -d "/lib/modules/$(uname -r)/build" ] \
    && [ ! -d "$debian_kernel_headers/build" ]; then
  flavour="linux-headers-$(dpkg --print-architecture)"
  headers=$(apt-cache depends "$flavour" 2>/dev/null | sed -n 's/^ *Depends: \(linux-headers-.*\)$/\1/p' | head -n 1)
  if [ -n "$headers" ]; then
    echo "Unpacking $headers for bcc (this kernel, $(uname -r), has no headers package)"
    unpack=$(mktemp -d)
    chmod 755 "$unpack"   # apt downloads as its own user, _apt
    # The flavour's headers and the common half they build on.
    (cd "$unpack" && apt-get download -qq -o APT::Sandbox::User=root "$headers" \
      $(apt-cache depends "$headers" | sed -n 's/^ *Depends: \(linux-headers-.*\)$/\1/p') >/dev/null)
    for deb in "$unpack"/*.deb; do dpkg-deb -x "$deb" "$unpack/root"; done
    # One tree, as a kernel's build directory is: the common half, then the flavour's.
    mkdir "$unpack/build"
    for tree in "$unpack"/root/usr/src/linux-headers-*-common "$unpack/root/usr/src/$headers"; do
      cp -a "$tree/." "$unpack/build/"
    done
    mkdir -p "$debian_kernel_headers"
    mv "$unpack/build" "$debian_kernel_headers/build"
    rm -rf "$unpack"
  fi
fi

# bpftrace detaches its probes through tracefs; mount it where the kernel has it unmounted.
if ((EUID == 0)) && [ -d /sys/kernel/tracing ] && [ ! -e /sys/kernel/tracing/uprobe_events ]; then
  mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi
