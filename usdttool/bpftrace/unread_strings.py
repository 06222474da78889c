"""Strings that bpftrace's str() read as "" from a pointer that is not NULL, read by usdt.

BPF cannot fault a page in, so str() of a string on a page the process never touched (a
literal only the probe passes, in a library's .rodata) reads as "". usdt trace's program
(templates/trace.bt.j2) prints such a hit as a marked line, `MARKER MODULE 0xIP 0xPOINTER...
LINE`: MODULE is the probed file's number in the program, IP the probe's address, a POINTER
per string argument (0 for one that read fine), LINE the hit's line. usdt reads each such
string where its bytes cannot have changed since the hit, and prints LINE with it:
- in a read-only segment of the probed file (loaded at IP minus the site's address in the
  file): from the file, which is there after the process exited too;
- in a read-only mapping of the process: through /proc/PID/mem.
It reads every such string through /proc/PID/mem, which maps its pages, so that later hits
read it in BPF. A string in no readable memory of the running process, or one that runs into
unreadable memory before its end, prints as `<unreadable:0xPOINTER>`. Any other keeps the
`""` bpftrace read: in writable memory a value read now could differ from the hit's, and the
string may be empty; so may that of a process that is gone.
"""

import locale
import os
import re
from typing import Dict, Optional, Sequence, Tuple

from usdtgen import bpftrace_view
from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerProbe

from ..files import elf, probe_notes

MARKER = "usdt-trace-unread"

# After MARKER and a space: MODULE 0xIP 0xPOINTER... LINE
_MARKED_LINE = re.compile(r"(\d+) 0x([0-9a-f]+)((?: 0x[0-9a-f]+)*) (.*)", re.DOTALL)
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
# A string in memory the process cannot read, or that runs into it.
_UNREADABLE = object()


def _string_size() -> int:
    """The bytes bpftrace's str() reads, its NUL included (BPFTRACE_STRLEN, bpftrace inherits
    usdt's environment): a longer string prints cut as bpftrace would cut it."""
    try:
        return int(os.environ.get("BPFTRACE_STRLEN", "64"))
    except ValueError:
        return 64


class UnreadStrings:
    """Rewrites the marked lines of the program tracing `selected` (program.select())."""

    def __init__(self, selected: Sequence[Tuple[elf.Module, Sequence[Tuple[TracerProbe, str]]]]):
        self._modules = [(module, _probes(module, probes)) for module, probes in selected]
        self._max_length = _string_size() - 1
        self._encoding = locale.getpreferredencoding(False)   # how supervisor.py reads bpftrace's lines

    def add(self, selected: Sequence[Tuple[elf.Module, Sequence[Tuple[TracerProbe, str]]]]) -> None:
        """The modules of another program of the same trace, numbered after those it knows
        (program.plan()'s `first_module`)."""
        self._modules.extend((module, _probes(module, probes)) for module, probes in selected)

    @property
    def module_count(self) -> int:
        return len(self._modules)

    def rewrite(self, line: str) -> str:
        """`line` as it prints: a marked line becomes its hit's line, with the strings read."""
        if not line.startswith(MARKER + " "):
            return line
        marked = _MARKED_LINE.fullmatch(line, len(MARKER) + 1)
        if marked is None or int(marked[1]) >= len(self._modules):
            return line
        module, probes = self._modules[int(marked[1])]
        hit_line = marked[4]
        words = hit_line.split(" ", 4)
        if len(words) < 4 or words[3] not in probes or not words[1].startswith("pid="):
            return hit_line
        probe, sites = probes[words[3]]
        pointers = [int(pointer, 16) for pointer in marked[3].split()]
        strings = bpftrace_view.bpftrace_string_arguments(probe)
        if len(pointers) != len(strings):
            return hit_line
        unread = {argument.index: pointer for argument, pointer in zip(strings, pointers) if pointer}
        fields = _line_pattern(probe, unread).fullmatch(hit_line)
        if fields is None:
            return hit_line   # a string with a newline: as bpftrace printed it
        pid, ip = int(words[1][len("pid="):]), int(marked[2], 16)
        pieces, end = [], 0
        for index, pointer in unread.items():
            start, stop = fields.span(f"argument{index}")
            pieces += [hit_line[end:start], self._string(pid, module, sites, ip, pointer)]
            end = stop
        return "".join(pieces) + hit_line[end:]

    def read(self, pid: int, module_number: int, probe_name: str, ip: int, pointer: int) -> Optional[str]:
        """The text of a string argument bpftrace read as "" (for a hit's record, hits.py):
        None where no readable memory holds it, "" where what bpftrace read stands."""
        if module_number >= len(self._modules) or probe_name not in self._modules[module_number][1]:
            return ""
        module, probes = self._modules[module_number]
        value = self._value(pid, module, probes[probe_name][1], ip, pointer)
        if value is _UNREADABLE:
            return None
        return "" if value is None else value.decode(self._encoding, "backslashreplace")

    def _string(self, pid: int, module: elf.Module, sites: probe_notes.Probe, ip: int, pointer: int) -> str:
        """The string at `pointer` as the line prints it."""
        value = self._value(pid, module, sites, ip, pointer)
        if value is _UNREADABLE:
            return f"<unreadable:0x{pointer:x}>"
        return '""' if value is None else self._quoted(value)

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
        """The string `data` starts with, cut as bpftrace cuts it; None when `data` ends before
        the string does (the rest is not readable there)."""
        if b"\0" in data:
            return data[:data.index(b"\0")]
        return data if len(data) == self._max_length else None

    def _quoted(self, text: bytes) -> str:
        return '"' + text.decode(self._encoding, "backslashreplace") + '"'


def _probes(module: elf.Module,
            described: Sequence[Tuple[TracerProbe, str]]) -> Dict[str, Tuple[TracerProbe, probe_notes.Probe]]:
    """`provider:name` -> the probe as the line prints it, and as the file has it (its sites)."""
    in_file = {(probe.provider, probe.name): probe for probe in module.probes}
    return {f"{probe.provider}:{probe.name}": (probe, in_file[probe.provider, probe.name]) for probe, _ in described}


def _mapping(pid: int, address: int) -> Optional[Tuple[int, str]]:
    """(end, permissions: `r-xp`...) of the mapping of process `pid` holding `address`, (0, "")
    when none does; None when the process is gone or its map unreadable."""
    try:
        with open(f"/proc/{pid}/maps") as maps:
            for line in maps:
                bounds, permissions = line.split(maxsplit=2)[:2]
                start, end = (int(bound, 16) for bound in bounds.split("-"))
                if start <= address < end:
                    return end, permissions
    except OSError:
        return None
    return 0, ""


def _line_pattern(probe: TracerProbe, unread: Dict[int, int]) -> "re.Pattern[str]":
    """The probe's hit line, each argument's value a group `argumentN`; the strings in `unread`
    read as `""`, any other string, as bpftrace prints it, anything between quotes."""
    read = probe.arguments[:bpftrace_view.BPFTRACE_ARGUMENTS_READ]
    pattern = r"\d+ pid=\d+ tid=\d+ " + re.escape(f"{probe.provider}:{probe.name}")
    for argument in read:
        if argument.kind is not Kind.STRING:
            value = r"\S*"
        else:
            value = '""' if argument.index in unread else '".*"'
        pattern += f" {re.escape(argument.name)}=(?P<argument{argument.index}>{value})"
    for argument in probe.arguments[len(read):]:
        pattern += f" {re.escape(argument.name)}=\\?"
    return re.compile(pattern + "\n?", re.DOTALL)
