"""Loads a trace file into a real trace viewer's parser, Chrome DevTools' trace engine, through
load-trace.mjs, and returns what the engine loaded, for tests of `usdt trace --timeline`.

    loaded = trace_viewer.load_in_viewer(path)
    problems = trace_viewer.viewer_problems(path, loaded)   # [] when it loaded as written

`loaded` is load-trace.mjs's JSON (times in microseconds, as in the file):
    viewer        {"name", "version"} of the engine
    processes     [{"pid", "name"}]                from process_name metadata
    threads       [{"pid", "tid", "name", "slices", "instants"}], a thread for each that has
                  any; a slice {"name", "cat", "ph", "ts", "dur", "depth", "args"} (X, or B/E
                  paired by the engine; depth 0 at the top of the thread's tree)
    async_slices  [{"name", "cat", "id", "ts", "dur", "begin": {"pid", "tid", "args"},
                    "end": {...}}], b/e paired by the engine's matcher
    not_shown     {phase: count} of the file's events that the engine put nowhere
    warnings      what the engine printed while parsing
The engine leaves out what DevTools does not draw for a trace that is not Chrome's: instants
of phase "i" (it draws Chrome's "I"), counters, flows; `not_shown` counts them.

The engine is an npm package that `npm ci` installs, from this directory's package-lock.json,
into the directory USDT_TIMELINE_VIEWER_DIR names (CTest's timeline_viewer fixture sets both up,
tests/tool/timeline/CMakeLists.txt). Where node or that install is missing, load_in_viewer raises
ViewerUnavailable, a unittest.SkipTest, so the test skips with the reason, or fails under
USDT_REQUIRE_TRACERS=1 as every skip does (usdt_testing.main).
"""

import json
import os
import shutil
import subprocess
import unittest
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import usdt_testing

LOADER = Path(__file__).resolve().parent / "load-trace.mjs"
ENGINE_PACKAGE = "@paulirish/trace_engine"
VIEWER_DIR_VARIABLE = "USDT_TIMELINE_VIEWER_DIR"
MINIMUM_NODE = 20  # package.json's engines


class ViewerUnavailable(unittest.SkipTest):
    """node, or the engine's npm install, is missing: a skip (a failure under
    USDT_REQUIRE_TRACERS=1)."""


class ViewerError(AssertionError):
    """The engine could not load the file: the test fails."""


def viewer_unavailable_reason(viewer_dir: Optional[Path] = None) -> Optional[str]:
    """Why load_in_viewer cannot run here, or None when it can."""
    left_out = usdt_testing.left_out_reason("node")
    if left_out is not None:
        return left_out
    if shutil.which("node") is None:
        return "node is not installed (Debian: apt-get install nodejs npm, or tests/install-dependencies.sh tests)"
    version = _node_major_version()
    if version is not None and version < MINIMUM_NODE:
        return (f"node {version} is older than {MINIMUM_NODE}, which {ENGINE_PACKAGE} needs "
                "(it calls Array.prototype.toSorted); Debian 12's nodejs is 18")
    directory = viewer_dir or _viewer_dir_from_environment()
    if directory is None:
        return (f"{VIEWER_DIR_VARIABLE} is not set: run the test through CTest (fixture timeline_viewer), "
                "or set it to a directory where `npm ci` installed tests/tool/timeline/package-lock.json")
    if not (Path(directory) / "node_modules" / ENGINE_PACKAGE / "package.json").is_file():
        return (f"{ENGINE_PACKAGE} is not installed in {directory}: "
                "run the CTest fixture tool.timeline_viewer_install, or `npm ci` there with tests/tool/timeline's package-lock.json")
    return None


def load_in_viewer(path, viewer_dir: Optional[Path] = None, timeout: float = 120) -> Dict[str, Any]:
    """What the viewer's engine loaded from the trace file at `path` (see the module docstring).
    Raises ViewerUnavailable (a skip) without node or the engine, ViewerError when the engine
    fails on the file."""
    reason = viewer_unavailable_reason(viewer_dir)
    if reason is not None:
        raise ViewerUnavailable(reason)
    directory = viewer_dir or _viewer_dir_from_environment()
    command = ["node", str(LOADER), "--viewer-dir", str(directory), str(path)]
    completed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=timeout, check=False)
    if completed.returncode != 0:
        raise ViewerError(f"{ENGINE_PACKAGE} could not load {path} (exit {completed.returncode}):\n"
                          f"{completed.stderr.strip()}")
    try:
        return json.loads(completed.stdout)
    except json.JSONDecodeError as error:
        raise ViewerError(f"load-trace.mjs printed no JSON for {path}: {error}\n{completed.stdout[:2000]}") from None


def viewer_problems(path, loaded: Optional[Dict[str, Any]] = None) -> List[str]:
    """What the engine loaded from the trace file at `path` and the file disagree on, as a list
    of problems (empty: every slice, "I" instant and b/e pair is where the file puts it, with
    its start and duration). `loaded` is load_in_viewer's result, loaded here when not given.
    The format's "i" instants are expected in not_shown (the engine leaves them out); any other
    event left out, and anything the engine printed while parsing, is a problem."""
    loaded = load_in_viewer(path) if loaded is None else loaded
    expected, got = file_summary(path), summary(loaded)
    problems = [f"in the file, not loaded: {line}" for line in _minus(expected, got)]
    problems += [f"loaded, not in the file: {line}" for line in _minus(got, expected)]
    events = json.loads(Path(path).read_text(encoding="utf-8"))["traceEvents"]
    instants = sum(1 for event in events if event["ph"] == "i")
    left_out = dict(loaded["not_shown"])
    if left_out.pop("i", 0) != instants:
        problems.append(f"the engine left out {loaded['not_shown'].get('i', 0)} \"i\" instants of the file's {instants}")
    problems += [f"the engine left out {count} {phase!r} events" for phase, count in sorted(left_out.items())]
    problems += [f"the engine said: {warning}" for warning in loaded["warnings"]]
    return problems


def _minus(lines: List[str], other: List[str]) -> List[str]:
    """`lines` less `other`, as multisets."""
    remaining = list(other)
    result = []
    for line in lines:
        if line in remaining:
            remaining.remove(line)
        else:
            result.append(line)
    return result


def thread_slices(loaded: Dict[str, Any]) -> Iterator[Tuple[int, int, Dict[str, Any]]]:
    """(pid, tid, slice) for every slice the engine put on a thread, thread by thread in time
    order."""
    for thread in loaded["threads"]:
        for slice_ in thread["slices"]:
            yield thread["pid"], thread["tid"], slice_


def thread_named(loaded: Dict[str, Any], pid: int, tid: int) -> Optional[str]:
    """The name the engine gave thread `tid` of process `pid`, or None if it has no slices."""
    for thread in loaded["threads"]:
        if (thread["pid"], thread["tid"]) == (pid, tid):
            return thread["name"]
    return None


def summary(loaded: Dict[str, Any]) -> List[str]:
    """One line per slice, instant and ended async slice the engine loaded, sorted: a form to
    compare with file_summary, or with a list a test expects, and to print on failure."""
    lines = [_slice_line(pid, tid, slice_["name"], slice_["ts"], slice_["dur"])
             for pid, tid, slice_ in thread_slices(loaded)]
    lines += [_instant_line(thread["pid"], thread["tid"], instant["name"], instant["ts"])
              for thread in loaded["threads"] for instant in thread["instants"]]
    lines += [_async_line(span["begin"], span["end"], span["name"], span["id"], span["ts"], span["dur"])
              for span in loaded["async_slices"] if span["end"] is not None]
    return sorted(lines)


def file_summary(path) -> List[str]:
    """The lines of `summary` that the trace file at `path` should load as: its X events, its
    instants of phase "I" (the engine leaves out "i": compare their count with not_shown), and
    its b/e pairs, paired last in first out by (cat, id, name) in time order as viewers pair
    them. The file should pass trace_events.check_trace_file first."""
    events = json.loads(Path(path).read_text(encoding="utf-8"))["traceEvents"]
    lines = [_slice_line(event["pid"], event["tid"], event["name"], event["ts"], event["dur"])
             for event in events if event["ph"] == "X"]
    lines += [_instant_line(event["pid"], event["tid"], event["name"], event["ts"])
              for event in events if event["ph"] == "I"]
    open_spans: Dict[Tuple[Any, ...], List[Dict[str, Any]]] = {}
    for event in sorted((event for event in events if event["ph"] in "be"), key=lambda event: event["ts"]):
        key = (event.get("cat"), json.dumps(event.get("id", event.get("id2"))), event["name"])
        if event["ph"] == "b":
            open_spans.setdefault(key, []).append(event)
        elif open_spans.get(key):
            begin = open_spans[key].pop()
            lines.append(_async_line(begin, event, event["name"], begin.get("id", begin.get("id2")),
                                     begin["ts"], event["ts"] - begin["ts"]))
    return sorted(lines)


def _slice_line(pid: int, tid: int, name: str, ts: float, dur: float) -> str:
    return f"X {pid}/{tid} {name} ts={_number(ts)} dur={_number(dur)}"


def _instant_line(pid: int, tid: int, name: str, ts: float) -> str:
    return f"I {pid}/{tid} {name} ts={_number(ts)}"


def _async_line(begin: Dict[str, Any], end: Dict[str, Any], name: str, id_: Any, ts: float, dur: float) -> str:
    return (f"b/e {begin['pid']}/{begin['tid']}->{end['pid']}/{end['tid']} {name} id={json.dumps(id_)} "
            f"ts={_number(ts)} dur={_number(dur)}")


def _number(value: float) -> str:
    """Microseconds to the nanosecond, so that 250.5 and 250.50000000001 read alike."""
    return f"{value:.3f}"


def _node_major_version() -> Optional[int]:
    try:
        completed = subprocess.run(["node", "--version"], stdout=subprocess.PIPE, text=True, timeout=60, check=False)
        return int(completed.stdout.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def _viewer_dir_from_environment() -> Optional[Path]:
    value = os.environ.get(VIEWER_DIR_VARIABLE)
    return Path(value) if value else None
