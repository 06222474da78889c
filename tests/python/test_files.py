"""Unit tests of usdtgen.files: outputs replaced in one rename, left untouched when unchanged,
with the permissions any new file gets; after a failure, only regular files removed."""

import os
import shutil
import stat
import tempfile
import unittest
from pathlib import Path

import usdt_testing
from usdtgen import files


class WriteAtomicallyTest(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="usdt-files-"))
        self.addCleanup(shutil.rmtree, self.directory)
        self.output = self.directory / "out" / "probes.h"

    def leftovers(self):
        """What is in the output's directory besides the output."""
        return sorted(path.name for path in self.output.parent.iterdir() if path != self.output)

    def test_writes_the_text_creating_the_directory(self):
        files.write_atomically(self.output, "one\n")
        self.assertEqual(self.output.read_bytes(), b"one\n")
        self.assertEqual(self.leftovers(), [])

    def test_unchanged_text_leaves_the_file_untouched(self):
        files.write_atomically(self.output, "same\n")
        os.utime(self.output, (1_000_000, 1_000_000))
        inode = self.output.stat().st_ino
        files.write_atomically(self.output, "same\n")
        self.assertEqual((self.output.stat().st_mtime, self.output.stat().st_ino), (1_000_000, inode))

    def test_changed_text_replaces_the_file(self):
        files.write_atomically(self.output, "old\n")
        inode = self.output.stat().st_ino
        files.write_atomically(self.output, "new\n")
        self.assertEqual(self.output.read_text(), "new\n")
        self.assertNotEqual(self.output.stat().st_ino, inode, "a new file renamed over the old one")

    def test_newlines_are_written_as_given_and_text_as_utf8(self):
        files.write_atomically(self.output, "\u00e9\n")
        self.assertEqual(self.output.read_bytes(), "\u00e9\n".encode("utf-8"))

    def test_an_unreadable_old_file_is_replaced(self):
        self.output.parent.mkdir()
        self.output.write_bytes(b"\xff\xfe not UTF-8")
        files.write_atomically(self.output, "text\n")
        self.assertEqual(self.output.read_text(), "text\n")

    def test_permissions_are_a_new_files(self):
        # Not mkstemp's 0600: a tracer script built by one user must be readable by another.
        previous = os.umask(0o022)
        try:
            files.write_atomically(self.output, "x\n")
        finally:
            os.umask(previous)
        self.assertEqual(stat.S_IMODE(self.output.stat().st_mode), 0o644)


class ReplacedAtomicallyTest(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="usdt-files-"))
        self.addCleanup(shutil.rmtree, self.directory)
        self.output = self.directory / "probes.h"
        self.output.write_text("old\n")

    def test_a_failure_midway_keeps_the_old_file_and_no_temporary(self):
        with self.assertRaises(RuntimeError):
            with files.replaced_atomically(self.output) as temporary:
                temporary.write_text("half of the new")
                self.assertEqual(self.output.read_text(), "old\n", "readers see the old file meanwhile")
                raise RuntimeError("interrupted")
        self.assertEqual(self.output.read_text(), "old\n")
        self.assertEqual(sorted(path.name for path in self.directory.iterdir()), ["probes.h"])

    def test_success_replaces_the_file_and_leaves_no_temporary(self):
        with files.replaced_atomically(self.output) as temporary:
            self.assertEqual(temporary.parent.parent, self.directory, "beside the output: one file system")
            temporary.write_text("new\n")
        self.assertEqual(self.output.read_text(), "new\n")
        self.assertEqual(sorted(path.name for path in self.directory.iterdir()), ["probes.h"])


class RemoveStaleTest(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="usdt-files-"))
        self.addCleanup(shutil.rmtree, self.directory)

    def test_a_regular_file_is_removed_and_a_missing_one_is_no_error(self):
        output = self.directory / "probes.h"
        output.write_text("stale\n")
        files.remove_stale(output)
        files.remove_stale(output)
        self.assertFalse(output.exists())

    def test_what_no_run_made_is_left(self):
        # Not the machine's own /dev/null, as root: a link to it here.
        fifo = self.directory / "fifo"
        os.mkfifo(fifo)
        (self.directory / "directory").mkdir()
        (self.directory / "target.h").write_text("the user's\n")
        (self.directory / "null").symlink_to("/dev/null")
        (self.directory / "link.h").symlink_to("target.h")
        for name in ("fifo", "directory", "null", "link.h"):
            files.remove_stale(self.directory / name)
        self.assertEqual(sorted(path.name for path in self.directory.iterdir()),
                         ["directory", "fifo", "link.h", "null", "target.h"])
        self.assertTrue(stat.S_ISFIFO(fifo.lstat().st_mode))
        self.assertTrue(stat.S_ISCHR(os.stat("/dev/null").st_mode))


if __name__ == "__main__":
    usdt_testing.main()
