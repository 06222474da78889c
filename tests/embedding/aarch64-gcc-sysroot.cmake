# CMake toolchain file: tests/cross/debian.cmake for aarch64 (Linux on aarch64 with Debian's
# GCC cross compilers, qemu-aarch64) with aarch64_sysroot/ as CMAKE_SYSROOT, which may only be
# set in a toolchain file. That stand-in sysroot has headers only: Debian's cross compilers
# find the C library relative to themselves.
set(USDT_CROSS_TRIPLE aarch64-linux-gnu)
set(USDT_CROSS_EMULATOR qemu-aarch64)
include("${CMAKE_CURRENT_LIST_DIR}/../cross/debian.cmake")

set(CMAKE_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/aarch64_sysroot")
