"""`usdt trace`, run through the build tree's launcher (bin/usdt) on this directory's programs:
one line per hit with the arguments named and formatted as probes/kvserver.d declares them;
the stapsdt-notes fallback (sys/sdt.h) and a provider file given on the command line; a
command after `--` (its status is usdt's), a running process (-p, with its shared library's
probes), Ctrl-C; and each error that says what is missing: root, bpftrace, probes.

What the programs fire is written here from their sources (programs/*.c), not taken from a
tracer. Everything but --script and the errors needs root and bpftrace.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import unittest
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import usdt_testing
from usdt_testing import require_tracer

OPTIONS: Optional[argparse.Namespace] = None
PROGRAMS: Dict[str, str] = {}
PROGRAM_NAMES = ("kvserver", "sdt_only", "plain", "broken")

# `NSECS pid=PID tid=TID provider:probe name=value...`
HIT_LINE = re.compile(r"^(\d+) pid=(\d+) tid=(\d+) (\S+:\S+)((?: \S+=\S*)*)$")

# programs/kvserver.c and kvstore.c, in firing order: probe and its arguments as printed.
# Pointers print in hex; the entry's address is only known to be a user-space one.
KVSERVER_HITS = [
    ("kvserver:request__start", {"id": "1", "key": '"alpha"', "op": "2"}),
    ("kvserver:request__done", {"id": "1", "status": "0", "hit": "true", "entry": "POINTER"}),
    ("kvserver:request__start", {"id": "2", "key": '"beta"', "op": "1"}),
    ("kvserver:tick", {}),
]
KVSTORE_HITS = [("kvstore:lookup", {"key": '"alpha"', "length": "5"})]
# programs/sdt_only.c: DTRACE_PROBE3(sdtapp, hello, -3, 7, 'x'), DTRACE_PROBE(sdtapp, bye).
SDT_ONLY_HITS = [("sdtapp:hello", {"arg0": "-3", "arg1": "7", "arg2": "120"}), ("sdtapp:bye", {})]

TRACE_TIMEOUT = 60


def usdt_command(*arguments) -> List[str]:
    # Through the launcher's own interpreter line, unless a test empties PATH.
    return [OPTIONS.usdt, *map(str, arguments)]


def usdt(*arguments, environment: Optional[Dict[str, str]] = None,
         prefix: Sequence[str] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, *usdt_command(*arguments)], capture_output=True, text=True, check=False,
                          env=dict(os.environ, **(environment or {})), timeout=TRACE_TIMEOUT)


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


class TraceTestCase(unittest.TestCase):
    maxDiff = None

    def assert_hits(self, output: str, expected, pid: Optional[int] = None):
        actual = []
        for probe, fields, hit_pid in hits(output):
            if pid is not None:
                self.assertEqual(hit_pid, pid, f"{probe} fired in another process")
            for name, value in fields.items():
                if value.startswith("0x") and value != "0x0" and int(value, 16) > 0x1000:
                    fields[name] = "POINTER"
            actual.append((probe, fields))
        self.assertEqual(actual, expected)

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
        self.assertIn(f"usdt:{path}:kvserver:request__start\n{{\n"
                      '    printf("%llu pid=%d tid=%d kvserver:request__start id=%llu key=\\"%s\\" op=%lld\\n",\n'
                      "           nsecs, pid, tid, arg0, str(arg1), arg2);\n}", result.stdout)
        self.assertIn(f"usdt:{path}:kvserver:request__done\n{{\n"
                      '    printf("%llu pid=%d tid=%d kvserver:request__done id=%llu status=%lld hit=%s entry=0x%lx\\n",\n'
                      '           nsecs, pid, tid, arg0, arg1, arg2 ? "true" : "false", arg3);\n}', result.stdout)

    def test_a_process_with_patterns(self):
        # With -p, every operand is a pattern; the process's shared library is traced too.
        program = subprocess.Popen([PROGRAMS["kvserver"], "--wait"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(program.stdout.readline(), "ready\n")
            result = usdt("trace", "-p", program.pid, "kvserver:tick", "kvstore:*", "--script")
        finally:
            program.kill()
            program.wait()
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(re.findall(r"^usdt:\S+/(\S+):(\S+:\S+)$", result.stdout, re.MULTILINE),
                         [("tool_kvserver", "kvserver:tick"), ("libtool_kvstore.so", "kvstore:lookup")])

    def test_names_that_are_not_identifiers_stay_out_of_the_program(self):
        # programs/broken.c: broken:injected's record names its first argument `x"%`.
        result = usdt("trace", PROGRAMS["broken"], "broken:injected", "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertIn('broken:injected arg0=%lld y=%lld\\n"', result.stdout)
        self.assertNotIn('x"', result.stdout)

    def test_a_link_with_a_plain_name_stands_for_a_path_bpftrace_cannot_take(self):
        directory = OPTIONS.work_dir / "with space"
        directory.mkdir()
        shutil.copy(PROGRAMS["kvserver"], directory / "kvserver")
        self.assert_error(usdt("trace", directory / "kvserver", "--script"),
                          "bpftrace cannot attach to a path with a space, quote or colon")
        link = OPTIONS.work_dir / "kvserver-link"
        link.symlink_to(directory / "kvserver")
        result = usdt("trace", link, "kvserver:tick", "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertIn(f"usdt:{link}:kvserver:tick\n", result.stdout)

    def test_patterns_choose_probes(self):
        result = usdt("trace", PROGRAMS["kvserver"], "kvserver:request__*", "--script")
        self.assertEqual(re.findall(r"^usdt:[^:]+:(\S+)$", result.stdout, re.MULTILINE),
                         ["kvserver:request__done", "kvserver:request__start"])
        # A provider alone means all of its probes.
        result = usdt("trace", PROGRAMS["kvserver"], "kvserver", "--script")
        self.assertEqual(len(re.findall(r"^usdt:", result.stdout, re.MULTILINE)), 3)


class ErrorTest(TraceTestCase):
    def test_a_pattern_that_matches_nothing_names_the_probes_there_are(self):
        self.assert_error(usdt("trace", PROGRAMS["kvserver"], "kvserver:request*", "kvserver:nope", "--script"),
                          "no probe of {} matches kvserver:nope; its probes: kvserver:request__done "
                          "kvserver:request__start kvserver:tick".format(PROGRAMS["kvserver"]))

    def test_a_binary_without_probes(self):
        self.assert_error(usdt("trace", PROGRAMS["plain"]), f"{PROGRAMS['plain']} has no USDT probes")

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

    def test_a_provider_file_that_does_not_fit_the_notes(self):
        provider_file = OPTIONS.work_dir / "sizes.d"
        provider_file.write_text("provider kvserver {\n"
                                 "    probe request__start(uint32_t id, const char *key, int op);\n};\n")
        self.assert_error(usdt("trace", PROGRAMS["kvserver"], "-d", provider_file, "--script"),
                          f"{provider_file}:2:11: error: kvserver:request__start is declared here with arguments "
                          f"of (4, 8, -4), but {PROGRAMS['kvserver']}'s notes say (8, 8, -4)", prefix=str(provider_file))

    def test_a_provider_file_with_an_error(self):
        provider_file = OPTIONS.work_dir / "broken.d"
        provider_file.write_text("provider kvserver {\n    probe x(float f);\n};\n")
        self.assert_error(usdt("trace", PROGRAMS["kvserver"], "-d", provider_file, "--script"),
                          f"{provider_file}:2:13: error: argument type 'float'", prefix=str(provider_file))


class LiveTest(TraceTestCase):
    """bpftrace attached for real (root)."""

    def setUp(self):
        require_tracer(self, "bpftrace")

    def test_a_command_with_its_status(self):
        # A shell runs the program and exits 3: usdt exits 3, after every hit.
        script = f'"{PROGRAMS["kvserver"]}" > /dev/null; exit 3'
        result = usdt("trace", PROGRAMS["kvserver"], "--", "/bin/sh", "-c", script)
        self.assertEqual(result.returncode, 3, result)
        self.assertIn("usdt: tracing 3 probes of", result.stderr)
        self.assertIn("(names and types from kvserver.d)", result.stderr)
        self.assert_hits(result.stdout, KVSERVER_HITS)

    def test_arguments_with_spaces_reach_the_command(self):
        result = usdt("trace", PROGRAMS["kvserver"], "kvserver:tick", "--", "/bin/sh", "-c",
                      f'test "$1" = "a b" && exec "{PROGRAMS["kvserver"]}" > /dev/null', "sh", "a b")
        self.assertEqual(result.returncode, 0, result)
        self.assert_hits(result.stdout, [("kvserver:tick", {})])

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
            self.assertIn(f"usdt: tracing 4 probes of process {program.pid}", announcement)
            program.stdin.close()     # the program fires its probes and exits; so does bpftrace
            output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
        finally:
            program.kill()
            program.wait()
        self.assertEqual((tracer.returncode, errors), (0, ""))
        lines = hits(output)
        from_library = [line for line in lines if line[0].startswith("kvstore:")]
        self.assert_hits("\n".join(line for line in output.splitlines() if " kvserver:" in line),
                         KVSERVER_HITS, pid=program.pid)
        self.assertEqual([(probe, fields) for probe, fields, _ in from_library], KVSTORE_HITS)

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
            printed = [tracer.stdout.readline() for _ in range(len(KVSERVER_HITS) * 2)]
            os.killpg(tracer.pid, signal.SIGINT)
            output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
            output = "".join(printed) + output
        finally:
            if tracer.poll() is None:
                tracer.kill()
        self.assertEqual((tracer.returncode, errors), (0, ""))
        self.assert_hits(output, KVSERVER_HITS * 2)
        self.assertFalse(Path(f"/proc/{bpftrace[0]}").exists(), "bpftrace outlived usdt trace")

    def test_bpftrace_does_not_outlive_usdt(self):
        for stop in (signal.SIGTERM, signal.SIGHUP, signal.SIGKILL):
            with self.subTest(signal=stop.name):
                tracer = subprocess.Popen(usdt_command("trace", PROGRAMS["kvserver"]), stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True, start_new_session=True)
                self.assertIn("Ctrl-C to stop", tracer.stderr.readline())
                bpftrace = subprocess.run(["pgrep", "-P", str(tracer.pid), "bpftrace"], capture_output=True,
                                          text=True).stdout.split()
                self.assertEqual(len(bpftrace), 1, "one bpftrace child")
                os.kill(tracer.pid, stop)   # usdt alone
                tracer.wait(timeout=TRACE_TIMEOUT)
                deadline = time.monotonic() + TRACE_TIMEOUT
                while Path(f"/proc/{bpftrace[0]}/exe").exists() and time.monotonic() < deadline:
                    time.sleep(0.1)
                self.assertFalse(Path(f"/proc/{bpftrace[0]}/exe").exists(), f"bpftrace outlived {stop.name}")


def parse_arguments() -> None:
    global OPTIONS
    parser = argparse.ArgumentParser()
    parser.add_argument("--usdt", required=True, help="the build tree's bin/usdt")
    parser.add_argument("--work-dir", type=Path, required=True)
    OPTIONS, programs = usdt_testing.parse_options(parser, PROGRAM_NAMES)
    PROGRAMS.update(programs)
    shutil.rmtree(OPTIONS.work_dir, ignore_errors=True)
    OPTIONS.work_dir.mkdir(parents=True)


if __name__ == "__main__":
    parse_arguments()
    usdt_testing.main()
