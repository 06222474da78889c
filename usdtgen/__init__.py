"""usdtgen: turns DTrace provider files (.d) into C/C++ headers that emit USDT probes."""

VERSION = "0.1.0"
