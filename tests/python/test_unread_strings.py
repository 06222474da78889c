"""Unit tests of usdttool.bpftrace.unread_strings: a hit line whose string bpftrace read as "" from a
pointer that is not NULL, printed with the string read by usdt, here from a read-only segment
of the probed file (tests/support/written_elf.py) after the process is gone."""

import tempfile
import unittest
from pathlib import Path

import tool_python
import usdt_testing
from written_elf import PF_R, PF_W, elf_file, stapsdt_note

tool_python.use_an_interpreter_with_pyelftools()
from usdtgen.notes import Kind  # noqa: E402
from usdtgen.tracer_probe import TracerArgument, TracerProbe  # noqa: E402
from usdttool.bpftrace import unread_strings  # noqa: E402
from usdttool.files import elf  # noqa: E402
from usdttool.bpftrace.unread_strings import MARKER  # noqa: E402

GONE = 2 ** 22 + 1           # no process has this id: its memory cannot be read
BIAS = 0x7f0000000000        # where the file is loaded in the process that was traced
SITE = 0x400010
TICK = TracerProbe("app", "tick", (TracerArgument(0, "n", "int", Kind.INTEGER, 4, True),
                                   TracerArgument(1, "s", "const char *", Kind.STRING, 8, False)))


class RewriteTest(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix="test_unread_strings.")
        self.addCleanup(scratch.cleanup)
        self.data = elf_file(stapsdt_note("app", "tick", "-4@%edi 8@%rsi", SITE, 0x400100, 0),
                             segments=((0, 0x400000, 0x200, PF_R), (0x200, 0x600200, None, PF_R | PF_W)))
        self.path = Path(scratch.name, "libapp.so")
        self.path.write_bytes(self.data)
        self.module = elf.read_module(str(self.path))
        self.unread = unread_strings.UnreadStrings([(self.module, [(TICK, "app.d")])])

    def marked(self, file_offset: int, hit_line: str, module: int = 0) -> str:
        """The program's marked line for a string at `file_offset` of the file, as loaded at BIAS."""
        return f"{MARKER} {module} 0x{BIAS + SITE:x} 0x{BIAS + 0x400000 + file_offset:x} {hit_line}"

    def test_a_string_of_a_read_only_segment_is_read_from_the_file(self):
        offset = self.data.index(b".shstrtab\0")      # the section names: in the first, read-only segment
        self.assertLess(offset, 0x200)
        line = self.unread.rewrite(self.marked(offset, f'5 pid={GONE} tid=1 app:tick n=-1 s=""\n'))
        self.assertEqual(line, f'5 pid={GONE} tid=1 app:tick n=-1 s=".shstrtab"\n')
        self.assertEqual(self.unread.read(GONE, 0, "app:tick", BIAS + SITE, BIAS + 0x400000 + offset), ".shstrtab")

    def test_a_string_in_a_writable_segment_keeps_what_bpftrace_read(self):
        hit_line = f'5 pid={GONE} tid=1 app:tick n=-1 s=""\n'
        self.assertEqual(self.unread.rewrite(self.marked(0x210, hit_line)), hit_line)

    def test_lines_that_are_not_marked_or_not_understood(self):
        for line in ("5 pid=1 tid=1 app:tick n=1 s=\"x\"\n", "Attaching 2 probes...\n"):
            self.assertEqual(self.unread.rewrite(line), line)
        hit_line = f'5 pid={GONE} tid=1 app:tick n=-1 s=""\n'
        self.assertEqual(self.unread.rewrite(self.marked(1, hit_line, module=7)), self.marked(1, hit_line, module=7))
        other = f'5 pid={GONE} tid=1 app:other s=""\n'
        self.assertEqual(self.unread.rewrite(self.marked(1, other)), other)
        self.assertEqual(self.unread.module_count, 1)


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
