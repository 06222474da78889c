/* A header only the target's sysroot has (aarch64-gcc-sysroot.cmake's CMAKE_SYSROOT). */
#define TARGET_WORD unsigned short
