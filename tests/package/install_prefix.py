"""The CTest fixture usdt_installed (tests/CMakeLists.txt): the usdt build under test installed
once for every test that consumes an install.

`cmake --install` into a staging directory next to --installed-prefix, which is then moved
to --installed-prefix: where it was installed is gone, so a consumer that works with it also
shows that an installed usdt works after its prefix moved (nothing in it may name the
directory it was installed to, but usdt.pc's `prefix=`, which pkg-config's --define-prefix
replaces).
"""

import shutil
import unittest

import package_support as package
import usdt_testing


class InstallPrefix(unittest.TestCase):
    def test_installed_and_moved(self):
        prefix = package.SETUP.options.installed_prefix
        staging = package.staging_prefix(prefix)
        for directory in (prefix, staging):
            shutil.rmtree(directory, ignore_errors=True)
        package.install_usdt(staging)
        staging.rename(prefix)
        self.assertFalse(staging.exists())


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
