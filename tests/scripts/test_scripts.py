"""The generated tracer scripts (usdt_add_provider TRACER_SCRIPTS) used on a real program
(programs/traced.c) and a shared library (programs/library.c).

bpftrace (root): each script prints, line by line, what is written here. perf (root): the
script adds the events, `perf record` sees every probe with its arguments, the script deletes
the events. SystemTap cannot run on this machine's kernel (no build tree), so `stap -p3`
translates the scripts against the program and the library: every probe and argument resolves.

Usage (CTest passes these): test_scripts.py --program PATH --library PATH --scripts PATH...
    --tracer bpftrace|perf|systemtap [unittest options]
"""

import argparse
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
from pathlib import Path

import bpftrace_attach
from systemtap_stub import stub_kernel_tree
from usdt_testing import main, parse_options, require_tracer

# From the command line (add_options); SCRIPTS maps file names to paths.
OPTIONS = argparse.Namespace()
SCRIPTS = {}

SCRIPT_NAMES = {"traced.bt", "traced.stp", "traced.perf.sh", "scriptlib.bt", "scriptlib.stp", "scriptlib.perf.sh"}

# traced.c's only argument, fired as a string and measured by strlen.
PATH = "/tmp/usdt/scripts-path"

# What traced.c fires, as the bpftrace scripts print it after `NSECS pid=PID tid=TID `.
# {request} is the address traced.c prints; bpftrace 0.17 reads 6 arguments, so eight's g and h and
# strings's s6 are '?'.
TRACED_LINES = (
    "scripted:signed__ints i8=-128 i16=-32768 i32=-2147483648 i64=-9223372036854775808",
    "scripted:signed__ints i8=127 i16=32767 i32=2147483647 i64=9223372036854775807",
    "scripted:unsigned__ints u8=255 u16=65535 u32=4294967295 u64=18446744073709551615",
    "scripted:flags yes=true no=false",
    f'scripted:text path="{PATH}" empty=""',
    "scripted:pointers request={request} null=0x0",
    "scripted:eight a=1 b=-2 c=3 d=-4 e=5 f=-6 g=? h=?",
    f'scripted:strings sub="{PATH}" file="{PATH[1:]}" line=42 package="{PATH[2:]}" s4="{PATH[3:]}" '
    f's5="{PATH[4:]}" s6=?',
    f"scripted:unnamed arg0=-5 arg1={len(PATH)}",
    "scripted:delete",
    f'extra:hello who="{PATH}" delta=-6',
)
LIBRARY_LINES = (f'scriptlib:work id=-7 name="{PATH}"',)

# The same hits as `perf script` prints them, as regular expressions: arguments numbered from
# arg1, strings as their addresses ({string}), the pointer in decimal ({request}). perf 6.1
# prints negative 1- and 2-byte arguments as unsigned (-128 as 128); either form passes. That
# is perf's formatting: the kernel records them signed (test_kernel_records_narrow_arguments_signed).
# perf 7 names an event `signed_ints` where the note says `signed__ints` (perf 6 keeps the name).
PERF_LINES = (
    r"sdt_scripted:signed_?_ints: arg1=-?128 arg2=-?32768 arg3=-2147483648 arg4=-9223372036854775808",
    r"sdt_scripted:signed_?_ints: arg1=127 arg2=32767 arg3=2147483647 arg4=9223372036854775807",
    r"sdt_scripted:unsigned_?_ints: arg1=255 arg2=65535 arg3=4294967295 arg4=18446744073709551615",
    r"sdt_scripted:flags: arg1=1 arg2=0",
    r"sdt_scripted:text: arg1={string} arg2={string}",
    r"sdt_scripted:pointers: arg1={request} arg2=0",
    r"sdt_scripted:eight: arg1=1 arg2=-2 arg3=3 arg4=-4 arg5=5 arg6=-6 arg7=7 arg8=-8",
    r"sdt_scripted:strings: arg1={string} arg2={string} arg3=42 arg4={string} arg5={string} arg6={string} "
    r"arg7={string}",
    rf"sdt_scripted:unnamed: arg1=-5 arg2={len(PATH)}",
    r"sdt_scripted:delete:",
    r"sdt_extra:hello: arg1={string} arg2=-6",
)
PERF_EVENTS = ("sdt_scripted:*", "sdt_extra:*")

# Every probe of traced.d and scriptlib.d: what the SystemTap scripts must resolve.
TRACED_PROBES = {("scripted", name) for name in ("signed__ints", "unsigned__ints", "flags", "text", "pointers",
                                                  "eight", "strings", "unnamed", "delete")} | {("extra", "hello")}
LIBRARY_PROBES = {("scriptlib", "work")}

# A bpftrace script's line: nanoseconds, pid, tid, then provider:probe and the arguments.
BPFTRACE_LINE = re.compile(r"^(\d+) pid=(\d+) tid=(\d+) (\w+:\w+.*)$")


def run(command, **options):
    return subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=120,
                          **options)


def program_output_value(output, name):
    """`NAME=VALUE` as traced.c prints it."""
    printed = re.search(rf"^{name}=(\S+)$", output, re.MULTILINE)
    if printed is None:
        raise AssertionError(f"the program did not print {name}=:\n{output}")
    return printed.group(1)


class TracerScriptsPropertyTest(unittest.TestCase):
    def test_targets_list_every_script_they_generate(self):
        self.assertEqual(set(SCRIPTS), SCRIPT_NAMES)
        for path in SCRIPTS.values():
            self.assertTrue(Path(path).is_file(), path)


class BpftraceScriptTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        require_tracer(self, "bpftrace")

    def assertHitLines(self, output, pid, expected):
        """The lines of process `pid` are `expected`, in order, with one thread and a clock that never goes back."""
        hits = [match.groups() for match in map(BPFTRACE_LINE.match, output.splitlines()) if match]
        hits = [(int(nsecs), int(tid), text) for nsecs, hit_pid, tid, text in hits if int(hit_pid) == pid]
        self.assertEqual([text for _, _, text in hits], list(expected), output)
        self.assertEqual({tid for _, tid, _ in hits}, {pid}, output)
        self.assertEqual([nsecs for nsecs, _, _ in hits], sorted(nsecs for nsecs, _, _ in hits), output)

    def test_program_under_c(self):
        completed = run(["bpftrace", SCRIPTS["traced.bt"], "-c", f"{OPTIONS.program} {PATH}", OPTIONS.program])
        # stderr carries harmless warnings (RLIMIT_MEMLOCK); only the exit status matters.
        self.assertEqual(completed.returncode, 0, completed.stdout + completed.stderr)
        output = completed.stdout
        self.assertIn(f"Tracing the probes of traced.d in {OPTIONS.program}. Hit Ctrl-C to end.\n", output)
        request = program_output_value(output, "request")
        expected = [line.replace("{request}", request) for line in TRACED_LINES]
        self.assertHitLines(output, int(program_output_value(output, "pid")), expected)

    def test_shared_library(self):
        # `-c` does not reach probes of a library the child has not mapped yet (bpftrace 0.17):
        # the script attaches to the library file, then the program starts.
        output, program = attached_bpftrace(SCRIPTS["scriptlib.bt"], OPTIONS.library,
                                            lambda: run([OPTIONS.program, PATH]), len(LIBRARY_LINES))
        self.assertEqual(program.returncode, 0, program.stderr)
        self.assertHitLines(output, int(program_output_value(program.stdout, "pid")), LIBRARY_LINES)


def attached_bpftrace(script, path, action, expected_hits, timeout=60):
    """Runs `bpftrace script path`; once its BEGIN line is out, calls `action()`, then waits for
    `expected_hits` probe lines (bpftrace prints them asynchronously) before stopping it.
    Returns (bpftrace's stdout and stderr, what `action` returned)."""
    # stderr joins the output so that a failure shows bpftrace's errors.
    tracer = subprocess.Popen(["bpftrace", script, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace")
    lines = queue.Queue()

    def read():
        for line in tracer.stdout:
            lines.put(line)
        lines.put(None)   # bpftrace exited: no need to wait for more

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    output = []

    def read_until(matches, count):
        while sum(map(matches, output)) < count:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                return
            if line is None:
                lines.put(None)
                return
            output.append(line)

    try:
        read_until(lambda line: line.startswith("Tracing the probes of "), 1)
        result = action()
        read_until(lambda line: BPFTRACE_LINE.match(line) is not None, expected_hits)
    finally:
        bpftrace_attach.stop(tracer, timeout)
        reader.join(timeout=timeout)
    while not lines.empty():
        output.append(lines.get() or "")
    return "".join(output), result


class PerfScriptTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        require_tracer(self, "perf", package="linux-perf")
        # Events left by an interrupted run would make `add` fail.
        for script in ("traced.perf.sh", "scriptlib.perf.sh"):
            run(["sh", SCRIPTS[script], "delete"])
            self.addCleanup(run, ["sh", SCRIPTS[script], "delete"])

    def test_add_record_delete(self):
        added = run(["sh", SCRIPTS["traced.perf.sh"], "add", OPTIONS.program])
        self.assertEqual((added.returncode, added.stderr), (0, ""))

        with tempfile.TemporaryDirectory(prefix="usdt-perf-") as directory:
            data = Path(directory) / "perf.data"
            events = [option for event in PERF_EVENTS for option in ("-e", event)]
            recorded = run(["perf", "record", "-q", "-o", data, *events, "--", OPTIONS.program, PATH])
            self.assertEqual(recorded.returncode, 0, recorded.stderr)
            printed = run(["perf", "script", "-i", data])
            self.assertEqual(printed.returncode, 0, printed.stderr)
        request = str(int(program_output_value(recorded.stdout, "request"), 16))
        hits = [f"{match.group(1)}:{match.group(2)}"
                for match in re.finditer(r"(sdt_\w+:\w+): \([0-9a-f]+\)(.*)$", printed.stdout, re.MULTILINE)]
        self.assertEqual(len(hits), len(PERF_LINES), printed.stdout)
        for hit, expected in zip(hits, PERF_LINES):
            self.assertRegex(hit, "^" + expected.replace("{string}", "[0-9]+").replace("{request}", request) + "$")

        deleted = run(["sh", SCRIPTS["traced.perf.sh"], "delete"])
        self.assertEqual(deleted.returncode, 0, deleted.stderr)
        self.assertNotRegex(run(["perf", "probe", "-l"]).stdout, r"sdt_(scripted|extra):")

    def test_kernel_records_narrow_arguments_signed(self):
        """The events the script adds have signed fields for signed arguments (s8, s16), and the
        kernel's own trace buffer prints -128 and -32768 where perf 6.1's `perf script` prints
        128 and 32768 (docs/cookbook.md, "perf (root)")."""
        added = run(["sh", SCRIPTS["traced.perf.sh"], "add", OPTIONS.program])
        self.assertEqual((added.returncode, added.stderr), (0, ""))
        tracefs = Path("/sys/kernel/tracing")
        (event,) = (tracefs / "events" / "sdt_scripted").glob("signed_*ints")
        self.assertRegex((event / "format").read_text(), r"field:s8 arg1;.*\n.*field:s16 arg2;")
        # An instance of its own: its buffer holds only these events, and goes with it.
        instance = Path(tempfile.mkdtemp(prefix="usdt-scripts-", dir=tracefs / "instances"))
        instance_event = instance / "events" / "sdt_scripted" / event.name / "enable"
        try:
            instance_event.write_text("1")
            self.assertEqual(run([OPTIONS.program, PATH]).returncode, 0)
            instance_event.write_text("0")
            trace = (instance / "trace").read_text()
        finally:
            instance.rmdir()
        self.assertRegex(trace, r"arg1=-128 arg2=-32768 arg3=-2147483648 arg4=-9223372036854775808", trace)

    def test_add_warns_about_probes_the_file_lacks(self):
        added = run(["sh", SCRIPTS["scriptlib.perf.sh"], "add", OPTIONS.program])
        self.assertEqual(added.returncode, 1, added.stderr)
        self.assertEqual(added.stderr, f"{SCRIPTS['scriptlib.perf.sh']}: sdt_scriptlib:work not added: "
                                       f"is it a probe of {OPTIONS.program}?\n")
        self.assertEqual(run(["sh", SCRIPTS["scriptlib.perf.sh"], "add", OPTIONS.library]).returncode, 0)


class SystemTapScriptTest(unittest.TestCase):
    def setUp(self):
        require_tracer(self, "stap", needs_root=False, package="systemtap")
        self.directory = Path(tempfile.mkdtemp(prefix="usdt-stap-"))
        self.addCleanup(shutil.rmtree, self.directory)
        self.kernel_tree = stub_kernel_tree(self.directory / "kernel")

    def translated_probes(self, script, path):
        """(provider, probe) of every mark `stap -p3` resolved in `path`: the translated C names each."""
        translated = run(["stap", "-p3", "-r", self.kernel_tree, script, path],
                         env=dict(os.environ, SYSTEMTAP_DIR=str(self.directory / "cache")))
        self.assertEqual(translated.returncode, 0, translated.stderr)
        return set(re.findall(r'^\s*STAP_PROBE_INIT\(.*\.provider\(\\"(\w+)\\"\)\.mark\(\\"(\w+)\\"\)',
                              translated.stdout, re.MULTILINE))

    def test_every_probe_and_argument_resolves(self):
        self.assertEqual(self.translated_probes(SCRIPTS["traced.stp"], OPTIONS.program), TRACED_PROBES)
        self.assertEqual(self.translated_probes(SCRIPTS["scriptlib.stp"], OPTIONS.library), LIBRARY_PROBES)

    def test_probes_the_file_lacks_are_skipped(self):
        self.assertEqual(self.translated_probes(SCRIPTS["traced.stp"], OPTIONS.library), set())


# --tracer -> the test classes it runs.
TRACER_TESTS = {
    "bpftrace": ["TracerScriptsPropertyTest", "BpftraceScriptTest"],
    "perf": ["TracerScriptsPropertyTest", "PerfScriptTest"],
    "systemtap": ["TracerScriptsPropertyTest", "SystemTapScriptTest"],
}


def add_options(parser):
    parser.add_argument("--program", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--scripts", nargs="+", required=True)
    parser.add_argument("--tracer", choices=sorted(TRACER_TESTS), required=True)


if __name__ == "__main__":
    OPTIONS, _ = parse_options(add_options)
    SCRIPTS.update((Path(path).name, path) for path in OPTIONS.scripts)
    sys.argv[1:] = sys.argv[1:] or TRACER_TESTS[OPTIONS.tracer]
    main()
