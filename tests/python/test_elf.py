"""Unit tests of usdttool.files.elf, usdt's ELF reader: an ELF file's probes, segments, linkage and
dynamic symbols, in either class and byte order, of any machine and number of sections; and
damaged files, each said to be one in a line. The files are written byte by byte
(tests/support/written_elf.py), assembled or cross-compiled where the tools are installed, or
the machine's own libraries; where pyelftools is installed, it reads each file too and must
agree (tests/support/elftools_reading.py)."""

import glob
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import tool_python
import usdt_testing
from written_elf import (E_PHENTSIZE, E_PHNUM, E_PHOFF, E_SHENTSIZE, E_SHNUM, E_SHOFF, E_SHSTRNDX, EM_MIPS, NOTE_SECTION,
                         PF_R, PF_W, PN_XNUM, SH_LINK, SH_NAME, SH_OFFSET, SH_SIZE, SHN_XINDEX, elf_file, patched,
                         section_header, stapsdt_note)

tool_python.use_an_interpreter_with_pyelftools()
import elftools_reading  # noqa: E402
from usdttool.files import elf, libraries  # noqa: E402
from usdttool.errors import ToolError  # noqa: E402

# The uid and gid of nobody: root reads any file, so a child of the tests that must be refused
# becomes nobody.
NOBODY = 65534
DYNAMIC_LINKER = "/lib64/ld-linux-x86-64.so.2"
# A program's and the libraries' sections in the files that elf_file() writes with a dynamic section.
INTERP_SECTION, DYNSTR_SECTION, DYNAMIC_SECTION, DYNSYM_SECTION = 3, 4, 5, 6


class ElfTestCase(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix="test_elf.")
        self.addCleanup(scratch.cleanup)
        self.directory = Path(scratch.name)

    def write(self, data: bytes, name="libprobes.so") -> str:
        path = self.directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return str(path)

    def read_alike(self, path: str) -> elf.Module:
        """read_module()'s Module, after checking that pyelftools reads the same Module, Linkage and
        defined dynamic symbols, where it is installed."""
        module = elf.read_module(path)
        if elftools_reading.available:
            self.assertEqual(module, elftools_reading.module(path), path)
            self.assertEqual(elf.read_linkage(path), elftools_reading.linkage(path), path)
            for name, value in elftools_reading.defined_dynamic_symbols(path, first=20).items():
                self.assertEqual(elf.dynamic_symbol(path, name), value, (path, name))
        return module

    def require_pyelftools(self):
        if not elftools_reading.available:
            self.skipTest("pyelftools, the reader to compare with, is not installed (Debian: python3-pyelftools)")


class ModuleTest(ElfTestCase):
    def test_probes_sites_and_segments(self):
        notes = stapsdt_note("app", "tick", "-4@%edi", 0x400010, 0x400100, 0x401000)
        notes += stapsdt_note("app", "tick", "-4@%esi", 0x400020, 0x400100, 0x401000)
        path = self.write(elf_file(notes))
        module = self.read_alike(path)
        (probe,) = module.probes
        self.assertEqual((probe.provider, probe.name, probe.semaphore), ("app", "tick", 0x401000))
        self.assertEqual([site.address for site in probe.sites], [0x400010, 0x400020])
        self.assertEqual([argument.type_name for argument in probe.arguments], ["int32_t"])
        self.assertEqual((module.path, module.pointer_size, module.warnings), (path, 8, ()))
        (segment,) = module.segments
        self.assertEqual((segment.address, segment.offset, segment.writable), (0x400000, 0, False))

    def test_a_moved_file_s_sites_follow_its_stapsdt_base(self):
        path = self.write(elf_file(stapsdt_note("app", "tick", "", 0x1010, 0x1000, 0), base_address=0x400000))
        self.assertEqual(self.read_alike(path).probes[0].sites[0].address, 0x400010)

    def test_file_offsets_of_addresses(self):
        path = self.write(elf_file(segments=((0, 0x400000, 0x100, PF_R), (0x100, 0x600100, 0x80, PF_R | PF_W))))
        module = self.read_alike(path)
        self.assertEqual(module.file_offset(0x400010), 0x10)
        self.assertEqual(module.file_offset(0x600140), 0x140)
        self.assertIsNone(module.file_offset(0x600180))      # past the file part: not file-backed
        self.assertTrue(module.segment(0x600100).writable)

    def test_a_semaphore_on_a_page_an_earlier_writable_segment_maps(self):
        note = stapsdt_note("app", "tick", "", 0x400010, 0x400100, 0x600120)
        shared = self.write(elf_file(note, segments=((0, 0x400000, 0x100, PF_R | PF_W),
                                                     (0x100, 0x600100, 0x80, PF_R | PF_W))))
        self.assertEqual(self.read_alike(shared).warnings, (elf.SHARED_SEMAPHORE_PAGE,))
        apart = self.write(elf_file(note, segments=((0, 0x400000, 0x100, PF_R),
                                                    (0x100, 0x600100, 0x80, PF_R | PF_W))), "apart.so")
        self.assertEqual(self.read_alike(apart).warnings, ())

    def test_a_file_without_probes(self):
        path = self.write(elf_file(b"", note_section=".note.gnu.build-id"))
        self.assertEqual(self.read_alike(path).probes, ())
        self.assertFalse(elf.may_have_probes(path))
        self.assertTrue(elf.may_have_probes(self.write(elf_file(b""), "with_stapsdt.so")))

    def test_a_file_without_section_names(self):
        # e_shstrndx SHN_UNDEF: the note section is still one by its type.
        path = self.write(patched(elf_file(stapsdt_note("app", "tick", "", 0x400010, 0x400100, 0)), E_SHSTRNDX, "H", 0))
        self.assertEqual([probe.name for probe in self.read_alike(path).probes], ["tick"])
        self.assertTrue(elf.may_have_probes(path))

    def test_linkage_of_a_file_without_dynamic_section(self):
        path = self.write(elf_file())
        linkage = elf.read_linkage(path)
        self.assertEqual((linkage.elf_class, linkage.machine, linkage.needed, linkage.interpreter),
                         (64, "EM_X86_64", (), None))
        self.assertIsNone(elf.dynamic_symbol(path, "_r_debug"))
        self.read_alike(path)


class ClassAndByteOrderTest(ElfTestCase):
    def test_each_class_and_byte_order(self):
        for elf_class in (32, 64):
            for byte_order, order_name in (("<", "little-endian"), (">", "big-endian")):
                with self.subTest(elf_class=elf_class, byte_order=order_name):
                    note = stapsdt_note("app", "tick", "-4@$5", 0x400010, 0x400100, 0x401000, elf_class, byte_order)
                    path = self.write(elf_file(
                        note, elf_class=elf_class, byte_order=byte_order, machine=EM_MIPS, interpreter="/lib/ld.so.1",
                        needed=("libc.so.6", "libm.so.6"), rpath="/opt/a:/opt/b", runpath="$ORIGIN/lib",
                        symbols=(("_r_debug", 0x1234, 7), ("elsewhere", 0, 0))), f"lib{elf_class}{order_name}.so")
                    module = self.read_alike(path)
                    (probe,) = module.probes
                    self.assertEqual((probe.sites[0].address, probe.semaphore, module.pointer_size),
                                     (0x400010, 0x401000, elf_class // 8))
                    self.assertEqual(elf.read_linkage(path), elf.Linkage(
                        elf_class, "EM_MIPS", ("libc.so.6", "libm.so.6"), ("/opt/a", "/opt/b"), ("$ORIGIN/lib",),
                        "/lib/ld.so.1"))
                    self.assertEqual(elf.dynamic_symbol(path, "_r_debug"), 0x1234)
                    self.assertIsNone(elf.dynamic_symbol(path, "elsewhere"))    # another file's: undefined here
                    self.assertIsNone(elf.dynamic_symbol(path, "_r_debu"))

    def test_a_machine_usdt_does_not_know_is_named_by_its_number(self):
        path = self.write(elf_file(stapsdt_note("app", "tick", "", 0x400010, 0x400100, 0), machine=0x1234))
        self.assertEqual(elf.read_linkage(path).machine, "EM_4660")
        self.assertEqual(len(self.read_alike(path).probes), 1)

    def test_libraries_of_a_machine_usdt_does_not_know(self):
        # The same machine's library is loadable, another's is not, as for a machine it knows.
        program = self.write(elf_file(machine=0x1234, needed=("libother.so",), runpath="$ORIGIN/x86:$ORIGIN/same"),
                             "program")
        self.write(elf_file(), "x86/libother.so")
        same = self.write(elf_file(machine=0x1234), "same/libother.so")
        self.assertEqual(libraries.shared_libraries(program), libraries.Libraries((same,), ()))

    def test_cross_compiled_files(self):
        # Every cross compiler here, and the two 32-bit big-endian ones a little-endian compiler
        # makes; the notes are written in assembly, as sys/sdt.h's would be.
        compilers = [(Path(compiler).name[:-len("-gcc")], [compiler])
                     for compiler in sorted(glob.glob("/usr/bin/*-linux-gnu*-gcc"))]
        compilers += [(name, [compiler, flag]) for name, compiler, flag in (
            ("mips-linux-gnu", "/usr/bin/mipsel-linux-gnu-gcc", "-EB"),
            ("armeb-linux-gnueabi", "/usr/bin/arm-linux-gnueabi-gcc", "-mbig-endian")) if os.access(compiler, os.X_OK)]
        if not compilers:
            self.skipTest("no cross compiler (Debian: gcc-TRIPLE, tests/install-dependencies.sh tests)")
        source = self.directory / "probe.c"
        source.write_text(CROSS_SOURCE)
        for name, command in compilers:
            with self.subTest(target=name):
                library = self.directory / f"lib{name}.so"
                subprocess.run([*command, "-O1", "-shared", "-fPIC", "-nostdlib", "-o", library, source],
                               check=True, timeout=120)
                module = self.read_alike(str(library))
                self.assertEqual([(probe.provider, probe.name, probe.sites[0].address, probe.semaphore)
                                  for probe in module.probes], [("app", "tick", 0x1234, 0x5678)])
                self.assertIsNotNone(elf.dynamic_symbol(str(library), "tick"))


# A function, a variable and a stapsdt note with address-sized words (.dc.a) for any target.
CROSS_SOURCE = r"""
int counter;
int tick(int n) { return n + counter; }
__asm__(".pushsection .note.stapsdt,\"\",%note\n"
        ".balign 4\n"
        ".4byte 2f-1f, 4f-3f, 3\n"
        "1: .asciz \"stapsdt\"\n"
        "2: .balign 4\n"
        "3: .dc.a 0x1234, 0, 0x5678\n"
        ".asciz \"app\"\n.asciz \"tick\"\n.asciz \"-4@0\"\n"
        "4: .balign 4\n"
        ".popsection\n");
"""


class ManySectionsTest(ElfTestCase):
    def test_a_section_count_and_names_index_past_the_header_s_fields(self):
        # 0xff00 empty sections besides the others: e_shnum 0 and e_shstrndx SHN_XINDEX, the
        # count and the index in section 0.
        path = self.write(elf_file(stapsdt_note("app", "tick", "", 0x400010, 0x400100, 0), empty_sections=0xFF00,
                                   needed=("libc.so.6",)))
        self.assertEqual(fields(Path(path).read_bytes(), E_SHNUM, "HH"), (0, SHN_XINDEX))
        module = elf.read_module(path)
        self.assertEqual(len(module.probes), 1)
        self.assertEqual(elf.read_linkage(path).needed, ("libc.so.6",))
        if elftools_reading.available:   # the module alone: pyelftools takes a second over each reading
            self.assertEqual(module, elftools_reading.module(path))

    def test_a_segment_count_past_the_header_s_field(self):
        # 0xffff segments: e_phnum PN_XNUM, the count in section 0. (Not compared with pyelftools,
        # which takes seconds over them.)
        path = self.write(elf_file(segments=[(0, 0x400000, None, PF_R)] * 0xFFFF, interpreter="/lib/ld.so"))
        self.assertEqual(fields(Path(path).read_bytes(), E_PHNUM, "H"), (PN_XNUM,))
        self.assertEqual(len(elf.read_module(path).segments), 0xFFFF)
        self.assertEqual(elf.read_linkage(path).interpreter, "/lib/ld.so")

    def test_an_object_of_many_sections_from_the_assembler(self):
        # As -ffunction-sections makes them, in big programs.
        if shutil.which("as") is None:
            self.skipTest("no assembler (Debian: binutils)")
        source = self.directory / "many.s"
        source.write_text(MANY_SECTIONS_SOURCE)
        subprocess.run(["as", "-o", self.directory / "many.o", source], check=True, timeout=120)
        path = str(self.directory / "many.o")
        self.assertEqual(fields(Path(path).read_bytes(), E_SHNUM, "HH"), (0, SHN_XINDEX))
        module = elf.read_module(path)
        self.assertEqual([(probe.name, probe.sites[0].address) for probe in module.probes], [("tick", 0x1234)])
        if elftools_reading.available:
            self.assertEqual(module, elftools_reading.module(path))


MANY_SECTIONS_SOURCE = r"""
.altmacro
.macro function_section number
.section .text.f\number,"ax",@progbits
.byte 0
.endm
.set index, 0
.rept 65300
function_section %index
.set index, index + 1
.endr
.section .note.stapsdt,"",@note
.balign 4
.4byte 2f-1f, 4f-3f, 3
1: .asciz "stapsdt"
2: .balign 4
3: .8byte 0x1234, 0, 0
.asciz "app"
.asciz "tick"
.asciz ""
4: .balign 4
"""


class RealFilesTest(ElfTestCase):
    def test_the_dynamic_linker_s_symbols(self):
        self.require_pyelftools()
        if not os.path.exists(DYNAMIC_LINKER):
            self.skipTest(f"no {DYNAMIC_LINKER} (not an x86-64 machine)")
        symbols = elftools_reading.defined_dynamic_symbols(DYNAMIC_LINKER)
        self.assertIn("_r_debug", symbols)
        for name, value in symbols.items():
            self.assertEqual(elf.dynamic_symbol(DYNAMIC_LINKER, name), value, name)
        self.assertIsNone(elf.dynamic_symbol(DYNAMIC_LINKER, "no_such_symbol"))

    def test_the_machine_s_libraries_and_programs(self):
        # Python's libraries, and a sample of the machine's, read alike.
        self.require_pyelftools()
        paths = [sys.executable, *libraries.shared_libraries(sys.executable).paths]
        shared = sorted(set(glob.glob("/usr/lib/*-linux-gnu*/*.so*") + glob.glob("/usr/*-linux-gnu*/lib/*.so*")))
        paths += shared[::max(1, len(shared) // 60)]
        read = 0
        for path in dict.fromkeys(paths):
            if os.path.isfile(path) and _is_elf(path):
                with self.subTest(path=path):
                    self.read_alike(path)
                    read += 1
        self.assertGreater(read, 20)


def _is_elf(path: str) -> bool:
    with open(path, "rb") as file:
        return file.read(4) == b"\x7fELF"


class FileErrorTest(ElfTestCase):
    def assertToolError(self, path, message, error=ToolError, read=elf.read_module):
        with self.assertRaises(error) as caught:
            read(path)
        self.assertEqual(str(caught.exception), message)

    def test_what_cannot_be_read(self):
        missing = str(self.directory / "missing")
        self.assertToolError(missing, f"{missing}: no such file")
        self.assertToolError(str(self.directory), f"{self.directory}: is a directory")
        self.assertToolError(self.write(b"#!/bin/sh\n", "script"), f"{self.directory}/script: not an ELF file",
                             elf.NotELFError)
        self.assertToolError(self.write(b"", "empty"), f"{self.directory}/empty: not an ELF file", elf.NotELFError)

    def test_permission_denied(self):
        path = self.write(elf_file(), "private.so")
        os.chmod(path, 0)
        if os.geteuid() != 0:
            self.assertToolError(path, f"{path}: permission denied")
            return
        # Root reads any file: a child that has given root up tries.
        child = os.fork()
        if child == 0:
            try:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                self.assertToolError(path, f"{path}: permission denied")
            except BaseException as error:
                sys.stderr.write(f"as uid {NOBODY}: {error!r}\n")
                os._exit(1)
            os._exit(0)
        _, status = os.waitpid(child, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)

    def test_each_kind_of_damage_is_said_in_a_line(self):
        good = elf_file(stapsdt_note("app", "tick", "", 0x400010, 0x400100, 0), interpreter="/lib/ld.so",
                        needed=("libc.so.6",), symbols=(("_r_debug", 0x10, 7),))
        notes = section_header(good, NOTE_SECTION)
        (names_index,) = fields(good, E_SHSTRNDX, "H")
        names = section_header(good, names_index)
        dynamic, dynsym = section_header(good, DYNAMIC_SECTION), section_header(good, DYNSYM_SECTION)
        (note_size,) = fields(good, notes + SH_SIZE, "Q")
        (segments,) = fields(good, E_PHOFF, "Q")
        interp = segments + 8      # PT_INTERP's p_offset: the first program header's
        (dynstr,) = fields(good, section_header(good, DYNSTR_SECTION) + SH_SIZE, "Q")
        needed_at = fields(good, dynamic + SH_OFFSET, "Q")[0] + 8   # the first entry, DT_NEEDED: its d_val
        (symbol_at,) = fields(good, dynsym + SH_OFFSET, "Q")
        cases = [
            ("the ELF header runs past the end of the file", good[:40], elf.read_module),
            ("EI_CLASS is 3, neither ELFCLASS32 nor ELFCLASS64", patched(good, 4, "B", 3), elf.read_module),
            ("EI_DATA is 0, neither ELFDATA2LSB nor ELFDATA2MSB", patched(good, 5, "B", 0), elf.read_module),
            ("the section header table runs past the end of the file", patched(good, E_SHOFF, "Q", len(good)),
             elf.read_module),
            ("the section header table runs past the end of the file", good[:-10], elf.read_module),
            ("the section header table runs past the end of the file",      # e_shnum 0: section 0 has the count
             patched(patched(good, E_SHNUM, "H", 0), section_header(good, 0) + SH_SIZE, "Q", 1000), elf.read_module),
            ("section header entries of 40 bytes, fewer than the 64 of one", patched(good, E_SHENTSIZE, "H", 40),
             elf.read_module),
            ("the program header table runs past the end of the file", patched(good, E_PHOFF, "Q", len(good) - 8),
             elf.read_module),
            ("program header entries of 32 bytes, fewer than the 56 of one", patched(good, E_PHENTSIZE, "H", 32),
             elf.read_linkage),
            (f"the section names are in section 99, past the last, {names_index}",
             patched(good, E_SHSTRNDX, "H", 99), elf.read_module),
            (f"section {names_index} (the section names) runs past the end of the file",
             patched(good, names + SH_OFFSET, "Q", len(good)), elf.read_module),
            ("the name of section 1, at offset 4096, runs past the end of the section names",
             patched(good, notes + SH_NAME, "I", 4096), elf.read_module),
            ("section 1 (.note.stapsdt) runs past the end of the file",
             patched(good, notes + SH_SIZE, "Q", len(good)), elf.read_module),
            ("section 1 (.note.stapsdt): the note at offset 0 runs past the end of the section",
             patched(good, notes + SH_SIZE, "Q", note_size - 4), elf.read_module),
            ("section 1 (.note.stapsdt): the header of the note at offset 0 runs past the end of the section",
             patched(good, notes + SH_SIZE, "Q", 8), elf.read_module),
            ("the PT_INTERP segment runs past the end of the file",
             patched(good, interp, "Q", len(good) - 4), elf.read_linkage),
            (f"section {DYNAMIC_SECTION} (.dynamic) links to section 99, past the last, {names_index}",
             patched(good, dynamic + SH_LINK, "I", 99), elf.read_linkage),
            (f"a DT_NEEDED string of section {DYNAMIC_SECTION} (.dynamic), at offset {dynstr}, runs past the end "
             f"of its string table", patched(good, needed_at, "Q", dynstr), elf.read_linkage),
            (f"section {DYNSYM_SECTION} (.dynsym) links to section 99, past the last, {names_index}",
             patched(good, dynsym + SH_LINK, "I", 99), lambda path: elf.dynamic_symbol(path, "_r_debug")),
            (f"a symbol of section {DYNSYM_SECTION} (.dynsym) has its name at offset 4096, past the end of its "
             f"string table", patched(good, symbol_at + 24, "I", 4096), lambda path: elf.dynamic_symbol(path, "x")),
        ]
        self.assertEqual(fields(good, interp, "Q"), fields(good, section_header(good, INTERP_SECTION) + SH_OFFSET, "Q"))
        for number, (what, damaged, read) in enumerate(cases):
            with self.subTest(what):
                path = self.write(damaged, f"damaged{number}.so")
                self.assertToolError(path, f"{path}: malformed ELF file ({what})", read=read)
                self.assertTrue(elf.may_have_probes(path))   # unsure: read_module() decides
        self.read_alike(self.write(good))

    def test_mutated_files_are_read_or_said_to_be_damaged(self):
        # Seeded: bytes of the headers and tables overwritten, fields set to edge values, files
        # cut short. Each read gives what it reads or a one-line ToolError, never another error.
        originals = [elf_file(stapsdt_note("app", "tick", "-4@%edi", 0x400010, 0x400100, 0x401000),
                              interpreter="/lib/ld.so", needed=("libc.so.6",), runpath="$ORIGIN",
                              symbols=(("_r_debug", 0x10, 7),)),
                     elf_file(stapsdt_note("app", "tick", "", 0x10, 0x100, 0, 32, ">"), elf_class=32, byte_order=">",
                              machine=EM_MIPS, needed=("libc.so.6",), symbols=(("_r_debug", 0x10, 7),))]
        rng = random.Random(33)
        said = re.compile(r"(malformed ELF file \(.+\)|not an ELF file)")
        for number in range(600):
            original = rng.choice(originals)
            data = bytearray(original)
            for _ in range(rng.choice((1, 1, 2, 3, 8))):
                at = rng.randrange(len(data))
                if rng.random() < 0.5:
                    data[at] = rng.randrange(256)
                else:
                    width = rng.choice((1, 2, 4, 8))
                    value = rng.choice((0, 1, 0xFF, 0xFFFF, 0xFFFFFFFF, 2 ** (8 * width) - 1, rng.randrange(len(data))))
                    data[at:at + width] = (value % 2 ** (8 * width)).to_bytes(width, "little")
            if rng.random() < 0.1:
                data = data[:rng.randrange(len(data))]
            path = self.write(bytes(data), "mutated.so")
            for read in (elf.read_module, elf.read_linkage, lambda path: elf.dynamic_symbol(path, "_r_debug"),
                         elf.may_have_probes):
                try:
                    read(path)
                except ToolError as error:
                    message = str(error)
                    self.assertTrue(message.startswith(f"{path}: ") and said.fullmatch(message[len(path) + 2:])
                                    and "\n" not in message, (number, message, bytes(data).hex()))
                except Exception as error:
                    self.fail(f"mutant {number}: {read} raised {error!r}; the file: {bytes(data).hex()}")
            elf._read_linkage.cache_clear()


def fields(data: bytes, offset: int, format: str) -> tuple:
    """The fields at `offset` of an ELF64 little-endian file's `data` (struct `format`)."""
    return struct.unpack_from("<" + format, data, offset)


class SegmentTest(unittest.TestCase):
    def test_the_file_pages_a_loader_maps(self):
        self.assertEqual(elf.LoadSegment(0x1000, 0x0, 0x1000).file_pages(4096), range(0, 1))
        self.assertEqual(elf.LoadSegment(0x2ff0, 0xff0, 0x20).file_pages(4096), range(0, 2))
        self.assertEqual(elf.LoadSegment(0x3000, 0x3000, 0).file_pages(4096), range(0))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
