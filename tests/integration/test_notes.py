"""readelf checks of every integration module: which probes it has, each argument's size
and sign, the operand forms tracers can read, one semaphore per probe inside `.probes`,
and the `.stapsdt.base` address every note must carry. Expectations: expected.MODULES.
"""

import re
import unittest
from collections import defaultdict

import built_programs
import elf_notes
import expected
import module_checks
from usdt_testing import main, parse_options

PROGRAMS = {}

SPEC_PREFIX = re.compile(r"-?\d+@")
REGISTER_OPERAND = re.compile(r"-?[1248]@%[a-z][a-z0-9]*")


def notes_by_probe(notes):
    grouped = defaultdict(list)
    for note in notes:
        grouped[note.probe].append(note)
    return grouped


class NotesTest(unittest.TestCase):
    maxDiff = None

    def test_probes_and_argument_specs(self):
        for module, expectation in expected.MODULES.items():
            with self.subTest(module=module):
                grouped = notes_by_probe(elf_notes.notes(PROGRAMS[module]))
                specs = expectation.expected_specs()
                self.assertEqual(sorted(grouped), sorted(specs), "probes with notes")
                for probe, sites in grouped.items():
                    for note in sites:
                        prefixes = tuple(SPEC_PREFIX.match(argument).group() for argument in note.arguments)
                        self.assertEqual(prefixes, specs[probe],
                                         f"{probe} at {note.location:#x}: {' '.join(note.arguments)}")
                for probe, count in expectation.sites.items():
                    self.assertEqual(len(grouped[probe]), count, f"sites of {probe}")

    def test_operands_are_plain_registers(self):
        # sym(%rip), $imm and (%base,%index) are each misread or skipped by some tracer.
        for module in expected.MODULES:
            with self.subTest(module=module):
                for note in elf_notes.notes(PROGRAMS[module]):
                    for argument in note.arguments:
                        where = f"{note.probe} at {note.location:#x}: {argument}"
                        self.assertNotIn("(%rip)", argument, where)
                        self.assertNotIn("$", argument, where)
                        self.assertNotRegex(argument, r"\(%\w+,%", where)
                        self.assertRegex(argument, f"^{REGISTER_OPERAND.pattern}$", where)

    def test_narrow_arguments_name_32_bit_registers(self):
        # gdb rejects %r8b..%r15b (it calls them r8l..r15l) and with it the whole probe;
        # the 32-bit names (%eax, %r8d) parse everywhere and SIZE says what to read.
        for module in expected.MODULES:
            with self.subTest(module=module):
                for note in elf_notes.notes(PROGRAMS[module]):
                    for argument in note.arguments:
                        if argument.lstrip("-")[0] in "124":
                            self.assertRegex(argument, r"@%(e[a-z]{2}|r\d+d)$",
                                             f"{note.probe} at {note.location:#x}: {argument}")

    def test_one_semaphore_per_probe_in_probes_section(self):
        for module, expectation in expected.MODULES.items():
            with self.subTest(module=module):
                module_checks.assert_one_semaphore_per_probe(self, PROGRAMS[module], expectation.declared)

    def test_base_is_the_stapsdt_base_section(self):
        for module in expected.MODULES:
            with self.subTest(module=module):
                module_checks.assert_base_is_stapsdt_base(self, PROGRAMS[module])

    def test_each_site_describes_its_probe(self):
        # Every stapsdt note has a .note.usdt twin (both are dropped or kept together), and all
        # sites of a probe describe it the same way.
        for module in expected.MODULES:
            with self.subTest(module=module):
                path = PROGRAMS[module]
                notes = sorted(note.probe for note in elf_notes.notes(path))
                descriptions = elf_notes.descriptions(path)
                self.assertEqual(sorted(description.probe for description in descriptions), notes)
                for probe in set(notes):
                    self.assertEqual(len({d for d in descriptions if d.probe == probe}), 1, probe)

    def test_descriptions_say_what_the_provider_file_declares(self):
        described = {d.probe: d for d in elf_notes.descriptions(PROGRAMS["types_cxx_o2"])}
        for probe, (source_name, arguments) in expected.DESCRIPTIONS.items():
            with self.subTest(probe=probe):
                self.assertEqual((described[probe].source_name, described[probe].arguments),
                                 (source_name, arguments))

    def test_locations_are_in_text(self):
        for module in expected.MODULES:
            with self.subTest(module=module):
                module_checks.assert_locations_in_text(self, PROGRAMS[module])


if __name__ == "__main__":
    _, programs = parse_options(program_names=built_programs.NAMES)
    PROGRAMS.update(programs)
    main()
