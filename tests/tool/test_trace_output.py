"""What `usdt trace` makes of what it reads, in the interpreter usdt runs in and without a
tracer: ELF files read (ElfReadingTest), bpftrace's `-f json` events before and
after it attached (EarlyHitsTest), the events of two bpftraces interleaved (SeveralTracersTest),
and strings bpftrace read as "" read again from the process or the file (UnreadStringsTest).
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
import tool_python
import usdt_testing
from trace_support import OPTIONS, PROGRAM_NAMES, PROGRAMS, parse_arguments


class ElfReadingTest(unittest.TestCase):
    """usdt's ELF reader (usdttool/files/elf.py) on every program here and the libraries they
    load: elf.may_have_probes() says False only for files without probes (libc, libm...), and a
    file's linkage and probes are what pyelftools reads (tests/support/elftools_reading.py),
    under Debian's interpreter where the one usdt runs in lacks it."""

    SCRIPT = """
import sys
import elftools_reading
from usdttool.files import elf, libraries
paths = sys.argv[1:] + [library for path in sys.argv[1:] for library in libraries.shared_libraries(path).paths]
for path in sorted(set(paths)):
    if elftools_reading.available:
        assert elf.read_linkage(path) == elftools_reading.linkage(path), path
        assert elf.read_module(path) == elftools_reading.module(path), path
    print(path, elf.may_have_probes(path), bool(elf.read_module(path).probes))
"""

    def test_false_only_without_probes(self):
        with_pyelftools = tool_python.interpreter_with("elftools")
        interpreter = [with_pyelftools] if with_pyelftools else launcher.INTERPRETER or [sys.executable]
        files = [PROGRAMS[name] for name in PROGRAM_NAMES if PROGRAMS.get(name)]
        repository = Path(__file__).resolve().parents[2]
        result = subprocess.run([*interpreter, "-c", self.SCRIPT, *files], capture_output=True, text=True, timeout=60,
                                env={**os.environ, "PYTHONPATH": f"{repository}:{repository / 'tests' / 'support'}"})
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        verdicts = [line.rsplit(" ", 2) for line in result.stdout.splitlines()]
        self.assertIn("False", {filtered for _, filtered, _ in verdicts}, "no file was left out: libc has no probes")
        for path, filtered, has_probes in verdicts:
            if has_probes == "True":
                self.assertEqual(filtered, "True", path)


class EarlyHitsTest(unittest.TestCase):
    """Hits fired before every probe was attached (before BEGIN's nsecs) are not printed, where
    bpftrace's per-CPU buffers bring them before the READY line or after it; later hits and
    other lines are, in the order they came. (Under the interpreter usdt runs in.)"""

    SCRIPT = """
import io, json, threading, types
from usdttool.answers import output
from usdttool.bpftrace import hits, supervisor
from usdtgen.tracer_probe import TracerProbe
names = ["early", "before_ready", "late_early", "kept"]
probes = [hits.TracedProbe(number, 0, TracerProbe("p", name, ())) for number, name in enumerate(names)]
def printf(text):
    return json.dumps({"type": "printf", "data": text}) + "\\n"
def hit(name, nsecs):
    return printf(f"usdt-hit {names.index(name)} {nsecs} 1 1 0x10 app")
lines = [json.dumps({"type": "attached_probes", "data": {"probes": 3}}) + "\\n", hit("early", 90),
         hit("before_ready", 120), printf(supervisor.READY_LINE + " 100\\n"), hit("late_early", 95),
         hit("kept", 105), printf("a line of the program\\n")]
printed = output.Output(probes, types.SimpleNamespace(read=None), lines=True, json_hits=False, summary=None,
                        timeline=None)
reader = supervisor._Output(printed)
stdout = io.BytesIO("".join(lines).encode())
tracer = reader.add(types.SimpleNamespace(number=0, process=types.SimpleNamespace(stdout=stdout),
                                          attached_at=None, held=[], ended=False,
                                          said_attached=threading.Event()))
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
    """The events of two bpftraces (the first, and one for a library loaded later) interleaved:
    a record spanning printfs (a hit's and its string's) and a map printing of each, read apart; the lost hits from both
    final counts. (Under the interpreter usdt runs in.)"""

    SCRIPT = """
import json, types
from usdttool.answers import output
from usdttool.bpftrace import hits, json_events
from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument, TracerProbe
def probe(number, name):
    return hits.TracedProbe(number, number, TracerProbe("p", name, (TracerArgument(0, "s", "char *", Kind.STRING, 8,
                                                                                   False),)))
printed = output.Output([probe(0, "one")], types.SimpleNamespace(read=None), lines=False, json_hits=True,
                        summary=None, timeline=None)
later = printed.add_tracer([probe(1, "two")])
def printf(text):
    return {"type": "printf", "data": text}
events = [(0, printf("usdt-hit 0 110 1 2 0x10 4096 0 ma")), (later, printf("usdt-hit 1 120 1 3 0x20 4096 0 mb")),
          (0, printf("usdt-string 2 110 in")), (later, printf("usdt-string 3 120 ore")),
          (0, printf("usdt-maps 200 0 final\\n")), (later, printf("usdt-maps 210 0 final\\n")),
          (0, {"type": "map", "data": {"@usdt_hits": {"0": 3}}}), (later, {"type": "map", "data": {"@usdt_hits": {"1": 1}}}),
          (0, printf("usdt-maps-end\\n")), (later, printf("usdt-maps-end\\n"))]
for tracer, event in events:
    printed.emit(printed.read(json_events.parse(json.dumps(event).encode()), tracer), 100, tracer)
printed.finish()
"""

    def test_lines_of_two_tracers_interleaved(self):
        interpreter = launcher.INTERPRETER or [sys.executable]
        result = subprocess.run([*interpreter, "-c", self.SCRIPT], capture_output=True, text=True, timeout=30,
                                env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        self.assertEqual((result.returncode, result.stderr), (0, "usdt: lost 2 of 4 hits: p:one 2\n"), result)
        self.assertEqual([json.loads(line) for line in result.stdout.splitlines()],
                         [{"type": "hit", "probe": "p:one", "monotonic_ns": 110, "pid": 1, "tid": 2,
                           "process": "ma", "args": {"s": "in"}},
                          {"type": "hit", "probe": "p:two", "monotonic_ns": 120, "pid": 1, "tid": 3,
                           "process": "mb", "args": {"s": "ore"}}])


class UnreadStringsTest(unittest.TestCase):
    """A hit whose string bpftrace read as "" from a pointer that is not NULL (its record has the
    pointer and the probe's address, hits.py): usdt prints the hit's line with the string it reads
    where its bytes cannot have changed since (the probed file's read-only segments, the
    process's read-only mappings), `<unreadable:0xPOINTER>` where the process maps nothing
    readable, else the "" bpftrace read. Records written here, as bpftrace -f json prints them,
    for libtool_core_a.so's core:hit, with pointers into this test's own memory, made with
    mmap()."""

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

    def printed(self, *lines: str) -> List[str]:
        interpreter = launcher.INTERPRETER or [sys.executable]
        result = subprocess.run([*interpreter, str(Path(__file__).with_name("print_records.py")), PROGRAMS["core_a"]],
                                input="".join(lines), capture_output=True, text=True, timeout=30,
                                env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        return result.stdout.splitlines()

    def records(self, pointer: int, pid: int = 0, bias: int = 0x7f0000000000) -> str:
        """The two printfs of a hit of core:hit(1, 100, pointer) whose string read as ""."""
        pid = pid or os.getpid()
        return (json.dumps({"type": "printf", "data": f"usdt-hit 0 5 {pid} {pid} 0x{bias + self.site:x} 1 100 "
                                                      f"{pointer} 0 app"}) + "\n"
                + json.dumps({"type": "printf", "data": f"usdt-string {pid} 5 "}) + "\n")

    def test_a_literal_of_the_probed_file_is_read_from_it_after_the_process_ended(self):
        gone = subprocess.Popen(["true"])
        gone.wait()
        bias = 0x7f0000000000
        self.assertEqual(self.printed(self.records(bias + self.literal, gone.pid, bias)),
                         [f'5 pid={gone.pid} tid={gone.pid} core:hit who=1 value=100 from="from-a"'])

    def test_read_only_memory_of_a_running_process(self):
        text = self.mapped(self.PROT_READ, b"read-only text\0")
        self.assertEqual(self.printed(self.records(text)),
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
                self.assertEqual(self.printed(self.records(pointer)),
                                 [f"5 pid={os.getpid()} tid={os.getpid()} core:hit who=1 value=100 "
                                  f"from=<unreadable:0x{pointer:x}>"])

    def test_what_could_have_changed_since_keeps_what_bpftrace_read(self):
        # Writable memory (it may have been "" at the hit), or a process that is gone.
        writable = ctypes.create_string_buffer(b"written later")
        gone = subprocess.Popen(["true"])
        gone.wait()
        self.assertEqual(self.printed(self.records(ctypes.addressof(writable)), self.records(1, gone.pid)),
                         [f'5 pid={os.getpid()} tid={os.getpid()} core:hit who=1 value=100 from=""',
                          f'5 pid={gone.pid} tid={gone.pid} core:hit who=1 value=100 from=""'])

    def test_other_lines_are_printed_as_they_came(self):
        lines = [json.dumps({"type": "printf", "data": "a printf of the program\n"}) + "\n", "not JSON\n"]
        self.assertEqual(self.printed(*lines), ["a printf of the program", "not JSON"])


if __name__ == "__main__":
    parse_arguments()
    usdt_testing.main()
