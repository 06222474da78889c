"""Unit tests of usdttool.answers.spans: what --latency, --span and --histogram name, checked against
the traced probes (as a tracer sees them), and each misuse's message."""

import unittest

import usdt_testing
from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument, TracerProbe
from usdttool.answers import spans
from usdttool.errors import ToolError


def probe(full_name, *arguments):
    """`probe("app:x", ("id", Kind.INTEGER), ...)`"""
    provider, name = full_name.split(":")
    return TracerProbe(provider, name, tuple(TracerArgument(index, argument, "t", kind, 8, False)
                                             for index, (argument, kind) in enumerate(arguments)))


REQUEST_START = probe("kv:request__start", ("id", Kind.INTEGER), ("key", Kind.STRING))
REQUEST_DONE = probe("kv:request__done", ("id", Kind.INTEGER), ("status", Kind.INTEGER))
STEP_BEGIN = probe("kv:step__begin", ("step_id", Kind.INTEGER))
STEP_END = probe("kv:step__end", ("code", Kind.INTEGER), ("step_id", Kind.INTEGER))
LONELY = probe("kv:lonely__start")
OTHER_DONE = probe("db:request__done", ("id", Kind.INTEGER))
WIDE = probe("kv:wide", *((f"a{n}", Kind.INTEGER) for n in range(7)))
PROBES = [REQUEST_START, REQUEST_DONE, STEP_BEGIN, STEP_END, LONELY, OTHER_DONE, WIDE]


class SpanTestCase(unittest.TestCase):
    def assertToolError(self, message, function, *arguments):
        with self.assertRaises(ToolError) as caught:
            function(*arguments)
        self.assertEqual(str(caught.exception), message)


class PairTest(SpanTestCase):
    def test_pairs_named_by_the_conventions_in_the_probes_order(self):
        self.assertEqual(spans.conventional_pairs(PROBES), [("kv:request__start", "kv:request__done"),
                                                            ("kv:step__begin", "kv:step__end")])
        self.assertEqual(spans.conventional_pairs([LONELY, OTHER_DONE]), [])

    def test_the_key_by_default_an_integer_id_both_have(self):
        span = spans.make_span(3, "kv:request__start", "kv:request__done", None, PROBES)
        self.assertEqual(span, spans.Span(3, "kv:request", "kv:request__start", "kv:request__done", "id"))
        self.assertEqual(span.title, "kv:request (by id)")
        self.assertEqual(spans.make_span(0, "kv:step__begin", "kv:step__end", None, PROBES).key, "step_id")
        # No common id: per thread, and a span of one's own is named by both probes.
        threaded = spans.make_span(0, "kv:request__start", "kv:step__end", None, PROBES)
        self.assertEqual((threaded.name, threaded.key, threaded.title),
                         ("kv:request__start..kv:step__end", None, "kv:request__start..kv:step__end (per thread)"))
        self.assertIsNone(spans.make_span(0, "kv:request__start", "kv:request__done", "thread", PROBES).key)

    def test_a_key_past_the_sixth_argument(self):
        late_start = probe("kv:late__start", *((f"a{n}", Kind.INTEGER) for n in range(7)), ("id", Kind.INTEGER))
        late_done = probe("kv:late__done", *((f"a{n}", Kind.INTEGER) for n in range(7)), ("id", Kind.INTEGER))
        self.assertEqual(spans.make_span(0, "kv:late__start", "kv:late__done", None, [late_start, late_done]).key, "id")
        self.assertEqual(spans.make_span(0, "kv:wide", "kv:late__done", "a6", PROBES + [late_done]).key, "a6")

    def test_the_key_argument_s_index_in_each_probe(self):
        self.assertEqual(spans.key_index(STEP_END, "step_id"), 1)
        self.assertIsNone(spans.key_index(STEP_END, None))

    def test_span_options(self):
        self.assertEqual(spans.parse_span("request__start,kv:request__done,id", PROBES),
                         ("kv:request__start", "kv:request__done", "id"))
        self.assertEqual(spans.parse_span("kv:step__begin,step__end", PROBES), ("kv:step__begin", "kv:step__end", None))
        self.assertToolError("--span a: write START,DONE or START,DONE,KEY (KEY: an argument of both, or 'thread'), "
                             "for example --span kvserver:request__start,kvserver:request__done,id",
                             spans.parse_span, "a", PROBES)
        self.assertToolError("--span kv:wide,wide: a span starts at one probe and ends at another",
                             spans.parse_span, "kv:wide,wide", PROBES)
        self.assertToolError("--span: request__done is in more than one provider (kv:request__done, db:request__done); "
                             "the probes: db:request__done kv:lonely__start kv:request__done kv:request__start "
                             "kv:step__begin kv:step__end kv:wide", spans.parse_span, "kv:wide,request__done", PROBES)
        self.assertToolError("--span: no traced probe is named nope; the probes: db:request__done kv:lonely__start "
                             "kv:request__done kv:request__start kv:step__begin kv:step__end kv:wide",
                             spans.parse_span, "nope,kv:wide", PROBES)

    def test_keys_that_cannot_match(self):
        self.assertToolError("--span: kv:request__start's key is a string; a key is an integer argument (or 'thread')",
                             spans.make_span, 0, "kv:request__start", "kv:request__done", "key", PROBES)
        self.assertToolError("--span: kv:request__done has no argument key (its arguments: id, status)",
                             spans.make_span, 0, "kv:request__done", "kv:request__start", "key", PROBES)


class HistogramTest(SpanTestCase):
    def test_an_integer_argument(self):
        histogram = spans.parse_histogram(2, "kv:request__done:status", PROBES)
        self.assertEqual(histogram, spans.Histogram(2, "kv:request__done", "status"))
        self.assertEqual(spans.histogram_index(REQUEST_DONE, histogram), 1)

    def test_an_argument_past_the_sixth(self):
        # usdt trace reads all 12 on every release (from the operand where bpftrace reads no argN).
        histogram = spans.parse_histogram(0, "kv:wide:a6", PROBES)
        self.assertEqual(spans.histogram_index(WIDE, histogram), 6)

    def test_what_cannot_be_counted(self):
        self.assertToolError("--histogram status: write PROVIDER:PROBE:ARGUMENT, for example "
                             "--histogram kvserver:request__done:latency_ns", spans.parse_histogram, 0, "status", PROBES)
        self.assertToolError("--histogram kv:request__start:key: key is a string; a histogram counts integers",
                             spans.parse_histogram, 0, "kv:request__start:key", PROBES)
        self.assertToolError("--histogram: kv:lonely__start has no argument x (its arguments: none)",
                             spans.parse_histogram, 0, "kv:lonely__start:x", PROBES)


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
