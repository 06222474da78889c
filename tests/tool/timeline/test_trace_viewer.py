"""tool.timeline_viewer: the hand-written sample trace (three threads, nested slices, overlapping
async slices ending on other threads than they began, instants) loaded into Chrome DevTools'
trace engine, which must load every slice on its thread with its start and duration, pair the
async slices, and leave out only what it is known not to draw. Also: the loader fails on a file
the engine cannot load, and the skip when the engine is missing."""

import json
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import trace_events
import trace_viewer
import usdt_testing

SAMPLE = Path(__file__).resolve().parent / "sample-trace.json"


class SampleInViewer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.loaded = trace_viewer.load_in_viewer(SAMPLE)

    def test_sample_is_a_good_trace(self):
        self.assertEqual(trace_events.check_trace_file(SAMPLE), [])

    def test_engine_and_version(self):
        self.assertEqual(self.loaded["viewer"], {"name": "@paulirish/trace_engine", "version": "0.0.65"})
        self.assertTrue(self.loaded["generic"], "the engine took the sample for a Chrome trace")
        self.assertEqual(self.loaded["warnings"], [])

    def test_everything_the_file_holds_is_loaded(self):
        self.assertEqual(trace_viewer.summary(self.loaded), trace_viewer.file_summary(SAMPLE))

    def test_no_viewer_problem(self):
        self.assertEqual(trace_viewer.viewer_problems(SAMPLE, self.loaded), [])

    def test_slices_threads_and_durations(self):
        self.assertEqual(self.loaded["processes"], [{"pid": 4242, "name": "kvserver"}])
        slices = {(pid, tid, slice_["name"], slice_["ts"]): (slice_["dur"], slice_["depth"], slice_["args"])
                  for pid, tid, slice_ in trace_viewer.thread_slices(self.loaded)}
        self.assertEqual(slices, {
            (4242, 4243, "kvserver:request", 8121000.0): (250.5, 0, {"id": 1, "key": "alpha"}),
            (4242, 4243, "kvserver:lookup", 8121050.0): (100.0, 1, {"key": "alpha"}),
            (4242, 4243, "kvserver:request", 8121300.75): (120.25, 0, {"id": 3, "key": "gamma"}),
            (4242, 4244, "kvserver:request", 8121100.0): (400.0, 0, {"id": 2, "key": "beta"}),
            (4242, 4244, "kvserver:lookup", 8121150.0): (0.0, 1, {"key": "beta"}),
        })
        self.assertEqual(trace_viewer.thread_named(self.loaded, 4242, 4243), "worker-1")
        self.assertEqual(trace_viewer.thread_named(self.loaded, 4242, 4244), "worker-2")

    def test_overlapping_async_slices(self):
        spans = sorted((span["id"], span["ts"], span["dur"], span["begin"]["tid"], span["end"]["tid"],
                        span["begin"]["args"]["txn"]) for span in self.loaded["async_slices"])
        self.assertEqual(spans, [("0x2a", 8120900.5, 700.0, 4242, 4243, 42),
                                 ("0x2b", 8120950.0, 450.0, 4242, 4244, 43)])

    def test_what_the_engine_leaves_out(self):
        # DevTools draws Chrome's instant phase "I", not the format's "i"; Perfetto draws both.
        self.assertEqual(self.loaded["not_shown"], {"i": 3})
        self.assertTrue(all(not thread["instants"] for thread in self.loaded["threads"]))


class LoaderFailures(unittest.TestCase):
    def test_a_file_the_engine_cannot_load_fails(self):
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "broken.json"
            path.write_text('{"traceEvents": [')
            with self.assertRaises(trace_viewer.ViewerError) as caught:
                trace_viewer.load_in_viewer(path)
            self.assertIn("broken.json", str(caught.exception))

    def test_an_unnamed_end_fails(self):
        # The format allows it; the engine fails on the whole file, and so the checker refuses it.
        document = json.loads(SAMPLE.read_text())
        document["traceEvents"] += [{"ph": "B", "name": "open", "ts": 8121700.0, "pid": 4242, "tid": 4244},
                                    {"ph": "E", "ts": 8121800.0, "pid": 4242, "tid": 4244}]
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "unnamed-end.json"
            path.write_text(json.dumps(document))
            self.assertEqual(len(trace_events.check_trace_file(path)), 2)
            with self.assertRaises(trace_viewer.ViewerError):
                trace_viewer.load_in_viewer(path)

    def test_instants_as_chrome_writes_them_are_loaded(self):
        document = json.loads(SAMPLE.read_text())
        for event in document["traceEvents"]:
            if event["ph"] == "i":
                event["ph"] = "I"
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "instants.json"
            path.write_text(json.dumps(document))
            loaded = trace_viewer.load_in_viewer(path)
            self.assertEqual(loaded["not_shown"], {})
            self.assertEqual(trace_viewer.summary(loaded), trace_viewer.file_summary(path))

    def test_viewer_problems_name_what_disagrees(self):
        document = json.loads(SAMPLE.read_text())
        # Two events the engine cannot place: an E with no B, an e with no b.
        document["traceEvents"] += [
            {"ph": "E", "name": "kvserver:request", "ts": 8121700.0, "pid": 4242, "tid": 4244},
            {"ph": "e", "name": "kvserver:transaction", "cat": "usdt", "id": "0x99", "ts": 8121700.0,
             "pid": 4242, "tid": 4244}]
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "unpaired.json"
            path.write_text(json.dumps(document))
            self.assertEqual(trace_viewer.viewer_problems(path),
                             ["the engine left out 1 'E' events", "the engine left out 1 'e' events"])

    def test_missing_install_is_a_skip(self):
        # Only where the viewer is installed: where it is not, this module skips whole.
        reason = trace_viewer.viewer_unavailable_reason()
        if reason is not None:
            raise trace_viewer.ViewerUnavailable(reason)
        with tempfile.TemporaryDirectory() as directory, \
                mock.patch.dict(os.environ, {trace_viewer.VIEWER_DIR_VARIABLE: directory}):
            with self.assertRaises(unittest.SkipTest) as caught:
                trace_viewer.load_in_viewer(SAMPLE)
            self.assertIn("is not installed in", str(caught.exception))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
