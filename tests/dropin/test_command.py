"""The installed command as builds written for systemtap's dtrace run it, beyond what the
project tests show: under the name `dtrace` from <prefix>/libexec/usdt/bin, the
configure-time feature probe on a D program without a provider, and $CC and $CFLAGS of
several words (a launcher, a cross compiler with --sysroot, gcc -m32).

Every command runs from the usdt CTest installed once (package_support.installed_usdt()),
in dropin_support.build_environment(), from a directory of its own.
"""

import re
import subprocess
import sys
import unittest
from pathlib import Path

import dropin_support as dropin
import elf_notes
import package_support as package
import usdt_testing
from usdtgen import VERSION

SYSTEMTAP_DTRACE = Path("/usr/bin/dtrace")   # Debian's systemtap-sdt-dev
FEATURE_PROBES = {"BEGIN{}": "BEGIN{}\n", "a D clause": 'BEGIN\n{\n    trace("x");\n    exit(0);\n}\n',
                  "an empty file": ""}
WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
# Which of its probes a provider file declares depends on what the preprocessor defines.
TARGETED = """\
#include "types.h"
provider myapp {
#if defined(__aarch64__)
    probe on_aarch64(count_t n);
#elif defined(__i386__)
    probe on_i386(count_t n);
#else
    probe on_x86_64(count_t n);
#endif
#ifdef FROM_CFLAGS
    probe from_cflags();
#endif
};
"""


class CommandTestCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.prefix = dropin.install()
        cls.usdt_dtrace = cls.prefix / "bin" / "usdt-dtrace"
        cls.dtrace = dropin.path_directory(cls.prefix) / "dtrace"

    def setUp(self):
        self.directory = package.SETUP.work_dir / self.id().rpartition(".")[2]
        self.directory.mkdir()

    def run_command(self, command, *arguments, **variables):
        return subprocess.run([str(command), *map(str, arguments)], cwd=self.directory,
                              env=dropin.build_environment(**variables), capture_output=True, text=True)


class NameTest(CommandTestCase):
    def test_the_path_directory_holds_usdt_dtrace_as_dtrace_and_nothing_else(self):
        self.assertEqual(sorted(path.name for path in self.dtrace.parent.iterdir()), ["dtrace"])
        # bin/ gets no `dtrace`: a system one stays first unless the user asks otherwise.
        self.assertFalse((self.prefix / "bin" / "dtrace").exists())

    def test_found_on_path_it_is_usdt_dtrace(self):
        result = subprocess.run(["dtrace", "--version"], env=dropin.build_environment([self.dtrace.parent]),
                                capture_output=True, text=True)
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, f"usdt-dtrace (usdt) {VERSION}\n", ""))

    def test_behaves_the_same_under_any_name(self):
        (self.directory / "probes.d").write_text("provider myapp { probe done(int status); };\n")
        link = self.directory / "my-dtrace"
        link.symlink_to(self.usdt_dtrace)
        for arguments in (["-h", "-s", "probes.d", "-o", "probes.h"], ["-x"]):
            with self.subTest(arguments=arguments):
                results = [self.run_command(command, *arguments) for command in (self.usdt_dtrace, self.dtrace, link)]
                outputs = {(result.returncode, result.stdout, result.stderr) for result in results}
                self.assertEqual(len(outputs), 1, outputs)


class FeatureProbeTest(CommandTestCase):
    """`dtrace -G -s conftest.d -o conftest.o` on a file without a provider, as configure
    scripts run it to decide whether the build links a -G object: exit 0 as with
    systemtap's dtrace, one warning, an object that links; -h alike, with a header that
    compiles."""

    def warning(self, mode):
        return f"conftest.d:1:1: warning: no provider declared; the {mode} defines no probes\n"

    def test_exit_0_and_a_warning(self):
        for name, text in FEATURE_PROBES.items():
            (self.directory / "conftest.d").write_text(text)
            for mode, output in (("-G", "object"), ("-h", "header")):
                with self.subTest(name, mode=mode):
                    result = self.run_command(self.dtrace, mode, "-s", "conftest.d")
                    self.assertEqual((result.returncode, result.stdout, result.stderr), (0, "", self.warning(output)))

    def test_the_object_links_and_the_header_compiles(self):
        (self.directory / "conftest.d").write_text(FEATURE_PROBES["BEGIN{}"])
        for mode, output in (("-G", "conftest.o"), ("-h", "conftest.h")):
            self.assertEqual(self.run_command(self.dtrace, mode, "-s", "conftest.d", "-o", output).returncode, 0)
        (self.directory / "main.c").write_text("int main(void) { return 0; }\n")
        package.run(["cc", self.directory / "main.c", self.directory / "conftest.o", "-o", self.directory / "main"])
        for compiler, language in (("cc", "c"), ("c++", "c++")):
            package.run([compiler, "-x", language, *WARNINGS, "-fsyntax-only", self.directory / "conftest.h"])

    def test_systemtaps_exit_status_is_0_too(self):
        if not SYSTEMTAP_DTRACE.exists():
            reason = f"{SYSTEMTAP_DTRACE} is not installed (Debian: apt-get install systemtap-sdt-dev)"
            if usdt_testing.tracers_required():
                self.fail(f"USDT_REQUIRE_TRACERS=1 but {reason}")
            self.skipTest(reason)
        for name, text in FEATURE_PROBES.items():
            (self.directory / "conftest.d").write_text(text)
            for mode in ("-G", "-h"):
                with self.subTest(name, mode=mode):
                    self.assertEqual(self.run_command(SYSTEMTAP_DTRACE, mode, "-s", "conftest.d").returncode, 0)

    def test_the_generator_still_rejects_it(self):
        # usdt_add_provider's generator: a provider file without providers is a mistake there.
        (self.directory / "conftest.d").write_text("BEGIN{}\n")
        result = self.run_command(sys.executable, "-m", "usdtgen", "conftest.d", "--header", "conftest.h",
                                  PYTHONPATH=str(self.prefix / "share" / "usdt"))
        self.assertEqual((result.returncode, result.stderr),
                         (1, "conftest.d:1:1: error: no provider declared; expected "
                             "'provider NAME { probe NAME(TYPE, ...); };'\n"))
        self.assertFalse((self.directory / "conftest.h").exists())


class CompilerWordsTest(CommandTestCase):
    """$CC's every word, and the options of $CFLAGS that choose the target or what the
    preprocessor defines and finds, preprocess the provider file as they compile -G's object.
    With -C, as systemtap's dtrace: without it no preprocessor runs (every `#` line is a comment)."""

    def setUp(self):
        super().setUp()
        (self.directory / "probes.d").write_text(TARGETED)
        (self.directory / "include").mkdir()
        (self.directory / "include" / "types.h").write_text("#define count_t int\n")
        self.log = self.directory / "launcher.log"

    def launched(self, option):
        """The commands the launcher ran that hold `option`."""
        return [line for line in self.log.read_text().splitlines() if f" {option} " in line]

    def declared_probes(self, header: Path):
        return sorted(re.findall(r"^/\* (myapp:\w+)\(", header.read_text(), re.MULTILINE))

    def test_a_launcher_and_the_preprocessing_options_of_cflags(self):
        launcher = dropin.HERE / "make" / "launcher"
        flags = "-O2 -g -Wall --sysroot=/ -m64 -march=x86-64 -DFROM_CFLAGS -I include -Xassembler -mrelax-relocations=no"
        for mode, output in (("-h", "probes.h"), ("-G", "probes.o")):
            result = self.run_command(self.usdt_dtrace, "-C", mode, "-s", "probes.d", "-o", output,
                                      CC=f"{launcher} gcc", CFLAGS=flags, LAUNCHER_LOG=str(self.log))
            self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(self.launched("-E"), 2 * ["gcc --sysroot=/ -m64 -march=x86-64 -E -x c -DFROM_CFLAGS -I include "
                                                   "probes.d"])
        (compile_command,) = self.launched("-c")
        self.assertTrue(compile_command.startswith(f"gcc {flags} "), compile_command)
        self.assertEqual(self.declared_probes(self.directory / "probes.h"), ["myapp:from_cflags", "myapp:on_x86_64"])
        self.assertEqual(sorted(symbol for symbol, _ in elf_notes.symbols(str(self.directory / "probes.o"))
                                if symbol.endswith("_semaphore")),
                         ["myapp_from_cflags_semaphore", "myapp_on_x86_64_semaphore"])

    def test_a_cross_compiler_with_a_sysroot(self):
        compiler = "aarch64-linux-gnu-gcc"
        usdt_testing.require_tracer(self, compiler, needs_root=False, package="gcc-aarch64-linux-gnu")
        environment = {"CC": f"{compiler} --sysroot=/usr/aarch64-linux-gnu", "CFLAGS": "-O2 -Iinclude"}
        for mode in ("-h", "-G"):
            result = self.run_command(self.usdt_dtrace, "-C", mode, "-s", "probes.d", **environment)
            self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(self.declared_probes(self.directory / "probes.h"), ["myapp:on_aarch64"])
        header = package.run(["readelf", "-h", self.directory / "probes.o"]).stdout
        self.assertRegex(header, r"Machine:\s+AArch64")

    def test_gcc_dash_m32(self):
        result = self.run_command(self.usdt_dtrace, "-C", "-h", "-s", "probes.d", CC="gcc -m32", CFLAGS="-I include")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(self.declared_probes(self.directory / "probes.h"), ["myapp:on_i386"])

    def test_a_target_option_the_compiler_rejects(self):
        result = self.run_command(self.usdt_dtrace, "-C", "-h", "-s", "probes.d", CFLAGS="-mno-such-option -I include")
        self.assertEqual(result.returncode, 1)
        self.assertRegex(result.stderr, r"error: unrecognized command[- ]line option .-mno-such-option.")
        self.assertNotIn("Traceback", result.stderr)
        self.assertFalse((self.directory / "probes.h").exists())


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
