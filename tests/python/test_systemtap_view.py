"""Unit tests of usdtgen.systemtap_view: the line per hit that provider.stp.j2 prints, as
SystemTap's printf format and arguments."""

import unittest

import usdt_testing
from usdtgen import model, systemtap_view
from usdtgen.parser import parse


def probe(text):
    """The only probe of a one-probe provider file, as a tracer sees it (model.Probe.traced)."""
    (only,) = model.build(parse(text, "t.d"), "t.d", "t.d").probes
    return only.traced()


class PrintfTest(unittest.TestCase):
    def test_every_kind_numbered_from_arg1(self):
        every_kind = probe("provider p { probe x(int8_t small, uint64_t big, bool on, const char *path, "
                           "struct req *request, string name); };")
        # user_string_quoted() adds the quotes a string prints with.
        self.assertEqual(systemtap_view.systemtap_printf_format(every_kind),
                         "%d pid=%d tid=%d p:x small=%d big=%u on=%s path=%s request=0x%x name=%s\\n")
        self.assertEqual(systemtap_view.systemtap_printf_arguments(every_kind),
                         'ktime_get_ns(), pid(), tid(), $arg1, $arg2, $arg3 ? "true" : "false", '
                         "user_string_quoted($arg4), $arg5, user_string_quoted($arg6)")

    def test_every_argument_is_read(self):
        # Unlike bpftrace 0.17, SystemTap reads all twelve.
        twelve = probe("provider p { probe x(" + ", ".join(f"int a{n}" for n in range(12)) + "); };")
        self.assertTrue(systemtap_view.systemtap_printf_format(twelve).endswith(" a11=%d\\n"))
        self.assertTrue(systemtap_view.systemtap_printf_arguments(twelve).endswith(", $arg11, $arg12"))

    def test_no_arguments_and_names_as_declared(self):
        self.assertEqual(systemtap_view.systemtap_printf_format(probe("provider p { probe request__done(); };")),
                         "%d pid=%d tid=%d p:request__done\\n")
        self.assertEqual(systemtap_view.systemtap_printf_arguments(probe("provider p { probe x(); };")),
                         "ktime_get_ns(), pid(), tid()")
        self.assertEqual(systemtap_view.systemtap_printf_format(probe("provider p { probe x(int class, short); };")),
                         "%d pid=%d tid=%d p:x class=%d arg1=%d\\n")

    def test_filters(self):
        self.assertEqual(sorted(systemtap_view.FILTERS), ["systemtap_printf_arguments", "systemtap_printf_format"])


if __name__ == "__main__":
    usdt_testing.main()
