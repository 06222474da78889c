"""The installed package: exactly the files of installed-files.txt, and relocatable.

Installs the usdt build under test with `cmake --install` into a scratch prefix, compares
its files with the golden list next to this file and checks that none names a directory
of this machine; then installs again, moves that prefix elsewhere and builds and runs the
example project against it there.
"""

import unittest
from pathlib import Path

import package_support as package
import usdt_testing

GOLDEN_LIST = Path(__file__).with_name("installed-files.txt")


def files_under(prefix: Path):
    return sorted(str(path.relative_to(prefix)) for path in prefix.rglob("*") if not path.is_dir())


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.prefix = package.SETUP.work_dir / "prefix"
        package.install_usdt(cls.prefix)

    def test_installs_exactly_the_golden_list(self):
        expected = [line for line in GOLDEN_LIST.read_text().splitlines() if line and not line.startswith("#")]
        self.assertEqual(files_under(self.prefix), sorted(expected))

    def test_no_installed_text_file_names_a_directory_of_this_machine(self):
        setup = package.SETUP
        text_files = files_under(self.prefix)
        self.assertIn("share/usdt/cmake/usdtAddProvider.cmake", text_files)
        for name in text_files:
            text = (self.prefix / name).read_text()
            for directory in (setup.source_dir, setup.build_dir, self.prefix):
                self.assertNotIn(str(directory), text, f"{name} names {directory}")

    def test_a_moved_prefix_still_serves_a_consumer(self):
        setup = package.SETUP
        original = setup.work_dir / "original-prefix"
        package.install_usdt(original)
        moved = setup.work_dir / "elsewhere" / "usdt"
        moved.parent.mkdir()
        original.rename(moved)  # the original path is gone: anything still pointing there fails
        consumer = setup.work_dir / "consumer"
        package.configure(setup.source_dir / "example-project", consumer, f"CMAKE_PREFIX_PATH={moved}")
        self.assertEqual(package.cache_value(consumer, "usdt_DIR"),
                         str(moved / "share" / "cmake" / "usdt"))
        package.build(consumer)
        result = package.run([consumer / "kvserver", "--count", "1", "--interval-ms", "0"])
        self.assertIn("kvserver: 1 requests in 1 batches", result.stdout)


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
