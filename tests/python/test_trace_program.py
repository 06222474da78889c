"""Unit tests of usdttool.bpftrace.program: the probes usdt trace traces, as a tracer sees them
(from a provider file, the .note.usdt records or the stapsdt notes), chosen by pattern, and the
plan and program of the trace. tests/tool/test_trace.py runs the command on built programs."""

import contextlib
import io
import tempfile
import unittest
from pathlib import Path

import usdt_testing

from usdtgen.errors import GeneratorError
from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument, TracerProbe
from usdttool.answers import spans, summaries
from usdttool.bpftrace import program, releases
from usdttool.files import elf, probe_notes
from usdttool.errors import ToolError


def noted(provider, name, *arguments, specs="", source_name=None):
    """A probe of a file: `arguments` as (name, kind, size, signed)."""
    return probe_notes.Probe(provider, name, tuple(
        TracerArgument(index, argument, "t", kind, size, signed)
        for index, (argument, kind, size, signed) in enumerate(arguments)),
        (probe_notes.Site(0x1000, 0, probe_notes.parse_arguments(specs)),), 0, source_name)


REQUEST = noted("kv", "request", ("id", Kind.INTEGER, 8, False), ("key", Kind.STRING, 8, False),
                ("delta", Kind.INTEGER, 4, True), source_name="kv.d")
APP = elf.Module("/bin/app", (REQUEST, noted("kv", "tick"), noted("libc", "setjmp", ("arg0", Kind.INTEGER, 8, False))))


def quietly(function, *arguments, **options):
    """(what `function` returns, what it wrote to stderr)."""
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        result = function(*arguments, **options)
    return result, stderr.getvalue()


class DescribeTest(unittest.TestCase):
    def test_probes_as_their_notes_describe_them(self):
        ((module, described),) = program.describe([APP], None)
        self.assertIs(module, APP)
        self.assertEqual([(probe, source) for probe, source in described][:2], [
            (REQUEST.traced, "kv.d"), (TracerProbe("kv", "tick", ()), "the stapsdt notes")])

    def test_names_bpftrace_cannot_take(self):
        odd = elf.Module("/bin/odd", (noted("kv", "x", ("a b", Kind.INTEGER, 8, False), ("ok", Kind.INTEGER, 8, False)),
                                      noted("kv", "bad-name")))
        (((_, described),), warnings) = quietly(program.describe, [odd], None)
        ((probe, _),) = described
        self.assertEqual([argument.name for argument in probe.arguments], ["arg0", "ok"])
        self.assertEqual(warnings, "usdt: warning: /bin/odd: the probe 'kv':'bad-name' is left out: bpftrace takes "
                                   "names of letters, digits and '_'\n")

    def test_a_provider_file_names_and_types_the_probes_it_declares(self):
        with tempfile.TemporaryDirectory() as directory:
            provider_file = Path(directory, "kv.d")
            provider_file.write_text("provider kv {\n  probe request(uint64_t class, char *k, int d);\n};\n")
            ((_, described),) = program.describe([APP], str(provider_file))
            self.assertEqual(described[0], (TracerProbe("kv", "request", (
                TracerArgument(0, "class", "uint64_t", Kind.INTEGER, 8, False),
                TracerArgument(1, "k", "char *", Kind.STRING, 8, False),
                TracerArgument(2, "d", "int", Kind.INTEGER, 4, True))), "kv.d"))
            self.assertEqual(described[1][1], "the stapsdt notes")     # not declared there
            provider_file.write_text("provider kv {\n  probe request(uint32_t id, char *k, int d);\n};\n")
            with self.assertRaises(GeneratorError) as caught:
                program.describe([APP], str(provider_file))
            self.assertEqual(str(caught.exception), f"{provider_file}:2:9: error: kv:request is declared here with "
                                                     "arguments of (4, 8, -4), but /bin/app's notes say (8, 8, -4)")

    def test_a_path_bpftrace_cannot_attach_to(self):
        with self.assertRaises(ToolError) as caught:
            program.describe([elf.Module("/tmp/a:b", (REQUEST,))], None)
        self.assertIn("/tmp/a:b: bpftrace cannot attach to a path with a colon", str(caught.exception))


class SelectTest(unittest.TestCase):
    def setUp(self):
        self.described = program.describe([APP], None)

    def names(self, selected):
        return [f"{probe.provider}:{probe.name}" for _, probes in selected for probe, _ in probes]

    def test_patterns_and_providers(self):
        self.assertEqual(self.names(program.select(self.described, [], "app")),
                         ["kv:request", "kv:tick", "libc:setjmp"])
        self.assertEqual(self.names(program.select(self.described, ["kv:r*"], "app")), ["kv:request"])
        self.assertEqual(self.names(program.select(self.described, ["libc"], "app", also=["kv:tick"])),
                         ["kv:tick", "libc:setjmp"])
        self.assertEqual(self.names(program.without_glibc(self.described)), ["kv:request", "kv:tick"])

    def test_a_pattern_that_matches_nothing(self):
        with self.assertRaises(ToolError) as caught:
            program.select(self.described, ["kv:request", "kv:nope"], "/bin/app")
        self.assertEqual(str(caught.exception), "no probe of /bin/app matches kv:nope; its probes: kv:request kv:tick "
                                                "libc:*")
        self.assertEqual(program.select(self.described, ["nope"], "", every_pattern_matches=False), [])


class PlanTest(unittest.TestCase):
    def test_each_probe_numbered_with_its_line_record_and_measures(self):
        selected = program.select(program.describe([APP], None), ["kv"], "app")
        measures = program.Measures(lines=True, records=True, count=False)
        plan = program.plan(selected, "pid == 5", measures, releases.NEWEST_TESTED,
                                  first_module=2, first_probe=10)
        self.assertEqual([(probe.traced.number, probe.traced.module, probe.traced.name) for probe in plan.probes],
                         [(10, 2, "kv:request"), (11, 2, "kv:tick")])
        self.assertEqual(plan.probes[0].predicate, "pid == 5 && @usdt_on")
        # One printf for the numbers, one per string (bpftrace 0.17's stack): both name the hit by
        # its thread and time, and the string's flags whether its byte after the cut is not NUL.
        (head_format, head_values), (string_format, string_values) = plan.probes[0].record
        self.assertEqual(head_format, "usdt-hit 10 %llu %d %d 0x%lx %llu %llu %lld %d %s")
        self.assertEqual(head_values, '$usdt_time, pid, tid, reg("ip"), arg0, arg1, arg2, '
                                      'strncmp(str(arg1 + 63, 2), "", 1), comm')
        self.assertEqual((string_format, string_values), ("usdt-string %d %llu %s", "tid, $usdt_time, str(arg1, 64)"))
        ((tick_format, _),) = plan.probes[1].record
        self.assertTrue(tick_format.startswith("usdt-hit 11 "), tick_format)
        self.assertEqual((plan.maps, plan.epochs), ((), False))

    def test_arguments_past_the_sixth_for_spans_and_histograms(self):
        # bpftrace 0.17 reads no arg6: the operand the note gives, as the record reads it.
        integers = [(f"a{n}", Kind.INTEGER, 8, True) for n in range(6)]
        start = noted("kv", "late__start", *integers, ("id", Kind.INTEGER, 8, False), ("v", Kind.INTEGER, 4, True),
                      specs="-8@%rdi -8@%rsi -8@%rdx -8@%rcx -8@%r8 -8@%r9 8@%rax -4@-12(%rbp)")
        done = noted("kv", "late__done", *integers, ("id", Kind.INTEGER, 8, False),
                     specs="-8@%rdi -8@%rsi -8@%rdx -8@%rcx -8@%r8 -8@%r9 8@$7")
        module = elf.Module("/bin/app", (start, done))
        selected = program.select(program.describe([module], None), [], "app")
        probes = [traced for _, described in selected for traced, _ in described]
        measures = program.Measures(lines=False, records=False, count=False,
                                    spans=[spans.make_span(0, "kv:late__start", "kv:late__done", None, probes)],
                                    histograms=[spans.parse_histogram(1, "kv:late__start:v", probes)])
        old, new = (program.plan(selected, "", measures, release).probes
                    for release in (releases.Release((0, 17, 0)), releases.NEWEST_TESTED))
        self.assertEqual((old[0].starts, old[0].histograms, old[1].dones),
                         (((0, '(uint64)reg("ax")'),), ((1, '*(int32*)(reg("bp") - 12)', True),), ((0, "(uint64)7"),)))
        self.assertEqual((new[0].starts, new[0].histograms, new[1].dones),
                         (((0, "arg6"),), ((1, "arg7", True),), ((0, "arg6"),)))

    def test_an_argument_the_program_cannot_read_for_a_span(self):
        integers = [(f"a{n}", Kind.INTEGER, 8, True) for n in range(6)]
        start = noted("kv", "late__start", *integers, ("id", Kind.INTEGER, 8, False),
                      specs="-8@%rdi -8@%rsi -8@%rdx -8@%rcx -8@%r8 -8@%r9 8@%xmm0")
        selected = program.select(program.describe([elf.Module("/bin/app", (start,))], None), [], "app")
        probes = [traced for _, described in selected for traced, _ in described]
        measures = program.Measures(lines=False, records=False, count=False,
                                    histograms=[spans.parse_histogram(0, "kv:late__start:id", probes)])
        with self.assertRaises(ToolError) as caught:
            quietly(program.plan, selected, "", measures, releases.Release((0, 17, 0)))
        self.assertEqual(str(caught.exception), "--histogram: bpftrace 0.17.0 cannot read kv:late__start's id "
                                                "(argument 7; see the warning above)")

    def test_the_program_prints_records_for_bpftrace_f_json(self):
        # Lines too are printed by usdt from the records (hits.text_line), not by bpftrace.
        selected = program.select(program.describe([APP], None), ["kv:request"], "app")
        plan = program.plan(selected, "", program.Measures(lines=True, records=False, count=False),
                                  releases.NEWEST_TESTED)
        text = program.program(plan, "READY")
        self.assertIn('printf("usdt-hit 0 %llu %d %d 0x%lx %llu %llu %lld %d %s",', text)
        self.assertIn('printf("usdt-string %d %llu %s",', text)
        self.assertNotIn("pid=%d", text)
        self.assertIn('usdt:"/bin/app":kv:request /@usdt_on/', text)
        self.assertIn('printf("READY %lld\\n", nsecs);', text)
        self.assertIn(summaries.MAPS_START, text)


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
