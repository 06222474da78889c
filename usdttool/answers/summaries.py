"""What `usdt trace --latency/--span/--count/--histogram` prints: the BPF maps the program
counts in, read as bpftrace prints them, turned into per-interval and whole-trace summaries.

The program never clears a count (a clear would race with the hits counted meanwhile): it
prints its cumulative maps every interval and at the end, between two marker lines, and the
counts of an interval are the differences. Only min and max, which differences cannot give,
are kept per interval (the map's key holds the interval's number, `epoch`).
"""

import json
import re
from dataclasses import dataclass, field
from typing import AbstractSet, Dict, List, Optional, Sequence, Tuple

from . import distribution
from .distribution import Distribution
from ..bpftrace import hits

MAPS_START = "usdt-maps"
MAPS_END = "usdt-maps-end"
# `@name[1, 2]: 3` or `@name: 3`, as bpftrace prints a map of integers.
_MAP_LINE = re.compile(r"@(\w+)(?:\[([-\d, ]*)\])?: (-?\d+)")


@dataclass(frozen=True)
class Aggregate:
    """One distribution the program counts: a span's latency or a numeric argument's values."""
    number: int
    title: str            # `kvserver:request (by id)`, `kvserver:request__done latency_ns`
    kind: str             # "latency" (values in ns) or "histogram"
    span: Optional[int]   # the span's number for a latency
    describe: Dict[str, object]   # what the JSON object says it is


@dataclass
class Snapshot:
    """One printing of the maps: when (nsecs) and each map's entries by key."""
    time: int
    epoch: int                               # the interval's number
    final: bool                              # printed at the end (the last interval, unfinished)
    maps: Dict[str, Dict[Tuple[int, ...], int]] = field(default_factory=dict)


class MapReader:
    """Collects the lines between the marker lines into snapshots."""

    def __init__(self):
        self.current: Optional[Snapshot] = None
        self.final_read = False     # the last printing, at the end, has come

    def feed(self, line: str) -> Tuple[bool, Optional[Snapshot]]:
        """(whether the line was part of a snapshot, the snapshot it finished if any)."""
        text = line.rstrip("\n")
        words = text.split()
        if words[:1] == [MAPS_START] and len(words) in (3, 4) and words[1].isdigit() and words[2].isdigit():
            # A start inside a printing: its end was lost (below), and so is that printing.
            self.current = Snapshot(int(words[1]), int(words[2]), words[3:] == ["final"])
            return True, None
        if self.current is None:
            return False, None
        if text == MAPS_END:
            finished, self.current = self.current, None
            self.final_read = self.final_read or finished.final
            # The marker lines and each map's lines are events in bpftrace's output buffer too:
            # a flood can drop some. A printing without its counts says nothing; the next
            # one's cumulative counts cover its interval too.
            return True, (finished if "usdt_hits" in finished.maps else None)
        entry = _MAP_LINE.fullmatch(text.strip())
        if entry:
            key = tuple(int(part) for part in entry[2].split(",")) if entry[2] else ()
            self.current.maps.setdefault(entry[1], {})[key] = int(entry[3])
        return True, None

    def feed_map(self, name: str, entries: Dict[str, int]) -> Tuple[bool, Optional[Snapshot]]:
        """A map as bpftrace -f json prints it (key "1,-2" -> value): (whether it was part of a
        snapshot, always None: the end marker finishes one)."""
        if self.current is None:
            return False, None
        for key, value in entries.items():
            self.current.maps.setdefault(name, {})[tuple(int(part) for part in key.split(",")) if key else ()] = value
        return True, None


@dataclass
class _Totals:
    """What has been counted so far (cumulative), as the last snapshot said."""
    hits: Dict[int, int] = field(default_factory=dict)
    buckets: Dict[int, Distribution] = field(default_factory=dict)
    unmatched: Dict[int, int] = field(default_factory=dict)
    overlapping: Dict[int, int] = field(default_factory=dict)


class Summaries:
    """Prints the summaries from the snapshots: per interval when asked, and for the whole trace."""

    def __init__(self, aggregates: Sequence[Aggregate], probe_names: Sequence[str], count_hits: bool,
                 as_json: bool, write, listed: Optional[AbstractSet[int]] = None):
        self.aggregates = aggregates
        self.probe_names = probe_names         # by probe number
        # The probes --count lists without hits (those asked for; None: all): the others, a
        # library's that nobody asked for, only when they fired.
        self.listed = set(range(len(probe_names))) if listed is None else listed
        self.count_hits = count_hits
        self.as_json = as_json
        self.write = write
        self.started_at: Optional[int] = None
        self.last_time: Optional[int] = None
        self.previous = _Totals()
        self.extremes: Dict[int, Distribution] = {}   # whole-trace min and max per aggregate
        self.in_flight: Dict[int, int] = {}
        self.intervals = 0
        self.last_epoch = -1                           # the last interval printed

    def start(self, attached_at: int) -> None:
        self.started_at = self.last_time = attached_at

    def take(self, snapshot: Snapshot) -> None:
        totals = _totals(snapshot, self.aggregates)
        # The intervals since the last printing: one, or more where printings were lost (a
        # flood, or bpftrace stopping, which prints no interval once it has its SIGINT).
        epochs = range(self.last_epoch + 1, snapshot.epoch + 1)
        for aggregate in self.aggregates:
            extremes = _extremes(snapshot, aggregate.number, epochs)
            self.extremes.setdefault(aggregate.number, Distribution()).add(extremes)
        start = self.last_time if self.last_time is not None else snapshot.time
        if snapshot.final:
            self.in_flight = {}
            # Starts before the done probe first fired may be of spans whose done it missed
            # while bpftrace attached it (its probes go live one by one).
            live_done = {key[0]: at for key, at in snapshot.maps.get("usdt_live_done", {}).items()}
            for key, started_at in snapshot.maps.get("usdt_started", {}).items():
                if started_at >= live_done.get(key[0], 0):
                    self.in_flight[key[0]] = self.in_flight.get(key[0], 0) + 1
            if self.intervals:
                self._print("interval", start, snapshot.time, snapshot, totals, self.previous, epochs)
            whole_start = self.started_at if self.started_at is not None else start
            self._print("total", whole_start, snapshot.time, snapshot, totals, _Totals(), epochs, whole=True)
        else:
            self.intervals += 1
            self._print("interval", start, snapshot.time, snapshot, totals, self.previous, epochs)
        self.previous = totals
        self.last_time = snapshot.time
        self.last_epoch = snapshot.epoch

    def _print(self, what: str, start: int, end: int, snapshot: Snapshot, totals: _Totals, earlier: _Totals,
               epochs: range, whole: bool = False) -> None:
        seconds = max(end - start, 1) / 1e9
        since = (start - self.started_at) / 1e9 if self.started_at is not None else 0.0
        until = (end - self.started_at) / 1e9 if self.started_at is not None else seconds
        blocks = []
        if self.count_hits:
            counts = {number: count - earlier.hits.get(number, 0) for number, count in totals.hits.items()}
            blocks.append(self._counts(counts, seconds, what, since, until))
        for aggregate in self.aggregates:
            values = totals.buckets.get(aggregate.number, Distribution()).minus(
                earlier.buckets.get(aggregate.number, Distribution()))
            extremes = self.extremes.get(aggregate.number) if whole else \
                _extremes(snapshot, aggregate.number, epochs)
            if extremes is not None:
                values.minimum, values.maximum = extremes.minimum, extremes.maximum
            problems = {}
            if aggregate.span is not None:
                problems = {
                    "unmatched_done": totals.unmatched.get(aggregate.span, 0) - earlier.unmatched.get(aggregate.span, 0),
                    "overlapping_start": totals.overlapping.get(aggregate.span, 0)
                    - earlier.overlapping.get(aggregate.span, 0)}
                if whole:
                    problems["in_flight"] = self.in_flight.get(aggregate.span, 0)
            blocks.append(self._distribution(aggregate, values, seconds, problems, what, since, until))
        if self.as_json:
            for block in blocks:
                self.write(json.dumps(block, separators=(",", ":")) + "\n")
        else:
            heading = (f"usdt: {since:.1f} s to {until:.1f} s" if not whole
                       else f"usdt: the whole trace, {seconds:.1f} s")
            self.write("\n".join([heading, *blocks]) + "\n\n")

    def _counts(self, counts: Dict[int, int], seconds: float, what: str, since: float, until: float):
        by_name: Dict[str, int] = {self.probe_names[number]: 0 for number in sorted(self.listed)}
        for number, count in counts.items():
            name = self.probe_names[number]
            by_name[name] = by_name.get(name, 0) + count
        ordered = sorted(by_name.items(), key=lambda item: (-item[1], item[0]))
        if self.as_json:
            return {"type": "counts", "period": what, "from_s": round(since, 6), "to_s": round(until, 6),
                    "hits": dict(ordered)}
        lines = [f"  {'hits':>10} {'per s':>10}  probe"]
        lines += [f"  {count:>10} {count / seconds:>10.1f}  {name}" for name, count in ordered]
        if not ordered:
            lines.append("  (no hits)")
        return "\n".join(lines)

    def _distribution(self, aggregate: Aggregate, values: Distribution, seconds: float,
                      problems: Dict[str, int], what: str, since: float, until: float):
        count = values.count
        statistics = {"count": count, "per_s": round(count / seconds, 3), "min": values.minimum,
                      **{f"p{percent}": values.percentile(percent) for percent in distribution.PERCENTILES},
                      "max": values.maximum}
        histogram = values.log2_histogram()
        if self.as_json:
            return {"type": aggregate.kind, **aggregate.describe, "period": what, "from_s": round(since, 6),
                    "to_s": round(until, 6), **{name: hits.json_integer(value) for name, value in statistics.items()},
                    **problems, "log2_histogram": [{"low": hits.json_integer(low), "high": hits.json_integer(high), "count": count}
                                                   for low, high, count in histogram]}
        unit = _duration if aggregate.kind == "latency" else _quantity
        lines = [f"  {aggregate.title}: {count} in {seconds:.2f} s ({count / seconds:.1f}/s)"]
        if count:
            lines.append("    " + "  ".join(f"{name} {unit(statistics[name])}"
                                             for name in ("min", "p50", "p90", "p99", "max")))
        if any(problems.values()):
            lines.append("    " + ", ".join(f"{name.replace('_', ' ')} {value}" for name, value in problems.items()))
        lines += _histogram_lines(histogram, unit)
        return "\n".join(lines)


def _totals(snapshot: Snapshot, aggregates: Sequence[Aggregate]) -> _Totals:
    totals = _Totals()
    totals.hits = {key[0]: count for key, count in snapshot.maps.get("usdt_hits", {}).items()}
    for aggregate in aggregates:
        totals.buckets[aggregate.number] = distribution.from_map_entries(
            (key[1], count) for key, count in snapshot.maps.get("usdt_buckets", {}).items()
            if key[0] == aggregate.number)
    totals.unmatched = {key[0]: count for key, count in snapshot.maps.get("usdt_unmatched", {}).items()}
    totals.overlapping = {key[0]: count for key, count in snapshot.maps.get("usdt_overlapping", {}).items()}
    return totals


def _extremes(snapshot: Snapshot, number: int, epochs: range) -> Distribution:
    """Min and max of aggregate `number` over the intervals `epochs`. bpftrace's max() of
    negative values alone is 0, so the program keeps negative values apart, as the min and
    max of their magnitudes."""
    values = Distribution()
    for epoch in epochs:
        def entry(name: str) -> Optional[int]:
            return snapshot.maps.get(name, {}).get((number, epoch))
        one = Distribution()
        negative_min, negative_max = entry("usdt_negative_min"), entry("usdt_negative_max")
        one.minimum = -negative_min if negative_min is not None else entry("usdt_min")
        one.maximum = entry("usdt_max")
        if one.maximum is None and negative_max is not None:
            one.maximum = -negative_max
        values.add(one)
    return values


def _duration(nanoseconds: Optional[int]) -> str:
    """Three significant digits in the largest unit that keeps the value under 1000: 999.6 us
    is 1 ms, not 1e+03 us."""
    if nanoseconds is None:
        return "-"
    for unit, size in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(float(f"{nanoseconds / size:.3g}")) >= 1:
            return f"{float(f'{nanoseconds / size:.3g}'):g}{unit}"
    return f"{nanoseconds}ns"


def _quantity(value: Optional[int]) -> str:
    """As bpftrace's hist() prints a bound: 1024 is 1K, 2^40 is 1T."""
    if value is None:
        return "-"
    for suffix, size in (("E", 1 << 60), ("P", 1 << 50), ("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20),
                         ("K", 1 << 10)):
        if abs(value) >= size and value % size == 0:
            return f"{value // size}{suffix}"
    return str(value)


def _histogram_lines(histogram: List[Tuple[int, int, int]], unit) -> List[str]:
    """As bpftrace prints a hist(): `[low, high]  count |@@@@   |`, 40 columns at most."""
    if not histogram:
        return []
    largest = max(count for _, _, count in histogram)
    ranges = [f"[{unit(low)}]" if low == high else f"[{unit(low)}, {unit(high + 1)})" for low, high, _ in histogram]
    width = max(len(text) for text in ranges)
    counts = max(len(str(count)) for _, _, count in histogram)
    return [f"    {text:<{width}} {count:>{counts}} |{'@' * round(40 * count / largest):<40}|"
            for text, (_, _, count) in zip(ranges, histogram)]
