"""usdt trace's own start-up, the measurement behind docs/PERFORMANCE.md's start-up section:
`usdt trace` on a program until it announces that it traces, against bpftrace alone running
the program `usdt trace --script` prints, timed by the kernel (a bpftrace watching the machine);
and a short trace from start to end, `usdt trace BINARY PROBE -- COMMAND` against `bpftrace -c
COMMAND` with the same program: when the first hit comes, how long each takes to exit once the
command has, and in all (short_trace_seconds).
"""

import os
import shutil
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from measure import NotMeasured, bpftrace_attach

# Kernel timestamps (CLOCK_MONOTONIC) of what a start goes through, from one bpftrace watching
# the whole machine: each exec (with the parent's pid), each write to a standard error (usdt's
# first after its bpftrace attached is its announcement), and each bpftrace's line saying it has
# attached (its BEGIN probe's; bpftrace prints it some milliseconds after running the probe).
_START_WATCH = """
tracepoint:sched:sched_process_exec {{ printf("exec %lld %d %d %s\\n", nsecs, pid, curtask->real_parent->tgid,
                                             str(args->filename)); }}
tracepoint:syscalls:sys_enter_write /args->fd == 2/ {{ printf("stderr %lld %d\\n", nsecs, pid); }}
tracepoint:syscalls:sys_enter_write /args->fd == 1 && comm == "bpftrace"/ {{
    if (strncmp(str(args->buf), "{ready}", {length}) == 0) {{ printf("stdout %lld %d\\n", nsecs, pid); }}
}}
"""


@dataclass
class StartUp:
    """Median milliseconds of `usdt trace BINARY` until it announces it is tracing, and of
    bpftrace alone, given the program usdt runs, until it prints that it has attached."""
    usdt_to_bpftrace: float      # usdt's exec to its bpftrace's exec
    printed_to_announced: float  # that bpftrace's line saying it attached to usdt's announcement
    usdt_total: float            # usdt's exec to its announcement
    bpftrace_alone: float        # bpftrace's exec to its line saying it attached, without usdt
    runs: int

    @property
    def usdt_own(self) -> float:
        return self.usdt_to_bpftrace + self.printed_to_announced


def _events(lines: Sequence[str]) -> Dict[str, List[tuple]]:
    """kind -> (nsecs, pid[, parent pid, file]) of each of _START_WATCH's lines."""
    found: Dict[str, List[tuple]] = {}
    for line in lines:
        words = line.split(maxsplit=4)
        if len(words) >= 3 and words[0] in ("exec", "stderr", "stdout") and all(word.isdigit() for word in words[1:4]):
            found.setdefault(words[0], []).append((*map(int, words[1:4]), *words[4:]))
    return found


def _until(process: subprocess.Popen, stream, text: str) -> None:
    for line in stream:
        if text in line:
            return
    raise NotMeasured(f"not measured: {process.args[0]} ended before it printed {text!r}")


def shim_environment(directory: Path) -> Dict[str, str]:
    """The environment with, first on PATH, a `python3` that starts as a version manager's shim
    does (pyenv's took about a second on a loaded machine) before it runs /usr/bin/python3."""
    shim = directory / "python3"
    shim.write_text('#!/bin/sh\nsleep 1\nexec /usr/bin/python3 "$@"\n')
    shim.chmod(0o755)
    return {**os.environ, "PATH": f"{directory}:{os.environ.get('PATH', '')}"}


def start_up_milliseconds(usdt: Path, binary: Path, runs: int = 7, environment: Optional[Dict[str, str]] = None
                          ) -> StartUp:
    """`usdt trace BINARY` against bpftrace alone with the program `usdt trace --script` prints,
    alternately, `runs` times each, under `environment` (usdt's only)."""
    if os.geteuid() != 0:
        raise NotMeasured("not measured: attaching bpftrace needs root (run bench/run.sh as root)")
    bpftrace = shutil.which("bpftrace")
    if bpftrace is None:
        raise NotMeasured("not measured: bpftrace is not installed")
    program = subprocess.run([str(usdt), "trace", str(binary), "--script"], check=True,
                             stdout=subprocess.PIPE, encoding="utf-8").stdout
    ready = "usdt-trace: attached"    # usdttool/bpftrace/supervisor.py's READY_LINE
    # As bpftrace -f json writes it, which usdt runs, and bpftrace alone here too.
    ready_written = '{"type": "printf", "data": "' + ready
    watch_script = _START_WATCH.format(ready=ready_written.replace('"', '\\"'), length=len(ready_written)) \
        + bpftrace_attach.BEGIN_READY
    watcher = subprocess.Popen([bpftrace, "-B", "line", "-e", watch_script], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, encoding="utf-8")
    measured: Dict[str, List[float]] = {"usdt_to_bpftrace": [], "printed_to_announced": [], "usdt_total": [],
                                        "bpftrace_alone": []}
    started: List[tuple] = []
    watched: List[str] = []
    try:
        _until(watcher, watcher.stdout, bpftrace_attach.READY)
        # Read as it comes: the whole machine's execs and messages would fill the pipe.
        reader = threading.Thread(target=lambda: watched.extend(watcher.stdout), daemon=True)
        reader.start()
        for _ in range(runs):
            tracer = subprocess.Popen([str(usdt), "trace", str(binary)], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, encoding="utf-8", env=environment)
            _until(tracer, tracer.stderr, "Ctrl-C to stop")
            bpftrace_alone = subprocess.Popen([bpftrace, "-B", "line", "-f", "json", "-e", program], stdout=subprocess.PIPE,
                                              stderr=subprocess.DEVNULL, encoding="utf-8")
            _until(bpftrace_alone, bpftrace_alone.stdout, ready)
            for process in (tracer, bpftrace_alone):
                bpftrace_attach.stop(process)
            started.append((tracer.pid, bpftrace_alone.pid))
        time.sleep(1)    # the watcher's last events
    finally:
        bpftrace_attach.stop(watcher)
    reader.join(timeout=10)
    events = _events(watched)
    execs, writes, printed = events.get("exec", []), events.get("stderr", []), events.get("stdout", [])
    for usdt_pid, alone_pid in started:
        usdt_exec = min(nsecs for nsecs, pid, *_ in execs if pid == usdt_pid)
        # usdt's bpftrace that printed the ready line (usdt runs `bpftrace --version` first).
        tracers = {pid for _, pid in printed}
        child_exec, child = min((nsecs, pid) for nsecs, pid, parent, *file in execs
                                if parent == usdt_pid and pid in tracers and file
                                and os.path.basename(file[0].strip()) == "bpftrace")
        ready_printed = min(nsecs for nsecs, pid in printed if pid == child)
        announced = min(nsecs for nsecs, pid in writes if pid == usdt_pid and nsecs >= ready_printed)
        alone_exec = min(nsecs for nsecs, pid, *_ in execs if pid == alone_pid)
        alone_printed = min(nsecs for nsecs, pid in printed if pid == alone_pid)
        measured["usdt_to_bpftrace"].append((child_exec - usdt_exec) / 1e6)
        measured["printed_to_announced"].append((announced - ready_printed) / 1e6)
        measured["usdt_total"].append((announced - usdt_exec) / 1e6)
        measured["bpftrace_alone"].append((alone_printed - alone_exec) / 1e6)
    return StartUp(**{name: statistics.median(values) for name, values in measured.items()}, runs=runs)


@dataclass
class ShortTrace:
    """Median seconds of a short trace, usdt's and bpftrace -c's, side by side from the same
    runs: from the start to the first hit line, from the command's last line to the tracer's
    exit, and in all."""
    usdt_first_hit: float
    bpftrace_first_hit: float
    usdt_exit: float
    bpftrace_exit: float
    usdt_total: float
    bpftrace_total: float
    runs: int


def _timed_run(command: Sequence[str], last_line: str, hit: str) -> tuple:
    """(first hit line, the command's last line, the tracer's exit), seconds from its start."""
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, encoding="utf-8",
                               errors="replace")
    first_hit = command_done = None
    for line in process.stdout:
        now = time.monotonic() - started
        if first_hit is None and hit in line:
            first_hit = now
        if last_line in line:
            command_done = now
    process.wait()
    ended = time.monotonic() - started
    if first_hit is None or command_done is None:
        raise NotMeasured(f"not measured: {command[0]} printed no hit or not the command's last line")
    return first_hit, command_done, ended


def short_trace_seconds(usdt: Path, binary: Path, probe: str, arguments: Sequence[str], last_line: str,
                        runs: int = 5) -> ShortTrace:
    """`usdt trace BINARY PROBE -- BINARY ARGUMENTS...` against `bpftrace -c` with the program
    `usdt trace --script` prints for it, alternately, `runs` times each. `last_line`: what the
    command prints last, as it exits."""
    if os.geteuid() != 0:
        raise NotMeasured("not measured: attaching bpftrace needs root (run bench/run.sh as root)")
    bpftrace = shutil.which("bpftrace")
    if bpftrace is None:
        raise NotMeasured("not measured: bpftrace is not installed")
    program = subprocess.run([str(usdt), "trace", str(binary), probe, "--script"], check=True,
                             stdout=subprocess.PIPE, encoding="utf-8").stdout
    command = [str(binary), *arguments]
    measured: Dict[str, List[float]] = {name: [] for name in ShortTrace.__dataclass_fields__ if name != "runs"}
    for _ in range(runs):
        # A hit as usdt prints it, and as the program's first printf of a hit under -f json.
        for tracer, run, hit in (("usdt", [str(usdt), "trace", str(binary), probe, "--", *command], f" {probe} "),
                                 ("bpftrace", [bpftrace, "-B", "line", "-f", "json", "--no-warnings", "-e", program,
                                               "-c", " ".join(command)], '"data": "usdt-hit ')):
            first_hit, command_done, ended = _timed_run(run, last_line, hit)
            measured[f"{tracer}_first_hit"].append(first_hit)
            measured[f"{tracer}_exit"].append(ended - command_done)
            measured[f"{tracer}_total"].append(ended)
    return ShortTrace(**{name: statistics.median(values) for name, values in measured.items()}, runs=runs)
