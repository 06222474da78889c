"""A probe as a tracer sees it: provider, name, and each argument's name, type, kind, size and
signedness, as the notes record them. The tracer scripts' views (bpftrace_view.py,
systemtap_view.py, perf_view.py) print it, and `usdt trace` traces it: the generator's model
maps a declared probe to one (model.Probe.traced), usdt's ELF reader a probe of a binary
(usdttool/files/elf.py), so that both print the same lines.
"""

from dataclasses import dataclass
from typing import Tuple

from .notes import Kind


@dataclass(frozen=True)
class TracerArgument:
    index: int
    name: str                # as the .d file declares it (`class`), else argN
    type_name: str           # the declared type, else the <stdint.h> type of the note's size and sign
    kind: Kind
    size: int                # bytes in the note
    signed: bool


@dataclass(frozen=True)
class TracerProbe:
    provider: str
    name: str
    arguments: Tuple[TracerArgument, ...]

    @property
    def full_name(self) -> str:
        """`provider:probe`, as tracers and usdt's options name it."""
        return f"{self.provider}:{self.name}"
