"""Workarounds for bpftrace 0.17, Debian 12's, each with its reason: when 0.17 goes, delete this
module and make its callers do the plain thing (each caller says what that is). What differs
between the releases usdt supports, by version, is in bpftrace_releases.py."""

import os
from typing import Dict, Sequence, Tuple

from . import elf
from .errors import ToolError

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
# process's last hits may still be there when it ends, so usdt stops it only once its output
# has been quiet this long after the traced process or command ended (else: at once).
QUIET_BEFORE_STOPPING = 0.3

# bpftrace 0.17 now and then misses a SIGINT, so it gets another this often until it exits
# (else: one SIGINT).
SIGINT_INTERVAL = 1.0
