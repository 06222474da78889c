"""Renders the model through the Jinja2 templates in ../templates."""

import functools
import re
from pathlib import Path
from typing import Dict, Iterable, Sequence, Tuple

import jinja2

from . import VERSION, bpftrace_view, header_view, perf_view, systemtap_view
from .model import Probe, ProviderFile

TEMPLATE_DIRECTORY = Path(__file__).resolve().parent.parent / "templates"
# Embedded in every generated header (the source tree and the installed data directory share this layout).
RUNTIME_HEADER = Path(__file__).resolve().parent.parent / "runtime" / "include" / "usdt" / "usdt.h"

# Output kind -> template producing it.
TEMPLATES = {
    "header": "provider.h.j2",
    "bpftrace": "provider.bt.j2",
    "systemtap": "provider.stp.j2",
    "perf": "provider.perf.sh.j2",
}


def render(model: ProviderFile, kinds: Iterable[str] = tuple(TEMPLATES)) -> Dict[str, str]:
    """Returns the text of each output kind in `kinds`, keys of TEMPLATES."""
    runtime_header = _runtime_header()
    context = {"model": model, "version": VERSION, "runtime_header": runtime_header,
               "abi_version": _abi_version(runtime_header)}
    return {kind: _environment().get_template(TEMPLATES[kind]).render(context) for kind in kinds}


def render_trace_script(probes_by_module: Sequence[Tuple[object, Sequence[Probe]]], ready_line: str,
                        unread_marker: str) -> str:
    """The bpftrace program of `usdt trace`: the generated script's line per hit, for probes
    in several modules (each with its `path`, `predicate` and `number`), `ready_line` printed
    once attached, and `unread_marker` starting the line of a hit with a string read as ""."""
    return _environment().get_template("trace.bt.j2").render(probes_by_module=probes_by_module,
                                                             ready_line=ready_line, unread_marker=unread_marker)


@functools.lru_cache(maxsize=None)
def _runtime_header() -> str:
    return RUNTIME_HEADER.read_text(encoding="utf-8")


def _abi_version(runtime_header: str) -> str:
    """The header's one version number, which the generated header checks against whichever
    copy of it came first in a translation unit."""
    return re.search(r"^#define USDT_ABI_VERSION (\d+)$", runtime_header, re.MULTILINE).group(1)


@functools.lru_cache(maxsize=None)
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIRECTORY)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    # Each output's view, as filters of its templates: `{{ probe | macro_operands }}`.
    for view in (header_view, bpftrace_view, systemtap_view, perf_view):
        environment.filters.update(view.FILTERS)
    return environment
