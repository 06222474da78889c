"""The stress program (stress.c) under a tracer that keeps attaching and detaching.

stress.c fires guarded and unguarded probes from several threads, forks children that fire
and exit, forks and execs itself, and loads, calls and unloads a library with probes in a
loop, until its standard input is closed. Without a tracer it must run and stop cleanly with
every guarded probe disabled. With bpftrace (root) attached and detached ATTACHES times, so
that semaphores flip while the threads run: each attachment sees the probes of the program
and of the library, the program exits 0 within a bound (no crash, no hang, every argument
evaluated as often as its probe fired), and bpftrace never counts more hits than the program
made.

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

import usdt_testing

ATTACHES = 4
ATTACHED_SECONDS = 2.0
DETACHED_SECONDS = 0.5
TIMEOUT = 60
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
        time.sleep(3)
        counters = program.stop()
        self.assertEqual(counters["guarded"], 0, "a guarded probe ran with no tracer attached")
        for name in ("unguarded", "forks", "execs", "library_loads"):
            self.assertGreater(counters[name], 0, name)
        self.assertEqual(counters["child"], 10 * (counters["forks"] + counters["execs"]))
        self.assertEqual(counters["library_calls"], 100 * counters["library_loads"])


class WithBpftraceTest(unittest.TestCase):
    def setUp(self):
        usdt_testing.require_tracer(self, "bpftrace")

    def attach_once(self):
        """Attaches bpftrace, which counts for ATTACHED_SECONDS and detaches; returns its counts."""
        script = ('BEGIN { printf("READY\\n"); }\n'
                  f"usdt:{OPTIONS.program}:stress:unguarded {{ @unguarded = count(); }}\n"
                  f"usdt:{OPTIONS.program}:stress:guarded {{ @guarded = count(); }}\n"
                  f"usdt:{OPTIONS.program}:stress:child {{ @child = count(); }}\n"
                  f"usdt:{OPTIONS.library}:stresslib:call {{ @library_calls = count(); }}\n"
                  # bpftrace 0.17 can miss a SIGINT that arrives just before it waits for events
                  # (it then waits on), and count() sends none; exit() wakes it.
                  f"interval:ms:{int(ATTACHED_SECONDS * 1000)} {{ exit(); }}\n")
        diagnostics = tempfile.TemporaryFile(mode="w+")
        self.addCleanup(diagnostics.close)
        tracer = subprocess.Popen(["bpftrace", "-e", script], stdout=subprocess.PIPE, stderr=diagnostics, text=True)
        lines: "queue.Queue[str]" = queue.Queue()
        reader = threading.Thread(target=lambda: [lines.put(line) for line in tracer.stdout], daemon=True)
        reader.start()
        try:
            # It prints "Attaching N probes..." first; BEGIN runs once every probe is attached.
            deadline = time.monotonic() + TIMEOUT
            while lines.get(timeout=max(deadline - time.monotonic(), 0)) != "READY\n":
                pass
            tracer.wait(timeout=TIMEOUT)
            reader.join(timeout=TIMEOUT)
        except queue.Empty:
            diagnostics.seek(0)
            self.fail(f"bpftrace did not attach within {TIMEOUT} s: {diagnostics.read()}")
        except subprocess.TimeoutExpired:
            self.fail(f"bpftrace did not stop within {TIMEOUT} s of exit(); its threads were waiting in: "
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
        for attach in range(ATTACHES):
            with self.subTest(attach=attach):
                counts = self.attach_once()
                for name in ("unguarded", "guarded", "library_calls"):
                    self.assertGreater(counts.get(name, 0), 0, f"bpftrace saw no {name} hit: {counts}")
                for name in seen:
                    seen[name] += counts.get(name, 0)
            time.sleep(DETACHED_SECONDS)
        counters = program.stop()
        self.assertGreater(seen["child"], 0, "bpftrace saw no probe of a forked or exec'd child")
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
