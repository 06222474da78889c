"""Unit tests of usdtgen.tracer_probe: a probe as a tracer sees it, as the generator's model
maps a declared probe to it (model.Probe.traced). usdttool's ELF reader maps a binary's notes
to it too (test_probe_notes.py)."""

import unittest

import usdt_testing
from usdtgen import model
from usdtgen.notes import Kind
from usdtgen.parser import parse
from usdtgen.tracer_probe import TracerArgument, TracerProbe


def declared(text):
    (probe,) = model.build(parse(text, "t.d"), "t.d", "t.d").probes
    return probe


class DeclaredProbeTest(unittest.TestCase):
    def test_names_and_types_as_the_file_writes_them(self):
        traced = declared("provider app { probe request__start(uint64_t id, const char *path, bool hit,"
                          " struct req *r, int8_t delta); };").traced()
        self.assertEqual(traced, TracerProbe("app", "request__start", (
            TracerArgument(0, "id", "uint64_t", Kind.INTEGER, 8, False),
            TracerArgument(1, "path", "const char *", Kind.STRING, 8, False),
            TracerArgument(2, "hit", "bool", Kind.BOOLEAN, 1, False),
            TracerArgument(3, "r", "struct req *", Kind.POINTER, 8, False),
            TracerArgument(4, "delta", "int8_t", Kind.INTEGER, 1, True))))
        self.assertEqual(traced.full_name, "app:request__start")

    def test_a_keyword_name_stays_as_declared(self):
        # The C++ API calls it class_; the notes and the tracers, class.
        probe = declared("provider app { probe delete(int class, long); };")
        self.assertEqual([argument.name for argument in probe.arguments], ["class_", "arg1"])
        self.assertEqual([argument.name for argument in probe.traced().arguments], ["class", "arg1"])
        self.assertEqual(probe.traced().name, "delete")

    def test_pointer_sized_arguments_take_the_modules_pointer_size(self):
        probe = declared("provider app { probe x(long a, size_t b, char *c, int d, int64_t e); };")
        self.assertEqual([(argument.size, argument.signed) for argument in probe.traced(4).arguments],
                         [(4, True), (4, False), (4, False), (4, True), (8, True)])
        self.assertEqual([argument.size for argument in probe.traced(8).arguments], [8, 8, 8, 4, 8])
        self.assertEqual(probe.traced(), probe.traced(8))

    def test_a_probe_without_arguments(self):
        self.assertEqual(declared("provider app { probe tick(); };").traced(), TracerProbe("app", "tick", ()))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
