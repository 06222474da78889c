"""ELF files written byte by byte for usdttool's unit tests: a little-endian x86-64 shared
object with PT_LOAD segments, a note section of stapsdt notes, `.stapsdt.base` and the section
names; nothing else, so that a test says all a reader is given."""

import struct

PT_LOAD, PF_R, PF_W = 1, 4, 2
SHT_PROGBITS, SHT_STRTAB, SHT_NOTE = 1, 3, 7


def stapsdt_note(provider: str, name: str, arguments: str, address: int, base: int, semaphore: int) -> bytes:
    desc = struct.pack("<QQQ", address, base, semaphore) + f"{provider}\0{name}\0{arguments}\0".encode()
    return struct.pack("<III", 8, len(desc), 3) + b"stapsdt\0" + desc + b"\0" * (-len(desc) % 4)


def elf_file(notes=b"", note_section=".note.stapsdt", segments=((0, 0x400000, None, PF_R),),
             base_address=0x400100) -> bytes:
    """A little-endian x86-64 shared object: `notes` in `note_section`, `.stapsdt.base` at
    `base_address`, and PT_LOAD `segments` (file offset, address, file size or None for the
    whole file, flags)."""
    names = b"\0" + note_section.encode() + b"\0.stapsdt.base\0.shstrtab\0"
    note_name, base_name, strtab_name = 1, 2 + len(note_section), 2 + len(note_section) + len(".stapsdt.base") + 1
    program_headers = 64
    notes_at = program_headers + 56 * len(segments)
    names_at = notes_at + len(notes)
    sections_at = (names_at + len(names) + 7) // 8 * 8
    size = sections_at + 64 * 4

    def section(name, kind, address, offset, length, alignment):
        return struct.pack("<IIQQQQIIQQ", name, kind, 0, address, offset, length, 0, 0, alignment, 0)
    header = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9) + struct.pack(
        "<HHIQQQIHHHHHH", 3, 62, 1, 0, program_headers, sections_at, 0, 64, 56, len(segments), 64, 4, 3)
    data = bytearray(header)
    for offset, address, file_size, flags in segments:
        length = size - offset if file_size is None else file_size
        data += struct.pack("<IIQQQQQQ", PT_LOAD, flags, offset, address, address, length, length, 0x1000)
    data += notes + names
    data += bytes(sections_at - len(data))
    data += section(0, 0, 0, 0, 0, 0) + section(note_name, SHT_NOTE, 0, notes_at, len(notes), 4)
    data += section(base_name, SHT_PROGBITS, base_address, 0, 1, 1)
    data += section(strtab_name, SHT_STRTAB, 0, names_at, len(names), 1)
    return bytes(data)
