"""Everything usdt trace does with bpftrace's lines once it has attached: the hits' lines as
they come (text), their records as JSON Lines or into the timeline, the maps as summaries,
and an account of the hits lost on the way.

Several bpftraces may run (supervisor.py: one more for the libraries a process loads while
traced), their probes numbered as one (program.plan()). Each one's lines come in order,
but interleaved with the others': each has its own reader of records and of map printings,
which span lines. The lost hits are those of every bpftrace's final counts; the summaries are
the first one's alone.

bpftrace hands each hit's line or record to user space through a per-CPU buffer; when usdt
reads slower than the probes fire, the kernel drops what does not fit and bpftrace says
lost events. Those events never reach the output: usdt warns on stderr while it happens,
and at the end compares what each probe counted in the kernel (@usdt_hits) with what came,
and names the probes whose hits were lost.
"""

import sys
import time
from typing import Dict, List, Optional, Sequence

from . import summaries
from .timeline import Timeline
from ..bpftrace import hits, json_events, unread_strings
from ..errors import warn

# How often, at most, usdt warns while hits are being lost.
_WARNING_INTERVAL = 1.0


class Output:
    """Receives bpftrace's lines: `read` in the thread reading them, as soon as they come (a
    string may have to be read from the process before it changes), `emit` in the main thread
    once attached, `flush` whenever no more are waiting, `finish` at the end. A line comes with
    its bpftrace's number: 0 for the first, then as `add_tracer` gives them."""

    def __init__(self, probes: Sequence[hits.TracedProbe], unread: unread_strings.UnreadStrings,
                 lines: bool, json_hits: bool, summary: Optional[summaries.Summaries],
                 timeline: Optional[Timeline]):
        self.unread = unread
        self.lines = lines
        self.json_hits = json_hits
        self.summary = summary
        self.timeline = timeline
        self.probes: List[hits.TracedProbe] = []
        self.records: List[hits.RecordReader] = []     # per bpftrace
        self.maps: List[summaries.MapReader] = []
        self.add_tracer(probes)
        self.received: Dict[str, int] = {}
        self.counted: Optional[Dict[int, int]] = None
        self.attached_at: Optional[int] = None
        self.lost_reported = 0
        self.lost_since_warning = 0
        self.last_warning_at = float("-inf")

    def add_tracer(self, probes: Sequence[hits.TracedProbe]) -> int:
        """The number of another bpftrace, for its `probes` (numbered after those known); before
        it starts."""
        self.probes += probes
        self.records.append(hits.RecordReader(probes, self.unread.read))
        self.maps.append(summaries.MapReader())
        return len(self.maps) - 1

    def attached(self, at: int) -> None:
        """bpftrace attached every probe at `at` (nsecs): earlier hits are left out."""
        self.attached_at = at
        if self.summary is not None:
            self.summary.start(at)
        if self.timeline is not None:
            self.timeline.set_origin(at)

    def read(self, event: Optional[json_events.Event], tracer: int = 0) -> object:
        """What the main thread gets for an event of bpftrace `tracer` (json_events.py): a hit for
        a record's last printf, None for its others, else the event (a printf's as text)."""
        if isinstance(event, json_events.Printf):
            taken, hit = self.records[tracer].feed(event.text)
            if taken:
                return hit
            return event.text.decode("utf-8", "backslashreplace")
        if isinstance(event, json_events.Other):
            return event.text
        return event

    def emit(self, item: object, attached_at: Optional[int], tracer: int = 0) -> None:
        if item is None:
            return
        if isinstance(item, hits.Hit):
            self._count(item.probe.name)
            if attached_at is not None and item.time < attached_at:
                return
            if self.lines:
                sys.stdout.write(hits.text_line(item))
            if self.json_hits:
                sys.stdout.write(hits.json_line(item))
            if self.timeline is not None:
                self.timeline.add(item)
            return
        if isinstance(item, json_events.Lost):
            self._lost(item.count)
            return
        if isinstance(item, json_events.Map):
            taken, snapshot = self.maps[tracer].feed_map(item.name, item.entries)
            if snapshot is not None:
                self._take(snapshot, tracer)
            return     # else a map bpftrace prints as it exits, emptied or not
        line = item
        taken, snapshot = self.maps[tracer].feed(line)
        if taken:
            if snapshot is not None:
                self._take(snapshot, tracer)
            return
        if line.strip():
            sys.stdout.write(line if line.endswith("\n") else line + "\n")

    def final_counts_read(self, tracer: int) -> bool:
        """Whether bpftrace `tracer`'s last printing of its maps (its END probe's) has come."""
        return self.maps[tracer].final_read

    def flush(self) -> None:
        """What `emit` wrote is out (a hit comes as soon as nothing else is waiting, also into a
        pipe: `usdt trace ... | grep`)."""
        sys.stdout.flush()

    def _count(self, probe: str) -> None:
        self.received[probe] = self.received.get(probe, 0) + 1

    def _lost(self, count: int) -> None:
        self.lost_reported += count
        self.lost_since_warning += count
        now = time.monotonic()
        if now - self.last_warning_at >= _WARNING_INTERVAL:
            warn(f"{self.lost_since_warning} hits lost: they fired faster than usdt could print them "
                  f"(the count per probe comes at the end)")
            self.lost_since_warning = 0
            self.last_warning_at = now

    def _take(self, snapshot: summaries.Snapshot, tracer: int) -> None:
        if snapshot.final:
            # Each bpftrace counts its own probes, whose numbers no other has.
            self.counted = self.counted or {}
            for key, count in snapshot.maps.get("usdt_hits", {}).items():
                self.counted[key[0]] = self.counted.get(key[0], 0) + count
        if self.summary is not None and tracer == 0:
            self.summary.take(snapshot)

    def finish(self) -> None:
        """The timeline written, and the account of lost hits on stderr: `usdt: lost N of M
        hits: PROBE COUNT, ...` when hits were lost (scripts may look for it)."""
        self.flush()
        if self.timeline is not None:
            if self.attached_at is None:
                self.timeline.abandon()     # stopped before it began: FILE stays as it was
            else:
                self.timeline.close()
        if not (self.lines or self.json_hits or self.timeline):
            return      # nothing was to come but the maps
        if self.counted is None:
            if self.lost_reported:
                warn(f"lost {self.lost_reported} hits (bpftrace ended before saying which probes')")
            return
        fired: Dict[str, int] = {}
        for probe in self.probes:
            fired[probe.name] = fired.get(probe.name, 0) + self.counted.get(probe.number, 0)
        lost = {name: count - self.received.get(name, 0) for name, count in fired.items()
                if count > self.received.get(name, 0)}
        if lost:
            details = ", ".join(f"{name} {count}" for name, count in sorted(lost.items(), key=lambda item: -item[1]))
            sys.stderr.write(f"usdt: lost {sum(lost.values())} of {sum(fired.values())} hits: {details}\n")
            sys.stderr.flush()

