"""The names of the programs CMake built for tests/integration, which CTest passes to each
test as NAME=PATH (read with usdt_testing.parse_options(program_names=NAMES)).
"""

NAMES = ("types_c", "types_c_o2", "types_cxx", "types_cxx_o2", "guarded", "fresh_strings", "flavours", "linked",
         "solib")

# The four builds of types.c and types.cpp: the same probes, the same hits.
TYPES_PROGRAMS = ("types_c", "types_c_o2", "types_cxx", "types_cxx_o2")
