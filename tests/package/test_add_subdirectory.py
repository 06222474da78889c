"""A consumer that builds usdt with add_subdirectory: it configures, builds, runs, has its probes.

The consumer is add_subdirectory/ next to this file. usdt is not the top-level project
there, so usdt's tests and install rules must stay off.
"""

import unittest
from pathlib import Path

import package_support as package
import usdt_testing

CONSUMER = Path(__file__).with_name("add_subdirectory")


class AddSubdirectoryConsumerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        setup = package.SETUP
        cls.build = setup.work_dir / "build"
        package.configure(CONSUMER, cls.build, f"USDT_SOURCE_DIR={setup.source_dir}")
        package.build(cls.build)

    def test_runs(self):
        result = package.run([self.build / "greeter", "Ada", "Grace"])
        self.assertEqual(result.stdout, "hello, Ada\nhello, Grace\n")

    def test_has_the_providers_probes(self):
        notes = package.stapsdt_notes(self.build / "greeter")
        self.assertEqual(sorted((provider, name, package.argument_sizes(arguments))
                                for provider, name, arguments in notes),
                         [("greeter", "done", "4"), ("greeter", "greeting", "-4 8")])

    def test_usdt_adds_no_tests_and_no_install_rules(self):
        self.assertEqual(package.cache_value(self.build, "USDT_BUILD_TESTS"), "OFF")
        self.assertEqual(package.cache_value(self.build, "USDT_INSTALL"), "OFF")
        self.assertFalse((self.build / "usdt" / "tests").exists())
        prefix = package.SETUP.work_dir / "prefix"
        package.run([package.SETUP.cmake, "--install", self.build, "--prefix", prefix])
        installed = sorted(prefix.rglob("*")) if prefix.exists() else []
        self.assertEqual(installed, [])


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
