"""Distributions of values (span latencies in ns, a numeric argument's values) counted in BPF
maps by bucket, and what usdt trace prints of them: count, min, percentiles, max and a log2
histogram.

The program counts each value in a log-linear bucket (templates/trace.bt.j2, `bucket`):
0 to 7 each have their own; above, each power of two [2^e, 2^(e+1)) is cut into 8 equal
buckets, so a percentile is known within 1/16 of its value (the bucket's middle is printed,
clamped to the exact min and max). A negative value -v counts in bucket -1 - bucket(v).
The bucket is computed with shifts only: BPF has no floating point and bpftrace 0.17 no loops.
"""

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

SUB_BUCKETS = 8           # per power of two; bucket(v) == v below this
_SUB_BITS = 3             # log2(SUB_BUCKETS)
PERCENTILES = (50, 90, 99)


def bucket(value: int) -> int:
    """The bucket the program counts `value` in (what trace.bt.j2 computes, for the tests)."""
    if value < 0:
        return -1 - bucket(-value)
    if value < SUB_BUCKETS:
        return value
    exponent = value.bit_length() - 1
    return SUB_BUCKETS * (exponent - _SUB_BITS + 1) + ((value >> (exponent - _SUB_BITS)) & (SUB_BUCKETS - 1))


def bucket_range(number: int) -> Tuple[int, int]:
    """The values [low, high] that count in bucket `number`."""
    if number < 0:
        low, high = bucket_range(-1 - number)
        return -high, -low
    if number < SUB_BUCKETS:
        return number, number
    exponent = number // SUB_BUCKETS + _SUB_BITS - 1
    width = 1 << (exponent - _SUB_BITS)
    low = (SUB_BUCKETS + number % SUB_BUCKETS) * width
    return low, low + width - 1


@dataclass
class Distribution:
    """Counts by bucket, and the exact min and max where known."""
    buckets: Dict[int, int] = field(default_factory=dict)
    minimum: Optional[int] = None
    maximum: Optional[int] = None

    @property
    def count(self) -> int:
        return sum(self.buckets.values())

    def add(self, other: "Distribution") -> None:
        for number, count in other.buckets.items():
            self.buckets[number] = self.buckets.get(number, 0) + count
        self.minimum = _either(min, self.minimum, other.minimum)
        self.maximum = _either(max, self.maximum, other.maximum)

    def minus(self, earlier: "Distribution") -> "Distribution":
        """The counts since `earlier` (cumulative counts, both); min and max stay unknown."""
        buckets = {number: count - earlier.buckets.get(number, 0) for number, count in self.buckets.items()}
        return Distribution({number: count for number, count in buckets.items() if count > 0})

    def percentile(self, percent: float) -> Optional[int]:
        """The value below which `percent` of the values are, within its bucket's precision."""
        total = self.count
        if total == 0:
            return None
        rank = max(1, -(-total * percent // 100))    # the ceil(n * p / 100)-th value
        seen = 0
        for number in sorted(self.buckets):
            seen += self.buckets[number]
            if seen >= rank:
                low, high = bucket_range(number)
                value = (low + high) // 2
                if self.minimum is not None:
                    value = max(value, self.minimum)
                if self.maximum is not None:
                    value = min(value, self.maximum)
                return value
        return None

    def log2_histogram(self) -> List[Tuple[int, int, int]]:
        """(low, high, count) per power of two, as bpftrace's hist() prints them: [0], [1],
        [2, 3], [4, 7]... and mirrored below zero; empty ones between the first and last."""
        counts: Dict[int, int] = {}
        for number, count in self.buckets.items():
            low, _ = bucket_range(number)
            counts[_power(low)] = counts.get(_power(low), 0) + count
        if not counts:
            return []
        powers = range(min(counts), max(counts) + 1)
        return [(*_power_range(power), counts.get(power, 0)) for power in powers]


def _either(choose, first: Optional[int], second: Optional[int]) -> Optional[int]:
    known = [value for value in (first, second) if value is not None]
    return choose(known) if known else None


def _power(value: int) -> int:
    """The log2 histogram's bucket of `value`: 0 for 0, e + 1 for [2^e, 2^(e+1)), negative below 0."""
    return -_power(-value) if value < 0 else value.bit_length()


def _power_range(power: int) -> Tuple[int, int]:
    if power < 0:
        low, high = _power_range(-power)
        return -high, -low
    if power == 0:
        return 0, 0
    return 1 << (power - 1), (1 << power) - 1


def from_map_entries(entries: Iterable[Tuple[int, int]]) -> Distribution:
    """A distribution from (bucket, count) pairs."""
    distribution = Distribution()
    for number, count in entries:
        distribution.buckets[number] = distribution.buckets.get(number, 0) + count
    return distribution
