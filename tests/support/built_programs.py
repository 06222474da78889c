"""The paths of the programs CMake built, which CTest passes to each test as NAME=PATH.

`take_from_argv()` removes those arguments, so that unittest sees only its own options.
"""

import sys
from typing import Dict

NAMES = ("types_c", "types_c_o2", "types_cxx", "types_cxx_o2", "guarded", "fresh_strings", "flavours", "linked",
         "solib")

# The four builds of types.c and types.cpp: the same probes, the same hits.
TYPES_PROGRAMS = ("types_c", "types_c_o2", "types_cxx", "types_cxx_o2")


def take_from_argv() -> Dict[str, str]:
    paths = {}
    remaining = [sys.argv[0]]
    for argument in sys.argv[1:]:
        name, separator, path = argument.partition("=")
        if separator and name in NAMES:
            paths[name] = path
        else:
            remaining.append(argument)
    missing = [name for name in NAMES if name not in paths]
    if missing:
        sys.exit(f"{sys.argv[0]}: missing program paths (NAME=PATH) for: {', '.join(missing)}")
    sys.argv[:] = remaining
    return paths
