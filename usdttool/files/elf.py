"""Reads one ELF file: its probes, from its note sections (what the notes say is
probe_notes.py's); its loadable segments (to find a semaphore in a process's memory); and what
the dynamic linker needs to find its shared libraries. The headers are read with struct, and
with pyelftools where they are unusual or damaged.
"""

import contextlib
import functools
import importlib
import os
import struct
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

# pyelftools reads what struct does not here (an unusual or damaged file): a dependency all the
# same, whose absence the launcher reports as usdt starts. Its ELF reader, a good part of usdt's
# start-up to import, is imported where a file is read through it (_elf_file).
import elftools

from . import probe_notes
from .probe_notes import Probe
from ..errors import ToolError


class NotELFError(ToolError):
    """The file is not an ELF file at all (a mapped data file, a script)."""


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
    """The probes of the ELF file at `path`; ToolError when it is missing, unreadable or not ELF."""
    try:
        with open(path, "rb") as file:
            module = _fast_module(path, file)
    except Exception:   # missing, damaged...: pyelftools's reading says what is wrong with it
        module = None
    if module is not None:
        return module
    with _elf_file(path) as elf:
        return _module(path, elf)


def dynamic_symbol(path: str, name: str) -> Optional[int]:
    """The value of the dynamic symbol `name` (.dynsym) of the ELF file at `path`, None when it has
    none: `_r_debug` of a dynamic linker."""
    with _elf_file(path) as elf:
        table = elf.get_section_by_name(".dynsym")
        symbols = table.get_symbol_by_name(name) if table is not None and hasattr(table, "get_symbol_by_name") else None
        return symbols[0]["st_value"] if symbols else None


# The note sections a toolchain or distribution adds, which hold no probes.
_OTHER_NOTE_SECTIONS = {".note.gnu.build-id", ".note.ABI-tag", ".note.gnu.property", ".note.package"}
_SHT_NOTE, _SHT_DYNAMIC, _PT_LOAD, _PT_INTERP, _PF_W = 7, 6, 1, 3, 0x2
_DT_NULL, _DT_NEEDED, _DT_RPATH, _DT_RUNPATH = 0, 1, 15, 29
# e_machine as pyelftools names it, for the machines usdt knows something of (libraries.MULTIARCH,
# _LARGEST_PAGE_SIZES) and their kin; a file of another is read by pyelftools.
_MACHINE_NAMES = {3: "EM_386", 8: "EM_MIPS", 20: "EM_PPC", 21: "EM_PPC64", 22: "EM_S390", 40: "EM_ARM",
                  62: "EM_X86_64", 183: "EM_AARCH64", 243: "EM_RISCV", 258: "EM_LOONGARCH"}


@dataclass(frozen=True)
class _Headers:
    """A file's ELF, section and program headers, read with struct: pyelftools takes a good part
    of usdt's start-up over the files a program loads, most without probes."""
    order: str
    elf_class: int
    machine: int
    sections: Tuple[Tuple[str, int, int, int, int, int, int], ...]   # name, type, offset, size, link,
    #                                                                  address, alignment
    segments: Tuple[Tuple[int, int, int, int, int], ...]   # type, offset, file size, address, flags


def _headers(file) -> Optional[_Headers]:
    """None for anything unusual (more than 0xff00 sections, a damaged table...), which
    pyelftools then reads."""
    header = file.read(64)
    if len(header) < 52 or header[:4] != b"\x7fELF" or header[4] not in (1, 2) or header[5] not in (1, 2):
        return None
    order = "<" if header[5] == 1 else ">"
    if header[4] == 2:
        segment_table, section_table = struct.unpack_from(order + "QQ", header, 0x20)
        sizes_at, section_entry, segment_entry = 0x36, order + "IIQQQQIIQQ", order + "IIQQQQQQ"
    else:
        segment_table, section_table = struct.unpack_from(order + "II", header, 0x1C)
        sizes_at, section_entry, segment_entry = 0x2A, order + "IIIIIIIIII", order + "IIIIIIII"
    (machine,) = struct.unpack_from(order + "H", header, 0x12)
    segment_size, segment_count, section_size, section_count, names_index = \
        struct.unpack_from(order + "HHHHH", header, sizes_at)
    if not section_count or names_index >= section_count or section_size < struct.calcsize(section_entry) \
            or (segment_count and segment_size < struct.calcsize(segment_entry)):
        return None
    file.seek(section_table)
    table = file.read(section_size * section_count)
    raw_sections = [struct.unpack_from(section_entry, table, index * section_size) for index in range(section_count)]
    file.seek(segment_table)
    table = file.read(segment_size * segment_count)
    raw_segments = [struct.unpack_from(segment_entry, table, index * segment_size) for index in range(segment_count)]
    names_offset, names_size = raw_sections[names_index][4:6]
    file.seek(names_offset)
    names = file.read(names_size)
    sections = tuple((names[name:names.find(b"\0", name)].decode("utf-8", "replace"), kind, offset, size, link,
                      address, alignment)
                     for name, kind, _, address, offset, size, link, _, alignment, _ in raw_sections)
    if header[4] == 2:
        segments = tuple((kind, offset, size, address, flags)
                         for kind, flags, offset, address, _, size, *_ in raw_segments)
    else:
        segments = tuple((kind, offset, size, address, flags)
                         for kind, offset, address, _, size, _, flags, _ in raw_segments)
    return _Headers(order, 32 * header[4], machine, sections, segments)


def may_have_probes(path: str) -> bool:
    """False where the ELF file at `path` surely has no probes: none of its note sections may
    hold any (libc, libm...); True whenever unsure, read_module() then decides."""
    try:
        with open(path, "rb") as file:
            headers = _headers(file)
    except Exception:   # a damaged file: read_module() says what is wrong with it
        return True
    return headers is None or any(kind == _SHT_NOTE and name not in _OTHER_NOTE_SECTIONS
                                  for name, kind, *_ in headers.sections)


def _fast_linkage(file) -> Optional[Linkage]:
    """The file's Linkage from its headers and .dynamic; None where pyelftools should read it."""
    headers = _headers(file)
    if headers is None or headers.machine not in _MACHINE_NAMES:
        return None
    interpreter = None
    for kind, offset, size, *_ in headers.segments:
        if kind == _PT_INTERP:
            file.seek(offset)
            interpreter = file.read(size).split(b"\0", 1)[0].decode("utf-8", "replace")
    needed: List[str] = []
    rpath: List[str] = []
    runpath: List[str] = []
    dynamic = next((section for section in headers.sections if section[:2] == (".dynamic", _SHT_DYNAMIC)), None)
    if dynamic is not None:
        _, _, offset, size, link, *_ = dynamic
        if link >= len(headers.sections):
            return None
        _, _, strings_offset, strings_size, *_ = headers.sections[link]
        file.seek(strings_offset)
        strings = file.read(strings_size)
        file.seek(offset)
        data = file.read(size)
        entry = headers.order + ("qQ" if headers.elf_class == 64 else "iI")
        for tag, value in struct.iter_unpack(entry, data[:len(data) - len(data) % struct.calcsize(entry)]):
            if tag == _DT_NULL:
                break
            if tag in (_DT_NEEDED, _DT_RPATH, _DT_RUNPATH):
                if value >= len(strings):
                    return None
                text = strings[value:strings.find(b"\0", value)].decode("utf-8", "replace")
                if tag == _DT_NEEDED:
                    needed.append(text)
                else:
                    (rpath if tag == _DT_RPATH else runpath).extend(entry for entry in text.split(":") if entry)
    return Linkage(headers.elf_class, _MACHINE_NAMES[headers.machine], tuple(needed), tuple(rpath), tuple(runpath),
                   interpreter)


def read_linkage(path: str) -> Linkage:
    try:
        status = os.stat(path)
    except OSError:
        status = None
    if status is None:
        return _read_linkage(path, None)
    return _read_linkage(path, (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns))


# The search for a program's libraries reads each candidate, and then each library found, again:
# pyelftools takes a good part of usdt's start-up over each. Once per version of a file.
@functools.lru_cache(maxsize=256)
def _read_linkage(path: str, version: Optional[Tuple[int, ...]]) -> Linkage:
    try:
        with open(path, "rb") as file:
            linkage = _fast_linkage(file)
    except Exception:   # a damaged file: pyelftools's reading says what is wrong with it
        linkage = None
    if linkage is not None:
        return linkage
    with _elf_file(path) as elf:
        return _linkage(elf)


@contextlib.contextmanager
def _elf_file(path: str) -> Iterator["elftools.elf.elffile.ELFFile"]:
    try:
        stream = open(path, "rb")
    except FileNotFoundError:
        raise ToolError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ToolError(f"{path}: is a directory") from None
    except PermissionError:
        raise ToolError(f"{path}: permission denied") from None
    except OSError as error:
        raise ToolError(f"{path}: cannot read: {error.strerror}") from None
    with stream:
        try:
            if stream.read(4) != b"\x7fELF":
                raise NotELFError(f"{path}: not an ELF file")
            stream.seek(0)
            yield importlib.import_module(f"{elftools.__name__}.elf.elffile").ELFFile(stream)
        except ToolError:
            raise
        except OSError as error:
            raise ToolError(f"{path}: cannot read: {error.strerror}") from None
        except Exception as error:
            # pyelftools meets damaged files with ELFError, construct's errors and, as fuzzing
            # showed, TypeError, OverflowError...: all mean the same to the user.
            raise ToolError(f"{path}: malformed ELF file ({type(error).__name__}: {error})") from None


def _module(path: str, elf: "elftools.elf.elffile.ELFFile") -> Module:
    byte_order = "<" if elf.little_endian else ">"
    # pyelftools parses a section's header again at each look: one pass over them all.
    sections = list(elf.iter_sections())
    base = next((section["sh_addr"] for section in sections if section.name == ".stapsdt.base"), None)
    segments = tuple(LoadSegment(segment["p_vaddr"], segment["p_offset"], segment["p_filesz"],
                                 bool(segment["p_flags"] & _PF_W))
                     for segment in elf.iter_segments() if segment["p_type"] == "PT_LOAD")
    return _assembled(path, _notes(elf, sections, byte_order), byte_order, elf.elfclass, base, segments,
                      elf["e_machine"])


def _fast_module(path: str, file) -> Optional[Module]:
    """_module() from the headers read with struct; None where pyelftools should read the file."""
    headers = _headers(file)
    if headers is None or headers.machine not in _MACHINE_NAMES:
        return None
    file_size = os.fstat(file.fileno()).st_size
    notes = []
    for name, kind, offset, size, _, _, alignment in headers.sections:
        if kind == _SHT_NOTE:
            if offset + size > file_size:
                return None
            file.seek(offset)
            notes += probe_notes.note_entries(file.read(size), alignment, headers.order)
    base = next((address for name, _, _, _, _, address, _ in headers.sections if name == ".stapsdt.base"), None)
    segments = tuple(LoadSegment(address, offset, size, bool(flags & _PF_W))
                     for kind, offset, size, address, flags in headers.segments if kind == _PT_LOAD)
    return _assembled(path, notes, headers.order, headers.elf_class, base, segments, _MACHINE_NAMES[headers.machine])


def _assembled(path: str, notes: Iterable[Tuple[str, bytes]], byte_order: str, elf_class: int,
               base: Optional[int], segments: Tuple[LoadSegment, ...], machine: str) -> Module:
    """The Module of a file's notes (owner, desc), the address of its .stapsdt.base, its loadable segments."""
    probes, warnings = probe_notes.probes(notes, byte_order, elf_class, base)
    page_size = _LARGEST_PAGE_SIZES.get(machine, 4096)
    if _semaphore_shares_a_page(segments, [probe.semaphore for probe in probes if probe.semaphore], page_size):
        warnings.append(SHARED_SEMAPHORE_PAGE)
    return Module(path, tuple(probes), tuple(dict.fromkeys(warnings)), segments, elf_class // 8)


def _semaphore_shares_a_page(segments: Sequence[LoadSegment], semaphores: Sequence[int], page_size: int) -> bool:
    """Whether a semaphore's file page is also mapped by an earlier writable segment. For a
    tracer attached before the file is mapped, Linux raises a semaphore when the file is
    mapped, through the first writable mapping of its page: the loader maps segments in
    order, and makes GNU_RELRO's read-only afterwards, so the semaphore the code reads stays 0."""
    for semaphore in semaphores:
        for index, segment in enumerate(segments):
            if segment.holds(semaphore):
                page = (segment.offset + semaphore - segment.address) // page_size
                if any(earlier.writable and page in earlier.file_pages(page_size) for earlier in segments[:index]):
                    return True
    return False


def _notes(elf: "elftools.elf.elffile.ELFFile", sections: Sequence["elftools.elf.sections.Section"],
           byte_order: str) -> Iterator[Tuple[str, bytes]]:
    """(owner, desc) of each stapsdt and usdt note in the file's SHT_NOTE `sections`."""
    file_size = os.fstat(elf.stream.fileno()).st_size
    for section in sections:
        if section["sh_type"] != "SHT_NOTE":
            continue
        if section["sh_offset"] + section["sh_size"] > file_size:
            raise ValueError(f"section {section.name} runs past the end of the file")
        yield from probe_notes.note_entries(section.data(), section["sh_addralign"], byte_order)


def _linkage(elf: "elftools.elf.elffile.ELFFile") -> Linkage:
    needed, rpath, runpath, interpreter = [], [], [], None
    for segment in elf.iter_segments():
        if segment["p_type"] == "PT_INTERP":
            interpreter = segment.get_interp_name()
    dynamic = elf.get_section_by_name(".dynamic")
    if dynamic is not None and hasattr(dynamic, "iter_tags"):
        for tag in dynamic.iter_tags():
            if tag.entry.d_tag == "DT_NEEDED":
                needed.append(tag.needed)
            elif tag.entry.d_tag == "DT_RPATH":
                rpath += [entry for entry in tag.rpath.split(":") if entry]
            elif tag.entry.d_tag == "DT_RUNPATH":
                runpath += [entry for entry in tag.runpath.split(":") if entry]
    return Linkage(elf.elfclass, elf["e_machine"], tuple(needed), tuple(rpath), tuple(runpath), interpreter)
