"""`usdt list`: the probes of a file (and with --libraries, of the shared libraries it loads) or
of a running process, with their arguments' names and types, as text or as JSON.

The JSON schema and an example of the text are in docs/tracing.md ("usdt list"); a file
without probes is listed as such, not an error.
"""

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .files import elf, libraries, probe_notes, process
from .errors import ToolError, counted

JSON_VERSION = 1


@dataclass(frozen=True)
class Listed:
    """A module as listed: what it needs said about it, and in a process, its semaphores."""
    module: elf.Module
    warnings: Tuple[str, ...]
    semaphores: Optional[Dict[int, process.SemaphoreValue]]   # address -> value; None unless a process


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", nargs="?", metavar="FILE|PID",
                        help="an executable or shared library (a name without a '/': a program on PATH, else "
                             "the file here), or the id of a running process")
    parser.add_argument("-p", "--pid", type=int, help="list the probes of this running process")
    parser.add_argument("--libraries", action="store_true",
                        help="also list the probes of the shared libraries the file loads")
    parser.add_argument("--json", action="store_true", help="print JSON (schema: docs/tracing.md)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also print every probe site: its address and its arguments' locations")


def run(args: argparse.Namespace) -> int:
    pid, path = _target(args)
    if pid is not None:
        listed, warnings = _process(pid)
    else:
        listed, warnings = _file(path, args.libraries)
    if args.json:
        json.dump(_json(pid, listed, warnings), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(_text(pid, listed, warnings, args.verbose))
    return 0


def _target(args: argparse.Namespace) -> Tuple[Optional[int], Optional[str]]:
    if args.pid is not None and args.target is not None:
        raise ToolError("give a file or a process (-p PID), not both")
    if args.pid is not None:
        return args.pid, None
    if args.target is None:
        raise ToolError("nothing to list: give a file, a process id or -p PID")
    if args.target.isdigit() and not os.path.exists(args.target):
        return int(args.target), None
    return None, libraries.find_program(args.target)


def kernel_warning(release: str) -> Optional[str]:
    """What a kernel older than 4.20 (no ref_ctr_offset for uprobes) means for semaphores, or None."""
    version = re.match(r"(\d+)\.(\d+)", release)
    if version is None or (int(version[1]), int(version[2])) >= (4, 20):
        return None
    return (f"the running kernel, Linux {release}, is older than 4.20 and does not raise semaphores for "
            "tracers: under perf, and tracers that start the program, every ENABLED() stays false; only "
            "tracers that write a semaphore into a running process themselves raise it (gdb, SystemTap, "
            "bpftrace and bcc's tools given -p PID)")


def _with_kernel_warning(listed: List[Listed], warnings: List[str]) -> List[str]:
    """`warnings`, and kernel_warning()'s when a listed module has semaphores."""
    warning = kernel_warning(os.uname().release)
    if warning and any(probe.semaphore for entry in listed for probe in entry.module.probes):
        return [*warnings, warning]
    return warnings


def _file(path: str, with_libraries: bool) -> Tuple[List[Listed], List[str]]:
    module = elf.read_module(path)
    listed = [Listed(module, module.warnings, None)]
    warnings = []
    if with_libraries:
        found = libraries.shared_libraries(path)
        listed += [Listed(library, library.warnings, None) for library in map(elf.read_module, found.paths)]
        warnings = [f"{name}, needed by {needer}: not found" for needer, name in found.missing]
    return listed, _with_kernel_warning(listed, warnings)


def _process(pid: int) -> Tuple[List[Listed], List[str]]:
    running = process.read_process(pid)
    listed = []
    for process_module in running.modules:
        module = process_module.module
        semaphores = {probe.semaphore: process.semaphore_value(pid, process_module, probe.semaphore)
                      for probe in module.probes if probe.semaphore}
        errors = sorted({value.error for value in semaphores.values() if value.error})
        warnings = module.warnings + tuple(f"semaphore values unknown: {error}" for error in errors)
        listed.append(Listed(module, warnings, semaphores))
    return listed, _with_kernel_warning(listed, list(running.warnings))


def _text(pid: Optional[int], listed: List[Listed], warnings: List[str], verbose: bool) -> str:
    lines = []
    if pid is not None:
        lines.append(f"process {pid}: " + (f"{counted(len(listed), 'file')} with probes" if listed
                                           else "no probes in any mapped file"))
    for entry in listed:
        probes = entry.module.probes
        lines.append(f"{entry.module.path}: {counted(len(probes), 'probe') if probes else 'no probes'}")
        rows = [("SITES", "SEMAPHORE", "TYPES FROM", "PROBE")]
        rows += [(str(len(probe.sites)), _semaphore_text(probe, entry.semaphores),
                  probe.source_name or "stapsdt notes", probe.signature) for probe in probes]
        widths = [max(len(row[column]) for row in rows) for column in range(3)]
        for index, row in enumerate(rows if probes else []):
            lines.append("  " + "  ".join([cell.ljust(width) for cell, width in zip(row, widths)] + [row[3]]))
            if verbose and index:
                lines += [f"      {_site_text(probes[index - 1], site)}" for site in probes[index - 1].sites]
        lines += [f"  warning: {warning}" for warning in entry.warnings]
    lines += [f"warning: {warning}" for warning in warnings]
    return "".join(line + "\n" for line in lines)




def _semaphore_text(probe: probe_notes.Probe, semaphores: Optional[Dict[int, process.SemaphoreValue]]) -> str:
    if not probe.semaphore:
        return "none"
    text = f"0x{probe.semaphore:x}"
    if semaphores is None:
        return text
    value = semaphores[probe.semaphore]
    if value.value is None:
        return f"{text} unknown"
    return f"{text} active ({value.value})" if value.active else f"{text} inactive"


def _site_text(probe: probe_notes.Probe, site: probe_notes.Site) -> str:
    """`site 0x1189: id uint64_t in %rax, key uint64_t in %rdx`: what each spec says, by argument name."""
    names = [argument.name for argument in probe.arguments]
    names += [f"arg{index}" for index in range(len(names), len(site.arguments))]
    arguments = ", ".join(f"{name} {spec.description}" for name, spec in zip(names, site.arguments))
    semaphore = f" (semaphore 0x{site.semaphore:x})" if site.semaphore != probe.semaphore else ""
    return f"site 0x{site.address:x}{semaphore}: {arguments or 'no arguments'}"


def _json(pid: Optional[int], listed: List[Listed], warnings: List[str]) -> dict:
    return {
        "version": JSON_VERSION,
        "pid": pid,
        "modules": [{
            "path": entry.module.path,
            "probes": [probe_json(probe, entry.semaphores) for probe in entry.module.probes],
            "warnings": list(entry.warnings),
        } for entry in listed],
        "warnings": warnings,
    }


def probe_json(probe: probe_notes.Probe, semaphores: Optional[Dict[int, process.SemaphoreValue]]) -> dict:
    semaphore = None
    if probe.semaphore:
        value = semaphores.get(probe.semaphore) if semaphores is not None else None
        semaphore = {"address": probe.semaphore,
                     "value": value.value if value else None,
                     "active": value.active if value else None,
                     "error": value.error if value else None}
    return {
        "provider": probe.provider,
        "name": probe.name,
        "source": probe.source_name,
        "semaphore": semaphore,
        "arguments": [{"index": argument.index, "name": argument.name, "type": argument.type_name,
                       "kind": argument.kind.note_spelling, "size": argument.size, "signed": argument.signed}
                      for argument in probe.arguments],
        "sites": [{"address": site.address,
                   "semaphore": site.semaphore or None,
                   "arguments": [{"spec": spec.text, "size": spec.size, "signed": spec.signed,
                                  "operand": spec.operand, "type": spec.type_name}
                                 for spec in site.arguments]}
                  for site in probe.sites],
    }
