"""What differs between the bpftrace releases `usdt trace` runs, all in this one module: by
version (Release, chosen by `bpftrace --version`), the oldest supported, how an attach point's
path is quoted, which releases lose a count, and which of bpftrace's own lines say nothing to a
user of `usdt trace`; and, in the last part, the workarounds for 0.17 (Debian 12) alone, each
with its reason: when 0.17 goes, delete that part and make its callers do the plain thing (each
caller says what that is). Tested with 0.17, 0.23 (Debian 13) and 0.27 (Debian unstable:
libbpf, not bcc, reads the arguments); tests/tool's tool.bpftrace_releases runs the tool tests
with each.
"""

import os
import re
import subprocess
from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

from ..errors import ToolError
from ..files import elf

MINIMUM = (0, 17)

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")

# An attach point's path, quoted, is still split at ':' and an '*' in it is a wildcard (another
# file may match), so no release attaches to a path with either, or with a control character.
_UNATTACHABLE = re.compile(r"[:*\x00-\x1f\x7f]")


def attachable(path: str) -> bool:
    """Whether any release can attach to a probe of the file at `path`."""
    return not _UNATTACHABLE.search(path)


@dataclass(frozen=True)
class Release:
    """A bpftrace release, by its version."""
    version: Tuple[int, int, int]

    @property
    def text(self) -> str:
        return ".".join(map(str, self.version))

    def attach_point_path(self, path: str, pid: Optional[int] = None) -> str:
        """`path`, which is attachable(), as this release's attach point takes it, for bpftrace
        -p `pid` when given. Quoted, since unquoted it ends at the first character that is not
        in a plain set (`libstdc++.so.6` is a syntax error). Inside the quotes `"` is `\\"`; up
        to 0.23 a backslash is unescaped twice (`\\\\\\\\` in the program is one `\\` in the path),
        from 0.27 once, as in any string. With -p, 0.27 attaches to the path given and again to
        the process's view of it, /proc/PID/root/PATH (every hit came twice); given that view,
        it attaches once. 0.24 to 0.26 are untested: taken as 0.23."""
        backslash = "\\\\" if self.version >= (0, 27) else "\\\\\\\\"
        if pid is not None and self.version >= (0, 27):
            path = f"/proc/{pid}/root{path}"
        return '"' + path.replace("\\", backslash).replace('"', '\\"') + '"'

    @property
    def waits_for_an_unreaped_process(self) -> bool:
        """Whether bpftrace -p goes on after the process has ended while its parent has not
        reaped it yet (0.27), when earlier releases end with it."""
        return self.version >= (0, 27)

    @property
    def loses_a_count_of_a_new_key(self) -> bool:
        """Whether count() (and sum()) can lose a hit when two CPUs count a key the map does not
        hold yet at the same moment (0.20 to 0.23): each finds no entry and adds it with
        BPF_NOEXIST, and the second add fails, silently under --no-warnings ("File exists" without
        it). Threads whose probes fire together lose the hit of a probe's first count, of a
        span's or histogram's new bucket. 0.17 adds with BPF_ANY, so does 0.24 (bpftrace pull
        request 4074). For such a release, usdt adds the key with sum(0) before it counts with
        sum(1), which then finds the entry, whichever CPU added it (else: count()). 0.20 and
        0.21, untested, add a min() or max() key the same way: an interval's min or max may miss
        a value counted on two CPUs at once."""
        return (0, 20) <= self.version[:2] < (0, 24)

    @property
    def pid_option_filters_every_probe(self) -> bool:
        """Whether bpftrace -p keeps every probe to the process, tracepoints too (0.27), so
        that the program's gate never hears usdt's kill (trace.bt.j2): such a release traces
        a process by its files' paths and a predicate on its pid, as 0.17 must for a probe in
        two files (needs_pid_predicate, below). 0.23 keeps only uprobes to it."""
        return self.version >= (0, 27)

    @property
    def usdt_arguments(self) -> int:
        """How many of a usdt probe's arguments the release reads as arg0, arg1...: 0.25 and
        later read the 12 a note can have with libbpf, earlier ones (bcc) refuse arg6 and
        beyond ("x86_64 doesn't support arg6"): usdt reads those from their operands
        (operand_value). 0.24 is untested: taken as 0.23."""
        return 12 if self.version >= (0, 25) else 6


# What `usdt trace --script` writes for when no bpftrace is there to ask: the newest tested.
NEWEST_TESTED = Release((0, 27, 1))


def parse_version(text: str) -> Optional[Release]:
    """The release `bpftrace --version` printed ("bpftrace v0.23.2"), None when it says none."""
    match = _VERSION.search(text)
    if match is None:
        return None
    return Release((int(match[1]), int(match[2]), int(match[3] or 0)))


def installed_release(bpftrace: str) -> Release:
    """The release of the bpftrace at `bpftrace`: a ToolError when it is older than MINIMUM."""
    try:
        answer = subprocess.run([bpftrace, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ToolError(f"cannot run {bpftrace} --version: {error}") from None
    release = parse_version(answer.stdout + answer.stderr)
    if release is None:
        raise ToolError(f"{bpftrace} --version printed no version: {(answer.stdout + answer.stderr).strip()!r}")
    if release.version[:2] < MINIMUM:
        minimum = ".".join(map(str, MINIMUM))
        raise ToolError(f"usdt trace needs bpftrace {minimum} or newer, and {bpftrace} is {release.text}")
    return release


# x86-64's registers as an operand names them (any width) -> as bpftrace's reg() does.
_REGISTERS = {name: base for base, names in {
    "ax": "rax eax ax al", "bx": "rbx ebx bx bl", "cx": "rcx ecx cx cl", "dx": "rdx edx dx dl",
    "si": "rsi esi si sil", "di": "rdi edi di dil", "bp": "rbp ebp bp bpl", "sp": "rsp esp sp spl",
    **{f"r{n}": f"r{n} r{n}d r{n}w r{n}b" for n in range(8, 16)}}.items() for name in names.split()}
_OPERAND = re.compile(r"\$(-?\d+)|%(\w+)|(-?\d*)\(%(\w+)\)")


def operand_value(size: int, signed: bool, operands: Sequence[str]) -> Optional[str]:
    """The bpftrace expression of an argument of `size` bytes and signedness at the x86-64
    `operands` of each of its sites (`%edi`, `$5`, `-8(%rbp)`), for a release that does not read
    it as argN: `(int32)reg("di")`, `*(int64*)(reg("bp") - 8)`. None when the sites disagree
    (one program reads every site) or an operand is of another form."""
    if len(set(operands)) != 1 or size not in (1, 2, 4, 8):
        return None
    match = _OPERAND.fullmatch(operands[0])
    if match is None:
        return None
    immediate, register, displacement, base = match.groups()
    value_type = f"{'' if signed else 'u'}int{size * 8}"
    if immediate is not None:
        return f"({value_type}){immediate}"
    if register is not None:
        return f"({value_type})reg(\"{_REGISTERS[register]}\")" if register in _REGISTERS else None
    if base not in _REGISTERS:
        return None
    offset = int(displacement or 0)
    address = f'reg("{_REGISTERS[base]}")' + (f" + {offset}" if offset > 0 else f" - {-offset}" if offset else "")
    return f"*({value_type}*)({address})"


def is_noise(message: str) -> bool:
    """Whether a line bpftrace wrote says nothing to a user of `usdt trace`, which prints its own
    line once every probe is attached:
    - "Attaching N probes..." (up to 0.23, on stdout) and "Attached N probes" (0.27, stderr);
    - RLIMIT_MEMLOCK, which it prints where it may not raise the limit (a container, a VM) and
      which says nothing when the programs load anyway;
    - from 0.27, that it cannot read available_filter_functions (debugfs unmounted), which
      only kprobes need;
    - from 0.27, on stderr once it ends, "Lost N events" and "WARNING: Total lost event count:
      N": usdt's own account of lost hits (output.py) says it, per probe. Up to 0.23 the
      "Lost N events" lines come on stdout, as they happen, where usdt counts them."""
    return (message.startswith(("Attaching ", "Attached ")) and " probe" in message
            or "RLIMIT_MEMLOCK" in message
            or "available_filter_functions" in message
            or _LOST.fullmatch(message.strip()) is not None
            or _MOUNT_NAMESPACE_AT_EXIT.search(message) is not None)


_LOST = re.compile(r"Lost \d+ events|WARNING: Total lost event count: \d+")
# bpftrace 0.17 -p, as it stops once its process has ended (the dynamic linker's notice
# program, loaded_libraries.notice_program()), fails to read the process's mount namespace and
# says so in two lines, of an exception that ends it as it was ending anyway.
_MOUNT_NAMESPACE_AT_EXIT = re.compile(r"bpftrace::MountNSException|Failed to compare mount ns with PID")


# Workarounds for bpftrace 0.17 alone.

# With -p, bpftrace 0.17 reads a process's probes through bcc's USDT context for the whole
# process, which merges the sites of one provider:probe from every file into one probe; it then
# attaches each merged site's address to the path in the attach point. With one provider:probe
# in two files (a static library linked into two shared libraries), the sites of one file land
# in the other, mid-instruction: garbage values, "couldn't get argument 0", SIGSEGV in the
# traced process. For such a process usdt attaches by path without -p (bcc then reads the one
# file) and keeps the hits of the process with a predicate on its pid.
def needs_pid_predicate(modules: Sequence[elf.Module]) -> bool:
    """Whether some provider:probe has sites in more than one of the process's files."""
    seen: Dict[Tuple[str, str], str] = {}
    for module in modules:
        for probe in module.probes:
            other = seen.setdefault((probe.provider, probe.name), module.path)
            if other != module.path:
                return True
    return False


# bpftrace 0.17's -p attaches only to files the process maps already ("Error finding location for
# probe"): where a file named has not been loaded yet (a library the process will dlopen()), usdt
# attaches by path without -p, and keeps to the process with a predicate on its pid.
def pid_option_attaches(modules: Sequence[elf.Module], unmapped: Sequence[elf.Module]) -> bool:
    """Whether `bpftrace -p` traces `modules` of a process, `unmapped` among them, as it should."""
    return not unmapped and not needs_pid_predicate(modules)


# bpftrace 0.17 refuses anyone but root, whatever their capabilities.
def check_privileges() -> None:
    if os.geteuid() != 0:
        raise ToolError("usdt trace needs root to attach uprobes with bpftrace: run it with sudo; "
                        "`usdt list` needs no root")


# On SIGINT, bpftrace 0.17 does not print the events still in its buffers, and a traced
# process's last hits may still be there when it ends, so usdt stops it only once every CPU's
# buffer has been read past the moment the gate closed (supervisor.py), or, where it cannot
# tell (a CPU it may not run on), once its output has been quiet this long (else: at once).
QUIET_BEFORE_STOPPING = 0.3

# bpftrace 0.17 now and then misses a SIGINT, so it gets another this often until it exits
# (else: one SIGINT).
SIGINT_INTERVAL = 1.0
