"""Finds the shared libraries a program or library loads, as the dynamic linker would, without
running anything (`ldd` runs the program's interpreter): DT_NEEDED, breadth-first, each name
looked up through DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH, the `ldconfig -p` cache and the
default directories, the order ld.so(8) describes; the interpreter (PT_INTERP) comes too.
And the file an operand names: a name without a '/' is looked up on PATH, as execvp(3) runs it.
"""

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from . import elf
from ..errors import ToolError

DEFAULT_DIRECTORIES = ("/lib", "/usr/lib", "/lib64", "/usr/lib64")
# Debian and Ubuntu's glibc searches its multiarch directories by default, cache or not.
MULTIARCH = {"EM_X86_64": "x86_64-linux-gnu", "EM_AARCH64": "aarch64-linux-gnu", "EM_386": "i386-linux-gnu",
             "EM_ARM": "arm-linux-gnueabihf"}


@dataclass(frozen=True)
class Libraries:
    paths: Tuple[str, ...]                  # found, in load order
    missing: Tuple[Tuple[str, str], ...]    # (file that needs it, library name) not found


def find_program(operand: str) -> str:
    """The file `operand` names: itself when it has a '/'; else the program of that name on PATH,
    as a shell or `--`'s command finds it (`usdt trace python3`), else the file of that name here
    (`usdt list libfoo.so`); a ToolError when there is none."""
    if "/" in operand:
        return operand
    found = shutil.which(operand)
    if found is not None:
        with open(found, "rb") as program:
            start = program.readline(200)
        if start.startswith(b"#!"):
            line = start.decode(errors="backslashreplace").strip()
            raise ToolError(f"{operand} on PATH is {found}, a script ({line}), not an ELF file: name the "
                            f"program it runs")
        return found
    if os.path.exists(operand):
        return operand
    raise ToolError(f"{operand}: no such file here, and no program of that name on PATH")


def shared_libraries(path: str) -> Libraries:
    main = elf.read_linkage(path)
    cache = _ldconfig_cache()
    found: List[str] = []
    names, files = set(), set()
    missing: List[Tuple[str, str]] = []
    if main.interpreter and not os.path.isfile(main.interpreter):
        missing.append((path, main.interpreter))    # built for another machine, say
    elif main.interpreter:
        found.append(main.interpreter)
        names.add(os.path.basename(main.interpreter))
        files.add(os.path.realpath(main.interpreter))
    queue: List[Tuple[str, elf.Linkage]] = [(path, main)]
    while queue:
        needer, linkage = queue.pop(0)
        for name in linkage.needed:
            if name in names:
                continue
            names.add(name)
            library = _find(name, needer, linkage, path, main, cache)
            if library is None:
                missing.append((needer, name))
            elif os.path.realpath(library) not in files:
                files.add(os.path.realpath(library))
                found.append(library)
                queue.append((library, elf.read_linkage(library)))
    return Libraries(tuple(found), tuple(missing))


def _find(name: str, needer: str, linkage: elf.Linkage, main_path: str, main: elf.Linkage,
          cache: Dict[str, List[str]]) -> Optional[str]:
    if "/" in name:
        return name if _loadable(name, main) else None
    directories: List[str] = []
    if not linkage.runpath:
        # DT_RPATH applies only to a file without DT_RUNPATH; the program's own RPATH serves its libraries too.
        directories += _expanded(linkage.rpath, needer)
        if needer != main_path and not main.runpath:
            directories += _expanded(main.rpath, main_path)
    directories += [entry for entry in os.environ.get("LD_LIBRARY_PATH", "").replace(";", ":").split(":") if entry]
    directories += _expanded(linkage.runpath, needer)
    candidates = [os.path.join(directory, name) for directory in directories]
    candidates += cache.get(name, [])
    multiarch = MULTIARCH.get(main.machine)
    defaults = [f"{directory}/{multiarch}" for directory in ("/lib", "/usr/lib") if multiarch]
    candidates += [os.path.join(directory, name) for directory in (*defaults, *DEFAULT_DIRECTORIES)]
    return next((candidate for candidate in candidates if _loadable(candidate, main)), None)


def _expanded(entries, owner: str) -> List[str]:
    origin = os.path.dirname(os.path.realpath(owner))
    return [entry.replace("${ORIGIN}", origin).replace("$ORIGIN", origin) for entry in entries]


def _loadable(candidate: str, main: elf.Linkage) -> bool:
    """Whether ld.so would take the file: an ELF file for the program's class and machine."""
    if not os.path.isfile(candidate):
        return False
    try:
        linkage = elf.read_linkage(candidate)
    except ToolError:
        return False
    return (linkage.elf_class, linkage.machine) == (main.elf_class, main.machine)


@functools.lru_cache(maxsize=1)
def _ldconfig_cache() -> Dict[str, List[str]]:
    """`ldconfig -p`: library name -> paths, every architecture's (_loadable picks); read once,
    as a trace starts (the command's libraries, then bpftrace's)."""
    ldconfig = shutil.which("ldconfig") or next(
        (path for path in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if os.access(path, os.X_OK)), None)
    if ldconfig is None:
        return {}
    try:
        output = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, check=False,
                                env=dict(os.environ, LC_ALL="C")).stdout
    except OSError:
        return {}
    cache: Dict[str, List[str]] = {}
    for line in output.splitlines()[1:]:
        name, arrow, path = line.strip().partition(" => ")
        if arrow:
            cache.setdefault(name.split(" (")[0], []).append(path)
    return cache
