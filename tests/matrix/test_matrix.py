"""The compiler x standard x optimisation x link mode matrix, for one compiler: each cell
(cells.py) is built (build.py), its notes read back by readelf and every argument of every
hit by gdb (checks.py). One test per cell and view: test_<cell>_notes, test_<cell>_gdb.

--cells default: the compiler's cells of a covering array (cells.pairwise_cells): every pair
of values of two parameters is in some cell, and the builds tests/integration makes of
types.c and types.cpp are cells. --cells full: every combination, which CMake adds as
matrix.full.gcc and matrix.full.clang (label `matrix-full`) when configured with
-DUSDT_TEST_MATRIX_FULL=ON.

usage: test_matrix.py --compiler gcc|clang --cells default|full <build.py's path options>
"""

import unittest

import build
import cells
import checks
from usdt_testing import main, parse_options, require_tracer


class MatrixTest(unittest.TestCase):
    maxDiff = None
    inputs: build.Inputs
    cells = ()
    builds = {}
    gdb_runs = {}

    @classmethod
    def setUpClass(cls):
        # Everything is built, and run under gdb, up front, two at a time.
        cls.builds = build.parallel_map(lambda cell: build.build(cell, cls.inputs), cls.cells)
        built = [result for result in cls.builds.values() if isinstance(result, build.Built)]
        cls.gdb_runs = build.parallel_map(checks.run_gdb, built)

    def built(self, cell):
        return build.result_or_raise(self.builds[cell], cell.name)

    def check_notes(self, cell):
        built = self.built(cell)
        self.assertEqual(checks.note_problems(built), [], built.commands)

    def check_gdb(self, cell):
        require_tracer(self, "gdb", needs_root=False)
        built = self.built(cell)
        run = build.result_or_raise(self.gdb_runs[built])
        self.assertEqual(checks.gdb_problems(built, run), [], run.output)


def add_cell_tests(test_class, cell_list):
    """test_<cell>_notes and test_<cell>_gdb for every cell; cells.known_failures() marks
    the ones expected to fail."""
    test_class.cells = tuple(cell_list)
    for cell in cell_list:
        def notes(self, cell=cell):
            self.check_notes(cell)

        def gdb(self, cell=cell):
            self.check_gdb(cell)
        for view, test in (("notes", notes), ("gdb", gdb)):
            reason = cells.known_failures(cell).get(view)
            if reason:
                test.__doc__ = f"Expected to fail: {reason}"
                test = unittest.expectedFailure(test)
            setattr(test_class, f"test_{cell.name}_{view}", test)


def parse_arguments(extra=lambda parser: None):
    """build.py's options (and `extra`'s), through usdt_testing.parse_options."""
    def add_options(parser):
        build.add_arguments(parser)
        extra(parser)
    options, _ = parse_options(add_options)
    return options


if __name__ == "__main__":
    def matrix_options(parser):
        parser.add_argument("--compiler", required=True, choices=cells.COMPILERS)
        parser.add_argument("--cells", required=True, choices=("default", "full"))
    options = parse_arguments(matrix_options)
    MatrixTest.inputs = build.inputs_from(options)
    chosen = cells.default_cells if options.cells == "default" else cells.full_cells
    add_cell_tests(MatrixTest, chosen(options.compiler))
    main()
