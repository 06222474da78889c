"""What `usdt verify` checks, each a function of its own returning Problems: a file's probes
against what every tracer needs of them (file_problems), and against the probes its .d files
declare (declaration_problems).
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Iterable, List, Sequence, Tuple

from . import readable_specs
from ..errors import counted
from ..files import elf, probe_notes

if TYPE_CHECKING:   # the generator's front end, which `usdt list` never imports
    from usdtgen import model


@dataclass(frozen=True)
class Problem:
    where: str            # `app.d:4:11` for a declaration, the file's path for the file's own
    message: str
    error: bool = True    # else a warning, which leaves the exit status alone

    def __str__(self) -> str:
        return f"{self.where}: {'error' if self.error else 'warning'}: {self.message}"


def file_problems(module: elf.Module) -> List[Problem]:
    """What a tracer trips on in `module`, whichever .d declared its probes."""
    problems = check_stapsdt_base(module) + check_base_segment(module)
    for probe in module.probes:
        problems += check_site_addresses(module, probe)
        problems += check_argument_count(module, probe)
        problems += check_operands(module, probe)
        problems += check_semaphore_page(module, probe)
    return problems


def check_stapsdt_base(module: elf.Module) -> List[Problem]:
    """A file whose notes have no .stapsdt.base to compute their sites' addresses from: gdb
    lists none of its probes, and a prelinked or moved file's sites are wrong for every tracer."""
    if not module.probes:
        return []
    if module.stapsdt_base is None:
        return [Problem(module.path, f"no .stapsdt.base section: gdb lists none of the file's "
                                     f"{counted(len(module.probes), 'probe')}")]
    return [Problem(module.path, f"{_name(probe)}: a site whose note records no .stapsdt.base address (0): gdb and "
                                 f"tracers place it wrongly")
            for probe in module.probes if any(not site.note_base for site in probe.sites)]


def check_base_segment(module: elf.Module) -> List[Problem]:
    """A warning: .stapsdt.base in a loadable segment whose file offsets are another distance
    from its addresses than a site's segment (lld and mold lay sys/sdt.h's out so; GNU ld maps
    every segment at the same distance): perf 6.1 takes a site's file offset from the base's
    segment, places the probe wrongly and records no hit (docs/tracing.md, "usdt verify")."""
    base_segment = None if module.stapsdt_base is None else module.segment(module.stapsdt_base)
    if base_segment is None:
        return []
    distance = base_segment.address - base_segment.offset
    away = sorted({site.address for probe in module.probes for site in probe.sites
                   if site.address and _distance(module, site.address) not in (None, distance)})
    if not away:
        return []
    return [Problem(module.path, f".stapsdt.base (0x{module.stapsdt_base:x}) is in a segment mapped at another "
                                 f"distance from its file offsets than {counted(len(away), 'site')} (0x{away[0]:x}...): "
                                 f"perf 6.1 places their probes at a wrong file offset and records no hit",
                    error=False)]


def _distance(module: elf.Module, address: int):
    segment = module.segment(address)
    return None if segment is None else segment.address - segment.offset


def check_site_addresses(module: elf.Module, probe: probe_notes.Probe) -> List[Problem]:
    """A site at address 0: the linker discarded its code and kept its note (lld's
    --gc-sections of a sys/sdt.h probe); libbpf then refuses every site of the probe."""
    if not any(site.address == 0 for site in probe.sites):
        return []
    return [Problem(module.path, f"{_name(probe)}: a site at address 0: the linker discarded its code and kept its note, "
                                 f"and libbpf refuses every site of the probe")]


def check_argument_count(module: elf.Module, probe: probe_notes.Probe) -> List[Problem]:
    most = readable_specs.MOST_ARGUMENTS
    count = max(len(site.arguments) for site in probe.sites)
    if count <= most:
        return []
    return [Problem(module.path, f"{_name(probe)}: {count} arguments; libbpf and sys/sdt.h take at most {most}")]


def check_operands(module: elf.Module, probe: probe_notes.Probe) -> List[Problem]:
    """Each argument spec the tracers of the file's machine cannot read, once per spec text."""
    problems: Dict[Tuple[int, str], Problem] = {}
    for site in probe.sites:
        for index, spec in enumerate(site.arguments):
            where = f"{_name(probe)} {_argument(probe, index)}: `{spec.text}` (site 0x{site.address:x})"
            reason = readable_specs.unreadable(spec, module.machine)
            if reason is not None:
                problems.setdefault((index, spec.text), Problem(module.path, f"{where}: {reason}"))
            elif readable_specs.scaled(spec, module.machine):
                problems.setdefault((index, spec.text), Problem(
                    module.path, f"{where}: a base-index-scale operand, which libbpf reads from 1.7 on and perf "
                                 f"skips", error=False))
    return list(problems.values())


def check_semaphore_page(module: elf.Module, probe: probe_notes.Probe) -> List[Problem]:
    """A semaphore where the kernel raises another copy (elf.SHARED_SEMAPHORE_PAGE)."""
    if not probe.semaphore or not elf.semaphore_shares_a_page(module, probe.semaphore):
        return []
    return [Problem(module.path, f"{_name(probe)}: its semaphore (0x{probe.semaphore:x}) is on a file page that an "
                                 f"earlier writable segment (GNU_RELRO's) also maps: tracers that start the program "
                                 f"leave its ENABLED() false; relink with -Wl,-z,norelro (lld: "
                                 f"-Wl,-z,separate-loadable-segments), or build the probes with usdt")]


def declaration_problems(declared: Sequence["model.Probe"], modules: Sequence[elf.Module],
                         nowhere: str) -> List[Problem]:
    """Each declared probe against the modules that have it: a site, and each argument's size
    and signedness as the notes record them (and its name and type where .note.usdt does).
    `nowhere`: where a probe without a site is not (`./app`, `./app or the libraries it loads`)."""
    found: Dict[Tuple[str, str], List[Tuple[elf.Module, probe_notes.Probe]]] = {}
    for module in modules:
        for probe in module.probes:
            found.setdefault((probe.provider, probe.name), []).append((module, probe))
    problems = []
    for declaration in declared:
        having = [(module, probe) for module, probe in found.get((declaration.provider, declaration.name), [])
                  if any(site.address for site in probe.sites)]
        if not having:
            problems.append(Problem(str(declaration.location), f"{declaration.provider}:{declaration.name} is declared "
                                                               f"here, and has no site in {nowhere}"))
        for module, probe in having:
            problems += check_declared_arguments(declaration, module, probe)
    return problems


def check_declared_arguments(declaration: "model.Probe", module: elf.Module,
                             probe: probe_notes.Probe) -> List[Problem]:
    traced = declaration.traced(module.pointer_size)
    name = f"{declaration.provider}:{declaration.name}"
    problems: Dict[Tuple, Problem] = {}
    for site in probe.sites:
        if not site.address:
            continue
        if len(site.arguments) != len(traced.arguments):
            problems.setdefault(("count", len(site.arguments)), Problem(
                str(declaration.location), f"{name}: declared with {counted(len(traced.arguments), 'argument')}, "
                                           f"{module.path}'s note has {len(site.arguments)}"))
            continue
        for argument, declared, spec in zip(declaration.arguments, traced.arguments, site.arguments):
            if (spec.size, spec.signed, spec.floating) != (declared.size, declared.signed, False):
                noted = f"{spec.text.split('@')[0]} ({spec.type_name})"
                problems.setdefault((argument.index, spec.text.split("@")[0]), Problem(
                    str(argument.location), f"{name} arg{argument.index} ({argument.declared_name}): declared "
                                            f"{argument.type.declared}, {module.path}'s note says {noted}"))
    if probe.source_name is not None and not problems:
        for argument, recorded in zip(traced.arguments, probe.arguments):
            if (recorded.name, recorded.type_name) != (argument.name, argument.type_name):
                problems.setdefault(("record", argument.index), Problem(
                    str(declaration.arguments[argument.index].location),
                    f"{name} arg{argument.index}: declared `{argument.type_name} {argument.name}`, "
                    f"{module.path}'s .note.usdt says `{recorded.type_name} {recorded.name}` "
                    f"(from {probe.source_name})"))
    return list(problems.values())


def undeclared_problems(declared: Sequence["model.Probe"], modules: Iterable[elf.Module]) -> List[Problem]:
    """Warnings: probes of a declared provider that no .d file given declares (a probe
    removed from its .d file, still fired by a stale object, or a .d file left out)."""
    providers = {probe.provider for probe in declared}
    names = {(probe.provider, probe.name) for probe in declared}
    return [Problem(module.path, f"{_name(probe)} has a site here, and none of the .d files declares it", error=False)
            for module in modules for probe in module.probes
            if probe.provider in providers and (probe.provider, probe.name) not in names]


def _name(probe: probe_notes.Probe) -> str:
    return f"{probe.provider}:{probe.name}"


def _argument(probe: probe_notes.Probe, index: int) -> str:
    """`arg1 (name)` where .note.usdt names it, else `arg1`."""
    if probe.source_name is not None and index < len(probe.arguments):
        return f"arg{index} ({probe.arguments[index].name})"
    return f"arg{index}"
