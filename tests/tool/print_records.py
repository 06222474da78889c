"""Prints what `usdt trace` prints for each line of standard input, bpftrace's `-f json` output of
the program tracing every probe of FILE (module 0): a hit's records (usdttool/bpftrace/hits.py)
as its line, a string bpftrace read as "" read by usdt (unread_strings.py). usage:
print_records.py FILE. Run under the interpreter usdt runs in (launcher.py), with the source tree
on PYTHONPATH."""

import sys

from usdttool.answers import output
from usdttool.bpftrace import json_events, program, releases, unread_strings
from usdttool.files import elf

if __name__ == "__main__":
    selected = program.select(program.describe([elf.read_module(sys.argv[1])], None), [], sys.argv[1])
    plan = program.plan(selected, "", program.Measures(lines=True, records=False, count=False),
                        releases.NEWEST_TESTED)
    printed = output.Output([probe.traced for probe in plan.probes], unread_strings.UnreadStrings(selected),
                            lines=True, json_hits=False, summary=None, timeline=None)
    for line in sys.stdin.buffer:
        printed.emit(printed.read(json_events.parse(line)), None)
