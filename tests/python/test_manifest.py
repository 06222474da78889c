"""Unit tests of usdttool.contract.manifest: a `usdt list --json` document (listing.py's) read
back as the modules it lists, and what is no such document, said in one line."""

import json
import unittest

import usdt_testing

from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument
from usdttool import listing
from usdttool.contract import manifest
from usdttool.errors import ToolError
from usdttool.files import elf, probe_notes

SPECS = probe_notes.parse_arguments("8@%rax -4@-20(%rbp)")
DECLARED = probe_notes.Probe("kv", "get", (TracerArgument(0, "id", "uint64_t", Kind.INTEGER, 8, False),
                                           TracerArgument(1, "class", "int", Kind.INTEGER, 4, True)),
                             (probe_notes.Site(0x1189, 0x4010, SPECS), probe_notes.Site(0x11a0, 0x4010, SPECS)),
                             0x4010, "kv.d")
NOTED = probe_notes.Probe("sdt", "tick", (), (probe_notes.Site(0x1200, 0, ()),), 0, None)
MODULES = [elf.Module("/bin/app", (DECLARED, NOTED)), elf.Module("/lib/libkv.so", ())]


def listed() -> dict:
    return listing._json(None, [listing.Listed(module, (), None) for module in MODULES], [])


class ReadTest(unittest.TestCase):
    def test_a_listing_reads_back_as_its_modules(self):
        self.assertEqual(manifest.read_manifest("app.json", json.dumps(listed())), MODULES)
        self.assertEqual(manifest.VERSION, listing.JSON_VERSION)

    def test_what_is_no_manifest(self):
        later = dict(listed(), version=2)
        no_kind = listed()
        no_kind["modules"][0]["probes"][0]["arguments"][1]["kind"] = "float"
        wrong_type = listed()
        wrong_type["modules"][0]["probes"][0]["sites"][0]["address"] = "0x1189"
        boolean = listed()
        boolean["modules"][0]["probes"][0]["sites"][0]["address"] = True
        for text, message in (
                ("[1, 2", "app.json: neither an ELF file nor a `usdt list --json` manifest (Expecting ',' delimiter)"),
                ("[]", "app.json: not a `usdt list --json` manifest (the top level is not an object with `modules`)"),
                (json.dumps(later), "app.json: a manifest of version 2; this usdt reads version 1"),
                (json.dumps(no_kind), "app.json: not a `usdt list --json` manifest (modules[0].probes[0].arguments[1]"
                                      ".kind is \"float\", no kind usdt knows)"),
                (json.dumps(wrong_type), "app.json: not a `usdt list --json` manifest (modules[0].probes[0].sites[0]"
                                         ".address is not a number)"),
                (json.dumps(boolean), "app.json: not a `usdt list --json` manifest (modules[0].probes[0].sites[0]"
                                      ".address is not a number)")):
            with self.subTest(message=message):
                with self.assertRaises(ToolError) as raised:
                    manifest.read_manifest("app.json", text)
                self.assertEqual(str(raised.exception), message)


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
