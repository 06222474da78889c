"""Unit tests of usdtgen.bpftrace_view: the line per hit that provider.bt.j2 prints, as
bpftrace's printf format and arguments."""

import unittest

import usdt_testing
from usdtgen import bpftrace_view, model
from usdtgen.parser import parse


def probe(text):
    """The only probe of a one-probe provider file, as a tracer sees it (model.Probe.traced)."""
    (only,) = model.build(parse(text, "t.d"), "t.d", "t.d").probes
    return only.traced()


EVERY_KIND = probe("provider p { probe x(int8_t small, uint64_t big, bool on, const char *path, "
                   "struct req *request, string name); };")
NO_STRINGS = probe("provider p { probe x(int n); };")
EIGHT = probe("provider p { probe eight(int a, int b, int c, int d, int e, int f, long g, char *h); };")


class PrintfTest(unittest.TestCase):
    def test_every_kind_prints_whole_with_its_signedness(self):
        # %d would print only the low 32 bits of what bpftrace hands printf.
        self.assertEqual(bpftrace_view.bpftrace_printf_format(EVERY_KIND),
                         '%llu pid=%d tid=%d p:x small=%lld big=%llu on=%s path=\\"%s\\" request=0x%lx '
                         'name=\\"%s\\"\\n')
        self.assertEqual(bpftrace_view.bpftrace_printf_arguments(EVERY_KIND),
                         'nsecs, pid, tid, arg0, arg1, arg2 ? "true" : "false", str(arg3), arg4, str(arg5)')

    def test_no_arguments(self):
        empty = probe("provider p { probe request__done(); };")
        self.assertEqual(bpftrace_view.bpftrace_printf_format(empty), "%llu pid=%d tid=%d p:request__done\\n")
        self.assertEqual(bpftrace_view.bpftrace_printf_arguments(empty), "nsecs, pid, tid")

    def test_names_as_declared_and_unnamed_arguments(self):
        # The line names what the .d file says (`class`, not the C++ API's `class_`), argN for none.
        named = probe("provider p { probe x(int class, long); };")
        self.assertEqual(bpftrace_view.bpftrace_printf_format(named), "%llu pid=%d tid=%d p:x class=%lld arg1=%lld\\n")

    def test_arguments_past_the_sixth_print_as_unread(self):
        # bpftrace 0.17 reads arg0..arg5 only.
        self.assertEqual(bpftrace_view.bpftrace_printf_format(EIGHT),
                         "%llu pid=%d tid=%d p:eight a=%lld b=%lld c=%lld d=%lld e=%lld f=%lld g=? h=?\\n")
        self.assertEqual(bpftrace_view.bpftrace_printf_arguments(EIGHT),
                         "nsecs, pid, tid, arg0, arg1, arg2, arg3, arg4, arg5")

    def test_six_strings_in_one_printf(self):
        # Perl's sub__entry has three strings; six str() of 64 bytes still fit 0.17's BPF stack
        # (tests/scripts loads such a line).
        six = probe("provider p { probe x(char *a, char *b, char *c, char *d, char *e, char *f, char *g); };")
        self.assertEqual(bpftrace_view.bpftrace_printf_arguments(six),
                         "nsecs, pid, tid, str(arg0), str(arg1), str(arg2), str(arg3), str(arg4), str(arg5)")
        self.assertTrue(bpftrace_view.bpftrace_printf_format(six).endswith(' f=\\"%s\\" g=?\\n'))


class FilterTest(unittest.TestCase):
    def test_every_filter_the_templates_use_is_a_public_function(self):
        self.assertEqual(sorted(bpftrace_view.FILTERS), ["bpftrace_printf_arguments", "bpftrace_printf_format"])


if __name__ == "__main__":
    usdt_testing.main()
