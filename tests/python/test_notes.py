"""Unit tests of usdtgen.notes: the note vocabulary the generator writes and usdt reads back
(argument kinds as .note.usdt spells them, argument specs, the type of each spec)."""

import unittest

import usdt_testing
from usdtgen import notes
from usdtgen.notes import Kind


class KindTest(unittest.TestCase):
    def test_the_note_spells_each_kind_as_docs_internals_says(self):
        # A file format: these words are in every binary built so far, and usdt list --json prints them.
        self.assertEqual({kind: kind.note_spelling for kind in Kind},
                         {Kind.INTEGER: "integer", Kind.BOOLEAN: "bool", Kind.STRING: "string",
                          Kind.POINTER: "pointer"})

    def test_each_spelling_reads_back_as_its_kind(self):
        for kind in Kind:
            self.assertIs(Kind.from_note_spelling(kind.note_spelling), kind)

    def test_an_unknown_spelling_is_no_kind(self):
        for spelling in ("", "INTEGER", "int", "float", "boolean"):
            self.assertIsNone(Kind.from_note_spelling(spelling), spelling)


class SpecTest(unittest.TestCase):
    def test_size_and_sign_before_the_at(self):
        self.assertEqual(notes.spec_size(4, True), "-4")
        self.assertEqual(notes.spec_size(8, False), "8")
        self.assertEqual(notes.spec_size(1, True), "-1")

    def test_a_spec_read_back(self):
        self.assertEqual(notes.parse_spec("-4@%edi"), (4, True, False, "%edi"))
        self.assertEqual(notes.parse_spec("8@-8(%rbp)"), (8, False, False, "-8(%rbp)"))
        self.assertEqual(notes.parse_spec("8f@%xmm0"), (8, False, True, "%xmm0"))
        self.assertEqual(notes.parse_spec("-2@[sp, 40]"), (2, True, False, "[sp, 40]"))

    def test_what_is_not_a_spec(self):
        for text in ("", "%edi", "4%edi", "@%edi", "-@%edi", "4 @%edi"):
            self.assertIsNone(notes.parse_spec(text), text)

    def test_written_and_read_back_agree(self):
        for size in (1, 2, 4, 8):
            for signed in (False, True):
                self.assertEqual(notes.parse_spec(f"{notes.spec_size(size, signed)}@%rax"),
                                 (size, signed, False, "%rax"))

    def test_an_argument_string_splits_before_each_spec(self):
        self.assertEqual(notes.split_specs("-4@%edi 8@%rax"), ["-4@%edi", "8@%rax"])
        # aarch64's operands hold spaces.
        self.assertEqual(notes.split_specs("8@[sp, 40] -4@x0  1@[x1, -8]"), ["8@[sp, 40]", "-4@x0", "1@[x1, -8]"])
        self.assertEqual(notes.split_specs("  8@%rdi  "), ["8@%rdi"])
        self.assertEqual(notes.split_specs(""), [])

    def test_an_argument_string_that_is_not_specs_alone(self):
        for text in ("%edi", "garbage 8@%rax", "x 4@%rbx"):
            self.assertIsNone(notes.split_specs(text), text)


class ValueTypeTest(unittest.TestCase):
    def test_integers_by_size_and_sign(self):
        self.assertEqual([notes.value_type_name(size, True) for size in (1, 2, 4, 8)],
                         ["int8_t", "int16_t", "int32_t", "int64_t"])
        self.assertEqual([notes.value_type_name(size, False) for size in (1, 2, 4, 8)],
                         ["uint8_t", "uint16_t", "uint32_t", "uint64_t"])

    def test_floating_point_and_odd_sizes(self):
        self.assertEqual(notes.value_type_name(8, False, floating=True), "double")
        self.assertEqual(notes.value_type_name(4, True, floating=True), "float")
        self.assertEqual(notes.value_type_name(16, False, floating=True), "16-byte float")
        self.assertEqual(notes.value_type_name(3, False), "3-byte value")
        self.assertEqual(notes.value_type_name(0, False), "unknown")

    def test_the_generator_takes_the_same_names(self):
        # types.py names the fixed-width integers by this table: a .d file's uint32_t is what
        # usdt list calls a 4-byte unsigned spec.
        from usdtgen import types
        for (size, signed), name in notes.INTEGER_TYPE_NAMES.items():
            self.assertEqual(types.NAMED_INTEGERS[name], (size, signed))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
