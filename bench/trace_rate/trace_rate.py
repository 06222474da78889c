#!/usr/bin/env python3
"""How many hits per second `usdt trace` keeps up with, printed as one JSON object on stdout:
bench/trace_rate/flood fires two probes as fast as it can, untraced, then under `usdt trace`
in each way of tracing it:

- `--count` and `--latency`: counted in BPF maps, nothing printed per hit: what they count
  must equal what fired (lost: the difference);
- the hit lines, and `--json`, into /dev/null: the hits usdt reports lost
  (`usdt: lost N of M hits`).

For each: the program's hits per second (its own clock, the loop alone) and the ratio to the
untraced run's, the hits lost, `rounds` runs, medians. Needs root and bpftrace.

usage: trace_rate.py --usdt BIN/usdt [--build-dir DIR] [--rounds N] [--hits N]
Builds bench/trace_rate as a project of its own in DIR first.
"""

import argparse
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_RESULT_RE = re.compile(r"^hits=(\d+) ns=(\d+)$", re.MULTILINE)
_LOST_RE = re.compile(r"^usdt: lost (\d+) of (\d+) hits", re.MULTILINE)
_COUNT_RE = re.compile(r"^ +(\d+) +[\d.]+  flood:request__(?:start|done)$", re.MULTILINE)
_SPANS_RE = re.compile(r"flood:request \(by id\): (\d+) in")
# How each mode runs usdt trace (None: the program alone).
MODES = {
    "untraced": None,
    "--count": ["--count"],
    "--latency": ["--latency"],
    "lines": [],
    "--json": ["--json"],
}


def build(build_dir: Path) -> Path:
    for command in (["cmake", "-S", str(HERE), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release"],
                    ["cmake", "--build", str(build_dir), "-j2"]):
        completed = subprocess.run(command, capture_output=True, text=True)
        if completed.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{completed.stdout}{completed.stderr}")
    return build_dir / "flood"


def run(usdt: str, flood: Path, mode: str, count: int) -> dict:
    """One run: hits/s as the program saw it (on its stderr), and hits lost."""
    arguments = MODES[mode]
    command = [str(flood), str(count)]
    if arguments is not None:
        command = [usdt, "trace", str(flood), *arguments, "--", *command]
    summaries = mode in ("--count", "--latency")
    completed = subprocess.run(command, stdout=subprocess.PIPE if summaries else subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, timeout=600)
    if completed.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{completed.stderr}")
    result = _RESULT_RE.search(completed.stderr)
    if result is None:
        sys.exit(f"{' '.join(command)} printed no result:\n{completed.stderr}")
    fired = 2 * count
    if mode == "--count":
        lost = fired - sum(int(value) for value in _COUNT_RE.findall(completed.stdout))
    elif mode == "--latency":
        lost = fired - 2 * int(_SPANS_RE.search(completed.stdout)[1])
    else:
        found = _LOST_RE.search(completed.stderr)
        lost = int(found[1]) if found else 0
    return {"hits_per_s": fired / (int(result[2]) / 1e9), "lost": lost}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--usdt", required=True)
    parser.add_argument("--build-dir", type=Path, default=Path("build/trace_rate"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hits", type=int, default=500_000, help="each probe's, per run")
    arguments = parser.parse_args()
    flood = build(arguments.build_dir)
    results = {}
    for mode in MODES:
        runs = [run(arguments.usdt, flood, mode, arguments.hits) for _ in range(arguments.rounds)]
        results[mode] = {"hits_per_s": statistics.median(one["hits_per_s"] for one in runs),
                         "lost": statistics.median(one["lost"] for one in runs),
                         "fired": 2 * arguments.hits}
    json.dump(results, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
