"""Unit tests of usdttool.answers.timeline: hits and spans written as a Chrome JSON trace (--timeline),
paired by spans.py's rules whatever order the hits come in, and a FILE that is replaced at the
end or not at all. tests/tool/timeline checks such files in a real trace viewer."""

import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path

import usdt_testing
from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument, TracerProbe
from usdttool.answers import spans, timeline
from usdttool.bpftrace import hits
from usdttool.errors import ToolError

START = TracerProbe("kv", "request__start", (TracerArgument(0, "id", "uint64_t", Kind.INTEGER, 8, False),))
DONE = TracerProbe("kv", "request__done", (TracerArgument(0, "id", "uint64_t", Kind.INTEGER, 8, False),
                                           TracerArgument(1, "status", "int", Kind.INTEGER, 4, True)))
GONE = 2 ** 22 + 1      # no such process: names come from the hits


def hit(probe, time, *values, tid=GONE):
    return hits.Hit(hits.TracedProbe(0, 0, probe), time, GONE, tid, "kvserver", 0x1000, values)


class TimelineTest(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix="test_timeline.")
        self.addCleanup(scratch.cleanup)
        self.path = Path(scratch.name, "trace.json")

    def written(self, span_key, *hits_in_arrival_order):
        span = spans.make_span(0, "kv:request__start", "kv:request__done", span_key, [START, DONE])
        trace = timeline.Timeline(str(self.path), [span], [START, DONE])
        trace.set_origin(1_000)
        for each in hits_in_arrival_order:
            trace.add(each)
        with contextlib.redirect_stderr(io.StringIO()) as stderr:
            trace.close()
        return json.loads(self.path.read_text()), stderr.getvalue()

    def test_spans_by_key_paired_whatever_the_order_hits_came_in(self):
        # A done before its start (another CPU's buffer); a start after the first done, still open.
        document, said = self.written(None, hit(DONE, 5_000, 7, 0), hit(START, 2_000, 7), hit(START, 6_000, 8))
        events = document["traceEvents"]
        self.assertEqual([(event["ph"], event["name"]) for event in events if event["ph"] in "ibe"],
                         [("i", "kv:request__start"), ("i", "kv:request__done"), ("b", "kv:request"),
                          ("e", "kv:request"), ("i", "kv:request__start")])
        begin = next(event for event in events if event["ph"] == "b")
        self.assertEqual((begin["id"], begin["ts"], begin["args"]), (f"0:{GONE}:7", 1.0, {"id": 7}))
        self.assertEqual(document["otherData"]["monotonic_ns_at_zero"], 1_000)
        self.assertEqual(document["otherData"]["spans"]["kv:request (by id)"],
                         {"name": "kv:request", "start": "kv:request__start", "done": "kv:request__done",
                          "matched": "by id", "slices": 1, "overlapping_start": 0, "unmatched_done": 0,
                          "in_flight": 1})
        self.assertEqual(said, f"usdt: wrote 3 hits and 1 span to {self.path}: open it in https://ui.perfetto.dev\n")

    def test_spans_per_thread_are_complete_events(self):
        document, _ = self.written("thread", hit(START, 2_000, 1, tid=5), hit(DONE, 4_500, 2, 0, tid=5),
                                   hit(DONE, 6_000, 2, 0, tid=6))
        (complete,) = [event for event in document["traceEvents"] if event["ph"] == "X"]
        self.assertEqual((complete["ts"], complete["dur"], complete["tid"]), (1.0, 2.5, 5))
        self.assertEqual(document["otherData"]["spans"]["kv:request (per thread)"]["unmatched_done"], 1)
        names = {(event["name"], event["tid"]): event["args"]["name"] for event in document["traceEvents"]
                 if event["ph"] == "M"}
        self.assertEqual(names[("thread_name", 5)], "kvserver")

    def test_an_abandoned_trace_leaves_the_file_as_it_was(self):
        self.path.write_text("before\n")
        trace = timeline.Timeline(str(self.path), [], [START])
        trace.add(hit(START, 2_000, 1))
        trace.abandon()
        self.assertEqual(self.path.read_text(), "before\n")
        self.assertEqual(list(self.path.parent.iterdir()), [self.path])

    def test_files_that_cannot_be_replaced(self):
        with self.assertRaises(ToolError) as caught:
            timeline.checked_path(str(self.path.parent))
        self.assertEqual(str(caught.exception), f"--timeline {self.path.parent}: not a regular file; the trace "
                                                "replaces its file at the end")
        with self.assertRaises(ToolError) as caught:
            timeline.checked_path("/nonexistent/trace.json")
        self.assertEqual(str(caught.exception), "--timeline /nonexistent/trace.json: cannot write in /nonexistent: "
                                                "no such directory")


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
