"""The README's install recipe on a machine without doctest.

`cmake -S . -B build && cmake --build build && cmake --install build --prefix PREFIX`, run in
the source tree with doctest hidden (CMAKE_DISABLE_FIND_PACKAGE_doctest), the build directory
and prefix in this test's scratch directory: it configures with one warning saying the tests
are off and how to turn them on, builds no test, installs the package, and configuring again
stays quiet. Asking for the tests (-DUSDT_BUILD_TESTS=ON) without doctest stops the configure
step with one error naming what to install.
"""

import subprocess
import unittest

import package_support as package
import usdt_testing

WITHOUT_DOCTEST = "-DCMAKE_DISABLE_FIND_PACKAGE_doctest=ON"


def recipe_step(*arguments, expect_status=0):
    """cmake `arguments`, run in the source tree as the README runs them; stdout and stderr."""
    command = [package.SETUP.cmake, *map(str, arguments)]
    result = subprocess.run(command, cwd=package.SETUP.source_dir, capture_output=True, text=True)
    output = result.stdout + result.stderr
    if result.returncode != expect_status:
        raise AssertionError(f"{' '.join(command)}\nexited {result.returncode}, expected {expect_status}\n{output}")
    return output


class ReadmeInstallTest(unittest.TestCase):
    def setUp(self):
        self.build = package.SETUP.work_dir / self.id().rsplit(".", 1)[-1] / "build"
        self.prefix = self.build.parent / "prefix"

    def test_recipe_configures_builds_and_installs_with_tests_off(self):
        output = recipe_step("-S", ".", "-B", self.build, WITHOUT_DOCTEST)
        self.assertEqual(output.count("CMake Warning"), 1, output)
        self.assertRegex(" ".join(output.split()),
                         r"usdt: tests are off because doctest is missing; install it \(Debian: doctest-dev\) "
                         r"and configure with -DUSDT_BUILD_TESTS=ON to build them\.")
        self.assertEqual(package.cache_value(self.build, "USDT_BUILD_TESTS"), "OFF")
        self.assertFalse((self.build / "tests" / "runtime").exists(), "no test layer is configured")

        recipe_step("--build", self.build)
        recipe_step("--install", self.build, "--prefix", self.prefix)
        self.assertEqual(len(list(self.prefix.rglob("usdtConfig.cmake"))), 1)
        self.assertTrue((self.prefix / "bin" / "usdt-dtrace").is_file())

        # The tests stay off, now the cache's choice, without another warning.
        self.assertNotIn("CMake Warning", recipe_step("-S", ".", "-B", self.build, WITHOUT_DOCTEST))

    def test_tests_asked_for_without_doctest_are_an_error(self):
        output = recipe_step("-S", ".", "-B", self.build, WITHOUT_DOCTEST, "-DUSDT_BUILD_TESTS=ON", expect_status=1)
        self.assertEqual(output.count("CMake Error"), 1, output)
        self.assertRegex(" ".join(output.split()),
                         r"usdt: USDT_BUILD_TESTS is ON but doctest is missing; install it \(Debian: "
                         r"apt-get install doctest-dev, .*\) or configure with -DUSDT_BUILD_TESTS=OFF\.")


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
