"""Unit tests of usdttool.bpftrace.unread_strings: a string of a hit's record that bpftrace read as ""
from a pointer that is not NULL, read by usdt, here from a read-only segment of the probed file
(tests/support/written_elf.py) after the process is gone."""

import tempfile
import unittest
from pathlib import Path

import usdt_testing
from written_elf import PF_R, PF_W, elf_file, stapsdt_note

from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument, TracerProbe
from usdttool.bpftrace import unread_strings
from usdttool.files import elf

GONE = 2 ** 22 + 1           # no process has this id: its memory cannot be read
BIAS = 0x7f0000000000        # where the file is loaded in the process that was traced
SITE = 0x400010
TICK = TracerProbe("app", "tick", (TracerArgument(0, "n", "int", Kind.INTEGER, 4, True),
                                   TracerArgument(1, "s", "const char *", Kind.STRING, 8, False)))


class ReadTest(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix="test_unread_strings.")
        self.addCleanup(scratch.cleanup)
        self.data = elf_file(stapsdt_note("app", "tick", "-4@%edi 8@%rsi", SITE, 0x400100, 0),
                             segments=((0, 0x400000, 0x200, PF_R), (0x200, 0x600200, None, PF_R | PF_W)))
        self.path = Path(scratch.name, "libapp.so")
        self.path.write_bytes(self.data)
        self.module = elf.read_module(str(self.path))
        self.unread = unread_strings.UnreadStrings([(self.module, [(TICK, "app.d")])])

    def read(self, file_offset: int, module: int = 0, probe: str = "app:tick") -> object:
        """What usdt reads for a string at `file_offset` of the file, as loaded at BIAS."""
        return self.unread.read(GONE, module, probe, BIAS + SITE, BIAS + 0x400000 + file_offset)

    def test_a_string_of_a_read_only_segment_is_read_from_the_file(self):
        offset = self.data.index(b".shstrtab\0")      # the section names: in the first, read-only segment
        self.assertLess(offset, 0x200)
        self.assertEqual(self.read(offset), b".shstrtab")

    def test_a_string_in_a_writable_segment_keeps_what_bpftrace_read(self):
        self.assertEqual(self.read(0x210), b"")

    def test_modules_and_probes_it_does_not_know(self):
        self.assertEqual(self.read(1, module=7), b"")
        self.assertEqual(self.read(1, probe="app:other"), b"")
        self.assertEqual(self.unread.module_count, 1)


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
