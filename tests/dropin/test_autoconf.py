"""autoconf/: a configure script that finds `dtrace` on PATH and probes `dtrace -G` with
`BEGIN{}`, built with nothing changed but PATH (usdt's <prefix>/libexec/usdt/bin first).

`autoconf` makes the configure script in a copy of autoconf/; configure runs in a build
directory of its own (a VPATH build), then `make -j4`. configure must have found usdt's
dtrace and concluded that the build links the -G object; the build must have generated
the header and the object with it, adding no include flag; then the program is checked
as every drop-in build's is (dropin_support.TracedProgramChecks).
"""

import re
import unittest

from dropin_support import TracedProgramChecks
import dropin_support as dropin
import package_support as package
import usdt_testing


class AutoconfProjectTest(TracedProgramChecks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        checkout = dropin.check_out("autoconf", "autoconf", "make")
        cls.prefix, cls.build = checkout.prefix, checkout.build
        environment = dropin.build_environment([dropin.path_directory(cls.prefix)])
        package.run(["autoconf"], environment=environment, cwd=checkout.source)
        cls.configure_output = package.run([checkout.source / "configure"], environment=environment,
                                           cwd=cls.build).stdout
        cls.make_output = package.run(["make", "-j4"], environment=environment, cwd=cls.build).stdout
        cls.makefile = (cls.build / "Makefile").read_text()
        cls.program = cls.build / "app"
        cls.header = cls.build / "probes.h"

    def test_configure_found_usdts_dtrace_on_path(self):
        self.assertIn(f"checking for dtrace... {dropin.path_directory(self.prefix) / 'dtrace'}\n",
                      self.configure_output)
        self.assertRegex(self.makefile, rf"(?m)^DTRACE = {re.escape(str(dropin.path_directory(self.prefix)))}/dtrace$")

    def test_the_feature_probe_concluded_that_the_object_is_linked(self):
        self.assertIn("checking whether dtrace -G makes an object to link... yes\n", self.configure_output)
        self.assertRegex(self.make_output, r"(?m)^.* -o app app\.o probes\.o$")
        self.assertTrue((self.build / "probes.o").exists())

    def test_no_compile_names_usdt(self):
        for line in self.make_output.splitlines():
            if " -c " in line:
                self.assertNotIn(str(self.prefix), line)


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
