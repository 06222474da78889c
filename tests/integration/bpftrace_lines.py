"""The bpftrace program that reads expected.py's hits back, and the lines it must print: one
printf_action (tests/support/bpftrace_attach.py) per probe, at the probe's attach point in a
file. tests/integration and tests/cross (bpftrace on the i386 programs) share them.
"""

from typing import Dict, Sequence, Tuple

import bpftrace_attach
import expected


def program(path: str, specs: Dict[str, Tuple[str, ...]], hits: Sequence[expected.Hit]) -> str:
    """`usdt:PATH:provider:name { printf(...) }` for each probe of `hits`, formatted by the
    `[-]SIZE@` of each argument in `specs` (expected.Module.expected_specs())."""
    first_hits: Dict[str, expected.Hit] = {}
    for hit in hits:
        first_hits.setdefault(hit.probe, hit)
    return "\n".join(
        f"usdt:{path}:{probe} " + bpftrace_attach.printf_action(
            probe, specs[probe], hit.values, lambda value: isinstance(value, expected.Text))
        for probe, hit in first_hits.items())


def expected_lines(hits: Sequence[expected.Hit], output: str):
    """What the probe actions print, with `Address` values taken from the program's output."""
    lines = []
    for hit in hits:
        values = expected.resolve(hit.values[:bpftrace_attach.arguments_read()], output)
        lines.append("|".join([f"HIT {hit.probe}", *map(str, values)]))
    return lines
