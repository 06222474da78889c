"""A strict checker of Chrome's Trace Event Format (the JSON that chrome://tracing, Perfetto's
ui.perfetto.dev and Chrome DevTools load), for the files `usdt trace --timeline` writes.

`check_trace_file(path)` and `check_trace(document)` return a list of problems, each naming the
event (its index in traceEvents, phase and name) and what is wrong; an empty list is a good file.

The rules are the format's ("Trace Event Format", the Google document catapult links to), made
strict where a viewer would silently drop or misplace an event:
- the top level is an object with a traceEvents array; displayTimeUnit is "ms" or "ns";
- every event has a known one-letter phase, a name (an E too, which DevTools needs), integer pid and tid, a finite number ts
  (metadata events may leave ts and, for a process, tid out), an object args if any; no key
  outside the format's (a misspelt "duration" would be ignored by every viewer);
- complete events (X) a finite dur >= 0; instants (i, I) a scope s of g, p or t if any;
- B/E pair per thread, last in first out, E no earlier than its B and naming it;
- async events (b, n, e) a cat and an id (a string or an integer) or an id2 {local|global};
  b/e pair by (cat, id, name), e no earlier than its b and in the same process, since Perfetto
  draws async slices on a track per process;
- slices on one thread (X and B/E) nest: one starting inside another ends inside it, or a viewer
  misplaces it;
- metadata events (M) are the format's five, process_name/thread_name with a string
  args.name, *_sort_index with an integer args.sort_index.
"""

import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

# Every phase of the format: duration (B E), complete (X), instant (i, and I as Chrome writes it),
# counter (C), async (b n e, and the legacy S T p F), flow (s t f), sample (P), object (N O D),
# metadata (M), memory dump (V v), mark (R), clock sync (c), context (( )), linked ids (=).
PHASES = frozenset("BEXiICbneSTpFstfPNODMVvRc()=")

TOP_LEVEL_KEYS = frozenset({"traceEvents", "displayTimeUnit", "otherData", "systemTraceEvents",
                            "stackFrames", "samples", "metadata", "controllerTraceDataKey",
                            "powerTraceAsString"})
DISPLAY_TIME_UNITS = ("ms", "ns")

EVENT_KEYS = frozenset({"name", "cat", "ph", "ts", "tts", "pid", "tid", "args", "dur", "tdur",
                        "id", "id2", "bind_id", "bp", "s", "scope", "cname", "sf", "stack",
                        "esf", "estack", "flow_in", "flow_out", "use_async_tts"})
INSTANT_SCOPES = ("g", "p", "t")
# Metadata event name -> the args key it must carry and that key's type.
METADATA = {"process_name": ("name", str), "thread_name": ("name", str),
            "process_labels": ("labels", str),
            "process_sort_index": ("sort_index", int), "thread_sort_index": ("sort_index", int)}
PROCESS_METADATA = frozenset({"process_name", "process_labels", "process_sort_index"})


def check_trace_file(path) -> List[str]:
    """The problems of the trace file at `path`, beginning with any of its JSON: NaN and
    Infinity, which Python accepts and browsers' JSON.parse does not, and duplicate keys."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return [f"{path}: cannot read: {error}"]
    problems: List[str] = []

    def reject_constant(name: str):
        raise ValueError(f"{name} is not JSON")

    def pairs_to_dict(pairs):
        keys = [key for key, _ in pairs]
        for key in sorted({key for key in keys if keys.count(key) > 1}):
            problems.append(f"{path}: an object has the key {key!r} more than once")
        return dict(pairs)

    try:
        document = json.loads(text, parse_constant=reject_constant, object_pairs_hook=pairs_to_dict)
    except json.JSONDecodeError as error:
        return [f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}"]
    except ValueError as error:
        return [f"{path}: {error}"]
    return problems + check_trace(document)


def check_trace(document: Any) -> List[str]:
    """The problems of a trace already parsed from JSON (see the module docstring)."""
    if not isinstance(document, dict):
        return [f"top level: an object with traceEvents expected, not {_kind(document)}"]
    problems = [f"top level: unknown key {key!r}" for key in sorted(set(document) - TOP_LEVEL_KEYS)]
    if "displayTimeUnit" in document and document["displayTimeUnit"] not in DISPLAY_TIME_UNITS:
        problems.append(f"top level: displayTimeUnit is {document['displayTimeUnit']!r}, not \"ms\" or \"ns\"")
    if "otherData" in document and not isinstance(document["otherData"], dict):
        problems.append(f"top level: otherData is {_kind(document['otherData'])}, not an object")
    events = document.get("traceEvents")
    if not isinstance(events, list):
        problems.append(f"top level: traceEvents is {_kind(events) if 'traceEvents' in document else 'missing'}, "
                        "not an array")
        return problems
    checker = _EventsChecker(events)
    return problems + checker.check()


class _EventsChecker:
    """One pass over the events for the rules of each event alone, then the rules between
    events (pairing and nesting) over the events that passed the first."""

    def __init__(self, events: List[Any]):
        self.events = events
        self.problems: List[str] = []

    def check(self) -> List[str]:
        good: List[Tuple[int, Dict[str, Any]]] = []
        for index, event in enumerate(self.events):
            before = len(self.problems)
            self._check_event(index, event)
            if len(self.problems) == before:
                good.append((index, event))
        self._check_metadata_names(good)
        self._check_duration_pairs(good)
        self._check_async_pairs(good)
        return self.problems

    def _problem(self, index: int, event: Any, message: str) -> None:
        self.problems.append(f"{_where(index, event)}: {message}")

    # --- each event alone ---

    def _check_event(self, index: int, event: Any) -> None:
        if not isinstance(event, dict):
            self._problem(index, event, f"an event is an object, not {_kind(event)}")
            return
        for key in sorted(set(event) - EVENT_KEYS):
            self._problem(index, event, f"unknown key {key!r}")
        phase = event.get("ph")
        if not isinstance(phase, str) or phase not in PHASES:
            self._problem(index, event, f"ph is {_shown(event, 'ph')}, not one of the format's phases")
            return
        # The format lets an E leave its name out (it ends the last B open on its thread), but
        # Chrome DevTools' trace engine then fails on the whole file.
        if not isinstance(event.get("name"), str) or not event["name"]:
            self._problem(index, event, f"name is {_shown(event, 'name')}, not a non-empty string")
        if "cat" in event and not isinstance(event["cat"], str):
            self._problem(index, event, f"cat is {_shown(event, 'cat')}, not a string")
        if "args" in event and not isinstance(event["args"], dict):
            self._problem(index, event, f"args is {_shown(event, 'args')}, not an object")
        process_level = phase == "M" and event.get("name") in PROCESS_METADATA
        self._require_integer(index, event, "pid")
        if not (process_level and "tid" not in event):
            self._require_integer(index, event, "tid")
        if phase != "M" or "ts" in event:
            self._require_number(index, event, "ts")
        if "tts" in event:
            self._require_number(index, event, "tts")
        if phase == "X":
            self._require_number(index, event, "dur", at_least_zero=True)
            if "tdur" in event:
                self._require_number(index, event, "tdur", at_least_zero=True)
        elif "dur" in event:
            self._problem(index, event, f"dur on a {phase} event: only complete events (X) have one")
        if phase in "iI" and "s" in event and event["s"] not in INSTANT_SCOPES:
            self._problem(index, event, f"s is {_shown(event, 's')}, not \"g\", \"p\" or \"t\"")
        if phase in "bne":
            self._check_async_identity(index, event)
        if phase == "M":
            self._check_metadata(index, event)

    def _require_integer(self, index: int, event: Dict[str, Any], key: str) -> None:
        value = event.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            self._problem(index, event, f"{key} is {_shown(event, key)}, not an integer")

    def _require_number(self, index: int, event: Dict[str, Any], key: str, at_least_zero: bool = False) -> None:
        value = event.get(key)
        if not _is_number(value):
            self._problem(index, event, f"{key} is {_shown(event, key)}, not a number")
        elif not math.isfinite(value):
            self._problem(index, event, f"{key} is {value}, not a finite number")
        elif at_least_zero and value < 0:
            self._problem(index, event, f"{key} is {value}, below 0")

    def _check_async_identity(self, index: int, event: Dict[str, Any]) -> None:
        if not isinstance(event.get("cat"), str):
            self._problem(index, event, "an async event needs a cat: with id and name it pairs b with e")
        has_id, has_id2 = "id" in event, "id2" in event
        if has_id == has_id2:
            self._problem(index, event, "an async event has an id or an id2, exactly one")
        elif has_id:
            value = event["id"]
            if not (isinstance(value, str) and value) and not (isinstance(value, int) and not isinstance(value, bool)):
                self._problem(index, event, f"id is {_shown(event, 'id')}, not a non-empty string or an integer")
        else:
            id2 = event["id2"]
            if not isinstance(id2, dict) or len(id2) != 1 or next(iter(id2)) not in ("local", "global"):
                self._problem(index, event, f"id2 is {_shown(event, 'id2')}, not {{\"local\": ...}} or {{\"global\": ...}}")

    def _check_metadata(self, index: int, event: Dict[str, Any]) -> None:
        name = event.get("name")
        if name not in METADATA:
            self._problem(index, event, f"a metadata event named {name!r}: not one of {', '.join(sorted(METADATA))}")
            return
        key, kind = METADATA[name]
        value = event.get("args", {}).get(key) if isinstance(event.get("args"), dict) else None
        if not isinstance(value, kind) or isinstance(value, bool) or value == "":
            wanted = "a non-empty string" if kind is str else "an integer"
            self._problem(index, event, f"args.{key} is {_kind(value) if value is not None else 'missing'}, not {wanted}")

    # --- between events ---

    def _check_metadata_names(self, good: List[Tuple[int, Dict[str, Any]]]) -> None:
        """A process or thread named twice, differently: a viewer shows one of the names."""
        named: Dict[Tuple[str, int, Optional[int]], Tuple[int, str]] = {}
        for index, event in good:
            if event["ph"] != "M" or event["name"] not in ("process_name", "thread_name"):
                continue
            tid = event.get("tid") if event["name"] == "thread_name" else None
            key = (event["name"], event["pid"], tid)
            name = event["args"]["name"]
            if key in named and named[key][1] != name:
                self._problem(index, event, f"renames {'thread' if tid is not None else 'process'} "
                                            f"{named[key][1]!r} (traceEvents[{named[key][0]}]) to {name!r}")
            named.setdefault(key, (index, name))

    def _check_duration_pairs(self, good: List[Tuple[int, Dict[str, Any]]]) -> None:
        """B/E pairing per thread, then nesting of the thread's slices (X and B/E pairs)."""
        slices: Dict[Tuple[int, int], List[Tuple[float, float, int, Dict[str, Any]]]] = defaultdict(list)
        open_begins: Dict[Tuple[int, int], List[Tuple[int, Dict[str, Any]]]] = defaultdict(list)
        # Stable sort by ts: a viewer reads events in time order, ties in file order.
        timed = sorted((pair for pair in good if pair[1]["ph"] in "BEX"), key=lambda pair: pair[1]["ts"])
        for index, event in timed:
            thread = (event["pid"], event["tid"])
            if event["ph"] == "X":
                slices[thread].append((event["ts"], event["ts"] + event["dur"], index, event))
            elif event["ph"] == "B":
                open_begins[thread].append((index, event))
            elif not open_begins[thread]:
                self._problem(index, event, f"an E with no open B on thread {thread[1]} of process {thread[0]}")
            else:
                begin_index, begin = open_begins[thread].pop()
                if event["name"] != begin["name"]:
                    self._problem(index, event, f"ends {begin['name']!r} (traceEvents[{begin_index}]), "
                                                "the last B open on its thread, under another name")
                slices[thread].append((begin["ts"], event["ts"], begin_index, begin))
        for thread, begins in open_begins.items():
            for index, event in begins:
                self._problem(index, event, f"a B never ended by an E on thread {thread[1]} of process {thread[0]}")
        for thread, thread_slices in slices.items():
            self._check_nesting(thread, thread_slices)

    def _check_nesting(self, thread: Tuple[int, int],
                       thread_slices: List[Tuple[float, float, int, Dict[str, Any]]]) -> None:
        # Longest first among those starting together: the enclosing slice comes first.
        thread_slices.sort(key=lambda item: (item[0], -item[1], item[2]))
        enclosing: List[Tuple[float, float, int, Dict[str, Any]]] = []
        for start, end, index, event in thread_slices:
            while enclosing and enclosing[-1][1] <= start:
                enclosing.pop()
            if enclosing and end > enclosing[-1][1]:
                outer_start, outer_end, outer_index, outer = enclosing[-1]
                self._problem(index, event, f"[{start}, {end}] starts inside {outer['name']!r} "
                                            f"[{outer_start}, {outer_end}] (traceEvents[{outer_index}]) on thread "
                                            f"{thread[1]} of process {thread[0]} and ends after it: slices on a thread nest")
            enclosing.append((start, end, index, event))

    def _check_async_pairs(self, good: List[Tuple[int, Dict[str, Any]]]) -> None:
        open_spans: Dict[Tuple[str, str, str], List[Tuple[int, Dict[str, Any]]]] = defaultdict(list)
        timed = sorted((pair for pair in good if pair[1]["ph"] in "bne"), key=lambda pair: pair[1]["ts"])
        begins_by_key: Dict[Tuple[str, str, str], List[Tuple[int, Dict[str, Any]]]] = defaultdict(list)
        for index, event in timed:
            if event["ph"] == "b":
                begins_by_key[(event["cat"], _async_id(event), event["name"])].append((index, event))
        for index, event in timed:
            key = (event["cat"], _async_id(event), event["name"])
            if event["ph"] == "b":
                open_spans[key].append((index, event))
            elif event["ph"] == "n":
                if not open_spans[key]:
                    self._problem(index, event, f"an n outside any b of cat {key[0]!r}, id {key[1]}, name {key[2]!r}")
            elif not open_spans[key]:
                later = next((begin_index for begin_index, begin in begins_by_key.get(key, ())
                              if begin["ts"] > event["ts"]), None)
                before = (f", at ts {event['ts']}, before the b at traceEvents[{later}] begins: an e follows its b"
                          if later is not None else "")
                self._problem(index, event, f"an e with no open b of cat {key[0]!r}, id {key[1]}, name {key[2]!r}{before}")
            else:
                begin_index, begin = open_spans[key].pop()
                if begin["pid"] != event["pid"]:
                    self._problem(index, event, f"ends in process {event['pid']} the async slice begun in process "
                                                f"{begin['pid']} (traceEvents[{begin_index}]): Perfetto pairs within a process")
        for key, begins in open_spans.items():
            for index, event in begins:
                self._problem(index, event, f"a b never ended by an e of cat {key[0]!r}, id {key[1]}, name {key[2]!r}")


def _async_id(event: Dict[str, Any]) -> str:
    if "id" in event:
        return json.dumps(event["id"])
    (scope, value), = event["id2"].items()
    return f"{scope}:{json.dumps(value)}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if _is_number(value):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _shown(event: Dict[str, Any], key: str) -> str:
    if key not in event:
        return "missing"
    value = event[key]
    text = json.dumps(value)
    return text if len(text) <= 40 else _kind(value)


def _where(index: int, event: Any) -> str:
    if not isinstance(event, dict):
        return f"traceEvents[{index}]"
    details = []
    if isinstance(event.get("ph"), str):
        details.append(f"ph {event['ph']!r}")
    if isinstance(event.get("name"), str):
        details.append(f"name {event['name']!r}")
    return f"traceEvents[{index}] ({', '.join(details)})" if details else f"traceEvents[{index}]"
