"""ELF files written byte by byte for usdttool's unit tests: a shared object with PT_LOAD segments,
a note section of stapsdt notes, `.stapsdt.base` and the section names, and where a test asks,
PT_INTERP, a dynamic section, a dynamic symbol table and empty sections; nothing else, so that
a test says all a reader is given. Little-endian x86-64 unless a test asks for another class,
byte order or machine. And the offsets of the fields tests damage, in an ELF64 file."""

import struct
from typing import Optional, Sequence, Tuple

PT_LOAD, PT_INTERP, PF_R, PF_W = 1, 3, 4, 2
SHT_PROGBITS, SHT_STRTAB, SHT_DYNAMIC, SHT_NOTE, SHT_DYNSYM = 1, 3, 6, 7, 11
DT_NULL, DT_NEEDED, DT_RPATH, DT_RUNPATH = 0, 1, 15, 29
EM_386, EM_MIPS, EM_X86_64 = 3, 8, 62
SHN_UNDEF, SHN_LORESERVE, SHN_XINDEX, PN_XNUM = 0, 0xFF00, 0xFFFF, 0xFFFF
# The sections elf_file() writes first, by index; .interp, .dynstr, .dynamic, .dynsym and the
# empty ones follow where asked for, and the section names come last.
NOTE_SECTION, BASE_SECTION = 1, 2
# Where an ELF64 header keeps e_phoff, e_shoff, e_phentsize, e_phnum, e_shentsize, e_shnum and
# e_shstrndx; where a section header (Elf64_Shdr) keeps sh_name, sh_offset, sh_size and sh_link.
E_PHOFF, E_SHOFF, E_PHENTSIZE, E_PHNUM, E_SHENTSIZE, E_SHNUM, E_SHSTRNDX = 0x20, 0x28, 0x36, 0x38, 0x3A, 0x3C, 0x3E
SH_NAME, SH_OFFSET, SH_SIZE, SH_LINK = 0, 0x18, 0x20, 0x28


def stapsdt_note(provider: str, name: str, arguments: str, address: int, base: int, semaphore: int,
                 elf_class: int = 64, byte_order: str = "<") -> bytes:
    word = "Q" if elf_class == 64 else "I"
    desc = struct.pack(byte_order + 3 * word, address, base, semaphore) + f"{provider}\0{name}\0{arguments}\0".encode()
    return struct.pack(byte_order + "III", 8, len(desc), 3) + b"stapsdt\0" + desc + b"\0" * (-len(desc) % 4)


def elf_file(notes=b"", note_section=".note.stapsdt", segments=((0, 0x400000, None, PF_R),),
             base_address=0x400100, *, elf_class: int = 64, byte_order: str = "<", machine: int = EM_X86_64,
             interpreter: Optional[str] = None, needed: Sequence[str] = (), rpath: Optional[str] = None,
             runpath: Optional[str] = None, symbols: Optional[Sequence[Tuple[str, int, int]]] = None,
             empty_sections: int = 0) -> bytes:
    """A shared object: `notes` in `note_section`, `.stapsdt.base` at `base_address`, and PT_LOAD
    `segments` (file offset, address, file size or None for the whole file, flags). With
    `interpreter`, a PT_INTERP segment and .interp; with `needed`, `rpath`, `runpath` or
    `symbols` (name, value, st_shndx each), .dynstr, .dynamic and .dynsym. `empty_sections`
    more, nameless: past SHN_LORESERVE in all, the count and the names' index are section 0's
    (sh_size, sh_link), as are 0xffff segments or more (sh_info)."""
    order = byte_order
    word = "Q" if elf_class == 64 else "I"
    header_size, segment_size, section_size = (64, 56, 64) if elf_class == 64 else (52, 32, 40)
    dynamic_wanted = bool(needed) or rpath is not None or runpath is not None or symbols is not None

    names = bytearray(b"\0")

    def name(text: str) -> int:
        names.extend(text.encode() + b"\0")
        return len(names) - len(text) - 1

    # (name, type, address, data or its size, link, alignment, entry size), in section order; the
    # data is placed later.
    sections = [(name(note_section), SHT_NOTE, 0, notes, 0, 4, 0),
                (name(".stapsdt.base"), SHT_PROGBITS, base_address, 1, 0, 1, 0)]
    interp = None if interpreter is None else interpreter.encode() + b"\0"
    if interp is not None:
        sections.append((name(".interp"), SHT_PROGBITS, 0, interp, 0, 1, 0))
    if dynamic_wanted:
        strings = bytearray(b"\0")

        def string(text: str) -> int:
            strings.extend(text.encode() + b"\0")
            return len(strings) - len(text) - 1
        tags = [(DT_NEEDED, string(library)) for library in needed]
        tags += [(DT_RPATH, string(rpath))] if rpath is not None else []
        tags += [(DT_RUNPATH, string(runpath))] if runpath is not None else []
        dynamic = b"".join(struct.pack(order + ("qQ" if elf_class == 64 else "iI"), *tag) for tag in tags + [(DT_NULL, 0)])
        # The null symbol, then each a global object (st_info 0x11).
        table = [(0, 0, 0, 0)] + [(string(symbol), value, index, 0x11) for symbol, value, index in symbols or ()]
        if elf_class == 64:
            dynsym = b"".join(struct.pack(order + "IBBHQQ", offset, info, 0, index, value, 0)
                              for offset, value, index, info in table)
        else:
            dynsym = b"".join(struct.pack(order + "IIIBBH", offset, value, 0, info, 0, index)
                              for offset, value, index, info in table)
        dynstr_index = len(sections) + 1
        sections += [(name(".dynstr"), SHT_STRTAB, 0, bytes(strings), 0, 1, 0),
                     (name(".dynamic"), SHT_DYNAMIC, 0, dynamic, dynstr_index, 8, len(dynamic) // (len(tags) + 1)),
                     (name(".dynsym"), SHT_DYNSYM, 0, dynsym, dynstr_index, 8, len(dynsym) // len(table))]
    sections += [(0, SHT_PROGBITS, 0, 0, 0, 1, 0)] * empty_sections
    names_name = name(".shstrtab")
    sections.append((names_name, SHT_STRTAB, 0, bytes(names), 0, 1, 0))

    program_headers = header_size
    segment_count = len(segments) + (interp is not None)
    data = bytearray(program_headers + segment_size * segment_count)
    placed = []
    for section_name, kind, address, contents, link, alignment, entry_size in sections:
        if isinstance(contents, int):      # a size, no bytes
            placed.append((section_name, kind, address, 0, contents, link, alignment, 0, entry_size))
            continue
        data += bytes(-len(data) % alignment)
        placed.append((section_name, kind, address, len(data), len(contents), link, alignment, 0, entry_size))
        data += contents
    sections_at = (len(data) + 7) // 8 * 8
    data += bytes(sections_at - len(data))
    section_count, names_index = 1 + len(placed), len(placed)
    size = sections_at + section_size * section_count

    def section(name_offset, kind, address, offset, length, link, alignment, info, entry_size):
        return struct.pack(order + ("IIQQQQIIQQ" if elf_class == 64 else "IIIIIIIIII"), name_offset, kind, 0, address,
                           offset, length, link, info, alignment, entry_size)
    zeroth = section(0, 0, 0, 0, section_count if section_count >= SHN_LORESERVE else 0,
                     names_index if names_index >= SHN_LORESERVE else 0, 0,
                     segment_count if segment_count >= PN_XNUM else 0, 0)
    data += zeroth + b"".join(section(*fields) for fields in placed)

    def segment(kind, flags, offset, address, length, alignment):
        if elf_class == 64:
            return struct.pack(order + "IIQQQQQQ", kind, flags, offset, address, address, length, length, alignment)
        return struct.pack(order + "IIIIIIII", kind, offset, address, address, length, length, flags, alignment)
    headers = []
    if interp is not None:
        _, _, _, interp_at, *_ = placed[2]
        headers.append(segment(PT_INTERP, PF_R, interp_at, 0, len(interp), 1))
    for offset, address, file_size, flags in segments:
        length = size - offset if file_size is None else file_size
        headers.append(segment(PT_LOAD, flags, offset, address, length, 0x1000))
    data[program_headers:program_headers + segment_size * segment_count] = b"".join(headers)

    identification = b"\x7fELF" + bytes([elf_class // 32, 1 if order == "<" else 2, 1]) + bytes(9)
    data[:header_size] = identification + struct.pack(
        order + "HHI" + 3 * word + "IHHHHHH", 3, machine, 1, 0, program_headers, sections_at, 0, header_size,
        segment_size, min(segment_count, PN_XNUM), section_size,
        section_count if section_count < SHN_LORESERVE else 0, names_index if names_index < SHN_LORESERVE else SHN_XINDEX)
    return bytes(data)


def section_header(data: bytes, index: int) -> int:
    """Where section `index`'s header is in an ELF64 little-endian file."""
    (table,) = struct.unpack_from("<Q", data, E_SHOFF)
    return table + 64 * index


def patched(data: bytes, offset: int, format: str, *values) -> bytes:
    """`data` with `values` written at `offset` (little-endian struct `format`)."""
    changed = bytearray(data)
    struct.pack_into("<" + format, changed, offset, *values)
    return bytes(changed)
