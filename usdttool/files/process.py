"""A running process: the ELF files it maps (/proc/PID/maps) that have probes, and the current
value of a probe's semaphore in its memory (/proc/PID/mem), and the faulting in of those files'
pages for a tracer (/proc/PID/mem again); its dynamic linker, whose notice of each change to its
libraries a tracer can hear (/proc/PID/auxv), and whether it may be stopped a moment.

/proc/PID/maps names each file as this process would reach it, where it can: a process in a
chroot maps files at their paths here. A file on a mount this process does not see (a
container's, another mount namespace's) has the path it has there, which here names another
file, or none: such a file is read, and attached to, through /proc/PID/root, the process's own
view of it, or through the mapping itself (/proc/PID/map_files).

Reading the mappings needs the right to read the process's memory map (same user, or root);
reading a semaphore needs ptrace access, which Yama (kernel.yama.ptrace_scope >= 1) may refuse
even to the same user: a semaphore that cannot be read has an unknown value and a reason.
"""

import ctypes
import errno
import os
import struct
import sys
from dataclasses import dataclass
from typing import AbstractSet, Dict, List, Optional, Set, Tuple

from . import elf
from ..errors import ToolError

SEMAPHORE_SIZE = 2   # unsigned short, in sys/sdt.h as in usdt


@dataclass(frozen=True)
class Mapping:
    """A line of /proc/PID/maps backed by a file."""
    start: int
    end: int
    offset: int              # of the file
    path: str                # as the process sees it
    inode: int = 0           # of the file


@dataclass(frozen=True)
class ProcessModule:
    module: elf.Module
    mappings: Tuple[Mapping, ...]   # the file's mappings in the process


@dataclass(frozen=True)
class Process:
    pid: int
    modules: Tuple[ProcessModule, ...]   # the mapped files with probes, in address order
    warnings: Tuple[str, ...]            # mapped files that could not be read


@dataclass(frozen=True)
class SemaphoreValue:
    value: Optional[int]     # None when it could not be read
    error: Optional[str]     # why not

    @property
    def active(self) -> Optional[bool]:
        return None if self.value is None else self.value != 0


def read_process(pid: int, skip: AbstractSet[str] = frozenset()) -> Process:
    """The process's mapped files with probes, but for those whose paths (as it maps them) are
    in `skip`, read already."""
    by_path = {}
    for mapping in mappings(pid):
        if mapping.path not in skip:
            by_path.setdefault(mapping.path, []).append(mapping)
    modules, warnings = [], []
    for path, file_mappings in by_path.items():
        if path.endswith(" (deleted)"):
            warnings.append(f"{path}: the mapped file was deleted; its probes are not listed")
            continue
        readable = _readable_path(pid, file_mappings[0])
        if not elf.may_have_probes(readable):
            continue
        try:
            module = elf.read_module(readable)
        except elf.NotELFError:
            continue   # mapped data files: locale archives, caches
        except ToolError as error:
            warnings.append(str(error))
            continue
        if module.probes:
            modules.append(ProcessModule(module, tuple(file_mappings)))
    return Process(pid, tuple(modules), tuple(warnings))


def mappings(pid: int) -> List[Mapping]:
    try:
        with open(f"/proc/{pid}/maps") as maps:
            lines = maps.read().splitlines()
    except (FileNotFoundError, ProcessLookupError):
        raise ToolError(f"no process {pid}") from None
    except PermissionError:
        raise ToolError(f"process {pid}: permission denied reading its memory map "
                        "(it belongs to another user: run as that user or as root)") from None
    except OSError as error:
        raise ToolError(f"process {pid}: cannot read its memory map: {error.strerror}") from None
    found = []
    for line in lines:
        fields = line.split(maxsplit=5)
        # Anonymous memory has no path; [heap], [stack], [vdso] and the like are no files.
        if len(fields) < 6 or not fields[5].startswith("/"):
            continue
        start, end = (int(bound, 16) for bound in fields[0].split("-"))
        found.append(Mapping(start, end, int(fields[2], 16), fields[5], int(fields[4])))
    return found


def file_identity(path: str) -> object:
    """The file at `path`, whatever link or mount the path goes through."""
    try:
        status = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return status.st_dev, status.st_ino


def _readable_path(pid: int, mapping: Mapping) -> str:
    """The mapped file's path as the process names it, where it is that file here (the inode
    /proc/PID/maps gives); else its view of it, /proc/PID/root/PATH; else, where neither is (a
    chroot's process in a mount namespace of its own: the path is its namespace's), the mapping
    itself, /proc/PID/map_files/START-END (root alone may follow it)."""
    own_view = f"/proc/{pid}/root{mapping.path}"
    for candidate in (mapping.path, own_view, f"/proc/{pid}/map_files/{mapping.start:x}-{mapping.end:x}"):
        try:
            if os.stat(candidate).st_ino == mapping.inode:
                return candidate
        except OSError:
            continue
    return mapping.path if os.path.exists(mapping.path) else own_view


def has_a_root_of_its_own(pid: int) -> bool:
    """Whether process `pid` runs in a chroot or a container: its / is not this process's."""
    try:
        theirs, ours = os.stat(f"/proc/{pid}/root"), os.stat("/")
    except OSError:
        return False
    return (theirs.st_dev, theirs.st_ino) != (ours.st_dev, ours.st_ino)


def seen_through_its_root(process_module: ProcessModule) -> bool:
    """Whether the module is read through /proc/PID/root: the path the process maps names
    another file here, or none."""
    return process_module.module.path != process_module.mappings[0].path


@dataclass(frozen=True)
class DynamicLinker:
    """The process's dynamic linker (ld.so), which calls `_dl_debug_state()` at each change to the
    libraries (dlopen(), dlclose()), its `_r_debug.r_state` set: RT_ADD (1) before it maps a
    library, RT_CONSISTENT (0) once it has (and before dlopen() returns), RT_DELETE (2) before
    it unmaps one: the interface debuggers use (glibc's <link.h>)."""
    path: str                # as read here (_readable_path)
    state_address: int       # of _r_debug.r_state in the process

    RT_CONSISTENT = 0


_AT_BASE = 7


def dynamic_linker(pid: int) -> Optional[DynamicLinker]:
    """The dynamic linker of process `pid`, None where it has none (a static program) or it
    cannot be read: its load address is AT_BASE in /proc/PID/auxv, its `_r_debug` a symbol."""
    try:
        with open(f"/proc/{pid}/auxv", "rb") as auxv:
            data = auxv.read()
        words = struct.unpack(f"{len(data) // 8}Q", data[:len(data) // 8 * 8])
        base = dict(zip(words[0::2], words[1::2])).get(_AT_BASE, 0)
        mapping = next((mapping for mapping in mappings(pid) if mapping.start == base and mapping.offset == 0), None)
        if not base or mapping is None:
            return None
        path = _readable_path(pid, mapping)
        r_debug = elf.dynamic_symbol(path, "_r_debug")
        linkage = elf.read_linkage(path)
    except (OSError, ToolError, struct.error):
        return None
    if r_debug is None or linkage.elf_class != 64:
        return None
    # struct r_debug { int r_version; struct link_map *r_map; ElfW(Addr) r_brk; r_state ... }
    return DynamicLinker(path, base + r_debug + 3 * 8)


def is_stopped(pid: int) -> bool:
    """Whether process `pid` is stopped by a signal (state T)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "T"
    except (OSError, IndexError):
        return False


def why_not_stopped(pid: int) -> Optional[str]:
    """Why process `pid` should not be stopped (SIGSTOP) a moment, None when it may: as its
    terminal's foreground job, its shell would take the stop for a Ctrl-Z and keep the terminal;
    under a debugger, the debugger would stop with it."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/status") as status:
            tracer = next((line.split()[1] for line in status if line.startswith("TracerPid:")), "0")
    except (OSError, IndexError):
        return None
    process_group, terminal, foreground_group = int(fields[2]), int(fields[4]), int(fields[5])
    if terminal != 0 and foreground_group == process_group:
        return "it is its terminal's foreground job"
    if tracer != "0":
        return f"process {tracer} traces it (a debugger)"
    return None


def _runtime_address(process_module: ProcessModule, address: int) -> Optional[int]:
    """Where link-time `address` of the module is in the process, None where it is not mapped."""
    offset = process_module.module.file_offset(address)
    if offset is None:
        return None
    return next((mapping.start + offset - mapping.offset for mapping in process_module.mappings
                 if mapping.offset <= offset < mapping.offset + mapping.end - mapping.start), None)


def semaphore_value(pid: int, process_module: ProcessModule, address: int) -> SemaphoreValue:
    """The current value of the semaphore at link-time `address` of the module in process `pid`."""
    if process_module.module.file_offset(address) is None:
        return SemaphoreValue(None, f"semaphore 0x{address:x} is not in the file's loaded contents")
    runtime_address = _runtime_address(process_module, address)
    if runtime_address is None:
        return SemaphoreValue(None, f"semaphore 0x{address:x} is not mapped in process {pid}")
    try:
        descriptor = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    except FileNotFoundError:
        return SemaphoreValue(None, f"process {pid} has exited")
    except PermissionError:
        return SemaphoreValue(None, "permission denied reading the process's memory (needs ptrace access)")
    except OSError as error:
        return SemaphoreValue(None, f"cannot read the process's memory: {error.strerror}")
    try:
        data = os.pread(descriptor, SEMAPHORE_SIZE, runtime_address)
    except OSError as error:
        if error.errno == errno.EIO:
            return SemaphoreValue(None, f"address 0x{runtime_address:x} is not readable")
        return SemaphoreValue(None, f"cannot read the process's memory: {error.strerror}")
    finally:
        os.close(descriptor)
    if len(data) != SEMAPHORE_SIZE:
        return SemaphoreValue(None, f"address 0x{runtime_address:x} is not readable")
    # The process runs on this machine: its byte order is ours.
    return SemaphoreValue(int.from_bytes(data, sys.byteorder), None)


def fault_in(running: Process, paths: Set[str]) -> None:
    """Reads a byte of each page the process maps of the files at `paths` (as `running` names
    them), which maps the pages a tracer's BPF program would otherwise find missing: BPF cannot
    fault a page in, so a string literal on a page the process has not touched yet reads as "".
    Read access only: the process's memory is unchanged. Best effort: what cannot be read is not."""
    page = os.sysconf("SC_PAGE_SIZE")
    try:
        descriptor = os.open(f"/proc/{running.pid}/mem", os.O_RDONLY)
    except OSError:
        return
    try:
        for process_module in running.modules:
            if process_module.module.path not in paths:
                continue
            for mapping in process_module.mappings:
                for address in range(mapping.start, mapping.end, page):
                    try:
                        os.pread(descriptor, 1, address)
                    except OSError:
                        break
    finally:
        os.close(descriptor)


class OwnSemaphores:
    """usdt's own copies of the semaphores that a trace by path raises in every process mapping
    a file, usdt's too when it maps the file itself (/usr/bin/python3, glibc, libstdc++): the
    program leaves usdt's hits out, but each still traps into the kernel, and Python's
    `python:line` traps at every line usdt runs, which slowed usdt enough that the traced
    program's hits were lost. lower() sets usdt's copies to 0 once bpftrace has attached, so
    that usdt skips those probes altogether; restore() adds back what it took, before bpftrace
    detaches (the kernel's decrement would otherwise take them below 0). `semaphores`: per file
    (file_identity()), the link-time addresses of its traced probes' semaphores."""

    def __init__(self, semaphores: Dict[object, Set[int]]):
        self.semaphores = {identity: addresses for identity, addresses in semaphores.items() if addresses}
        self.taken: List[Tuple[int, int]] = []     # (address in usdt, what lower() took)

    def lower(self) -> None:
        if not self.semaphores:
            return
        try:
            running = read_process(os.getpid())
        except ToolError:
            return
        for process_module in running.modules:
            for address in self.semaphores.get(file_identity(process_module.module.path), ()):
                runtime_address = _runtime_address(process_module, address)
                if runtime_address is not None:
                    semaphore = ctypes.c_uint16.from_address(runtime_address)
                    self.taken.append((runtime_address, semaphore.value))
                    semaphore.value = 0

    def restore(self) -> None:
        taken, self.taken = self.taken, []
        for runtime_address, value in taken:
            semaphore = ctypes.c_uint16.from_address(runtime_address)
            semaphore.value += value
