"""usdt's sys/sdt.h the three ways a build asks for it: usdt::sdt from an installed usdt
(find_package) and from usdt built inside the project (add_subdirectory), and usdt-sdt.pc's
flags (pkg-config, as a Makefile would use them). sdt_consumer/main.c refuses to compile
against any other sys/sdt.h, and its notes are usdt's: register operands, sizes from the types.
"""

import os
import shutil
import unittest
from pathlib import Path

import package_support as package
import usdt_testing

CONSUMER = Path(__file__).with_name("sdt_consumer")
# counter:step(int index, long total), counter:done(a string literal).
SIZES = [("counter", "done", "8"), ("counter", "step", "-4 -8")]


class SdtConsumerTest(unittest.TestCase):
    def check(self, program: Path):
        self.assertEqual(package.run([program]).stdout, "3\n")
        notes = package.stapsdt_notes(program)
        self.assertEqual(sorted((provider, name, package.argument_sizes(arguments))
                                for provider, name, arguments in notes), SIZES)
        for _, _, arguments in notes:
            self.assertRegex(arguments, r"^(-?\d@%[a-z0-9]+ ?)+$")

    def test_find_package(self):
        build = package.SETUP.work_dir / "find_package"
        package.configure(CONSUMER, build, f"CMAKE_PREFIX_PATH={package.installed_usdt()}")
        package.build(build)
        self.check(build / "counter")

    def test_add_subdirectory(self):
        build = package.SETUP.work_dir / "add_subdirectory"
        package.configure(CONSUMER, build, f"USDT_SOURCE_DIR={package.SETUP.source_dir}")
        package.build(build)
        self.check(build / "counter")

    def test_pkg_config(self):
        if shutil.which("pkg-config") is None:
            self.skipTest("pkg-config is not installed (Debian: apt-get install pkgconf)")
        prefix = package.installed_usdt()
        environment = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "share" / "pkgconfig"))
        flags = package.run(["pkg-config", "--define-prefix", "--cflags", "usdt-sdt"], environment=environment).stdout
        self.assertEqual(flags.split(), [f"-I{prefix}/share/usdt/runtime/include/sdt"])
        program = package.SETUP.work_dir / "pkg_config_counter"
        package.run(["cc", *flags.split(), "-Wall", "-Wextra", "-Werror", CONSUMER / "main.c", "-o", program])
        self.check(program)


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
