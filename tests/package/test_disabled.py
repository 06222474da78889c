"""USDT_DISABLE: probes compile away, _ENABLED() is 0, and arguments are still evaluated once.

disabled/ builds check.c and check.cpp against an installed usdt with -Wall -Wextra
-Wpedantic -Werror, each with USDT_DISABLE (the *_disabled programs) and without it. The
programs count their probe arguments' side effects and the guarded blocks they enter;
the disabled ones also static_assert that _ENABLED() is a compile-time 0. The enabled
builds are the contrast: they have the notes, and under gdb their guard opens.
"""

import unittest
from pathlib import Path

import package_support as package
import usdt_testing

PROJECT = Path(__file__).with_name("disabled")
FLAGS = "-Wall -Wextra -Wpedantic -Werror"
# check.c evaluates 3 side-effecting arguments, check.cpp 4 (see the sources).
EXPECTED_OUTPUT = {
    "check_c": "have_probes=1 evaluations=3 enabled=0 guarded_blocks=0\n",
    "check_c_disabled": "have_probes=0 evaluations=3 enabled=0 guarded_blocks=0\n",
    "check_cxx": "have_probes=1 evaluations=4 enabled=0 guarded_blocks=0\n",
    "check_cxx_disabled": "have_probes=0 evaluations=4 enabled=0 guarded_blocks=0\n",
}
PROBE_SECTIONS = {".note.stapsdt", ".note.usdt", ".stapsdt.base", ".probes"}
# Semaphores are defined alike with and without USDT_DISABLE, so that units built either way
# agree on them in one program: a disabled program keeps them, and nothing else.
DISABLED_SECTIONS = {".probes"}


class DisabledProbesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        setup = package.SETUP
        prefix = package.installed_usdt()
        cls.build = setup.work_dir / "build"
        package.configure(PROJECT, cls.build, f"CMAKE_PREFIX_PATH={prefix}",
                          f"CMAKE_C_FLAGS={FLAGS}", f"CMAKE_CXX_FLAGS={FLAGS}")
        package.build(cls.build)

    def test_arguments_are_evaluated_once_and_guards_stay_closed(self):
        for program, expected in EXPECTED_OUTPUT.items():
            with self.subTest(program=program):
                self.assertEqual(package.run([self.build / program]).stdout, expected)

    def test_disabled_programs_have_no_probe_sections_but_the_semaphores(self):
        for program in ("check_c_disabled", "check_cxx_disabled"):
            with self.subTest(program=program):
                self.assertEqual(PROBE_SECTIONS & set(package.section_names(self.build / program)),
                                 DISABLED_SECTIONS)
                self.assertEqual(package.stapsdt_notes(self.build / program), [])

    def test_enabled_programs_have_the_notes(self):
        for program in ("check_c", "check_cxx"):
            with self.subTest(program=program):
                self.assertEqual(PROBE_SECTIONS & set(package.section_names(self.build / program)),
                                 PROBE_SECTIONS)
                names = {name for _, name, _ in package.stapsdt_notes(self.build / program)}
                self.assertEqual(names, {"pair", "labelled", "nothing", "guarded"})

    def test_the_enabled_guard_opens_under_gdb(self):
        usdt_testing.require_tracer(self, "gdb", needs_root=False)
        result = package.run(["gdb", "-nx", "-batch", "-ex", "break -probe-stap counted:guarded",
                              "-ex", "run", "-ex", "continue", self.build / "check_c"])
        self.assertIn("have_probes=1 evaluations=3 enabled=1 guarded_blocks=1\n", result.stdout)


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
