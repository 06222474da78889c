"""`usdt trace`: runs bpftrace on the probes of a file or a process and prints one line per hit,
`NSECS pid=PID tid=TID provider:probe name=value...`, with each argument named and formatted
by its type: the line the bpftrace scripts usdtgen generates print.

Names and types come from a provider file given with --provider-file, else from the binary's
`.note.usdt` records, else from its stapsdt notes alone (`arg0=`, integers of the note's size).
The bpftrace program comes from the same template as the generated scripts.

What is traced: the files named and the shared libraries they load (found as `usdt list
--libraries` finds them; without patterns, only those whose probes usdt built), or every file
a process maps (-p; glibc's own probes only when a pattern names them), the files named,
mapped by it yet or not, and the libraries it loads while traced (bpftrace/loaded_libraries.py),
even where it has none yet.
Each file's probes are attached by its path.

The parts: files/ reads ELF files and processes (probes, libraries, mappings); bpftrace/ talks
to bpftrace (program.py writes the program, supervisor.py runs it, hits.py and unread_strings.py
read what it prints, releases.py holds every difference between its releases); answers/ makes
what the user asked for of the hits (lines, JSON, summaries, spans, the timeline).
"""

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Set

from .answers import spans, summaries, timeline
from .bpftrace import loaded_libraries, program, releases, supervisor, unread_strings
from .files import elf, libraries, process
from .errors import ToolError, warn
from .answers.output import Output


def add_arguments(parser) -> None:
    parser.description = (
        "Traces the probes of an executable or shared library and of the shared libraries it loads "
        "(in every process that runs them), or of a running process, with bpftrace: one line per "
        "hit, arguments by name and type. Needs root. Ctrl-C stops it.")
    parser.add_argument("binary", nargs="?", metavar="BINARY",
                        help="executable or shared library whose probes to trace, with its libraries' (a name "
                             "without a '/' is a program on PATH, as the command after `--` is)")
    parser.add_argument("-p", "--pid", type=int, metavar="PID",
                        help="trace the probes of every file process PID maps, or loads while traced (it is "
                             "stopped a moment at each dlopen() until they are: docs/tracing.md), in that "
                             "process only")
    parser.add_argument("probes", nargs="*", metavar="FILE|PROVIDER:PROBE",
                        help="more files to trace (an operand with a '/': ./libplugin.so; with -p, mapped "
                             "by the process yet or not), and probes "
                             "to trace, as shell patterns (kvserver:request__*); PROVIDER alone means "
                             "all of its probes; default: every probe")
    parser.add_argument("-d", "--provider-file", metavar="FILE.d",
                        help="take argument names and types from this provider file")
    parser.add_argument("--script", action="store_true",
                        help="print the bpftrace program (for bpftrace -f json: records, not lines) and exit (no root needed)")
    answers = parser.add_argument_group(
        "answers", "Summaries are counted in BPF maps and printed at the end (Ctrl-C, or the end of the "
                   "process or command) instead of each hit's line.")
    answers.add_argument("--latency", action="store_true",
                         help="the latency of each span: a probe X__start and its X__done (or X__begin and "
                              "X__end, X__entry and X__return), matched by an integer argument both have "
                              "named id or *_id, else per thread")
    answers.add_argument("--span", action="append", default=[], metavar="START,DONE[,KEY]",
                         help="the latency of a span of your own: its start and done probes, matched by "
                              "argument KEY (or 'thread'); may be repeated")
    answers.add_argument("--count", action="store_true", help="count the hits of each probe")
    answers.add_argument("--histogram", action="append", default=[], metavar="PROBE:ARGUMENT",
                         help="the distribution of an integer argument (kvserver:request__done:latency_ns); "
                              "may be repeated")
    answers.add_argument("--interval", type=_seconds, metavar="SECONDS",
                         help="print the summaries every SECONDS too, each of that interval alone")
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true",
                        help=f"one JSON object per line: per hit, or per summary (the schema: {_tracing_docs()}, "
                             f"\"JSON Lines\")")
    output.add_argument("--timeline", metavar="FILE",
                        help="write the hits and spans to FILE as a Chrome JSON trace, which "
                             "https://ui.perfetto.dev opens, instead of printing each hit")
    parser.epilog = ("After `--`, a command to run while tracing: tracing ends when it exits, "
                     "and usdt exits with its status.")


def _tracing_docs() -> str:
    """Where docs/tracing.md is for this usdt: in its source tree, or where the Debian package
    puts it (share/usdt/usdttool/ beside share/doc/usdt/docs/)."""
    here = Path(__file__).resolve().parent
    for path in (here.parent / "docs" / "tracing.md", here.parents[1] / "doc" / "usdt" / "docs" / "tracing.md"):
        if path.is_file():
            return str(path)
    return "docs/tracing.md in usdt's source"


def run(args) -> int:
    command = args.traced_command
    if args.pid is not None and args.binary is not None:
        # With -p, the first operand is a file or a pattern like the others.
        args.probes, args.binary = [args.binary, *args.probes], None
    if args.binary is None and args.pid is None:
        raise ToolError("give a BINARY or -p PID to trace")
    if args.pid is not None and command:
        raise ToolError("-p PID traces a running process; a command after `--` needs a BINARY instead")

    files = [operand for operand in args.probes if "/" in operand]
    patterns = [operand for operand in args.probes if "/" not in operand]
    if args.pid is None:
        files = [libraries.find_program(args.binary), *files]
        what = ", ".join(files)
        modules = _file_modules(files, every_library=bool(patterns))
        unmapped, in_its_own_root = [], False
    else:
        what = f"process {args.pid}"
        if args.pid == os.getpid():
            raise ToolError(f"process {args.pid} is this usdt itself, which does not trace itself")
        running = process.read_process(args.pid)
        mapped = [process_module.module for process_module in running.modules]
        unmapped = _unmapped_files(files, mapped)
        modules = mapped + unmapped
        # A process in a chroot or a container: bpftrace 0.17's -p reads its files at
        # /proc/PID/root/PATH, where PATH (/proc/PID/maps's) is this system's path ("couldn't get
        # argument 0"), and 0.27's attaches there too. By the paths usdt read, and a predicate on its pid.
        in_its_own_root = process.has_a_root_of_its_own(args.pid) or \
            any(process.seen_through_its_root(process_module) for process_module in running.modules)
    # The program is written for the bpftrace that will run it: --script's for the one
    # installed, if any.
    bpftrace = supervisor.find_bpftrace(required=not args.script)
    release = releases.installed_release(bpftrace) if bpftrace else releases.NEWEST_TESTED
    described = program.describe(modules, args.provider_file) if modules else []
    waiting = ""
    if args.pid is not None and not patterns:
        glibc_only = bool(described)
        described = [(module, probes) for module, probes in program.without_glibc(described) if probes]
        if not described:
            # Nothing to trace yet: the libraries it will load may have probes (named: ./libfoo.so).
            waiting = ("it maps no file with USDT probes" if not glibc_only else
                       "it maps none but glibc's, which a pattern reaches ('libc:*')")
    every_probe = [probe for _, probes in described for probe, _ in probes]
    # A pattern for a library a process has not loaded yet needs its file, which -p reads.
    not_loaded = f" (a library {what} has not loaded yet is traced when named: usdt trace -p {args.pid} " \
                 f"./libfoo.so {' '.join(patterns)})" if args.pid is not None else ""
    chosen = [probe for _, probes in program.select(described, patterns, what, unmatched_hint=not_loaded)
              for probe, _ in probes]
    measures = _measures(args, chosen, every_probe)
    # The probes the measures name are traced, whatever the patterns say.
    named = {name for span in measures.spans for name in (span.start, span.done)} | \
        {histogram.probe for histogram in measures.histograms}
    selected = program.select(described, patterns, what, also=named)
    selected = program.leave_out_unreadable(selected) if not waiting else []
    # bpftrace -p, unless it would mix up one probe's sites in several files, cannot attach to
    # a file named (releases.py), or keeps the gate's tracepoint to the process too.
    by_pid = args.pid is not None and releases.pid_option_attaches(modules, unmapped) \
        and not release.pid_option_filters_every_probe and not in_its_own_root and not waiting
    predicate = f"pid == {args.pid}" if args.pid is not None and not by_pid else ""
    notice, why_not_stopped = loaded_libraries.load_notice(running, release, in_its_own_root) \
        if args.pid is not None else (None, None)
    if waiting and notice is None:
        raise ToolError(f"nothing to trace in {what}: {waiting}, and usdt cannot hear it load libraries (no "
                        f"dynamic linker found): name the file to trace, usdt trace -p {args.pid} ./libfoo.so")
    own_files = program.own_files(bpftrace) if args.pid is None else frozenset()
    plan = program.plan(selected, predicate, measures, release, args.pid if by_pid else None,
                        load_notice=notice if by_pid else None, own_files=own_files)
    notice_script = loaded_libraries.notice_program(notice, release, args.pid) if notice and not by_pid else None
    if args.timeline is not None:
        timeline.checked_path(args.timeline)    # before anything else can fail later
    if getattr(args, "stdout_closed", False) and (measures.lines or args.json or plan.aggregates or measures.count):
        raise ToolError("standard output is closed (>&-): nowhere to print the trace; "
                        "--timeline FILE writes hits to a file")
    script = program.program(plan, supervisor.READY_LINE)
    if args.script:
        sys.stdout.write(script)
        if notice_script is not None:
            sys.stdout.write(f"\n/* And, run with bpftrace -p {args.pid}: */\n" + notice_script)
        return 0

    releases.check_privileges()
    if args.pid is not None:
        # BPF cannot fault a page in: a string literal on a page the process has not touched
        # yet reads as "". Read once through /proc, the traced files' pages are in.
        process.fault_in(running, {module.path for module, _ in selected})
    # What is attached: the plan leaves out the probes no answer needs (--histogram's alone).
    planned = {(probe.target.number, probe.probe.full_name) for probe in plan.probes}
    attached = [(module, [(probe, source) for probe, source in probes if (number, probe.full_name) in planned])
                for number, (module, probes) in enumerate(selected)]
    attached = [(module, probes) for module, probes in attached if probes]
    count = sum(len(probes) for _, probes in attached)
    sources = sorted({source for _, probes in attached for _, source in probes})
    in_files = f", in {len(attached)} files" if len(attached) > 1 else ""
    announcement = (f"usdt: tracing {count} probe{'s' if count != 1 else ''} of {what}{in_files} "
                    f"(names and types from {', '.join(sources)}); Ctrl-C to stop")
    if waiting:
        announcement = (f"usdt: tracing no probes of {what} yet: {waiting}; waiting for the libraries it loads "
                        f"(dlopen()), traced from their first hit; Ctrl-C to stop")
    traced = [probe.traced for probe in plan.probes]
    summary = None
    if plan.aggregates or measures.count:
        named_files = {process.file_identity(path) for path in files}
        if args.pid is not None:
            named_files.add(process.file_identity(f"/proc/{args.pid}/exe"))
        asked = _asked_for(program.select(described, patterns, what), patterns, named, named_files)
        listed = {probe.traced.number for probe in plan.probes
                  if (selected[probe.target.number][0].path, probe.probe.full_name) in asked}
        summary = summaries.Summaries(_aggregates(measures), _names_by_number(traced), measures.count,
                                      args.json, _print, listed)
    # bpftrace -p ends with the process, but 0.27 not while it is a zombie its parent has
    # not reaped yet.
    watch_process = args.pid is not None and (not by_pid or release.waits_for_an_unreaped_process)
    trace_file = None
    try:
        trace_file = timeline.Timeline(args.timeline, _timeline_spans(measures, chosen, every_probe), every_probe) \
            if args.timeline is not None else None
        unread = unread_strings.UnreadStrings(selected)
        output = Output(traced, unread, lines=measures.lines, json_hits=args.json and summary is None,
                        summary=summary, timeline=trace_file)
        loaded = None
        if args.pid is not None:
            loaded = loaded_libraries.LoadedLibraries(running, modules, patterns, args.provider_file,
                                                      None if summary is not None else measures, release,
                                                      unread, len(traced), notice, why_not_stopped)
        # With --json, standard output is JSON alone: the command's own output goes to stderr.
        status = supervisor.trace(bpftrace, script, args.pid, by_pid, watch_process, command, announcement,
                                  output, command_output=sys.stderr if args.json else None, loaded=loaded,
                                  notice_program=notice_script,
                                  wait_for_notice=not release.pid_option_filters_every_probe,
                                  own_semaphores=_own_semaphores(plan, selected))
        trace_file = None
        output.finish()
    finally:
        if trace_file is not None:
            trace_file.abandon()
    return status


def _print(text: str) -> None:
    # As it comes, into a pipe too; a closed one says so here (supervisor.py stops the trace).
    sys.stdout.write(text)
    sys.stdout.flush()


def _own_semaphores(plan: program.Plan, selected) -> process.OwnSemaphores:
    """usdt's own copies of the semaphores of the traced probes in files it maps itself, which
    the plan leaves out of the trace (program.plan(): `leaves_out`)."""
    semaphores: Dict[object, Set[int]] = {}
    for probe in plan.probes:
        if probe.target.leaves_out:
            module = selected[probe.target.number][0]
            addresses = semaphores.setdefault(process.file_identity(module.path), set())
            addresses |= {noted.semaphore for noted in module.probes
                          if (noted.provider, noted.name) == (probe.probe.provider, probe.probe.name)
                          and noted.semaphore}
    return process.OwnSemaphores(semaphores)


def _unmapped_files(files: Sequence[str], mapped: Sequence[elf.Module]) -> List[elf.Module]:
    """The files named with -p that the process does not map (yet): traced from the moment it
    does, a library it will dlopen(). A file without probes is an error."""
    mapped_files = {process.file_identity(module.path) for module in mapped}
    unmapped = []
    for path in files:
        module = elf.read_module(path)
        if not module.probes:
            raise ToolError(f"{path} has no USDT probes (no .note.stapsdt section)")
        if process.file_identity(path) not in mapped_files:
            unmapped.append(module)
    return unmapped


def _seconds(text: str) -> int:
    try:
        seconds = int(text)
    except ValueError:
        seconds = 0
    if seconds < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of seconds, 1 or more")
    return seconds


def _measures(args, chosen, probes) -> program.Measures:
    """What the options ask for, each probe they name checked: --latency's pairs among the
    `chosen` probes (the patterns'), --span's and --histogram's among all `probes`."""
    aggregating = bool(args.latency or args.span or args.count or args.histogram)
    if args.interval and not aggregating:
        raise ToolError("--interval prints summaries: add --latency, --span, --count or --histogram")
    pairs = [(start, done, None) for start, done in spans.conventional_pairs(chosen)] if args.latency else []
    if args.latency and not pairs and not args.span:
        names = " ".join(sorted({f"{probe.provider}:{probe.name}" for probe in chosen}))
        raise ToolError(f"--latency: no probes named X__start and X__done (or __begin/__end, __entry/__return) "
                        f"among {names}; name a pair with --span START,DONE")
    pairs += [spans.parse_span(text, probes) for text in args.span]
    # The same span asked twice (--latency's pair, named again with its key) is measured once.
    unique = {}
    for start, done, key in pairs:
        span = spans.make_span(0, start, done, key, probes)
        unique.setdefault((span.start, span.done, span.key), span)
    made = [dataclasses.replace(span, number=number) for number, span in enumerate(unique.values())]
    histograms = [spans.parse_histogram(len(made) + number, text, probes)
                  for number, text in enumerate(dict.fromkeys(args.histogram))]
    return program.Measures(lines=not (aggregating or args.json or args.timeline),
                                  records=bool(args.timeline or (args.json and not aggregating)),
                                  count=args.count, spans=made, histograms=histograms, interval=args.interval)


def _timeline_spans(measures: program.Measures, chosen, probes) -> List[spans.Span]:
    """The spans the timeline draws: those measured, and each pair --latency would find among
    the `chosen` probes, asked for or not (numbered after the measures')."""
    drawn = list(measures.spans)
    known = {(span.start, span.done) for span in drawn}
    number = len(measures.spans) + len(measures.histograms)
    for start, done in spans.conventional_pairs(chosen):
        if (start, done) not in known:
            drawn.append(spans.make_span(number, start, done, None, probes))
            number += 1
    return drawn


def _aggregates(measures: program.Measures) -> List[summaries.Aggregate]:
    made = [summaries.Aggregate(span.number, span.title, "latency", span.number,
                                {"span": span.name, "start": span.start, "done": span.done,
                                 "matched": span.matched_by})
            for span in measures.spans]
    made += [summaries.Aggregate(histogram.number, f"{histogram.probe} {histogram.argument}", "histogram", None,
                                 {"probe": histogram.probe, "argument": histogram.argument})
             for histogram in measures.histograms]
    return made


def _asked_for(chosen, patterns: Sequence[str], named, named_files) -> set:
    """(file path, provider:probe) of the `chosen` probes (what select() returns) that the user
    asked for: with patterns, those they match and those the measures name; without, those of
    the files named (-p: and the process's executable) and those usdt built (with `.note.usdt`
    records) or a provider file describes, not, say, the probes of the libstdc++ a process maps."""
    asked = set()
    for module, probes in chosen:
        in_named_file = process.file_identity(module.path) in named_files
        for probe, source in probes:
            if patterns or probe.full_name in named or in_named_file or source != "the stapsdt notes":
                asked.add((module.path, probe.full_name))
    return asked


def _names_by_number(traced) -> List[str]:
    names = [""] * len(traced)
    for probe in traced:
        names[probe.number] = probe.name
    return names


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
        if not elf.may_have_probes(path):
            continue
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
