"""meson_dependency/: a Meson project that finds the installed usdt with
`dependency('usdt', method: 'cmake')` and with `method: 'pkg-config'`, given only the prefix
(Meson's cmake_prefix_path and pkg_config_path), and builds a program with each that includes
usdt/usdt.h from that prefix. Meson takes the CMake target usdt::usdt when given no
`modules:`; without it, setup failed ("failed to guess a CMake target for usdt"). The prefix
moved since its install (the fixture usdt_installed), so Meson's pkg-config is
`pkg-config --define-prefix`, which takes the prefix from usdt.pc's directory.
"""

import json
import os
import shlex
import unittest

import package_support as package
import usdt_testing

TOOLS = {"meson": "meson", "ninja": "ninja-build", "pkg-config": "pkg-config"}


class MesonDependencyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = [reason for reason in (usdt_testing.tracer_unavailable_reason(tool, False, debian)
                                         for tool, debian in TOOLS.items()) if reason]
        if missing:
            if usdt_testing.tracers_required():
                raise AssertionError(f"USDT_REQUIRE_TRACERS=1 but {'; '.join(missing)}")
            raise unittest.SkipTest("; ".join(missing))
        cls.prefix = package.installed_usdt()
        cls.build = package.SETUP.work_dir / "build"
        source = package.SETUP.source_dir / "tests" / "package" / "meson_dependency"
        # Meson's CMake method runs the cmake on PATH: the one CTest runs.
        environment = {**os.environ,
                       "PATH": f"{os.path.dirname(package.SETUP.cmake)}{os.pathsep}{os.environ['PATH']}"}
        environment.pop("PKG_CONFIG_PATH", None)
        environment["PKG_CONFIG"] = "pkg-config --define-prefix"
        environment.pop("CMAKE_PREFIX_PATH", None)
        result = package.run(["meson", "setup", cls.build, source, f"-Dcmake_prefix_path={cls.prefix}",
                              f"-Dpkg_config_path={cls.prefix / 'share' / 'pkgconfig'}"],
                             environment=environment, cwd=package.SETUP.work_dir)
        cls.setup_output = result.stdout + result.stderr
        package.run(["meson", "compile", "-C", cls.build], environment=environment)

    def test_setup_finds_usdt_both_ways_without_a_warning(self):
        self.assertEqual(self.setup_output.count("Run-time dependency usdt found: YES"), 2, self.setup_output)
        # Meson 1.12 with CMake 4.3 (Debian unstable) warns of `$<CONFIG:Debug>`, an expression no
        # file of usdt's holds (CMake's own defaults have it): any other warning is usdt's.
        warnings = [line for line in self.setup_output.splitlines()
                    if "WARNING" in line and line != "WARNING: Unknown generator expression '$<CONFIG:Debug>'."]
        self.assertEqual(warnings, [], self.setup_output)

    def test_each_program_includes_the_installed_header(self):
        commands = json.loads((self.build / "compile_commands.json").read_text())
        self.assertEqual(len(commands), 2)
        for command in commands:
            with self.subTest(output=command["output"]):
                include_directories = {os.path.normpath(os.path.join(command["directory"], word[2:]))
                                       for word in shlex.split(command["command"]) if word.startswith("-I")}
                self.assertIn(str(self.prefix / "share/usdt/runtime/include"), include_directories)

    def test_each_program_runs(self):
        for program in ("through_cmake", "through_pkg_config"):
            with self.subTest(program=program):
                self.assertRegex(package.run([self.build / program]).stdout, r"^usdt ABI \d+\n$")


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
