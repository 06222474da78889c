"""Renders the model through the Jinja2 templates in ../templates."""

import functools
import re
from pathlib import Path
from typing import Dict, Iterable

import jinja2

from . import VERSION, bpftrace_view, header_view, perf_view, systemtap_view
from .model import ProviderFile

TEMPLATE_DIRECTORY = Path(__file__).resolve().parent.parent / "templates"
# The runtime, embedded in every generated header (the source tree and the installed data
# directory share this layout), its files in the order each includes the one before: the probe
# site, for C and C++, and the C++ part, for C++ only.
RUNTIME_DIRECTORY = Path(__file__).resolve().parent.parent / "runtime" / "include" / "usdt"
RUNTIME_HEADERS = (RUNTIME_DIRECTORY / "usdt.h", RUNTIME_DIRECTORY / "usdt_site.h")
RUNTIME_CXX_HEADERS = (RUNTIME_DIRECTORY / "usdt_cxx.h", RUNTIME_DIRECTORY / "usdt_cxx_api.h")

# Output kind -> template producing it.
TEMPLATES = {
    "header": "provider.h.j2",
    "bpftrace": "provider.bt.j2",
    "systemtap": "provider.stp.j2",
    "perf": "provider.perf.sh.j2",
}


def render(model: ProviderFile, kinds: Iterable[str] = tuple(TEMPLATES)) -> Dict[str, str]:
    """Returns the text of each output kind in `kinds`, keys of TEMPLATES."""
    runtime_header = runtime_text(RUNTIME_HEADERS)
    context = {"model": model, "version": VERSION, "runtime_header": runtime_header,
               "runtime_cxx_header": runtime_text(RUNTIME_CXX_HEADERS), "abi_version": _abi_version(runtime_header)}
    return {kind: _environment().get_template(TEMPLATES[kind]).render(context) for kind in kinds}


def render_trace_script(plan, ready_line: str, maps_start: str, maps_end: str) -> str:
    """The bpftrace program of `usdt trace` (usdttool/bpftrace/program.py's plan): per probe, a
    record of each hit, and counts in maps; `ready_line` printed once attached, the maps printed
    between `maps_start` and `maps_end`."""
    return _environment().get_template("trace.bt.j2").render(plan=plan, ready_line=ready_line,
                                                             maps_start=maps_start, maps_end=maps_end)


def runtime_text(paths: Iterable[Path]) -> str:
    """The runtime files a generated header embeds in one place, one after the other."""
    return "".join(_read(path) for path in paths)


@functools.lru_cache(maxsize=None)
def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


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
