"""Unit tests of usdttool.answers.distribution: the log-linear buckets `usdt trace` counts values and
durations in, in the kernel, and the percentiles and log2 histogram read from them."""

import unittest

import usdt_testing
from usdttool.answers import distribution


class BucketTest(unittest.TestCase):
    def test_buckets_hold_their_values(self):
        values = [*range(0, 70), *(1 << bits for bits in range(64)), *((1 << bits) - 1 for bits in range(1, 64)),
                  1000, 123456789, 2 ** 63 - 1]
        for value in values + [-value for value in values if value]:
            low, high = distribution.bucket_range(distribution.bucket(value))
            self.assertTrue(low <= value <= high, (value, low, high))
            self.assertLessEqual(high - low, max(abs(value) // 8, 0), value)

    def test_percentiles_within_their_bucket(self):
        values = list(range(1000, 101000, 1000))
        counted = distribution.from_map_entries((distribution.bucket(value), 1) for value in values)
        counted.minimum, counted.maximum = min(values), max(values)
        for percent, exact in ((50, 50000), (90, 90000), (99, 99000)):
            self.assertAlmostEqual(counted.percentile(percent), exact, delta=exact / 16)
        self.assertEqual(counted.log2_histogram()[0][:2], (512, 1023))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
