"""Unit tests of usdtgen.perf_view: the events `perf probe` makes of the notes, as
provider.perf.sh.j2 adds, deletes and describes them."""

import unittest

import usdt_testing
from usdtgen import model, perf_view
from usdtgen.parser import parse


def provider_file(text):
    return model.build(parse(text, "t.d"), "t.d", "t.d")


FILE = provider_file("provider myapp { probe request__start(uint64_t id, const char *path); probe tick(); };\n"
                     "provider other { probe x(int class, struct req *); };")
# The probes as a tracer sees them (model.Probe.traced), which the view prints.
START, TICK, X = (probe.traced() for probe in FILE.probes)


class EventTest(unittest.TestCase):
    def test_event_and_group_are_sdt_provider(self):
        self.assertEqual(perf_view.perf_event(START), "sdt_myapp:request__start")
        self.assertEqual([perf_view.perf_group(provider) for provider in FILE.providers], ["sdt_myapp", "sdt_other"])

    def test_a_double_underscore_has_perf_7s_name_too(self):
        # perf 7 makes each `__` of a note's name `_`; perf 6 keeps it: --del gets both.
        self.assertEqual(perf_view.perf_event_names(START), ["sdt_myapp:request__start", "sdt_myapp:request_start"])
        self.assertEqual(perf_view.perf_event_names(TICK), ["sdt_myapp:tick"])

    def test_description_numbers_the_arguments_from_arg1(self):
        self.assertEqual(perf_view.perf_event_description(START),
                         "sdt_myapp:request__start arg1=id (uint64_t) arg2=path (const char *)")
        self.assertEqual(perf_view.perf_event_description(TICK), "sdt_myapp:tick")
        # Names as declared, argN for an unnamed one; the type as the .d file writes it.
        self.assertEqual(perf_view.perf_event_description(X), "sdt_other:x arg1=class (int) arg2=arg1 (struct req *)")

    def test_filters(self):
        self.assertEqual(sorted(perf_view.FILTERS),
                         ["perf_event", "perf_event_description", "perf_event_names", "perf_group"])


if __name__ == "__main__":
    usdt_testing.main()
