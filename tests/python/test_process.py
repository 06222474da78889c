"""Unit tests of usdttool.files.process on this very process: the files it maps with probes (an ELF
file written here, tests/support/written_elf.py, mapped as a loader would map it), the value of
a semaphore in its memory, and what cannot be read."""

import ctypes
import mmap
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import usdt_testing
from written_elf import PF_R, PF_W, elf_file, stapsdt_note

from usdttool.files import process
from usdttool.errors import ToolError

SEMAPHORE = 0x400040        # file offset 0x40: the program header's first bytes, PT_LOAD (1)


class MappedFileTest(unittest.TestCase):
    def setUp(self):
        scratch = tempfile.TemporaryDirectory(prefix="test_process.")
        self.addCleanup(scratch.cleanup)
        self.path = str(Path(scratch.name, "libmapped.so"))
        Path(self.path).write_bytes(elf_file(stapsdt_note("app", "tick", "", 0x400010, 0x400100, SEMAPHORE),
                                             segments=((0, 0x400000, None, PF_R | PF_W),)))
        with open(self.path, "rb") as file:
            self.mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_COPY)   # private, writable
        self.addCleanup(self.mapped.close)

    def mapped_module(self) -> process.ProcessModule:
        running = process.read_process(os.getpid())
        found = [module for module in running.modules if module.module.path == self.path]
        self.assertEqual(len(found), 1, [module.module.path for module in running.modules])
        return found[0]

    def test_a_mapped_file_with_probes(self):
        module = self.mapped_module()
        self.assertEqual([probe.name for probe in module.module.probes], ["tick"])
        self.assertEqual([(mapping.offset, mapping.path) for mapping in module.mappings], [(0, self.path)])
        skipped = process.read_process(os.getpid(), skip={self.path})
        self.assertNotIn(self.path, [module.module.path for module in skipped.modules])

    def test_the_semaphore_s_current_value(self):
        module = self.mapped_module()
        self.assertEqual(process.semaphore_value(os.getpid(), module, SEMAPHORE), process.SemaphoreValue(1, None))
        self.mapped[0x40:0x42] = (0).to_bytes(2, "little")
        value = process.semaphore_value(os.getpid(), module, SEMAPHORE)
        self.assertEqual((value.value, value.active), (0, False))
        self.mapped[0x40:0x42] = (0x102).to_bytes(2, "little")
        self.assertEqual(process.semaphore_value(os.getpid(), module, SEMAPHORE).value, 0x102)

    def test_semaphores_that_cannot_be_read(self):
        module = self.mapped_module()
        self.assertEqual(process.semaphore_value(os.getpid(), module, 0x900000),
                         process.SemaphoreValue(None, "semaphore 0x900000 is not in the file's loaded contents"))
        unmapped = process.ProcessModule(module.module, ())
        self.assertEqual(process.semaphore_value(os.getpid(), unmapped, SEMAPHORE),
                         process.SemaphoreValue(None, f"semaphore 0x{SEMAPHORE:x} is not mapped in process "
                                                      f"{os.getpid()}"))

    def test_faulting_in_changes_nothing(self):
        running = process.Process(os.getpid(), (self.mapped_module(),), ())
        process.fault_in(running, {self.path})
        self.assertEqual(process.semaphore_value(os.getpid(), running.modules[0], SEMAPHORE).value, 1)


class DynamicLinkerTest(unittest.TestCase):
    """This process's dynamic linker, as a tracer hears it load libraries."""

    def test_its_r_state_is_consistent_between_loads(self):
        linker = process.dynamic_linker(os.getpid())
        self.assertIsNotNone(linker)
        # ld-linux-x86-64.so.2 since glibc 2.34 (Debian 12), ld-2.31.so before it (Debian 11).
        self.assertRegex(os.path.basename(linker.path), r"^ld-(linux|\d)")
        # No dlopen() under way: r_state is RT_CONSISTENT at the address found.
        self.assertEqual(ctypes.c_int.from_address(linker.state_address).value, linker.RT_CONSISTENT)

    def test_a_process_in_a_session_of_its_own_may_be_stopped(self):
        child = subprocess.Popen(["sleep", "60"], start_new_session=True)
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        self.assertIsNone(process.why_not_stopped(child.pid))
        self.assertFalse(process.is_stopped(child.pid))
        self.assertFalse(process.has_a_root_of_its_own(child.pid))


class ProcessErrorTest(unittest.TestCase):
    def test_no_such_process(self):
        pid = 2 ** 22 + 1      # above the kernel's largest pid_max
        with self.assertRaises(ToolError) as caught:
            process.read_process(pid)
        self.assertEqual(str(caught.exception), f"no process {pid}")

    def test_a_file_whatever_path_names_it(self):
        with tempfile.TemporaryDirectory() as directory:
            target = Path(directory, "file")
            target.write_text("x")
            link = Path(directory, "link")
            link.symlink_to(target)
            self.assertEqual(process.file_identity(str(link)), process.file_identity(str(target)))
            self.assertNotEqual(process.file_identity(str(target)), process.file_identity(directory))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
