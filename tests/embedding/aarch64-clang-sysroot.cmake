# CMake toolchain file: aarch64-gcc-sysroot.cmake with the build machine's Clang, told the
# target by CMAKE_<LANG>_COMPILER_TARGET (--target=). Clang links with Debian's
# aarch64-linux-gnu-ld and gcc-aarch64-linux-gnu's C library.
include("${CMAKE_CURRENT_LIST_DIR}/aarch64-gcc-sysroot.cmake")

set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
