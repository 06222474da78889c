"""Unit tests of usdttool.main, the `usdt` command line: one line per error and its exit
status, `--` for usdt trace alone, and a provider file's errors where they are (-d), whatever
step of the generator's pipeline reports them."""

import contextlib
import io
import select
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import usdt_testing
from written_elf import elf_file, stapsdt_note

from usdttool import main
from usdttool.bpftrace import supervisor


def run(*argv):
    """(exit status, stdout, stderr) of `usdt argv...`."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            status = main.main(list(argv))
        except SystemExit as exit:
            status = exit.code
    return status, stdout.getvalue(), stderr.getvalue()


class CommandLineTest(unittest.TestCase):
    def test_errors_are_one_line(self):
        self.assertEqual(run("list"), (1, "", "usdt: error: nothing to list: give a file, a process id or -p PID\n"))
        self.assertEqual(run("list", "/nonexistent/app"), (1, "", "usdt: error: /nonexistent/app: no such file\n"))

    def test_usage_errors_exit_2(self):
        status, stdout, stderr = run("lists")
        self.assertEqual((status, stdout), (2, ""))
        self.assertRegex(stderr, r"^usdt: error: argument COMMAND: invalid choice: 'lists' .*\(see 'usdt --help'\)\n\Z")
        self.assertEqual(run("list", "/bin/true", "--", "true"),
                         (2, "", "usdt: error: only `usdt trace` runs a command given after `--`\n"))

    def test_trace_takes_patterns_among_its_options(self):
        status, _, stderr = run("trace", "/nonexistent/app", "--script", "kv:*", "--count")
        self.assertEqual((status, stderr), (1, "usdt: error: /nonexistent/app: no such file\n"))

    def test_a_provider_file_s_errors_where_they_are(self):
        # --script for the newest bpftrace tested, as where none is installed: an older one on
        # PATH (Debian 11's 0.11.3) is refused before the provider file is read.
        no_bpftrace = mock.patch.object(supervisor, "find_bpftrace", return_value=None)
        with tempfile.TemporaryDirectory() as directory, no_bpftrace:
            provider_file = Path(directory, "p.d")
            provider_file.write_text("provider p {\n  probe x(float f);\n};\n")
            binary = Path(directory, "app")
            binary.write_bytes(elf_file(stapsdt_note("p", "x", "-8@%rdi", 0x400010, 0x400100, 0)))
            status, stdout, stderr = run("trace", str(binary), "--script", "-d", str(provider_file))
            self.assertEqual((status, stdout), (1, ""))
            self.assertTrue(stderr.startswith(f"{provider_file}:2:11: error: argument type 'float': "), stderr)
            self.assertEqual(stderr.count("\n"), 1)
            provider_file.write_text('#include "missing_header.h"\nprovider p {\n  probe x(long);\n};\n')
            status, stdout, stderr = run("trace", str(binary), "--script", "-d", str(provider_file))
            self.assertEqual((status, stdout), (1, ""))
            self.assertTrue(stderr.startswith(f"{provider_file}:1:"), stderr)
            self.assertIn("missing_header.h", stderr)
            provider_file.write_text("provider p {\n  probe x(long);\n};\n")
            status, stdout, stderr = run("trace", str(binary), "--script", "-d", str(provider_file))
            self.assertEqual((status, stderr), (0, ""))
            # The declared `long`, signed: the record (for bpftrace -f json) prints it as %lld.
            self.assertIn('printf("usdt-hit 0 %llu %d %d 0x%lx %lld %s",', stdout)

    def test_the_jinja2_the_launcher_looks_for(self):
        # usdt imports it only to render a trace's program; bin/launcher.in looks for it at the start.
        self.assertEqual(main.LATER_IMPORTS, ("jinja2",))


class WholeLinesTest(unittest.TestCase):
    """usdt's standard output, which the traced command shares: each write ends at a line's end
    and fits in PIPE_BUF, so the command's lines come between usdt's, never inside one."""

    def written(self, texts, accepted=None):
        """The writes of `texts` through usdt's standard output; `accepted(size)`: how many bytes
        a write takes (a pipe may take fewer)."""
        writes = []

        def write(descriptor, data):
            taken = len(data) if accepted is None else accepted(len(data))
            writes.append(bytes(data[:taken]))
            return taken
        with mock.patch.object(main.os, "write", side_effect=write):
            stdout = io.TextIOWrapper(main._WholeLines(1), encoding="utf-8")
            for text in texts:
                stdout.write(text)
            stdout.flush()
        return writes

    def test_each_write_ends_a_line_and_fits_in_pipe_buf(self):
        lines = [f"{n} pid=1 tid=1 spans:flood n={'x' * (n % 300)}\n" for n in range(5000)]
        for accepted in (None, lambda size: max(1, size // 3)):
            with self.subTest(partial_writes=accepted is not None):
                writes = self.written(lines, accepted)
                self.assertEqual(b"".join(writes).decode(), "".join(lines))
                if accepted is None:
                    self.assertTrue(all(len(write) <= select.PIPE_BUF and write.endswith(b"\n") for write in writes))
                    self.assertGreater(len(writes), 100)

    def test_a_flush_writes_an_unfinished_line_and_a_longer_one_is_cut(self):
        self.assertEqual(self.written(["usdt: tracing", " 1 probe"]), [b"usdt: tracing 1 probe"])
        long_line = "x" * (2 * select.PIPE_BUF) + "\n"
        writes = self.written([long_line])
        self.assertEqual(b"".join(writes), long_line.encode())
        self.assertTrue(all(len(write) <= select.PIPE_BUF for write in writes))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
