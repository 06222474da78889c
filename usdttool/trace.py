"""`usdt trace`: runs bpftrace on the probes of a file or a process and prints one line per hit,
`NSECS pid=PID tid=TID provider:probe name=value...`, with each argument named and formatted
by its type: the line the bpftrace scripts usdtgen generates print.

Names and types come from a provider file given with --provider-file, else from the binary's
`.note.usdt` records, else from its stapsdt notes alone (`arg0=`, integers of the note's size).
The bpftrace program comes from the same template as the generated scripts.

What is traced: the files named and the shared libraries they load (found as `usdt list
--libraries` finds them; without patterns, only those whose probes usdt built), or every file
a process maps (-p). Each file's probes are attached by its path. The program is built in
trace_program.py and run in supervisor.py; bpftrace017.py holds the workarounds for bpftrace 0.17.
"""

import os
import sys
from typing import List, Sequence

from . import bpftrace017, elf, libraries, process, supervisor, trace_program, unread_strings
from .errors import ToolError, warn


def add_arguments(parser) -> None:
    parser.description = (
        "Traces the probes of an executable or shared library and of the shared libraries it loads "
        "(in every process that runs them), or of a running process, with bpftrace: one line per "
        "hit, arguments by name and type. Needs root. Ctrl-C stops it.")
    parser.add_argument("binary", nargs="?", metavar="BINARY",
                        help="executable or shared library whose probes to trace, with its libraries'")
    parser.add_argument("-p", "--pid", type=int, metavar="PID",
                        help="trace the probes of every file process PID maps, in that process only")
    parser.add_argument("probes", nargs="*", metavar="FILE|PROVIDER:PROBE",
                        help="more files to trace (an operand with a '/': ./libplugin.so), and probes "
                             "to trace, as shell patterns (kvserver:request__*); PROVIDER alone means "
                             "all of its probes; default: every probe")
    parser.add_argument("-d", "--provider-file", metavar="FILE.d",
                        help="take argument names and types from this provider file")
    parser.add_argument("--script", action="store_true",
                        help="print the bpftrace program instead of running it (no root needed)")
    parser.epilog = ("After `--`, a command to run while tracing: tracing ends when it exits, "
                     "and usdt exits with its status.")


def run(args) -> int:
    command = args.traced_command
    if args.pid is not None and args.binary is not None:
        # With -p, every operand is a probe pattern.
        args.probes, args.binary = [args.binary, *args.probes], None
    if args.binary is None and args.pid is None:
        raise ToolError("give a BINARY or -p PID to trace")
    if args.pid is not None and command:
        raise ToolError("-p PID traces a running process; a command after `--` needs a BINARY instead")

    if args.pid is None:
        files = [args.binary] + [operand for operand in args.probes if "/" in operand]
        patterns = [operand for operand in args.probes if "/" not in operand]
        what = ", ".join(files)
        modules = _file_modules(files, every_library=bool(patterns))
    else:
        patterns, what = args.probes, f"process {args.pid}"
        running = process.read_process(args.pid)
        modules = [process_module.module for process_module in running.modules]
        if not modules:
            raise ToolError(f"process {args.pid} maps no file with USDT probes (no .note.stapsdt section)")
    described = trace_program.describe(modules, args.provider_file)
    selected = trace_program.select(described, patterns, what)
    # bpftrace -p, unless it would mix up one probe's sites in several files (see above).
    by_pid = args.pid is not None and not bpftrace017.needs_pid_predicate(modules)
    predicate = f"pid == {args.pid}" if args.pid is not None and not by_pid else ""
    program = trace_program.program(selected, predicate, supervisor.READY_LINE, unread_strings.MARKER)
    if args.script:
        sys.stdout.write(program)
        return 0

    bpftrace = supervisor.find_bpftrace()
    bpftrace017.check_privileges()
    if args.pid is not None:
        # BPF cannot fault a page in: a string literal on a page the process has not touched
        # yet reads as "". Read once through /proc, the traced files' pages are in.
        process.fault_in(running, {module.path for module, _ in selected})
    count = sum(len(probes) for _, probes in selected)
    sources = sorted({source for _, probes in selected for _, source in probes})
    in_files = f", in {len(selected)} files" if len(selected) > 1 else ""
    announcement = (f"usdt: tracing {count} probe{'s' if count != 1 else ''} of {what}{in_files} "
                    f"(names and types from {', '.join(sources)}); Ctrl-C to stop")
    return supervisor.trace(bpftrace, program, args.pid, by_pid, command, announcement,
                            unread_strings.UnreadStrings(selected).rewrite)


def _file_modules(files: Sequence[str], every_library: bool) -> List[elf.Module]:
    """The files named and the shared libraries they load, each once, those with probes. A
    library is left out unless usdt built its probes (they have `.note.usdt` records) or
    `every_library`: without patterns, `usdt trace ./app` traces app's own probes, not, say,
    libstdc++'s, which a pattern (`libstdcxx:*`) or naming the library still reaches."""
    named = {os.path.realpath(path) for path in files}
    paths: List[str] = []
    for path in files:
        found = libraries.shared_libraries(path)
        for needer, name in found.missing:
            warn(f"{name}, needed by {needer}: not found; its probes are left out")
        paths += [path, *found.paths]
    modules, seen = [], set()
    for path in paths:
        real_path = os.path.realpath(path)
        if real_path in seen:
            continue
        seen.add(real_path)
        module = elf.read_module(path)
        built_by_usdt = any(probe.source_name for probe in module.probes)
        if module.probes and (real_path in named or built_by_usdt or every_library):
            modules.append(module)
    if not modules:
        loads = "it loads" if len(files) == 1 else "they load"
        raise ToolError(f"{', '.join(files)} and the shared libraries {loads} have no USDT probes (no "
                        f".note.stapsdt section): were they built with usdt_add_provider(), and are their "
                        f"notes still there after strip? A library the program loads with dlopen() is "
                        f"traced when named too: usdt trace {files[0]} ./libplugin.so")
    return modules
