"""Each linker (bfd, gold, lld, mold) with -ffunction-sections -Wl,--gc-sections and gc.c's
probed function that nothing calls: the linker drops that function, and its note must go
with it, while every other probe keeps a note with a real Location, Base and Semaphore and
gdb reads all of them (checks.py; the unused probe's note is reported if it survives).

Cells: cells.linker_cells(); --full adds every optimisation and link mode. Cells that fail
because of a linker's limits are expected failures, with the reason (cells.known_failures).
"""

import build
import cells
import test_matrix
from usdt_testing import main


class LinkerTest(test_matrix.MatrixTest):
    pass


if __name__ == "__main__":
    options = test_matrix.parse_arguments(lambda parser: parser.add_argument("--full", action="store_true"))
    LinkerTest.inputs = build.inputs_from(options)
    test_matrix.add_cell_tests(LinkerTest, cells.linker_cells(full=options.full))
    main()
