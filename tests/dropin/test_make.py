"""make/: a Makefile that seds the -h header (macros renamed to TRACE_MYAPP_*, `char *` made
`const char *`, GLib's semaphore edit) and lists its objects after `-G -s probes.d`, built
with `make -j8 DTRACE=<prefix>/bin/usdt-dtrace` and a compiler launcher in CC and CXX
(`CC="launcher gcc"`, as `ccache gcc`): nothing else changed, no include flag added.

The launcher (make/launcher) logs every command it runs: the .d file's preprocessing (the
Makefile passes -C) and the -G compile must have gone through it, with $CC's words. The
program, C and C++ using the renamed macros and the C++ API, is checked as every drop-in
build's is; the edited header must also compile with clang and clang++ under the Makefile's
-Wall -Wextra -Wpedantic -Werror.
"""

import re
import unittest

from dropin_support import TracedProgramChecks
import dropin_support as dropin
import package_support as package
import usdt_testing

WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]


class MakeProjectTest(TracedProgramChecks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        checkout = dropin.check_out("make", "make", "gcc", "g++")
        cls.source = checkout.source
        cls.launcher_log = package.SETUP.work_dir / "launcher.log"
        launcher = cls.source / "launcher"
        package.run(["make", "-j8", "-f", cls.source / "Makefile", f"DTRACE={checkout.prefix / 'bin' / 'usdt-dtrace'}",
                     f"CC={launcher} gcc", f"CXX={launcher} g++"],
                    environment=dropin.build_environment(LAUNCHER_LOG=str(cls.launcher_log)), cwd=checkout.build)
        cls.program = checkout.build / "app"
        cls.header = checkout.build / "probes.h"

    def launched(self):
        return self.launcher_log.read_text().splitlines()

    def test_the_provider_file_was_preprocessed_with_the_whole_cc(self):
        preprocessed = [command for command in self.launched() if " -E " in command]
        self.assertEqual(len(preprocessed), 2, self.launched())   # for -h and for -G
        for command in preprocessed:
            self.assertTrue(command.startswith("gcc -E -x c "), command)
            self.assertTrue(command.endswith(str(self.source / "probes.d")), command)

    def test_the_object_was_compiled_with_the_whole_cc_and_cflags(self):
        objects = [command for command in self.launched() if " -x c -c - -o " in command]
        self.assertEqual(len(objects), 1, self.launched())
        self.assertTrue(objects[0].startswith("gcc -std=c99 -O2 -g -Wall -Wextra -Wpedantic -Werror "), objects[0])

    def test_sed_renamed_every_macro(self):
        text = self.header.read_text()
        self.assertEqual(re.findall(r"\w*(?<!TRACE_)MYAPP_\w*", text), [])
        self.assertIn("#define TRACE_MYAPP_REQUEST_DONE_ENABLED()", text)

    def test_the_edited_header_compiles_with_clang(self):
        usdt_testing.require_tracer(self, "clang", needs_root=False)
        build = self.header.parent
        for compiler, source, standard in (("clang", "main.c", "-std=c99"), ("clang++", "worker.cpp", "-std=c++11")):
            with self.subTest(compiler=compiler):
                package.run([compiler, standard, "-O2", *WARNINGS, f"-I{build}", "-fsyntax-only", self.source / source])


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
