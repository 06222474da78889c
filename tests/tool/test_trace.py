"""`usdt trace`, run through the build tree's launcher (bin/usdt) on this directory's programs:
one line per hit with the arguments named and formatted as the .d files declare them;
the stapsdt-notes fallback (sys/sdt.h) and a provider file given on the command line; a
command after `--` (its status is usdt's), a running process (-p, with its shared library's
probes, a library it has not loaded yet named, and one it loads while traced, in a bpftrace
of its own), Ctrl-C; and each error that says what is missing: root, bpftrace, probes.
Programs shaped like real ones: probes only in the libraries a program links or dlopen()s,
one static library's probe in two shared libraries of one process (which bpftrace 0.17's -p
mixes up), a C++ process (libstdc++ has probes too), paths with unusual characters, and
string literals nothing but the tracer reads.

What the programs fire is written here from their sources (programs/*.c), not taken from a
tracer. Everything but --script and the errors needs root and bpftrace.
"""

import argparse
import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import elf_notes
import launcher
import usdt_testing
from usdt_testing import require_tracer

OPTIONS: Optional[argparse.Namespace] = None
PROGRAMS: Dict[str, str] = {}
PROGRAM_NAMES = ("kvserver", "kvstore", "sdt_only", "plain", "broken", "twolibs", "core_a", "core_b", "cxxapp",
                 "bad_strings_c", "bad_strings_cpp")

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
# tool_twolibs --load-late: libtool_core_b.so's hit right after dlopen(), before the rounds.
LOADED_HIT = ("core:hit", {"who": "2", "value": "209", "from": '"from-b"'})
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
    """A program started with --wait, once it has said "ready"; closing its stdin sets it off."""
    started = subprocess.Popen([str(program), "--wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if started.stdout.readline() != "ready\n":
        started.kill()
        started.wait()
        raise AssertionError(f"{program} did not start")
    return started


def trace_process(program: subprocess.Popen, *patterns):
    """`usdt trace -p` on the waiting `program` until it ends: (usdt's result, the program's status)."""
    tracer = subprocess.Popen(usdt_command("trace", "-p", program.pid, *patterns), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        announcement = tracer.stderr.readline()
        program.stdin.close()     # the program fires its probes and exits; so does the trace
        output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
        status = program.wait(timeout=TRACE_TIMEOUT)
    finally:
        for process in (tracer, program):
            if process.poll() is None:
                process.kill()
                process.wait()
        program.stdout.close()
    return subprocess.CompletedProcess(tracer.args, tracer.returncode, output, announcement + errors), status


def start_loading_late() -> subprocess.Popen:
    """tool_twolibs --load-late, once it has said "ready": a line on its stdin makes it load
    libtool_core_b.so (and fire its probe at once); closing its stdin, fire the rounds and exit."""
    started = subprocess.Popen([PROGRAMS["twolibs"], "--load-late"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    if started.stdout.readline() != "ready\n":
        started.kill()
        started.wait()
        raise AssertionError("tool_twolibs --load-late did not start")
    return started


def hits(output: str):
    """(probe, {name: value}, pid) per line; any other line fails the parse."""
    parsed = []
    for line in output.splitlines():
        match = HIT_LINE.match(line)
        if match is None:
            raise AssertionError(f"not a hit line: {line!r}\nin:\n{output}")
        fields = dict(field.split("=", 1) for field in match[5].split())
        parsed.append((match[4], fields, int(match[2])))
    return parsed


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


class ScriptTest(TraceTestCase):
    """--script prints the bpftrace program: no root, no bpftrace needed."""

    def test_each_probe_prints_its_arguments_by_name_and_type(self):
        result = usdt("trace", PROGRAMS["kvserver"], "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        path = os.path.realpath(PROGRAMS["kvserver"])
        # A string is read once; a hit where it read "" from a pointer that is not NULL is
        # marked for usdt to read it (UnreadStringsTest).
        # Each probe counts its hits, for the account of those lost (test_trace_answers.py).
        self.assertIn(f'usdt:"{path}":kvcache:fill /@usdt_on/\n{{\n    @usdt_hits[0] = count();\n    $string1 = str(arg1);\n',
                      result.stdout)
        self.assertIn('    if ((arg1 != 0 && strncmp($string1, "", 1) == 0)) {\n'
                      '        printf("usdt-trace-unread 0 0x%lx 0x%lx '
                      '%llu pid=%d tid=%d kvcache:fill id=%llu key=\\"%s\\" op=%lld\\n",\n'
                      '               reg("ip"), strncmp($string1, "", 1) == 0 ? arg1 : 0,\n'
                      "               nsecs, pid, tid, arg0, $string1, arg2);\n"
                      "    } else {\n"
                      '        printf("%llu pid=%d tid=%d kvcache:fill id=%llu key=\\"%s\\" op=%lld\\n",\n'
                      "               nsecs, pid, tid, arg0, $string1, arg2);\n    }\n}", result.stdout)
        self.assertIn(f'usdt:"{path}":kvcache:get /@usdt_on/\n{{\n    @usdt_hits[1] = count();\n'
                      '    printf("%llu pid=%d tid=%d kvcache:get id=%llu status=%lld hit=%s entry=0x%lx\\n",\n'
                      '           nsecs, pid, tid, arg0, arg1, arg2 ? "true" : "false", arg3);\n}', result.stdout)
        self.assertIn(f'usdt:"{path}":kvserver:request__done /@usdt_on/\n{{\n    @usdt_hits[3] = count();\n'
                      '    printf("%llu pid=%d tid=%d kvserver:request__done id=%llu status=%lld latency_ns=%llu\\n",\n'
                      "           nsecs, pid, tid, arg0, arg1, arg2);\n}", result.stdout)

    def test_libraries_usdt_did_not_build_only_when_a_pattern_names_them(self):
        # cxxapp links libstdc++, whose sys/sdt.h probes have no .note.usdt records.
        quiet = usdt("trace", PROGRAMS["cxxapp"], "--script")
        self.assertEqual((quiet.returncode, quiet.stderr), (0, ""))
        self.assertIn(":cxxapp:work /@usdt_on/\n", quiet.stdout)
        self.assertNotIn("libstdc++", quiet.stdout)
        named = usdt("trace", PROGRAMS["cxxapp"], "cxxapp:*", "libstdcxx:throw", "--script")
        self.assertEqual((named.returncode, named.stderr), (0, ""))
        self.assertIn(":cxxapp:work /@usdt_on/\n", named.stdout)
        self.assertRegex(named.stdout, r'usdt:"[^"]*libstdc\+\+[^"]*":libstdcxx:throw /@usdt_on/\n')

    def test_a_process_with_patterns(self):
        # With -p, every operand is a pattern; the process's shared library is traced too.
        program = subprocess.Popen([PROGRAMS["kvserver"], "--wait"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(program.stdout.readline(), "ready\n")
            result = usdt("trace", "-p", program.pid, "kvcache:tick", "kvstore:*", "--script")
        finally:
            program.kill()
            program.wait()
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(re.findall(r'^usdt:"\S+/([^/"]+)":(\S+:\S+) /(?:pid == \d+ && )?@usdt_on/$', result.stdout, re.MULTILINE),
                         [("tool_kvserver", "kvcache:tick"), ("libtool_kvstore.so", "kvstore:lookup")])

    def test_names_that_are_not_identifiers_stay_out_of_the_program(self):
        # programs/broken.c: broken:injected's record names its first argument `x"%`.
        result = usdt("trace", PROGRAMS["broken"], "broken:injected", "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertIn('broken:injected arg0=%lld y=%lld\\n"', result.stdout)
        self.assertNotIn('x"', result.stdout)

    def test_a_link_with_a_plain_name_stands_for_a_path_bpftrace_cannot_take(self):
        # bpftrace 0.17 splits an attach point at ':' even within quotes.
        kvserver = copy_programs(OPTIONS.work_dir / "with:colon", "kvserver", "kvstore")["kvserver"]
        self.assert_error(usdt("trace", kvserver, "--script"),
                          f"{kvserver}: bpftrace cannot attach to a path with a colon, an asterisk or a control "
                          f"character; trace it through a link (ln -s) with a plain name; {kvserver.parent}/")
        link = OPTIONS.work_dir / "kvserver-link"
        link.symlink_to(kvserver)
        result = usdt("trace", link, "kvcache:tick", "--script")
        # The library it loads from its directory ($ORIGIN) cannot be traced there.
        self.assertEqual((result.returncode, result.stderr.count("\n")), (0, 1), result)
        self.assertRegex(result.stderr, r"^usdt: warning: .*/with:colon/libtool_kvstore.so: .*its probes are left out\n")
        self.assertIn(f'usdt:"{link}":kvcache:tick /@usdt_on/\n', result.stdout)

    def test_paths_are_quoted(self):
        # libstdc++.so.6 is a syntax error unquoted; a space, quotes and a backslash are escaped.
        copies = copy_programs(OPTIONS.work_dir / UNUSUAL_DIRECTORY, "kvserver", "kvstore")
        result = usdt("trace", copies["kvserver"], "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertIn(f"usdt:{bpftrace_path(copies['kvserver'])}:kvcache:tick /@usdt_on/\n{{\n", result.stdout)
        self.assertIn(f"usdt:{bpftrace_path(copies['kvstore'])}:kvstore:lookup /@usdt_on/\n{{\n", result.stdout)

    def test_a_file_bpftrace_cannot_attach_to_is_left_out_with_a_warning(self):
        # An '*' in a quoted path is still a wildcard: another file could match it.
        library = copy_programs(OPTIONS.work_dir / "star*", "kvstore")["kvstore"]
        result = usdt("trace", PROGRAMS["kvserver"], library, "--script")
        self.assertEqual(result.returncode, 0, result)
        self.assertEqual(result.stderr, f"usdt: warning: {library}: bpftrace cannot attach to a path with a colon, "
                                        f"an asterisk or a control character; trace it through a link (ln -s) "
                                        f"with a plain name; its probes are left out\n")
        self.assertNotIn("star*", result.stdout)
        self.assertIn("kvstore:lookup", result.stdout)     # the library kvserver loads, from its own directory

    def test_the_libraries_a_program_loads_and_the_files_named(self):
        # tool_twolibs has no probes: libtool_core_a.so, which it links, has; libtool_core_b.so,
        # which it loads with dlopen(), is traced when named (an operand with a '/').
        result = usdt("trace", PROGRAMS["twolibs"], "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(re.findall(r'^usdt:"\S+/([^/"]+)":(\S+:\S+) /(?:pid == \d+ && )?@usdt_on/$', result.stdout, re.MULTILINE),
                         [("libtool_core_a.so", "core:hit")])
        result = usdt("trace", PROGRAMS["twolibs"], PROGRAMS["core_b"], "core:*", "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(re.findall(r'^usdt:"\S+/([^/"]+)":(\S+:\S+) /(?:pid == \d+ && )?@usdt_on/$', result.stdout, re.MULTILINE),
                         [("libtool_core_a.so", "core:hit"), ("libtool_core_b.so", "core:hit")])

    def test_one_probe_in_two_files_of_a_process_is_kept_to_it_by_a_predicate(self):
        # Not bpftrace -p, which mixes up the two files' sites: by path, and the process's pid.
        program = start_waiting(PROGRAMS["twolibs"])
        try:
            result = usdt("trace", "-p", program.pid, "--script")
        finally:
            program.kill()
            program.communicate()
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(sorted(re.findall(r'^usdt:"\S+/([^/"]+)":(\S+:\S+) /(.*) && @usdt_on/$', result.stdout, re.MULTILINE)),
                         [(os.path.basename(PROGRAMS[name]), "core:hit", f"pid == {program.pid}")
                          for name in ("core_a", "core_b")])

    def test_glibc_s_probes_only_by_pattern_with_a_process(self):
        # A glibc built with sys/sdt.h (Debian unstable's) has probes in every process; where it
        # has none (Debian 12's, 13's), `libc:*` matches nothing.
        program = start_waiting(PROGRAMS["kvserver"])
        try:
            every = usdt("trace", "-p", program.pid, "--script")
            glibc = usdt("trace", "-p", program.pid, "libc:*", "rtld:*", "--script")
        finally:
            program.kill()
            program.communicate()
        self.assertEqual((every.returncode, every.stderr), (0, ""))
        self.assertEqual(re.findall(r'^usdt:"\S+":((?:libc|rtld):\S+)', every.stdout, re.MULTILINE), [])
        if glibc.returncode == 0:
            attached = re.findall(r'^usdt:"\S+":(\w+):\S+', glibc.stdout, re.MULTILINE)
            self.assertEqual(set(attached), {"libc", "rtld"})
            # glibc's memory_* probes pass values at a symbol's address, which bpftrace cannot read.
            self.assertRegex(glibc.stderr, r"^usdt: warning: \S+libc\.so\.6: (libc:memory_\w+ )*libc:memory_\w+: "
                                           r"left out: bpftrace cannot read an argument at a symbol's address "
                                           r"\(8@\d+\+mp_\(%rip\)\)\n\Z")
        else:
            self.assertIn("matches libc:*, rtld:*", glibc.stderr)

    def test_a_process_and_a_file_it_has_not_loaded(self):
        # bpftrace 0.17's -p attaches only to mapped files: by path, and the process's pid.
        program = start_loading_late()
        try:
            result = usdt("trace", "-p", program.pid, PROGRAMS["core_b"], "--script")
        finally:
            program.kill()
            program.communicate()
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(sorted(set(re.findall(r'^usdt:"\S+/([^/"]+)":(\S+:\S+) /pid == (\d+)\b', result.stdout,
                                               re.MULTILINE))),
                         [(os.path.basename(PROGRAMS[name]), "core:hit", str(program.pid)) for name in ("core_a", "core_b")])

    def test_patterns_choose_probes(self):
        result = usdt("trace", PROGRAMS["kvserver"], "kvserver:request__*", "--script")
        self.assertEqual(re.findall(r"^usdt:[^:]+:(\S+) /@usdt_on/$", result.stdout, re.MULTILINE),
                         ["kvserver:request__done", "kvserver:request__start"])
        # A provider alone means all of its probes.
        result = usdt("trace", PROGRAMS["kvserver"], "kvcache", "--script")
        self.assertEqual(len(re.findall(r"^usdt:", result.stdout, re.MULTILINE)), 3)


class StartupInterruptTest(TraceTestCase):
    """A Ctrl-C while usdt starts (no root needed: nothing is attached): exit 130 and no
    traceback, whichever moment it comes, or the usual result where usdt was done first."""

    def test_ctrl_c_at_any_moment_of_the_start(self):
        for arguments in (("trace", PROGRAMS["kvserver"], "--script"), ("list", PROGRAMS["kvserver"])):
            for delay in INTERRUPT_DELAYS:
                with self.subTest(arguments=arguments[0], delay=delay):
                    result = interrupted(delay, *arguments)
                    if result.returncode != 0:
                        self.assert_interrupted_quietly(result)
                    else:
                        self.assertEqual(result.stderr, "")
                        self.assertIn("kvcache:fill", result.stdout)

    def test_ctrl_c_in_a_callback_whose_exceptions_python_drops(self):
        with tempfile.TemporaryDirectory() as directory:
            Path(directory, "sitecustomize.py").write_text(CTRL_C_IN_A_CALLBACK)
            for arguments in (("trace", PROGRAMS["kvserver"], "--script"), ("list", PROGRAMS["kvserver"])):
                with self.subTest(arguments=arguments[0]):
                    self.assert_interrupted_quietly(usdt(*arguments, environment={"PYTHONPATH": directory}))


class FastElfReadingTest(unittest.TestCase):
    """What usdt reads with struct rather than pyelftools, which takes a good part of its
    start-up: elf.may_have_probes() says False only for files without probes (libc, libm...),
    and a file's linkage and probes are pyelftools's own, on every program here and the
    libraries they load. (Under the interpreter usdt runs in, which has pyelftools.)"""

    SCRIPT = """
import sys
import tempfile
from usdttool import elf, libraries
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
from usdttool import output, supervisor
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
from usdtgen.tracer_probe import TracerProbe
from usdttool import hits, output
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


class ErrorTest(TraceTestCase):
    def test_a_pattern_that_matches_nothing_names_the_probes_there_are(self):
        result = usdt("trace", PROGRAMS["kvserver"], "kvserver:request*", "kvserver:nope", "--script")
        result.stderr = without_glibc_probes(result.stderr)
        self.assert_error(result, f"no probe of {PROGRAMS['kvserver']} matches kvserver:nope; its probes: "
                                  f"{KVSERVER_PROBES}\n")

    def test_a_binary_without_probes(self):
        self.assert_error(usdt("trace", PROGRAMS["plain"]),
                          f"{PROGRAMS['plain']} and the shared libraries it loads have no USDT probes")

    def test_a_file_without_a_slash_is_a_pattern(self):
        # `usdt trace ./app libfoo.so` meant the file: the error says how to name it.
        directory = Path(PROGRAMS["kvserver"]).parent
        result = subprocess.run(usdt_command("trace", PROGRAMS["kvserver"], "libtool_kvstore.so", "--script"),
                                capture_output=True, text=True, cwd=directory, timeout=TRACE_TIMEOUT)
        result.stderr = without_glibc_probes(result.stderr)
        self.assert_error(result, f"no probe of {PROGRAMS['kvserver']} matches libtool_kvstore.so; its probes: "
                                  f"{KVSERVER_PROBES} (to trace the file libtool_kvstore.so too, write "
                                  "./libtool_kvstore.so)")

    def test_with_pid_a_file_without_a_slash_is_a_pattern(self):
        # The hint is taken: `./FILE` is the file, loaded by the process or not.
        program = start_loading_late()
        directory = Path(PROGRAMS["core_b"]).parent
        try:
            result = subprocess.run(usdt_command("trace", "-p", program.pid, "libtool_core_b.so", "--script"),
                                    capture_output=True, text=True, cwd=directory, timeout=TRACE_TIMEOUT)
            result.stderr = without_glibc_probes(result.stderr)
            self.assert_error(result, f"no probe of process {program.pid} matches libtool_core_b.so; its probes: "
                                      "core:hit (to trace the file libtool_core_b.so too, write ./libtool_core_b.so)")
            result = subprocess.run(usdt_command("trace", "-p", program.pid, "./libtool_core_b.so", "--script"),
                                    capture_output=True, text=True, cwd=directory, timeout=TRACE_TIMEOUT)
            self.assertEqual((result.returncode, result.stderr), (0, ""))
            self.assertIn(f'usdt:"{PROGRAMS["core_b"]}":core:hit /pid == {program.pid}', result.stdout)
            self.assert_error(usdt("trace", "-p", program.pid, PROGRAMS["plain"]),
                              f"{PROGRAMS['plain']} has no USDT probes")
        finally:
            program.kill()
            program.communicate()

    def test_a_missing_file(self):
        self.assert_error(usdt("trace", "/nonexistent/app"), "/nonexistent/app")

    def test_binary_or_pid(self):
        self.assert_error(usdt("trace"), "give a BINARY or -p PID to trace")
        self.assert_error(usdt("trace", "-p", os.getpid(), "--", "true"),
                          "-p PID traces a running process; a command after `--` needs a BINARY instead")

    def test_not_root(self):
        if os.geteuid() != 0:
            self.skipTest("runs `usdt trace` as nobody, which needs root to arrange")
        nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--inh-caps=-all"]
        result = usdt("trace", PROGRAMS["kvserver"], prefix=nobody)
        self.assert_error(result, "usdt trace needs root to attach uprobes with bpftrace")

    def test_no_bpftrace(self):
        # Nothing on PATH: the launcher runs under Debian's interpreter, found without PATH.
        result = subprocess.run(["/usr/bin/python3", *usdt_command("trace", PROGRAMS["kvserver"])],
                                capture_output=True, text=True, env=dict(os.environ, PATH="/nonexistent"),
                                timeout=TRACE_TIMEOUT)
        self.assert_error(result, "usdt trace runs bpftrace, which is not installed "
                                  "(Debian/Ubuntu: apt-get install bpftrace)")

    def test_a_bpftrace_older_than_the_minimum(self):
        fake = OPTIONS.work_dir / "old-bpftrace"
        fake.mkdir(parents=True, exist_ok=True)
        (fake / "bpftrace").write_text("#!/bin/sh\necho bpftrace v0.16.0\n")
        (fake / "bpftrace").chmod(0o755)
        result = usdt("trace", PROGRAMS["kvserver"], environment={"PATH": f"{fake}:{os.environ['PATH']}"})
        self.assert_error(result, f"usdt trace needs bpftrace 0.17 or newer, and {fake}/bpftrace is 0.16.0")

    def test_a_provider_file_that_does_not_fit_the_notes(self):
        provider_file = OPTIONS.work_dir / "sizes.d"
        provider_file.write_text("provider kvcache {\n"
                                 "    probe fill(uint32_t id, const char *key, int op);\n};\n")
        self.assert_error(usdt("trace", PROGRAMS["kvserver"], "-d", provider_file, "--script"),
                          f"{provider_file}:2:11: error: kvcache:fill is declared here with arguments "
                          f"of (4, 8, -4), but {PROGRAMS['kvserver']}'s notes say (8, 8, -4)", prefix=str(provider_file))

    def test_a_provider_file_with_an_error(self):
        provider_file = OPTIONS.work_dir / "broken.d"
        provider_file.write_text("provider kvcache {\n    probe x(float f);\n};\n")
        self.assert_error(usdt("trace", PROGRAMS["kvserver"], "-d", provider_file, "--script"),
                          f"{provider_file}:2:13: error: argument type 'float'", prefix=str(provider_file))


    def test_a_provider_file_the_preprocessor_rejects(self):
        # The preprocessor's own diagnostics, which say where, and no traceback.
        provider_file = OPTIONS.work_dir / "includes_missing.d"
        provider_file.write_text('#include "missing_header.h"\nprovider kvcache {\n    probe tick();\n};\n')
        result = usdt("trace", PROGRAMS["kvserver"], "-d", provider_file, "--script")
        self.assertEqual((result.returncode, result.stdout), (1, ""), result)
        self.assertTrue(result.stderr.startswith(f"{provider_file}:1:"), result.stderr)
        self.assertIn("missing_header.h", result.stderr)
        self.assertNotIn("Traceback", result.stderr)

    def test_errors_before_the_program_never_import_jinja2(self):
        # Jinja2, a good part of usdt's start-up, renders the program alone: a Jinja2 that fails
        # to import changes nothing until then.
        fake = OPTIONS.work_dir / "unimportable-modules"
        (fake / "jinja2").mkdir(parents=True, exist_ok=True)
        (fake / "jinja2" / "__init__.py").write_text('raise ImportError("usdt imported jinja2", name="jinja2")\n')
        environment = {"PYTHONPATH": str(fake)}
        self.assert_error(usdt("trace", PROGRAMS["plain"], environment=environment),
                          f"{PROGRAMS['plain']} and the shared libraries it loads have no USDT probes")
        result = usdt("trace", PROGRAMS["kvserver"], "kvserver:nope", "--script", environment=environment)
        result.stderr = without_glibc_probes(result.stderr)
        self.assert_error(result, f"no probe of {PROGRAMS['kvserver']} matches kvserver:nope")
        self.assert_error(usdt("trace", PROGRAMS["kvserver"], "--histogram", "kvserver:nope:x", "--script",
                               environment=environment), "--histogram: no traced probe is named kvserver:nope")

class LiveTest(TraceTestCase):
    """bpftrace attached for real (root)."""

    def setUp(self):
        require_tracer(self, "bpftrace")

    def test_a_command_with_its_status_and_arguments(self):
        # A shell runs the program and exits 3: usdt exits 3, after every hit. The program
        # and the library it loads are copies in a directory whose path must be quoted; an
        # argument with a space reaches the command whole (else the shell exits 1).
        copies = copy_programs(OPTIONS.work_dir / UNUSUAL_DIRECTORY, "kvserver", "kvstore")
        result = usdt("trace", copies["kvserver"], "--", "/bin/sh", "-c",
                      'test "$1" = "a b" || exit 1; "$0" > /dev/null; exit 3', copies["kvserver"], "a b")
        self.assertEqual(result.returncode, 3, result)
        # With the library it loads.
        self.assertIn(f"usdt: tracing 6 probes of {copies['kvserver']}, in 2 files", result.stderr)
        self.assertIn("(names and types from kvcache.d, kvserver.d, kvstore.d)", result.stderr)
        self.assert_hits(result.stdout, KVSERVER_HITS + KVSTORE_HITS)

    def test_probes_described_by_their_notes_only(self):
        result = usdt("trace", PROGRAMS["sdt_only"], "--", PROGRAMS["sdt_only"])
        self.assertEqual(result.returncode, 0, result)
        self.assertIn("(names and types from the stapsdt notes)", result.stderr)
        self.assert_hits(result.stdout, SDT_ONLY_HITS)

    def test_names_from_a_provider_file(self):
        provider_file = OPTIONS.work_dir / "renamed.d"
        provider_file.write_text("provider sdtapp { probe hello(int32_t count, uint64_t total, char letter); };\n")
        result = usdt("trace", PROGRAMS["sdt_only"], "-d", provider_file, "sdtapp:hello", "--", PROGRAMS["sdt_only"])
        self.assertEqual(result.returncode, 0, result)
        self.assertIn("(names and types from renamed.d)", result.stderr)
        self.assert_hits(result.stdout, [("sdtapp:hello", {"count": "-3", "total": "7", "letter": "120"})])

    def test_a_running_process_and_its_shared_library(self):
        program = subprocess.Popen([PROGRAMS["kvserver"], "--wait"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(program.stdout.readline(), "ready\n")
            tracer = subprocess.Popen(usdt_command("trace", "-p", program.pid), stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
            announcement = tracer.stderr.readline()
            self.assertIn(f"usdt: tracing 6 probes of process {program.pid}", announcement)
            program.stdin.close()     # the program fires its probes and exits; so does bpftrace
            output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
        finally:
            program.kill()
            program.wait()
        self.assertEqual((tracer.returncode, errors), (0, ""))
        lines = hits(output)
        from_library = [line for line in lines if line[0].startswith("kvstore:")]
        self.assert_hits("\n".join(line for line in output.splitlines() if " kvstore:" not in line),
                         KVSERVER_HITS, pid=program.pid)
        self.assertEqual([(probe, fields) for probe, fields, _ in from_library], KVSTORE_HITS)

    def test_probes_in_the_libraries_a_program_loads(self):
        # The program has none: the library it links has, and the one it dlopen()s when named.
        # The string literals are on pages nothing but the tracer reads: bpftrace reads them as
        # "", usdt from the library's file (the program may have exited), from the first hit on.
        result = usdt("trace", PROGRAMS["twolibs"], "--", PROGRAMS["twolibs"])
        self.assertEqual(result.returncode, 0, result)
        self.assertIn(f"usdt: tracing 1 probe of {PROGRAMS['twolibs']} (names and types from core.d)", result.stderr)
        self.assert_hits(result.stdout, TWOLIBS_HITS[0::2])
        result = usdt("trace", PROGRAMS["twolibs"], PROGRAMS["core_b"], "--", PROGRAMS["twolibs"])
        self.assertEqual(result.returncode, 0, result)
        self.assert_hits(result.stdout, TWOLIBS_HITS)

    def test_one_probe_in_two_libraries_of_a_process(self):
        # bpftrace 0.17's -p attached one library's site to the other (garbage, SIGSEGV):
        # each library's own values, and the program ends as it would untraced. programs/core_a.c
        # and core_b.c pass string literals nothing else reads, on pages the process never
        # touched: with -p, usdt faults the traced files' pages in before attaching.
        for patterns in ((), ("core:hit",)):
            with self.subTest(patterns=patterns):
                program = start_waiting(PROGRAMS["twolibs"])
                result, status = trace_process(program, *patterns)
                self.assertEqual((result.returncode, status), (0, 0), result)
                self.assertEqual(result.stderr, f"usdt: tracing 2 probes of process {program.pid}, in 2 files "
                                                f"(names and types from core.d); Ctrl-C to stop\n")
                self.assert_hits(result.stdout, TWOLIBS_HITS, pid=program.pid)

    def test_a_library_named_before_the_process_loads_it(self):
        # Attached by its path from the start: from the first hit after dlopen(), no bpftrace more.
        output, pid = self.trace_loading_late(
            PROGRAMS["core_b"], says=lambda pid: None,
            announced=lambda pid: f"usdt: tracing 2 probes of process {pid}, in 2 files (names and types from "
                                  f"core.d); Ctrl-C to stop\n")
        self.assert_hits(output, [LOADED_HIT, *TWOLIBS_HITS], pid=pid)

    def trace_loading_late(self, *arguments, says=None, announced=None):
        """`usdt trace -p` on tool_twolibs --load-late, which loads libtool_core_b.so once usdt
        has announced it traces (`announced(pid)`, if given), then, once usdt says it traces
        that library too (or `says(pid)`, if given; nothing, if that is None), fires the rounds
        and exits: (usdt's standard output, the program's pid)."""
        program = start_loading_late()
        tracer = subprocess.Popen(usdt_command("trace", "-p", program.pid, *arguments), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(tracer.stderr.readline(),
                             announced(program.pid) if announced else
                             f"usdt: tracing 1 probe of process {program.pid} (names and types from core.d); "
                             f"Ctrl-C to stop\n")
            program.stdin.write("load\n")
            program.stdin.flush()
            self.assertEqual(program.stdout.readline(), "loaded\n")
            later = says(program.pid) if says else (f"usdt: tracing 1 more probe of process {program.pid}, in "
                                                   f"{PROGRAMS['core_b']}, loaded since (names and types from "
                                                   f"core.d)\n")
            if later is not None:
                self.assertEqual(tracer.stderr.readline(), later)
            program.stdin.close()
            output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
            status = program.wait(timeout=TRACE_TIMEOUT)
        finally:
            for process in (tracer, program):
                if process.poll() is None:
                    process.kill()
                    process.wait()
            program.stdout.close()
        self.assertEqual((tracer.returncode, errors, status), (0, "", 0))
        return output, program.pid

    def test_a_library_the_process_loads_after_usdt_attached(self):
        # Traced once usdt has seen it mapped and another bpftrace has attached to it (a line on
        # stderr says so): not the hit fired right after dlopen(), every later one. Two
        # bpftraces: each one's lines in order, their nsecs tell the order of both.
        output, pid = self.trace_loading_late()
        lines = sorted(output.splitlines(), key=lambda line: int(line.split()[0]))
        self.assert_hits("\n".join(lines), TWOLIBS_HITS, pid=pid)

    def test_a_library_the_process_loads_after_usdt_attached_as_json(self):
        output, pid = self.trace_loading_late("--json")
        objects = sorted((json.loads(line) for line in output.splitlines()), key=lambda hit: hit["monotonic_ns"])
        self.assertEqual([(hit["type"], hit["probe"], hit["pid"], hit["args"]) for hit in objects],
                         [("hit", probe, pid, {"who": int(fields["who"]), "value": int(fields["value"]),
                                               "from": fields["from"].strip('"')})
                          for probe, fields in TWOLIBS_HITS])

    def test_summaries_leave_out_a_library_the_process_loads_later(self):
        # Counted by the first bpftrace alone: a warning says how to count the library too.
        library = PROGRAMS["core_b"]
        output, pid = self.trace_loading_late(
            "--count", "--json",
            says=lambda pid: f"usdt: warning: process {pid} loaded {library} since usdt started: the summaries "
                             f"count the files traced from the start alone; to include it, name it: "
                             f"usdt trace -p {pid} {library}\n")
        counts = [json.loads(line) for line in output.splitlines()]
        self.assertEqual([(summary["type"], summary["hits"]) for summary in counts], [("counts", {"core:hit": 3})])

    def test_pointers_nothing_can_read_crash_neither_the_program_nor_usdt(self):
        # tests/integration/programs/bad_pointers.h: NULL, (const char *)1, unmapped and
        # PROT_NONE memory, an unterminated string running into it, then "good"; to bad:text
        # (a semaphore; the C++ API in the C++ program) and bad:unguarded (none, a macro).
        # usdt's status is the program's own.
        for name in ("bad_strings_c", "bad_strings_cpp"):
            with self.subTest(program=name):
                result = usdt("trace", PROGRAMS[name], "--", PROGRAMS[name])
                self.assertEqual(result.returncode, 0, result)
                lines = hits(result.stdout)
                self.assertEqual([(probe, fields["number"]) for probe, fields, _ in lines],
                                 [(probe, str(number)) for number in range(1, 7)
                                  for probe in ("bad:text", "bad:unguarded")])
                texts = [fields["text"] for _, fields, _ in lines]
                self.assertEqual(texts[:2] + texts[-2:], ['""', '""', '"good"', '"good"'])
                for text in texts[2:-2]:
                    # Read as "" by bpftrace; usdt says what it found, if it found the process.
                    self.assertRegex(text, r'^(""|<unreadable:0x[0-9a-f]+>)$')

    def test_a_cxx_process_and_libstdcxx(self):
        # libstdc++ maps as libstdc++.so.6.0.30: the path of its probes must be quoted.
        program = start_waiting(PROGRAMS["cxxapp"])
        result, status = trace_process(program)
        self.assertEqual((result.returncode, status), (0, 0), result)
        self.assertIn(f"usdt: tracing 4 probes of process {program.pid}, in 2 files "
                      f"(names and types from cxxapp.d, the stapsdt notes)", result.stderr)
        self.assert_hits(result.stdout, CXXAPP_HITS, pid=program.pid)

    def test_a_process_in_a_path_with_unusual_characters(self):
        # By path, test_a_command_with_its_status.
        copies = copy_programs(OPTIONS.work_dir / UNUSUAL_DIRECTORY, "kvserver", "kvstore")
        program = start_waiting(copies["kvserver"])
        result, status = trace_process(program)
        self.assertEqual((result.returncode, status), (0, 0), result)
        self.assert_hits(result.stdout, KVSERVER_HITS + KVSTORE_HITS, pid=program.pid)

    def test_ctrl_c_stops_cleanly(self):
        # As a terminal's Ctrl-C does: SIGINT to usdt's whole process group. Without
        # PYTHONUNBUFFERED, as a user's pipe (`usdt trace ... | grep`): lines must come as hits do.
        environment = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
        tracer = subprocess.Popen(usdt_command("trace", PROGRAMS["kvserver"]), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, start_new_session=True, env=environment)
        watchdog = threading.Timer(TRACE_TIMEOUT, tracer.kill)
        watchdog.start()
        self.addCleanup(watchdog.cancel)
        try:
            self.assertIn("Ctrl-C to stop", tracer.stderr.readline())
            bpftrace = subprocess.run(["pgrep", "-P", str(tracer.pid), "bpftrace"], capture_output=True,
                                      text=True).stdout.split()
            self.assertEqual(len(bpftrace), 1, "one bpftrace child")
            for _ in range(2):
                subprocess.run([PROGRAMS["kvserver"]], stdout=subprocess.DEVNULL, check=True)
            # Ctrl-C stops bpftrace at once, dropping hits it has not printed yet: wait for them.
            printed = [tracer.stdout.readline() for _ in range(len(KVSERVER_HITS + KVSTORE_HITS) * 2)]
            os.killpg(tracer.pid, signal.SIGINT)
            output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
            output = "".join(printed) + output
        finally:
            if tracer.poll() is None:
                tracer.kill()
        self.assertEqual((tracer.returncode, errors), (0, ""))
        self.assert_hits(output, (KVSERVER_HITS + KVSTORE_HITS) * 2)
        self.assertFalse(Path(f"/proc/{bpftrace[0]}").exists(), "bpftrace outlived usdt trace")

    def test_ctrl_c_while_starting_or_attaching(self):
        # Before the announcement: 130, nothing printed, no bpftrace left; after it, a plain stop
        # (130 where the Ctrl-C came as bpftrace attached).
        for delay in INTERRUPT_DELAYS:
            with self.subTest(delay=delay):
                result = interrupted(delay, "trace", PROGRAMS["kvserver"])
                if "Ctrl-C to stop" in result.stderr:
                    self.assertIn(result.returncode, (0, 130), result)
                    self.assertNotIn("Traceback", result.stderr)
                else:
                    self.assert_interrupted_quietly(result)
        self.assertEqual(subprocess.run(["pgrep", "-f", f"bpftrace .*{PROGRAMS['kvserver']}"], capture_output=True,
                                        text=True).stdout, "", "a bpftrace outlived usdt")

    def test_bpftrace_does_not_outlive_usdt(self):
        # One `usdt trace` per signal, all attached, then all signalled, at once: nothing fires
        # their probes, and each bpftrace takes its time to stop.
        stops = (signal.SIGTERM, signal.SIGHUP, signal.SIGKILL)
        tracers = [subprocess.Popen(usdt_command("trace", PROGRAMS["kvserver"]), stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True, start_new_session=True) for _ in stops]
        for tracer in tracers:
            self.addCleanup(tracer.wait)
            self.addCleanup(tracer.kill)
        children = []
        for tracer in tracers:
            self.assertIn("Ctrl-C to stop", tracer.stderr.readline())
            bpftrace = subprocess.run(["pgrep", "-P", str(tracer.pid), "bpftrace"], capture_output=True,
                                      text=True).stdout.split()
            self.assertEqual(len(bpftrace), 1, "one bpftrace child")
            children.append(bpftrace[0])
        for stop, tracer in zip(stops, tracers):
            os.kill(tracer.pid, stop)   # usdt alone
        deadline = time.monotonic() + TRACE_TIMEOUT
        for stop, tracer, bpftrace in zip(stops, tracers, children):
            with self.subTest(signal=stop.name):
                tracer.wait(timeout=TRACE_TIMEOUT)
                while Path(f"/proc/{bpftrace}/exe").exists() and time.monotonic() < deadline:
                    time.sleep(0.1)
                self.assertFalse(Path(f"/proc/{bpftrace}/exe").exists(), f"bpftrace outlived {stop.name}")


def parse_arguments() -> None:
    global OPTIONS
    OPTIONS, programs = usdt_testing.parse_usdt_options(PROGRAM_NAMES)
    PROGRAMS.update(programs)


if __name__ == "__main__":
    parse_arguments()
    usdt_testing.main()
