"""The libraries with probes a process loads (dlopen()) while `usdt trace -p` traces it: usdt
looks at its mappings (/proc/PID/maps) every supervisor.POLL_INTERVAL, which puts nothing into
the process, and makes a program for the new files, which supervisor.py runs in another
bpftrace. Their probes are traced once that bpftrace has attached, a moment after the dlopen():
a library named on the command line is traced from its first hit.

The program is planned as the first one (program.plan()), its modules and probes numbered
after the first's, and keeps to the process by its pid predicate, which every bpftrace release
honours. Summaries (--latency, --count...) are counted by the first bpftrace alone: a library
loaded later is left out of them, with a warning that says how to include it.
"""

import queue
from typing import List, Optional, Sequence, Set

from usdtgen.errors import GeneratorError

from . import program, supervisor, unread_strings
from .releases import Release
from ..errors import ToolError, warn
from ..files import elf, process


class LoadedLibraries:
    """The files with probes that process `running` maps beyond the `traced` ones: look() in
    a thread, program() in the main thread."""

    def __init__(self, running: process.Process, traced: Sequence[elf.Module], patterns: Sequence[str],
                 provider_file: Optional[str], measures: Optional[program.Measures], release: Release,
                 unread: unread_strings.UnreadStrings, probe_count: int):
        """`measures`: what the programs count and print; None when there are summaries, which
        the first program alone counts. `probe_count`: the first program's probes."""
        self.pid = running.pid
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
        return supervisor.Program(
            program.program(plan, supervisor.READY_LINE), False,
            f"usdt: tracing {count} more probe{'s' if count != 1 else ''} of process {self.pid}, in "
            f"{', '.join(module.path for module, _ in selected)}, loaded since "
            f"(names and types from {', '.join(sources)})",
            tuple(probe.traced for probe in plan.probes))
