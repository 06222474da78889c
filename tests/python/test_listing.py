"""Unit tests of usdttool.listing: what `usdt list` prints of modules read already, as text and
as JSON (docs/tracing.md), and what it says of kernels without semaphore support.
tests/tool/test_list.py runs the command on built programs and processes."""

import argparse
import unittest

import usdt_testing

from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument
from usdttool import listing
from usdttool.files import elf, probe_notes, process
from usdttool.errors import ToolError

SPECS = probe_notes.parse_arguments("8@%rax -4@-20(%rbp)")
DECLARED = probe_notes.Probe("kv", "request__start", (
    TracerArgument(0, "id", "uint64_t", Kind.INTEGER, 8, False),
    TracerArgument(1, "class", "int", Kind.INTEGER, 4, True)),
    (probe_notes.Site(0x1189, 0x4010, SPECS), probe_notes.Site(0x11a0, 0x4012, SPECS)), 0x4010, "kv.d")
NOTED = probe_notes.Probe("sdt", "tick", (), (probe_notes.Site(0x1200, 0, ()),), 0, None)
MODULE = elf.Module("/bin/app", (DECLARED, NOTED), ("a warning of the file",))


class TextTest(unittest.TestCase):
    def test_a_file(self):
        text = listing._text(None, [listing.Listed(MODULE, MODULE.warnings, None)], ["a warning"], verbose=False)
        self.assertEqual(text.splitlines(), [
            "/bin/app: 2 probes",
            "  SITES  SEMAPHORE  TYPES FROM     PROBE",
            "  2      0x4010     kv.d           kv:request__start(uint64_t id, int class)",
            "  1      none       stapsdt notes  sdt:tick()",
            "  warning: a warning of the file",
            "warning: a warning"])

    def test_every_site_with_verbose(self):
        text = listing._text(None, [listing.Listed(MODULE, (), None)], [], verbose=True)
        self.assertIn("      site 0x1189: id uint64_t in %rax, class int32_t at -20(%rbp)\n", text)
        self.assertIn("      site 0x11a0 (semaphore 0x4012): id uint64_t in %rax, class int32_t at -20(%rbp)\n",
                      text)
        self.assertIn("      site 0x1200: no arguments\n", text)

    def test_a_process_with_its_semaphores(self):
        for value, shown in ((process.SemaphoreValue(2, None), "0x4010 active (2)"),
                             (process.SemaphoreValue(0, None), "0x4010 inactive"),
                             (process.SemaphoreValue(None, "permission denied"), "0x4010 unknown")):
            text = listing._text(42, [listing.Listed(MODULE, (), {0x4010: value})], [], verbose=False)
            self.assertEqual(text.splitlines()[0], "process 42: 1 file with probes")
            self.assertIn(shown, text.splitlines()[3])
        self.assertEqual(listing._text(42, [], [], verbose=False), "process 42: no probes in any mapped file\n")


class JsonTest(unittest.TestCase):
    def test_every_probe_argument_and_site(self):
        listed = listing._json(None, [listing.Listed(MODULE, MODULE.warnings, None)], [])
        self.assertEqual((listed["version"], listed["pid"], listed["warnings"]), (1, None, []))
        (module,) = listed["modules"]
        declared, noted = module["probes"]
        self.assertEqual(declared["arguments"], [
            {"index": 0, "name": "id", "type": "uint64_t", "kind": "integer", "size": 8, "signed": False},
            {"index": 1, "name": "class", "type": "int", "kind": "integer", "size": 4, "signed": True}])
        self.assertEqual((declared["source"], noted["source"], noted["semaphore"]), ("kv.d", None, None))
        self.assertEqual(declared["semaphore"], {"address": 0x4010, "value": None, "active": None, "error": None})
        self.assertEqual(declared["sites"][1], {"address": 0x11a0, "semaphore": 0x4012, "arguments": [
            {"spec": "8@%rax", "size": 8, "signed": False, "operand": "%rax", "type": "uint64_t"},
            {"spec": "-4@-20(%rbp)", "size": 4, "signed": True, "operand": "-20(%rbp)", "type": "int32_t"}]})
        self.assertEqual(module["warnings"], ["a warning of the file"])

    def test_a_process_s_semaphore_values(self):
        listed = listing._json(7, [listing.Listed(MODULE, (), {0x4010: process.SemaphoreValue(1, None)})], [])
        self.assertEqual(listed["modules"][0]["probes"][0]["semaphore"],
                         {"address": 0x4010, "value": 1, "active": True, "error": None})


class TargetTest(unittest.TestCase):
    def target(self, target=None, pid=None):
        return listing._target(argparse.Namespace(target=target, pid=pid))

    def test_a_file_or_a_process(self):
        self.assertEqual(self.target("/bin/true"), (None, "/bin/true"))
        self.assertEqual(self.target(pid=12), (12, None))
        self.assertEqual(self.target("999999999"), (999999999, None))

    def test_what_cannot_be_listed(self):
        for arguments, message in ((("/bin/true", 1), "give a file or a process (-p PID), not both"),
                                   ((None, None), "nothing to list: give a file, a process id or -p PID")):
            with self.assertRaises(ToolError) as caught:
                self.target(*arguments)
            self.assertEqual(str(caught.exception), message)


class KernelTest(unittest.TestCase):
    def test_kernels_before_4_20_raise_no_semaphores(self):
        self.assertIn("Linux 4.19.0-27-amd64, is older than 4.20", listing.kernel_warning("4.19.0-27-amd64"))
        self.assertIsNotNone(listing.kernel_warning("3.10.0"))
        for release in ("4.20.0", "5.10.0-30-amd64", "6.12.48+deb13-amd64", "unknown"):
            self.assertIsNone(listing.kernel_warning(release), release)


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
