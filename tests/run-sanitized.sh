#!/usr/bin/env bash
# The tests whose programs this project's build compiles, in an AddressSanitizer +
# UndefinedBehaviorSanitizer build and in a ThreadSanitizer build, then the `sanitize` label
# (runtime tests under valgrind memcheck, the stress program with TSan and ASan) in a plain
# build. Run as root for the tracer tests. Build trees: build/sanitized/{asan,tsan,plain}
# (or under $1). Exit status non-zero if any run failed; all runs happen regardless.
#
# Not run in the sanitizer builds, and why:
#   python, package, matrix, cross, dropin, fuzz, hygiene
#       build their own CMake projects or compilers' command lines with their own flags, or
#       compile nothing: the sanitizer flags never reach what they test. The plain ctest run
#       covers them.
#   sanitize.valgrind.*  valgrind cannot run sanitizer-instrumented programs; the plain build
#       runs them.
#   runtime.compile_errors  expects exact compiler diagnostics, which the flags do not change.
#   cross.*  builds its own cross-compiled project (label `cross integration`).
#   runtime.nop5_red_zone (ASan build)  depends on a leaf function at -O0 keeping its locals in the
#       red zone; ASan's instrumentation calls out of it and moves its locals.
#   integration.gdb (ASan build)  expects the exact list of providers in the process, and the
#       ASan runtime loads libstdc++, which brings its own (libstdcxx:catch...).
# LeakSanitizer is off: it cannot run under ptrace (the gdb tests); valgrind's leak check on the
# runtime tests, in the plain build, covers leaks.
set -uo pipefail
repository=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_root=${1:-$repository/build/sanitized}
jobs=$(nproc)
labels='^(runtime|integration|scripts|sanitize)$'
excluded='^(sanitize\.valgrind\.|runtime\.compile_errors$|cross\.)'
failed=()

# configure_build_test NAME FLAGS CTEST-ARGUMENTS...
configure_build_test() {
    local name=$1 flags=$2
    shift 2
    local build="$build_root/$name"
    echo "== $name: ${flags:-no sanitizer flags}"
    if cmake -S "$repository" -B "$build" -DUSDT_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Debug \
            "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=$flags" \
            "-DCMAKE_SHARED_LINKER_FLAGS=$flags" "-DCMAKE_MODULE_LINKER_FLAGS=$flags" &&
       cmake --build "$build" --parallel "$jobs" &&
       (cd "$build" && ctest --output-on-failure --parallel "$jobs" "$@"); then
        return
    fi
    failed+=("$name")
}

# Any report fails the test (UBSan otherwise only prints).
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=0
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
configure_build_test asan "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
    -L "$labels" -E "$excluded|^(runtime\.nop5_red_zone|integration\.gdb)$"
configure_build_test tsan "-fsanitize=thread" -L "$labels" -E "$excluded"
configure_build_test plain "" -L '^sanitize$'

if ((${#failed[@]})); then
    echo "failed: ${failed[*]}" >&2
    exit 1
fi
echo "all sanitizer runs passed"
