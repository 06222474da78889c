"""The libraries with probes a process loads (dlopen()) while `usdt trace -p` traces it, traced
from their first hit: the first program has a probe on the process's dynamic linker's notice
that it has mapped them (load_notice(): `_dl_debug_state()` with r_state RT_CONSISTENT, before
dlopen() returns), which prints NOTICE_LINE and stops the process (SIGSTOP); usdt then reads the
files it has mapped since (look()), makes a program for those with probes (program()), which
supervisor.py runs in another bpftrace, and resumes the process (SIGCONT) once that bpftrace
has attached (resume()). The process is never left stopped: usdt resumes it as it ends, and a
guard process of its own (_Guard) does where usdt dies without a word (SIGKILL).

A process that must not be stopped (process.why_not_stopped(): its terminal's foreground job,
a debugged one) is not: its libraries are traced from a moment after the dlopen() (the time
bpftrace takes to start), and their announcement says so. Where the dynamic linker cannot be
found (a static program), usdt looks at the process's mappings every supervisor.POLL_INTERVAL.

The program is planned as the first one (program.plan()), its modules and probes numbered
after the first's, and keeps to the process by its pid predicate, which every bpftrace release
honours. Summaries (--latency, --count...) are counted by the first bpftrace alone: a library
loaded later is left out of them, with a warning that says how to include it.
"""

import os
import queue
import signal
import subprocess
import time
from dataclasses import replace
from typing import List, Optional, Sequence, Set, Tuple

from usdtgen.errors import GeneratorError

from . import program, releases, supervisor, unread_strings
from .releases import Release
from ..errors import ToolError, warn
from ..files import elf, process


# What the program prints at the dynamic linker's notice.
NOTICE_LINE = "usdt-trace-loaded"
# How long a process stopped where a notice would stop it waits for the notice's line before
# usdt answers it without (LoadedLibraries.stopped_unheard).
STOP_UNHEARD_AFTER = 0.5


def load_notice(running: process.Process, release: Release,
                in_its_own_root: bool) -> Tuple[Optional[program.LoadNotice], Optional[str]]:
    """The probe on the dynamic linker's notice for process `running`, None where there is none;
    and why it does not stop the process, None when it does. It always runs under bpftrace -p
    (in the first program when that has -p, else in one of its own: notice_program()): every
    process maps the dynamic linker, and a uprobe attached by path alone would put its
    breakpoint into all of them, where valgrind (which runs a copy of the code) dies of the
    trap and gdb (which puts its own breakpoint there) loses track of the libraries. A process
    with a root of its own sees the linker at another path than bpftrace -p would look it up
    by: there, usdt looks at its mappings instead (POLL_INTERVAL)."""
    linker = process.dynamic_linker(running.pid)
    if linker is None or in_its_own_root or not releases.attachable(linker.path):
        return None, None
    why_not = process.why_not_stopped(running.pid)
    return program.LoadNotice(release.attach_point_path(linker.path, running.pid),
                              f"pid == {running.pid} && @usdt_on", linker.state_address, linker.RT_CONSISTENT,
                              NOTICE_LINE, why_not is None), why_not


def notice_program(notice: program.LoadNotice, release: Release, pid: int) -> str:
    """A program of the dynamic linker's notice alone, for bpftrace -p `pid` beside a first
    program without -p (load_notice())."""
    # Without the gate: 0.27 -p keeps BEGIN, which opens it, to the process too.
    plan = program.plan([], "", program.Measures(lines=False, records=False, count=False), release, pid,
                        load_notice=replace(notice, predicate=f"pid == {pid}"))
    return program.program(plan, supervisor.READY_LINE)


class LoadedLibraries:
    """The files with probes that process `running` maps beyond the `traced` ones: look() in
    a thread, program() in the main thread."""

    def __init__(self, running: process.Process, traced: Sequence[elf.Module], patterns: Sequence[str],
                 provider_file: Optional[str], measures: Optional[program.Measures], release: Release,
                 unread: unread_strings.UnreadStrings, probe_count: int,
                 notice: Optional[program.LoadNotice] = None, why_not_stopped: Optional[str] = None):
        """`measures`: what the programs count and print; None when there are summaries, which
        the first program alone counts. `probe_count`: the first program's probes. `notice`: the
        first program's probe on the dynamic linker's notice (load_notice()), if it has one,
        and `why_not_stopped`, what load_notice() said of it."""
        self.pid = running.pid
        self.notice = notice
        self.why_not_stopped = why_not_stopped
        self.guard = _Guard(running.pid) if notice is not None and notice.stops else None
        self.owed = 0       # notices read, each a stop, not resumed yet
        self.stop_seen_at: Optional[float] = None     # stopped_unheard()'s first look at a stop
        self.stop_checked_at = float("-inf")             # and its last look
        self.stopped_before = process.is_stopped(running.pid)     # by its user (Ctrl-Z): left so
        self.patterns = patterns
        self.provider_file = provider_file
        self.measures = measures
        self.release = release
        self.unread = unread
        self.probe_count = probe_count
        self.traced: Set[object] = {process.file_identity(module.path) for module in traced}
        # Each mapped path is read once: with probes or without, a file mapped before was read then.
        self.read_paths: Set[str] = {mapping.path for process_module in running.modules
                                     for mapping in process_module.mappings}
        self.found: "queue.Queue[process.Process]" = queue.Queue()
        self.warned = False

    @property
    def stops(self) -> bool:
        """Whether the first program stops the process at each notice: bpftrace needs --unsafe."""
        return self.guard is not None

    def notice_read(self) -> None:
        """A notice came (in a thread reading bpftrace's output): the process is stopped."""
        self.owed += 1

    def resume(self) -> None:
        """Resumes the process after a notice, once its libraries are traced."""
        if self.guard is not None and self.owed > 0:
            self.owed -= 1
            _continue(self.pid)

    def stopped_unheard(self) -> bool:
        """Whether the process is stopped at a notice whose line never came (bpftrace 0.27 under
        load, once: the process stayed stopped, usdt waited for the line): stopped by no one
        before usdt, no notice owed, and mapping files not read yet, as a dlopen() leaves it at
        the notice, still so STOP_UNHEARD_AFTER seconds after first seen. It is then counted as
        a notice, so resume() answers it. A stop with nothing newly mapped (a user's Ctrl-Z) is
        left alone. Looks at most every supervisor.POLL_INTERVAL."""
        now = time.monotonic()
        if self.guard is None or now - self.stop_checked_at < supervisor.POLL_INTERVAL:
            return False
        self.stop_checked_at = now
        if self.owed or not process.is_stopped(self.pid):
            self.stop_seen_at = None
            return False
        try:
            mapped_since = any(mapping.path not in self.read_paths for mapping in process.mappings(self.pid))
        except (ToolError, OSError):
            return False
        if not mapped_since or self.stop_seen_at is None:
            self.stop_seen_at = now if mapped_since else None
            return False
        if now - self.stop_seen_at < STOP_UNHEARD_AFTER:
            return False
        self.stop_seen_at = None
        self.owed += 1
        return True

    def close(self) -> None:
        """As usdt ends, once no bpftrace can stop the process any more: resumes it if stopped, a
        notice unread (bpftrace 0.17 drops what it has not printed when it stops), or read and
        not answered; not one that was stopped already when usdt started."""
        if self.guard is None:
            return
        if self.owed > 0 or (process.is_stopped(self.pid) and not self.stopped_before):
            _continue(self.pid)
        self.owed = 0
        self.guard.release()

    def look(self) -> bool:
        """Reads the files the process has mapped since the last look, those with probes for
        program(); False once the process has ended."""
        try:
            mappings = process.mappings(self.pid)
            if not any(mapping.path not in self.read_paths for mapping in mappings):
                return True
            loaded = process.read_process(self.pid, skip=self.read_paths)
        except ToolError:
            return False
        except OSError:
            return True     # a file gone as it was read: the next look reads what is mapped then
        self.read_paths.update(mapping.path for mapping in mappings)
        if loaded.modules:
            self.found.put(loaded)
        return True

    def program(self) -> Optional[supervisor.Program]:
        """The program for the files with probes found since the last call and not traced yet,
        or None."""
        modules: List[process.ProcessModule] = []
        while True:
            try:
                modules += self.found.get_nowait().modules
            except queue.Empty:
                break
        new = [process_module for process_module in modules
               if process.file_identity(process_module.module.path) not in self.traced]
        if not new:
            return None
        self.traced.update(process.file_identity(process_module.module.path) for process_module in new)
        paths = ", ".join(process_module.module.path for process_module in new)
        try:
            described = program.describe([process_module.module for process_module in new],
                                               self.provider_file)
            if not self.patterns:
                described = program.without_glibc(described)
            selected = program.select(described, self.patterns, "", every_pattern_matches=False)
            if selected:
                selected = program.leave_out_unreadable(selected)
        except (ToolError, GeneratorError) as error:
            # Tracing goes on without them: the other files' probes are still traced.
            warn(f"{error}; the probes of {paths}, loaded by process {self.pid} since usdt started, are left out")
            return None
        if not selected:
            return None
        if self.measures is None:
            if not self.warned:
                self.warned = True
                files = " ".join(module.path for module, _ in selected)
                warn(f"process {self.pid} loaded {files} since usdt started: the summaries count the files "
                     f"traced from the start alone; to include it, name it: usdt trace -p {self.pid} {files}")
            return None
        predicate = f"pid == {self.pid}"
        plan = program.plan(selected, predicate, self.measures, self.release,
                                  first_module=self.unread.module_count, first_probe=self.probe_count)
        self.unread.add(selected)
        self.probe_count += len(plan.probes)
        # As for the first program (trace.py): BPF cannot fault their pages in.
        process.fault_in(process.Process(self.pid, tuple(new), ()), {module.path for module, _ in selected})
        count = sum(len(probes) for _, probes in selected)
        sources = sorted({source for _, probes in selected for _, source in probes})
        late = "" if self.stops or self.notice is None else \
            f"; traced from now, not from its dlopen(): the process is not stopped meanwhile ({self.why_not_stopped})"
        return supervisor.Program(
            program.program(plan, supervisor.READY_LINE), False,
            f"usdt: tracing {count} more probe{'s' if count != 1 else ''} of process {self.pid}, in "
            f"{', '.join(module.path for module, _ in selected)}, loaded since "
            f"(names and types from {', '.join(sources)}){late}",
            tuple(probe.traced for probe in plan.probes))


def _continue(pid: int) -> None:
    # Not kill(): usdt's first kill() closes every program's gate (trace.bt.j2).
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        signal.pidfd_send_signal(descriptor, signal.SIGCONT)
    except ProcessLookupError:
        pass
    finally:
        os.close(descriptor)


class _Guard:
    """A process of its own (in a session of its own, out of reach of a terminal's Ctrl-C) that
    resumes the traced process where usdt ends without releasing it, however it ends (SIGKILL
    included): it waits for a line on a pipe whose other end usdt alone holds."""

    def __init__(self, pid: int):
        read_end, self.write_end = os.pipe()
        try:
            self.process = subprocess.Popen(["/bin/sh", "-c", 'read -r line; [ "$line" = released ] || kill -CONT "$1"',
                                             "usdt-guard", str(pid)], stdin=read_end, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL, start_new_session=True)
        finally:
            os.close(read_end)

    def release(self) -> None:
        """usdt has resumed what it stopped: the guard ends without a word."""
        if self.write_end is None:
            return
        try:
            os.write(self.write_end, b"released\n")
        except OSError:
            pass
        os.close(self.write_end)
        self.write_end = None
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
