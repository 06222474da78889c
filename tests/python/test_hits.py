"""Unit tests of usdttool.bpftrace.hits: the records usdt trace's program prints per hit (--json,
--timeline), read back into hits, and each hit as docs/tracing.md's JSON Lines."""

import json
import unittest

import usdt_testing
from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument, TracerProbe
from usdttool.bpftrace import hits

REQUEST = TracerProbe("kv", "request", (
    TracerArgument(0, "id", "uint64_t", Kind.INTEGER, 8, False),
    TracerArgument(1, "key", "const char *", Kind.STRING, 8, False),
    TracerArgument(2, "hit", "bool", Kind.BOOLEAN, 1, False),
    TracerArgument(3, "entry", "struct entry *", Kind.POINTER, 8, False),
    TracerArgument(4, "delta", "int", Kind.INTEGER, 4, True)))
# Seven arguments: bpftrace reads the first six.
WIDE = TracerProbe("kv", "wide", tuple(TracerArgument(n, f"a{n}", "int", Kind.INTEGER, 4, True) for n in range(7)))


class RecordReaderTest(unittest.TestCase):
    def setUp(self):
        self.asked = []

        def read_string(*asked):
            self.asked.append(asked)
            return "from memory"
        self.reader = hits.RecordReader([hits.TracedProbe(0, 2, REQUEST), hits.TracedProbe(1, 0, WIDE)], read_string)

    def feed(self, *lines):
        return [self.reader.feed(line) for line in lines]

    def test_a_record_as_values_by_kind(self):
        ((taken, hit),) = self.feed("usdt-hit 0 100 7 8 0x401000 42 4096 1 48879 -3\x1fkvserver\x1fget\x1e\n")
        self.assertTrue(taken)
        self.assertEqual((hit.probe.name, hit.time, hit.pid, hit.tid, hit.process, hit.address),
                         ("kv:request", 100, 7, 8, "kvserver", 0x401000))
        self.assertEqual(hit.values, (42, "get", True, 48879, -3))

    def test_an_integer_beyond_2_to_the_63(self):
        (_, hit), = self.feed("usdt-hit 0 1 2 3 0x10 18446744073709551615 0 0 0 -3\x1fapp\x1e\n")
        self.assertEqual((hit.values[0], hit.values[4]), (2 ** 64 - 1, -3))

    def test_a_string_with_newlines_spans_lines(self):
        results = self.feed("usdt-hit 0 1 2 3 0x10 1 4096 0 0 0\x1fapp\x1ftwo\n", "lines\n", "\x1e\n")
        self.assertEqual([taken for taken, _ in results], [True, True, True])
        self.assertEqual(results[-1][1].values[1], "two\nlines\n")

    def test_a_string_read_as_empty_is_read_again_a_null_pointer_is_null(self):
        (_, hit), = self.feed("usdt-hit 0 1 2 3 0x10 1 4096 0 0 0\x1fapp\x1f\x1e\n")
        self.assertEqual(hit.values[1], "from memory")
        self.assertEqual(self.asked, [(2, 2, "kv:request", 0x10, 4096)])
        (_, hit), = self.feed("usdt-hit 0 1 2 3 0x10 1 0 0 0 0\x1fapp\x1f\x1e\n")
        self.assertIsNone(hit.values[1])

    def test_the_separator_inside_a_string_leaves_the_strings_unknown(self):
        (_, hit), = self.feed("usdt-hit 0 1 2 3 0x10 1 4096 0 0 0\x1fapp\x1fa\x1fb\x1e\n")
        self.assertEqual((hit.process, hit.values), (None, (1, None, False, 0, 0)))

    def test_arguments_bpftrace_does_not_read_are_none(self):
        (_, hit), = self.feed("usdt-hit 1 1 2 3 0x10 0 1 2 3 4 5\x1fapp\x1e\n")
        self.assertEqual(hit.values, (0, 1, 2, 3, 4, 5, None))

    def test_other_lines_and_broken_records(self):
        self.assertEqual(self.feed("12 pid=1 tid=1 kv:request\n"), [(False, None)])
        self.assertEqual(self.feed("usdt-hit 9 1 2 3 0x10\x1fapp\x1e\n"), [(True, None)])     # no such probe
        self.assertEqual(self.feed("usdt-hit 0 1 2 3 0x10 1\x1fapp\x1e\n"), [(True, None)])   # values missing


class JsonTest(unittest.TestCase):
    def test_values_as_json_writes_them(self):
        integer, string, boolean, pointer, _ = REQUEST.arguments
        self.assertEqual(hits.json_value(integer, 2 ** 53 - 1), 2 ** 53 - 1)
        self.assertEqual(hits.json_value(integer, 2 ** 53), "9007199254740992")
        self.assertEqual(hits.json_value(integer, -2 ** 60), str(-2 ** 60))
        self.assertEqual(hits.json_value(pointer, 48879), "0xbeef")
        self.assertEqual(hits.json_value(string, "x"), "x")
        self.assertEqual(hits.json_value(boolean, False), False)
        self.assertIsNone(hits.json_value(string, None))
        self.assertIsNone(hits.json_integer(None))

    def test_a_hit_on_one_line(self):
        hit = hits.Hit(hits.TracedProbe(0, 0, REQUEST), 5, 10, 11, "app", 0x400000,
                       (2 ** 64 - 1, "k\ney", True, 16, -1))
        line = hits.json_line(hit)
        self.assertTrue(line.endswith("}\n") and line.count("\n") == 1)
        self.assertEqual(json.loads(line), {"type": "hit", "probe": "kv:request", "monotonic_ns": 5, "pid": 10,
                                            "tid": 11, "process": "app",
                                            "args": {"id": "18446744073709551615", "key": "k\ney", "hit": True,
                                                     "entry": "0x10", "delta": -1}})
        self.assertEqual(hits.json_value_of(hit, "entry"), "0x10")
        self.assertIsNone(hits.json_value_of(hit, "nope"))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
