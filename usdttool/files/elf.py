"""usdt's one ELF reader. Reads one ELF file: its probes, from its note sections (what the notes
say is probe_notes.py's); its loadable segments (to find a semaphore in a process's memory); what
the dynamic linker needs to find its shared libraries; and a dynamic symbol (the dynamic linker's
`_r_debug`). Either class and byte order, any machine and any number of sections, read with
struct as the System V gABI lays them out (https://www.sco.com/developers/gabi/latest/ch4.intro.html,
elf(5)): no library, whose import would be a good part of usdt's start-up. Every offset, size,
index and string is checked before it is used: a damaged file is a ToolError that says what is
wrong with it, `PATH: malformed ELF file (WHAT)`.
"""

import contextlib
import functools
import operator
import os
import struct
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from . import probe_notes
from .probe_notes import Probe
from ..errors import ToolError


class NotELFError(ToolError):
    """The file is not an ELF file at all (a mapped data file, a script)."""


class _Malformed(Exception):
    """What is wrong with a damaged file; _opened() makes it the user's ToolError, with the path."""


@dataclass(frozen=True)
class LoadSegment:
    address: int             # p_vaddr
    offset: int              # p_offset
    file_size: int           # p_filesz
    writable: bool = False   # PF_W

    def holds(self, address: int) -> bool:
        """Whether a link-time address's byte is in the file part of the segment."""
        return self.address <= address < self.address + self.file_size

    def file_pages(self, page_size: int) -> range:
        """The pages of the file a loader maps for this segment."""
        if not self.file_size:
            return range(0)
        return range(self.offset // page_size, (self.offset + self.file_size - 1) // page_size + 1)


@dataclass(frozen=True)
class Module:
    path: str
    probes: Tuple[Probe, ...]    # sorted by (provider, name)
    warnings: Tuple[str, ...] = ()          # .note.usdt records set aside, and why
    segments: Tuple[LoadSegment, ...] = ()  # PT_LOAD
    pointer_size: int = 8                   # 4 in an ELFCLASS32 file
    machine: str = "EM_X86_64"              # e_machine, by its gABI name
    stapsdt_base: Optional[int] = None      # the address of .stapsdt.base; None without one

    def segment(self, address: int) -> Optional[LoadSegment]:
        """The segment whose file part holds a link-time address; None when it is not file-backed."""
        return next((segment for segment in self.segments if segment.holds(address)), None)

    def file_offset(self, address: int) -> Optional[int]:
        """Where a link-time address's byte is in the file; None when it is not file-backed."""
        segment = self.segment(address)
        return None if segment is None else segment.offset + address - segment.address


@dataclass(frozen=True)
class Linkage:
    """What the dynamic linker reads to load a file's shared libraries."""
    elf_class: int           # 32 or 64
    machine: str             # e_machine, "EM_X86_64"
    needed: Tuple[str, ...]  # DT_NEEDED
    rpath: Tuple[str, ...]   # DT_RPATH, split at ':'
    runpath: Tuple[str, ...] # DT_RUNPATH, split at ':'
    interpreter: Optional[str]   # PT_INTERP


# The largest page size each machine's Linux kernels use, as usdt/usdt.h aligns `.probes` to.
_LARGEST_PAGE_SIZES = {"EM_AARCH64": 65536, "EM_PPC64": 65536, "EM_MIPS": 65536}
SHARED_SEMAPHORE_PAGE = (
    "a semaphore is on a file page that an earlier writable segment (GNU_RELRO's, as lld and mold "
    "lay files out) also maps, where the kernel raises it instead: tracers that start the program "
    "(bpftrace -c, perf record -- CMD, usdt trace -- CMD) or that attach before it maps this file "
    "leave its ENABLED() false; attach to the running process (-p PID) instead, or relink with "
    "-Wl,-z,norelro (lld: -Wl,-z,separate-loadable-segments), or build the probes with usdt")


def read_module(path: str) -> Module:
    """The probes of the ELF file at `path`; ToolError when it is missing, unreadable, not ELF or damaged."""
    with _opened(path) as reader:
        headers = _headers(reader)
        notes: List[Tuple[str, bytes]] = []
        for section in headers.sections:
            if section.kind == _SHT_NOTE:
                notes += _note_entries(reader, headers, section)
    base = next((section.address for section in headers.sections if section.name == ".stapsdt.base"), None)
    segments = tuple(LoadSegment(segment.address, segment.offset, segment.file_size, bool(segment.flags & _PF_W))
                     for segment in headers.segments if segment.kind == _PT_LOAD)
    return _assembled(path, notes, headers.order, headers.elf_class, base, segments, headers.machine_name)


def dynamic_symbol(path: str, name: str) -> Optional[int]:
    """The value of the symbol `name` that the ELF file at `path` defines in .dynsym, None when it
    defines none (a reference to another file's is none): `_r_debug` of a dynamic linker."""
    with _opened(path) as reader:
        headers = _headers(reader)
        table = headers.section(".dynsym", _SHT_DYNSYM)
        if table is None:
            return None
        strings = _section_data(reader, headers.linked(table))
        symbols = _section_data(reader, table)
        wanted = name.encode() + b"\0"
        entry = headers.layout.symbol
        for fields in entry.iter_unpack(symbols[:len(symbols) - len(symbols) % entry.size]):
            name_offset, value, section_index = headers.layout.symbol_fields(fields)
            if name_offset >= len(strings):
                raise _Malformed(f"a symbol of {table.label} has its name at offset {name_offset}, past the end "
                                 f"of its string table")
            if section_index != _SHN_UNDEF and strings.startswith(wanted, name_offset):
                return value
    return None


def may_have_probes(path: str) -> bool:
    """False where the ELF file at `path` surely has no probes: none of its note sections may
    hold any (libc, libm...); True whenever unsure, read_module() then decides."""
    try:
        with _opened(path) as reader:
            headers = _headers(reader)
    except ToolError:   # missing, not ELF, damaged: read_module() says so
        return True
    return any(section.kind == _SHT_NOTE and section.name not in _OTHER_NOTE_SECTIONS for section in headers.sections)


def read_linkage(path: str) -> Linkage:
    try:
        status = os.stat(path)
    except OSError:
        status = None
    if status is None:
        return _read_linkage(path, None)
    return _read_linkage(path, (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns))


# The search for a program's libraries reads each candidate, and then each library found, again:
# once per version of a file.
@functools.lru_cache(maxsize=256)
def _read_linkage(path: str, version: Optional[Tuple[int, ...]]) -> Linkage:
    with _opened(path) as reader:
        headers = _headers(reader)
        interpreter = None
        for segment in headers.segments:
            if segment.kind == _PT_INTERP:
                name = reader.read(segment.offset, segment.file_size, "the PT_INTERP segment")
                interpreter = name.split(b"\0", 1)[0].decode("utf-8", "replace")
        needed: List[str] = []
        rpath: List[str] = []
        runpath: List[str] = []
        dynamic = headers.section(".dynamic", _SHT_DYNAMIC)
        if dynamic is not None:
            strings = _section_data(reader, headers.linked(dynamic))
            entries = _section_data(reader, dynamic)
            entry = headers.layout.dynamic
            for tag, value in entry.iter_unpack(entries[:len(entries) - len(entries) % entry.size]):
                if tag == _DT_NULL:
                    break
                if tag in _DT_STRINGS:
                    text = _string(strings, value)
                    if text is None:
                        raise _Malformed(f"a {_DT_STRINGS[tag]} string of {dynamic.label}, at offset {value}, "
                                         f"runs past the end of its string table")
                    if tag == _DT_NEEDED:
                        needed.append(text)
                    else:
                        (rpath if tag == _DT_RPATH else runpath).extend(entry for entry in text.split(":") if entry)
    return Linkage(headers.elf_class, headers.machine_name, tuple(needed), tuple(rpath), tuple(runpath), interpreter)


# The note sections a toolchain or distribution adds, which hold no probes.
_OTHER_NOTE_SECTIONS = {".note.gnu.build-id", ".note.ABI-tag", ".note.gnu.property", ".note.package"}
_SHT_DYNAMIC, _SHT_NOTE, _SHT_DYNSYM = 6, 7, 11
_PT_LOAD, _PT_INTERP, _PF_W = 1, 3, 0x2
_DT_NULL, _DT_NEEDED, _DT_RPATH, _DT_RUNPATH = 0, 1, 15, 29
_DT_STRINGS = {_DT_NEEDED: "DT_NEEDED", _DT_RPATH: "DT_RPATH", _DT_RUNPATH: "DT_RUNPATH"}
# A section count or index too large for its ELF header field is in section 0: e_shnum 0 for
# the count (sh_size), e_shstrndx SHN_XINDEX for the names' index (sh_link), e_phnum PN_XNUM
# for the segment count (sh_info). Objects of more than 0xff00 sections are common with
# -ffunction-sections.
_SHN_UNDEF, _SHN_XINDEX, _PN_XNUM = 0, 0xFFFF, 0xFFFF
# e_machine by its gABI name, for the machines usdt knows something of (libraries.MULTIARCH,
# _LARGEST_PAGE_SIZES) and their kin; another is EM_<number>, which does as well where a
# library's machine is compared with its program's (libraries._loadable).
_MACHINE_NAMES = {3: "EM_386", 8: "EM_MIPS", 20: "EM_PPC", 21: "EM_PPC64", 22: "EM_S390", 40: "EM_ARM",
                  62: "EM_X86_64", 183: "EM_AARCH64", 243: "EM_RISCV", 258: "EM_LOONGARCH"}


class _Layout(NamedTuple):
    """The structs of one class and byte order."""
    header: struct.Struct    # the ELF header after e_ident
    section: struct.Struct   # a section header: the same fields, in the same order, in both classes
    segment: struct.Struct   # a program header
    segment_fields: Callable[[tuple], tuple]   # its p_type, p_flags, p_offset, p_vaddr, p_filesz
    dynamic: struct.Struct   # a .dynamic entry
    symbol: struct.Struct    # a .dynsym entry
    symbol_fields: Callable[[tuple], tuple]    # its st_name, st_value, st_shndx


def _layout(elf_class: int, order: str) -> _Layout:
    if elf_class == 64:
        return _Layout(struct.Struct(order + "HHIQQQIHHHHHH"), struct.Struct(order + "IIQQQQIIQQ"),
                       struct.Struct(order + "IIQQQQQQ"), operator.itemgetter(0, 1, 2, 3, 5),
                       struct.Struct(order + "qQ"), struct.Struct(order + "IBBHQQ"), operator.itemgetter(0, 4, 3))
    return _Layout(struct.Struct(order + "HHIIIIIHHHHHH"), struct.Struct(order + "IIIIIIIIII"),
                   struct.Struct(order + "IIIIIIII"), operator.itemgetter(0, 6, 1, 2, 4),
                   struct.Struct(order + "iI"), struct.Struct(order + "IIIBBH"), operator.itemgetter(0, 1, 5))


# By EI_CLASS (1: ELFCLASS32, 2: ELFCLASS64) and EI_DATA (1: little-endian, 2: big-endian).
_LAYOUTS = {(elf_class, data): _layout(32 * elf_class, "<" if data == 1 else ">")
            for elf_class in (1, 2) for data in (1, 2)}


class _Section(NamedTuple):
    index: int
    name: str
    kind: int                # sh_type
    address: int
    offset: int
    size: int
    link: int
    alignment: int

    @property
    def label(self) -> str:
        """The section in a message: `section 29 (.note.stapsdt)`; a damaged name is left out."""
        named = self.name and self.name.isprintable() and len(self.name) <= 64
        return f"section {self.index} ({self.name})" if named else f"section {self.index}"


class _Segment(NamedTuple):
    kind: int                # p_type
    flags: int
    offset: int
    address: int
    file_size: int


@dataclass(frozen=True)
class _Headers:
    """A file's ELF header, section headers (with their names) and program headers."""
    order: str               # struct's "<" or ">"
    elf_class: int           # 32 or 64
    machine: int             # e_machine
    layout: _Layout
    sections: Tuple[_Section, ...]
    segments: Tuple[_Segment, ...]

    @property
    def machine_name(self) -> str:
        return _MACHINE_NAMES.get(self.machine, f"EM_{self.machine}")

    def section(self, name: str, kind: int) -> Optional[_Section]:
        return next((section for section in self.sections if section.name == name and section.kind == kind), None)

    def linked(self, section: _Section) -> _Section:
        """The section `section`'s sh_link names: a symbol table's or .dynamic's strings."""
        if section.link >= len(self.sections):
            raise _Malformed(f"{section.label} links to section {section.link}, past the last, "
                             f"{len(self.sections) - 1}")
        return self.sections[section.link]


class _Reader:
    """An open file whose parts are read only where the file holds them."""

    def __init__(self, file: BinaryIO):
        self.file = file
        self.size = os.fstat(file.fileno()).st_size

    def read(self, offset: int, size: int, what: str) -> bytes:
        # A damaged offset or size is said to be one here, rather than a short read that
        # struct would trip on later, or a huge one. An empty part is nowhere: any offset will do.
        if not size:
            return b""
        if offset + size > self.size:
            raise _Malformed(f"{what} runs past the end of the file")
        self.file.seek(offset)
        data = self.file.read(size)
        if len(data) != size:   # the file shrank as it was read
            raise _Malformed(f"{what} runs past the end of the file")
        return data


@contextlib.contextmanager
def _opened(path: str) -> Iterator[_Reader]:
    """The ELF file at `path`, open; what goes wrong reading it, a ToolError for the user."""
    try:
        file = open(path, "rb")
    except FileNotFoundError:
        raise ToolError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ToolError(f"{path}: is a directory") from None
    except PermissionError:
        raise ToolError(f"{path}: permission denied") from None
    except OSError as error:
        raise ToolError(f"{path}: cannot read: {error.strerror}") from None
    with file:
        try:
            if file.read(4) != b"\x7fELF":
                raise NotELFError(f"{path}: not an ELF file")
            yield _Reader(file)
        except _Malformed as error:
            raise ToolError(f"{path}: malformed ELF file ({error})") from None
        except OSError as error:
            raise ToolError(f"{path}: cannot read: {error.strerror}") from None


def _headers(reader: _Reader) -> _Headers:
    identification = reader.read(0, 16, "the ELF header")
    elf_class, data = identification[4], identification[5]
    if elf_class not in (1, 2):
        raise _Malformed(f"EI_CLASS is {elf_class}, neither ELFCLASS32 nor ELFCLASS64")
    if data not in (1, 2):
        raise _Malformed(f"EI_DATA is {data}, neither ELFDATA2LSB nor ELFDATA2MSB")
    layout = _LAYOUTS[elf_class, data]
    (_, machine, _, _, segment_table, section_table, _, _, segment_entry_size, segment_count, section_entry_size,
     section_count, names_index) = layout.header.unpack(reader.read(16, layout.header.size, "the ELF header"))
    if section_table:
        _check_entry_size(section_entry_size, layout.section, "section")
    if section_table and (section_count == 0 or names_index == _SHN_XINDEX or segment_count == _PN_XNUM):
        zeroth = layout.section.unpack(reader.read(section_table, layout.section.size, "the section header table"))
        section_count = section_count or zeroth[5]
        names_index = zeroth[6] if names_index == _SHN_XINDEX else names_index
        segment_count = zeroth[7] if segment_count == _PN_XNUM else segment_count
    sections = _sections(reader, layout, section_table, section_entry_size, section_count, names_index)
    segments: Tuple[_Segment, ...] = ()
    if segment_table and segment_count:
        _check_entry_size(segment_entry_size, layout.segment, "program")
        table = reader.read(segment_table, segment_entry_size * segment_count, "the program header table")
        segments = tuple(_Segment(*layout.segment_fields(layout.segment.unpack_from(table, index * segment_entry_size)))
                         for index in range(segment_count))
    return _Headers("<" if data == 1 else ">", 32 * elf_class, machine, layout, sections, segments)


def _sections(reader: _Reader, layout: _Layout, table_offset: int, entry_size: int, count: int,
              names_index: int) -> Tuple[_Section, ...]:
    if not table_offset or not count:   # none (a file sstrip(1) went through)
        return ()
    table = reader.read(table_offset, entry_size * count, "the section header table")
    entries = [layout.section.unpack_from(table, index * entry_size) for index in range(count)]
    if names_index >= count:
        raise _Malformed(f"the section names are in section {names_index}, past the last, {count - 1}")
    names = None   # e_shstrndx SHN_UNDEF: no section has a name
    if names_index != _SHN_UNDEF:
        _, _, _, _, offset, size, *_ = entries[names_index]
        names = reader.read(offset, size, f"section {names_index} (the section names)")
    sections = []
    for index, (name_offset, kind, _, address, offset, size, link, _, alignment, _) in enumerate(entries):
        name = "" if names is None else _string(names, name_offset)
        if name is None:
            raise _Malformed(f"the name of section {index}, at offset {name_offset}, runs past the end of "
                             f"the section names")
        sections.append(_Section(index, name, kind, address, offset, size, link, alignment))
    return tuple(sections)


def _check_entry_size(size: int, entry: struct.Struct, table: str) -> None:
    # Larger entries are read by their start: the gABI lets a later version add fields.
    if size < entry.size:
        raise _Malformed(f"{table} header entries of {size} bytes, fewer than the {entry.size} of one")


def _section_data(reader: _Reader, section: _Section) -> bytes:
    return reader.read(section.offset, section.size, section.label)


def _string(table: bytes, offset: int) -> Optional[str]:
    """The NUL-terminated string at `offset` of a string table, None where there is none."""
    end = table.find(b"\0", offset)
    return None if end < 0 else table[offset:end].decode("utf-8", "replace")


def _note_entries(reader: _Reader, headers: _Headers, section: _Section) -> List[Tuple[str, bytes]]:
    try:
        return list(probe_notes.note_entries(_section_data(reader, section), section.alignment, headers.order))
    except probe_notes.MalformedNote as error:
        raise _Malformed(f"{section.label}: {error}") from None


def _assembled(path: str, notes: Iterable[Tuple[str, bytes]], byte_order: str, elf_class: int,
               base: Optional[int], segments: Tuple[LoadSegment, ...], machine: str) -> Module:
    """The Module of a file's notes (owner, desc), the address of its .stapsdt.base, its loadable segments."""
    probes, warnings = probe_notes.probes(notes, byte_order, elf_class, base)
    page_size = _LARGEST_PAGE_SIZES.get(machine, 4096)
    semaphores = [probe.semaphore for probe in probes if probe.semaphore]
    if any(_semaphore_shares_a_page(segments, semaphore, page_size) for semaphore in semaphores):
        warnings.append(SHARED_SEMAPHORE_PAGE)
    return Module(path, tuple(probes), tuple(dict.fromkeys(warnings)), segments, elf_class // 8, machine, base)


def semaphore_shares_a_page(module: Module, semaphore: int) -> bool:
    """Whether the semaphore at `semaphore` is on a page where the kernel raises another copy
    (_semaphore_shares_a_page): what SHARED_SEMAPHORE_PAGE warns of, for one semaphore."""
    return _semaphore_shares_a_page(module.segments, semaphore, _LARGEST_PAGE_SIZES.get(module.machine, 4096))


def _semaphore_shares_a_page(segments: Sequence[LoadSegment], semaphore: int, page_size: int) -> bool:
    """Whether a semaphore's file page is also mapped by an earlier writable segment. For a
    tracer attached before the file is mapped, Linux raises a semaphore when the file is
    mapped, through the first writable mapping of its page: the loader maps segments in
    order, and makes GNU_RELRO's read-only afterwards, so the semaphore the code reads stays 0."""
    for index, segment in enumerate(segments):
        if segment.holds(semaphore):
            page = (segment.offset + semaphore - segment.address) // page_size
            return any(earlier.writable and page in earlier.file_pages(page_size) for earlier in segments[:index])
    return False
