"""pairwise.covering_array() covers every pair of values, keeps the rows it is given first and
gives the same rows on every run; the matrix's default cells (cells.pairwise_cells) cover
every pair of compiler, standard, optimisation and link mode in about as few cells as that
takes, starting with the builds of tests/integration.
"""

import os
import subprocess
import sys
import unittest
from itertools import combinations, product
from pathlib import Path

import cells
import pairwise
from usdt_testing import main

HERE = Path(__file__).resolve().parent


def uncovered(parameters, rows):
    """The pairs of values no row holds, as (index, value, index, value)."""
    missing = []
    for first, second in combinations(range(len(parameters)), 2):
        for a, b in product(parameters[first], parameters[second]):
            if not any(row[first] == a and row[second] == b for row in rows):
                missing.append((first, a, second, b))
    return missing


def cell_row(cell):
    return (cell.compiler, cell.standard, cell.optimization, cell.link)


class CoveringArrayTest(unittest.TestCase):
    def test_every_pair_is_covered(self):
        for parameters in (((1, 2), "ab"), ((1, 2), "ab", "xyz"), ("abc", "de", "fghi", "j", "kl")):
            with self.subTest(parameters=parameters):
                rows = pairwise.covering_array(parameters)
                self.assertEqual(uncovered(parameters, rows), [])
                self.assertTrue(all(row[index] in values for row in rows for index, values in enumerate(parameters)))

    def test_far_fewer_rows_than_the_product(self):
        # Three parameters of three values: nine rows (a Latin square) instead of 27.
        self.assertEqual(len(pairwise.covering_array(("abc", "def", "ghi"))), 9)

    def test_required_rows_come_first_and_count(self):
        parameters = ((1, 2), "ab", "xy")
        required = [(1, "a", "x"), (2, "b", "y")]
        rows = pairwise.covering_array(parameters, required)
        self.assertEqual(rows[:2], required)
        self.assertEqual(uncovered(parameters, rows), [])
        self.assertEqual(pairwise.covering_array(parameters, product(*parameters)), list(product(*parameters)))

    def test_needs_two_parameters(self):
        with self.assertRaises(ValueError):
            pairwise.covering_array(("abc",))


class DefaultCellsTest(unittest.TestCase):
    def test_every_pair_of_values_is_in_a_cell(self):
        rows = [cell_row(cell) for cell in cells.pairwise_cells()]
        self.assertEqual(uncovered(cells.PARAMETERS, rows), [])

    def test_the_compilers_split_the_cells(self):
        self.assertEqual(sorted(cells.pairwise_cells(), key=lambda cell: cell.name),
                         sorted(cells.default_cells("gcc") + cells.default_cells("clang"), key=lambda cell: cell.name))

    def test_about_as_few_cells_as_the_pairs_need(self):
        # Each link mode meets each standard in a cell of its own: no fewer cells will do.
        least = len(cells.LINK_MODES) * len(cells.STANDARDS)
        count = len(cells.pairwise_cells())
        self.assertGreaterEqual(count, least)
        self.assertLessEqual(count, least + least // 5)
        self.assertEqual(len(set(cells.pairwise_cells())), count, "a cell twice")

    def test_starts_with_the_integration_builds(self):
        self.assertEqual(cells.pairwise_cells()[:len(cells.INTEGRATION_BUILDS)], cells.INTEGRATION_BUILDS)

    def test_the_same_cells_in_every_process(self):
        # Set order changes with the hash seed; the cells must not.
        script = "import cells; print(' '.join(cell.name for cell in cells.pairwise_cells()))"
        names = []
        for seed in ("1", "2"):
            environment = dict(os.environ, PYTHONHASHSEED=seed,
                               PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))
            names.append(subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True,
                                        text=True, check=True).stdout)
        self.assertEqual(names[0], names[1])
        self.assertEqual(names[0].split(), [cell.name for cell in cells.pairwise_cells()])


if __name__ == "__main__":
    main()
