"""Unit tests of usdttool.contract.differences: what `usdt diff` calls removed, added and
changed, and which changes break a consumer. tests/tool/test_verify.py runs it on builds."""

import unittest
from dataclasses import replace

import usdt_testing

from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument
from usdttool.contract import differences
from usdttool.contract.differences import Change
from usdttool.files import elf, probe_notes


def argument(index, name, type_name, size, signed, kind=Kind.INTEGER):
    return TracerArgument(index, name, type_name, kind, size, signed)


def probe(name, arguments=(), semaphore=0x4010, source="kv.d", provider="kv"):
    return probe_notes.Probe(provider, name, tuple(arguments), (probe_notes.Site(0x1000, semaphore, ()),), semaphore,
                             source)


GET = probe("get", [argument(0, "id", "uint64_t", 8, False), argument(1, "len", "int", 4, True)])


class CompareTest(unittest.TestCase):
    def compare(self, old, new):
        return differences.compare([elf.Module("/old/app", tuple(old))], [elf.Module("/new/app", tuple(new))])

    def test_the_same_probes(self):
        found = self.compare([GET], [GET])
        self.assertEqual((found.removed, found.added, found.changed, found.breaking), ((), (), (), False))

    def test_a_removal_breaks_an_addition_does_not(self):
        tick = probe("tick")
        self.assertEqual((self.compare([GET, tick], [GET]).removed, self.compare([GET, tick], [GET]).breaking),
                         ((tick,), True))
        self.assertEqual((self.compare([GET], [GET, tick]).added, self.compare([GET], [GET, tick]).breaking),
                         ((tick,), False))

    def test_each_argument_change_breaks(self):
        wider = replace(GET, arguments=(GET.arguments[0], argument(1, "len", "int64_t", 8, True)))
        unsigned = replace(GET, arguments=(GET.arguments[0], argument(1, "len", "unsigned", 4, False)))
        renamed = replace(GET, arguments=(GET.arguments[0], argument(1, "length", "int", 4, True)))
        string = replace(GET, arguments=(argument(0, "id", "const char *", 8, False, Kind.STRING), GET.arguments[1]))
        fewer = replace(GET, arguments=GET.arguments[:1])
        for new, changes in (
                (wider, [Change("size", 1, 4, 8), Change("type", 1, "int", "int64_t")]),
                (unsigned, [Change("signed", 1, True, False), Change("type", 1, "int", "unsigned")]),
                (renamed, [Change("name", 1, "len", "length")]),
                (string, [Change("kind", 0, "integer", "string"), Change("type", 0, "uint64_t", "const char *")]),
                (fewer, [Change("arguments", None, 2, 1)])):
            with self.subTest(changes=changes):
                found = self.compare([GET], [new])
                (changed,) = found.changed
                self.assertEqual((list(changed.changes), found.breaking), (changes, True))

    def test_a_semaphore_added_or_removed_is_a_change_that_breaks_nothing(self):
        without = replace(GET, semaphore=0)
        (changed,) = self.compare([GET], [without]).changed
        self.assertEqual((changed.changes, changed.breaking), ((Change("semaphore", None, True, False),), False))
        (changed,) = self.compare([without], [GET]).changed
        self.assertEqual(changed.changes, (Change("semaphore", None, False, True),))

    def test_names_and_types_compare_only_where_both_sides_declare_them(self):
        # From the stapsdt notes alone (sys/sdt.h, a stripped record): argN and <stdint.h> types.
        noted = replace(GET, source_name=None, arguments=(argument(0, "arg0", "uint64_t", 8, False),
                                                          argument(1, "arg1", "int32_t", 4, True)))
        self.assertEqual(self.compare([GET], [noted]).changed, ())
        self.assertEqual(self.compare([noted], [GET]).changed, ())

    def test_probes_of_every_module_of_a_side(self):
        library = elf.Module("/lib/libkv.so", (GET,))
        found = differences.compare([elf.Module("/old/app", ()), library], [elf.Module("/new/app", (GET,))])
        self.assertEqual((found.removed, found.added, found.changed), ((), (), ()))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
