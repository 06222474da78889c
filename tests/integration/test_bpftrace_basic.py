"""Probes read back by the bpftrace of the machine, whatever its release (Debian 11's 0.11.3
included): programs/basic.c fires each probe of basic.d once, from one site in the program
itself, and prints what it passed; `bpftrace -c` (which raises the semaphores through the
kernel as the program maps its file) must print the same values, the guarded probe's too.

test_bpftrace.py reads every program of the integration tests, libraries and probes with
several sites included, which bpftrace before 0.17 does not (see docs/cmake.md, Debian 11).
"""

import subprocess
import unittest

import bpftrace_attach
from usdt_testing import main, parse_options, require_tracer

PROGRAMS = {}
# The probes of basic.d and their argument specs' signs, as in its notes.
PROBES = {"basic:signed__ints": (True, True, True, True), "basic:unsigned__ints": (False, False, False, False),
          "basic:words": (False, False, None, False), "basic:guarded": (True,)}
# bpftrace 0.11.3 reads a signed argument of 1, 2 or 4 bytes without its sign; 0.17 with it.
SIGNED_NARROW_SINCE = (0, 17)
NARROW_SIZES = {0: 8, 1: 16, 2: 32}   # the bits of signed__ints' first three arguments


def script(program: str) -> str:
    actions = []
    for probe, signs in PROBES.items():
        formats = [f"HIT {probe}"] + ["%s" if signed is None else "%lld" if signed else "%llu" for signed in signs]
        arguments = [f"str(arg{index})" if signed is None else f"arg{index}" for index, signed in enumerate(signs)]
        provider, name = probe.split(":")
        actions.append(f'usdt:{program}:{provider}:{name} {{ printf("{"|".join(formats)}\\n", {", ".join(arguments)}); }}')
    return "\n".join(actions)


class BasicUnderBpftrace(unittest.TestCase):
    def test_every_kind_of_argument_and_the_semaphore(self):
        require_tracer(self, "bpftrace", every_release=True)
        program = PROGRAMS["basic"]
        traced = subprocess.run(["bpftrace", "-e", script(program), "-c", program],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(traced.returncode, 0, traced.stdout + traced.stderr)
        self.assertNotIn("guarded off", traced.stdout)
        sent = [line.replace("SENT ", "HIT ", 1) for line in traced.stdout.splitlines() if line.startswith("SENT ")]
        self.assertEqual(len(sent), len(PROBES), traced.stdout)
        if bpftrace_attach.release() < SIGNED_NARROW_SINCE:
            sent = [unsigned_narrow(line) for line in sent]
        self.assertEqual(bpftrace_attach.hit_lines(traced.stdout), sent, traced.stdout + traced.stderr)


def unsigned_narrow(line: str) -> str:
    """`line` as a bpftrace that drops the sign of narrow arguments prints it."""
    fields = line.split("|")
    if fields[0] == "HIT basic:signed__ints":
        for index, bits in NARROW_SIZES.items():
            fields[index + 1] = str(int(fields[index + 1]) % (1 << bits))
    return "|".join(fields)


if __name__ == "__main__":
    _, PROGRAMS = parse_options(program_names=("basic",))
    main()
