"""Unit tests of usdttool.contract.checks: each of `usdt verify`'s checks on modules made here,
with its exact line, and the declared probes of a .d file (the generator's model) against
them. tests/tool/test_verify.py runs the command on builds that have each problem."""

import unittest

import usdt_testing

from usdtgen import model
from usdtgen.notes import Kind
from usdtgen.parser import parse
from usdtgen.tracer_probe import TracerArgument
from usdttool.contract import checks
from usdttool.files import elf, probe_notes

DECLARED = model.build(parse("provider kv {\n  probe get(uint64_t id, int len);\n  probe tick();\n};\n", "kv.d"),
                       "kv.d", "kv.d").probes


def site(specs, address=0x1000, semaphore=0, note_base=0x2000):
    return probe_notes.Site(address, semaphore, probe_notes.parse_arguments(specs) if specs else (), note_base)


def probe(name, *sites, provider="kv", source="kv.d", arguments=None):
    if arguments is None:
        arguments = tuple(TracerArgument(index, f"arg{index}", spec.type_name, Kind.INTEGER, spec.size, spec.signed)
                          for index, spec in enumerate(sites[0].arguments))
    return probe_notes.Probe(provider, name, arguments, sites, sites[0].semaphore, source)


GET = probe("get", site("8@%rax -4@%edx"), arguments=(TracerArgument(0, "id", "uint64_t", Kind.INTEGER, 8, False),
                                                    TracerArgument(1, "len", "int", Kind.INTEGER, 4, True)))
TICK = probe("tick", site(""), arguments=())


def module(*probes, base=0x2000, segments=(), machine="EM_X86_64"):
    return elf.Module("./app", tuple(probes), (), tuple(segments), 8, machine, base)


def lines(problems):
    return [str(problem) for problem in problems]


class FileTest(unittest.TestCase):
    def test_a_correct_file(self):
        self.assertEqual(checks.file_problems(module(GET, TICK)), [])
        self.assertEqual(checks.file_problems(module(base=None)), [])   # no probes, nothing to place

    def test_no_stapsdt_base(self):
        self.assertEqual(lines(checks.file_problems(module(GET, TICK, base=None))),
                         ["./app: error: no .stapsdt.base section: gdb lists none of the file's 2 probes"])
        unbased = probe("get", site("8@%rax", note_base=0))
        self.assertEqual(lines(checks.file_problems(module(unbased))),
                         ["./app: error: kv:get: a site whose note records no .stapsdt.base address (0): gdb and "
                          "tracers place it wrongly"])

    def test_stapsdt_base_mapped_at_another_distance_than_a_site(self):
        # lld's layout of a sys/sdt.h program: the base in the first, read-only segment (file
        # offset = address), the code 0x1000 further in memory than in the file.
        rodata = elf.LoadSegment(0x0, 0x0, 0x600)
        text = elf.LoadSegment(0x15f0, 0x5f0, 0x200)
        placed = probe("get", site("8@%rax", address=0x16e9))
        self.assertEqual(lines(checks.file_problems(module(placed, base=0x554, segments=(rodata, text)))), [
            "./app: warning: .stapsdt.base (0x554) is in a segment mapped at another distance from its file offsets "
            "than 1 site (0x16e9...): perf 6.1 places their probes at a wrong file offset and records no hit"])
        # GNU ld's: every segment at the same distance, wherever the base is.
        text = elf.LoadSegment(0x1000, 0x1000, 0x800)
        self.assertEqual(checks.file_problems(module(placed, base=0x554, segments=(rodata, text))), [])

    def test_a_site_at_address_0(self):
        dropped = probe("get", site("8@%rax", address=0), site("8@%rax"))
        self.assertEqual(lines(checks.file_problems(module(dropped))),
                         ["./app: error: kv:get: a site at address 0: the linker discarded its code and kept its note, "
                          "and libbpf refuses every site of the probe"])

    def test_more_than_12_arguments(self):
        many = probe("many", site(" ".join(["8@%rax"] * 13)), source=None)
        self.assertEqual(lines(checks.file_problems(module(many))),
                         ["./app: error: kv:many: 13 arguments; libbpf and sys/sdt.h take at most 12"])

    def test_unreadable_operands_once_per_spec(self):
        symbol = probe("get", site("-4@counter(%rip) 8@%rax", address=0x1000), site("-4@counter(%rip) 8@%rax",
                                                                                      address=0x1100), source=None)
        self.assertEqual(lines(checks.file_problems(module(symbol))), [
            "./app: error: kv:get arg0: `-4@counter(%rip)` (site 0x1000): an operand at a symbol's address, which "
            "libbpf refuses (the attach fails) and bcc (bpftrace 0.17) reads as a wrong value"])
        scaled = probe("get", site("8@(%rax,%rbx,8)"), arguments=GET.arguments[:1])
        self.assertEqual(lines(checks.file_problems(module(scaled))), [
            "./app: warning: kv:get arg0 (id): `8@(%rax,%rbx,8)` (site 0x1000): a base-index-scale operand, which "
            "libbpf reads from 1.7 on and perf skips"])
        # The machine's own parser: x3 is aarch64's.
        self.assertEqual(checks.file_problems(module(probe("get", site("-4@x3")), machine="EM_AARCH64")), [])
        self.assertEqual(len(checks.file_problems(module(probe("get", site("-4@x3")), machine="EM_X86_64"))), 1)

    def test_a_semaphore_on_a_page_an_earlier_writable_segment_maps(self):
        # lld's layout: the GNU_RELRO part of a writable segment ends on the page .probes starts on.
        relro = elf.LoadSegment(0x3e00, 0x2e00, 0x100, writable=True)
        data = elf.LoadSegment(0x4f00, 0x2f00, 0x200, writable=True)
        guarded = probe("get", site("8@%rax", semaphore=0x4f10))
        (problem,) = checks.file_problems(module(guarded, segments=(relro, data)))
        self.assertTrue(str(problem).startswith("./app: error: kv:get: its semaphore (0x4f10) is on a file page that "
                                                "an earlier writable segment (GNU_RELRO's) also maps"), problem)
        own_page = elf.LoadSegment(0x4f00, 0x3f00, 0x200, writable=True)
        self.assertEqual(checks.file_problems(module(guarded, segments=(relro, own_page))), [])


class DeclarationTest(unittest.TestCase):
    def test_every_declared_probe_with_its_arguments(self):
        self.assertEqual(checks.declaration_problems(DECLARED, [module(GET, TICK)], "./app"), [])

    def test_a_declared_probe_without_a_site(self):
        dropped = probe("tick", site("", address=0), arguments=())
        for modules in ([module(GET)], [module(GET, dropped)]):
            self.assertEqual(lines(checks.declaration_problems(DECLARED, modules, "./app")),
                             ["kv.d:3:9: error: kv:tick is declared here, and has no site in ./app"])

    def test_a_probe_in_another_module(self):
        library = elf.Module("./libkv.so", (TICK,))
        self.assertEqual(checks.declaration_problems(DECLARED, [module(GET), library], "./app or its libraries"), [])

    def test_arguments_that_differ_from_the_declaration(self):
        wide = probe("get", site("8@%rax -8@%rdx"), site("8@%rax -4@%edx", address=0x1100))
        self.assertEqual(lines(checks.declaration_problems(DECLARED, [module(wide, TICK)], "./app")),
                         ["kv.d:2:30: error: kv:get arg1 (len): declared int, ./app's note says -8 (int64_t)"])
        fewer = probe("get", site("8@%rax"))
        self.assertEqual(lines(checks.declaration_problems(DECLARED, [module(fewer, TICK)], "./app")),
                         ["kv.d:2:9: error: kv:get: declared with 2 arguments, ./app's note has 1"])

    def test_names_and_types_of_note_usdt(self):
        renamed = probe("get", site("8@%rax -4@%edx"), arguments=(
            TracerArgument(0, "id", "uint64_t", Kind.INTEGER, 8, False),
            TracerArgument(1, "size", "int32_t", Kind.INTEGER, 4, True)))
        self.assertEqual(lines(checks.declaration_problems(DECLARED, [module(renamed, TICK)], "./app")),
                         ["kv.d:2:30: error: kv:get arg1: declared `int len`, ./app's .note.usdt says "
                          "`int32_t size` (from kv.d)"])
        # Without .note.usdt (sys/sdt.h), sizes and signs alone.
        noted = probe("get", site("8@%rax -4@%edx"), source=None)
        self.assertEqual(checks.declaration_problems(DECLARED, [module(noted, TICK)], "./app"), [])

    def test_probes_no_file_declares(self):
        other = probe("put", site(""), arguments=())
        foreign = probe("hit", site(""), provider="core", arguments=())
        self.assertEqual(lines(checks.undeclared_problems(DECLARED, [module(GET, TICK, other, foreign)])),
                         ["./app: warning: kv:put has a site here, and none of the .d files declares it"])


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
