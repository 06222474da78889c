"""Unit tests of usdttool.files.probe_notes: what a file's probe notes say. The notes are written here,
byte by byte, as sys/sdt.h and usdt's header lay them out (docs/internals.md, "Sections")."""

import struct
import unittest

import usdt_testing

from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument, TracerProbe
from usdttool.files import probe_notes
from usdttool.files.probe_notes import ArgumentSpec, Site


def note(owner: str, note_type: int, desc: bytes, alignment: int = 4) -> bytes:
    """A note that starts at a multiple of `alignment`: its desc and the next note do too."""
    def padded(data: bytes) -> bytes:
        return data + b"\0" * (-len(data) % alignment)
    name = owner.encode() + b"\0"
    return padded(struct.pack("<III", len(name), len(desc), note_type) + name) + padded(desc)


def stapsdt(provider, name, arguments, address=0x1000, base=0, semaphore=0, word="Q") -> bytes:
    desc = struct.pack("<" + 3 * word, address, base, semaphore) + b"\0".join(
        text.encode() for text in (provider, name, arguments)) + b"\0"
    return note("stapsdt", 3, desc)


def usdt_record(*strings, note_type=4) -> bytes:
    return note("usdt", note_type, b"\0".join(text.encode() for text in strings) + b"\0")


def read(*notes, base=None, elf_class=64):
    section = b"".join(notes)
    return probe_notes.probes(probe_notes.note_entries(section, 4, "<"), "<", elf_class, base)


class ArgumentSpecTest(unittest.TestCase):
    def test_an_argument_string(self):
        self.assertEqual(probe_notes.parse_arguments("-4@%edi 8@-8(%rbp) 8@[sp, 40]"), (
            ArgumentSpec("-4@%edi", 4, True, "%edi"), ArgumentSpec("8@-8(%rbp)", 8, False, "-8(%rbp)"),
            ArgumentSpec("8@[sp, 40]", 8, False, "[sp, 40]")))
        self.assertEqual(probe_notes.parse_arguments("  "), ())

    def test_text_that_is_not_specs_is_kept_whole(self):
        (spec,) = probe_notes.parse_arguments("not a spec")
        self.assertEqual((spec.size, spec.signed, spec.operand, spec.type_name), (0, False, "not a spec", "unknown"))

    def test_what_each_spec_says(self):
        described = [spec.description for spec in probe_notes.parse_arguments(
            "-4@%edi 4@$5 8@-8(%rbp) 2@x1 8f@%xmm0 -8@-3")]
        self.assertEqual(described, ["int32_t in %edi", "uint32_t constant 5", "uint64_t at -8(%rbp)",
                                     "uint16_t in x1", "double in %xmm0", "int64_t constant -3"])


class ProbesTest(unittest.TestCase):
    def test_sites_by_probe_sorted_with_arguments_from_the_notes(self):
        probes, warnings = read(stapsdt("b", "y", "", address=0x30),
                                stapsdt("a", "x", "-4@%edi 8@%rax", address=0x20, semaphore=0x9000),
                                stapsdt("a", "x", "-4@%esi 8@%rdx", address=0x10, semaphore=0x9000))
        self.assertEqual(warnings, [])
        self.assertEqual([(probe.provider, probe.name) for probe in probes], [("a", "x"), ("b", "y")])
        x = probes[0]
        self.assertEqual([site.address for site in x.sites], [0x10, 0x20])
        self.assertEqual((x.semaphore, x.source_name), (0x9000, None))
        self.assertEqual(x.arguments, (TracerArgument(0, "arg0", "int32_t", Kind.INTEGER, 4, True),
                                       TracerArgument(1, "arg1", "uint64_t", Kind.INTEGER, 8, False)))
        self.assertEqual(x.signature, "a:x(int32_t arg0, uint64_t arg1)")
        self.assertEqual(x.traced, TracerProbe("a", "x", x.arguments))

    def test_a_moved_file_takes_its_stapsdt_base(self):
        (probe,), _ = read(stapsdt("a", "x", "", address=0x1010, base=0x1000), base=0x5000)
        self.assertEqual(probe.sites, (Site(0x5010, 0, (), note_base=0x1000),))
        (probe,), _ = read(stapsdt("a", "x", "", address=0x1010, base=0x1000), base=None)
        self.assertEqual(probe.sites[0].address, 0x1010)

    def test_32_bit_notes(self):
        (probe,), _ = read(stapsdt("a", "x", "-4@%eax", address=0x400, semaphore=0x800, word="I"), elf_class=32)
        self.assertEqual((probe.sites[0].address, probe.semaphore), (0x400, 0x800))

    def test_usdts_record_names_the_arguments_as_declared(self):
        (probe,), warnings = read(stapsdt("a", "x", "8@%rdi -4@%esi 8@%rdx 1@%cl"),
                                  usdt_record("a", "x", "app.d", "class", "uint64_t", "integer", "n", "int",
                                              "integer", "key", "const char *", "string", "hit", "bool", "bool"))
        self.assertEqual(warnings, [])
        self.assertEqual(probe.source_name, "app.d")
        self.assertEqual(probe.arguments, (
            TracerArgument(0, "class", "uint64_t", Kind.INTEGER, 8, False),
            TracerArgument(1, "n", "int", Kind.INTEGER, 4, True),
            TracerArgument(2, "key", "const char *", Kind.STRING, 8, False),
            TracerArgument(3, "hit", "bool", Kind.BOOLEAN, 1, False)))
        # Records of type 3 (headers of ABI 6 and before) read alike.
        (old,), _ = read(stapsdt("a", "x", "8@%rdi"), usdt_record("a", "x", "app.d", "id", "uint64_t", "integer",
                                                                   note_type=3))
        self.assertEqual(old.arguments[0].name, "id")

    def test_records_set_aside_with_the_reason(self):
        notes = stapsdt("a", "x", "8@%rdi")
        cases = {
            "its .note.usdt records disagree": [usdt_record("a", "x", "app.d", "id", "uint64_t", "integer"),
                                                usdt_record("a", "x", "app.d", "n", "uint64_t", "integer")],
            "its .note.usdt record has 2 arguments and its stapsdt notes 1": [
                usdt_record("a", "x", "app.d", "id", "uint64_t", "integer", "n", "int", "integer")],
            "its .note.usdt record has 0 arguments and its stapsdt notes 1": [usdt_record("a", "x", "app.d")],
            "its .note.usdt record is malformed": [usdt_record("a", "x", "app.d", "id", "uint64_t", "float")],
        }
        for problem, records in cases.items():
            with self.subTest(problem=problem):
                (probe,), warnings = read(notes, *records)
                self.assertEqual(warnings, [f"a:x: {problem}; argument names and types from the stapsdt notes"])
                self.assertEqual((probe.arguments[0].name, probe.source_name), ("arg0", None))
        _, warnings = read(notes, usdt_record("a", "x"))
        self.assertEqual(warnings, ["a malformed .note.usdt record was ignored"])

    def test_other_notes_are_skipped(self):
        probes, warnings = read(note("GNU", 3, b"\x01\x02\x03\x04"), note("stapsdt", 1, b"old"),
                                stapsdt("a", "x", ""))
        self.assertEqual(([(probe.provider, probe.name) for probe in probes], warnings), ([("a", "x")], []))

    def test_a_note_past_the_end_of_its_section_is_a_damaged_file(self):
        # elf.py names the file and section (test_elf.py).
        for section, offset, what in ((stapsdt("a", "x", "") + stapsdt("b", "y", "")[:-6], 52, "note"),
                                      (stapsdt("a", "x", "") + b"\0" * 8, 52, "header of the note")):
            with self.subTest(what):
                with self.assertRaises(probe_notes.MalformedNote) as caught:
                    list(probe_notes.note_entries(section, 4, "<"))
                self.assertEqual(str(caught.exception), f"the {what} at offset {offset} runs past the end of the section")

    def test_eight_byte_aligned_note_sections(self):
        # A desc and the next note start 8-byte aligned from the section's start, as a 64-bit
        # .note.gnu.property's do: here 4 bytes after a 12-byte header and an 8-byte name.
        desc = struct.pack("<QQQ", 0x10, 0, 0) + b"a\0x\0\0"
        section = note("GNU", 5, b"\1" * 16, alignment=8) + note("stapsdt", 3, desc, alignment=8)
        self.assertEqual(section[52:56], b"\0" * 4)
        self.assertEqual(list(probe_notes.note_entries(section, 8, "<")), [("stapsdt", desc)])


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
