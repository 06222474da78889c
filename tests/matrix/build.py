"""Builds a matrix cell (cells.Cell) with direct compiler, ar and linker invocations.

CMake adds nothing here but indirection: the compiler, linker and flags change per program,
and the commands below are what a failure report shows. The probe headers come from
usdt_add_provider (tests/matrix/CMakeLists.txt), as a CMake consumer gets them: they define
the semaphores and `.stapsdt.base` themselves, so nothing else is compiled or linked.

The probe code of a cell is types.c/types.cpp (compiled with -Dmain=usdt_matrix_types),
edges.c (in the cell's language) and, with gc_sections, gc.c. driver.c holds main().
"""

import argparse
import shlex
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, TypeVar

import usdt_testing
from cells import LIBRARY_MODES, Cell

WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
LIBRARY_NAME = "libmatrix_probes"


@dataclass(frozen=True)
class Inputs:
    """Paths CMake passes to every matrix test."""
    generated: Path          # myapp.h, other.h, edges.h
    integration_programs: Path
    matrix_programs: Path
    work_dir: Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for name in ("generated", "integration-programs",
                 "matrix-programs", "work-dir"):
        parser.add_argument(f"--{name}", required=True, type=Path)


def inputs_from(options: argparse.Namespace) -> Inputs:
    return Inputs(options.generated, options.integration_programs, options.matrix_programs, options.work_dir)


@dataclass(frozen=True)
class Built:
    cell: Cell
    program: Path
    probe_module: Path        # the ELF file with the probes: the program or its shared library
    commands: str             # every command run, for failure messages


class BuildError(Exception):
    pass


def _compilers(cell: Cell):
    """(C compiler, compiler of the cell's language)."""
    if cell.compiler == "gcc":
        return "gcc", ("g++" if cell.cxx else "gcc")
    return "clang", ("clang++" if cell.cxx else "clang")


def _optimization_flags(cell: Cell) -> List[str]:
    return ["-O2", "-flto"] if cell.optimization == "lto" else [f"-{cell.optimization}"]


class _Commands:
    """Runs commands in a cell's directory and keeps them for the failure message."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.log: List[str] = []

    def run(self, command: Sequence[str]) -> None:
        self.log.append(shlex.join(str(part) for part in command))
        completed = subprocess.run([str(part) for part in command], cwd=self.directory,
                                   capture_output=True, text=True, timeout=300)
        if completed.returncode != 0:
            raise BuildError("\n".join(self.log) + "\n" + completed.stdout + completed.stderr)


def build(cell: Cell, inputs: Inputs) -> Built:
    directory = inputs.work_dir / cell.name
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    commands = _Commands(directory)
    c_compiler, compiler = _compilers(cell)
    c_standard = "-std=c11" if cell.cxx else f"-std={cell.standard}"
    common = [*WARNINGS, *_optimization_flags(cell), *usdt_testing.probe_flags(),
              "-include", inputs.matrix_programs / "entry.h",
              f"-I{inputs.generated}"]
    if cell.gc_sections:
        common += ["-ffunction-sections", "-fdata-sections"]

    in_library = cell.link in LIBRARY_MODES
    probe_flags = list(common)
    if in_library or cell.link == "objects":
        probe_flags.append("-fPIC")
    elif cell.link in ("nopie", "static"):
        probe_flags.append("-fno-pie")
    else:
        probe_flags.append("-fPIE")
    if cell.link == "hidden":
        probe_flags.append("-fvisibility=hidden")

    # The probe code's objects.
    language = ["-x", "c++"] if cell.cxx else []
    if cell.cxx and cell.link == "hidden":
        language.append("-fvisibility-inlines-hidden")
    types_source = inputs.integration_programs / ("types.cpp" if cell.cxx else "types.c")
    sources = [(compiler, [f"-std={cell.standard}", *language, "-Dmain=usdt_matrix_types"], types_source),
               (compiler, [f"-std={cell.standard}", *language], inputs.matrix_programs / "edges.c")]
    if cell.gc_sections:
        sources.append((compiler, [f"-std={cell.standard}", *language], inputs.matrix_programs / "gc.c"))
    objects = []
    for tool, flags, source in sources:
        obj = directory / (source.name + ".o")
        commands.run([tool, *probe_flags, *flags, "-c", source, "-o", obj])
        objects.append(obj)

    library = directory / f"{LIBRARY_NAME}.so"
    driver_flags = [*common, c_standard, "-fno-pie" if cell.link in ("nopie", "static") else "-fPIE"]
    if cell.link == "dlopen":
        driver_flags.append(f'-DMATRIX_DLOPEN="{library}"')
    driver = directory / "driver.o"
    commands.run([c_compiler, *driver_flags, "-c", inputs.matrix_programs / "driver.c", "-o", driver])

    link = [compiler, *_optimization_flags(cell), f"-fuse-ld={cell.linker}"]
    if cell.gc_sections:
        link.append("-Wl,--gc-sections")
    program = directory / "program"
    probe_module = program
    if in_library:
        commands.run([*link, "-shared", f"-Wl,-soname,{library.name}", *objects, "-o", library])
        probe_module = library
    if cell.link in ("shared", "hidden"):
        program_inputs = [driver, library, f"-Wl,-rpath,{directory}"]
    elif cell.link == "dlopen":
        # glibc before 2.34 (Debian 11's 2.31) has dlopen in libdl.
        program_inputs = [driver, "-ldl"]
    elif cell.link == "archive":
        archive = directory / f"{LIBRARY_NAME}.a"
        commands.run([_archiver(cell, compiler), "rcs", archive, *objects])
        program_inputs = [driver, archive]
    else:
        program_inputs = [driver, *objects]
    mode = {"nopie": ["-no-pie"], "static": ["-static"]}.get(cell.link, ["-pie"])
    commands.run([*link, *mode, *program_inputs, "-o", program])
    return Built(cell, program, probe_module, "\n".join(commands.log))


def _archiver(cell: Cell, compiler: str) -> str:
    """gcc-ar, which loads GCC's LTO plugin; for Clang, binutils' ar, which reads LLVM bitcode
    through the plugin clang's packages install in /usr/lib/bfd-plugins, but where there is
    none (Debian 11) Clang's own llvm-ar, which comes with it there."""
    if cell.compiler == "gcc":
        return "gcc-ar"
    if any(Path("/usr/lib/bfd-plugins").glob("LLVMgold*.so")):
        return "ar"
    return subprocess.run([compiler, "-print-prog-name=llvm-ar"], capture_output=True, text=True,
                          check=True).stdout.strip()


T = TypeVar("T")
R = TypeVar("R")


def parallel_map(function: Callable[[T], R], items: Iterable[T], workers: int = 2) -> Dict[T, object]:
    """function(item) for every item, two at a time (the machine has two cores); an exception
    is kept as the item's result, so that one broken cell fails only its own tests."""
    def guarded(item: T):
        try:
            return function(item)
        except Exception as error:  # noqa: BLE001 - reported by the test of that item
            return error
    items = list(items)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return dict(zip(items, pool.map(guarded, items)))


def result_or_raise(result: object, what: Optional[str] = None):
    """A parallel_map result, raising the exception it holds (with `what` it failed on)."""
    if isinstance(result, BuildError):
        raise AssertionError(f"build of {what} failed:\n{result}")
    if isinstance(result, Exception):
        raise result
    return result
