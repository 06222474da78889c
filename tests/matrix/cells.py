"""The matrix as data: what each cell builds (compiler, language standard, optimisation, link
mode, linker) and which cells each run of the matrix covers.

A cell is one program: types.c or types.cpp (tests/integration) and edges.c, with the
generated headers, built the way the cell says (build.py), then
checked by readelf and gdb (test_matrix.py, test_linkers.py) or bpftrace (test_bpftrace.py).
"""

from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, Tuple

import pairwise
import usdt_testing

COMPILERS = ("gcc", "clang")
STANDARDS = ("c99", "c11", "c++11", "c++17", "c++20")
# lto is -O2 -flto, at compile and at link time.
OPTIMIZATIONS = ("O0", "O2", "O3", "Os", "lto")
# Less the linkers the run leaves out (USDT_LEFT_OUT: mold in Debian 11's root, where
# tests/support/suite_in_root.py says why); anywhere else a missing linker fails its cells.
LINKERS = tuple(linker for linker in ("bfd", "gold", "lld", "mold") if usdt_testing.left_out_reason(linker) is None)

# Where the probe code (types and edges, their semaphores, the runtime) ends up.
LINK_MODES = {
    "pie": "linked into a position-independent executable",
    "nopie": "linked into a non-PIE executable (-fno-pie, -no-pie)",
    "static": "linked into a static executable (-static)",
    "shared": "in a shared library the program links",
    "dlopen": "in a shared library the program loads with dlopen()",
    "archive": "in a static library (ar) the program links",
    "objects": "position-independent objects linked straight into the program, as CMake links an OBJECT library",
    "hidden": "in a shared library compiled with -fvisibility=hidden",
}
# Modes whose probes live in a shared library rather than in the program.
LIBRARY_MODES = ("shared", "dlopen", "hidden")


@dataclass(frozen=True)
class Cell:
    compiler: str
    standard: str
    optimization: str
    link: str
    linker: str = "bfd"
    # -ffunction-sections -fdata-sections -Wl,--gc-sections, and gc.c's probed function
    # that nothing calls.
    gc_sections: bool = False

    @property
    def cxx(self) -> bool:
        return self.standard.startswith("c++")

    @property
    def name(self) -> str:
        parts = [self.compiler, self.standard.replace("+", "x"), self.optimization, self.link]
        if self.gc_sections:
            parts += [self.linker, "gc"]
        elif self.linker != "bfd":
            parts.append(self.linker)
        return "_".join(parts)


# The builds tests/integration makes of types.c and types.cpp (CMake's default compiler, a
# PIE): the matrix is where gdb reads them (integration.gdb reads the other programs), so the
# default cells start with these.
INTEGRATION_BUILDS = (
    Cell("gcc", "c99", "O0", "pie"),
    Cell("gcc", "c99", "O2", "pie"),
    Cell("gcc", "c++11", "O0", "pie"),
    Cell("gcc", "c++11", "O2", "pie"),
)

# The parameters of the default cells, in Cell's field order.
PARAMETERS = (COMPILERS, STANDARDS, OPTIMIZATIONS, tuple(LINK_MODES))


@lru_cache(maxsize=None)   # a greedy search over every combination: once per process
def pairwise_cells() -> Tuple[Cell, ...]:
    """A covering array of PARAMETERS (pairwise.py): every compiler, standard, optimisation and
    link mode meets every value of each other parameter in some cell, INTEGRATION_BUILDS
    first. A fault that takes two settings together shows there; one that takes three is the
    full run's to find."""
    required = [(cell.compiler, cell.standard, cell.optimization, cell.link) for cell in INTEGRATION_BUILDS]
    return tuple(Cell(*row) for row in pairwise.covering_array(PARAMETERS, required))


def default_cells(compiler: str) -> Tuple[Cell, ...]:
    """The default run: the cells of pairwise_cells() that `compiler` builds."""
    return tuple(cell for cell in pairwise_cells() if cell.compiler == compiler)


def full_cells(compiler: str) -> Tuple[Cell, ...]:
    """The full run (USDT_TEST_MATRIX_FULL): every standard x optimisation x link mode."""
    return tuple(Cell(compiler, standard, optimization, link)
                 for link in LINK_MODES for standard in STANDARDS for optimization in OPTIMIZATIONS)


def linker_supports(compiler: str, optimization: str, linker: str) -> bool:
    # GCC's LTO objects hold GIMPLE, which only linkers with GCC's plugin (bfd, gold, mold)
    # can read: lld fails with "undefined symbol: main".
    return not (compiler == "gcc" and optimization == "lto" and linker == "lld")


def linker_cells(full: bool = False) -> Tuple[Cell, ...]:
    """Each linker with --gc-sections, C and C++, with and without LTO; the full run adds
    every optimisation and the library modes."""
    optimizations = OPTIMIZATIONS if full else ("O2", "lto")
    # Executables only: a shared library exports the function nothing calls (so it is not
    # garbage), and a static library never hands gc.c's member to the linker.
    links = ("pie", "nopie", "static") if full else ("pie",)
    return tuple(Cell(compiler, standard, optimization, link, linker, gc_sections=True)
                 for linker in LINKERS for compiler in COMPILERS
                 for standard in ("c11", "c++17") for optimization in optimizations for link in links
                 if linker_supports(compiler, optimization, linker))


# bpftrace is slow to attach, once per run: a subset that still meets every
# compiler, standard, optimisation and link mode.
BPFTRACE_CELLS = (
    Cell("gcc", "c11", "O2", "pie"),
    Cell("gcc", "c++17", "O3", "nopie"),
    Cell("gcc", "c99", "lto", "static"),
    Cell("gcc", "c++20", "Os", "shared"),
    Cell("gcc", "c11", "O0", "dlopen"),
    Cell("clang", "c99", "O2", "archive"),
    Cell("clang", "c++11", "lto", "pie"),
    Cell("clang", "c++17", "O0", "objects"),
    Cell("clang", "c11", "O3", "hidden"),
    Cell("clang", "c++20", "Os", "static"),
)


# Cells known to fail, view ("notes" or "gdb") -> why. Their tests are expected failures:
# the day one passes, unittest reports an unexpected success and the entry must go.
GOLD_GC_LIBSTDCXX = ("gold --gc-sections refuses the sys/sdt.h notes of libstdc++.a itself: "
                     "'libstdc++.a(eh_throw.o)(.note.stapsdt+0x14): error: relocation refers to local "
                     "symbol \"\" [4], which is defined in a discarded section' (sourceware PR 27775)")


UNLINKED_NOTES_GC = ("binutils 2.35 builds notes without SHF_LINK_ORDER (USDT_UNLINKED_NOTES, "
                     "docs/cmake.md): --gc-sections keeps the dead probed function for its note (GNU ld) "
                     "or leaves the note at address 0 (lld); gold keeps it anyway")


def known_failures(cell: Cell) -> Dict[str, str]:
    if cell.gc_sections and cell.linker == "gold" and cell.link == "static" and cell.cxx \
            and cell.compiler == "clang":
        return {"notes": GOLD_GC_LIBSTDCXX, "gdb": GOLD_GC_LIBSTDCXX}
    if cell.gc_sections and cell.optimization != "lto" and cell.linker in ("bfd", "lld") \
            and "-DUSDT_UNLINKED_NOTES" in usdt_testing.probe_flags():
        # (With LTO the compiler drops the dead function first.) gdb lists lld's note at 0.
        return {"notes": UNLINKED_NOTES_GC, **({"gdb": UNLINKED_NOTES_GC} if cell.linker == "lld" else {})}
    return {}
