"""Unit tests of trace_events, the Trace Event Format checker: a good trace passes, and each kind
of broken one fails with exactly its own problem, naming the event."""

import copy
import json
import re
import tempfile
import unittest
from pathlib import Path

import trace_events
import usdt_testing

SAMPLE = Path(__file__).resolve().parent / "sample-trace.json"


def good_trace():
    """A small trace with one event of each phase `usdt trace --timeline` writes."""
    return {
        "traceEvents": [
            {"ph": "M", "name": "process_name", "pid": 7, "tid": 7, "args": {"name": "kvserver"}},
            {"ph": "M", "name": "thread_name", "pid": 7, "tid": 8, "args": {"name": "worker"}},
            {"ph": "X", "name": "kvserver:request", "cat": "usdt", "ts": 10.5, "dur": 5, "pid": 7, "tid": 8,
             "args": {"id": 1}},
            {"ph": "i", "s": "t", "name": "kvserver:key__miss", "cat": "usdt", "ts": 12, "pid": 7, "tid": 8,
             "args": {"key": "x"}},
            {"ph": "b", "name": "kvserver:txn", "cat": "usdt", "id": "0x2a", "ts": 9, "pid": 7, "tid": 7, "args": {}},
            {"ph": "e", "name": "kvserver:txn", "cat": "usdt", "id": "0x2a", "ts": 20, "pid": 7, "tid": 8, "args": {}},
        ],
        "displayTimeUnit": "ns",
        "otherData": {"tool": "usdt trace"},
    }


# Index of each event of good_trace() by phase.
METADATA, THREAD_NAME, COMPLETE, INSTANT, ASYNC_BEGIN, ASYNC_END = range(6)


class GoodTraces(unittest.TestCase):
    def test_good_trace_has_no_problem(self):
        self.assertEqual(trace_events.check_trace(good_trace()), [])

    def test_sample_file_has_no_problem(self):
        self.assertEqual(trace_events.check_trace_file(SAMPLE), [])

    def test_what_the_format_allows(self):
        allowed = {
            "integer ts and dur": lambda t: t["traceEvents"][COMPLETE].update(ts=10, dur=0),
            "integer id": lambda t: [t["traceEvents"][i].update(id=42) for i in (ASYNC_BEGIN, ASYNC_END)],
            "id2 local": lambda t: [(t["traceEvents"][i].pop("id"), t["traceEvents"][i].update(id2={"local": "0x1"}))
                                    for i in (ASYNC_BEGIN, ASYNC_END)],
            "instant without scope": lambda t: t["traceEvents"][INSTANT].pop("s"),
            "instant as Chrome writes it": lambda t: t["traceEvents"][INSTANT].update(ph="I", s="p"),
            "process metadata without tid": lambda t: t["traceEvents"][METADATA].pop("tid"),
            "no displayTimeUnit": lambda t: t.pop("displayTimeUnit"),
            "overlapping async slices": lambda t: t["traceEvents"].extend([
                {"ph": "b", "name": "kvserver:txn", "cat": "usdt", "id": "0x2b", "ts": 15, "pid": 7, "tid": 8},
                {"ph": "e", "name": "kvserver:txn", "cat": "usdt", "id": "0x2b", "ts": 25, "pid": 7, "tid": 7}]),
            "same async id open twice, nested": lambda t: t["traceEvents"].extend([
                {"ph": "b", "name": "kvserver:txn", "cat": "usdt", "id": "0x2a", "ts": 11, "pid": 7, "tid": 8},
                {"ph": "e", "name": "kvserver:txn", "cat": "usdt", "id": "0x2a", "ts": 12, "pid": 7, "tid": 8}]),
            "B/E nested in X": lambda t: t["traceEvents"].extend([
                {"ph": "B", "name": "inner", "ts": 11, "pid": 7, "tid": 8},
                {"ph": "E", "name": "inner", "ts": 12, "pid": 7, "tid": 8}]),
            "X back to back": lambda t: t["traceEvents"].append(
                {"ph": "X", "name": "next", "ts": 15.5, "dur": 1, "pid": 7, "tid": 8}),
        }
        for what, change in allowed.items():
            with self.subTest(what):
                trace = good_trace()
                change(trace)
                self.assertEqual(trace_events.check_trace(trace), [])


class BrokenTraces(unittest.TestCase):
    """Each change breaks one rule; the checker reports that one problem and nothing else."""

    def assert_one_problem(self, change, *fragments):
        trace = good_trace()
        change(trace)
        problems = trace_events.check_trace(trace)
        self.assertEqual(len(problems), 1, problems)
        for fragment in fragments:
            self.assertIn(fragment, problems[0])

    def event(self, trace, index):
        return trace["traceEvents"][index]

    def test_top_level(self):
        for document, fragment in (([], "an object with traceEvents expected, not an array"),
                                   ({"events": []}, "unknown key 'events'"),
                                   ({}, "traceEvents is missing"),
                                   ({"traceEvents": {}}, "traceEvents is an object, not an array")):
            with self.subTest(document=document):
                problems = trace_events.check_trace(document)
                self.assertTrue(any(fragment in problem for problem in problems), problems)
        self.assert_one_problem(lambda t: t.update(displayTimeUnit="us"), "displayTimeUnit is 'us'")
        self.assert_one_problem(lambda t: t.update(otherData=[]), "otherData is an array")

    def test_event_not_an_object(self):
        self.assert_one_problem(lambda t: t["traceEvents"].append("X"), "traceEvents[6]", "not a string")

    def test_unknown_phase(self):
        for phase in ("x", "Q", "", 5, None):
            with self.subTest(phase=phase):
                self.assert_one_problem(lambda t: self.event(t, COMPLETE).update(ph=phase),
                                        "traceEvents[2]", "not one of the format's phases")
        self.assert_one_problem(lambda t: self.event(t, COMPLETE).pop("ph"), "ph is missing")

    def test_unknown_key(self):
        self.assert_one_problem(lambda t: self.event(t, COMPLETE).update(duration=5), "unknown key 'duration'")

    def test_name(self):
        self.assert_one_problem(lambda t: self.event(t, INSTANT).pop("name"), "traceEvents[3]", "name is missing")
        self.assert_one_problem(lambda t: self.event(t, INSTANT).update(name=""), "name is \"\"")
        self.assert_one_problem(lambda t: self.event(t, INSTANT).update(name=3), "name is 3")
        # The format lets an E go unnamed; DevTools' engine does not.
        self.assert_one_problem(lambda t: t["traceEvents"].append({"ph": "E", "ts": 31, "pid": 7, "tid": 8}),
                                "traceEvents[6] (ph 'E'): name is missing")

    def test_pid_and_tid_integers(self):
        for key in ("pid", "tid"):
            for value in ("7", 7.0, True, None):
                with self.subTest(key=key, value=value):
                    self.assert_one_problem(lambda t: self.event(t, COMPLETE).update({key: value}),
                                            f"{key} is {json.dumps(value)}, not an integer")
            with self.subTest(key=key, value="missing"):
                self.assert_one_problem(lambda t: self.event(t, COMPLETE).pop(key), f"{key} is missing")
        self.assert_one_problem(lambda t: self.event(t, THREAD_NAME).pop("tid"), "traceEvents[1]", "tid is missing")

    def test_ts(self):
        for value in ("10", None, True, float("nan"), float("inf")):
            with self.subTest(value=value):
                self.assert_one_problem(lambda t: self.event(t, INSTANT).update(ts=value), "traceEvents[3]", "ts is")
        self.assert_one_problem(lambda t: self.event(t, INSTANT).pop("ts"), "ts is missing")

    def test_dur(self):
        for value, fragment in ((-0.5, "dur is -0.5, below 0"), ("5", "dur is \"5\", not a number"),
                                (float("inf"), "not a finite number")):
            with self.subTest(value=value):
                self.assert_one_problem(lambda t: self.event(t, COMPLETE).update(dur=value), fragment)
        self.assert_one_problem(lambda t: self.event(t, COMPLETE).pop("dur"), "dur is missing")
        self.assert_one_problem(lambda t: self.event(t, INSTANT).update(dur=1), "dur on a i event")

    def test_instant_scope(self):
        for scope in ("thread", "T", None):
            with self.subTest(scope=scope):
                self.assert_one_problem(lambda t: self.event(t, INSTANT).update(s=scope), "s is", "not \"g\", \"p\" or \"t\"")

    def test_args_object(self):
        self.assert_one_problem(lambda t: self.event(t, COMPLETE).update(args=[1]), "args is [1], not an object")

    def test_metadata(self):
        self.assert_one_problem(lambda t: self.event(t, METADATA).update(args={}), "traceEvents[0]", "args.name is missing")
        self.assert_one_problem(lambda t: self.event(t, THREAD_NAME).update(args={"name": 8}), "args.name is a number")
        self.assert_one_problem(lambda t: self.event(t, THREAD_NAME).pop("args"), "args.name is missing")
        self.assert_one_problem(lambda t: self.event(t, METADATA).update(name="process_title"),
                                "a metadata event named 'process_title'")
        self.assert_one_problem(lambda t: t["traceEvents"].append(
            {"ph": "M", "name": "thread_sort_index", "pid": 7, "tid": 8, "args": {"sort_index": "1"}}),
            "args.sort_index is a string, not an integer")
        self.assert_one_problem(lambda t: t["traceEvents"].append(
            {"ph": "M", "name": "thread_name", "pid": 7, "tid": 8, "args": {"name": "other"}}),
            "traceEvents[6]", "renames thread 'worker' (traceEvents[1]) to 'other'")

    def test_async_identity(self):
        problems = self.problems_with(lambda t: [self.event(t, i).pop("cat") for i in (ASYNC_BEGIN, ASYNC_END)])
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("traceEvents[4] (ph 'b', name 'kvserver:txn'): an async event needs a cat", problems[0])
        self.assertIn("traceEvents[5]", problems[1])
        for value in ("", 4.5, None, ["0x2a"]):
            with self.subTest(id=value):
                problems = self.problems_with(lambda t: [self.event(t, i).update(id=value) for i in (ASYNC_BEGIN, ASYNC_END)])
                self.assertEqual(len(problems), 2, problems)
                self.assertIn("not a non-empty string or an integer", problems[0])
        problems = self.problems_with(lambda t: self.event(t, ASYNC_BEGIN).update(id2={"global": "0x2a"}))
        self.assertIn("traceEvents[4]", problems[0])
        self.assertIn("an id or an id2, exactly one", problems[0])
        problems = self.problems_with(lambda t: [(self.event(t, i).pop("id"), self.event(t, i).update(id2={"process": 1}))
                                                 for i in (ASYNC_BEGIN, ASYNC_END)])
        self.assertIn("id2 is {\"process\": 1}", problems[0])

    def problems_with(self, change):
        trace = good_trace()
        change(trace)
        return trace_events.check_trace(trace)

    def test_async_pairing(self):
        # An e before its b: the e ends nothing, the b is never ended.
        problems = self.problems_with(lambda t: self.event(t, ASYNC_END).update(ts=5))
        self.assertEqual(len(problems), 2, problems)
        self.assertEqual("traceEvents[5] (ph 'e', name 'kvserver:txn'): an e with no open b of cat 'usdt', id \"0x2a\", "
                         "name 'kvserver:txn', at ts 5, before the b at traceEvents[4] begins: an e follows its b",
                         problems[0])
        self.assertIn("traceEvents[4] (ph 'b', name 'kvserver:txn'): a b never ended", problems[1])
        for key, value in (("id", "0x2b"), ("name", "kvserver:other"), ("cat", "other")):
            with self.subTest(key=key):
                problems = self.problems_with(lambda t: self.event(t, ASYNC_END).update({key: value}))
                self.assertEqual(len(problems), 2, problems)
                self.assertIn("an e with no open b", problems[0])
        self.assert_one_problem(lambda t: self.event(t, ASYNC_END).update(pid=9),
                                "traceEvents[5]", "ends in process 9 the async slice begun in process 7")
        self.assert_one_problem(lambda t: t["traceEvents"].pop(ASYNC_END), "traceEvents[4]", "a b never ended")
        self.assert_one_problem(lambda t: t["traceEvents"].append(
            {"ph": "n", "name": "kvserver:txn", "cat": "usdt", "id": "0x2a", "ts": 30, "pid": 7, "tid": 7}),
            "an n outside any b")

    def test_duration_pairing(self):
        self.assert_one_problem(lambda t: t["traceEvents"].append({"ph": "B", "name": "open", "ts": 30, "pid": 7, "tid": 8}),
                                "traceEvents[6]", "a B never ended by an E on thread 8 of process 7")
        self.assert_one_problem(lambda t: t["traceEvents"].append({"ph": "E", "name": "shut", "ts": 30, "pid": 7, "tid": 8}),
                                "an E with no open B on thread 8")
        self.assert_one_problem(lambda t: t["traceEvents"].extend([
            {"ph": "B", "name": "open", "ts": 30, "pid": 7, "tid": 8},
            {"ph": "E", "name": "shut", "ts": 31, "pid": 7, "tid": 8}]), "ends 'open' (traceEvents[6])")

    def test_slices_on_a_thread_nest(self):
        self.assert_one_problem(lambda t: t["traceEvents"].append(
            {"ph": "X", "name": "straddles", "ts": 12, "dur": 5, "pid": 7, "tid": 8}),
            "traceEvents[6]", "[12, 17] starts inside 'kvserver:request' [10.5, 15.5] (traceEvents[2]) on thread 8")
        self.assert_one_problem(lambda t: t["traceEvents"].extend([
            {"ph": "B", "name": "straddles", "ts": 12, "pid": 7, "tid": 8},
            {"ph": "E", "name": "straddles", "ts": 16, "pid": 7, "tid": 8}]), "starts inside 'kvserver:request'")
        # The same times on another thread do not nest with it.
        self.assertEqual(self.problems_with(lambda t: t["traceEvents"].append(
            {"ph": "X", "name": "elsewhere", "ts": 12, "dur": 5, "pid": 7, "tid": 7})), [])


class TraceFiles(unittest.TestCase):
    def check_text(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
            file.write(text)
        try:
            return trace_events.check_trace_file(file.name), file.name
        finally:
            Path(file.name).unlink()

    def test_not_json(self):
        problems, name = self.check_text('{"traceEvents": [\n  {"ph": "X",}\n]}')
        self.assertEqual(len(problems), 1, problems)
        # Python 3.14 points at the trailing comma (column 13), 3.11 after it.
        self.assertRegex(problems[0], rf"^{re.escape(name)}:2:1[34]: not JSON")

    def test_nan_is_not_json(self):
        text = json.dumps(good_trace()).replace('"dur": 5', '"dur": NaN')
        problems, name = self.check_text(text)
        self.assertEqual(problems, [f"{name}: NaN is not JSON"])

    def test_duplicate_keys(self):
        text = json.dumps(good_trace()).replace('"dur": 5', '"dur": 5, "dur": 6')
        problems, name = self.check_text(text)
        self.assertEqual(problems, [f"{name}: an object has the key 'dur' more than once"])

    def test_missing_file(self):
        problems = trace_events.check_trace_file("/nonexistent/trace.json")
        self.assertEqual(len(problems), 1)
        self.assertIn("cannot read", problems[0])

    def test_good_file(self):
        problems, _ = self.check_text(json.dumps(copy.deepcopy(good_trace())))
        self.assertEqual(problems, [])


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
