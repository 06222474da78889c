"""What every ELF module with probes must hold, on any target, checked with readelf
(elf_notes): one semaphore per declared probe inside `.probes`, each note's base the
`.stapsdt.base` address, each location inside `.text`. tests/integration and tests/cross
call these from their test cases."""

import unittest
from typing import Sequence

import elf_notes

SEMAPHORE_SIZE = 2   # unsigned short


def assert_one_semaphore_per_probe(test: unittest.TestCase, path: str, declared: Sequence[str]) -> None:
    """`declared`: every probe (provider:name) of the module's .d files that has a semaphore."""
    probes_section = elf_notes.sections(path).get(".probes")
    test.assertIsNotNone(probes_section, "no .probes section")
    # Exactly the declared probes' semaphores: a second copy would grow the section.
    test.assertEqual(probes_section.size, SEMAPHORE_SIZE * len(declared), f".probes size for {len(declared)} probes")
    symbols = elf_notes.symbols(path)
    semaphore_of = {}
    for probe in declared:
        symbol = probe.replace(":", "_") + "_semaphore"
        values = [value for name, value in symbols if name == symbol]
        test.assertEqual(len(values), 1, f"symbol {symbol} (hidden: not in .dynsym)")
        test.assertTrue(probes_section.contains(values[0]), f"{symbol} at {values[0]:#x}")
        semaphore_of[probe] = values[0]
    for note in elf_notes.notes(path):
        # A probe without a semaphore records address 0.
        test.assertEqual(note.semaphore, semaphore_of.get(note.probe, 0), f"{note.probe} at {note.location:#x}: semaphore")


def assert_base_is_stapsdt_base(test: unittest.TestCase, path: str) -> None:
    # Tracers relocate each probe by (actual .stapsdt.base - note's base).
    base_section = elf_notes.sections(path).get(".stapsdt.base")
    test.assertIsNotNone(base_section, "no .stapsdt.base section")
    test.assertNotEqual(base_section.address, 0)
    for note in elf_notes.notes(path):
        test.assertEqual(note.base, base_section.address, f"{note.probe} at {note.location:#x}")


def assert_locations_in_text(test: unittest.TestCase, path: str) -> None:
    text = elf_notes.sections(path)[".text"]
    for note in elf_notes.notes(path):
        test.assertTrue(text.contains(note.location), f"{note.probe} at {note.location:#x}")
