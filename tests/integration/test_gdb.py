"""gdb reads the probes back, without root: `info probes` lists every probe, and at each
hit `$_probe_argc` and `$_probe_arg0..11` equal the values written in expected.py. Covers
the types programs and a shared library's probes (listed once the program has started).
The guarded probe under gdb: test_guarded.py.
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


class TypesUnderGdb(GdbTestCase):
    """Each types program runs once under gdb; _add_types_value_tests adds one value test
    per program and probe."""
    runs = {}

    def run_of(self, program):
        if program not in self.runs:
            self.runs[program] = gdb_probes.run(PROGRAMS[program], expected.TYPES_ARGUMENTS,
                                                expected.string_indices(expected.TYPES_HITS))
        return self.runs[program]

    def test_info_probes_lists_every_probe(self):
        wanted = sorted(expected.MODULES["types_c"].expected_specs())
        for program in built_programs.TYPES_PROGRAMS:
            with self.subTest(program=program):
                run = self.run_of(program)
                self.assertEqual(sorted({probe for probe, _ in run.listed}), wanted, run.output)

    def test_every_probe_hits_in_order_and_program_exits_normally(self):
        wanted = [hit.probe for hit in expected.TYPES_HITS]
        for program in built_programs.TYPES_PROGRAMS:
            with self.subTest(program=program):
                run = self.run_of(program)
                self.assertEqual([hit.probe for hit in run.hits], wanted, run.output)
                self.assertTrue(run.exited_normally, run.output)

    def check_values(self, program, probe):
        self.assertHits(self.run_of(program), expected.TYPES_HITS, only_probe=probe)


def _add_types_value_tests():
    for program in built_programs.TYPES_PROGRAMS:
        for probe in expected.string_indices(expected.TYPES_HITS):
            def test(self, program=program, probe=probe):
                self.check_values(program, probe)
            setattr(TypesUnderGdb, f"test_values_{program}_{probe.replace(':', '_')}", test)


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
    def test_lazy_probe_and_probe_without_semaphore(self):
        # gdb raises the lazy probe's semaphore itself, so its callable runs once.
        run = gdb_probes.run(PROGRAMS["flavours"], [], expected.string_indices(expected.FLAVOURS_TRACED_HITS))
        self.assertHits(run, expected.FLAVOURS_TRACED_HITS)
        self.assertIn("evaluated=1", run.output)
        self.assertTrue(run.exited_normally, run.output)


if __name__ == "__main__":
    _, programs = parse_options(program_names=built_programs.NAMES)
    PROGRAMS.update(programs)
    _add_types_value_tests()
    main()
