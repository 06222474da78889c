"""Hits as data: the record the program prints per hit (templates/trace.bt.j2, `record`), read
back, and each hit as its line (text) or a JSON object (`--json`, `--timeline`).

bpftrace runs with `-f json` (json_events.py): each printf is one event, whatever bytes it
holds. A record is one printf for the hit, `usdt-hit PROBE NSECS PID TID 0xIP VALUE... CUT...
COMM` (a number per argument, a string's pointer for a string, then per string whether its
byte after the cut is not NUL, then the thread's name), and one printf per string argument,
`usdt-string TID NSECS TEXT`: one printf of all of them would not fit bpftrace 0.17's 512-byte
stack. A string's printf follows its hit's in the same CPU's buffer, though another thread's
hit may come between: each names its hit by thread and time.

The values: NULL is None, any other string a Text of its bytes (cut when longer than
STRING_BYTES), a `char` its byte.
"""

import functools
import json
import re
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Tuple

from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument, TracerProbe

RECORD_START = b"usdt-hit "
STRING_START = b"usdt-string "
# The bytes of a string a hit carries (bpftrace's str() of 64, its NUL included), on every release.
STRING_BYTES = 63
# JavaScript's numbers hold integers exactly up to here: larger ones are written as strings.
JSON_SAFE_INTEGER = 2 ** 53 - 1
# The C types that are characters, not numbers.
CHARACTER_TYPES = ("char", "const char")


@dataclass(frozen=True)
class TracedProbe:
    """A probe of the program: its number (the record's PROBE), the module it is in (its
    number in the program) and its description."""
    number: int
    module: int
    probe: TracerProbe
    # The arguments the program cannot read (releases.operand_value): their record holds 0.
    not_read: FrozenSet[int] = frozenset()

    # What is asked at each hit is worked out once.
    @functools.cached_property
    def name(self) -> str:
        return self.probe.full_name

    @functools.cached_property
    def strings(self) -> Tuple[TracerArgument, ...]:
        """The string arguments the record carries the text of."""
        return tuple(argument for argument in self.probe.arguments
                     if argument.kind is Kind.STRING and argument.index not in self.not_read)

    @functools.cached_property
    def integers_only(self) -> bool:
        """Whether every argument is a number that is read and printed as it is (not a char, a
        bool, a pointer or a string): its values are the record's numbers, its line their digits."""
        return all(argument.kind is Kind.INTEGER and not is_character(argument) and argument.index not in self.not_read
                   for argument in self.probe.arguments)

    @functools.cached_property
    def text_format(self) -> str:
        """The hit's line (text_line) for str.format: the time, pid, tid, then each argument's value."""
        def literal(text: str) -> str:
            return text.replace("{", "{{").replace("}", "}}")
        fields = "".join(f" {literal(argument.name)}={{}}" for argument in self.probe.arguments)
        return f"{{}} pid={{}} tid={{}} {literal(self.name)}{fields}\n"


class _NotRead:
    """The value of an argument the program cannot read."""

    def __repr__(self) -> str:
        return "NOT_READ"


NOT_READ = _NotRead()


@dataclass(frozen=True)
class Text:
    """A string argument that is not NULL: its bytes, and whether it went on past them."""
    data: bytes
    cut: bool = False


@dataclass(frozen=True)
class Unreadable:
    """A string argument in memory the process cannot read, or that runs into it."""
    pointer: int


class Hit(NamedTuple):
    """A tuple, as one is made per hit: a frozen dataclass takes several times as long."""
    probe: TracedProbe
    time: int                    # nsecs: CLOCK_MONOTONIC
    pid: int
    tid: int
    process: Optional[str]       # the thread's name (comm)
    address: int                 # the probe's address in the process
    values: Tuple[object, ...]   # per argument: int, bool, Text, Unreadable, None (NULL), NOT_READ


# Reads a string bpftrace read as "" from a non-NULL pointer: (pid, module, probe, ip, pointer)
# -> its bytes (b"" when what bpftrace read stands), None when it cannot be read (unread_strings.py).
StringReader = Callable[[int, int, str, int, int], Optional[bytes]]


def is_character(argument: TracerArgument) -> bool:
    return argument.kind is Kind.INTEGER and argument.size == 1 and argument.type_name in CHARACTER_TYPES


@dataclass
class _Pending:
    head: Hit                    # its values the record's numbers
    cuts: Tuple[bool, ...]
    texts: List[bytes]


class RecordReader:
    """Turns the printfs of records into hits; other printfs are not its business."""

    def __init__(self, probes: Sequence[TracedProbe], read_string: StringReader):
        # By the record's PROBE, as the program writes it (a number in the format's text).
        self.probes = {b"%d" % probe.number: probe for probe in probes}
        self.read_string = read_string
        self.pending: Dict[Tuple[int, int], _Pending] = {}     # (tid, nsecs) -> the hit awaiting its strings

    def feed(self, text: bytes) -> Tuple[bool, Optional[Hit]]:
        """(whether the printf belongs to a record, the hit it finished if any)."""
        if text.startswith(STRING_START):
            words = text[len(STRING_START):].split(b" ", 2)
            if len(words) == 3 and words[0].isdigit() and words[1].isdigit():
                key = (int(words[0]), int(words[1]))
                pending = self.pending.get(key)
                if pending is not None:
                    pending.texts.append(words[2])
                    return True, self._finished(key)
            return True, None
        if not text.startswith(RECORD_START):
            return False, None
        head, cuts = self._head(text[len(RECORD_START):])
        if head is None:
            return True, None
        # A hit of this thread still waiting for its strings lost them (a full buffer drops events).
        if self.pending:
            for other in [other for other in self.pending if other[0] == head.tid]:
                del self.pending[other]
        if not head.probe.strings:
            return True, self._complete(head, cuts, [])
        self.pending[(head.tid, head.time)] = _Pending(head, cuts, [])
        return True, None

    def _head(self, record: bytes) -> Tuple[Optional[Hit], Tuple[bool, ...]]:
        """The hit as the record's first printf says it, its values the numbers (a string's
        pointer for a string), and per string whether its byte after the cut is not NUL."""
        number, _, record = record.partition(b" ")
        probe = self.probes.get(number)
        if probe is None:
            return None, ()
        count = len(probe.probe.arguments)
        fields = 4 + count + len(probe.strings)
        words = record.split(b" ", fields)
        if len(words) != fields + 1:
            return None, ()
        try:
            time, pid, tid, address = int(words[0]), int(words[1]), int(words[2]), int(words[3], 16)
            numbers = tuple(map(int, words[4:4 + count]))
        except ValueError:
            return None, ()
        cuts = tuple(word != b"0" for word in words[4 + count:fields]) if probe.strings else ()
        return Hit(probe, time, pid, tid, words[fields].decode("utf-8", "surrogateescape"), address, numbers), cuts

    def _finished(self, key: Tuple[int, int]) -> Optional[Hit]:
        pending = self.pending[key]
        if len(pending.texts) < len(pending.cuts):
            return None
        del self.pending[key]
        return self._complete(pending.head, pending.cuts, pending.texts)

    def _complete(self, head: Hit, cuts: Tuple[bool, ...], texts: List[bytes]) -> Hit:
        """The hit of a record's `head` with the texts of its strings."""
        probe = head.probe
        if probe.integers_only:
            return head
        texts, cuts = iter(texts), iter(cuts)
        values: List[object] = []
        for argument, value in zip(probe.probe.arguments, head.values):
            if argument.index in probe.not_read:
                values.append(NOT_READ)
            elif argument.kind is Kind.BOOLEAN:
                values.append(value != 0)
            elif argument.kind is Kind.STRING:
                values.append(self._text(head, value, next(texts), next(cuts)))
            else:
                values.append(value)
        return Hit(probe, head.time, head.pid, head.tid, head.process, head.address, tuple(values))

    def _text(self, hit: Hit, pointer: int, data: bytes, after_cut: bool) -> object:
        if pointer == 0:
            return None
        if data == b"":
            # BPF cannot fault a page in: a string on a page the process never touched read as "".
            data = self.read_string(hit.pid, hit.probe.module, hit.probe.name, hit.address, pointer)
            if data is None:
                return Unreadable(pointer)
            after_cut = len(data) > STRING_BYTES
            data = data[:STRING_BYTES]
        return Text(data, len(data) == STRING_BYTES and after_cut)


def json_value(argument: TracerArgument, value: object) -> object:
    """Integers as numbers, but beyond 2^53 - 1 as strings of their decimal digits; pointers as
    "0x..." strings; a string as its text (json_text); a NULL or unreadable string as null; a
    char as its character."""
    if isinstance(value, Text):
        return json_text(value.data)
    if value is None or value is NOT_READ or isinstance(value, Unreadable):
        return None
    if isinstance(value, bool):
        return value
    if is_character(argument):
        return json_text(bytes([value & 0xff]))
    if argument.kind is Kind.POINTER:
        return f"0x{value:x}"
    return json_integer(value)


def json_text(data: bytes) -> str:
    """Bytes as a JSON string: UTF-8 as its characters, any other byte XX as the lone surrogate
    U+DCXX (Python's surrogateescape: `text.encode("utf-8", "surrogateescape")` gives the bytes
    back), which json_line writes as the escape `\\udcXX`."""
    return data.decode("utf-8", "surrogateescape")


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


def value_notes(hit: Hit) -> Dict[str, List[str]]:
    """What a null or a string in `args` does not say, each only when some argument has it:
    `cut`, the strings longer than STRING_BYTES; `unreadable`, those in memory the process
    cannot read; `not_read`, the arguments the program cannot read."""
    if not (hit.probe.strings or hit.probe.not_read):
        return {}
    pairs = list(zip(hit.probe.probe.arguments, hit.values))
    notes = {"cut": [argument.name for argument, value in pairs if isinstance(value, Text) and value.cut],
             "unreadable": [argument.name for argument, value in pairs if isinstance(value, Unreadable)],
             "not_read": [argument.name for argument, value in pairs if value is NOT_READ]}
    return {key: names for key, names in notes.items() if names}


_SURROGATE = re.compile("[\udc80-\udcff]")
# One for every line: json.dumps with options makes one each time.
_JSON_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def json_line(hit: Hit) -> str:
    """The hit as docs/tracing.md's schema ("JSON Lines") describes it, on one line."""
    text = _JSON_ENCODER.encode({"type": "hit", "probe": hit.probe.name, "monotonic_ns": json_integer(hit.time),
                                 "pid": hit.pid, "tid": hit.tid, "process": hit.process, "args": arguments_object(hit),
                                 **value_notes(hit)})
    if text.isascii():
        return text + "\n"
    # A lone surrogate cannot be written as UTF-8: it is only ever inside a string, as an escape.
    return _SURROGATE.sub(lambda match: f"\\u{ord(match[0]):04x}", text) + "\n"


# As C and strace write them in a string or a char.
_ESCAPES = {ord("\\"): "\\\\", ord("\n"): "\\n", ord("\t"): "\\t", ord("\r"): "\\r", 0: "\\0"}


def _escaped(data: bytes, quote: str) -> str:
    text = data.decode("utf-8", "surrogateescape")
    pieces = []
    for character in text:
        code = ord(character)
        if code in _ESCAPES:
            pieces.append(_ESCAPES[code])
        elif character == quote:
            pieces.append("\\" + quote)
        elif 0xdc80 <= code <= 0xdcff:
            pieces.append(f"\\x{code - 0xdc00:02x}")
        elif code < 0x20 or code == 0x7f or not character.isprintable() and code > 0x7f:
            pieces.append(f"\\x{code:02x}" if code <= 0xff else f"\\u{code:04x}")
        else:
            pieces.append(character)
    return quote + "".join(pieces) + quote


def text_value(argument: TracerArgument, value: object) -> str:
    """A value as the hit's line prints it, as strace would: a string between double quotes, its
    quote, backslash and any byte that is not printable text escaped as in C (`\\n`, `\\x1f`),
    `...` after one that was cut, NULL for a NULL string; a char between single quotes."""
    if isinstance(value, Text):
        return _escaped(value.data, '"') + ("..." if value.cut else "")
    if isinstance(value, Unreadable):
        return f"<unreadable:0x{value.pointer:x}>"
    if value is NOT_READ:
        return "?"
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_character(argument):
        return _escaped(bytes([value & 0xff]), "'")
    if argument.kind is Kind.POINTER:
        return f"0x{value:x}"
    return str(value)


def text_line(hit: Hit) -> str:
    """`NSECS pid=PID tid=TID provider:probe name=value...`, as the generated scripts print it."""
    probe = hit.probe
    values = hit.values if probe.integers_only else map(text_value, probe.probe.arguments, hit.values)
    return probe.text_format.format(hit.time, hit.pid, hit.tid, *values)
