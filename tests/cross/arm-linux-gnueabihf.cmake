# CMake toolchain file: Linux on 32-bit ARM, hard-float, with Debian's cross compilers
# (gcc-arm-linux-gnueabihf, g++-arm-linux-gnueabihf) and their sysroot /usr/arm-linux-gnueabihf.
# usdt has no probes for this target (test_unsupported.py).
#   cmake -S project -B build -DCMAKE_TOOLCHAIN_FILE=tests/cross/arm-linux-gnueabihf.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)

# Libraries, headers and packages come from the target's sysroot; programs (the Python
# that runs the generator) from the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/arm-linux-gnueabihf)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Lets try_run and add_test run target programs (Debian: qemu-user).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm -L /usr/arm-linux-gnueabihf)
