"""bpftrace's standard output as `-f json` writes it (0.17 to 0.27 alike): one JSON object a
line, each an event: a printf's text, a map, lost events, and bpftrace's own news. Unlike its
text output, where a printf's string may hold a newline or any other byte, an event cannot be
confused with the data it carries.

Every release escapes a byte from 0x80 up in a printf's text as `\\uffffffXX` (its char value
sign-extended): not JSON, so each is read back as the byte XX before the line is parsed.
"""

import json
import re
from dataclasses import dataclass
from typing import Dict, Optional, Union

# A JSON escape, bpftrace's sign-extended one first: each escape is a backslash and what follows,
# so scanning them in order never takes an escaped backslash's second half for the start of one.
_ESCAPE = re.compile(rb"\\(?:u[fF]{6}([0-9a-fA-F]{2})|u[0-9a-fA-F]{4}|.)")
# A printf's event as every release writes it, when its text has nothing JSON escapes (a quote,
# a backslash, a byte below 0x20) and so is its bytes as they are: most lines, read without
# json.loads. Any other line is parsed.
_PLAIN_PRINTF = re.compile(rb'\{"type": "printf", "data": "([^"\\\x00-\x1f]*)"\}[ \t\r\n]*')


@dataclass(frozen=True)
class Printf:
    text: bytes                  # exactly the bytes printf wrote


@dataclass(frozen=True)
class Map:
    name: str                    # without the @
    entries: Dict[str, int]      # key ("1", "1,-2"; "" for a map without keys) -> value


@dataclass(frozen=True)
class Lost:
    count: int


@dataclass(frozen=True)
class Other:
    """Anything else bpftrace writes on standard output (attached_probes...), as a line of text."""
    text: str


Event = Union[Printf, Map, Lost, Other]


def _byte(escape: "re.Match[bytes]") -> bytes:
    # As a lone surrogate (Python's surrogateescape): it becomes the byte again below.
    return b"\\udc%s" % escape[1] if escape[1] is not None else escape[0]


def parse(line: bytes) -> Optional[Event]:
    """The event of one line of bpftrace's standard output; None for an empty line."""
    plain = _PLAIN_PRINTF.fullmatch(line)
    if plain is not None:
        return Printf(plain[1])
    if not line.strip():
        return None
    try:
        if b"\\uffffff" in line or b"\\uFFFFFF" in line:     # most lines have none
            line = _ESCAPE.sub(_byte, line)
        event = json.loads(line.decode("utf-8", "surrogateescape"))
    except ValueError:
        event = None
    if not isinstance(event, dict):
        return Other(line.decode("utf-8", "backslashreplace"))
    kind, data = event.get("type"), event.get("data")
    if kind == "attached_probes":
        return None     # usdt prints its own line once every probe is attached
    if kind == "printf" and isinstance(data, str):
        return Printf(data.encode("utf-8", "surrogateescape"))
    if kind == "map" and isinstance(data, dict) and len(data) == 1:
        (name, value), = data.items()
        entries = value if isinstance(value, dict) else {"": value}
        if all(isinstance(count, int) for count in entries.values()):
            return Map(name.lstrip("@"), entries)
    if kind == "lost_events" and isinstance(data, dict) and isinstance(data.get("events"), int):
        return Lost(data["events"])
    return Other(json.dumps(event))
