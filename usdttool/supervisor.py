"""Runs the bpftrace program of `usdt trace` and prints its lines as they come, until Ctrl-C,
the end of the traced process, or the end of the command run while tracing."""

import ctypes
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Optional, Sequence

from . import bpftrace017, bpftrace_releases
from .errors import ToolError

# Printed by the program's BEGIN probe, which bpftrace runs once every probe is attached, with
# the time (nsecs) it ran.
READY_LINE = "usdt-trace: attached"


# What the reading thread puts last.
_END = object()

# How long bpftrace may take to stop after SIGINT before it is killed.
_STOP_TIMEOUT = 10.0


def find_bpftrace(required: bool = True) -> Optional[str]:
    """bpftrace's path; when it is not installed, None unless `required`, then a ToolError."""
    found = shutil.which("bpftrace")
    if found is None and required:
        raise ToolError("usdt trace runs bpftrace, which is not installed "
                        "(Debian/Ubuntu: apt-get install bpftrace); `usdt trace --script` prints "
                        "the program it would run")
    return found


def trace(bpftrace: str, program: str, pid: Optional[int], by_pid: bool, watch_process: bool,
          command: Sequence[str], announcement: str, output, command_output=None) -> int:
    """Runs bpftrace until Ctrl-C, the traced process's end, or the command's end, handing its
    lines to `output` (output.Output) as they come. Returns the command's status, else 0.
    `by_pid`: bpftrace gets `-p PID` (else the program's predicates keep to the process);
    `watch_process`: usdt stops bpftrace when the process ends (else bpftrace -p ends itself).
    `command_output`: the command's standard output, if not usdt's."""
    # --no-warnings: bpftrace's warnings are about the program usdt wrote, which the user
    # cannot change (each release warns of other casts and discarded values).
    arguments = [bpftrace, "-B", "line", "--no-warnings", "-e", program]
    if pid is not None and by_pid:
        arguments += ["-p", str(pid)]
    interrupted = threading.Event()      # Ctrl-C, SIGTERM, SIGHUP: stop now
    command_done = threading.Event()     # stop once every hit the command (or the process) fired is printed
    previous_handlers = {number: signal.signal(number, lambda *_: interrupted.set()) for number in _STOP_SIGNALS}
    # In a session of its own, out of reach of the terminal's Ctrl-C: usdt stops it, at once on
    # Ctrl-C, and after a command only once it has printed what the command fired (see _Output).
    # And it dies with usdt, which only SIGKILL stops without stopping it.
    tracer = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
                              errors="backslashreplace", start_new_session=True, preexec_fn=_die_with_parent)
    stopper = _Stopper(tracer)
    child = None
    try:
        messages = _start_thread(_copy_messages, tracer.stderr)
        output = _Output(tracer, stopper, output)
        if not output.wait_until_attached(interrupted):
            if interrupted.is_set():
                return 130
            messages.join(timeout=1)
            raise ToolError(f"bpftrace exited with status {tracer.wait()} before attaching (its message is above)")
        sys.stderr.write(announcement + "\n")
        sys.stderr.flush()
        if interrupted.is_set():
            return 130     # Ctrl-C as bpftrace attached: the command is not started
        child = _start(command, command_done, command_output) if command else None
        if pid is not None and watch_process:
            _watch_process(pid, command_done)
        while output.print_lines():
            if interrupted.is_set() or command_done.is_set():
                output.stop_when_quiet()
        if tracer.wait() != 0 and not (interrupted.is_set() or command_done.is_set()):
            messages.join(timeout=1)
            raise ToolError(f"bpftrace exited with status {tracer.returncode} (its message is above)")
        if child is None:
            return 0
        if interrupted.is_set():
            # A terminal's Ctrl-C reached the command too; a signal to usdt alone did not.
            try:
                child.wait(timeout=2)
            except subprocess.TimeoutExpired:
                child.terminate()
        status = child.wait()
        return 128 - status if status < 0 else status
    finally:
        stopper.wait()
        if child is not None and child.poll() is None:
            # Tracing failed under the command: it does not outlive usdt unseen.
            child.terminate()
            child.wait()
        for number, handler in previous_handlers.items():
            signal.signal(number, handler)


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In bpftrace's process before exec: SIGTERM when usdt dies, however it dies."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class _Output:
    """bpftrace's output, read by a thread: the main thread waits on a queue, where Ctrl-C
    interrupts it, and can tell when the output has gone quiet."""

    QUIET = bpftrace017.QUIET_BEFORE_STOPPING
    # How long the wait for quiet may last when other processes keep firing the probes.
    MAX_STOP_DELAY = 2.0

    def __init__(self, tracer: subprocess.Popen, stopper: "_Stopper", output):
        self.tracer = tracer
        self.stopper = stopper
        self.output = output
        self.lines: "queue.Queue[object]" = queue.Queue()
        self.last_line_at = time.monotonic()
        self.stop_requested_at: Optional[float] = None
        # When every probe was attached: a hit line starts with its nsecs, and one fired before
        # is from a partial attachment. bpftrace reads each CPU's buffer in turn, so such hits
        # can come after the READY line, and hits fired after it before.
        self.attached_at: Optional[int] = None
        _start_thread(self._read)

    def _read(self) -> None:
        try:
            for line in self.tracer.stdout:
                # Here, as soon as it comes: a string may have to be read from the traced
                # process's memory before it changes.
                self.lines.put(self.output.read(line))
        finally:
            self.lines.put(_END)

    def _next(self, timeout: float) -> object:
        """The next item, "" when none came within `timeout`, _END at the end."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return ""
        self.last_line_at = time.monotonic()
        return line

    def wait_until_attached(self, interrupted: threading.Event) -> bool:
        """Whether bpftrace attached; False when it ended first or `interrupted` was set. Lines
        that came before the READY line are printed after it, but for hits fired before it."""
        held = []
        while not interrupted.is_set():
            line = self._next(timeout=0.1)
            if line is _END:
                break
            words = line.split() if isinstance(line, str) else []
            if isinstance(line, str) and line.startswith(READY_LINE + " ") and len(words) == 3 and words[2].isdigit():
                self.attached_at = int(words[2])
                self.output.attached(self.attached_at)
                for held_line in held:
                    self.output.emit(held_line, self.attached_at)
                return True
            if line and not (isinstance(line, str) and bpftrace_releases.is_noise(line)):
                held.append(line)
        for held_line in held:
            self.output.emit(held_line, None)
        return False

    def print_lines(self) -> bool:
        """Prints what came in the next moment; False once bpftrace has ended."""
        line = self._next(timeout=0.1)
        if line is _END:
            return False
        if line != "":
            self.output.emit(line, self.attached_at)
        return True

    def stop_when_quiet(self) -> None:
        """Stops bpftrace once it has printed what it holds: first the program's gate is closed
        (trace.bt.j2: no hit counts after usdt's kill(itself, 0)), then, once the output has
        been quiet a moment, or at most MAX_STOP_DELAY later, SIGINT."""
        now = time.monotonic()
        if self.stop_requested_at is None:
            os.kill(os.getpid(), 0)
            self.stop_requested_at = now
        quiet_since = max(self.last_line_at, self.stop_requested_at)
        if now - quiet_since >= self.QUIET or now - self.stop_requested_at >= self.MAX_STOP_DELAY:
            self.stopper.send()


class _Stopper:
    """Stops bpftrace: on SIGINT it prints what it has read and exits; it gets another SIGINT
    each INTERVAL until it has, and SIGKILL when _STOP_TIMEOUT has passed."""

    INTERVAL = bpftrace017.SIGINT_INTERVAL

    def __init__(self, tracer: subprocess.Popen):
        self.tracer = tracer
        self.first_signal_at: Optional[float] = None
        self.last_signal_at = float("-inf")

    def send(self) -> None:
        """The next signal, if one is due; returns at once."""
        now = time.monotonic()
        if self.tracer.poll() is not None or now - self.last_signal_at < self.INTERVAL:
            return
        if self.first_signal_at is None:
            self.first_signal_at = now
        if now - self.first_signal_at >= _STOP_TIMEOUT:
            self.tracer.kill()
        else:
            self.tracer.send_signal(signal.SIGINT)
        self.last_signal_at = now

    def wait(self) -> None:
        """Signals until bpftrace has exited."""
        while self.tracer.poll() is None:
            self.send()
            time.sleep(0.05)


def _start(command: Sequence[str], done: threading.Event, stdout=None) -> subprocess.Popen:
    """Runs the command; `done` is set when it ends."""
    try:
        child = subprocess.Popen(command, stdout=stdout)
    except OSError as error:
        raise ToolError(f"cannot run {command[0]}: {error.strerror}") from None

    def stop_when_done() -> None:
        child.wait()
        done.set()
    _start_thread(stop_when_done)
    return child


def _watch_process(pid: int, done: threading.Event) -> None:
    """`done` is set when process `pid` ends."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        done.set()
        return

    def wait() -> None:
        try:
            select.select([descriptor], [], [])
        finally:
            os.close(descriptor)
        done.set()
    _start_thread(wait)


def _start_thread(function, *arguments) -> threading.Thread:
    """A thread with the stop signals blocked from its first instruction, so that they reach
    the main thread, wherever it waits."""
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, set(_STOP_SIGNALS))
    try:
        thread = threading.Thread(target=function, args=arguments, daemon=True)
        thread.start()
        return thread
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)


def _copy_messages(messages) -> None:
    """bpftrace's messages, but for those that say nothing to a user of usdt trace."""
    for line in messages:
        if not bpftrace_releases.is_noise(line):
            sys.stderr.write(line)
            sys.stderr.flush()
