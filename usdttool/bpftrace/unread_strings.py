"""Strings that bpftrace's str() read as "" from a pointer that is not NULL, read by usdt.

BPF cannot fault a page in, so str() of a string on a page the process never touched (a
literal only the probe passes, in a library's .rodata) reads as "". A hit's record (hits.py)
has each string's pointer and the probe's address (IP); where a string read as "" from a
pointer that is not NULL, usdt reads it where its bytes cannot have changed since the hit:
- in a read-only segment of the probed file (loaded at IP minus the site's address in the
  file): from the file, which is there after the process exited too;
- in a read-only mapping of the process: through /proc/PID/mem.
It reads every such string through /proc/PID/mem, which maps its pages, so that later hits
read it in BPF. A string in no readable memory of the running process, or one that runs into
unreadable memory before its end, is unreadable (hits.Unreadable). Any other keeps the
`""` bpftrace read: in writable memory a value read now could differ from the hit's, and the
string may be empty; so may that of a process that is gone.
"""

import os
from typing import Dict, Optional, Sequence, Tuple

from usdtgen.tracer_probe import TracerProbe

from . import hits
from ..files import elf, probe_notes

_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
# A string in memory the process cannot read, or that runs into it.
_UNREADABLE = object()


class UnreadStrings:
    """Reads the strings of the probes of the program tracing `selected` (program.select())."""

    def __init__(self, selected: Sequence[Tuple[elf.Module, Sequence[Tuple[TracerProbe, str]]]]):
        self._modules = [(module, _probes(module, probes)) for module, probes in selected]
        # One byte past what a hit carries: hits.py marks a longer string as cut.
        self._max_length = hits.STRING_BYTES + 1

    def add(self, selected: Sequence[Tuple[elf.Module, Sequence[Tuple[TracerProbe, str]]]]) -> None:
        """The modules of another program of the same trace, numbered after those it knows
        (program.plan()'s `first_module`)."""
        self._modules.extend((module, _probes(module, probes)) for module, probes in selected)

    @property
    def module_count(self) -> int:
        return len(self._modules)

    def read(self, pid: int, module_number: int, probe_name: str, ip: int, pointer: int) -> Optional[bytes]:
        """The bytes of a string argument bpftrace read as "" (for a hit's record, hits.py), up
        to one past the cut: None where no readable memory holds it, b"" where what bpftrace
        read stands."""
        if module_number >= len(self._modules) or probe_name not in self._modules[module_number][1]:
            return b""
        module, probes = self._modules[module_number]
        value = self._value(pid, module, probes[probe_name][1], ip, pointer)
        if value is _UNREADABLE:
            return None
        return b"" if value is None else value

    def _value(self, pid: int, module: elf.Module, sites: probe_notes.Probe, ip: int, pointer: int):
        """The string's bytes, _UNREADABLE, or None when what bpftrace read stands."""
        in_process = self._read_process(pid, pointer)    # first: this maps its pages for later hits
        in_file = self._read_file(module, sites, ip, pointer)
        return in_file if in_file is not None else in_process

    def _read_file(self, module: elf.Module, sites: probe_notes.Probe, ip: int, pointer: int) -> Optional[bytes]:
        """The string from the probed file when `pointer` is in one of its read-only segments."""
        # The file is loaded at a page-aligned offset; two sites a whole number of pages apart
        # would leave it unknown.
        biases = {ip - site.address for site in sites.sites if (ip - site.address) % _PAGE_SIZE == 0}
        if len(biases) != 1:
            return None
        address = pointer - biases.pop()
        segment = module.segment(address)
        if segment is None or segment.writable:
            return None
        size = min(self._max_length, segment.address + segment.file_size - address)
        try:
            with open(module.path, "rb") as file:
                data = os.pread(file.fileno(), size, segment.offset + address - segment.address)
        except OSError:
            return None
        return self._terminated(data)

    def _read_process(self, pid: int, pointer: int):
        """The string's bytes from a read-only mapping of the running process, _UNREADABLE
        where it maps no readable memory, None when it cannot tell (writable memory, no process)."""
        mapping = _mapping(pid, pointer)
        if mapping is None:
            return None
        end, permissions = mapping
        if not permissions.startswith("r"):
            return _UNREADABLE
        try:
            descriptor = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
        except OSError:
            return None
        try:
            data = os.pread(descriptor, min(self._max_length, end - pointer), pointer)
        except OSError:
            return None
        finally:
            os.close(descriptor)
        if "w" in permissions:
            return None   # read all the same: that mapped the pages, for later hits
        text = self._terminated(data)
        return _UNREADABLE if text is None else text

    def _terminated(self, data: bytes) -> Optional[bytes]:
        """The string `data` starts with, up to one byte past the cut; None when `data` ends
        before the string does (the rest is not readable there)."""
        if b"\0" in data:
            return data[:data.index(b"\0")]
        return data if len(data) == self._max_length else None


def _probes(module: elf.Module,
            described: Sequence[Tuple[TracerProbe, str]]) -> Dict[str, Tuple[TracerProbe, probe_notes.Probe]]:
    """`provider:name` -> the probe as the line prints it, and as the file has it (its sites)."""
    in_file = {(probe.provider, probe.name): probe for probe in module.probes}
    return {f"{probe.provider}:{probe.name}": (probe, in_file[probe.provider, probe.name]) for probe, _ in described}


def _mapping(pid: int, address: int) -> Optional[Tuple[int, str]]:
    """(end, permissions: `r-xp`...) of the mapping of process `pid` holding `address`, (0, "")
    when none does; None when the process is gone (or a zombie) or its map unreadable."""
    try:
        with open(f"/proc/{pid}/maps") as maps:
            lines = maps.readlines()
    except OSError:
        return None
    for line in lines:
        bounds, permissions = line.split(maxsplit=2)[:2]
        start, end = (int(bound, 16) for bound in bounds.split("-"))
        if start <= address < end:
            return end, permissions
    # A process that has exited but is not reaped yet maps nothing.
    return (0, "") if lines else None
