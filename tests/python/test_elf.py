"""Unit tests of usdttool.files.elf: reading an ELF file's probes, segments and linkage, with struct and,
for what struct leaves, pyelftools, which must agree. The files are written byte by byte
(tests/support/written_elf.py)."""

import os
import sys
import tempfile
import unittest
from pathlib import Path

import tool_python
import usdt_testing
from written_elf import PF_R, PF_W, elf_file, stapsdt_note

tool_python.use_an_interpreter_with_pyelftools()
from usdttool.files import elf  # noqa: E402
from usdttool.errors import ToolError  # noqa: E402

# The uid and gid of nobody: root reads any file, so a child of the tests that must be refused
# becomes nobody.
NOBODY = 65534


class ElfTestCase(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix="test_elf.")
        self.addCleanup(scratch.cleanup)
        self.directory = Path(scratch.name)

    def write(self, data: bytes, name="libprobes.so") -> str:
        path = self.directory / name
        path.write_bytes(data)
        return str(path)

    def read_both_ways(self, path: str) -> elf.Module:
        """read_module()'s Module, after checking that pyelftools reads the same."""
        module = elf.read_module(path)
        with elf._elf_file(path) as file:
            self.assertEqual(elf._module(path, file), module)
        return module


class ModuleTest(ElfTestCase):
    def test_probes_sites_and_segments(self):
        notes = stapsdt_note("app", "tick", "-4@%edi", 0x400010, 0x400100, 0x401000)
        notes += stapsdt_note("app", "tick", "-4@%esi", 0x400020, 0x400100, 0x401000)
        path = self.write(elf_file(notes))
        module = self.read_both_ways(path)
        (probe,) = module.probes
        self.assertEqual((probe.provider, probe.name, probe.semaphore), ("app", "tick", 0x401000))
        self.assertEqual([site.address for site in probe.sites], [0x400010, 0x400020])
        self.assertEqual([argument.type_name for argument in probe.arguments], ["int32_t"])
        self.assertEqual((module.path, module.pointer_size, module.warnings), (path, 8, ()))
        (segment,) = module.segments
        self.assertEqual((segment.address, segment.offset, segment.writable), (0x400000, 0, False))

    def test_a_moved_file_s_sites_follow_its_stapsdt_base(self):
        path = self.write(elf_file(stapsdt_note("app", "tick", "", 0x1010, 0x1000, 0), base_address=0x400000))
        self.assertEqual(self.read_both_ways(path).probes[0].sites[0].address, 0x400010)

    def test_file_offsets_of_addresses(self):
        path = self.write(elf_file(segments=((0, 0x400000, 0x100, PF_R), (0x100, 0x600100, 0x80, PF_R | PF_W))))
        module = self.read_both_ways(path)
        self.assertEqual(module.file_offset(0x400010), 0x10)
        self.assertEqual(module.file_offset(0x600140), 0x140)
        self.assertIsNone(module.file_offset(0x600180))      # past the file part: not file-backed
        self.assertTrue(module.segment(0x600100).writable)

    def test_a_semaphore_on_a_page_an_earlier_writable_segment_maps(self):
        note = stapsdt_note("app", "tick", "", 0x400010, 0x400100, 0x600120)
        shared = self.write(elf_file(note, segments=((0, 0x400000, 0x100, PF_R | PF_W),
                                                     (0x100, 0x600100, 0x80, PF_R | PF_W))))
        self.assertEqual(self.read_both_ways(shared).warnings, (elf.SHARED_SEMAPHORE_PAGE,))
        apart = self.write(elf_file(note, segments=((0, 0x400000, 0x100, PF_R),
                                                    (0x100, 0x600100, 0x80, PF_R | PF_W))), "apart.so")
        self.assertEqual(self.read_both_ways(apart).warnings, ())

    def test_a_file_without_probes(self):
        path = self.write(elf_file(b"", note_section=".note.gnu.build-id"))
        self.assertEqual(self.read_both_ways(path).probes, ())
        self.assertFalse(elf.may_have_probes(path))
        self.assertTrue(elf.may_have_probes(self.write(elf_file(b""), "with_stapsdt.so")))

    def test_linkage_of_a_file_without_dynamic_section(self):
        path = self.write(elf_file())
        linkage = elf.read_linkage(path)
        self.assertEqual((linkage.elf_class, linkage.machine, linkage.needed, linkage.interpreter),
                         (64, "EM_X86_64", (), None))
        with elf._elf_file(path) as file:
            self.assertEqual(elf._linkage(file), linkage)


class FileErrorTest(ElfTestCase):
    def assertToolError(self, path, message, error=ToolError):
        with self.assertRaises(error) as caught:
            elf.read_module(path)
        self.assertEqual(str(caught.exception), message)

    def test_what_cannot_be_read(self):
        missing = str(self.directory / "missing")
        self.assertToolError(missing, f"{missing}: no such file")
        self.assertToolError(str(self.directory), f"{self.directory}: is a directory")
        self.assertToolError(self.write(b"#!/bin/sh\n", "script"), f"{self.directory}/script: not an ELF file",
                             elf.NotELFError)

    def test_a_damaged_file_is_said_to_be_one(self):
        damaged = elf_file(stapsdt_note("app", "tick", "", 0x400010, 0, 0))[:70]
        path = self.write(damaged, "damaged.so")
        with self.assertRaises(ToolError) as caught:
            elf.read_module(path)
        self.assertTrue(str(caught.exception).startswith(f"{path}: malformed ELF file ("), caught.exception)
        self.assertTrue(elf.may_have_probes(path))   # unsure: read_module() decides

    def test_permission_denied(self):
        path = self.write(elf_file(), "private.so")
        os.chmod(path, 0)
        if os.geteuid() != 0:
            self.assertToolError(path, f"{path}: permission denied")
            return
        # Root reads any file: a child that has given root up tries.
        child = os.fork()
        if child == 0:
            try:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                self.assertToolError(path, f"{path}: permission denied")
            except BaseException as error:
                sys.stderr.write(f"as uid {NOBODY}: {error!r}\n")
                os._exit(1)
            os._exit(0)
        _, status = os.waitpid(child, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)


class SegmentTest(unittest.TestCase):
    def test_the_file_pages_a_loader_maps(self):
        self.assertEqual(elf.LoadSegment(0x1000, 0x0, 0x1000).file_pages(4096), range(0, 1))
        self.assertEqual(elf.LoadSegment(0x2ff0, 0xff0, 0x20).file_pages(4096), range(0, 2))
        self.assertEqual(elf.LoadSegment(0x3000, 0x3000, 0).file_pages(4096), range(0))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
