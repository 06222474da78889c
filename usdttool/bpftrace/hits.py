"""Hits as data, for `usdt trace --json` and `--timeline`: the record the program prints per hit
(templates/trace.bt.j2, `record`), read back, and each hit as a JSON object.

A record is one printf: `usdt-hit PROBE NSECS PID TID 0xIP VALUE...` (a number per argument
bpftrace reads, a string's pointer for a string), then the process name and each string
after a \\x1f, and \\x1e and a newline at the end. Strings come last, each alone between
separators, because they may hold anything but NUL: spaces, newlines (a record then spans
lines) and, rarely, \\x1f itself, which makes them impossible to tell apart: such a hit's
strings are null.
"""

import json
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from usdtgen import bpftrace_view
from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument, TracerProbe

RECORD_START = "usdt-hit "
FIELD_SEPARATOR = "\x1f"
RECORD_END = "\x1e\n"
# JavaScript's numbers hold integers exactly up to here: larger ones are written as strings.
JSON_SAFE_INTEGER = 2 ** 53 - 1


@dataclass(frozen=True)
class TracedProbe:
    """A probe of the program: its number (the record's PROBE), the module it is in (its
    number in the program) and its description."""
    number: int
    module: int
    probe: TracerProbe

    @property
    def name(self) -> str:
        return self.probe.full_name


@dataclass(frozen=True)
class Hit:
    probe: TracedProbe
    time: int                    # nsecs: CLOCK_MONOTONIC
    pid: int
    tid: int
    process: Optional[str]       # the thread's name (comm); None when it could not be told apart
    address: int                 # the probe's address in the process
    values: Tuple[object, ...]   # per argument: int, bool, str, None (unread or unknown)


# Reads a string bpftrace read as "" from a non-NULL pointer: (pid, module, probe, ip, pointer)
# -> its text, None when it cannot be read (see unread_strings.py).
StringReader = Callable[[int, int, str, int, int], Optional[str]]


class RecordReader:
    """Turns the lines of records into hits; other lines are not its business."""

    def __init__(self, probes: Sequence[TracedProbe], read_string: StringReader):
        self.probes = {probe.number: probe for probe in probes}
        self.read_string = read_string
        self.pending: List[str] = []

    def feed(self, line: str) -> Tuple[bool, Optional[Hit]]:
        """(whether the line belongs to a record, the hit it finished if any)."""
        if not self.pending and not line.startswith(RECORD_START):
            return False, None
        self.pending.append(line)
        if not line.endswith(RECORD_END):
            return True, None
        record, self.pending = "".join(self.pending)[len(RECORD_START):-len(RECORD_END)], []
        return True, self._hit(record)

    def _hit(self, record: str) -> Optional[Hit]:
        head, _, tail = record.partition(FIELD_SEPARATOR)
        words = head.split()
        if len(words) < 5 or not words[0].isdigit() or int(words[0]) not in self.probes:
            return None
        probe = self.probes[int(words[0])]
        arguments = probe.probe.arguments[:bpftrace_view.BPFTRACE_ARGUMENTS_READ]
        numbers = words[5:]
        strings_read = [argument for argument in arguments if argument.kind is Kind.STRING]
        texts: List[Optional[str]] = tail.split(FIELD_SEPARATOR)
        if len(texts) != 1 + len(strings_read) or len(numbers) != len(arguments):
            texts = [None] * (1 + len(strings_read))    # a string held the separator
        if len(numbers) != len(arguments):
            return None
        time, pid, tid, address = int(words[1]), int(words[2]), int(words[3]), int(words[4], 16)
        process, texts = texts[0], iter(texts[1:])
        values: List[object] = []
        for argument, number in zip(arguments, numbers):
            value = int(number)
            kind = argument.kind
            if kind is Kind.BOOLEAN:
                values.append(value != 0)
            elif kind is Kind.STRING:
                text = next(texts)
                if text == "" and value != 0:
                    text = self.read_string(pid, probe.module, probe.name, address, value)
                values.append(None if value == 0 else text)
            else:
                values.append(value)
        values += [None] * (len(probe.probe.arguments) - len(arguments))
        return Hit(probe, time, pid, tid, process, address, tuple(values))


def json_value(argument: TracerArgument, value: object) -> object:
    """Integers as numbers, but beyond 2^53 - 1 as strings of their decimal digits; pointers as
    "0x..." strings; a NULL string as null."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if argument.kind is Kind.POINTER:
        return f"0x{value:x}"
    return json_integer(value)


def json_integer(value: Optional[int]) -> object:
    """An integer as usdt writes it in JSON: beyond 2^53 - 1, a string of its digits."""
    return str(value) if value is not None and abs(value) > JSON_SAFE_INTEGER else value


def json_value_of(hit: Hit, name: str) -> object:
    """The hit's argument `name`, as JSON writes it."""
    for argument, value in zip(hit.probe.probe.arguments, hit.values):
        if argument.name == name:
            return json_value(argument, value)
    return None


def arguments_object(hit: Hit) -> Dict[str, object]:
    return {argument.name: json_value(argument, value)
            for argument, value in zip(hit.probe.probe.arguments, hit.values)}


def json_line(hit: Hit) -> str:
    """The hit as docs/tracing.md's schema ("JSON Lines") describes it, on one line."""
    return json.dumps({"type": "hit", "probe": hit.probe.name, "monotonic_ns": json_integer(hit.time), "pid": hit.pid,
                       "tid": hit.tid, "process": hit.process, "args": arguments_object(hit)},
                      ensure_ascii=False, separators=(",", ":")) + "\n"
