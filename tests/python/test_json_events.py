"""Unit tests of usdttool.bpftrace.json_events: the events of bpftrace -f json's lines, a printf's
text byte for byte, whether its line is read as JSON or, having nothing JSON escapes, as it is."""

import json
import unittest

import usdt_testing
from usdttool.bpftrace import json_events


def printf_line(data: bytes) -> bytes:
    """A printf's line as every release writes it (0.17, 0.23 and 0.27 alike)."""
    return b'{"type": "printf", "data": "' + data + b'"}\n'


class PrintfTest(unittest.TestCase):
    # A text as its line holds it (bpftrace's escapes: \uffffffXX for a byte from 0x80 up), and its bytes.
    TEXTS = [(b"usdt-hit 1 4054719802559 9195 9195 0x5627036ca0b8 0 0 flood",
              b"usdt-hit 1 4054719802559 9195 9195 0x5627036ca0b8 0 0 flood"),
             (b"", b""),
             # As bpftrace writes them, unescaped; and bytes from 0x80 up, which it does not.
             (b"del\x7f {braces} %s raw \xc3\xa9 \xff", b"del\x7f {braces} %s raw \xc3\xa9 \xff"),
             (b'tab\\t quote\\" back\\\\ nl\\n bell\\u0007 hi\\uffffffc3\\uffffffa9 \\uFFFFFFff \\u00e9',
              b'tab\t quote" back\\ nl\n bell\x07 hi\xc3\xa9 \xff \xc3\xa9'),
             (b"a line of the program\\n", b"a line of the program\n")]

    def test_every_byte_of_a_printf(self):
        for data, text in self.TEXTS:
            with self.subTest(data=data):
                self.assertEqual(json_events.parse(printf_line(data)), json_events.Printf(text))

    def test_a_line_read_as_it_is_says_what_json_says(self):
        # The same event with its keys the other way round is parsed as JSON.
        for data, _ in self.TEXTS:
            for ending in (b"\n", b"", b" \r\n"):
                with self.subTest(data=data, ending=ending):
                    as_is = printf_line(data)[:-1] + ending
                    parsed = b'{"data": "' + data + b'", "type": "printf"}' + ending
                    self.assertEqual(json_events.parse(as_is), json_events.parse(parsed))

    def test_other_events(self):
        self.assertIsNone(json_events.parse(b"\n"))
        self.assertIsNone(json_events.parse(b'{"type": "attached_probes", "data": {"probes": 3}}\n'))
        self.assertEqual(json_events.parse(b'{"type": "lost_events", "data": {"events": 7}}\n'), json_events.Lost(7))
        self.assertEqual(json_events.parse(b'{"type": "map", "data": {"@usdt_hits": {"0": 5}}}\n'),
                         json_events.Map("usdt_hits", {"0": 5}))
        self.assertEqual(json_events.parse(b"not JSON\n"), json_events.Other("not JSON\n"))
        # A printf's line cut short is not one.
        self.assertEqual(json_events.parse(b'{"type": "printf", "data": "usdt-hit 0\n'),
                         json_events.Other('{"type": "printf", "data": "usdt-hit 0\n'))
        self.assertEqual(json_events.parse(json.dumps({"type": "printf", "data": 5}).encode()),
                         json_events.Other('{"type": "printf", "data": 5}'))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
