# CMake toolchain file: Linux on another architecture with Debian's cross compilers
# (gcc-TRIPLE, g++-TRIPLE) and their sysroot /usr/TRIPLE, run under qemu-user:
#   cmake -S project -B build -DCMAKE_TOOLCHAIN_FILE=tests/cross/debian.cmake \
#         -DUSDT_CROSS_TRIPLE=riscv64-linux-gnu -DUSDT_CROSS_EMULATOR=qemu-riscv64
if(NOT USDT_CROSS_TRIPLE OR NOT USDT_CROSS_EMULATOR)
  message(FATAL_ERROR "debian.cmake: set USDT_CROSS_TRIPLE (aarch64-linux-gnu) and USDT_CROSS_EMULATOR (qemu-aarch64)")
endif()
# try_compile's projects read this file again: hand them the two settings.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES USDT_CROSS_TRIPLE USDT_CROSS_EMULATOR)

set(CMAKE_SYSTEM_NAME Linux)
string(REGEX MATCH "^[^-]+" CMAKE_SYSTEM_PROCESSOR "${USDT_CROSS_TRIPLE}")

set(CMAKE_C_COMPILER ${USDT_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${USDT_CROSS_TRIPLE}-g++)

# Libraries, headers and packages come from the target's sysroot; programs (the Python
# that runs the generator) from the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/${USDT_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Lets try_run and add_test run target programs (Debian: qemu-user).
set(CMAKE_CROSSCOMPILING_EMULATOR ${USDT_CROSS_EMULATOR} -L /usr/${USDT_CROSS_TRIPLE})
