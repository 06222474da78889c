"""The installed package: exactly the files of installed-files.txt, naming no directory of this
machine but in usdt.pc's `prefix=`, which names the prefix `cmake --install --prefix` gave.

Reads the prefix the fixture usdt_installed installed and then moved (install_prefix.py): that
every consumer builds against that moved prefix is theirs to show (package.find_package builds
the example project on it).
"""

import importlib.util
import re
import unittest
from pathlib import Path

import package_support as package
import usdt_testing

GOLDEN_LIST = Path(__file__).with_name("installed-files.txt")
PKG_CONFIG_FILE = "share/pkgconfig/usdt.pc"
# usdt-sdt.pc: usdt's sys/sdt.h, in a directory of its own under the runtime headers'.
PKG_CONFIG_FILES = {PKG_CONFIG_FILE: "share/usdt/runtime/include",
                    "share/pkgconfig/usdt-sdt.pc": "share/usdt/runtime/include/sdt"}


def files_under(prefix: Path):
    return sorted(str(path.relative_to(prefix)) for path in prefix.rglob("*") if not path.is_dir())


def with_cache_tag(name: str) -> str:
    """`name` as the golden list writes it: `main.TAG.pyc` for `main.cpython-311.pyc`, whichever
    interpreter byte-compiled it."""
    return re.sub(r"/__pycache__/([^/.]+)\.[^/.]+\.pyc$", r"/__pycache__/\1.TAG.pyc", name)


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.prefix = package.installed_usdt()

    def test_installs_exactly_the_golden_list(self):
        expected = [line for line in GOLDEN_LIST.read_text().splitlines() if line and not line.startswith("#")]
        self.assertEqual(sorted(map(with_cache_tag, files_under(self.prefix))), sorted(expected))

    def test_the_byte_compiled_modules_are_those_python_reads(self):
        # The launcher writes no caches: without these, each start compiles every module again.
        # Checked against the source's hash (PEP 552 flags 0b11), they stay valid when the
        # prefix is moved or copied.
        sources = sorted(self.prefix.glob("share/usdt/usdt*/*.py"))
        self.assertTrue(sources)
        for source in sources:
            caches = list(source.parent.glob(f"__pycache__/{source.stem}.*.pyc"))
            self.assertEqual(len(caches), 1, source)
            header = caches[0].read_bytes()[:16]
            if header[:4] != importlib.util.MAGIC_NUMBER:
                self.skipTest(f"{caches[0]}: from another Python version than this test's, whose hash differs")
            self.assertEqual(int.from_bytes(header[4:8], "little"), 0b11, caches[0])
            self.assertEqual(header[8:16], importlib.util.source_hash(source.read_bytes()), caches[0])

    def test_the_pkg_config_file_names_the_prefix_it_was_installed_to(self):
        # pkg-config prints paths as the file spells them: a prefix of `${pcfiledir}/../..`
        # printed -I/usr/share/pkgconfig/../usdt/runtime/include. The build was configured for
        # another prefix than --prefix's. The directory is the generator's runtime headers', the
        # one installed copy.
        installed_to = package.staging_prefix(self.prefix)
        self.assertNotEqual(package.cache_value(package.SETUP.build_dir, "CMAKE_INSTALL_PREFIX"), str(installed_to))
        for name, include_directory in PKG_CONFIG_FILES.items():
            lines = (self.prefix / name).read_text().splitlines()
            self.assertEqual(lines[:2], [f"prefix={installed_to}", f"includedir=${{prefix}}/{include_directory}"])

    def test_no_installed_file_names_a_directory_of_this_machine(self):
        setup = package.SETUP
        # The byte-compiled modules too: their tracebacks' file names are the packages' own.
        installed = files_under(self.prefix)
        self.assertIn("share/usdt/cmake/usdtAddProvider.cmake", installed)
        for name in installed:
            contents = (self.prefix / name).read_bytes()
            if name in PKG_CONFIG_FILES:
                contents = re.sub(rb"(?m)^prefix=.*$", b"", contents)
            # The directory it was installed to, before the move, is under the build directory.
            for directory in (setup.source_dir, setup.build_dir, self.prefix):
                self.assertNotIn(str(directory).encode(), contents, f"{name} names {directory}")


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
