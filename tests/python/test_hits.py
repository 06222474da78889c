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
# Numbers alone: a hit's values are the record's numbers.
NUMBERS = TracerProbe("kv", "numbers", (TracerArgument(0, "total", "uint64_t", Kind.INTEGER, 8, False),
                                        TracerArgument(1, "delta", "int", Kind.INTEGER, 4, True)))
CHAR = TracerArgument(0, "c", "char", Kind.INTEGER, 1, True)
# Seven arguments: here the program cannot read the seventh (releases.operand_value).
WIDE = TracerProbe("kv", "wide", tuple(TracerArgument(n, f"a{n}", "int", Kind.INTEGER, 4, True) for n in range(7)))


class RecordReaderTest(unittest.TestCase):
    def setUp(self):
        self.asked = []

        def read_string(*asked):
            self.asked.append(asked)
            return b"from memory"
        self.reader = hits.RecordReader([hits.TracedProbe(0, 2, REQUEST), hits.TracedProbe(1, 0, WIDE, frozenset({6})),
                                         hits.TracedProbe(12, 0, NUMBERS)], read_string)

    def feed(self, *texts):
        return [self.reader.feed(text) for text in texts]

    def test_a_record_as_values_by_kind(self):
        # The hit's numbers (the string's pointer, then its cut flag, then comm), then its string.
        (taken, waiting), (string_taken, hit) = self.feed(b"usdt-hit 0 100 7 8 0x401000 42 4096 1 48879 -3 0 kvserver",
                                                          b"usdt-string 8 100 get")
        self.assertEqual((taken, waiting, string_taken), (True, None, True))
        self.assertEqual((hit.probe.name, hit.time, hit.pid, hit.tid, hit.process, hit.address),
                         ("kv:request", 100, 7, 8, "kvserver", 0x401000))
        self.assertEqual(hit.values, (42, hits.Text(b"get"), True, 48879, -3))

    def test_a_record_of_numbers_alone_is_a_hit_at_once(self):
        (taken, hit), = self.feed(b"usdt-hit 12 100 7 8 0x401000 18446744073709551615 -3 kv server")
        self.assertTrue(taken)
        self.assertEqual((hit.probe.name, hit.time, hit.pid, hit.tid, hit.process, hit.address, hit.values),
                         ("kv:numbers", 100, 7, 8, "kv server", 0x401000, (2 ** 64 - 1, -3)))
        self.assertEqual(self.feed(b"usdt-hit 12 100 7 8 0x401000 1 x2 app", b"usdt-hit 012 100 7 8 0x401000 1 2 app"),
                         [(True, None), (True, None)])

    def test_an_integer_beyond_2_to_the_63(self):
        _, (_, hit) = self.feed(b"usdt-hit 0 1 2 3 0x10 18446744073709551615 0 0 0 -3 0 app", b"usdt-string 3 1 ")
        self.assertEqual((hit.values[0], hit.values[4]), (2 ** 64 - 1, -3))

    def test_a_string_keeps_every_byte(self):
        # A printf of -f json is one event whatever it holds: newlines, the old separators, any byte.
        data = b"two\nlines\x1f\x1e \"\\\xff"
        _, (_, hit) = self.feed(b"usdt-hit 0 1 2 3 0x10 1 4096 0 0 0 0 app", b"usdt-string 3 1 " + data)
        self.assertEqual(hit.values[1], hits.Text(data))

    def test_a_string_of_63_bytes_is_cut_when_its_next_byte_is_not_nul(self):
        whole = b"x" * hits.STRING_BYTES
        for flag, cut in ((b"1", True), (b"0", False)):
            _, (_, hit) = self.feed(b"usdt-hit 0 1 2 3 0x10 1 4096 0 0 0 " + flag + b" app", b"usdt-string 3 1 " + whole)
            self.assertEqual(hit.values[1], hits.Text(whole, cut))
        # A shorter string ended before the cut: the byte past the cut is not its.
        _, (_, hit) = self.feed(b"usdt-hit 0 1 2 3 0x10 1 4096 0 0 0 1 app", b"usdt-string 3 1 short")
        self.assertEqual(hit.values[1], hits.Text(b"short"))

    def test_a_string_read_as_empty_is_read_again_a_null_pointer_is_null(self):
        _, (_, hit) = self.feed(b"usdt-hit 0 1 2 3 0x10 1 4096 0 0 0 0 app", b"usdt-string 3 1 ")
        self.assertEqual(hit.values[1], hits.Text(b"from memory"))
        self.assertEqual(self.asked, [(2, 2, "kv:request", 0x10, 4096)])
        _, (_, hit) = self.feed(b"usdt-hit 0 1 2 3 0x10 1 0 0 0 0 0 app", b"usdt-string 3 1 ")
        self.assertIsNone(hit.values[1])
        self.reader.read_string = lambda *asked: None     # in no memory the process can read
        _, (_, hit) = self.feed(b"usdt-hit 0 1 2 3 0x10 1 4096 0 0 0 0 app", b"usdt-string 3 1 ")
        self.assertEqual(hit.values[1], hits.Unreadable(4096))

    def test_another_thread_s_hit_between_a_hit_and_its_string(self):
        results = self.feed(b"usdt-hit 0 1 2 3 0x10 1 4096 0 0 0 0 app", b"usdt-hit 0 1 2 4 0x10 2 4096 0 0 0 0 app",
                            b"usdt-string 4 1 four", b"usdt-string 3 1 three")
        self.assertEqual([(hit.tid, hit.values[:2]) for _, hit in results if hit is not None],
                         [(4, (2, hits.Text(b"four"))), (3, (1, hits.Text(b"three")))])

    def test_a_hit_whose_string_was_lost_is_dropped(self):
        # A full buffer dropped the string: the thread's next hit replaces the one waiting.
        results = self.feed(b"usdt-hit 0 1 2 3 0x10 1 4096 0 0 0 0 app", b"usdt-hit 0 5 2 3 0x10 2 4096 0 0 0 0 app",
                            b"usdt-string 3 1 late", b"usdt-string 3 5 second")
        self.assertEqual([(taken, hit and hit.values[:2]) for taken, hit in results],
                         [(True, None), (True, None), (True, None), (True, (2, hits.Text(b"second")))])

    def test_arguments_the_program_does_not_read(self):
        (_, hit), = self.feed(b"usdt-hit 1 1 2 3 0x10 0 1 2 3 4 5 0 app")
        self.assertEqual(hit.values, (0, 1, 2, 3, 4, 5, hits.NOT_READ))

    def test_other_printfs_and_broken_records(self):
        self.assertEqual(self.feed(b"usdt-maps 1 2 final\n"), [(False, None)])
        self.assertEqual(self.feed(b"usdt-hit 9 1 2 3 0x10 app"), [(True, None)])     # no such probe
        self.assertEqual(self.feed(b"usdt-hit 0 1 2 3 0x10 1 app"), [(True, None)])   # values missing
        self.assertEqual(self.feed(b"usdt-string 3 77 nobody's"), [(True, None)])    # no hit waits for it


class JsonTest(unittest.TestCase):
    def test_values_as_json_writes_them(self):
        integer, string, boolean, pointer, _ = REQUEST.arguments
        self.assertEqual(hits.json_value(integer, 2 ** 53 - 1), 2 ** 53 - 1)
        self.assertEqual(hits.json_value(integer, 2 ** 53), "9007199254740992")
        self.assertEqual(hits.json_value(integer, -2 ** 60), str(-2 ** 60))
        self.assertEqual(hits.json_value(pointer, 48879), "0xbeef")
        self.assertEqual(hits.json_value(string, hits.Text(b"x")), "x")
        self.assertEqual(hits.json_value(string, hits.Text(b"")), "")
        self.assertEqual(hits.json_value(CHAR, ord("a")), "a")
        self.assertEqual(hits.json_value(boolean, False), False)
        self.assertIsNone(hits.json_value(string, None))
        self.assertIsNone(hits.json_value(string, hits.Unreadable(1)))
        self.assertIsNone(hits.json_value(integer, hits.NOT_READ))
        self.assertIsNone(hits.json_integer(None))

    def test_a_hit_on_one_line(self):
        hit = hits.Hit(hits.TracedProbe(0, 0, REQUEST), 5, 10, 11, "app", 0x400000,
                       (2 ** 64 - 1, hits.Text(b"k\ney\xff", cut=True), True, 16, -1))
        line = hits.json_line(hit)
        self.assertTrue(line.endswith("}\n") and line.count("\n") == 1)
        # A byte that is not UTF-8 as the escape of a lone surrogate U+DCXX.
        self.assertIn('"key":"k\\ney\\udcff"', line)
        self.assertEqual(json.loads(line), {"type": "hit", "probe": "kv:request", "monotonic_ns": 5, "pid": 10,
                                            "tid": 11, "process": "app",
                                            "args": {"id": "18446744073709551615", "key": "k\ney\udcff", "hit": True,
                                                     "entry": "0x10", "delta": -1},
                                            "cut": ["key"]})
        self.assertEqual(json.loads(line)["args"]["key"].encode("utf-8", "surrogateescape"), b"k\ney\xff")
        self.assertEqual(hits.json_value_of(hit, "entry"), "0x10")
        self.assertIsNone(hits.json_value_of(hit, "nope"))

    def test_a_hit_of_numbers_alone(self):
        # Written at once when all is ASCII; here a byte of the process's name is not UTF-8.
        hit = hits.Hit(hits.TracedProbe(0, 0, NUMBERS), 2 ** 53, 10, 11, 'a "q"\udcff', 0x400000, (2 ** 64 - 1, -1))
        self.assertEqual(hits.json_line(hit), '{"type":"hit","probe":"kv:numbers","monotonic_ns":"9007199254740992",'
                                              '"pid":10,"tid":11,"process":"a \\"q\\"\\udcff",'
                                              '"args":{"total":"18446744073709551615","delta":-1}}\n')


class TextTest(unittest.TestCase):
    def test_strings_as_strace_prints_them(self):
        string = REQUEST.arguments[1]
        self.assertEqual(hits.text_value(string, hits.Text(b'a"b\\c\n\t\r\x1f\x1e\x7f\xff\xc3\xa9')),
                         '"a\\"b\\\\c\\n\\t\\r\\x1f\\x1e\\x7f\\xff\u00e9"')
        self.assertEqual(hits.text_value(string, hits.Text(b"")), '""')
        self.assertEqual(hits.text_value(string, hits.Text(b"abc", cut=True)), '"abc"...')
        self.assertEqual(hits.text_value(string, None), "NULL")
        self.assertEqual(hits.text_value(string, hits.Unreadable(0x10)), "<unreadable:0x10>")
        self.assertEqual(hits.text_value(string, hits.NOT_READ), "?")

    def test_chars_between_single_quotes(self):
        self.assertEqual(hits.text_value(CHAR, ord("a")), "'a'")
        self.assertEqual(hits.text_value(CHAR, ord("'")), "'\\''")
        self.assertEqual(hits.text_value(CHAR, 0), "'\\0'")
        self.assertEqual(hits.text_value(CHAR, -1), "'\\xff'")
        # An int8_t is a number.
        self.assertEqual(hits.text_value(TracerArgument(0, "n", "int8_t", Kind.INTEGER, 1, True), -1), "-1")

    def test_a_hit_s_line(self):
        hit = hits.Hit(hits.TracedProbe(0, 0, REQUEST), 5, 10, 11, "app", 0x400000,
                       (1, hits.Text(b"k"), False, 16, -1))
        self.assertEqual(hits.text_line(hit), '5 pid=10 tid=11 kv:request id=1 key="k" hit=false entry=0x10 delta=-1\n')
        numbers = hits.Hit(hits.TracedProbe(1, 0, NUMBERS), 5, 10, 11, "app", 0x400000, (2 ** 64 - 1, -1))
        self.assertEqual(hits.text_line(numbers), "5 pid=10 tid=11 kv:numbers total=18446744073709551615 delta=-1\n")


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
