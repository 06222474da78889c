"""A running process: the ELF files it maps (/proc/PID/maps) that have probes, and the current
value of a probe's semaphore in its memory (/proc/PID/mem), and the faulting in of those files'
pages for a tracer (/proc/PID/mem again).

Reading the mappings needs the right to read the process's memory map (same user, or root);
reading a semaphore needs ptrace access, which Yama (kernel.yama.ptrace_scope >= 1) may refuse
even to the same user: a semaphore that cannot be read has an unknown value and a reason.
"""

import errno
import os
import sys
from dataclasses import dataclass
from typing import AbstractSet, List, Optional, Set, Tuple

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
        readable = _readable_path(pid, path)
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
        found.append(Mapping(start, end, int(fields[2], 16), fields[5]))
    return found


def file_identity(path: str) -> object:
    """The file at `path`, whatever link or mount the path goes through."""
    try:
        status = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return status.st_dev, status.st_ino


def _readable_path(pid: int, path: str) -> str:
    # A process in another mount namespace (a container) maps files this one cannot name.
    if os.path.exists(path):
        return path
    return f"/proc/{pid}/root{path}"


def semaphore_value(pid: int, process_module: ProcessModule, address: int) -> SemaphoreValue:
    """The current value of the semaphore at link-time `address` of the module in process `pid`."""
    offset = process_module.module.file_offset(address)
    if offset is None:
        return SemaphoreValue(None, f"semaphore 0x{address:x} is not in the file's loaded contents")
    runtime_address = next((mapping.start + offset - mapping.offset for mapping in process_module.mappings
                            if mapping.offset <= offset < mapping.offset + mapping.end - mapping.start), None)
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
