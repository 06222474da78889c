"""gdb reads the probes back, without root: `info probes` lists every probe, and at each
hit `$_probe_argc` and `$_probe_arg0..11` equal the values written in expected.py. Covers a
shared library's probes (listed once the program has started), strings written only for a
probe, and the lazy probe and the probe without a semaphore. The types programs under gdb:
the matrix (matrix.gcc, matrix.clang) reads types.c and types.cpp in every cell, the builds
made here among them (tests/matrix/cells.py, INTEGRATION_BUILDS). The guarded probe under
gdb: test_guarded.py.
"""

import unittest

import built_programs
import expected
import gdb_probes
from usdt_testing import main, parse_options, require_tracer

PROGRAMS = {}

class GdbTestCase(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        require_tracer(self, "gdb", needs_root=False)

    def assertHits(self, run, hits, only_probe=None):
        actual = [(hit.probe, hit.values) for hit in run.hits if only_probe in (None, hit.probe)]
        wanted = [(hit.probe, expected.resolve(hit.values, run.output)) for hit in hits if only_probe in (None, hit.probe)]
        self.assertEqual(actual, wanted, run.output if not actual else None)


class LibrariesUnderGdb(GdbTestCase):
    def test_shared_library_probes_listed_after_start_and_every_value(self):
        run = gdb_probes.run(PROGRAMS["linked"], expected.LINKED_ARGUMENTS,
                             expected.string_indices(expected.LINKED_HITS), start_first=True)
        listed = dict(run.listed)
        self.assertEqual(sorted(listed), ["archive:fire", "objects:built", "solib:guarded", "solib:work"],
                         run.output)
        self.assertEqual(listed["solib:work"], PROGRAMS["solib"], "object of solib:work")
        self.assertEqual(listed["archive:fire"], PROGRAMS["linked"], "object of archive:fire")
        # solib:guarded fires too: gdb raises the semaphore inside the library.
        self.assertHits(run, expected.LINKED_HITS)
        self.assertTrue(run.exited_normally, run.output)


class FreshStringsUnderGdb(GdbTestCase):
    def test_bytes_written_only_for_the_probe_are_there(self):
        run = gdb_probes.run(PROGRAMS["fresh_strings"], [], {"myapp:request__start": [1]})
        self.assertEqual([(hit.probe, tuple(hit.values)) for hit in run.hits],
                         [("myapp:request__start", (1, "abc")), ("myapp:request__start", (2, "01234"))],
                         run.output)
        self.assertTrue(run.exited_normally, run.output)


class FlavoursUnderGdb(GdbTestCase):
    def test_formatted_argument_and_probe_without_semaphore(self):
        # gdb raises lazy:guarded's semaphore itself, so its label is formatted once.
        run = gdb_probes.run(PROGRAMS["flavours"], [], expected.string_indices(expected.FLAVOURS_TRACED_HITS))
        self.assertHits(run, expected.FLAVOURS_TRACED_HITS)
        self.assertIn("evaluated=1", run.output)
        self.assertTrue(run.exited_normally, run.output)


if __name__ == "__main__":
    _, programs = parse_options(program_names=built_programs.NAMES)
    PROGRAMS.update(programs)
    main()
