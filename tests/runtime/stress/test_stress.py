"""The stress program (stress.c) under a tracer that keeps attaching and detaching.

stress.c fires guarded and unguarded probes from several threads, forks children that fire
and exit, forks and execs itself, and loads, calls and unloads a library with probes in a
loop, until its standard input is closed. Without a tracer it must run and stop cleanly with
every guarded probe disabled. With bpftrace (root) attached and detached ATTACHES times, so
that semaphores flip while the threads run: each attachment sees the probes of the program,
of forked and of exec'd children, and of the library loaded afresh while attached; the
program exits 0 within a bound (no crash, no hang, every argument evaluated as often as its
probe fired), and bpftrace never counts more hits than the program made.

Phases last until the program reports (or bpftrace sees) the rounds of work they need, not
for a time: a sanitizer reports a race between two accesses that happened without ordering,
however short the run, once each concurrent path has run alongside the others, and every
round of forking, exec'ing and loading is the same code.

Usage (CTest passes these): test_stress.py --program PATH --library PATH [unittest options]
"""

import argparse
import queue
import re
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path

import bpftrace_attach
import usdt_testing

ATTACHES = 4
# Rounds of work without a tracer (fork rounds: every fourth is an exec), in total...
UNTRACED_FORKS, UNTRACED_EXECS, UNTRACED_LIBRARY_LOADS = 6, 2, 20
# ...and between two attachments.
DETACHED_FORKS_AND_EXECS, DETACHED_LIBRARY_LOADS = 2, 2
# What one attachment waits to see: the library loaded afresh twice, so that its probe is
# armed in a mapping made while attached, and children of both kinds.
ATTACHED_LIBRARY_LOADS = 2
# Past this bpftrace gives up waiting and the counts it saw are judged.
ATTACHED_SECONDS_AT_MOST = 20
TIMEOUT = 60
PROGRESS = ("forks", "execs", "library_loads")
COUNTERS = ("unguarded", "guarded", "forks", "execs", "child", "library_loads", "library_calls", "failures")

OPTIONS = argparse.Namespace()


class StressProgram:
    """The running program; `stop()` closes its input and returns its counters."""

    def __init__(self, test):
        self.test = test
        self.process = subprocess.Popen([OPTIONS.program, OPTIONS.library], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        test.addCleanup(self._kill)
        test.assertEqual(self.process.stdout.readline(), "started\n")

    def progress(self):
        """The rounds of forking, exec'ing and loading the library done so far."""
        self.process.stdin.write("\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        match = re.fullmatch(r"progress (\d+) (\d+) (\d+)\n", line)
        self.test.assertIsNotNone(match, f"not a progress line: {line!r}")
        return dict(zip(PROGRESS, map(int, match.groups())))

    def wait_for(self, forks=0, execs=0, forks_and_execs=0, library_loads=0):
        """Returns once the program has done that many more rounds of each kind than now."""
        start = self.progress()
        deadline = time.monotonic() + TIMEOUT
        while True:
            now = self.progress()
            done = {name: now[name] - start[name] for name in PROGRESS}
            if (done["forks"] >= forks and done["execs"] >= execs and done["library_loads"] >= library_loads
                    and done["forks"] + done["execs"] >= forks_and_execs):
                return
            if time.monotonic() > deadline:
                self.test.fail(f"the stress program did only {done} rounds in {TIMEOUT} s")
            time.sleep(0.01)

    def stop(self):
        try:
            output, errors = self.process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.test.fail(f"the stress program did not stop within {TIMEOUT} s of its input closing")
        self.test.assertEqual((self.process.returncode, errors), (0, ""), output)
        counters = dict(re.findall(r"^(\w+) (\d+)$", output, re.MULTILINE))
        self.test.assertEqual(sorted(counters), sorted(COUNTERS), output)
        return {name: int(value) for name, value in counters.items()}

    def _kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class WithoutTracerTest(unittest.TestCase):
    def test_without_a_tracer(self):
        program = StressProgram(self)
        program.wait_for(forks=UNTRACED_FORKS, execs=UNTRACED_EXECS, library_loads=UNTRACED_LIBRARY_LOADS)
        counters = program.stop()
        self.assertEqual(counters["guarded"], 0, "a guarded probe ran with no tracer attached")
        self.assertGreater(counters["unguarded"], 0)
        self.assertGreaterEqual(counters["forks"], UNTRACED_FORKS)
        self.assertGreaterEqual(counters["execs"], UNTRACED_EXECS)
        self.assertGreaterEqual(counters["library_loads"], UNTRACED_LIBRARY_LOADS)
        self.assertEqual(counters["child"], 10 * (counters["forks"] + counters["execs"]))
        self.assertEqual(counters["library_calls"], 100 * counters["library_loads"])


class WithBpftraceTest(unittest.TestCase):
    def setUp(self):
        usdt_testing.require_tracer(self, "bpftrace")

    def attach_once(self):
        """Attaches bpftrace, which counts until it has seen the library loaded afresh and
        children of both kinds fire, and detaches; returns its counts."""
        script = (bpftrace_attach.BEGIN_READY +
                  f"usdt:{OPTIONS.program}:stress:unguarded {{ @unguarded = count(); }}\n"
                  f"usdt:{OPTIONS.program}:stress:guarded {{ @guarded = count(); }}\n"
                  # One attachment per probe (bpftrace detaches each one separately, slowly): the
                  # generation is 1 in a forked child, 2 in an exec'd one; a call with 0 is a load's
                  # first, in a mapping made after BEGIN, so while attached.
                  f"usdt:{OPTIONS.program}:stress:child {{ @child = count(); "
                  "if (arg0 == 1) { @forked_children = 1; } if (arg0 == 2) { @execd_children = 1; } }\n"
                  f"usdt:{OPTIONS.library}:stresslib:call {{ @library_calls = count(); "
                  "if (arg0 == 0) { @library_loads++; } }\n"
                  # bpftrace 0.17 can miss a SIGINT that arrives just before it waits for events
                  # (it then waits on), and count() sends none; exit() wakes it.
                  f"interval:ms:10 /@library_loads >= {ATTACHED_LIBRARY_LOADS} && @forked_children && "
                  "@execd_children/ { exit(); }\n"
                  f"interval:s:{ATTACHED_SECONDS_AT_MOST} {{ exit(); }}\n")
        diagnostics = tempfile.TemporaryFile(mode="w+")
        self.addCleanup(diagnostics.close)
        tracer = subprocess.Popen(["bpftrace", "-e", script], stdout=subprocess.PIPE, stderr=diagnostics, text=True)
        lines: "queue.Queue[str]" = queue.Queue()
        # "" marks the end of its output.
        reader = threading.Thread(target=lambda: [lines.put(line) for line in [*tracer.stdout, ""]], daemon=True)
        reader.start()
        try:
            # It prints "Attaching N probes..." first; BEGIN runs once every probe is attached.
            deadline = time.monotonic() + TIMEOUT
            while (line := lines.get(timeout=max(deadline - time.monotonic(), 0))) != "READY\n":
                if line == "":
                    tracer.wait(timeout=TIMEOUT)
                    diagnostics.seek(0)
                    self.fail(f"bpftrace stopped before attaching: {diagnostics.read()}")
            tracer.wait(timeout=TIMEOUT)
            reader.join(timeout=TIMEOUT)
        except queue.Empty:
            diagnostics.seek(0)
            self.fail(f"bpftrace did not attach within {TIMEOUT} s: {diagnostics.read()}")
        except subprocess.TimeoutExpired:
            self.fail(f"bpftrace did not stop within {TIMEOUT} s; its threads were waiting in: "
                      f"{_kernel_waits(tracer.pid)}")
        finally:
            if tracer.poll() is None:
                tracer.kill()
                tracer.wait()
            tracer.stdout.close()
        output = "".join(lines.queue)
        return {name: int(value) for name, value in re.findall(r"^@(\w+): (\d+)$", output, re.MULTILINE)}

    def test_attach_and_detach_while_firing(self):
        program = StressProgram(self)
        seen = {"unguarded": 0, "guarded": 0, "child": 0, "library_calls": 0}
        # The first attachment that fails ends the test: the next would wait as long.
        for attach in range(ATTACHES):
            counts = self.attach_once()
            for name in ("unguarded", "guarded", "library_calls", "child", "forked_children", "execd_children"):
                self.assertGreater(counts.get(name, 0), 0, f"attachment {attach}: bpftrace saw no {name} hit: {counts}")
            self.assertGreaterEqual(counts.get("library_loads", 0), ATTACHED_LIBRARY_LOADS,
                                    f"attachment {attach}: bpftrace saw too few fresh loads of the library: {counts}")
            for name in seen:
                seen[name] += counts.get(name, 0)
            program.wait_for(forks_and_execs=DETACHED_FORKS_AND_EXECS, library_loads=DETACHED_LIBRARY_LOADS)
        counters = program.stop()
        for name, hits in seen.items():
            self.assertLessEqual(hits, counters[name], f"bpftrace counted more {name} hits than were fired")


def _kernel_waits(pid):
    """Each thread's kernel wait channel, to tell where a stuck process is stuck."""
    waits = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            waits.append(f"{task.name}:{(task / 'wchan').read_text() or 'running'}")
        except OSError:
            pass
    return " ".join(waits)


def add_options(parser):
    parser.add_argument("--program", required=True)
    parser.add_argument("--library", required=True)


if __name__ == "__main__":
    OPTIONS, _ = usdt_testing.parse_options(add_options)
    usdt_testing.main()
