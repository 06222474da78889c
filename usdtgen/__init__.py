"""usdtgen: turns DTrace provider files (.d) into C/C++ headers that emit USDT probes."""

VERSION = "0.1.0"

# Bumped whenever generated code needs a different runtime header (runtime/include/usdt/usdt.h).
ABI_VERSION = 4
