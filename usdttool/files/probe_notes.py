"""What a file's probe notes say: its probes from the stapsdt notes (`.note.stapsdt`), each
site's address, semaphore and argument specs, with the argument names and types of usdt's
`.note.usdt` records where they are present and agree with the notes. elf.py finds the notes
in the file.

The note formats are described in docs/internals.md ("Sections"); stapsdt's is that of
systemtap's sys/sdt.h (https://sourceware.org/systemtap/wiki/UserSpaceProbeImplementation).
"""

import re
import struct
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from usdtgen import notes
from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument, TracerProbe

NOTE_TYPE = 3                     # stapsdt's version 3 format
# usdt's records: type 4 names arguments as the .d file declares them (`class`); type 3, from
# headers of ABI 6 and before, by their C++ parameter names (`class_`). Both read alike.
USDT_NOTE_TYPES = (3, 4)
STAPSDT_OWNER = "stapsdt"
USDT_OWNER = "usdt"


@dataclass(frozen=True)
class ArgumentSpec:
    """One `[-]SIZE@OPERAND` of a stapsdt note."""
    text: str                # "-4@%edi"
    size: int                # 0 when the text is not a spec
    signed: bool
    operand: str             # "%edi"
    floating: bool = False   # `8f@...`

    @property
    def type_name(self) -> str:
        """What the spec says of the value: `int32_t`, `uint64_t`, `double`..."""
        return notes.value_type_name(self.size, self.signed, self.floating)

    @property
    def description(self) -> str:
        """`-4@%edi` -> `int32_t in %edi`; `4@$5` -> `uint32_t constant 5`; `8@-8(%rbp)` -> `uint64_t at -8(%rbp)`."""
        operand = self.operand
        if operand.startswith("$") or re.fullmatch(r"-?\d+", operand):
            return f"{self.type_name} constant {operand.lstrip('$')}"
        if operand.startswith("%") or re.fullmatch(r"[a-z][a-z0-9]*", operand):
            return f"{self.type_name} in {operand}"
        return f"{self.type_name} at {operand}"


@dataclass(frozen=True)
class Site:
    address: int             # link-time address of the nop (the note's pc)
    semaphore: int           # link-time address, 0 when none
    arguments: Tuple[ArgumentSpec, ...]
    # The note's address of .stapsdt.base; 0 where the linker dropped the base (lld's
    # --gc-sections of a sys/sdt.h site), and the site's address with it.
    note_base: int = 0


@dataclass(frozen=True)
class Probe:
    provider: str
    name: str
    # From .note.usdt when present, else from the notes: argN, the <stdint.h> type of the
    # note's size and sign, an integer. Sizes and signs are the notes'.
    arguments: Tuple[TracerArgument, ...]
    sites: Tuple[Site, ...]
    semaphore: int           # link-time address, 0 when none
    source_name: Optional[str]   # the .d file named by .note.usdt; None when described by notes only

    @property
    def signature(self) -> str:
        """`kvserver:request__start(uint64_t id, const char * key)`."""
        arguments = ", ".join(f"{argument.type_name} {argument.name}" for argument in self.arguments)
        return f"{self.provider}:{self.name}({arguments})"

    @property
    def traced(self) -> TracerProbe:
        """The probe as a tracer sees it."""
        return TracerProbe(self.provider, self.name, self.arguments)


def parse_arguments(text: str) -> Tuple[ArgumentSpec, ...]:
    """The specs of a stapsdt note's argument string, `-4@%edi 8@%rax`."""
    text = text.strip()
    specs = notes.split_specs(text)
    if specs is None:
        return (ArgumentSpec(text, 0, False, text),)
    parsed = []
    for spec in specs:
        size, signed, floating, operand = notes.parse_spec(spec)
        parsed.append(ArgumentSpec(spec, size, signed, operand, floating))
    return tuple(parsed)


class MalformedNote(Exception):
    """A note runs past the end of its section: the file is damaged (elf.py says which section)."""


_NOTE_HEADER_SIZE = 12   # namesz, descsz, type: 4 bytes each in both classes


def note_entries(data: bytes, section_alignment: int, byte_order: str) -> Iterator[Tuple[str, bytes]]:
    """(owner, desc) of each stapsdt and usdt note in a note section's `data`. A note's desc
    and the next note start at a multiple of the section's alignment from the section's start:
    4, or 8 (a 64-bit .note.gnu.property; the gABI's "Note Section"). MalformedNote where a
    note, or its header, runs past the end of the section."""
    alignment = 8 if section_alignment == 8 else 4
    offset = 0
    while offset < len(data):
        name_start = offset + _NOTE_HEADER_SIZE
        if name_start > len(data):
            raise MalformedNote(f"the header of the note at offset {offset} runs past the end of the section")
        name_size, desc_size, note_type = struct.unpack_from(byte_order + "III", data, offset)
        desc_start = _aligned(name_start + name_size, alignment)
        if desc_start + desc_size > len(data):
            raise MalformedNote(f"the note at offset {offset} runs past the end of the section")
        owner = data[name_start:name_start + name_size].rstrip(b"\0").decode("latin-1")
        if (owner, note_type) == (STAPSDT_OWNER, NOTE_TYPE) or (owner == USDT_OWNER and note_type in USDT_NOTE_TYPES):
            yield owner, data[desc_start:desc_start + desc_size]
        offset = _aligned(desc_start + desc_size, alignment)


def _aligned(size: int, alignment: int) -> int:
    return (size + alignment - 1) // alignment * alignment


def probes(entries: Iterable[Tuple[str, bytes]], byte_order: str, elf_class: int,
           base: Optional[int]) -> Tuple[Tuple[Probe, ...], List[str]]:
    """The probes of a file's notes, (owner, desc) as note_entries() gives them, sorted by
    (provider, name), and the warnings about records set aside. `base`: the address of the
    file's .stapsdt.base."""
    word = "Q" if elf_class == 64 else "I"
    sites: Dict[Tuple[str, str], List[Site]] = {}
    records: Dict[Tuple[str, str], List[Tuple[str, ...]]] = {}
    warnings: List[str] = []
    for owner, desc in entries:
        if owner == STAPSDT_OWNER:
            note = _stapsdt_note(desc, byte_order + 3 * word, base)
            if note is not None:
                key, site = note
                sites.setdefault(key, []).append(site)
        elif owner == USDT_OWNER:
            strings = _strings(desc)
            if strings is None or len(strings) < 3:
                warnings.append("a malformed .note.usdt record was ignored")
            else:
                records.setdefault((strings[0], strings[1]), []).append(strings[2:])
    found = []
    for (provider, name), probe_sites in sorted(sites.items()):
        probe_sites.sort(key=lambda site: site.address)
        arguments, source_name, problem = _arguments(probe_sites[0].arguments, records.get((provider, name)))
        if problem:
            warnings.append(f"{provider}:{name}: {problem}; argument names and types from the stapsdt notes")
        found.append(Probe(provider, name, arguments, tuple(probe_sites), probe_sites[0].semaphore, source_name))
    return tuple(found), warnings


def _stapsdt_note(desc: bytes, header: str, base_address: Optional[int]) -> Optional[Tuple[Tuple[str, str], Site]]:
    header_size = struct.calcsize(header)
    strings = _strings(desc[header_size:])
    if len(desc) < header_size or strings is None or len(strings) < 3:
        return None
    address, base, semaphore = struct.unpack_from(header, desc)
    # Prelinked or otherwise moved files: the note records where .stapsdt.base was at link time.
    if base and base_address is not None:
        address += base_address - base
    provider, name, arguments = strings[:3]
    return (provider, name), Site(address, semaphore, parse_arguments(arguments), base)


def _strings(desc: bytes) -> Optional[Tuple[str, ...]]:
    """The NUL-terminated strings of a note's desc; None unless it is exactly that."""
    if not desc.endswith(b"\0"):
        return None
    try:
        return tuple(desc[:-1].decode("utf-8").split("\0"))
    except UnicodeDecodeError:
        return None


def _arguments(specs: Sequence[ArgumentSpec], records: Optional[List[Tuple[str, ...]]]):
    """(arguments, source name, why the .note.usdt record was set aside or None)."""
    from_notes = tuple(TracerArgument(index, f"arg{index}", spec.type_name, Kind.INTEGER, spec.size, spec.signed)
                       for index, spec in enumerate(specs))
    if not records:
        return from_notes, None, None
    if len(set(records)) > 1:
        return from_notes, None, "its .note.usdt records disagree"
    source_name, *fields = records[0]
    if len(fields) % 3 or not source_name:
        return from_notes, None, "its .note.usdt record is malformed"
    triples = [tuple(fields[i:i + 3]) for i in range(0, len(fields), 3)]
    if len(triples) != len(specs):
        return (from_notes, None, f"its .note.usdt record has {len(triples)} "
                f"argument{'' if len(triples) == 1 else 's'} and its stapsdt notes {len(specs)}")
    for name, declared_type, kind in triples:
        if not name or not declared_type or Kind.from_note_spelling(kind) is None:
            return from_notes, None, "its .note.usdt record is malformed"
    arguments = tuple(TracerArgument(index, name, declared_type, Kind.from_note_spelling(kind), spec.size, spec.signed)
                      for index, ((name, declared_type, kind), spec) in enumerate(zip(triples, specs)))
    return arguments, source_name, None
