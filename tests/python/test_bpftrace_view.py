"""Unit tests of usdtgen.bpftrace_view: the line per hit that provider.bt.j2 prints, as bpftrace's
printf formats and arguments, in one printf or several."""

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


def only_printf(traced):
    """The one printf statement (format, arguments) of a probe's line."""
    (statement,) = bpftrace_view.bpftrace_printf_statements(traced)
    return statement


class PrintfTest(unittest.TestCase):
    def test_every_kind_prints_whole_with_its_signedness(self):
        # %d would print only the low 32 bits of what bpftrace hands printf.
        self.assertEqual(only_printf(EVERY_KIND), (
            '%llu pid=%d tid=%d p:x small=%lld big=%llu on=%s path=\\"%s\\" request=0x%lx name=\\"%s\\"\\n',
            'nsecs, pid, tid, arg0, arg1, arg2 ? "true" : "false", str(arg3), arg4, str(arg5)'))

    def test_no_arguments(self):
        empty = probe("provider p { probe request__done(); };")
        self.assertEqual(only_printf(empty), ("%llu pid=%d tid=%d p:request__done\\n", "nsecs, pid, tid"))
        self.assertEqual(only_printf(NO_STRINGS), ("%llu pid=%d tid=%d p:x n=%lld\\n", "nsecs, pid, tid, arg0"))

    def test_names_as_declared_and_unnamed_arguments(self):
        # The line names what the .d file says (`class`, not the C++ API's `class_`), argN for none.
        named = probe("provider p { probe x(int class, long); };")
        self.assertEqual(only_printf(named)[0], "%llu pid=%d tid=%d p:x class=%lld arg1=%lld\\n")

    def test_arguments_past_the_sixth_print_as_unread(self):
        # bpftrace 0.17 reads arg0..arg5 only.
        self.assertEqual(only_printf(EIGHT), (
            "%llu pid=%d tid=%d p:eight a=%lld b=%lld c=%lld d=%lld e=%lld f=%lld g=? h=?\\n",
            "nsecs, pid, tid, arg0, arg1, arg2, arg3, arg4, arg5"))


class StatementsTest(unittest.TestCase):
    """bpftrace 0.17 builds a printf's arguments on its 512-byte stack: a line with three strings
    or more is printed by several printfs, two strings each at most; only the last ends the line."""

    def test_three_strings_and_more_split(self):
        # Perl's sub__entry: three strings and an int.
        sub_entry = probe("provider perl { probe sub__entry(char *sub, char *file, int line, char *package); };")
        self.assertEqual(bpftrace_view.bpftrace_printf_statements(sub_entry), [
            ('%llu pid=%d tid=%d perl:sub__entry sub=\\"%s\\" file=\\"%s\\" line=%lld',
             "nsecs, pid, tid, str(arg0), str(arg1), arg2"),
            (' package=\\"%s\\"\\n', "str(arg3)")])
        five = probe("provider p { probe x(char *a, char *b, char *c, char *d, char *e); };")
        self.assertEqual([values for _, values in bpftrace_view.bpftrace_printf_statements(five)],
                         ["nsecs, pid, tid, str(arg0), str(arg1)", "str(arg2), str(arg3)", "str(arg4)"])

    def test_arguments_past_the_sixth_print_as_unread_on_the_last(self):
        twelve = probe("provider p { probe x(char *a, char *b, char *c, int d, int e, int f, char *g, int h, "
                       "int i, int j, int k, char *l); };")
        (_, first), (last, values) = bpftrace_view.bpftrace_printf_statements(twelve)
        self.assertEqual(first, "nsecs, pid, tid, str(arg0), str(arg1)")
        self.assertEqual((last, values), (' c=\\"%s\\" d=%lld e=%lld f=%lld g=? h=? i=? j=? k=? l=?\\n',
                                          "str(arg2), arg3, arg4, arg5"))


class FilterTest(unittest.TestCase):
    def test_every_filter_the_templates_use_is_a_public_function(self):
        self.assertEqual(sorted(bpftrace_view.FILTERS), sorted(
            ["bpftrace_printf_statements"]))


if __name__ == "__main__":
    usdt_testing.main()
