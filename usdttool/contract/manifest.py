"""A saved `usdt list --json` (a manifest, docs/tracing.md "usdt list") read back as the modules
it lists, so that `usdt diff` compares a manifest and a binary alike. Versions other than
listing.JSON_VERSION are refused: a field that changes meaning changes the version.
"""

import json
from typing import Any, List, Tuple

from usdtgen.notes import Kind
from usdtgen.tracer_probe import TracerArgument

from ..errors import ToolError
from ..files import elf, libraries, probe_notes

VERSION = 1   # listing.JSON_VERSION, the version this reader reads


class _Malformed(Exception):
    """Where a manifest is not what `usdt list --json` writes, and what is wrong there."""


def read_manifest(path: str, text: str) -> List[elf.Module]:
    """The modules of the manifest `text` (read from `path`); ToolError when it is none."""
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise ToolError(f"{path}: neither an ELF file nor a `usdt list --json` manifest "
                        f"({getattr(error, 'msg', 'too deeply nested')})") from None
    try:
        if not isinstance(document, dict) or "modules" not in document:
            raise _Malformed("the top level is not an object with `modules`")
        version = document.get("version")
        if version != VERSION:
            raise ToolError(f"{path}: a manifest of version {json.dumps(version)}; this usdt reads version {VERSION}")
        return [_module(module, f"modules[{index}]") for index, module in
                enumerate(_field(document, "modules", list, ""))]
    except _Malformed as error:
        raise ToolError(f"{path}: not a `usdt list --json` manifest ({error})") from None


def _field(value: dict, key: str, kind, where: str, optional: bool = False) -> Any:
    if not isinstance(value, dict):
        raise _Malformed(f"{where or 'the top level'} is not an object")
    if key not in value:
        raise _Malformed(f"{where}.{key} is missing" if where else f"{key} is missing")
    field = value[key]
    if field is None and optional:
        return None
    # bool is an int to Python: never taken for a number here, nor a number for a bool.
    if not isinstance(field, kind) or (kind is int and isinstance(field, bool)):
        raise _Malformed(f"{where}.{key} is not {_KIND_NAMES.get(kind, kind.__name__)}")
    return field


_KIND_NAMES = {list: "a list", dict: "an object", str: "a string", int: "a number", bool: "true or false"}


def _module(value: dict, where: str) -> elf.Module:
    probes = tuple(_probe(probe, f"{where}.probes[{index}]")
                   for index, probe in enumerate(_field(value, "probes", list, where)))
    return elf.Module(_field(value, "path", str, where), tuple(sorted(probes, key=lambda p: (p.provider, p.name))))


def _probe(value: dict, where: str) -> probe_notes.Probe:
    semaphore = _field(value, "semaphore", dict, where, optional=True)
    address = 0 if semaphore is None else _field(semaphore, "address", int, f"{where}.semaphore")
    arguments = tuple(_argument(argument, f"{where}.arguments[{index}]")
                      for index, argument in enumerate(_field(value, "arguments", list, where)))
    sites = tuple(_site(site, f"{where}.sites[{index}]") for index, site in enumerate(_field(value, "sites", list, where)))
    return probe_notes.Probe(_field(value, "provider", str, where), _field(value, "name", str, where), arguments,
                             sites, address, _field(value, "source", str, where, optional=True))


def _argument(value: dict, where: str) -> TracerArgument:
    spelling = _field(value, "kind", str, where)
    kind = Kind.from_note_spelling(spelling)
    if kind is None:
        raise _Malformed(f"{where}.kind is {json.dumps(spelling)}, no kind usdt knows")
    return TracerArgument(_field(value, "index", int, where), _field(value, "name", str, where),
                          _field(value, "type", str, where), kind, _field(value, "size", int, where),
                          _field(value, "signed", bool, where))


def _site(value: dict, where: str) -> probe_notes.Site:
    specs = tuple(_field(spec, "spec", str, f"{where}.arguments[{index}]")
                  for index, spec in enumerate(_field(value, "arguments", list, where)))
    return probe_notes.Site(_field(value, "address", int, where),
                            _field(value, "semaphore", int, where, optional=True) or 0,
                            tuple(parsed for spec in specs for parsed in probe_notes.parse_arguments(spec)))


def read_side(path: str, with_libraries: bool) -> Tuple[str, List[elf.Module]]:
    """What one side of `usdt diff` names: (its path, its modules): an ELF file (and with
    `with_libraries`, the libraries it loads) or a manifest."""
    try:
        with open(path, "rb") as file:
            start = file.read(4)
    except OSError:
        start = None   # elf.read_module says what is wrong with it
    if start is None or start == b"\x7fELF":
        modules = [elf.read_module(path)]
        if with_libraries:
            modules += [elf.read_module(library) for library in libraries.shared_libraries(path).paths]
        return path, modules
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as error:
        raise ToolError(f"{path}: neither an ELF file nor a `usdt list --json` manifest ({error})") from None
    return path, read_manifest(path, text)


