"""Covering arrays of strength two: rows, one value per parameter, in which every pair of
values of any two parameters appears together at least once.

A fault that only two settings together cause (a link mode with an optimisation, a standard
with a compiler) shows in any such array, in far fewer rows than the full product. Greedy and
deterministic: each new row is, of every combination of values, one that covers the most pairs
not yet covered; of those, the one whose values have been used least so far (which spreads
the rows over each parameter's values), then the first in product order. Trying every
combination is cheap for parameters of a few values each, and the same rows come out on
every run, so that a cell's name and its test stay put.
"""

from collections import Counter
from itertools import combinations, product
from typing import Iterable, List, Sequence, Set, Tuple

Row = Tuple[object, ...]
# (index of a parameter, its value, index of a later parameter, its value)
Pair = Tuple[int, object, int, object]


def pairs_of(row: Row) -> Set[Pair]:
    return {(first, row[first], second, row[second]) for first, second in combinations(range(len(row)), 2)}


def all_pairs(parameters: Sequence[Sequence[object]]) -> Set[Pair]:
    return {(first, a, second, b) for first, second in combinations(range(len(parameters)), 2)
            for a in parameters[first] for b in parameters[second]}


def covering_array(parameters: Sequence[Sequence[object]], required: Iterable[Row] = ()) -> List[Row]:
    """Rows that cover every pair of values of `parameters` (two or more sequences of values),
    the `required` rows first."""
    if len(parameters) < 2:
        raise ValueError("a covering array of pairs needs two parameters or more")
    rows = [tuple(row) for row in required]
    uncovered = all_pairs(parameters)
    uses = Counter()
    for row in rows:
        uncovered -= pairs_of(row)
        uses.update(enumerate(row))
    candidates = list(product(*parameters))
    while uncovered:
        best = min(candidates, key=lambda row: (-len(pairs_of(row) & uncovered),
                                                sum(uses[used] for used in enumerate(row))))
        rows.append(best)
        uncovered -= pairs_of(best)
        uses.update(enumerate(best))
    return rows
