"""What pyelftools reads of an ELF file, as usdttool's reader (usdttool/files/elf.py) gives it: an
independent reader of the headers, sections, segments, .dynamic and .dynsym for the tests to
compare it with. pyelftools is no dependency of usdt's: where it is missing, `available` is False
and the comparisons skip. What the notes say is probe_notes.py's in both readings."""

import importlib.util
import itertools
from typing import Dict, Optional

from usdttool.files import elf, probe_notes

available = importlib.util.find_spec("elftools") is not None
if available:
    from elftools.elf.elffile import ELFFile


def _machine(elf_file) -> str:
    # pyelftools names the machines it knows, and gives the number of another.
    machine = elf_file["e_machine"]
    return machine if isinstance(machine, str) else f"EM_{machine}"


def module(path: str) -> elf.Module:
    with open(path, "rb") as stream:
        elf_file = ELFFile(stream)
        byte_order = "<" if elf_file.little_endian else ">"
        sections = list(elf_file.iter_sections())
        notes = [entry for section in sections if section["sh_type"] == "SHT_NOTE"
                 for entry in probe_notes.note_entries(section.data(), section["sh_addralign"], byte_order)]
        base = next((section["sh_addr"] for section in sections if section.name == ".stapsdt.base"), None)
        segments = tuple(elf.LoadSegment(segment["p_vaddr"], segment["p_offset"], segment["p_filesz"],
                                         bool(segment["p_flags"] & 0x2))
                         for segment in elf_file.iter_segments() if segment["p_type"] == "PT_LOAD")
        # The probes and warnings of what was read, as elf.read_module() makes them.
        return elf._assembled(path, notes, byte_order, elf_file.elfclass, base, segments, _machine(elf_file))


def linkage(path: str) -> elf.Linkage:
    with open(path, "rb") as stream:
        elf_file = ELFFile(stream)
        needed, rpath, runpath, interpreter = [], [], [], None
        for segment in elf_file.iter_segments():
            if segment["p_type"] == "PT_INTERP":
                interpreter = segment.get_interp_name()
        dynamic = elf_file.get_section_by_name(".dynamic")
        if dynamic is not None and dynamic["sh_type"] == "SHT_DYNAMIC":
            for tag in dynamic.iter_tags():
                if tag.entry.d_tag == "DT_NEEDED":
                    needed.append(tag.needed)
                elif tag.entry.d_tag == "DT_RPATH":
                    rpath += [entry for entry in tag.rpath.split(":") if entry]
                elif tag.entry.d_tag == "DT_RUNPATH":
                    runpath += [entry for entry in tag.runpath.split(":") if entry]
        return elf.Linkage(elf_file.elfclass, _machine(elf_file), tuple(needed), tuple(rpath), tuple(runpath),
                           interpreter)


def defined_dynamic_symbols(path: str, first: Optional[int] = None) -> Dict[str, int]:
    """Name -> value of the first symbol of each name that .dynsym defines (st_shndx not
    SHN_UNDEF), among its `first` symbols (all by default)."""
    with open(path, "rb") as stream:
        table = ELFFile(stream).get_section_by_name(".dynsym")
        if table is None or table["sh_type"] != "SHT_DYNSYM":
            return {}
        defined: Dict[str, int] = {}
        for symbol in itertools.islice(table.iter_symbols(), first):
            if symbol["st_shndx"] != "SHN_UNDEF":
                defined.setdefault(symbol.name, symbol["st_value"])
        return defined
