"""A library that embeds usdt (FetchContent) installs itself with install(EXPORT) and its own
package; a downstream project builds against that install without usdt, Python or Jinja2.

library/ (greet, static and shared, each with probes) is configured (where an export-set
error would stop it), built and installed once: the install holds greet's files only, and
none of them names usdt. library_user/ is then configured and built against that prefix
alone, with a PATH that has every program of this one but Python and with find_package(usdt)
disabled: both its programs run, carry (static) or load (shared) greet's probe, and gdb
reads it.
"""

import os
import re
import shutil
import unittest

from embedding_support import PROJECTS, assert_gdb_reads, assert_notes, build_embedding, package
import usdt_testing

GREET_NOTES = {"greet:hello": "8 4"}
# What the prefix holds after installing greet: paths relative to it, with {libdir}.
INSTALLED = ["include/greet.h", "{libdir}/cmake/greet/greetConfig.cmake",
             "{libdir}/cmake/greet/greetConfigVersion.cmake", "{libdir}/cmake/greet/greetTargets-{config}.cmake",
             "{libdir}/cmake/greet/greetTargets.cmake", "{libdir}/libgreet.a", "{libdir}/libgreet.so"]
# Programs run by Python whatever their name: pyenv's shims.
PYTHON_DIRECTORY = re.compile(r"pyenv")


def path_without_python(directory):
    """A PATH of one new `directory` with a link to each program this PATH finds, except
    Python's: what a machine without Python offers a build."""
    directory.mkdir()
    for entry in os.environ["PATH"].split(os.pathsep):
        if not entry or PYTHON_DIRECTORY.search(entry) or not os.path.isdir(entry):
            continue
        for name in sorted(os.listdir(entry)):
            program = os.path.join(entry, name)
            link = directory / name
            if "python" in name or link.exists() or not os.access(program, os.X_OK) or os.path.isdir(program):
                continue
            link.symlink_to(program)
    return str(directory)


class InstalledLibraryTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        setup = package.SETUP
        cls.prefix = setup.work_dir / "prefix"
        # An install(EXPORT) naming a target of usdt's that is in no export set fails its configure.
        library_build = build_embedding(PROJECTS / "library", "library", "CMAKE_BUILD_TYPE=Release")
        cls.libdir = package.cache_value(library_build, "CMAKE_INSTALL_LIBDIR")
        package.run([setup.cmake, "--install", library_build, "--prefix", cls.prefix])

        cls.user_build = setup.work_dir / "user"
        environment = dict(os.environ, PATH=path_without_python(setup.work_dir / "bin-without-python"))
        for variable in ("PYTHONPATH", "CMAKE_PREFIX_PATH", "usdt_DIR"):
            environment.pop(variable, None)
        cls.python_on_path = shutil.which("python3", path=environment["PATH"])
        package.run([setup.cmake, "-S", PROJECTS / "library_user", "-B", cls.user_build, "-G", setup.generator,
                     f"-DCMAKE_PREFIX_PATH={cls.prefix}", "-DCMAKE_DISABLE_FIND_PACKAGE_usdt=ON"],
                    environment=environment)
        package.run([setup.cmake, "--build", cls.user_build], environment=environment)

    def test_installs_greet_only_naming_nothing_of_usdt(self):
        installed = sorted(str(path.relative_to(self.prefix)) for path in self.prefix.rglob("*") if not path.is_dir())
        self.assertEqual(installed, sorted(path.format(libdir=self.libdir, config="release") for path in INSTALLED))
        for path in self.prefix.rglob("*"):
            if path.suffix in (".cmake", ".h"):
                with self.subTest(file=str(path.relative_to(self.prefix))):
                    self.assertNotRegex(path.read_text(), r"(?i)usdt")

    def test_downstream_was_built_without_python(self):
        self.assertIsNone(self.python_on_path)

    def test_downstream_programs_run(self):
        for program in ("hello_static", "hello_shared"):
            with self.subTest(program=program):
                result = package.run([self.user_build / program, "Ada", "Grace"])
                self.assertEqual((result.stdout, result.stderr), ("hello, Ada\nhello, Grace\n", ""))

    def test_probes_are_in_the_program_and_the_shared_library(self):
        assert_notes(self, self.user_build / "hello_static", GREET_NOTES)
        assert_notes(self, self.prefix / self.libdir / "libgreet.so", GREET_NOTES)

    def test_gdb_reads_the_probe_fired_through_the_library(self):
        hits = [("greet:hello", ("Ada", 1)), ("greet:hello", ("Grace", 2))]
        for program in ("hello_static", "hello_shared"):
            with self.subTest(program=program):
                assert_gdb_reads(self, self.user_build / program, ["Ada", "Grace"], {"greet:hello": [0]}, hits,
                                 start_first=program == "hello_shared")


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
