"""What `usdt trace` makes of what it reads, in the interpreter usdt runs in and without a
tracer: ELF files read quickly (FastElfReadingTest), bpftrace's lines before and after it
attached (EarlyHitsTest), the lines of two bpftraces interleaved (SeveralTracersTest), and
strings bpftrace read as "" read again from the process or the file (UnreadStringsTest).
tool.trace_script runs them through test_trace.py; trace_support.py holds what the tests of
usdt trace share.
"""

import ctypes
import json
import os
import re
import subprocess
import sys
import unittest
from pathlib import Path
from typing import List

import elf_notes
import launcher
import usdt_testing
from trace_support import OPTIONS, PROGRAM_NAMES, PROGRAMS, parse_arguments


class FastElfReadingTest(unittest.TestCase):
    """What usdt reads with struct rather than pyelftools, which takes a good part of its
    start-up: elf.may_have_probes() says False only for files without probes (libc, libm...),
    and a file's linkage and probes are pyelftools's own, on every program here and the
    libraries they load. (Under the interpreter usdt runs in, which has pyelftools.)"""

    SCRIPT = """
import sys
import tempfile
from usdttool.files import elf, libraries
paths = sys.argv[1:] + [library for path in sys.argv[1:] for library in libraries.shared_libraries(path).paths]
for path in sorted(set(paths)):
    with open(path, "rb") as file:
        fast = elf._fast_linkage(file)
    with elf._elf_file(path) as file:
        assert fast == elf._linkage(file), (path, fast)
    with open(path, "rb") as file:
        fast = elf._fast_module(path, file)
    with elf._elf_file(path) as file:
        assert fast == elf._module(path, file), (path, fast)
    print(path, elf.may_have_probes(path), bool(elf.read_module(path).probes))
"""

    def test_false_only_without_probes(self):
        interpreter = launcher.INTERPRETER or [sys.executable]
        files = [PROGRAMS[name] for name in PROGRAM_NAMES if PROGRAMS.get(name)]
        result = subprocess.run([*interpreter, "-c", self.SCRIPT, *files], capture_output=True, text=True, timeout=60,
                                env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        verdicts = [line.rsplit(" ", 2) for line in result.stdout.splitlines()]
        self.assertIn("False", {filtered for _, filtered, _ in verdicts}, "no file was left out: libc has no probes")
        for path, filtered, has_probes in verdicts:
            if has_probes == "True":
                self.assertEqual(filtered, "True", path)


class EarlyHitsTest(unittest.TestCase):
    """Hits fired before every probe was attached (before BEGIN's nsecs) are not printed, where
    bpftrace's per-CPU buffers bring them before the READY line or after it; later hits and
    other lines are, in the order they came. (Under the interpreter usdt runs in, which has
    pyelftools.)"""

    SCRIPT = """
import io, threading, types
from usdttool.answers import output
from usdttool.bpftrace import supervisor
lines = ["Attaching 3 probes...\\n", "90 pid=1 tid=1 p:early\\n", "120 pid=1 tid=1 p:before_ready\\n",
         supervisor.READY_LINE + " 100\\n", "95 pid=1 tid=1 p:late_early\\n", "105 pid=1 tid=1 p:kept\\n",
         "a line of the program\\n"]
unread = types.SimpleNamespace(rewrite=lambda line: line)
printed = output.Output([], unread, lines=True, json_hits=False, summary=None, timeline=None)
reader = supervisor._Output(printed)
tracer = reader.add(types.SimpleNamespace(number=0, process=types.SimpleNamespace(stdout=io.StringIO("".join(lines))),
                                          attached_at=None, held=[], ended=False))
assert reader.wait_until_attached(tracer, threading.Event())
while reader.print_lines():
    pass
"""

    def test_hits_older_than_the_attachment_are_dropped(self):
        interpreter = launcher.INTERPRETER or [sys.executable]
        result = subprocess.run([*interpreter, "-c", self.SCRIPT], capture_output=True, text=True, timeout=30,
                                env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(result.stdout, "120 pid=1 tid=1 p:before_ready\n105 pid=1 tid=1 p:kept\n"
                                        "a line of the program\n")


class SeveralTracersTest(unittest.TestCase):
    """The lines of two bpftraces (the first, and one for a library loaded later) interleaved:
    a record spanning lines and a map printing of each, read apart; the lost hits from both
    final counts. (Under the interpreter usdt runs in.)"""

    SCRIPT = """
import types
from usdttool.answers import output
from usdttool.bpftrace import hits
from usdtgen.tracer_probe import TracerProbe
def probe(number, name):
    return hits.TracedProbe(number, number, TracerProbe("p", name, ()))
unread = types.SimpleNamespace(rewrite=lambda line: line, read=None)
printed = output.Output([probe(0, "one")], unread, lines=False, json_hits=True, summary=None, timeline=None)
later = printed.add_tracer([probe(1, "two")])
lines = [(0, "usdt-hit 0 110 1 2 0x10\\x1fma\\n"), (later, "usdt-hit 1 120 1 3 0x20\\x1fmb\\n"),
         (0, "in\\x1e\\n"), (later, "ore\\x1e\\n"),
         (0, "usdt-maps 200 0 final\\n"), (later, "usdt-maps 210 0 final\\n"),
         (0, "@usdt_hits[0]: 3\\n"), (later, "@usdt_hits[1]: 1\\n"),
         (0, "usdt-maps-end\\n"), (later, "usdt-maps-end\\n")]
for tracer, line in lines:
    printed.emit(printed.read(line, tracer), 100, tracer)
printed.finish()
"""

    def test_lines_of_two_tracers_interleaved(self):
        interpreter = launcher.INTERPRETER or [sys.executable]
        result = subprocess.run([*interpreter, "-c", self.SCRIPT], capture_output=True, text=True, timeout=30,
                                env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        self.assertEqual((result.returncode, result.stderr), (0, "usdt: lost 2 of 4 hits: p:one 2\n"), result)
        self.assertEqual([json.loads(line) for line in result.stdout.splitlines()],
                         [{"type": "hit", "probe": "p:one", "monotonic_ns": 110, "pid": 1, "tid": 2,
                           "process": "ma\nin", "args": {}},
                          {"type": "hit", "probe": "p:two", "monotonic_ns": 120, "pid": 1, "tid": 3,
                           "process": "mb\nore", "args": {}}])


class UnreadStringsTest(unittest.TestCase):
    """A hit whose string bpftrace read as "" from a pointer that is not NULL comes as a marked
    line, `usdt-trace-unread MODULE 0xIP 0xPOINTER... LINE` (a pointer per string argument, 0
    for one read fine): usdt prints LINE with the string it reads where its bytes cannot have
    changed since (the probed file's read-only segments, the process's read-only mappings),
    `<unreadable:0xPOINTER>` where the process maps nothing readable, else the "" bpftrace read.
    Marked lines written here for libtool_core_a.so's core:hit, with pointers into this test's
    own memory, made with mmap()."""

    PROT_NONE, PROT_READ, MAP_PRIVATE, MAP_FIXED, MAP_ANONYMOUS = 0, 1, 0x02, 0x10, 0x20

    @classmethod
    def setUpClass(cls):
        cls.libc = ctypes.CDLL(None, use_errno=True)
        cls.libc.mmap.restype = ctypes.c_void_p
        cls.libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                  ctypes.c_long]
        cls.page = os.sysconf("SC_PAGE_SIZE")
        library = PROGRAMS["core_a"]
        cls.site = next(note.location for note in elf_notes.notes(library) if note.probe == "core:hit")
        # Where the literal "from-a" is at link time: .rodata's address plus its offset there.
        dump = subprocess.run(["readelf", "-p", ".rodata", library], capture_output=True, text=True, check=True).stdout
        offset = int(re.search(r"\[\s*([0-9a-f]+)\]\s+from-a$", dump, re.MULTILINE)[1], 16)
        cls.literal = elf_notes.sections(library)[".rodata"].address + offset

    def mapped(self, protection: int, contents: bytes = b"", size: int = 0) -> int:
        """The address of new pages holding `contents` (file-backed), else anonymous ones."""
        size = size or self.page
        if contents:
            path = OPTIONS.work_dir / f"mapped-{len(contents)}"
            path.write_bytes(contents)
            with open(path, "rb") as file:
                address = self.libc.mmap(None, size, protection, self.MAP_PRIVATE, file.fileno(), 0)
        else:
            address = self.libc.mmap(None, size, protection, self.MAP_PRIVATE | self.MAP_ANONYMOUS, -1, 0)
        self.assertNotEqual(address, ctypes.c_void_p(-1).value, os.strerror(ctypes.get_errno()))
        self.addCleanup(self.libc.munmap, ctypes.c_void_p(address), size)
        return address

    def rewrite(self, *lines: str) -> List[str]:
        interpreter = launcher.INTERPRETER or [sys.executable]
        result = subprocess.run([*interpreter, str(Path(__file__).with_name("rewrite_lines.py")), PROGRAMS["core_a"]],
                                input="".join(lines), capture_output=True, text=True, timeout=30,
                                env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        return result.stdout.splitlines()

    def marked(self, pointer: int, pid: int = 0, bias: int = 0x7f0000000000) -> str:
        pid = pid or os.getpid()
        return (f"usdt-trace-unread 0 0x{bias + self.site:x} 0x{pointer:x} 5 pid={pid} tid={pid} "
                f'core:hit who=1 value=100 from=""\n')

    def test_a_literal_of_the_probed_file_is_read_from_it_after_the_process_ended(self):
        gone = subprocess.Popen(["true"])
        gone.wait()
        bias = 0x7f0000000000
        self.assertEqual(self.rewrite(self.marked(bias + self.literal, gone.pid, bias)),
                         [f'5 pid={gone.pid} tid={gone.pid} core:hit who=1 value=100 from="from-a"'])

    def test_read_only_memory_of_a_running_process(self):
        text = self.mapped(self.PROT_READ, b"read-only text\0")
        self.assertEqual(self.rewrite(self.marked(text)),
                         [f'5 pid={os.getpid()} tid={os.getpid()} core:hit who=1 value=100 from="read-only text"'])

    def test_memory_nothing_can_read(self):
        inaccessible = self.mapped(self.PROT_NONE)
        # The last 3 bytes of a read-only page, no terminator, then a PROT_NONE page.
        reserved = self.mapped(self.PROT_NONE, size=2 * self.page)
        with open(OPTIONS.work_dir / "unterminated", "wb+") as file:
            file.write(b"x" * self.page)
            file.flush()
            self.assertEqual(self.libc.mmap(ctypes.c_void_p(reserved), self.page, self.PROT_READ,
                                            self.MAP_PRIVATE | self.MAP_FIXED, file.fileno(), 0), reserved)
        for pointer in (1, inaccessible, reserved + self.page - 3):
            with self.subTest(pointer=hex(pointer)):
                self.assertEqual(self.rewrite(self.marked(pointer)),
                                 [f"5 pid={os.getpid()} tid={os.getpid()} core:hit who=1 value=100 "
                                  f"from=<unreadable:0x{pointer:x}>"])

    def test_what_could_have_changed_since_keeps_what_bpftrace_read(self):
        # Writable memory (it may have been "" at the hit), or a process that is gone.
        writable = ctypes.create_string_buffer(b"written later")
        gone = subprocess.Popen(["true"])
        gone.wait()
        self.assertEqual(self.rewrite(self.marked(ctypes.addressof(writable)), self.marked(1, gone.pid)),
                         [f'5 pid={os.getpid()} tid={os.getpid()} core:hit who=1 value=100 from=""',
                          f'5 pid={gone.pid} tid={gone.pid} core:hit who=1 value=100 from=""'])

    def test_other_lines_are_untouched(self):
        lines = ['5 pid=1 tid=1 core:hit who=1 value=100 from=""\n', "usdt-trace-unread garbled\n",
                 "Attaching 2 probes...\n"]
        self.assertEqual(self.rewrite(*lines), [line.rstrip("\n") for line in lines])

if __name__ == "__main__":
    parse_arguments()
    usdt_testing.main()
