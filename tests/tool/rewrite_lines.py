"""Prints each line of standard input as `usdt trace` prints it from bpftrace: marked lines
(usdttool/unread_strings.py) with their strings read. usage: rewrite_lines.py FILE, the
probed file of the program's module 0, every probe selected. Run under the interpreter usdt
runs in (launcher.py), with the source tree on PYTHONPATH."""

import sys

from usdttool import elf, trace_program, unread_strings

if __name__ == "__main__":
    selected = trace_program.select(trace_program.describe([elf.read_module(sys.argv[1])], None), [], sys.argv[1])
    rewriter = unread_strings.UnreadStrings(selected)
    for line in sys.stdin:
        sys.stdout.write(rewriter.rewrite(line))
