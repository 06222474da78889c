# CMake toolchain file: tests/cross/aarch64-linux-gnu.cmake (Linux on aarch64 with Debian's
# GCC cross compilers, qemu-aarch64) with aarch64_sysroot/ as CMAKE_SYSROOT, which may only be
# set in a toolchain file. That stand-in sysroot has headers only: Debian's cross compilers
# find the C library relative to themselves.
include("${CMAKE_CURRENT_LIST_DIR}/../cross/aarch64-linux-gnu.cmake")

set(CMAKE_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/aarch64_sysroot")
