"""Runs a program under gdb (no root needed) with `break -probe-stap PROVIDER:NAME` on each
probe, and collects what gdb lists (`info probes`) and reads at every hit.

Each breakpoint's commands evaluate `$_probe_argc` and `$_probe_arg0..N` through gdb's
Python API, so that a probe gdb cannot read is reported as an error for that hit instead
of ending the whole session. String arguments are read through `(char *)$_probe_argN`.
"""

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import elf_notes

# Defined inside gdb. Prints `HIT provider:name [values...]` or `HIT provider:name error: ...`.
REPORTER = r'''python
import json
def usdt_report(probe, string_indices):
    try:
        count = int(gdb.parse_and_eval("$_probe_argc"))
        values = []
        for index in range(count):
            if index in string_indices:
                values.append(gdb.parse_and_eval("(char *)$_probe_arg%d" % index).string())
            else:
                values.append(int(gdb.parse_and_eval("$_probe_arg%d" % index)))
        print("HIT %s %s" % (probe, json.dumps(values)))
    except gdb.error as error:
        print("HIT %s error: %s" % (probe, error))
end
'''

_PROBES_BEGIN, _PROBES_END = "==info probes==", "==end info probes=="

# Probes are read from their notes and registers, never from DWARF. Where the system libraries'
# separate debug info is installed (libc6-dbg), loading it is most of a session's work and
# makes runs differ between machines that have it and machines that do not.
NO_SEPARATE_DEBUG_INFO = ("-iex", "set debug-file-directory")


@dataclass(frozen=True)
class GdbHit:
    probe: str
    values: Tuple          # ints and strs, or ("error: ...",) when gdb could not read the probe


@dataclass(frozen=True)
class GdbRun:
    listed: Tuple[Tuple[str, str], ...]   # (provider:name, object path) per `info probes` row, glibc's aside
    hits: Tuple[GdbHit, ...]
    exited_normally: bool
    output: str


def run(program: str, arguments: Sequence[str], string_indices: Dict[str, Sequence[int]],
        start_first: bool = False) -> GdbRun:
    """Breaks on every probe in `string_indices` (probe -> indices of its string arguments).

    With `start_first`, runs to main before listing probes and setting breakpoints, so that
    the probes of shared libraries are known.
    """
    lines = ["set pagination off", "set confirm off", REPORTER]
    if start_first:
        lines.append("start")
    lines += probe_commands(string_indices)
    lines.append("continue" if start_first else "run")
    script = "\n".join(lines) + "\n"

    with tempfile.NamedTemporaryFile("w", prefix="usdt-", suffix=".gdb") as script_file:
        script_file.write(script)
        script_file.flush()
        completed = subprocess.run(
            ["gdb", "-nx", "-batch", *NO_SEPARATE_DEBUG_INFO, "-x", script_file.name, "--args", program, *arguments],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    return result(completed.stdout, completed.stdout + completed.stderr)


def probe_commands(string_indices: Dict[str, Sequence[int]], reporter: str = "usdt_report") -> List[str]:
    """gdb commands that list the probes, then break on each one and report its arguments
    through `reporter`, REPORTER's function or one that takes the same arguments (which must
    be defined first)."""
    lines = [f"echo {_PROBES_BEGIN}\\n", "info probes", f"echo {_PROBES_END}\\n"]
    for probe, indices in string_indices.items():
        lines += [f"break -probe-stap {probe}", "commands", "silent",
                  f"python {reporter}({probe!r}, {sorted(indices)!r})", "continue", "end"]
    return lines


def result(stdout: str, output: str) -> GdbRun:
    """What a gdb session running probe_commands printed: `stdout` is gdb's, `output` all of it."""
    return GdbRun(_listed(stdout), _hits(stdout),
                  re.search(r"\[Inferior 1 \(process \d+\) exited normally\]", output) is not None,
                  output)


def _listed(stdout: str) -> Tuple[Tuple[str, str], ...]:
    """The `info probes` rows of the program and its own libraries: glibc's left out
    (elf_notes.GLIBC_PROVIDERS)."""
    table = stdout.partition(_PROBES_BEGIN)[2].partition(_PROBES_END)[0]
    rows = (line.split() for line in table.splitlines())
    # Type Provider Name Where Semaphore Object; the semaphore column is empty without one.
    return tuple((f"{row[1]}:{row[2]}", row[-1]) for row in rows
                 if row and row[0] == "stap" and row[1] not in elf_notes.GLIBC_PROVIDERS)


def _hits(stdout: str) -> Tuple[GdbHit, ...]:
    hits: List[GdbHit] = []
    for match in re.finditer(r"^HIT (\S+) (.*)$", stdout, re.MULTILINE):
        probe, rest = match.groups()
        values = (rest,) if rest.startswith("error:") else tuple(json.loads(rest))
        hits.append(GdbHit(probe, values))
    return tuple(hits)
