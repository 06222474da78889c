"""`usdt trace`'s answers beyond the hit lines, on programs/spans.c, whose spans' durations the
program measures itself: summaries counted in BPF maps (--latency, --span, --count,
--histogram, per --interval; also what threads on every CPU count at the same moment), hits as
JSON Lines (--json), the timeline file (--timeline), and the account of lost hits. The option
errors need no root (OptionTest); the rest traces (LiveTest). The bucket arithmetic and the
record and map parsers: tests/python's test_distribution, test_hits and test_summaries.

What the program fires is written here from its source, not taken from a tracer.
"""

import json
import os
import re
import signal
import subprocess
import time
import unittest
from pathlib import Path
from typing import Dict, Optional

import launcher
import trace_events
import trace_viewer
import usdt_testing
from usdt_testing import require_tracer

from usdttool.bpftrace import hits

OPTIONS = None
PROGRAMS: Dict[str, str] = {}
PROGRAM_NAMES = ("spans", "sdt_only")
TRACE_TIMEOUT = 120

# programs/spans.c: what it fires.
COUNTS = {"spans:request__start": 7, "spans:request__done": 6, "spans:step__start": 6, "spans:step__done": 6,
          "spans:value": 6}
VALUES = [-5, -1, 0, 3, 1000, 1 << 40]
CREATION_MASK = os.umask(0o022)
os.umask(CREATION_MASK)


def usdt(*arguments, environment: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    return subprocess.run([*launcher.direct(OPTIONS.usdt), *map(str, arguments)], capture_output=True, text=True,
                          check=False, timeout=TRACE_TIMEOUT, env=dict(os.environ, **(environment or {})))


def split_output(result: subprocess.CompletedProcess):
    """(JSON objects usdt printed, the program's own lines: {kind: [(name, (measured, slept))]}),
    from usdt's output and the program's (which --json sends to stderr)."""
    objects, measured = [], {}
    for line in (result.stdout + result.stderr).splitlines():
        if line.startswith("{"):
            objects.append(json.loads(line))
        elif re.fullmatch(r"(request|step) \d+ \d+ \d+", line):
            kind, name, took, slept = line.split()
            measured.setdefault(kind, []).append((int(name), (int(took), int(slept))))
    return objects, measured


def within(test: unittest.TestCase, in_bpf: float, bounds, what: str) -> None:
    """A duration measured between the probes is at most the program's, measured around them,
    and at least what it slept between them, however loaded the machine."""
    took, slept = bounds
    test.assertLessEqual(in_bpf, took, what)
    test.assertGreaterEqual(in_bpf, slept, what)


def order_statistics(spans):
    """[(k-th smallest measured, k-th smallest slept)] of the program's spans."""
    return list(zip(sorted(took for _, (took, _) in spans), sorted(slept for _, (_, slept) in spans)))


class OptionTest(unittest.TestCase):
    """Each misuse: one line that says what to write instead. --script needs no root."""

    def error(self, *arguments, status=1) -> str:
        result = usdt("trace", PROGRAMS["spans"], "--script", *arguments)
        self.assertEqual(result.returncode, status, result)
        self.assertEqual(result.stdout, "")
        self.assertRegex(result.stderr, r"^usdt: error: [^\n]+\n\Z")
        return result.stderr

    def test_errors(self):
        for arguments, message in [
                (["--span", "spans:request__start"], "write START,DONE or START,DONE,KEY"),
                (["--span", "spans:nope,spans:request__done"], "no traced probe is named spans:nope"),
                (["--span", "spans:request__start,spans:request__done,op"], "op is a string; a key is an integer"),
                (["--span", "spans:request__start,spans:request__done,nope"], "has no argument nope (its arguments: id, op)"),
                (["--histogram", "spans:request__start:op"], "op is a string; a histogram counts integers"),
                (["--histogram", "value"], "write PROVIDER:PROBE:ARGUMENT"),
                (["--interval", "1"], "--interval prints summaries")]:
            with self.subTest(arguments=arguments):
                self.assertIn(message, self.error(*arguments))
        self.assertIn("not a whole number of seconds", self.error("--latency", "--interval", "0", status=2))
        result = usdt("trace", PROGRAMS["sdt_only"], "--script", "--latency")
        self.assertIn("--latency: no probes named X__start and X__done", result.stderr)

    def test_what_is_measured(self):
        # --latency pairs the probes the patterns chose; a span asked twice is measured once.
        self.assertIn("--latency: no probes named X__start", self.error("spans:value", "--latency"))
        program = usdt("trace", PROGRAMS["spans"], "--script", "--latency", "--span",
                       "spans:request__start,spans:request__done,id").stdout
        # Span 0, spans:request by id; span 1, spans:step per thread; no third.
        self.assertIn("@usdt_started[0, (uint64)pid, (uint64)arg0] = nsecs;", program)
        self.assertIn("@usdt_started[1, (uint64)pid, (uint64)tid] = nsecs;", program)
        self.assertNotIn("@usdt_started[2,", program)
        self.assertIn("a span starts at one probe and ends at another",
                      self.error("--span", "spans:value,spans:value"))

    def test_timeline_files_that_cannot_be_replaced(self):
        directory = Path(OPTIONS.work_dir)
        for path, message in [("/dev/null", "not a regular file"), (str(directory), "not a regular file"),
                              (str(directory / "missing" / "t.json"), "cannot write in"),
                              ("", "give the trace file's name")]:
            with self.subTest(path=path):
                self.assertIn(message, self.error("--timeline", path))
        self.assertTrue(Path("/dev/null").is_char_device())

    def test_a_probe_alone_names_it_in_its_provider(self):
        result = usdt("trace", PROGRAMS["spans"], "--script", "--span", "step__start,step__done,thread")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("@usdt_started[0, (uint64)pid, (uint64)tid] = nsecs;", result.stdout)


class TracingTestCase(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        require_tracer(self, "bpftrace")

    def trace(self, *arguments, environment=None) -> subprocess.CompletedProcess:
        result = usdt("trace", PROGRAMS["spans"], *arguments, "--", PROGRAMS["spans"], environment=environment)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result


class LiveTest(TracingTestCase):
    """Traces: as root, with bpftrace (any release: tool.bpftrace_releases runs these in roots)."""

    def test_summaries_counted_in_the_kernel(self):
        result = self.trace("--latency", "--count", "--histogram", "spans:value:v", "--json")
        objects, measured = split_output(result)
        self.assertTrue(all(line.startswith("{") for line in result.stdout.splitlines()), result.stdout)
        by_type = {}
        for summary in objects:
            self.assertEqual(summary["period"], "total")
            by_type.setdefault(summary["type"], []).append(summary)
        self.assertEqual(by_type["counts"][0]["hits"], {**COUNTS, "spans:flood": 0})
        latencies = {summary["span"]: summary for summary in by_type["latency"]}
        self.assertEqual(set(latencies), {"spans:request", "spans:step"})
        request, step = latencies["spans:request"], latencies["spans:step"]
        self.assertEqual((request["matched"], request["count"], request["unmatched_done"],
                          request["overlapping_start"], request["in_flight"]), ("by id", 5, 1, 1, 1))
        self.assertEqual((step["matched"], step["count"], step["unmatched_done"], step["overlapping_start"],
                          step["in_flight"]), ("per thread", 6, 0, 0, 0))
        for summary, kind in ((request, "request"), (step, "step")):
            # The k-th smallest of values each within its bounds lies within the k-th smallest bounds.
            ordered = order_statistics(measured[kind])
            within(self, summary["min"], ordered[0], f"{kind} min")
            within(self, summary["max"], ordered[-1], f"{kind} max")
            # Within its bucket's precision: the median's bounds, widened by 1/16.
            median_took, median_slept = ordered[(len(ordered) + 1) // 2 - 1]
            self.assertLessEqual(summary["p50"], median_took * 17 / 16, kind)
            self.assertGreaterEqual(summary["p50"], median_slept * 15 / 16, kind)
            self.assertEqual(sum(bucket["count"] for bucket in summary["log2_histogram"]), summary["count"])
        histogram = by_type["histogram"][0]
        self.assertEqual((histogram["probe"], histogram["argument"], histogram["count"], histogram["min"],
                          histogram["max"]), ("spans:value", "v", 6, -5, 1 << 40))
        expected = [(-7, -4), (-1, -1), (0, 0), (2, 3), (512, 1023), (1 << 40, (1 << 41) - 1)]
        self.assertEqual([(bucket["low"], bucket["high"]) for bucket in histogram["log2_histogram"]
                          if bucket["count"]], expected)

    def test_the_announcement_counts_the_probes_attached(self):
        # A histogram needs its probe alone, and only it is attached.
        result = self.trace("--histogram", "spans:value:v", "--json")
        self.assertIn(f"usdt: tracing 1 probe of {PROGRAMS['spans']} (names and types from spans.d)", result.stderr)
        self.assertEqual([summary["count"] for summary in split_output(result)[0]], [len(VALUES)])

    def test_keys_every_cpu_counts_at_once(self):
        # A thread per CPU fires each value at the same moment, each value a bucket no map holds
        # yet, between the probes of a short step: bpftrace 0.20 to 0.23 counted a new key once
        # where two CPUs counted it at once (releases.Release.loses_a_count_of_a_new_key),
        # so two threads ending spans of one length together counted one span, with nothing
        # unmatched or in flight, and two threads' first hits of a probe one hit.
        result = usdt("trace", PROGRAMS["spans"], "--latency", "--histogram", "spans:value:v", "--count", "--json",
                      "--", PROGRAMS["spans"], "--together")
        self.assertEqual(result.returncode, 0, result.stderr)
        threads, values = map(int, re.search(r"^together (\d+) (\d+)$", result.stderr, re.M).groups())
        objects, _ = split_output(result)
        counts, histogram = (next(summary for summary in objects if summary["type"] == kind)
                             for kind in ("counts", "histogram"))
        step = next(summary for summary in objects if summary.get("span") == "spans:step")
        fired = threads * values
        probes = ("spans:step__start", "spans:value", "spans:step__done")
        self.assertEqual({probe: counts["hits"][probe] for probe in probes}, dict.fromkeys(probes, fired))
        self.assertEqual((step["count"], step["unmatched_done"], step["overlapping_start"], step["in_flight"]),
                         (fired, 0, 0, 0))
        self.assertEqual(histogram["count"], fired)
        # 0 to 7, then each power of two from 8 to 2^62: 8 values in each.
        expected = [(0, 0, 1), (1, 1, 1), (2, 3, 2), (4, 7, 4)] + [(1 << e, (2 << e) - 1, 8) for e in range(3, 63)]
        self.assertEqual([(bucket["low"], bucket["high"], bucket["count"]) for bucket in histogram["log2_histogram"]],
                         [(hits.json_integer(low), hits.json_integer(high), count * threads)
                          for low, high, count in expected])

    def test_text_summaries_per_interval_lose_nothing(self):
        fired = 2_000_000
        result = usdt("trace", PROGRAMS["spans"], "--count", "--interval", "1", "--",
                      PROGRAMS["spans"], "--flood", fired)
        self.assertEqual(result.returncode, 0, result.stderr)
        counts = [int(match[1]) for match in re.finditer(r"^ +(\d+) +[\d.]+  spans:flood$", result.stdout, re.M)]
        intervals = re.findall(r"^usdt: [\d.]+ s to [\d.]+ s$", result.stdout, re.M)
        self.assertGreaterEqual(len(intervals), 2, result.stdout)
        self.assertEqual(len(counts), len(intervals) + 1, result.stdout)
        self.assertNotIn("@usdt", result.stdout)
        self.assertEqual(counts[-1], fired, result.stdout)          # the whole trace's
        self.assertEqual(sum(counts[:-1]), fired, result.stdout)    # the intervals'

    def test_lost_hits_are_counted_never_printed(self):
        fired = 300_000
        # One page of buffer per CPU: bpftrace cannot keep up with a flood.
        small_buffer = {"BPFTRACE_PERF_RB_PAGES": "1"}
        for mode in ("--json", None):
            with self.subTest(mode=mode):
                arguments = [mode] if mode else []
                result = usdt("trace", PROGRAMS["spans"], *arguments, "--", PROGRAMS["spans"], "--flood", fired,
                              environment=small_buffer)
                self.assertEqual(result.returncode, 0, result.stderr)
                lines = result.stdout.splitlines()
                if mode:
                    self.assertIn(f"\n{fired}\n", result.stderr)   # the program's output, apart
                else:
                    lines.remove(str(fired))    # the program's last line: its count
                if mode:
                    self.assertTrue(all(json.loads(line)["probe"] == "spans:flood" for line in lines))
                else:
                    self.assertTrue(all(re.fullmatch(r"\d+ pid=\d+ tid=\d+ spans:flood n=\d+", line)
                                        for line in lines), lines[:5])
                # bpftrace's own lines about it (0.27's on stderr) are not passed on.
                self.assertNotRegex(result.stderr, r"(?m)^(Lost \d+ events|WARNING: Total lost)")
                summary = re.search(r"^usdt: lost (\d+) of (\d+) hits: spans:flood (\d+)$", result.stderr, re.M)
                self.assertIsNotNone(summary, result.stderr)
                self.assertEqual(int(summary[2]), fired)
                self.assertEqual(int(summary[1]), fired - len(lines))
                self.assertGreater(int(summary[1]), 0)

    def test_hits_as_json_lines_and_a_timeline(self):
        timeline = Path(OPTIONS.work_dir) / "spans.json"
        result = self.trace("--json", "--timeline", timeline, "--latency")
        # With --latency, --json prints summaries; the hits go to the timeline.
        objects, measured = split_output(result)
        self.assertEqual({summary["type"] for summary in objects}, {"latency"})
        result = self.trace("--json", "--timeline", timeline)
        objects, measured = split_output(result)
        self.assertIn(f"to {timeline}: open it in https://ui.perfetto.dev", result.stderr)
        self.assertEqual({name: sum(1 for hit in objects if hit["probe"] == name) for name in COUNTS}, COUNTS)
        program_pid = objects[0]["pid"]
        for hit in objects:
            self.assertEqual(set(hit), {"type", "probe", "monotonic_ns", "pid", "tid", "process", "args"})
            self.assertEqual((hit["type"], hit["pid"], hit["process"]), ("hit", program_pid, "tool_spans"))
        starts = [hit["args"] for hit in objects if hit["probe"] == "spans:request__start"]
        self.assertEqual(starts, [{"id": id, "op": "GET"} for id in (1, 2, 3, 4, 5, 5, 6)])
        self.assertEqual([hit["args"]["v"] for hit in objects if hit["probe"] == "spans:value"],
                         [value if abs(value) < 2 ** 53 else str(value) for value in VALUES])
        # The timeline: the pairs --latency finds are drawn without it (test_spans_in_the_timeline
        # checks the slices themselves).
        trace = json.loads(timeline.read_text())
        self.assertEqual({title: (span["slices"], span["in_flight"]) for title, span in trace["otherData"]["spans"].items()},
                         {"spans:request (by id)": (5, 1), "spans:step (per thread)": (6, 0)})
        self.assertEqual(sum(1 for event in trace["traceEvents"] if event["ph"] == "X"), 6)
        self.assertEqual(sum(1 for event in trace["traceEvents"] if event["ph"] == "b"), 5)
        instants = [event for event in trace["traceEvents"] if event["ph"] == "i"]
        # The same hits; the file's in time order, JSON Lines as bpftrace read them, CPU by CPU.
        origin = trace["otherData"]["monotonic_ns_at_zero"]
        self.assertEqual([(round(event["ts"] * 1000) + origin, event["name"], event["args"]) for event in instants],
                         sorted(((hit["monotonic_ns"], hit["probe"], hit["args"]) for hit in objects),
                                key=lambda hit: hit[0]))
        self.assertEqual(trace_events.check_trace_file(timeline), [])
        self.assertEqual(oct(timeline.stat().st_mode & 0o777), oct(0o666 & ~CREATION_MASK))

    def test_spans_in_the_timeline(self):
        timeline = Path(OPTIONS.work_dir) / "spans-latency.json"
        result = self.trace("--timeline", timeline, "--latency")
        self.assertEqual(result.stdout.count("{"), 0)
        _, measured = split_output(result)
        trace = json.loads(timeline.read_text())
        events = trace["traceEvents"]
        steps = sorted(event["dur"] * 1000 for event in events if event["ph"] == "X")
        for in_bpf, bounds in zip(steps, order_statistics(measured["step"])):
            within(self, in_bpf, bounds, "step")
        self.assertEqual(len(steps), 6)
        begins = {event["id"]: event for event in events if event["ph"] == "b"}
        ends = {event["id"]: event for event in events if event["ph"] == "e"}
        pid = next(iter(begins.values()))["pid"]
        self.assertEqual(sorted(begins), sorted(ends))
        # The span's number (0: the one span), the process, the key.
        self.assertEqual(sorted(begins), sorted(f"0:{pid}:{id}" for id in range(1, 6)))
        for id, took in measured["request"]:
            begin, end = begins[f"0:{pid}:{id}"], ends[f"0:{pid}:{id}"]
            within(self, (end["ts"] - begin["ts"]) * 1000, took, f"request {id}")
            if id <= 4:
                self.assertNotEqual(begin["tid"], end["tid"], "done on the worker thread")
        self.assertEqual(trace["otherData"]["spans"]["spans:request (by id)"],
                         {"name": "spans:request", "start": "spans:request__start", "done": "spans:request__done", "matched": "by id",
                          "slices": 5, "overlapping_start": 1, "unmatched_done": 1, "in_flight": 1})
        names = {(event["name"], event["args"]["name"]) for event in events if event["ph"] == "M"}
        self.assertIn(("process_name", "tool_spans"), names)
        self.assertEqual(trace_events.check_trace_file(timeline), [])


    def test_a_running_server_until_ctrl_c(self):
        # Ctrl-C as a terminal sends it, at any moment: no span is cut in two by the stop, no
        # hit printed is counted lost, and each interval adds up to the whole.
        server = subprocess.Popen([PROGRAMS["spans"], "--serve"], stdout=subprocess.PIPE, text=True)
        self.addCleanup(server.wait)
        self.addCleanup(server.kill)
        self.assertEqual(server.stdout.readline(), "ready\n")
        for arguments in (["--latency", "--count", "--interval", "1", "--json"], ["--json"]):
            with self.subTest(arguments=arguments):
                tracer = subprocess.Popen([*launcher.direct(OPTIONS.usdt), "trace", "-p", str(server.pid),
                                           *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                          start_new_session=True)
                try:
                    self.assertIn("Ctrl-C to stop", tracer.stderr.readline())
                    time.sleep(2.5)
                    os.killpg(tracer.pid, signal.SIGINT)
                    output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
                finally:
                    if tracer.poll() is None:
                        tracer.kill()
                self.assertEqual((tracer.returncode, errors), (0, ""))
                objects = [json.loads(line) for line in output.splitlines()]
                if "--latency" in arguments:
                    self.check_intervals(objects)
                else:
                    starts = [hit["args"]["id"] for hit in objects if hit["probe"] == "spans:request__start"]
                    dones = [hit["args"]["id"] for hit in objects if hit["probe"] == "spans:request__done"]
                    self.assertGreater(len(starts), 100)
                    self.assertEqual(starts, list(range(starts[0], starts[0] + len(starts))))
                    self.assertEqual(dones, list(range(dones[0], dones[0] + len(dones))))

    def test_a_closed_output_stops_the_trace_as_a_filter(self):
        # Its reader gone (`usdt trace ... | head -2`): usdt stops, says on stderr what became of
        # the command or process, and exits 141, as SIGPIPE would have ended it.
        def closed_after_a_line(*arguments, wait_for=None):
            tracer = subprocess.Popen([*launcher.direct(OPTIONS.usdt), "trace", *arguments], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
            try:
                self.assertNotEqual(tracer.stdout.readline(), "")
                if wait_for is not None:
                    wait_for()
                tracer.stdout.close()
                errors = tracer.stderr.read()
                tracer.wait(timeout=TRACE_TIMEOUT)
            finally:
                if tracer.poll() is None:
                    tracer.kill()
                    tracer.wait()
                tracer.stderr.close()
            self.assertEqual(tracer.returncode, 141, errors)
            self.assertNotIn("Traceback", errors)
            return errors.splitlines()[-1]

        self.assertRegex(closed_after_a_line(PROGRAMS["spans"], "--", PROGRAMS["spans"], "--serve"),
                         r"^usdt: standard output closed: tracing stopped; the command \(pid \d+\) was ended "
                         r"with SIGTERM$")
        # A command that has exited, its last hits still being printed (more than a pipe holds).
        marker = Path(OPTIONS.work_dir) / "flooded"
        command = f'"$0" --flood 100000 > /dev/null; echo $$ > {marker}.new; mv {marker}.new {marker}; exit 7'

        def flooded():
            # Until the command has exited and usdt has reaped it.
            deadline = time.monotonic() + TRACE_TIMEOUT
            while not marker.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            while Path(f"/proc/{marker.read_text().strip()}").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        for mode in ((), ("--json",)):
            with self.subTest(mode=mode):
                marker.unlink(missing_ok=True)
                self.assertRegex(closed_after_a_line(PROGRAMS["spans"], *mode, "--", "/bin/sh", "-c", command,
                                                     PROGRAMS["spans"], wait_for=flooded),
                                 r"^usdt: standard output closed: tracing stopped; the command \(pid \d+\) had "
                                 r"already exited with status 7$")
        server = subprocess.Popen([PROGRAMS["spans"], "--serve"], stdout=subprocess.PIPE, text=True)
        self.addCleanup(server.wait)
        self.addCleanup(server.kill)
        self.assertEqual(server.stdout.readline(), "ready\n")
        self.assertEqual(closed_after_a_line("-p", str(server.pid), "--json"),
                         f"usdt: standard output closed: tracing stopped; process {server.pid} goes on, untraced")
        self.assertIsNone(server.poll())
        # The summaries, printed at the end into a pipe closed by then.
        tracer = subprocess.Popen([*launcher.direct(OPTIONS.usdt), "trace", PROGRAMS["spans"], "--count", "--json",
                                   "--", PROGRAMS["spans"]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        tracer.stdout.close()
        errors = tracer.communicate(timeout=TRACE_TIMEOUT)[1]
        self.assertEqual((tracer.returncode, errors.splitlines()[-1]),
                         (141, "usdt: standard output closed: tracing stopped; the command (pid "
                               f"{errors.split('(pid ')[-1].split(')')[0]}) had already exited with status 0"))

    def test_closed_standard_streams(self):
        # Standard error's reader gone: usdt's messages are lost, the trace is not.
        tracer = subprocess.Popen([*launcher.direct(OPTIONS.usdt), "trace", PROGRAMS["spans"], "--",
                                   PROGRAMS["spans"]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        tracer.stderr.close()
        output = tracer.communicate(timeout=TRACE_TIMEOUT)[0]
        self.assertEqual(tracer.returncode, 0)
        self.assertEqual(len(re.findall(r"^\d+ pid=\d+ tid=\d+ spans:", output, re.M)), sum(COUNTS.values()))
        # Standard output closed (>&-): the timeline needs none; the hits' lines do.
        timeline = Path(OPTIONS.work_dir) / "closed-stdout.json"
        closed = {"stdout": subprocess.DEVNULL}
        for arguments, status in ((["--timeline", timeline], 0), ([], 1)):
            with self.subTest(arguments=arguments):
                result = subprocess.run(["/bin/sh", "-c", 'exec "$@" >&-', "sh", *launcher.direct(OPTIONS.usdt),
                                         "trace", PROGRAMS["spans"], *arguments, "--", PROGRAMS["spans"]],
                                        stderr=subprocess.PIPE, text=True, timeout=TRACE_TIMEOUT, **closed)
                self.assertEqual(result.returncode, status, result.stderr)
                self.assertNotIn("Traceback", result.stderr)
        self.assertEqual(trace_events.check_trace_file(timeline), [])
        self.assertEqual(len([event for event in json.loads(timeline.read_text())["traceEvents"]
                              if event["ph"] == "i"]), sum(COUNTS.values()))

    def check_intervals(self, objects):
        latencies = [summary for summary in objects
                     if summary["type"] == "latency" and summary["span"] == "spans:request"]
        counts = [summary for summary in objects if summary["type"] == "counts"]
        intervals, (total,) = latencies[:-1], latencies[-1:]
        self.assertEqual(total["period"], "total")
        self.assertGreaterEqual(len(intervals), 2, objects)
        self.assertEqual(sum(interval["count"] for interval in intervals), total["count"], objects)
        self.assertEqual(sum(count["hits"]["spans:request__done"] for count in counts[:-1]),
                         counts[-1]["hits"]["spans:request__done"])
        self.assertGreater(total["count"], 100)
        # Requests one after the other, each a 1 ms sleep: none cut by the start or the stop.
        self.assertEqual((total["unmatched_done"], total["overlapping_start"]), (0, 0))
        self.assertLessEqual(total["in_flight"], 1)
        for interval in intervals:
            if interval["count"]:
                self.assertGreaterEqual(interval["min"], 1_000_000, interval)
                self.assertLessEqual(interval["max"], total["max"], interval)
        self.assertEqual(total["min"], min(interval["min"] for interval in intervals if interval["count"]))
        self.assertEqual(total["max"], max(interval["max"] for interval in intervals if interval["count"]))


class ViewerTest(TracingTestCase):
    """The timeline as a viewer loads it: Chrome DevTools' trace engine (tests/tool/timeline, Node)."""

    def test_spans_in_a_viewer(self):
        timeline = Path(OPTIONS.work_dir) / "spans-viewer.json"
        result = self.trace("--timeline", timeline, "--latency")
        _, measured = split_output(result)
        pid = json.loads(timeline.read_text())["traceEvents"][0]["pid"]
        loaded = trace_viewer.load_in_viewer(timeline)
        self.assertEqual(trace_viewer.viewer_problems(timeline, loaded), [])
        shown = sorted(slice_["dur"] * 1000 for _, _, slice_ in trace_viewer.thread_slices(loaded)
                       if slice_["name"] == "spans:step")
        self.assertEqual(len(shown), 6)
        for in_viewer, bounds in zip(shown, order_statistics(measured["step"])):
            within(self, in_viewer, bounds, "step in the viewer")
        requests = {span["id"]: span["dur"] * 1000 for span in loaded["async_slices"] if span["name"] == "spans:request"}
        self.assertEqual(sorted(requests), sorted(f"0:{pid}:{id}" for id in range(1, 6)))
        for id, took in measured["request"]:
            within(self, requests[f"0:{pid}:{id}"], took, f"request {id} in the viewer")


def parse_arguments() -> None:
    global OPTIONS
    OPTIONS, programs = usdt_testing.parse_usdt_options(PROGRAM_NAMES)
    PROGRAMS.update(programs)


if __name__ == "__main__":
    parse_arguments()
    usdt_testing.main()
