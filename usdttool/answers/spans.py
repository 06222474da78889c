"""What `usdt trace --latency`, `--span` and `--histogram` measure: spans (a start probe and its
done probe, matched per thread or by a key argument) and numeric arguments.

A span's start and done are matched per (process, key): the key is an integer argument both
probes have under the same name, `id` or ending in `_id`, else the thread. A start while one
is open for the same key is counted as overlapping and replaces it; a done without a start is
counted as unmatched; starts still open at the end are in flight. The kernel (trace.bt.j2)
and the timeline (timeline.py) pair by these same rules.
"""

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument, TracerProbe

from ..errors import ToolError

# The suffixes of the probe pairs users name: request__start/request__done,
# transaction__begin/transaction__end, function__entry/function__return.
PAIR_SUFFIXES = (("__start", "__done"), ("__begin", "__end"), ("__entry", "__return"))
THREAD = "thread"


@dataclass(frozen=True)
class Span:
    number: int
    name: str                  # kvserver:request
    start: str                 # kvserver:request__start
    done: str                  # kvserver:request__done
    key: Optional[str]         # the key argument's name; None: per thread

    @property
    def matched_by(self) -> str:
        return f"by {self.key}" if self.key else "per thread"

    @property
    def title(self) -> str:
        """`kvserver:request (by id)`: tells two spans of one pair apart."""
        return f"{self.name} ({self.matched_by})"


@dataclass(frozen=True)
class Histogram:
    number: int
    probe: str                 # kvserver:request__done
    argument: str              # latency_ns


def _name(probe: TracerProbe) -> str:
    return probe.full_name


def conventional_pairs(probes: Sequence[TracerProbe]) -> List[Tuple[str, str]]:
    """(start, done) of each pair named by the conventions, in the probes' order."""
    names = {_name(probe) for probe in probes}
    pairs = []
    for name in dict.fromkeys(_name(probe) for probe in probes):
        for start_suffix, done_suffix in PAIR_SUFFIXES:
            if name.endswith(start_suffix):
                done = name[:-len(start_suffix)] + done_suffix
                if done in names:
                    pairs.append((name, done))
    return pairs


def parse_span(text: str, probes: Sequence[TracerProbe]) -> Tuple[str, str, Optional[str]]:
    """`START,DONE[,KEY]` -> (start, done, key or None for the default), each probe known."""
    parts = text.split(",")
    if len(parts) not in (2, 3) or not all(parts):
        raise ToolError(f"--span {text}: write START,DONE or START,DONE,KEY (KEY: an argument of both, or "
                        f"'{THREAD}'), for example --span kvserver:request__start,kvserver:request__done,id")
    start, done = (_probe_name(part, probes, "--span") for part in parts[:2])
    if start == done:
        raise ToolError(f"--span {text}: a span starts at one probe and ends at another")
    return start, done, parts[2] if len(parts) == 3 else None


def make_span(number: int, start: str, done: str, key: Optional[str], probes: Sequence[TracerProbe]) -> Span:
    """The span, its key checked against both probes' arguments (all their copies agree:
    a probe in two files has the same arguments in both, or the trace refuses it earlier)."""
    by_name = {_name(probe): probe for probe in probes}
    start_probe, done_probe = by_name[start], by_name[done]
    if key is None:
        key = _default_key(start_probe, done_probe)
    elif key == THREAD:
        key = None
    else:
        for probe in (start_probe, done_probe):
            _key_argument(probe, key)
    name = _span_name(start, done)
    return Span(number, name, start, done, key)


def key_index(probe: TracerProbe, key: Optional[str]) -> Optional[int]:
    """The index of the key argument in `probe`, None per thread."""
    return None if key is None else _key_argument(probe, key).index


def parse_histogram(number: int, text: str, probes: Sequence[TracerProbe]) -> Histogram:
    """`PROBE:ARGUMENT` -> the histogram, the argument an integer bpftrace reads."""
    probe_text, _, argument = text.rpartition(":")
    if ":" not in probe_text or not argument:
        raise ToolError(f"--histogram {text}: write PROVIDER:PROBE:ARGUMENT, for example "
                        f"--histogram kvserver:request__done:latency_ns")
    name = _probe_name(probe_text, probes, "--histogram")
    probe = next(probe for probe in probes if _name(probe) == name)
    found = _argument(probe, argument, "--histogram")
    if found.kind is not Kind.INTEGER:
        raise ToolError(f"--histogram {text}: {argument} is a {found.kind.note_spelling}; "
                        f"a histogram counts integers")
    return Histogram(number, name, argument)


def histogram_index(probe: TracerProbe, histogram: Histogram) -> int:
    return _argument(probe, histogram.argument, "--histogram").index


def _probe_name(text: str, probes: Sequence[TracerProbe], option: str) -> str:
    """A probe's full name from `provider:probe`, or `probe` alone where only one has it."""
    names = list(dict.fromkeys(_name(probe) for probe in probes))
    if text in names:
        return text
    candidates = [name for name in names if name.split(":", 1)[1] == text]
    if len(candidates) == 1:
        return candidates[0]
    problem = f"{text} is in more than one provider ({', '.join(candidates)})" if candidates \
        else f"no traced probe is named {text}"
    raise ToolError(f"{option}: {problem}; the probes: {' '.join(sorted(names))}")


def _argument(probe: TracerProbe, name: str, option: str) -> TracerArgument:
    found = next((argument for argument in probe.arguments if argument.name == name), None)
    if found is None:
        names = ", ".join(argument.name for argument in probe.arguments) or "none"
        raise ToolError(f"{option}: {_name(probe)} has no argument {name} (its arguments: {names})")
    return found


def _key_argument(probe: TracerProbe, key: str) -> TracerArgument:
    found = _argument(probe, key, "--span")
    if found.kind is not Kind.INTEGER:
        raise ToolError(f"--span: {_name(probe)}'s {key} is a {found.kind.note_spelling}; "
                        f"a key is an integer argument (or '{THREAD}')")
    return found


def _default_key(start: TracerProbe, done: TracerProbe) -> Optional[str]:
    in_done = {argument.name: argument for argument in done.arguments}
    for argument in start.arguments:
        name = argument.name
        other = in_done.get(name)
        if (name == "id" or name.endswith("_id")) and other is not None \
                and argument.kind is Kind.INTEGER and other.kind is Kind.INTEGER:
            return name
    return None


def _span_name(start: str, done: str) -> str:
    for start_suffix, done_suffix in PAIR_SUFFIXES:
        if start.endswith(start_suffix) and done == start[:-len(start_suffix)] + done_suffix:
            return start[:-len(start_suffix)]
    return f"{start}..{done}"

