"""Unit tests of usdttool.answers.summaries: the maps `usdt trace`'s program prints at each interval and
at the end, read back from bpftrace's output."""

import unittest

import usdt_testing
from usdttool.answers import summaries


class MapReaderTest(unittest.TestCase):
    def test_map_lines(self):
        reader = summaries.MapReader()
        lines = ["usdt-maps 100 3 final\n", "@usdt_hits[2]: 5\n", "\n", "@usdt_min[0, 3]: -7\n",
                 "@usdt_started[1, 10, 11]: 99\n", "usdt-maps-end\n"]
        results = [reader.feed(line) for line in lines]
        self.assertTrue(all(taken for taken, _ in results))
        snapshot = results[-1][1]
        self.assertEqual((snapshot.time, snapshot.epoch, snapshot.final), (100, 3, True))
        self.assertEqual(snapshot.maps, {"usdt_hits": {(2,): 5}, "usdt_min": {(0, 3): -7},
                                         "usdt_started": {(1, 10, 11): 99}})
        self.assertEqual(reader.feed("1 pid=1 tid=1 a:b\n"), (False, None))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
