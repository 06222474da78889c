"""The bpftrace program of `usdt trace`: the probes of the traced files as a tracer sees them
(usdtgen/tracer_probe.py: from a provider file's model, else each binary's `.note.usdt`
records, else its stapsdt notes alone), selected by pattern, printed by the views and the
template of the generated scripts.
"""

import fnmatch
import os
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, AbstractSet, Dict, List, Optional, Sequence, Set, Tuple

from usdtgen import notes
from usdtgen.errors import GeneratorError
from usdtgen.tracer_probe import TracerProbe

from . import hits, releases
from .releases import Release
from ..answers import spans as spans_module
from ..answers import summaries
from ..contract import readable_specs
from ..errors import ToolError, warn
from ..files import elf, libraries, probe_notes, process

if TYPE_CHECKING:
    from usdtgen import model

# Names go into the bpftrace program: anything else in a binary's notes could rewrite it.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class AttachTarget:
    """What trace.bt.j2 prints for a file: its path as an attach point takes it, the
    predicate each of its probes gets ("" for none), and its place in the program (which its
    hits name: usdttool/bpftrace/unread_strings.py). `leaves_out`: the predicate's part that
    keeps usdt's own processes out (plan())."""
    path: str
    predicate: str
    number: int
    leaves_out: str = ""


# A probe to trace and where its names and types came from.
Described = Tuple[TracerProbe, str]


def describe(modules: Sequence[elf.Module],
              provider_file: Optional[str]) -> List[Tuple[elf.Module, List[Described]]]:
    """Each module bpftrace can attach to and its probes as a tracer sees them (tracer_probe.py),
    so that the trace prints exactly what the generated scripts print."""
    declared = _declared_probes(provider_file) if provider_file else {}
    attachable = [module for module in modules if releases.attachable(attach_path(module))]
    problems = [f"{attach_path(module)}: bpftrace cannot attach to a path with a colon, an asterisk or a "
                f"control character; trace it through a link (ln -s) with a plain name"
                for module in modules if module not in attachable]
    if not attachable:
        raise ToolError("; ".join(problems))
    for problem in problems:
        warn(f"{problem}; its probes are left out")
    described = []
    for module in attachable:
        probes = []
        for probe in module.probes:
            if not (_NAME.fullmatch(probe.provider) and _NAME.fullmatch(probe.name)):
                warn(f"{module.path}: the probe {probe.provider!r}:{probe.name!r} is left out: "
                      f"bpftrace takes names of letters, digits and '_'")
                continue
            declaration = declared.get((probe.provider, probe.name))
            if declaration is not None:
                probes.append((_declared_probe(declaration, probe, module), os.path.basename(provider_file)))
            else:
                probes.append((_noted_probe(probe), probe.source_name or "the stapsdt notes"))
        described.append((module, probes))
    return described


def _symbol_operand(probe: probe_notes.Probe) -> str:
    """The first argument spec of `probe` whose operand names a symbol, "" when none does
    (readable_specs.names_a_symbol)."""
    for site in probe.sites:
        for spec in site.arguments:
            if readable_specs.names_a_symbol(spec.operand):
                return spec.text
    return ""


def attach_path(module: elf.Module) -> str:
    # Not resolved: a link with a plain name stands for a path bpftrace cannot take.
    return os.path.abspath(module.path)


def _declared_probes(path: str) -> Dict[Tuple[str, str], "model.Probe"]:
    from usdtgen import pipeline   # only a provider file needs the generator's front end
    return {(probe.provider, probe.name): probe for probe in pipeline.build_model(path).probes}


def _declared_probe(declaration: "model.Probe", probe: probe_notes.Probe, module: elf.Module) -> TracerProbe:
    """The provider file's declaration of `probe`, as a tracer sees it in `module`; a
    GeneratorError where the declaration does not fit the module's notes."""
    declared = declaration.traced(module.pointer_size)
    in_file = [(argument.size, argument.signed) for argument in declared.arguments]
    in_notes = [(argument.size, argument.signed) for argument in probe.arguments]
    if in_file != in_notes:
        raise GeneratorError(declaration.location,
                             f"{probe.provider}:{probe.name} is declared here with arguments of "
                             f"{_sizes(in_file)}, but {module.path}'s notes say {_sizes(in_notes)}")
    return declared


def _sizes(arguments: Sequence[Tuple[int, bool]]) -> str:
    """As the notes' specs write them: `(8, -4)`."""
    return "(" + ", ".join(notes.spec_size(size, signed) for size, signed in arguments) + ")" if arguments else "none"


def _noted_probe(probe: probe_notes.Probe) -> TracerProbe:
    """A probe as its binary's notes describe it, each argument name one bpftrace's printf takes."""
    arguments = tuple(argument if _NAME.fullmatch(argument.name) else replace(argument, name=f"arg{argument.index}")
                      for argument in probe.arguments)
    return replace(probe.traced, arguments=arguments)


def select(described, patterns: Sequence[str], what: str, also: Sequence[str] = (),
           every_pattern_matches: bool = True, unmatched_hint: str = ""):
    """The probes matching any of `patterns` (all without patterns), and those named `also`
    (`provider:probe`), modules with none left out. A pattern that matches nothing is an error
    (which ends with `unmatched_hint` unless a pattern names a file here), unless not
    `every_pattern_matches` (a library loaded later need not have the probes asked for)."""
    full_patterns = {pattern: pattern if ":" in pattern else f"{pattern}:*" for pattern in patterns}
    matched = set()

    def chosen(probe: TracerProbe) -> bool:
        name = f"{probe.provider}:{probe.name}"
        matching = {pattern for pattern, full in full_patterns.items() if fnmatch.fnmatchcase(name, full)}
        matched.update(matching)
        return not patterns or bool(matching) or name in also

    selected = [(module, [(probe, source) for probe, source in probes if chosen(probe)])
                for module, probes in described]
    unmatched = [pattern for pattern in patterns if pattern not in matched]
    if unmatched and every_pattern_matches:
        # glibc's probes (Debian unstable's glibc has 70) by provider, not one by one.
        available = sorted({f"{probe.provider}:{probe.name}" if probe.provider not in GLIBC_PROVIDERS
                            else f"{probe.provider}:*" for _, probes in described for probe, _ in probes})
        files = [pattern for pattern in unmatched if "/" not in pattern and os.path.exists(pattern)]
        hint = f" (to trace the file {files[0]} too, write ./{files[0]})" if files else unmatched_hint
        raise ToolError(f"no probe of {what} matches {', '.join(unmatched)}; "
                        f"its probes: {' '.join(available)}{hint}")
    return [(module, probes) for module, probes in selected if probes]


# glibc's providers: built with sys/sdt.h (Debian unstable's, Fedora's, Ubuntu's), every process
# maps their probes (malloc's internals, lock contention, setjmp), which a user tracing a
# process has rarely asked for, so only a pattern reaches them.
GLIBC_PROVIDERS = ("libc", "rtld")


def without_glibc(described):
    """`described` (what describe() returns) without glibc's probes."""
    return [(module, [(probe, source) for probe, source in probes if probe.provider not in GLIBC_PROVIDERS])
            for module, probes in described]


def leave_out_unreadable(selected):
    """`selected` without the probes bpftrace cannot read an argument of, with a warning for each
    file that had some: an operand at a symbol's address (glibc's `8@136+mp_(%rip)`), which bcc
    (bpftrace up to 0.23) reads as a wrong value and libbpf (0.27) refuses to attach to, failing
    the whole trace."""
    kept = []
    for module, probes in selected:
        operands = {(probe.provider, probe.name): _symbol_operand(probe) for probe in module.probes}
        unreadable = [probe for probe, _ in probes if operands.get((probe.provider, probe.name))]
        if unreadable:
            names = " ".join(f"{probe.provider}:{probe.name}" for probe in unreadable)
            first = operands[(unreadable[0].provider, unreadable[0].name)]
            warn(f"{module.path}: {names}: left out: bpftrace cannot read an argument at a symbol's "
                 f"address ({first})")
        readable = [(probe, source) for probe, source in probes if probe not in unreadable]
        if readable:
            kept.append((module, readable))
    if not kept:
        raise ToolError("no probe is left to trace (see the warnings above)")
    return kept


@dataclass(frozen=True)
class ProbePlan:
    """What the program does at one probe of one file, as trace.bt.j2 prints it."""
    target: AttachTarget
    traced: hits.TracedProbe
    line: bool                                   # prints the hit's line
    record: Tuple[Tuple[str, str], ...]          # prints its record: printf statements (format, arguments)
    starts: Tuple[Tuple[int, str], ...] = ()     # (span, key) it starts
    dones: Tuple[Tuple[int, str], ...] = ()      # (span, key) it ends; a span's number is its aggregate's
    histograms: Tuple[Tuple[int, str, bool], ...] = ()   # (aggregate, value, signed)

    @property
    def probe(self) -> TracerProbe:
        return self.traced.probe

    @property
    def predicate(self) -> str:
        """Its file's predicate, usdt's own processes left out, and the gate: hits count from
        BEGIN (every probe attached) until usdt starts to stop bpftrace (the program's `kill`
        tracepoint)."""
        return " && ".join(part for part in (self.target.predicate, self.target.leaves_out, "@usdt_on") if part)


@dataclass(frozen=True)
class LoadNotice:
    """A probe on the dynamic linker's notice that it has mapped the libraries dlopen() loads
    (files/process.py's DynamicLinker): it prints `line`, and with `stops`, stops the process
    (SIGSTOP) until usdt has attached to them and resumes it (bpftrace/loaded_libraries.py)."""
    path: str                # the dynamic linker's, as the attach point takes it
    predicate: str
    state_address: int       # of _r_debug.r_state
    consistent: int          # its value once the libraries are mapped
    line: str
    stops: bool


# What the program prints, on the CPU where it ran, when usdt's kill(itself, 0) closed its gate
# (trace.bt.j2, supervisor.py).
GATE_CLOSED_LINE = "usdt-trace: closed"


@dataclass(frozen=True)
class Plan:
    probes: Tuple[ProbePlan, ...]
    interval: Optional[int]                      # seconds between the maps' printings; None: at the end only
    aggregates: Tuple[int, ...]                  # the aggregates' numbers
    stopper: int                                 # the process whose kill(itself, 0) closes the gate
    # A count adds its key with sum(0) before it counts with sum(1): bpftrace 0.20 to 0.23 lose a
    # count of a key new to the map (releases.Release.loses_a_count_of_a_new_key).
    adds_count_keys_first: bool
    load_notice: Optional[LoadNotice] = None
    # BEGIN keeps bpftrace's own pid (@usdt_tracer), which a predicate leaves out (plan()).
    keeps_tracer_pid: bool = False

    @property
    def gate_closed_line(self) -> str:
        return GATE_CLOSED_LINE

    @property
    def epochs(self) -> bool:
        """Whether the program numbers its intervals (@usdt_epoch)."""
        return bool(self.interval or self.aggregates)

    @property
    def maps(self) -> Tuple[str, ...]:
        """The maps the probes count in, but for @usdt_hits (bpftrace refuses to print a map
        no probe writes)."""
        written = []
        if self.aggregates:
            written += ["usdt_buckets", "usdt_min", "usdt_max"]
        if any(signed for probe in self.probes for _, _, signed in probe.histograms):
            written += ["usdt_negative_min", "usdt_negative_max"]
        if any(probe.starts or probe.dones for probe in self.probes):
            written += ["usdt_unmatched", "usdt_overlapping", "usdt_started", "usdt_live_start", "usdt_live_done"]
        return tuple(written)

    @property
    def interval_maps(self) -> Tuple[str, ...]:
        """The maps keyed by the interval too (min and max, which differences cannot give)."""
        return tuple(name for name in self.maps if name.endswith(("_min", "_max")))


@dataclass(frozen=True)
class Measures:
    """What usdt trace was asked for besides the probes' hits."""
    lines: bool                                  # the hits' lines, as the generated scripts print them
    records: bool                                # the hits' records (--json, --timeline)
    count: bool                                  # --count: every probe is counted even if nothing else needs it
    spans: Sequence[spans_module.Span] = ()
    histograms: Sequence[spans_module.Histogram] = ()
    interval: Optional[int] = None


def plan(selected, predicate: str, measures: Measures, release: Release, pid: Optional[int] = None,
         first_module: int = 0, first_probe: int = 0, load_notice: Optional[LoadNotice] = None,
         own_files: AbstractSet[object] = frozenset()) -> Plan:
    """The program's plan for `selected` (what select() returns): each probe numbered in order,
    its file's path as bpftrace `release` takes it (with -p `pid`, when given). Modules are
    numbered from `first_module`, probes from `first_probe`: the programs of one trace (a later
    one for the libraries a process loads while traced) share one numbering. `load_notice`: the
    probe that hears the process load libraries, if any.

    usdt's own processes are never traced: a file among `own_files` (own_files() gives them),
    which usdt or bpftrace map, fires in them too (/usr/bin/python3 runs usdt; glibc's and
    libstdc++'s probes fire in both), and each line usdt printed of such a hit would make more.
    Unless the trace keeps to one process already (`predicate`, -p `pid`), the probes of such
    a file leave out usdt's pid and bpftrace's, which BEGIN keeps."""
    probe_plans = []
    number = first_probe
    stopper = os.getpid()
    keeps_tracer_pid = False
    for module_number, (module, probes) in enumerate(selected, first_module):
        leaves_out = ""
        if not predicate and pid is None and process.file_identity(module.path) in own_files:
            leaves_out = f"pid != {stopper} && pid != @usdt_tracer"
            keeps_tracer_pid = True
        target = AttachTarget(release.attach_point_path(attach_path(module), pid), predicate, module_number,
                              leaves_out)
        for probe, _ in probes:
            name = f"{probe.provider}:{probe.name}"
            values = _argument_values(probe, module, release)
            traced = hits.TracedProbe(number, module_number, probe,
                                      frozenset(index for index, value in enumerate(values) if value is None))
            starts = tuple((span.number, _key(probe, span, values, release)) for span in measures.spans
                           if span.start == name)
            dones = tuple((span.number, _key(probe, span, values, release)) for span in measures.spans
                          if span.done == name)
            histograms = tuple(
                (histogram.number,
                 _read(probe, spans_module.histogram_index(probe, histogram), values, release, "--histogram"),
                 probe.arguments[spans_module.histogram_index(probe, histogram)].signed)
                for histogram in measures.histograms if histogram.probe == name)
            if not (measures.lines or measures.records or measures.count or starts or dones or histograms):
                continue
            record = _record(traced, values) if measures.records or measures.lines else ()
            probe_plans.append(ProbePlan(target, traced, measures.lines, record, starts, dones, histograms))
            number += 1
    aggregates = tuple(span.number for span in measures.spans) + tuple(h.number for h in measures.histograms)
    return Plan(tuple(probe_plans), measures.interval, aggregates, stopper,
                release.loses_a_count_of_a_new_key, load_notice, keeps_tracer_pid)


def own_files(bpftrace: Optional[str]) -> Set[object]:
    """The files (process.file_identity) that usdt's own processes map: usdt's (its interpreter,
    the libraries it has loaded) and those of the bpftrace at `bpftrace` and its libraries."""
    paths = [mapping.path for mapping in process.mappings(os.getpid())]
    if bpftrace is not None:
        paths.append(bpftrace)
        try:
            paths += libraries.shared_libraries(bpftrace).paths
        except ToolError:
            pass    # not an ELF file (a wrapper script): its own libraries are unknown
    return {process.file_identity(path) for path in set(paths)}


def _key(probe: TracerProbe, span: spans_module.Span, values: Sequence[Optional[str]], release: Release) -> str:
    index = spans_module.key_index(probe, span.key)
    return "tid" if index is None else _read(probe, index, values, release, "--span")


def _read(probe: TracerProbe, index: int, values: Sequence[Optional[str]], release: Release, option: str) -> str:
    """The expression of argument `index` (_argument_values) for `option`, which cannot do
    without it."""
    if values[index] is None:
        raise ToolError(f"{option}: bpftrace {release.text} cannot read {probe.full_name}'s "
                        f"{probe.arguments[index].name} (argument {index + 1}; see the warning above)")
    return values[index]


def _argument_values(probe: TracerProbe, module: elf.Module, release: Release) -> List[Optional[str]]:
    """Per argument, the bpftrace expression of its value: `argN`, or where `release` reads no
    argN that far, the operand its sites give (releases.operand_value); None where it cannot
    be read, with a warning."""
    sites = next((noted.sites for noted in module.probes
                  if (noted.provider, noted.name) == (probe.provider, probe.name)), ())
    values: List[Optional[str]] = []
    for argument in probe.arguments:
        if argument.index < release.usdt_arguments:
            values.append(f"arg{argument.index}")
            continue
        operands = [site.arguments[argument.index].operand for site in sites
                    if argument.index < len(site.arguments)]
        value = releases.operand_value(argument.size, argument.signed, operands) if operands else None
        if value is None:
            warn(f"{module.path}: {probe.full_name}: bpftrace {release.text} reads no arg{argument.index}, and "
                 f"its sites put {argument.name} in {' or '.join(sorted(set(operands))) or 'no operand'}, "
                 f"which usdt cannot read for it: it prints as ?")
        values.append(value)
    return values


def _record(traced: hits.TracedProbe, values: Sequence[Optional[str]]) -> Tuple[Tuple[str, str], ...]:
    """The printf statements of the hit's record (hits.py): (format, arguments) each."""
    arguments = traced.probe.arguments
    value = {argument.index: values[argument.index] or "0" for argument in arguments}
    numbers = ["%lld" if argument.signed else "%llu" for argument in arguments]
    cut = hits.STRING_BYTES
    head_format = " ".join([f"{hits.RECORD_START.decode()}{traced.number} %llu %d %d 0x%lx", *numbers,
                            *["%d"] * len(traced.strings), "%s"])
    head_values = ["$usdt_time", "pid", "tid", 'reg("ip")', *(value[argument.index] for argument in arguments),
                   *(f'strncmp(str({value[argument.index]} + {cut}, 2), "", 1)' for argument in traced.strings),
                   "comm"]
    statements = [(head_format, ", ".join(head_values))]
    for argument in traced.strings:
        statements.append((f"{hits.STRING_START.decode()}%d %llu %s",
                           f"tid, $usdt_time, str({value[argument.index]}, {cut + 1})"))
    return tuple(statements)


def program(plan: Plan, ready_line: str) -> str:
    """The program of `plan`, printing `ready_line` once every probe is attached."""
    # Jinja2 is a good part of usdt's start-up: imported only where a program is rendered.
    from usdtgen import render
    return render.render_trace_script(plan, ready_line, summaries.MAPS_START, summaries.MAPS_END)
