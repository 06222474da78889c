"""The bpftrace program of `usdt trace`: the probes of the traced files, described by the
generator's model (from a provider file, else each binary's `.note.usdt` records, else its
stapsdt notes alone), selected by pattern, printed by the template of the generated scripts.
"""

import fnmatch
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from usdtgen import model, pipeline, render, types
from usdtgen.errors import GeneratorError, SourceLocation

from . import bpftrace017, elf
from .errors import ToolError, warn

# Names go into the bpftrace program: anything else in a binary's notes could rewrite it.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class AttachTarget:
    """What trace.bt.j2 prints for a file: its path as an attach point takes it, the
    predicate each of its probes gets ("" for none), and its place in the program (which its
    marked lines name: usdttool/unread_strings.py)."""
    path: str
    predicate: str
    number: int


# A probe to trace and where its names and types came from.
Described = Tuple[model.Probe, str]


def describe(modules: Sequence[elf.Module],
              provider_file: Optional[str]) -> List[Tuple[elf.Module, List[Described]]]:
    """Each module bpftrace can attach to and its probes as the generator's model describes them,
    so that the trace prints exactly what the generated scripts print."""
    declared = _declared_probes(provider_file) if provider_file else {}
    attachable = [module for module in modules if bpftrace017.attach_point_path(attach_path(module)) is not None]
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
                _check_declaration_fits(declaration, probe, module)
                probes.append((declaration, os.path.basename(provider_file)))
            else:
                probes.append((_model_probe(probe, module.path), probe.source_name or "the stapsdt notes"))
        described.append((module, probes))
    return described


def attach_path(module: elf.Module) -> str:
    # Not resolved: a link with a plain name stands for a path bpftrace cannot take.
    return os.path.abspath(module.path)


def _declared_probes(path: str) -> Dict[Tuple[str, str], model.Probe]:
    return {(probe.provider, probe.name): probe for probe in pipeline.build_model(path).probes}


def _check_declaration_fits(declaration: model.Probe, probe: elf.Probe, module: elf.Module) -> None:
    in_file = [(argument.type.note_size(module.pointer_size), argument.type.signed)
               for argument in declaration.arguments]
    in_notes = [(argument.size, argument.signed) for argument in probe.arguments]
    if in_file != in_notes:
        raise GeneratorError(declaration.location,
                             f"{probe.provider}:{probe.name} is declared here with arguments of "
                             f"{_sizes(in_file)}, but {module.path}'s notes say {_sizes(in_notes)}")


def _sizes(arguments: Sequence[Tuple[int, bool]]) -> str:
    return "(" + ", ".join(f"{'-' if signed else ''}{size}" for size, signed in arguments) + ")" \
        if arguments else "none"


def _model_probe(probe: elf.Probe, module: str) -> model.Probe:
    """The generator's model of a probe recovered from a binary: its line format is the model's."""
    location = SourceLocation(module, 0, 0)
    names = [argument.name if _NAME.fullmatch(argument.name) else f"arg{argument.index}" for argument in probe.arguments]
    arguments = tuple(
        model.Argument(argument.index, name,
                       types.ArgumentType(argument.declared_type, argument.declared_type,
                                          types.Kind.from_note_spelling(argument.kind), argument.size,
                                          argument.signed),
                       location, declared_name=name)
        for argument, name in zip(probe.arguments, names))
    return model.Probe(probe.provider, probe.name, arguments, location, has_semaphore=probe.semaphore != 0,
                       source_name=probe.source_name or "")


def select(described, patterns: Sequence[str], what: str):
    """The probes matching any of `patterns` (all without patterns), modules with none left out."""
    full_patterns = {pattern: pattern if ":" in pattern else f"{pattern}:*" for pattern in patterns}
    matched = set()

    def chosen(probe: model.Probe) -> bool:
        name = f"{probe.provider}:{probe.name}"
        hits = {pattern for pattern, full in full_patterns.items() if fnmatch.fnmatchcase(name, full)}
        matched.update(hits)
        return not patterns or bool(hits)

    selected = [(module, [(probe, source) for probe, source in probes if chosen(probe)])
                for module, probes in described]
    unmatched = [pattern for pattern in patterns if pattern not in matched]
    if unmatched:
        available = sorted({f"{probe.provider}:{probe.name}" for _, probes in described for probe, _ in probes})
        files = [pattern for pattern in unmatched if os.path.exists(pattern)]
        hint = f" (to trace the file {files[0]} too, write ./{files[0]})" if files else ""
        raise ToolError(f"no probe of {what} matches {', '.join(unmatched)}; "
                        f"its probes: {' '.join(available)}{hint}")
    return [(module, probes) for module, probes in selected if probes]


def program(selected, predicate: str, ready_line: str, unread_marker: str) -> str:
    """The program tracing `selected` (what select() returns), `predicate` on every probe
    ("" for none), printing `ready_line` once every probe is attached, and a hit with a string
    it read as "" on a line that starts with `unread_marker`."""
    return render.render_trace_script(
        [(AttachTarget(bpftrace017.attach_point_path(attach_path(module)), predicate, number),
          [probe for probe, _ in probes]) for number, (module, probes) in enumerate(selected)],
        ready_line, unread_marker)
