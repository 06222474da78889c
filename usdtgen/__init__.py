"""usdtgen: turns DTrace provider files (.d) into C/C++ headers that emit USDT probes."""

# usdt's one version number: CMakeLists.txt reads this line for project(VERSION), so the
# package (usdtConfigVersion.cmake, usdt.pc) and the generator's output agree.
VERSION = "0.1.0"
