"""What `usdt trace` does differently for each bpftrace release (usdttool/bpftrace/releases.py),
and the probes it leaves out whatever the release (bpftrace/program.py), without bpftrace: the
versions and notes are written here. tool.bpftrace_releases runs the real releases.
"""

import contextlib
import io
import re
import tempfile
import unittest
from pathlib import Path

import usdt_testing

from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument
from usdttool.answers import spans
from usdttool.bpftrace import program, releases
from usdttool.files import elf, probe_notes
from usdttool.errors import ToolError

RELEASE_017 = releases.Release((0, 17, 0))
RELEASE_023 = releases.Release((0, 23, 2))
RELEASE_027 = releases.Release((0, 27, 1))


class VersionTest(unittest.TestCase):
    def test_what_bpftrace_version_prints(self):
        for text, version in (("bpftrace v0.17.0\n", (0, 17, 0)), ("bpftrace v0.23.2\n", (0, 23, 2)),
                              ("bpftrace v0.27.1\n", (0, 27, 1)), ("bpftrace v0.20.0-dirty\n", (0, 20, 0)),
                              ("bpftrace 0.9\n", (0, 9, 0))):
            with self.subTest(text=text):
                self.assertEqual(releases.parse_version(text).version, version)
        self.assertIsNone(releases.parse_version("bpftrace\n"))

    def installed(self, printed: str):
        with tempfile.TemporaryDirectory() as directory:
            fake = Path(directory) / "bpftrace"
            fake.write_text(f"#!/bin/sh\necho '{printed}'\n")
            fake.chmod(0o755)
            return releases.installed_release(str(fake)), str(fake)

    def test_the_minimum(self):
        self.assertEqual(self.installed("bpftrace v0.17.0")[0], RELEASE_017)
        with self.assertRaises(ToolError) as raised:
            self.installed("bpftrace v0.16.0")
        self.assertRegex(str(raised.exception), r"^usdt trace needs bpftrace 0\.17 or newer, and \S+/bpftrace is 0\.16\.0$")


class AttachPointTest(unittest.TestCase):
    def test_quoting(self):
        path = '/a b/"q"/back\\slash/libstdc++.so.6'
        self.assertEqual(RELEASE_017.attach_point_path(path), '"/a b/\\"q\\"/back\\\\\\\\slash/libstdc++.so.6"')
        self.assertEqual(RELEASE_023.attach_point_path(path), RELEASE_017.attach_point_path(path))
        self.assertEqual(RELEASE_027.attach_point_path(path), '"/a b/\\"q\\"/back\\\\slash/libstdc++.so.6"')

    def test_a_process_s_view_of_the_path_for_0_27_s_pid(self):
        self.assertEqual(RELEASE_027.attach_point_path("/usr/bin/app", 42), '"/proc/42/root/usr/bin/app"')
        self.assertEqual(RELEASE_023.attach_point_path("/usr/bin/app", 42), '"/usr/bin/app"')

    def test_paths_no_release_takes(self):
        for path in ("/a:b/app", "/a*/app", "/a\nb/app"):
            self.assertFalse(releases.attachable(path), path)
        self.assertTrue(releases.attachable("/a b/'q'/app"))


class NoiseTest(unittest.TestCase):
    def test_lines_that_say_nothing_to_a_user(self):
        for line in ("Attaching 3 probes...\n", "Attached 3 probes\n", "Attached 1 probe\n",
                     "WARNING: Could not read functions from /sys/kernel/debug/tracing/available_filter_functions. "
                     "If this is expected, use --traceable-functions to set this path manually.\n",
                     'WARNING: Unknown error -1: couldn\'t set RLIMIT_MEMLOCK for bpftrace.\n',
                     "Lost 95646 events\n", "WARNING: Total lost event count: 95646\n"):
            self.assertTrue(releases.is_noise(line), line)
        for line in ("ERROR: Unable to attach probe: usdt:/app:p:q\n", "12 pid=1 tid=1 p:q\n",
                     "Attaching is hard\n"):
            self.assertFalse(releases.is_noise(line), line)


class NewKeyCountTest(unittest.TestCase):
    """bpftrace 0.20 to 0.23 lose a count of a key that two CPUs add to a map at once (BPF_NOEXIST):
    there the program adds each key with sum(0) before it counts with sum(1). What it loses and
    that the workaround keeps it: tool.trace_answers_releases, LiveTest.test_keys_every_cpu_counts_at_once."""

    def program(self, release: releases.Release) -> str:
        module = elf.Module("/bin/app", (probe("kv", "request__start", "8@%rax"), probe("kv", "request__done", "8@%rax"),
                                         probe("kv", "value", "-8@%rdx")))
        selected = program.select(program.describe([module], None), [], "app")
        probes = [traced for _, described in selected for traced, _ in described]
        measures = program.Measures(
            lines=False, records=False, count=True, interval=1,
            spans=[spans.make_span(0, "kv:request__start", "kv:request__done", spans.THREAD, probes)],
            histograms=[spans.parse_histogram(1, "kv:value:arg0", probes)])
        return program.program(program.plan(selected, "", measures, release), "READY")

    def test_the_releases_that_lose_one(self):
        for version, loses in (((0, 17, 0), False), ((0, 20, 0), True), ((0, 23, 2), True), ((0, 24, 0), False),
                               ((0, 27, 1), False)):
            self.assertEqual(releases.Release(version).loses_a_count_of_a_new_key, loses, version)

    def test_every_count_adds_its_key_first(self):
        counts = re.findall(r"(?m)^ *(@\w+\[.*\]) = count\(\);$", self.program(RELEASE_017))
        # Hits of 3 probes, unmatched dones, overlapping starts, and buckets: the span's, and
        # the histogram's negative and positive values.
        self.assertEqual(len(counts), 8, counts)
        program = self.program(RELEASE_023)
        self.assertEqual(program.count("count()"), 0)
        added = re.findall(r"(?m)^( *)(@\w+\[.*\]) = sum\(0\);\n\1\2 = sum\(1\);$", program)
        self.assertEqual([entry for _, entry in added], counts)
        self.assertEqual(program.count("sum("), 2 * len(counts))
        self.assertEqual(self.program(RELEASE_027), self.program(RELEASE_017))


def probe(provider: str, name: str, *specs: str) -> probe_notes.Probe:
    arguments = probe_notes.parse_arguments(" ".join(specs)) if specs else ()
    return probe_notes.Probe(provider, name, tuple(TracerArgument(index, f"arg{index}", spec.type_name, Kind.INTEGER,
                                                                  spec.size, spec.signed)
                                                   for index, spec in enumerate(arguments)),
                             (probe_notes.Site(0x1000, 0, arguments),), 0, None)


class UnreadableArgumentTest(unittest.TestCase):
    """glibc's memory_* probes pass values at a symbol's address: bcc reads a wrong value there,
    libbpf refuses to attach, and the trace failed whole."""

    def test_operands_at_a_symbol(self):
        self.assertEqual(program._symbol_operand(probe("libc", "m", "8@%rax", "8@136+mp_(%rip)")),
                         "8@136+mp_(%rip)")
        self.assertEqual(program._symbol_operand(probe("p", "q", "-8@tunables(%rip)")), "-8@tunables(%rip)")
        for specs in (("-4@%edi", "8@-0x18(%rbp)", "4@$5", "8@(%rax,%rdx,8)"), ("8@[sp, 40]", "4@x0")):
            self.assertEqual(program._symbol_operand(probe("p", "q", *specs)), "", specs)

    def test_left_out_with_a_warning(self):
        module = elf.Module("/lib/libc.so.6", (probe("libc", "memory_mallopt", "8@128+mp_(%rip)"),
                                               probe("libc", "setjmp", "8@%rdi")))
        described = program.describe([module], None)
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            kept = program.leave_out_unreadable(described)
        warning = stderr.getvalue()
        self.assertEqual([probe.name for _, probes in kept for probe, _ in probes], ["setjmp"])
        self.assertEqual(warning, "usdt: warning: /lib/libc.so.6: libc:memory_mallopt: left out: bpftrace "
                                  "cannot read an argument at a symbol's address (8@128+mp_(%rip))\n")


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
