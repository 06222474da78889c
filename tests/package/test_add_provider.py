"""usdt_add_provider in a real project (usdt_add_provider/), configured and built.

A bad .d file must fail the build with the generator's `probes.d:LINE:COL: error:` and leave no
header; fixing it must build; an up-to-date build must not run the generator again; misuses
of usdt_add_provider must fail at configure time; VERIFY must fail the build on a declared probe
without a site, every build until it has one with one message naming the function; the
calls documented must work; and the generator imports nothing from the user's directories.
(add_provider_support.py: the project, its options and how CMake is run.)
"""

import os
import re
import subprocess

import usdt_testing
from add_provider_support import (BAD, GENERATING, GOOD, OPTIONS, CMakeProjectTestCase, SharedBuildTestCase,
                                  parse_options)

VERIFYING = "Verifying the USDT probes of app"


class BuildErrorTest(CMakeProjectTestCase):
    def test_bad_file_fails_fixed_file_builds_then_nothing_regenerates(self):
        self.write_provider(BAD)
        self.assertSucceeded(self.configure(f"-Dusdt_DIR={OPTIONS.usdt_dir}"))

        output = self.assertFailed(self.build())
        self.assertRegex(output, r"(?m)^/\S*/probes\.d:4:16: error: argument type 'float': floating-point")
        self.assertFalse(self.header.exists(), "no generated header after a failure")

        # Nothing changed: the generator runs and fails again, as no output was left behind.
        output = self.assertFailed(self.build())
        self.assertIn("probes.d:4:16: error:", output)

        self.write_provider(GOOD)
        output = self.assertSucceeded(self.build())
        self.assertIn(GENERATING, output)
        self.assertTrue(self.header.is_file())

        output = self.assertSucceeded(self.build())
        self.assertNotIn(GENERATING, output)

        # Breaking the file again removes the outputs the good build wrote.
        self.write_provider(BAD)
        output = self.assertFailed(self.build())
        self.assertIn("probes.d:4:16: error:", output)
        self.assertFalse(self.header.exists(), "a stale header must be removed")

    def test_a_probe_declared_in_two_files_fails_at_the_later_naming_the_earlier(self):
        # In C it compiled to one site and a warning about an internal macro, in C++ to a
        # redefinition. The target's check rule, defined at the first call, reads the later
        # call's file too, with that file's own options: more.d needs its -DTOCK_T.
        self.write_provider(GOOD)
        (self.source / "more.d").write_text("provider demo {\n    probe tock(TOCK_T seconds);\n};\n")
        self.assertSucceeded(self.configure(f"-Dusdt_DIR={OPTIONS.usdt_dir}", "-DUSDT_TEST_CALL=two_files"))
        output = self.assertFailed(self.build())
        message = "error: probe 'demo:tock' is declared in two provider files of the same target"
        # Once, from the check rule: each header's rule reads its own file only.
        self.assertEqual(len(re.findall(message, output)), 1, output)
        self.assertRegex(output, rf"(?m)^/\S*/more\.d:2:11: {message}; declare it in one of them\n"
                                 rf"/\S*/probes\.d:4:11: note: probe 'demo:tock' is also declared here$")
        self.assertFalse((self.build_directory / "app").exists(), "the target must not be built")
        # Renamed in more.d: the check runs again, as it depends on every file of the target.
        (self.source / "more.d").write_text("provider demo {\n    probe tack(TOCK_T seconds);\n};\n")
        self.assertSucceeded(self.build())
        self.assertTrue(self.header.is_file())

    def test_verify_fails_the_build_on_a_declared_probe_without_a_site(self):
        # main.c fires demo:tick only: tock has no site, until the .d file no longer declares it.
        self.write_provider(GOOD)
        self.assertSucceeded(self.configure(f"-Dusdt_DIR={OPTIONS.usdt_dir}", "-DUSDT_TEST_CALL=verify"))
        output = self.assertFailed(self.build())
        self.assertIn(VERIFYING, output)
        self.assertRegex(output, r"(?m)^/\S*/probes\.d:4:11: error: demo:tock is declared here, and has no site in "
                                 r"/\S*/app$")
        # Nothing changed: the program is verified again, and fails again.
        self.assertRegex(self.assertFailed(self.build()), r"(?m)^/\S*/probes\.d:4:11: error: demo:tock ")
        self.write_provider(GOOD.replace("    probe tock(uint32_t seconds);\n", ""))
        output = self.assertSucceeded(self.build())
        self.assertIn(VERIFYING, output)
        self.assertNotIn("error", output)
        self.assertNotIn(VERIFYING, self.assertSucceeded(self.build()))

    def test_add_subdirectory_consumer_builds(self):
        # usdt_add_provider is called from the parent project, outside usdt's directory scope.
        self.write_provider(GOOD)
        self.assertSucceeded(self.configure(f"-DUSDT_SOURCE_DIR={OPTIONS.source_dir}"))
        self.assertIn(GENERATING, self.assertSucceeded(self.build()))


class ConfigureErrorTest(SharedBuildTestCase):

    def assertConfigureFails(self, call, expected, *definitions):
        """Configuring with USDT_TEST_CALL=`call` (none if None) and `definitions` fails with a
        message matching regex `expected`."""
        self.write_provider(GOOD)
        definitions += (f"-DUSDT_TEST_CALL={call}",) if call is not None else ("-UUSDT_TEST_CALL",)
        output = self.assertFailed(self.configure(f"-Dusdt_DIR={OPTIONS.usdt_dir}", *definitions))
        # CMake prints `CMake Error at FILE:LINE (message):` then the message, indented and wrapped.
        message = re.search(r"CMake Error at [^\n]*\(message\):\n(.*?)\n\n", output, re.DOTALL)
        self.assertIsNotNone(message, output)
        self.assertRegex(" ".join(message.group(1).split()), expected)
        self.assertEqual(output.count("CMake Error"), 1, output)

    def test_not_a_target(self):
        self.assertConfigureFails(
            "not_a_target", r"^usdt_add_provider: 'not_a_target' is not a target; create it first")

    def test_unknown_keyword(self):
        self.assertConfigureFails(
            "unknown_keyword", r"^usdt_add_provider: 'PRIVATE' is neither a \.d provider file nor a keyword")

    def test_not_a_provider_file(self):
        self.assertConfigureFails(
            "not_a_provider_file",
            r"^usdt_add_provider: 'probes\.txt' is neither a \.d provider file nor a keyword")

    def test_unknown_tracer(self):
        self.assertConfigureFails(
            "unknown_tracer", r"^usdt_add_provider: 'dtrace' after TRACER_SCRIPTS is not a tracer; "
                              r"expected one or more of bpftrace, systemtap, perf\.")

    def test_tracer_scripts_without_tracer(self):
        self.assertConfigureFails(
            "tracer_scripts_without_tracer",
            r"^usdt_add_provider: TRACER_SCRIPTS names no tracer; expected one or more of bpftrace, systemtap, perf\.")

    def test_two_calls_with_files_of_the_same_name(self):
        (self.source / "other").mkdir()
        (self.source / "other" / "probes.d").write_text(GOOD, encoding="utf-8")
        self.assertConfigureFails(
            "same_stem_twice", r"^usdt_add_provider: '/\S+/other/probes\.d' and '/\S+/probes\.d' would both "
                               r"generate 'probes\.h' for 'app'; give each \.d file of a target its own name")

    def test_the_same_file_twice(self):
        self.assertConfigureFails(
            "same_file_twice", r"^usdt_add_provider: '/\S+/probes\.d' is given twice for 'app'; "
                               r"name each \.d file of a target once, in one call\.")

    def test_imported_target(self):
        self.assertConfigureFails(
            "imported", r"^usdt_add_provider: 'imported_tool' is an IMPORTED target, built outside this project; "
                        r"probes can only be added to a target this project compiles")

    def test_alias_target(self):
        self.assertConfigureFails(
            "alias", r"^usdt_add_provider: 'app_alias' is an ALIAS of 'app'; call usdt_add_provider\(app \.\.\.\)\.")

    def test_interface_library(self):
        self.assertConfigureFails(
            "interface", r"^usdt_add_provider: 'headers' is an INTERFACE library, which compiles no code; "
                         r"call usdt_add_provider on the executable or library whose code fires the probes")

    def test_an_option_the_preprocessor_does_not_take(self):
        self.assertConfigureFails(
            "not_a_preprocessor_option",
            r"^usdt_add_provider: '-O2' after PREPROCESSOR_OPTIONS is not a -I, -D or -U option; ")

    def test_a_provider_file_among_the_preprocessor_options(self):
        self.assertConfigureFails(
            "provider_file_after_options",
            r"^usdt_add_provider: 'probes\.d' after PREPROCESSOR_OPTIONS is a provider file, not an option; "
            r"list the \.d files before the keywords\.")

    def test_verify_on_a_library_that_links_no_file(self):
        self.assertConfigureFails(
            "verify_static_library", r"^usdt_add_provider: VERIFY checks the file 'ticks' links, and 'ticks' is a "
                                     r"STATIC_LIBRARY, which links none; give VERIFY to a call on an executable")

    def test_verify_from_another_directory_than_the_target_s(self):
        (self.source / "other").mkdir()
        (self.source / "other" / "CMakeLists.txt").write_text("usdt_add_provider(app ../probes.d VERIFY)\n")
        self.assertConfigureFails(
            "verify_from_subdirectory", r"^usdt_add_provider: VERIFY adds a step to 'app', which CMake allows only "
                                        r"in the directory that creates it \(/\S+\); make the call with VERIFY there\.")

    def test_python_without_jinja2_is_refused_at_find_package(self):
        # /bin/false stands for an interpreter that cannot `import jinja2`.
        self.assertConfigureFails(
            None, r"^usdt: USDT_PYTHON_EXECUTABLE \(/bin/false\) cannot import jinja2\. Install Jinja2",
            "-DUSDT_PYTHON_EXECUTABLE=/bin/false")


class CallTest(SharedBuildTestCase):
    """Calls that must work: preprocessor options on any .d file, calls from another directory."""

    def build_and_run(self, call):
        self.assertSucceeded(self.configure(f"-Dusdt_DIR={OPTIONS.usdt_dir}", f"-DUSDT_TEST_CALL={call}"))
        self.assertIn(GENERATING, self.assertSucceeded(self.build()))
        program = self.build_directory / "app"
        self.assertEqual(subprocess.run([str(program)], check=False).returncode, 0)
        return program

    def test_defines_reach_a_file_without_directives(self):
        # As with `dtrace -C`: -D applies although the file has no `#` of its own.
        self.write_provider(GOOD.replace("int n", "TICK_T n"))
        self.build_and_run("preprocessor_options")

    def test_relative_include_directories_are_the_calling_directory_s(self):
        (self.source / "include").mkdir()
        (self.source / "include" / "ticks.h").write_text("#define TICKS_T uint32_t\n", encoding="utf-8")
        self.write_provider('#include "ticks.h"\n' + GOOD.replace("uint32_t seconds", "TICKS_T seconds"))
        self.build_and_run("preprocessor_options")

    def test_call_from_another_directory_than_the_target_s(self):
        self.write_provider(GOOD)
        (self.source / "other").mkdir()
        (self.source / "other" / "CMakeLists.txt").write_text("usdt_add_provider(app ../probes.d)\n")
        self.build_and_run("from_subdirectory")
        self.assertTrue(self.header.is_file(), "the header is in the target's binary directory")
        # Up to date: the rule does not run again.
        self.assertNotIn(GENERATING, self.assertSucceeded(self.build()))

    def test_library_of_another_directory(self):
        self.write_provider(GOOD)
        (self.source / "other").mkdir()
        (self.source / "other" / "CMakeLists.txt").write_text("add_library(ticks STATIC ticks.c)\n")
        (self.source / "other" / "ticks.c").write_text('#include "probes.h"\n'
                                                       "int ticks(void) { DEMO_TOCK(2u); return 2; }\n")
        self.build_and_run("library_in_subdirectory")
        public_header = self.build_directory / "other" / "ticks.usdt" / "probes.h"
        # PUBLIC: other targets and installed headers include it, without usdt's include path.
        self.assertIn("\n#define USDT_ABI_VERSION ", public_header.read_text())
        self.assertNotIn("#include <usdt/", public_header.read_text())

    def test_a_header_of_the_target_alone_includes_the_runtime(self):
        # The runtime headers from the include directory usdt_add_provider gives the target: the
        # header carries only its probes (issue 33: at most 150 lines for one probe).
        self.write_provider(GOOD)
        self.build_and_run("default")
        header = self.header.read_text()
        self.assertIn("\n#include <usdt/usdt_site.h>\n", header)
        self.assertNotIn("#define USDT_ABI_VERSION", header)
        self.assertLessEqual(len(header.splitlines()), 150)


# Imported when run by Python, whatever the caller's directories hold: each writes a marker
# file and exits 1.
BOOBY_TRAP = """\
import pathlib, sys
pathlib.Path({marker!r}).write_text(__file__)
sys.exit(1)
"""


class UserDirectoriesTest(CMakeProjectTestCase):
    """The generator imports nothing from the caller's source or build directory or from the .d
    file's, and leaves no __pycache__ behind, in them or in the installed share/usdt."""

    def test_modules_beside_the_project_are_not_imported(self):
        self.write_provider(GOOD)
        marker = self.directory / "imported"
        self.build_directory.mkdir()
        for directory in (self.source, self.build_directory, self.build_directory / "app.usdt"):
            directory.mkdir(exist_ok=True)
            for module in ("argparse", "re", "jinja2", "usdtgen", "tempfile"):
                (directory / f"{module}.py").write_text(BOOBY_TRAP.format(marker=str(marker)))
        # PYTHONPATH naming the source directory too: the generator's interpreter ignores it.
        os.environ["PYTHONPATH"] = str(self.source)
        self.addCleanup(os.environ.pop, "PYTHONPATH")
        install_prefix = OPTIONS.usdt_dir.parents[2]
        installed_caches = sorted(install_prefix.rglob("__pycache__/*"))   # byte-compiled by the install
        self.assertSucceeded(self.configure(f"-Dusdt_DIR={OPTIONS.usdt_dir}"))
        self.assertIn(GENERATING, self.assertSucceeded(self.build()))
        self.assertFalse(marker.exists(), marker.read_text() if marker.exists() else "")
        self.assertTrue(self.header.is_file())
        for tree in (self.source, self.build_directory):
            self.assertEqual(list(tree.rglob("__pycache__")), [], tree)
        self.assertEqual(sorted(install_prefix.rglob("__pycache__/*")), installed_caches)


if __name__ == "__main__":
    parse_options()
    usdt_testing.main()
