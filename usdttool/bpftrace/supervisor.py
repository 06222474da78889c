"""Runs the bpftrace program of `usdt trace` and prints its lines as they come, until Ctrl-C,
the end of the traced process, or the end of the command run while tracing. With -p, another
bpftrace starts for the libraries with probes the process loads meanwhile (loaded_libraries.py):
every bpftrace's lines come in one queue, each with its bpftrace, and they all stop together. Where
the first program stops the process at the dynamic linker's notice of a load, usdt resumes it
once the new bpftrace has attached, and as it ends."""

import collections
import ctypes
import io
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, Deque, Iterator, List, Optional, Sequence, Set, Tuple

from . import json_events, releases
from .program import GATE_CLOSED_LINE
from ..errors import OutputClosed, ToolError, warn

# Printed by the program's BEGIN probe, which bpftrace runs once every probe is attached, with
# the time (nsecs) it ran.
READY_LINE = "usdt-trace: attached"


# What the reading thread puts last.
_END = object()
# What it puts for the dynamic linker's notice (loaded_libraries.NOTICE_LINE).
_NOTICE = object()

# How long bpftrace may take to stop after SIGINT before it is killed.
_STOP_TIMEOUT = 10.0

# The most a read of bpftrace's standard output takes (bytes).
_READ_SIZE = 1 << 16


def find_bpftrace(required: bool = True) -> Optional[str]:
    """bpftrace's path; when it is not installed, None unless `required`, then a ToolError."""
    found = shutil.which("bpftrace")
    if found is None and required:
        raise ToolError("usdt trace runs bpftrace, which is not installed "
                        "(Debian/Ubuntu: apt-get install bpftrace); `usdt trace --script` prints "
                        "the program it would run")
    return found


@dataclass(frozen=True)
class Program:
    """A bpftrace program of the trace beyond the first: its text, whether bpftrace gets -p PID
    (else its predicates keep to the process), the line printed on stderr once it has attached,
    and its probes (hits.TracedProbe), numbered after the others'."""
    text: str
    by_pid: bool
    announcement: str
    probes: Sequence[object]


def trace(bpftrace: str, program: str, pid: Optional[int], by_pid: bool, watch_process: bool,
          command: Sequence[str], announcement: str, output, command_output=None, loaded=None,
          notice_program: Optional[str] = None, wait_for_notice: bool = True, own_semaphores=None) -> int:
    """Runs bpftrace until Ctrl-C, the traced process's end, or the command's end, handing its
    lines to `output` (output.Output) as they come. Returns the command's status, else 0.
    `by_pid`: bpftrace gets `-p PID` (else the program's predicates keep to the process);
    `watch_process`: usdt stops bpftrace when the process ends (else bpftrace -p ends itself).
    `command_output`: the command's standard output, if not usdt's. `loaded`
    (loaded_libraries.LoadedLibraries), with -p: its look() runs at each of the dynamic linker's
    notices the first program prints (else every POLL_INTERVAL) once bpftrace has attached, and
    each Program its program() gives runs in another bpftrace, the process resumed after it
    has attached. `notice_program`: the dynamic linker's notice in a program of its own, for
    bpftrace -p beside a first program without it (loaded_libraries.load_notice()), waited for
    to attach when `wait_for_notice`.
    `own_semaphores` (process.OwnSemaphores): lowered once bpftrace has attached, restored
    before it is stopped."""
    interrupted = threading.Event()      # Ctrl-C, SIGTERM, SIGHUP: stop now
    command_done = threading.Event()     # stop once every hit the command (or the process) fired is printed
    previous_handlers = {number: signal.signal(number, lambda *_: interrupted.set()) for number in _STOP_SIGNALS}
    polling_done = threading.Event()
    lines = _Output(output, loaded, own_semaphores)
    child = None
    try:
        first = lines.add(_Tracer(0, bpftrace, Program(program, by_pid, announcement, ()), pid,
                                  unsafe=loaded is not None and loaded.stops))
        if not lines.wait_until_attached(first, interrupted):
            if interrupted.is_set():
                return 130
            first.messages.join(timeout=1)
            raise ToolError(f"bpftrace exited with status {first.process.wait()} before attaching (its message is above)")
        if notice_program is not None:
            notice = lines.add(_Tracer(output.add_tracer(()), bpftrace, Program(notice_program, True, "", ()), pid,
                                       unsafe=loaded.stops))
            # bpftrace 0.27 -p keeps BEGIN to the process too, so no READY line comes there: its
            # own "Attached N probes" on stderr says it has.
            while not (wait_for_notice or interrupted.is_set() or notice.process.poll() is not None
                       or notice.said_attached.wait(0.05)):
                pass
            if wait_for_notice and not lines.wait_until_attached(notice, interrupted) \
                    or not wait_for_notice and not notice.said_attached.is_set():
                if interrupted.is_set():
                    return 130
                notice.messages.join(timeout=1)
                raise ToolError(f"bpftrace exited with status {notice.process.wait()} before attaching to the "
                                f"dynamic linker's notice (its message is above)")
        if own_semaphores is not None:
            own_semaphores.lower()
        sys.stderr.write(announcement + "\n")
        sys.stderr.flush()
        if interrupted.is_set():
            return 130     # Ctrl-C as bpftrace attached: the command is not started
        ended = lines.waking(command_done)
        child = _start(command, ended, command_output) if command else None
        if pid is not None and watch_process:
            _watch_process(pid, ended)
        if loaded is not None and loaded.notice is None:
            _start_thread(_poll, loaded, polling_done)
        elif loaded is not None:
            lines.notices += 1      # a look at what it loaded as bpftrace attached, which no notice told
        # Once the command (or the process) has ended by itself, usdt is done when every bpftrace
        # has printed its final counts: it goes on detaching its probes alone, which the kernel
        # makes take about a tenth of a second a probe. After a Ctrl-C, usdt waits for that.
        while lines.print_lines():
            lines.done_when_printed = command_done.is_set() and not interrupted.is_set()
            if lines.output_closed:
                raise OutputClosed(_after_output_closed(child, pid, command_done))
            # The first bpftrace ended by itself (bpftrace -p, with the process): so do the others.
            if interrupted.is_set() or command_done.is_set() or first.ended:
                lines.stop_when_quiet()
            elif loaded is not None:
                _trace_loaded(loaded, lines, bpftrace, pid, output, interrupted)
        if lines.output_closed:
            raise OutputClosed(_after_output_closed(child, pid, command_done))
        if not (interrupted.is_set() or command_done.is_set()) and first.process.wait() != 0:
            first.messages.join(timeout=1)
            raise ToolError(f"bpftrace exited with status {first.process.returncode} (its message is above)")
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
        polling_done.set()
        lines.restore_own_semaphores()
        for tracer in lines.tracers:
            tracer.stopper.send()
        # Each bpftrace is waited for (and reaped), but one left to end by itself.
        waited = [tracer for tracer in lines.tracers if not lines.left_to_end(tracer)]
        for tracer in waited:
            tracer.stopper.wait()
        if loaded is not None:
            for tracer in waited:
                if tracer.reader is not None:
                    tracer.reader.join(timeout=2)    # every notice read
            loaded.close()
        if child is not None and child.poll() is None:
            # Tracing failed under the command: it does not outlive usdt unseen.
            child.terminate()
            child.wait()
        for number, handler in previous_handlers.items():
            signal.signal(number, handler)


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)



def _after_output_closed(child: Optional[subprocess.Popen], pid: Optional[int], process_done: threading.Event) -> str:
    """What became of the traced command or process once standard output closed: a command
    usdt started is ended with SIGTERM, as it would die with usdt's pipeline; a process traced
    with -p goes on, untraced, as after Ctrl-C."""
    if child is not None:
        # Its own thread waits for the command (_start), so poll() here says None until that
        # thread has its status: SIGTERM goes unless `process_done`, and the status says which
        # came first, the command's end or the signal.
        signalled = not process_done.is_set()
        if signalled:
            child.terminate()
        if child.wait() == -signal.SIGTERM and signalled:
            return f"tracing stopped; the command (pid {child.pid}) was ended with SIGTERM"
        return f"tracing stopped; the command (pid {child.pid}) had already {_exit_status(child.returncode)}"
    if pid is not None:
        if process_done.is_set():
            return f"tracing stopped; process {pid} had already ended"
        return f"tracing stopped; process {pid} goes on, untraced"
    return "tracing stopped"


def _exit_status(returncode: int) -> str:
    if returncode < 0:
        return f"been killed by {signal.Signals(-returncode).name}"
    return f"exited with status {returncode}"


# How often usdt looks for libraries the traced process has loaded where it cannot hear its
# dynamic linker (loaded_libraries.py): one's probes are traced from about this long, and
# bpftrace's start, after its dlopen().
POLL_INTERVAL = 0.1


def _trace_loaded(loaded, lines: "_Output", bpftrace: str, pid: int, output, interrupted: threading.Event) -> None:
    """The libraries with probes the process has loaded, traced by another bpftrace; at each
    notice, the files it has mapped since are looked at first, and the process is resumed
    once that bpftrace has attached (or failed to)."""
    notices, lines.notices = lines.notices, 0
    if not notices and loaded.stopped_unheard():
        notices = 1
    if notices:
        loaded.look()
    more = loaded.program()
    if more is not None:
        tracer = lines.add(_Tracer(output.add_tracer(more.probes), bpftrace, more, pid))
        lines.wait_until_attached(tracer, interrupted)
    for _ in range(notices):
        loaded.resume()


def _poll(loaded, done: threading.Event) -> None:
    while not done.wait(POLL_INTERVAL):
        if not loaded.look():
            return      # the process has ended


_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In bpftrace's process before exec: SIGTERM when usdt dies, however it dies."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class _Tracer:
    """One bpftrace, number `number` of the trace (output.Output's), in a session of its own,
    out of reach of the terminal's Ctrl-C: usdt stops it, at once on Ctrl-C, and after a command
    only once it has printed what the command fired (see _Output). And it dies with usdt, which
    only SIGKILL stops without stopping it."""

    def __init__(self, number: int, bpftrace: str, program: Program, pid: Optional[int], unsafe: bool = False):
        """`unsafe`: the program stops the process (signal(), which needs --unsafe)."""
        # --no-warnings: bpftrace's warnings are about the program usdt wrote, which the user
        # cannot change (each release warns of other casts and discarded values). -f json: an
        # event a line, whatever bytes a string holds (json_events.py).
        arguments = [bpftrace, "-B", "line", "-f", "json", "--no-warnings", *(["--unsafe"] if unsafe else []),
                     "-e", program.text]
        if pid is not None and program.by_pid:
            arguments += ["-p", str(pid)]
        self.number = number
        self.announcement = program.announcement
        self.process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        start_new_session=True, preexec_fn=_die_with_parent)
        self.stopper = _Stopper(self.process)
        # Set when bpftrace says it has attached: "Attached N probes" on stderr, or -f json's
        # attached_probes event (0.27).
        self.said_attached = threading.Event()
        self.messages = _start_thread(_copy_messages, io.TextIOWrapper(self.process.stderr, errors="backslashreplace"),
                                      self.said_attached)
        # When every probe was attached: a hit line starts with its nsecs, and one fired before
        # is from a partial attachment. bpftrace reads each CPU's buffer in turn, so such hits
        # can come after the READY line, and hits fired after it before.
        self.attached_at: Optional[int] = None
        self.held: List[object] = []     # what came before the READY line
        self.ended = False
        self.reader: Optional[threading.Thread] = None
        self.gate_closed_on: Set[int] = set()    # the CPUs whose lines said the gate closed


class _Output:
    """The output of every bpftrace, read by a thread each into one queue, each item with its
    bpftrace: the main thread waits on it, where Ctrl-C interrupts it, and can tell when the
    output has gone quiet. A thread puts at once the items of all the lines it could read at
    once: under a flood of hits, one handover takes many."""

    QUIET = releases.QUIET_BEFORE_STOPPING
    # How long the wait for quiet may last when other processes keep firing the probes.
    MAX_STOP_DELAY = 2.0

    def __init__(self, output, loaded=None, own_semaphores=None):
        self.output = output
        self.own_semaphores = own_semaphores
        self.loaded = loaded
        self.notice_line = loaded.notice.line if loaded is not None and loaded.notice is not None else None
        self.notices = 0     # of the dynamic linker, come since the main thread last took them
        self.tracers: List[_Tracer] = []
        self.lines: "queue.Queue[List[Tuple[_Tracer, object]]]" = queue.Queue()
        self.taken: Deque[Tuple[_Tracer, object]] = collections.deque()     # from the queue, not handled yet
        self.last_line_at = time.monotonic()
        self.stop_requested_at: Optional[float] = None
        self.gate_cpus: Optional[Set[int]] = None     # where usdt closed the gate, if on every CPU
        self.output_closed = False     # standard output's reader has gone: nothing more is printed
        self.done_when_printed = False     # see done_with()

    def add(self, tracer: _Tracer) -> _Tracer:
        self.tracers.append(tracer)
        tracer.reader = _start_thread(self._read, tracer)
        return tracer

    def _read(self, tracer: _Tracer) -> None:
        try:
            for lines in _lines_as_they_come(tracer.process.stdout):
                items = []
                for line in lines:
                    if b'"attached_probes"' in line:
                        tracer.said_attached.set()
                    # Here, as soon as it comes: a string may have to be read from the traced
                    # process's memory before it changes.
                    item = self.output.read(json_events.parse(line), tracer.number)
                    if self.notice_line and isinstance(item, str) and item.strip() == self.notice_line:
                        self.loaded.notice_read()    # counted at once: the process is stopped
                        item = _NOTICE
                    items.append((tracer, item))
                self.lines.put(items)
        finally:
            self.lines.put([(tracer, _END)])

    def _next(self, timeout: float) -> None:
        """Takes the next item, if one comes within `timeout`; once none is left, what was
        printed is flushed."""
        if not self.taken:
            try:
                self.taken.extend(self.lines.get(timeout=timeout))
            except queue.Empty:
                return
            if not self.taken:
                return      # woken (waking())
        tracer, item = self.taken.popleft()
        self._handle(tracer, item)
        if not self.taken and self.lines.empty() and not self.output_closed:
            try:
                self.output.flush()
            except BrokenPipeError:
                self.output_closed = True

    def waking(self, event: threading.Event) -> Callable[[], None]:
        """What sets `event` from another thread and wakes the main thread's wait for lines:
        the command's end is acted on at once, not when the wait times out."""
        def set_and_wake() -> None:
            event.set()
            self.lines.put([])
        return set_and_wake

    def _handle(self, tracer: _Tracer, item: object) -> None:
        self.last_line_at = time.monotonic()
        try:
            if isinstance(item, str) and item.startswith(GATE_CLOSED_LINE + " "):
                cpu = item.split()[-1]
                if cpu.isdigit():
                    tracer.gate_closed_on.add(int(cpu))
            elif item is _END:
                self._ended(tracer)
            elif item is _NOTICE:
                self.notices += 1
            elif self.output_closed:
                pass
            elif tracer.attached_at is None:
                self._before_attached(tracer, item)
            else:
                self.output.emit(item, tracer.attached_at, tracer.number)
        except BrokenPipeError:
            self.output_closed = True

    def wait_until_attached(self, tracer: _Tracer, interrupted: threading.Event) -> bool:
        """Whether `tracer` attached; False when it ended first or `interrupted` was set."""
        while not (interrupted.is_set() or tracer.ended or tracer.attached_at is not None):
            self._next(timeout=0.1)
        if tracer.attached_at is None and not tracer.ended:
            self._emit_held(tracer)
        return tracer.attached_at is not None

    def print_lines(self) -> bool:
        """Prints what came in the next moment, and what a reading thread handed over with it;
        False once usdt is done with every bpftrace."""
        self._next(timeout=0.1)
        while self.taken:
            self._next(timeout=0)
        return not all(self.done_with(tracer) for tracer in self.tracers)

    def done_with(self, tracer: _Tracer) -> bool:
        """Whether `tracer` has ended, or with `done_when_printed`, printed all it will: its final
        counts have come and every line handed over with them has been handled."""
        return tracer.ended or self.left_to_end(tracer)

    def left_to_end(self, tracer: _Tracer) -> bool:
        """Whether usdt is done with `tracer` though it has not ended: it ends by itself."""
        return not tracer.ended and self.done_when_printed and not self.taken \
            and self.output.final_counts_read(tracer.number)

    def _before_attached(self, tracer: _Tracer, item: object) -> None:
        """What comes before the READY line is printed after it, but for hits fired before it. A
        later bpftrace's announcement comes first (the first's, trace() writes)."""
        words = item.split() if isinstance(item, str) else []
        if isinstance(item, str) and item.startswith(READY_LINE + " ") and len(words) == 3 and words[2].isdigit():
            tracer.attached_at = int(words[2])
            if tracer.number == 0:
                self.output.attached(tracer.attached_at)
            elif tracer.announcement:
                sys.stderr.write(tracer.announcement + "\n")
                sys.stderr.flush()
            held, tracer.held = tracer.held, []
            for held_item in held:
                self.output.emit(held_item, tracer.attached_at, tracer.number)
        elif item and not (isinstance(item, str) and releases.is_noise(item)):
            tracer.held.append(item)

    def _ended(self, tracer: _Tracer) -> None:
        tracer.ended = True
        if tracer.attached_at is not None:
            return
        self._emit_held(tracer)
        if tracer.number != 0 and self.stop_requested_at is None:
            tracer.messages.join(timeout=1)
            warn(f"bpftrace exited with status {tracer.process.wait()} before attaching to the probes of "
                 f"the libraries loaded since usdt started (its message is above); the others are still traced")

    def _emit_held(self, tracer: _Tracer) -> None:
        held, tracer.held = tracer.held, []
        for held_item in held:
            self.output.emit(held_item, None, tracer.number)

    def stop_when_quiet(self) -> None:
        """Stops every bpftrace once they have printed what they hold: first the programs' gate
        is closed (trace.bt.j2: no hit counts after usdt's kill(itself, 0)), on each CPU in turn,
        so that each CPU's buffer says when it has been read to that point; then SIGINT, once
        every bpftrace's every CPU has said so, else (a CPU usdt may not run on, a flood that
        lost the line) once the output has been quiet a moment, or at most MAX_STOP_DELAY later."""
        now = time.monotonic()
        if self.stop_requested_at is None:
            self.gate_cpus = _close_gate_on_each_cpu()
            self.stop_requested_at = now
        quiet_since = max(self.last_line_at, self.stop_requested_at)
        read_out = self.gate_cpus is not None and all(
            tracer.ended or self.gate_cpus <= tracer.gate_closed_on for tracer in self.tracers)
        if read_out or now - quiet_since >= self.QUIET or now - self.stop_requested_at >= self.MAX_STOP_DELAY:
            self.restore_own_semaphores()
            for tracer in self.tracers:
                tracer.stopper.send()

    def restore_own_semaphores(self) -> None:
        """usdt's own semaphores as the kernel set them, before bpftrace detaches."""
        if self.own_semaphores is not None:
            self.own_semaphores.restore()


def _close_gate_on_each_cpu() -> Optional[Set[int]]:
    """usdt's kill(itself, 0) on each online CPU, the main thread moved to each in turn: the CPUs,
    or None when usdt may not run on all of them (a cpuset, taskset), after one call where it is."""
    allowed = os.sched_getaffinity(0)
    online = _online_cpus()
    if online is None or not online <= allowed:
        os.kill(os.getpid(), 0)
        return None
    try:
        for cpu in sorted(online):
            os.sched_setaffinity(0, {cpu})
            os.kill(os.getpid(), 0)
    finally:
        os.sched_setaffinity(0, allowed)
    return online


def _online_cpus() -> Optional[Set[int]]:
    """The online CPUs (/sys/devices/system/cpu/online: `0-3,5`), None when unknown."""
    try:
        with open("/sys/devices/system/cpu/online") as listing:
            text = listing.read().strip()
        cpus: Set[int] = set()
        for part in text.split(","):
            low, _, high = part.partition("-")
            cpus.update(range(int(low), int(high or low) + 1))
        return cpus
    except (OSError, ValueError):
        return None


class _Stopper:
    """Stops bpftrace: on SIGINT it prints what it has read and exits; it gets another SIGINT
    each INTERVAL until it has, and SIGKILL when _STOP_TIMEOUT has passed."""

    INTERVAL = releases.SIGINT_INTERVAL

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
        while True:
            self.send()
            try:
                self.tracer.wait(timeout=0.05)
                return
            except subprocess.TimeoutExpired:
                pass


def _start(command: Sequence[str], done: Callable[[], None], stdout=None) -> subprocess.Popen:
    """Runs the command; `done` is called when it ends."""
    try:
        child = subprocess.Popen(command, stdout=stdout)
    except OSError as error:
        raise ToolError(f"cannot run {command[0]}: {error.strerror}") from None

    def stop_when_done() -> None:
        child.wait()
        done()
    _start_thread(stop_when_done)
    return child


def _watch_process(pid: int, done: Callable[[], None]) -> None:
    """`done` is called when process `pid` ends."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        done()
        return

    def wait() -> None:
        try:
            select.select([descriptor], [], [])
        finally:
            os.close(descriptor)
        done()
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


def _lines_as_they_come(stream) -> Iterator[List[bytes]]:
    """The lines of `stream` (each with its "\\n", but for a last one without), as many at a
    time as have come, at once: each read takes what is there, waiting only when nothing is."""
    rest = b""
    for data in iter(lambda: stream.read1(_READ_SIZE), b""):
        lines = (rest + data).split(b"\n")
        rest = lines.pop()
        if lines:
            yield [line + b"\n" for line in lines]
    if rest:
        yield [rest]


def _copy_messages(messages, said_attached: threading.Event) -> None:
    """bpftrace's messages, but for those that say nothing to a user of usdt trace."""
    for line in messages:
        if line.startswith("Attached ") and " probe" in line:
            said_attached.set()
        if not releases.is_noise(line):
            sys.stderr.write(line)
            sys.stderr.flush()
