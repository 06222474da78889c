"""What the tests of `usdt trace` share (test_trace.py, test_trace_live.py, test_trace_output.py):
the programs and options CTest passes, usdt run through the build tree's launcher, what the
programs fire (written from their sources, programs/*.c), hit lines parsed, programs started
waiting or loading a library late, usdt interrupted as a terminal's Ctrl-C does, and
TraceTestCase's assertions.
"""

import argparse
import contextlib
import functools
import os
import re
import shutil
import signal
import subprocess
import time
import unittest
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import launcher
import usdt_testing

OPTIONS = argparse.Namespace()   # from the command line (parse_arguments)
PROGRAMS: Dict[str, str] = {}
PROGRAM_NAMES = ("kvserver", "kvstore", "sdt_only", "plain", "broken", "twolibs", "core_a", "core_b", "cxxapp",
                 "bad_strings_c", "bad_strings_cpp", "strings")

# `NSECS pid=PID tid=TID provider:probe name=value...`
HIT_LINE = re.compile(r"^(\d+) pid=(\d+) tid=(\d+) (\S+:\S+)((?: \S+=\S*)*)$")

# programs/kvserver.c and kvstore.c, in firing order: probe and its arguments as printed.
# Pointers print in hex; the entry's address is only known to be a user-space one.
KVSERVER_HITS = [
    ("kvserver:request__start", {"id": "1", "op": '"GET"', "key": '"alpha"'}),
    ("kvcache:fill", {"id": "1", "key": '"alpha"', "op": "2"}),
    ("kvcache:get", {"id": "1", "status": "0", "hit": "true", "entry": "POINTER"}),
    ("kvcache:fill", {"id": "2", "key": '"beta"', "op": "1"}),
    ("kvserver:request__done", {"id": "1", "status": "200", "latency_ns": "1500"}),
    ("kvcache:tick", {}),
]
# tool_kvserver's probes, as `usdt trace` lists them in its errors.
KVSERVER_PROBES = "kvcache:fill kvcache:get kvcache:tick kvserver:request__done kvserver:request__start kvstore:lookup"
KVSTORE_HITS = [("kvstore:lookup", {"key": '"alpha"', "found": "true"})]
# programs/sdt_only.c: DTRACE_PROBE3(sdtapp, hello, -3, 7, 'x'), DTRACE_PROBE(sdtapp, bye).
SDT_ONLY_HITS = [("sdtapp:hello", {"arg0": "-3", "arg1": "7", "arg2": "120"}), ("sdtapp:bye", {})]
# programs/twolibs.c: core:hit from libtool_core_a.so (who=1) and libtool_core_b.so (who=2).
TWOLIBS_HITS = [("core:hit", {"who": str(who), "value": str(100 * who + round), "from": f'"from-{"ab"[who - 1]}"'})
                for round in range(3) for who in (1, 2)]
# tool_twolibs --load-late (and tool_plain's): libtool_core_b.so's hits right after dlopen(), five
# at once, before the rounds.
LOADED_HITS = [("core:hit", {"who": "2", "value": "209", "from": '"from-b"'})] * 5
# programs/cxxapp.cpp: its probe around an exception, and libstdc++'s (stapsdt notes: the
# exception object's and its type_info's addresses, as integers).
CXXAPP_HITS = [("cxxapp:work", {"round": "1", "what": '"before"'}),
               ("libstdcxx:throw", {"arg0": "ADDRESS", "arg1": "ADDRESS"}),
               ("libstdcxx:catch", {"arg0": "ADDRESS", "arg1": "ADDRESS"}),
               ("cxxapp:work", {"round": "2", "what": '"after"'})]
# Every character a path may hold that bpftrace 0.17 can attach to, quoted.
UNUSUAL_DIRECTORY = "a b+c-d.e 'q' \"r\" \\s"

TRACE_TIMEOUT = 60


def usdt_command(*arguments) -> List[str]:
    # Through the launcher's own interpreter line, as a user runs it, unless a test empties PATH.
    return [OPTIONS.usdt, *map(str, arguments)]


def usdt(*arguments, environment: Optional[Dict[str, str]] = None,
         prefix: Sequence[str] = ()) -> subprocess.CompletedProcess:
    """bin/usdt's result; with an environment or a prefix command through its #! line, else
    directly under the interpreter it would end up in (launcher.py)."""
    command = usdt_command(*arguments) if environment or prefix else [*launcher.direct(OPTIONS.usdt),
                                                                      *map(str, arguments)]
    return subprocess.run([*prefix, *command], capture_output=True, text=True, check=False,
                          env=dict(os.environ, **(environment or {})), timeout=TRACE_TIMEOUT)


@functools.lru_cache(maxsize=None)
def bpftrace_version() -> Tuple[int, int]:
    """The bpftrace on PATH's (major, minor); without one, the newest tested, whose program
    `usdt trace --script` then prints."""
    found = shutil.which("bpftrace")
    if found is None:
        return (0, 27)
    answer = subprocess.run([found, "--version"], capture_output=True, text=True, check=True).stdout
    major, minor = re.search(r"(\d+)\.(\d+)", answer).groups()
    return (int(major), int(minor))


def bpftrace_path(path) -> str:
    """`path` as the program quotes it for the bpftrace on PATH: a backslash is unescaped twice up
    to bpftrace 0.23, once from 0.27."""
    backslash = "\\" * (4 if bpftrace_version() < (0, 27) else 2)
    return '"' + str(path).replace("\\", backslash).replace('"', '\\"') + '"'


def counted(entry: str) -> str:
    """The lines of a probe's block that count one more in `entry` (`@usdt_hits[0]`) for the
    bpftrace on PATH: from 0.20 to 0.23, which lose a count of a new key, the key is added first."""
    if (0, 20) <= bpftrace_version() < (0, 24):
        return f"    {entry} = sum(0);\n    {entry} = sum(1);\n"
    return f"    {entry} = count();\n"


def without_glibc_probes(message: str) -> str:
    """`message` without glibc's providers (`libc:* rtld:*`), which a glibc built with sys/sdt.h
    has (Debian unstable's, Fedora's, Ubuntu's; not Debian 12's or 13's)."""
    return re.sub(r" (?:libc|rtld):\*", "", message)


def copy_programs(directory: Path, *names: str) -> Dict[str, Path]:
    """Copies of the programs in `directory` (where those that load a library of the others find
    it, through $ORIGIN), by name."""
    directory.mkdir(parents=True, exist_ok=True)
    return {name: Path(shutil.copy(PROGRAMS[name], directory)) for name in names}


def start_waiting(program) -> subprocess.Popen:
    """A program started with --wait, once it has said "ready"; closing its stdin sets it off. In
    a session of its own, as a service runs: no terminal's foreground job, which usdt would not
    stop (docs/tracing.md)."""
    return start_waiting_command([str(program)])


def start_in_a_chroot(root: Path, *names: str) -> subprocess.Popen:
    """The first of the programs `names`, copied with the others into /app of a minimal chroot at
    `root` (with the libraries ldd finds, at their paths), started waiting there (start_waiting)."""
    shutil.rmtree(root, ignore_errors=True)
    copies = copy_programs(root / "app", *names)
    for copy in copies.values():
        listed = subprocess.run(["ldd", str(copy)], capture_output=True, text=True, check=True).stdout
        for library in re.findall(r"(/\S+) \(0x", listed):
            if Path(library).name not in {path.name for path in copies.values()}:
                target = root / library.lstrip("/")
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(library, target)
    # $ORIGIN needs /proc/self/exe, which the chroot has not: the libraries' directory instead.
    return start_waiting_command(["chroot", str(root), f"/app/{copies[names[0]].name}"],
                                 dict(os.environ, LD_LIBRARY_PATH="/app"))


def start_in_a_mount_namespace(directory: Path, *names: str) -> subprocess.Popen:
    """The first of the programs `names`, copied with the others into a directory bound over
    `directory` in a mount namespace of its own, started waiting there (start_waiting). Here,
    `directory` holds tool_plain's copies under their names: the paths the process maps name
    other files here."""
    hidden = directory.with_name(directory.name + ".hidden")
    copies = copy_programs(hidden, *names)
    directory.mkdir(parents=True, exist_ok=True)
    for copy in copies.values():
        shutil.copy(PROGRAMS["plain"], directory / copy.name)
    # Every mount private first, so that the bind stays in the namespace. In a chroot whose / is
    # no mount (a Debian root's, tests/support/debian_roots.py) that fails: the chroot's own
    # namespace is private already.
    return start_waiting_command(["unshare", "--mount", "--propagation", "unchanged", "sh", "-c",
                                  'mount --make-rprivate / 2>/dev/null; mount --bind "$1" "$2" && exec "$2/$3" "$4"',
                                  "sh", str(hidden), str(directory), copies[names[0]].name])


def start_waiting_command(command: Sequence[str], environment: Optional[Dict[str, str]] = None) -> subprocess.Popen:
    """start_waiting() for `command`, which ends with the program and its arguments."""
    started = subprocess.Popen([*command, "--wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                               start_new_session=True, env=environment)
    if started.stdout.readline() != "ready\n":
        started.kill()
        started.wait()
        raise AssertionError(f"{' '.join(command)} did not start")
    return started


@contextlib.contextmanager
def stopped_at_the_end(tracer: subprocess.Popen, program: subprocess.Popen):
    """Kills the tracer and the program, where either still runs once the block ends (a failed
    assertion, a timeout), and closes the program's output."""
    try:
        yield
    finally:
        for process in (tracer, program):
            if process.poll() is None:
                process.kill()
                process.wait()
        program.stdout.close()


def trace_process(program: subprocess.Popen, *patterns):
    """`usdt trace -p` on the waiting `program` until it ends: (usdt's result, the program's status)."""
    tracer = subprocess.Popen(usdt_command("trace", "-p", program.pid, *patterns), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    with stopped_at_the_end(tracer, program):
        announcement = tracer.stderr.readline()
        program.stdin.close()     # the program fires its probes and exits; so does the trace
        output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
        status = program.wait(timeout=TRACE_TIMEOUT)
    return subprocess.CompletedProcess(tracer.args, tracer.returncode, output, announcement + errors), status


def start_loading_late(name: str = "twolibs") -> subprocess.Popen:
    """tool_twolibs --load-late (or tool_plain's, which has no probes before), once it has said
    "ready", in a session of its own (start_waiting): a line on its stdin makes it load
    libtool_core_b.so (and fire its probe at once, five times); closing its stdin, fire the
    rounds (tool_twolibs) and exit."""
    command = [PROGRAMS[name], "--load-late", *([PROGRAMS["core_b"]] if name == "plain" else [])]
    started = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                               start_new_session=True)
    if started.stdout.readline() != "ready\n":
        started.kill()
        started.wait()
        raise AssertionError(f"{' '.join(command)} did not start")
    return started


def hits(output: str):
    """(probe, {name: value}, pid) per line, in time order; any other line fails the parse. By
    each hit's monotonic_ns, as docs/tracing.md says to: bpftrace reads each CPU's buffer in
    turn, so a hit can come out after later hits of another CPU (seen with 0.17, on a loaded
    machine: a library's first hit after the rounds that followed it)."""
    parsed = []
    for line in output.splitlines():
        match = HIT_LINE.match(line)
        if match is None:
            raise AssertionError(f"not a hit line: {line!r}\nin:\n{output}")
        fields = dict(field.split("=", 1) for field in match[5].split())
        parsed.append((int(match[1]), match[4], fields, int(match[2])))
    return [(probe, fields, pid) for _, probe, fields, pid in sorted(parsed, key=lambda hit: hit[0])]


# Delays after which a Ctrl-C reaches usdt while it starts: in the shell part of the launcher, the
# interpreter's start, the imports, reading the files, bpftrace starting and attaching.
INTERRUPT_DELAYS = (0, 0.005, 0.01, 0.02, 0.04, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5)


# How long usdt may take to end after such a Ctrl-C: it stops bpftrace and waits for it, and
# bpftrace, interrupted while it attaches, first attaches and then detaches every probe. Each
# attach and detach waits for the kernel's event mutex and an RCU grace period, which every
# tracer on the machine shares: with the suite's other tracers at work, bpftraces spent seconds
# in uninterruptible sleep (perf_uprobe_destroy, wait_rcu_gp).
INTERRUPTED_TIMEOUT = 300


def _signal_state(pid: int) -> str:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return ""
    return " ".join(line.replace("\t", "") for line in status.splitlines() if line.startswith(("Sig", "Shd", "Threads")))


def interrupted(delay: float, *arguments) -> subprocess.CompletedProcess:
    """usdt run as a user runs it, sent SIGINT as a terminal's Ctrl-C is (to its process group)
    `delay` seconds after it started."""
    process = subprocess.Popen(usdt_command(*arguments), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        time.sleep(delay)
        try:
            os.killpg(process.pid, signal.SIGINT)
        except ProcessLookupError:
            pass    # done already
        try:
            output, errors = process.communicate(timeout=INTERRUPTED_TIMEOUT)
        except subprocess.TimeoutExpired:
            # What usdt and every bpftrace were doing (bpftrace runs in a session of its own).
            processes = subprocess.run(["ps", "-eo", "pid,ppid,sid,stat,wchan:24,etime,args"], capture_output=True,
                                       text=True).stdout
            relevant = [line[:200] for line in processes.splitlines() if "usdt" in line or "bpftrace" in line]
            raise AssertionError(f"usdt did not end {INTERRUPTED_TIMEOUT} s after a Ctrl-C {delay} s into its start "
                                 f"({_signal_state(process.pid)}):\n" + "\n".join(relevant)) from None
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    return subprocess.CompletedProcess(process.args, process.returncode, output, errors)


# A module Python imports as it starts (site imports sitecustomize from PYTHONPATH) whose weakref
# callback gets the Ctrl-C: Python prints and drops what a callback raises, and under load the
# import system's own callbacks got it (tool.trace in CI, December 2: usdt went on tracing).
CTRL_C_IN_A_CALLBACK = """
import os, signal, weakref

class Thing:
    pass

def callback(reference):
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(1000):
        pass    # the handler runs here, between two bytecodes

thing = Thing()
reference = weakref.ref(thing, callback)
del thing
"""

# One that drops the exception the Ctrl-C's handler raises, as compile() does at times, silently
# (an import of a module without its .pyc; tool.trace_releases, December 7: usdt went on tracing).
CTRL_C_DROPPED = """
import signal

try:
    signal.raise_signal(signal.SIGINT)
except SystemExit:
    pass
"""


class TraceTestCase(unittest.TestCase):
    maxDiff = None

    def assert_hits(self, output: str, expected, pid: Optional[int] = None, ignored: Sequence[str] = ()):
        """`ignored`: arguments left out of the comparison."""
        actual = []
        for probe, fields, hit_pid in hits(output):
            if pid is not None:
                self.assertEqual(hit_pid, pid, f"{probe} fired in another process")
            for name, value in fields.items():
                if value.startswith("0x") and value != "0x0" and int(value, 16) > 0x1000:
                    fields[name] = "POINTER"
                elif value.isdigit() and int(value) > 0x100000:
                    fields[name] = "ADDRESS"
            actual.append((probe, {name: value for name, value in fields.items() if name not in ignored}))
        expected = [(probe, {name: value for name, value in fields.items() if name not in ignored})
                    for probe, fields in expected]
        self.assertEqual(actual, expected)

    def assert_interrupted_quietly(self, result: subprocess.CompletedProcess):
        """Stopped by the Ctrl-C, with 130 (or by the signal itself, which a shell reports as 130,
        before the interpreter had a handler), and not a word on stderr (what was done may have
        been printed: usdt list can be interrupted as it exits)."""
        self.assertIn(result.returncode, (130, -signal.SIGINT), result)
        self.assertEqual(result.stderr, "")

    def assert_error(self, result: subprocess.CompletedProcess, message: str, prefix: str = "usdt: error: "):
        """One error line: `usdt: error: ...`, or a provider file's `file:line:col: error: ...`."""
        self.assertEqual(result.returncode, 1, result)
        self.assertEqual(result.stdout, "")
        self.assertRegex(result.stderr, r"^[^\n]+\n\Z")
        self.assertTrue(result.stderr.startswith(prefix), result.stderr)
        self.assertIn(message, result.stderr)


def parse_arguments() -> None:
    options, programs = usdt_testing.parse_usdt_options(PROGRAM_NAMES)
    vars(OPTIONS).update(vars(options))
    PROGRAMS.update(programs)
