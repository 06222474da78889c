"""`usdt trace --timeline FILE`: the hits as a Chrome JSON trace-event file, which
ui.perfetto.dev (and chrome://tracing, speedscope) opens.

Each hit is an instant event on its thread, with its arguments by name; each span (spans.py:
the pairs --latency finds, asked for or not, and --span's) a slice: a complete event ("X") on its thread where it is matched per thread, else an async
pair ("b"/"e", id "PID:KEY"), which may overlap others and end on another thread. Processes
and threads get their names. Times are microseconds since usdt attached (the file's
otherData gives that moment's CLOCK_MONOTONIC), which keeps nanoseconds exact in a double.

The events are written as they come, into a file beside FILE that replaces it at the end:
a trace cut short, or stopped before it began, leaves FILE as it was. FILE is a regular file
or none yet (through a symbolic link, the file it names): a device, a FIFO or a directory
is refused before tracing starts, since replacing it would destroy it.
"""

import heapq
import json
import os
import sys
import tempfile
from typing import Dict, List, Optional, Sequence, Tuple

from usdtgen.tracer_probe import TracerProbe

from .spans import Span, key_index
from ..bpftrace import hits
from ..errors import ToolError, warn


# bpftrace reads each CPU's buffer in turn: a hit can come after later ones from other CPUs
# (a span's done before its start). Hits are paired in time order, once this much later
# ones have come, or at the end.
_REORDER_WINDOW_NS = 2_000_000_000


def checked_path(path: str) -> str:
    """The file `--timeline PATH` writes (a link's target), or the error that says why it cannot."""
    if not path:
        raise ToolError("--timeline: give the trace file's name (kvserver.json)")
    real_path = os.path.realpath(path)
    if os.path.lexists(real_path) and not os.path.isfile(real_path):
        raise ToolError(f"--timeline {path}: not a regular file; the trace replaces its file at the end")
    directory = os.path.dirname(real_path)
    if not os.access(directory, os.W_OK | os.X_OK):
        problem = "no such directory" if not os.path.isdir(directory) else "permission denied"
        raise ToolError(f"--timeline {path}: cannot write in {directory}: {problem}")
    return real_path


class Timeline:
    def __init__(self, path: str, spans: Sequence[Span], probes: Sequence[TracerProbe]):
        self.path = checked_path(path)
        self.spans = spans
        by_name = {f"{probe.provider}:{probe.name}": probe for probe in probes}
        # probe name -> [(span, is_start, key index or None)]
        self.roles: Dict[str, list] = {}
        for span in spans:
            for name, is_start in ((span.start, True), (span.done, False)):
                self.roles.setdefault(name, []).append((span, is_start, key_index(by_name[name], span.key)))
        self.open: Dict[Tuple[int, int, int], hits.Hit] = {}
        self.problems = {span.number: {"overlapping_start": 0, "unmatched_done": 0} for span in spans}
        self.slices = {span.number: 0 for span in spans}
        self.live_start: Dict[int, int] = {}     # span -> when its start probe first fired
        self.live_done: Dict[int, int] = {}
        self.origin: Optional[int] = None
        self.process_names: Dict[int, str] = {}
        self.thread_names: Dict[Tuple[int, int], str] = {}
        self.hits = 0
        self.pending: List[Tuple[int, int, hits.Hit]] = []    # a heap: (time, arrival, hit)
        directory = os.path.dirname(self.path)
        try:
            descriptor, self.partial = tempfile.mkstemp(prefix=f".{os.path.basename(self.path)}.", dir=directory)
        except OSError as error:
            raise ToolError(f"--timeline {path}: cannot write in {directory}: {error.strerror}") from None
        self.shown_path = path
        self.file = os.fdopen(descriptor, "w", encoding="utf-8")
        self.file.write('{"traceEvents":[\n')
        self.first = True

    def set_origin(self, attached_at: int) -> None:
        self.origin = attached_at

    def add(self, hit: hits.Hit) -> None:
        """Takes the hit; its events are written once no earlier hit can still come."""
        heapq.heappush(self.pending, (hit.time, self.hits, hit))
        self.hits += 1
        while self.pending and self.pending[0][0] < hit.time - _REORDER_WINDOW_NS:
            self._take(heapq.heappop(self.pending)[2])

    def _take(self, hit: hits.Hit) -> None:
        if self.origin is None:
            self.origin = hit.time
        self._name(hit)
        arguments = hits.arguments_object(hit)
        self._event({"ph": "i", "s": "t", "name": hit.probe.name, "cat": "usdt", "ts": self._ts(hit.time),
                     "pid": hit.pid, "tid": hit.tid, "args": arguments})
        for span, is_start, index in self.roles.get(hit.probe.name, ()):
            key = hit.tid if index is None else hit.values[index]
            slot = (span.number, hit.pid, key)
            # As the kernel counts (trace.bt.j2): from when each probe first fired.
            (self.live_start if is_start else self.live_done).setdefault(span.number, hit.time)
            if is_start:
                if slot in self.open:
                    self.problems[span.number]["overlapping_start"] += 1
                self.open[slot] = hit
                continue
            start = self.open.pop(slot, None)
            if start is None:
                if span.number in self.live_start:
                    self.problems[span.number]["unmatched_done"] += 1
                continue
            self.slices[span.number] += 1
            self._slice(span, start, hit, key)

    def _slice(self, span: Span, start: hits.Hit, done: hits.Hit, key: int) -> None:
        arguments = {"start": hits.arguments_object(start), "done": hits.arguments_object(done)}
        if span.key is None:
            self._event({"ph": "X", "name": span.name, "cat": "usdt", "ts": self._ts(start.time),
                         "dur": (done.time - start.time) / 1000, "pid": start.pid, "tid": start.tid,
                         "args": arguments})
            return
        common = {"name": span.name, "cat": "usdt", "id": f"{span.number}:{start.pid}:{key}", "pid": start.pid}
        self._event({"ph": "b", **common, "ts": self._ts(start.time), "tid": start.tid,
                     "args": {span.key: hits.json_value_of(start, span.key)}})
        self._event({"ph": "e", **common, "ts": self._ts(done.time), "tid": done.tid, "args": arguments})

    def _ts(self, time: int) -> float:
        return (time - self.origin) / 1000

    def _name(self, hit: hits.Hit) -> None:
        if hit.pid not in self.process_names:
            self.process_names[hit.pid] = _process_name(hit.pid) or (hit.process if hit.pid == hit.tid else None) \
                or hit.process or str(hit.pid)
        self.thread_names.setdefault((hit.pid, hit.tid), hit.process or str(hit.tid))

    def _event(self, event: dict) -> None:
        self.file.write(("" if self.first else ",\n") + json.dumps(event, ensure_ascii=False, separators=(",", ":")))
        self.first = False

    def close(self) -> None:
        while self.pending:
            self._take(heapq.heappop(self.pending)[2])
        for pid, name in self.process_names.items():
            self._event({"ph": "M", "name": "process_name", "pid": pid, "tid": pid, "args": {"name": name}})
        for (pid, tid), name in self.thread_names.items():
            self._event({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}})
        in_flight: Dict[int, int] = {}
        for (span_number, _, _), start in self.open.items():
            if start.time >= self.live_done.get(span_number, 0):
                in_flight[span_number] = in_flight.get(span_number, 0) + 1
        other = {"tool": "usdt trace", "monotonic_ns_at_zero": self.origin,
                 "spans": {span.title: {"name": span.name, "start": span.start, "done": span.done, "matched": span.matched_by,
                                       "slices": self.slices[span.number], **self.problems[span.number],
                                       "in_flight": in_flight.get(span.number, 0)} for span in self.spans}}
        try:
            self.file.write('\n],"displayTimeUnit":"ns","otherData":' + json.dumps(other, separators=(",", ":")) + "}\n")
            self.file.close()
            # As open() would have made it: mkstemp's file is its owner's alone.
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(self.partial, 0o666 & ~mask)
            os.replace(self.partial, self.path)
        except OSError as error:
            warn(f"--timeline {self.shown_path}: the trace could not be written: {error.strerror}")
            self.abandon()
            return
        slices = sum(self.slices.values())
        spans = f" and {_plural(slices, 'span')}" if self.spans else ""
        sys.stderr.write(f"usdt: wrote {_plural(self.hits, 'hit')}{spans} to "
                         f"{self.shown_path}: open it in https://ui.perfetto.dev\n")

    def abandon(self) -> None:
        """Removes the partial file: FILE stays as it was."""
        self.file.close()
        try:
            os.unlink(self.partial)
        except FileNotFoundError:
            pass


def _process_name(pid: int) -> Optional[str]:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="backslashreplace") as comm:
            return comm.read().rstrip("\n")
    except OSError:
        return None


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
