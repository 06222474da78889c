"""Unit tests of usdtgen.bpftrace_view: the line per hit that provider.bt.j2 and usdt trace's
trace.bt.j2 print, as bpftrace's printf format and arguments, and the marked line of a hit
whose string read as ""."""

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

    def test_held_strings_print_the_variable_read_once(self):
        self.assertEqual(bpftrace_view.bpftrace_printf_arguments(EVERY_KIND, held_strings=True),
                         'nsecs, pid, tid, arg0, arg1, arg2 ? "true" : "false", $string3, arg4, $string5')


class UnreadStringTest(unittest.TestCase):
    def test_string_arguments_are_the_ones_bpftrace_reads(self):
        self.assertEqual([argument.name for argument in bpftrace_view.bpftrace_string_arguments(EVERY_KIND)],
                         ["path", "name"])
        # h, a string, is the eighth argument: bpftrace never reads it.
        self.assertEqual(bpftrace_view.bpftrace_string_arguments(EIGHT), [])
        self.assertEqual(bpftrace_view.bpftrace_string_arguments(NO_STRINGS), [])

    def test_condition_a_non_null_pointer_read_as_empty(self):
        self.assertEqual(bpftrace_view.bpftrace_unread_condition(EVERY_KIND),
                         '(arg3 != 0 && strncmp($string3, "", 1) == 0) || '
                         '(arg5 != 0 && strncmp($string5, "", 1) == 0)')

    def test_marked_line_the_probe_address_then_each_unread_pointer(self):
        self.assertEqual(bpftrace_view.bpftrace_unread_format(EVERY_KIND), "0x%lx 0x%lx 0x%lx")
        self.assertEqual(bpftrace_view.bpftrace_unread_arguments(EVERY_KIND),
                         'reg("ip"), strncmp($string3, "", 1) == 0 ? arg3 : 0, '
                         'strncmp($string5, "", 1) == 0 ? arg5 : 0')

    def test_probe_without_strings_marks_only_its_address(self):
        self.assertEqual(bpftrace_view.bpftrace_unread_format(NO_STRINGS), "0x%lx")
        self.assertEqual(bpftrace_view.bpftrace_unread_arguments(NO_STRINGS), 'reg("ip")')


class FilterTest(unittest.TestCase):
    def test_every_filter_the_templates_use_is_a_public_function(self):
        self.assertEqual(sorted(bpftrace_view.FILTERS), sorted(
            ["bpftrace_printf_format", "bpftrace_printf_arguments", "bpftrace_string_arguments",
             "bpftrace_string_variable", "bpftrace_unread_condition", "bpftrace_unread_format",
             "bpftrace_unread_arguments"]))
        self.assertEqual(bpftrace_view.FILTERS["bpftrace_string_variable"](EVERY_KIND.arguments[3]), "$string3")


if __name__ == "__main__":
    usdt_testing.main()
