#!/usr/bin/env python3
"""The cost of a probe site with the default 1-byte nop and with the USDT_X86_NOP5 opt-in
(lea, 5-byte nop, lea), printed as one JSON object on stdout:

- disabled: instructions each site adds to a loop iteration, counted by callgrind (the
  loop's instructions per iteration with the probe, minus the same loop without it), and
  the untraced loop's nanoseconds per iteration;
- enabled (root and bpftrace): nanoseconds per hit with bpftrace attached to both programs,
  `rounds` runs of each, interleaved, medians; the ratio nop5 / nop1; the first hit's
  nanoseconds (when the kernel optimizes the 5-byte nop); whether the kernel mapped its
  [uprobes-trampoline], i.e. took the optimized path. Without root or bpftrace, `enabled`
  is null and `enabled_skipped` says why.

usage: nop5_hit_cost.py [--build-dir DIR] [--rounds N] [--hits N]
Builds bench/nop5 (hit_cost.c twice) as a project of its own in DIR first.
"""

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests" / "support"))
import bpftrace_attach  # noqa: E402  (tests/support, importable only once the path is set)

SITES = ("nop1", "nop5")
CALLGRIND_COUNTS = (100_000, 200_000)
_RESULT_RE = re.compile(r"first_hit_ns=(\d+) ns_per_iteration=([0-9.]+) trampoline=(yes|no)")


def build(build_dir):
    """Configures and builds the two programs; returns {site: path}."""
    for command in (["cmake", "-S", str(HERE), "-B", str(build_dir)],
                    ["cmake", "--build", str(build_dir), "-j2"]):
        completed = subprocess.run(command, capture_output=True, text=True)
        if completed.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{completed.stdout}{completed.stderr}")
    return {site: str(build_dir / f"hit_cost_{site}") for site in SITES}


def run(program, mode, count):
    """(first hit ns, ns per later iteration, trampoline mapped) of one run."""
    completed = subprocess.run([program, mode, str(count)], capture_output=True, text=True,
                               check=True, timeout=120)
    match = _RESULT_RE.search(completed.stdout)
    if match is None:
        sys.exit(f"{program} printed no result:\n{completed.stdout}")
    return int(match[1]), float(match[2]), match[3] == "yes"


def interleaved(programs, mode, count, rounds):
    """{site: [run results]}, the sites alternating first and second round by round."""
    results = {site: [] for site in SITES}
    for round_number in range(rounds):
        order = SITES if round_number % 2 == 0 else SITES[::-1]
        for site in order:
            results[site].append(run(programs[site], mode, count))
    return results


def callgrind_instructions(program, mode, count):
    """Instructions the whole run executed, as callgrind counts them."""
    completed = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", program, mode, str(count)],
        capture_output=True, text=True, check=True, timeout=600)
    match = re.search(r"Collected : (\d+)", completed.stderr)
    if match is None:
        sys.exit(f"callgrind reported no count:\n{completed.stderr}")
    return int(match[1])


def instructions_per_iteration(program, mode):
    low, high = CALLGRIND_COUNTS
    return (callgrind_instructions(program, mode, high) - callgrind_instructions(program, mode, low)) / (high - low)


def disabled_cost(programs, hits, rounds):
    untraced = interleaved(programs, "probe", hits, rounds)
    instructions = {}
    for site in SITES:
        empty = instructions_per_iteration(programs[site], "empty")
        instructions[site] = round(instructions_per_iteration(programs[site], "probe") - empty, 2)
    return {
        "instructions_per_site": instructions,
        "ns_per_iteration": {site: round(statistics.median(r[1] for r in untraced[site]), 3) for site in SITES},
    }


def enabled_unavailable_reason():
    if shutil.which("bpftrace") is None:
        return "bpftrace is not installed"
    if os.geteuid() != 0:
        return "attaching uprobes needs root"
    return None


def enabled_cost(programs, hits, rounds, untraced_ns):
    script = bpftrace_attach.BEGIN_READY + "".join(
        f"usdt:{programs[site]}:nop5_bench:hit {{ @hits[\"{site}\"] = count(); }}\n" for site in SITES)
    output, traced = bpftrace_attach.trace(script, lambda: interleaved(programs, "probe", hits, rounds),
                                           expected_hits=0, timeout=60)
    counted = {site: int(count) for site, count in re.findall(r'@hits\[(\w+)\]: (\d+)', output)}
    # Without every hit reaching bpftrace, the timings would not be those of traced probes.
    if counted != {site: hits * rounds for site in SITES}:
        sys.exit(f"bpftrace counted {counted}, expected {hits * rounds} hits per site:\n{output}")
    per_hit = {site: round(statistics.median(r[1] for r in traced[site]) - untraced_ns[site], 1) for site in SITES}
    return {
        "ns_per_hit": per_hit,
        "nop5_over_nop1": round(per_hit["nop5"] / per_hit["nop1"], 3),
        "first_hit_ns": {site: statistics.median(r[0] for r in traced[site]) for site in SITES},
        "trampoline_mapped": {site: all(r[2] for r in traced[site]) for site in SITES},
    }


def main():
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument("--build-dir", type=Path, default=Path("/tmp/usdt-nop5-bench"))
    arguments.add_argument("--rounds", type=int, default=11)
    arguments.add_argument("--hits", type=int, default=200_000, help="probe hits per run")
    options = arguments.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")

    programs = build(options.build_dir)
    report = {
        "kernel": platform.release(),
        "hits_per_run": options.hits,
        "rounds": options.rounds,
        "disabled": disabled_cost(programs, options.hits, options.rounds),
    }
    reason = enabled_unavailable_reason()
    report["enabled"] = None if reason else enabled_cost(programs, options.hits, options.rounds,
                                                          report["disabled"]["ns_per_iteration"])
    if reason:
        report["enabled_skipped"] = reason
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
