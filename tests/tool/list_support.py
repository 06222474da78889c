"""What test_list.py's tests share: the programs and options CTest passes, `usdt list` run
through the build tree's launcher, the tables it must print for tool_kvserver and
tool_kvstore (their probes as the .d files declare them), and the helpers reading what the
listing is compared with (readelf through tests/support/elf_notes.py, ldd, /proc).
"""

import argparse
import os
import re
import shutil
import subprocess
import unittest
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import elf_notes
import launcher as launcher_module
import usdt_testing

OPTIONS = argparse.Namespace()   # from the command line (parse_arguments)
PROGRAMS: Dict[str, str] = {}
PROGRAM_NAMES = ("kvserver", "kvstore", "sdt_only", "broken", "plain")

# tool_kvserver's probes (example-project/kvserver.d, probes/kvcache.d) and probes/kvstore.d,
# as `usdt list` must print them, in its order.
KVSERVER_SIGNATURES = {
    "kvcache:fill": "kvcache:fill(uint64_t id, const char * key, kv_op_t op)",
    "kvcache:get": "kvcache:get(uint64_t id, int status, bool hit, struct kv_entry * entry)",
    "kvcache:tick": "kvcache:tick()",
    "kvserver:request__done": "kvserver:request__done(uint64_t id, int status, uint64_t latency_ns)",
    "kvserver:request__start": "kvserver:request__start(uint64_t id, string op, string key)",
}
KVSERVER_ARGUMENTS = {
    "kvcache:fill": [("id", "uint64_t", "integer"), ("key", "const char *", "string"),
                     ("op", "kv_op_t", "integer")],
    "kvcache:get": [("id", "uint64_t", "integer"), ("status", "int", "integer"), ("hit", "bool", "bool"),
                    ("entry", "struct kv_entry *", "pointer")],
    "kvcache:tick": [],
    "kvserver:request__done": [("id", "uint64_t", "integer"), ("status", "int", "integer"),
                               ("latency_ns", "uint64_t", "integer")],
    "kvserver:request__start": [("id", "uint64_t", "integer"), ("op", "string", "string"),
                                ("key", "string", "string")],
}
KVSERVER_SITES = dict(dict.fromkeys(KVSERVER_SIGNATURES, 1), **{"kvcache:fill": 2})
KVSERVER_HEADING = f"{len(KVSERVER_SIGNATURES)} probes"
KVSERVER_SOURCES = {probe: f"{probe.split(':')[0]}.d" for probe in KVSERVER_SIGNATURES}
KVSTORE_SIGNATURE = "kvstore:lookup(const char * key, bool found)"
NOTES_FALLBACK = "argument names and types from the stapsdt notes"
SHARED_SEMAPHORE_PAGE = (
    "a semaphore is on a file page that an earlier writable segment (GNU_RELRO's, as lld and mold "
    "lay files out) also maps, where the kernel raises it instead: tracers that start the program "
    "(bpftrace -c, perf record -- CMD, usdt trace -- CMD) or that attach before it maps this file "
    "leave its ENABLED() false; attach to the running process (-p PID) instead, or relink with "
    "-Wl,-z,norelro (lld: -Wl,-z,separate-loadable-segments), or build the probes with usdt")


def usdt(*arguments, environment: Optional[Dict[str, str]] = None, command: Sequence[str] = (),
         cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
    """Runs `[command...] bin/usdt arguments...` (command: e.g. setpriv to run it as another user).
    With an environment or a command, through the launcher's #! line, as a user runs it; else
    directly under the interpreter it would end up in (launcher.py)."""
    launcher = [OPTIONS.usdt] if environment or command else launcher_module.direct(OPTIONS.usdt)
    return subprocess.run([*command, *launcher, *map(str, arguments)], capture_output=True, text=True,
                          env=dict(os.environ, **(environment or {})), cwd=cwd, check=False, timeout=120)


def semaphore_address(path: str, probe: str) -> int:
    """The address of `probe`'s (provider:name) semaphore."""
    return dict(elf_notes.symbols(path))[probe.replace(":", "_") + "_semaphore"]


def note_sites(path: str, probe: str):
    return sorted((note for note in elf_notes.notes(path) if f"{note.provider}:{note.name}" == probe),
                  key=lambda note: note.location)


def table(semaphores: Dict[str, str], sources: Dict[str, str], signatures: Dict[str, str],
          sites: Dict[str, int]):
    """The lines of one module's table, columns as `usdt list` pads them."""
    rows = [("SITES", "SEMAPHORE", "TYPES FROM", "PROBE")]
    rows += [(str(sites[name]), semaphores[name], sources[name], signatures[name]) for name in sorted(signatures)]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    return ["  " + "  ".join([cell.ljust(width) for cell, width in zip(row, widths)] + [row[3]]) for row in rows]


def kvserver_table(path: str, state: Dict[str, str] = None):
    """tool_kvserver's table; `state` adds ` inactive`, ` active (1)`... after a semaphore address."""
    state = state or {}
    semaphores = {probe: f"0x{semaphore_address(path, probe):x}{state.get(probe, '')}"
                  for probe in KVSERVER_SIGNATURES if probe != "kvcache:tick"}
    semaphores["kvcache:tick"] = "none"
    return table(semaphores, KVSERVER_SOURCES, KVSERVER_SIGNATURES, KVSERVER_SITES)


def kvstore_table(path: str, state: str = ""):
    semaphore = f"0x{semaphore_address(path, 'kvstore:lookup'):x}{state}"
    return table({"lookup": semaphore}, {"lookup": "kvstore.d"}, {"lookup": KVSTORE_SIGNATURE}, {"lookup": 1})


def without_glibc(lines: Sequence[str]) -> List[str]:
    """A process's `usdt list` lines without the sections of glibc's files (elf_notes.GLIBC_FILE),
    whose count comes off the first line."""
    sections: List[List[str]] = []
    for line in lines:
        if line.startswith(" ") and sections:
            sections[-1].append(line)
        else:
            sections.append([line])
    kept = [section for section in sections if not elf_notes.GLIBC_FILE.search(section[0].partition(": ")[0])]
    left_out = len(sections) - len(kept)
    if left_out and kept:
        kept[0][0] = re.sub(r"^(process \d+: )(\d+)", lambda match: f"{match[1]}{int(match[2]) - left_out}",
                            kept[0][0])
    return [line for section in kept for line in section]


class ListTestCase(unittest.TestCase):
    maxDiff = None

    def assert_lists(self, result: subprocess.CompletedProcess, lines: Sequence[str]):
        self.assertEqual((result.returncode, result.stderr), (0, ""), result.stdout)
        self.assertEqual(result.stdout.splitlines(), list(lines))

    def assert_process_lists(self, result: subprocess.CompletedProcess, lines: Sequence[str]):
        """assert_lists for a process's listing: glibc's files aside (without_glibc)."""
        self.assertEqual((result.returncode, result.stderr), (0, ""), result.stdout)
        self.assertEqual(without_glibc(result.stdout.splitlines()), list(lines))

    def assert_error(self, result: subprocess.CompletedProcess, message: str, status: int = 1):
        self.assertEqual((result.returncode, result.stdout, result.stderr), (status, "", f"usdt: error: {message}\n"))

    def work_directory(self) -> Path:
        directory = OPTIONS.work_dir / self.id().split(".", 1)[1]
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        return directory


class waiting_kvserver:
    """`with waiting_kvserver() as process`: tool_kvserver --wait, started and ready; at the end,
    its standard input closes, it fires its probes and must exit 0."""

    def __init__(self, program: Optional[str] = None, command: Sequence[str] = ()):
        self.arguments = [*command, program or PROGRAMS["kvserver"], "--wait"]

    def __enter__(self):
        self.process = subprocess.Popen(self.arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.process.stdout.readline() != "ready\n":
            self.process.kill()
            raise AssertionError(f"{self.arguments} did not start")
        return self.process

    def __exit__(self, *exception):
        output, _ = self.process.communicate(timeout=30)
        if exception[0] is None and (self.process.returncode, output) != (0, "looked up alpha: found\n"):
            raise AssertionError(f"{self.arguments}: exit {self.process.returncode}, output {output!r}")
        return False


def elf_notes_spec(spec: str) -> dict:
    """The JSON of a `[-]SIZE@OPERAND` spec."""
    size, operand = spec.split("@", 1)
    signed = size.startswith("-")
    size = int(size.lstrip("-"))
    return {"spec": spec, "size": size, "signed": signed, "operand": operand,
            "type": f"{'' if signed else 'u'}int{size * 8}_t"}


def elf_dynamic(path: str, tag: str) -> str:
    output = subprocess.run(["readelf", "--dynamic", path], capture_output=True, text=True, check=True).stdout
    line = next(line for line in output.splitlines() if f"({tag})" in line)
    return line.split("[", 1)[1].rstrip("]")


def ldd(path: str):
    output = subprocess.run(["ldd", path], capture_output=True, text=True, check=True).stdout
    found = []
    for line in output.splitlines():
        words = line.split()
        if "=>" in words and words[words.index("=>") + 1].startswith("/"):
            found.append(os.path.realpath(words[words.index("=>") + 1]))
        elif words and words[0].startswith("/"):
            found.append(os.path.realpath(words[0]))
    return found


def no_such_pid() -> int:
    # Process ids stay below pid_max.
    return int(Path("/proc/sys/kernel/pid_max").read_text())


def yama_ptrace_scope() -> int:
    scope = Path("/proc/sys/kernel/yama/ptrace_scope")
    return int(scope.read_text()) if scope.exists() else 0


def files_in(directory: Path):
    return sorted(str(path.relative_to(directory)) for path in directory.rglob("*") if not path.is_dir())


def parse_arguments() -> None:
    def add_options(parser):
        usdt_testing.add_usdt_options(parser)
        parser.add_argument("--source-dir", type=Path, required=True)
        parser.add_argument("--installed-prefix", type=Path,
                            help="where the fixture usdt_installed has installed usdt (InstalledTest)")
    options, programs = usdt_testing.parse_options(add_options, PROGRAM_NAMES)
    vars(OPTIONS).update(vars(options))
    PROGRAMS.update(programs)
    usdt_testing.fresh_directory(OPTIONS.work_dir)
