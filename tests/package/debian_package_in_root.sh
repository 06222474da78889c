#!/bin/sh
# What a Debian user does with usdt's package, in a clean root (test_debian_package.py runs it
# in a throwaway layer over a cached bookworm or trixie root): `apt-get install ./usdt_*_all.deb`
# with its dependencies from the archive, the example project built against it with CMake and
# with Make (no prefix given), traced, code written for systemtap's sys/sdt.h built against usdt's
# (SDT_CONSUMER_DIR: pkg-config usdt-sdt, and usdt::sdt from find_package), systemtap-sdt-dev
# installed beside it and the same again, then `apt-get remove --purge usdt` leaving none of its
# files.
#
# usage: debian_package_in_root.sh DEB EXAMPLE_DIR VERSION SDT_CONSUMER_DIR
# Each step prints `=== step`; a failed check prints `FAILED: ...` and exits 1.
set -eu

deb=$1
example=$2
version=$3
sdt_consumer=$4
work=/tmp/usdt-package-test

step() { printf '=== %s\n' "$*"; }
fail() { printf 'FAILED: %s\n' "$*"; exit 1; }
# `what` must print exactly `expected`.
expect() {
  what=$1 expected=$2
  shift 2
  actual=$("$@" 2>&1) || fail "$what: $* exited $?: $actual"
  [ "$actual" = "$expected" ] || fail "$what: $* printed '$actual', expected '$expected'"
}

# A build and a trace of kvserver at $1: every request seen, and the summaries kvserver builds
# only while its semaphore says a tracer listens.
trace() {
  kvserver=$1
  output=$(usdt trace "$kvserver" -- "$kvserver" --count 8 --interval-ms 0 2>&1) \
    || fail "usdt trace $kvserver exited $? (kvserver's status):
$output"
  printf '%s\n' "$output" | tail -n 3
  hits=$(printf '%s\n' "$output" | grep -c ' kvserver:request__start id=' || true)
  [ "$hits" = 8 ] || fail "usdt trace $kvserver: $hits request__start hits, expected 8:
$output"
  printf '%s\n' "$output" | grep -q '^kvserver: 8 requests in 2 batches, .*summaries built for tracers: 2$' \
    || fail "kvserver did not see the tracer (its last line):
$output"
}

# sdt_consumer/main.c built at $1 with usdt's sys/sdt.h: with `pkg-config --cflags usdt-sdt`, and
# with usdt::sdt (find_package, no prefix). main.c refuses any other sys/sdt.h; each note is
# usdt's: register operands, sizes and signs from the arguments' types.
sdt_consumer() {
  mkdir "$1"
  cc $(pkg-config --cflags usdt-sdt) -Wall -Wextra -Werror "$sdt_consumer/main.c" -o "$1/counter" \
    >"$1.log" 2>&1 || fail "cc \$(pkg-config --cflags usdt-sdt) main.c: $(cat "$1.log")"
  cmake -S "$sdt_consumer" -B "$1/cmake" >>"$1.log" 2>&1 && cmake --build "$1/cmake" >>"$1.log" 2>&1 \
    || fail "usdt::sdt: $(cat "$1.log")"
  for counter in "$1/counter" "$1/cmake/counter"; do
    expect "$counter's output" 3 "$counter"
    notes=$(readelf -n "$counter" | awk '/Provider:/ { provider = $2 } /Name:/ { name = $2 }
                                         /Arguments:/ { $1 = ""; print provider ":" name $0 }' | sort)
    printf '%s\n' "$notes" | grep -Eqx 'counter:done 8@%[a-z0-9]+' \
      && printf '%s\n' "$notes" | grep -Eqx 'counter:step -4@%[a-z0-9]+ -8@%[a-z0-9]+' \
      && [ "$(printf '%s\n' "$notes" | wc -l)" = 2 ] || fail "$counter's notes: $notes"
  done
  echo "$notes"
}

mkdir -p "$work"

step "apt-get install $(basename "$deb")"
apt-get update -qq
# The archive's jinja2 comes with it; bpftrace is in the root already.
apt-get install -y -qq --no-install-recommends "$deb" >"$work/install.log" 2>&1 \
  || fail "apt-get install $deb: $(cat "$work/install.log")"
dpkg -L usdt >"$work/usdt.files"
echo "$(wc -l <"$work/usdt.files") paths"

step "commands, pkg-config, private modules"
expect "usdt on PATH" /usr/bin/usdt sh -c 'command -v usdt'
expect "usdt-dtrace on PATH" /usr/bin/usdt-dtrace sh -c 'command -v usdt-dtrace'
expect "usdt-dtrace --version" "usdt-dtrace (usdt) $version" usdt-dtrace --version
expect "the dtrace in /usr/libexec/usdt/bin" "usdt-dtrace (usdt) $version" /usr/libexec/usdt/bin/dtrace --version
[ ! -e /usr/bin/dtrace ] || fail "/usr/bin/dtrace exists before systemtap-sdt-dev is installed"
usdt list --help >/dev/null || fail "usdt list --help"
expect "pkg-config usdt's version" "$version" pkg-config --modversion usdt
# usdt.pc names the one installed copy of the runtime headers, the generator's.
expect "pkg-config usdt's include directory" /usr/share/usdt/runtime/include pkg-config --variable=includedir usdt
expect "pkg-config --cflags usdt" "-I/usr/share/usdt/runtime/include" sh -c 'echo $(pkg-config --cflags usdt)'
[ ! -e /usr/include/usdt ] || fail "/usr/include/usdt exists: the runtime headers are installed once, in /usr/share/usdt"
python3 -c 'import usdtgen' 2>/dev/null && fail "usdtgen is importable by python3: it should stay private"
[ -n "$(find /usr/share/usdt -name '*.pyc')" ] || fail "no byte-compiled module in /usr/share/usdt (py3compile)"
sdt_header=/usr/share/usdt/runtime/include/sdt/sys/sdt.h
grep -qx "$sdt_header" "$work/usdt.files" || fail "no $sdt_header in the package"
expect "pkg-config --cflags usdt-sdt" "-I${sdt_header%/sys/sdt.h}" sh -c 'echo $(pkg-config --cflags usdt-sdt)'
for page in usdt usdt-dtrace; do
  grep -qx "/usr/share/man/man1/$page.1.gz" "$work/usdt.files" || fail "no manual page for $page"
done

step "CMake: find_package(usdt) with no prefix"
cmake -S "$example" -B "$work/cmake" >"$work/cmake.log" 2>&1 || fail "cmake: $(cat "$work/cmake.log")"
grep -qx 'usdt_DIR:PATH=/usr/share/cmake/usdt' "$work/cmake/CMakeCache.txt" \
  || fail "usdt_DIR: $(grep usdt_DIR "$work/cmake/CMakeCache.txt")"
cmake --build "$work/cmake" >>"$work/cmake.log" 2>&1 || fail "cmake --build: $(cat "$work/cmake.log")"
trace "$work/cmake/kvserver"

step "Make: usdt-dtrace from PATH"
mkdir "$work/make"
(cd "$work/make" && make -f "$example/make/Makefile") >"$work/make.log" 2>&1 || fail "make: $(cat "$work/make.log")"
trace "$work/make/kvserver"

step "usdt's sys/sdt.h: pkg-config usdt-sdt, usdt::sdt"
sdt_consumer "$work/sdt"
# Outside the compiler's include path: a build that did not ask for it does not find it.
echo '#include <sys/sdt.h>' | cc -E -x c - >/dev/null 2>&1 && fail "<sys/sdt.h> found without usdt-sdt's flags"

step "systemtap-sdt-dev beside usdt"
apt-get install -y -qq --no-install-recommends systemtap-sdt-dev >"$work/sdt.log" 2>&1 \
  || fail "apt-get install systemtap-sdt-dev: $(cat "$work/sdt.log")"
for path in /usr/bin/dtrace "/usr/include/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -dumpmachine)/sys/sdt.h"; do
  expect "$path's package" systemtap-sdt-dev sh -c "dpkg -S '$path' | sed 's/[:,].*//'"
done
# A build that looks for `dtrace` on PATH gets usdt's when its directory comes first.
mkdir "$work/dropin"
(cd "$work/dropin" && PATH="/usr/libexec/usdt/bin:$PATH" make -f "$example/make/Makefile" DTRACE=dtrace) \
  >"$work/dropin.log" 2>&1 || fail "make DTRACE=dtrace: $(cat "$work/dropin.log")"
grep -q "^/\* Generated by usdtgen $version " "$work/dropin/kvserver.h" || fail "kvserver.h is not usdt's: $(head -n 5 "$work/dropin/kvserver.h")"
# Both sys/sdt.h headers installed: usdt's for the builds that ask for it, systemtap's for the others.
expect "$sdt_header's package" usdt sh -c "dpkg -S '$sdt_header' | sed 's/:.*//'"
sdt_consumer "$work/sdt-beside"
expect "plain <sys/sdt.h>" systemtap-sdt-dev sh -c \
  "dpkg -S \$(echo '#include <sys/sdt.h>' | cc -M -x c - | grep -o '[^ ]*/sys/sdt\.h') | sed 's/[:,].*//'"

step "apt-get remove --purge usdt"
apt-get remove --purge -y -qq usdt >"$work/remove.log" 2>&1 || fail "apt-get remove: $(cat "$work/remove.log")"
# What is still there must belong to another package (/usr/share/doc...); `/.` is the root.
left=$(while read -r path; do
         if [ "$path" != /. ] && [ -e "$path" ] && ! dpkg -S "$path" >/dev/null 2>&1; then echo "$path"; fi
       done <"$work/usdt.files")
[ -z "$left" ] || fail "left behind by apt-get remove --purge usdt: $left"
[ ! -e /usr/share/usdt ] || fail "left behind: $(find /usr/share/usdt)"
[ -x /usr/bin/dtrace ] || fail "systemtap-sdt-dev's /usr/bin/dtrace went with usdt"
step "done"
