"""meson/: a Meson build using find_program('dtrace') and a generator each for -h and -G,
set up and compiled with nothing changed but PATH (usdt's <prefix>/libexec/usdt/bin first).

Meson must have found usdt's dtrace, not a system one; ninja may run both generators at once.
The program, which fires its probes through the generated C++ API, built with Meson's
warning_level=3 and werror, is checked as every drop-in build's is.
"""

import unittest

from dropin_support import TracedProgramChecks
import dropin_support as dropin
import package_support as package
import usdt_testing


class MesonProjectTest(TracedProgramChecks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        checkout = dropin.check_out("meson", "meson", "ninja")
        cls.prefix = checkout.prefix
        environment = dropin.build_environment([dropin.path_directory(cls.prefix)])
        cls.setup_output = package.run(["meson", "setup", checkout.build, checkout.source],
                                       environment=environment).stdout
        package.run(["meson", "compile", "-C", checkout.build], environment=environment)
        cls.program = checkout.build / "app"
        (cls.header,) = checkout.build.glob("**/probes.h")

    def test_meson_found_usdts_dtrace_on_path(self):
        self.assertIn(f"Program dtrace found: YES ({dropin.path_directory(self.prefix) / 'dtrace'})",
                      self.setup_output)


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
