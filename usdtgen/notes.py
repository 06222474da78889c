"""The vocabulary of the probes' ELF notes, which the generator writes and usdt reads back: the
argument kinds `.note.usdt` records, and the argument specs of `.note.stapsdt`
(`[-]SIZE@OPERAND`: the value's size in bytes, `-` when it is signed) with the <stdint.h>
type each size and signedness stands for. docs/internals.md ("Sections") describes both notes.
"""

import enum
import re
from typing import List, Optional, Tuple


class Kind(enum.Enum):
    """What an argument is to a tracer. Each output that spells a kind has a table of its own
    (the note's below, the C++ API's in header_view.py), so renaming one changes no other."""
    INTEGER = enum.auto()
    BOOLEAN = enum.auto()
    STRING = enum.auto()    # text, read with str()
    POINTER = enum.auto()   # an address

    @property
    def note_spelling(self) -> str:
        """As `.note.usdt` records it: a file format, read by `usdt list` and `usdt trace`."""
        return NOTE_SPELLINGS[self]

    @classmethod
    def from_note_spelling(cls, spelling: str) -> Optional["Kind"]:
        """The kind `.note.usdt` spells `spelling`; None for a spelling it has no kind for."""
        return _KINDS_BY_NOTE_SPELLING.get(spelling)


NOTE_SPELLINGS = {Kind.INTEGER: "integer", Kind.BOOLEAN: "bool", Kind.STRING: "string", Kind.POINTER: "pointer"}
_KINDS_BY_NOTE_SPELLING = {spelling: kind for kind, spelling in NOTE_SPELLINGS.items()}

# The sizes an integer argument spec has, and the <stdint.h> type of each size and signedness.
INTEGER_TYPE_NAMES = {
    (1, True): "int8_t", (2, True): "int16_t", (4, True): "int32_t", (8, True): "int64_t",
    (1, False): "uint8_t", (2, False): "uint16_t", (4, False): "uint32_t", (8, False): "uint64_t",
}
# A floating-point spec (`8f@...`, which usdt never writes but a note may hold): its C type.
FLOATING_TYPE_NAMES = {4: "float", 8: "double"}

# One argument spec. Its operand may contain spaces (aarch64's `[sp, 40]`): an argument string
# splits before each `[-]N@`.
_SPEC = re.compile(r"(-?)(\d+)(f?)@(.*)", re.DOTALL)
_SPECS = re.compile(r"-?\d+f?@.*?(?=\s+-?\d+f?@|\s*$)", re.DOTALL)


def spec_size(size: int, signed: bool) -> str:
    """What a spec says before its `@`: `-4` for a signed 4-byte value, `8` for an unsigned one."""
    return f"{'-' if signed else ''}{size}"


def parse_spec(text: str) -> Optional[Tuple[int, bool, bool, str]]:
    """`-4@%edi` -> (size 4, signed, not floating, operand `%edi`); None when `text` is no spec."""
    match = _SPEC.fullmatch(text)
    if match is None:
        return None
    return int(match[2]), match[1] == "-", bool(match[3]), match[4]


def split_specs(text: str) -> Optional[List[str]]:
    """The specs of a note's argument string, `-4@%edi 8@[sp, 40]`; None when it is not made of
    specs alone."""
    text = text.strip()
    specs = _SPECS.findall(text)
    if "".join(specs).replace(" ", "") != text.replace(" ", ""):
        return None
    return specs


def value_type_name(size: int, signed: bool, floating: bool = False) -> str:
    """The C type of a spec's value: `int32_t`, `uint64_t`, `double`; a size no type has, in words."""
    if floating:
        return FLOATING_TYPE_NAMES.get(size, f"{size}-byte float")
    return INTEGER_TYPE_NAMES.get((size, signed), f"{size}-byte value" if size else "unknown")
