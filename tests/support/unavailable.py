"""Stands in for a test CMake could not add on this machine (its tool or runtime is missing):
it skips with the reason CMake gives, so that CTest shows the test as "Skipped" instead of
leaving it out, and it fails under USDT_REQUIRE_TRACERS=1, as every skip does (usdt_testing).

usage: unavailable.py --reason REASON
"""

import unittest

import usdt_testing

REASON = ""


class UnavailableTest(unittest.TestCase):
    def test_unavailable_here(self):
        self.skipTest(REASON)


if __name__ == "__main__":
    options, _ = usdt_testing.parse_options(lambda parser: parser.add_argument("--reason", required=True))
    REASON = options.reason
    usdt_testing.main()
