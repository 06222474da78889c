"""Prints each line of standard input as `usdt trace` prints it from bpftrace: marked lines
(usdttool/bpftrace/unread_strings.py) with their strings read. usage: rewrite_lines.py FILE, the
probed file of the program's module 0, every probe selected. Run under the interpreter usdt
runs in (launcher.py), with the source tree on PYTHONPATH."""

import sys

from usdttool.bpftrace import program, unread_strings
from usdttool.files import elf

if __name__ == "__main__":
    selected = program.select(program.describe([elf.read_module(sys.argv[1])], None), [], sys.argv[1])
    rewriter = unread_strings.UnreadStrings(selected)
    for line in sys.stdin:
        sys.stdout.write(rewriter.rewrite(line))
