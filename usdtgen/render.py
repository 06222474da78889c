"""Renders the model through the Jinja2 templates in ../templates."""

import functools
import re
from pathlib import Path
from typing import Dict, Iterable, Optional

import jinja2

from . import VERSION, bpftrace_view, header_view, perf_view, systemtap_view
from .model import ProviderFile

TEMPLATE_DIRECTORY = Path(__file__).resolve().parent.parent / "templates"
COMPILED_DIRECTORY = TEMPLATE_DIRECTORY / "compiled"     # written only when installed (compile_templates())
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


def render(model: ProviderFile, kinds: Iterable[str] = tuple(TEMPLATES), include_runtime: bool = False) -> Dict[str, str]:
    """Returns the text of each output kind in `kinds`, keys of TEMPLATES. `include_runtime`: the
    header includes the runtime headers (from the include path usdt_add_provider gives its
    target) instead of carrying them."""
    runtime_header = runtime_text(RUNTIME_HEADERS)
    context = {"model": model, "version": VERSION, "include_runtime": include_runtime, "runtime_header": runtime_header,
               "runtime_cxx_header": runtime_text(RUNTIME_CXX_HEADERS), "abi_version": _abi_version(runtime_header)}
    return {kind: _environment().get_template(TEMPLATES[kind]).render(context) for kind in kinds}


def render_trace_script(plan, ready_line: str, maps_start: str, maps_end: str) -> str:
    """The bpftrace program of `usdt trace` (usdttool/bpftrace/program.py's plan): per probe, a
    record of each hit, and counts in maps; `ready_line` printed once attached, the maps printed
    between `maps_start` and `maps_end`."""
    return _environment().get_template("trace.bt.j2").render(plan=plan, ready_line=ready_line,
                                                             maps_start=maps_start, maps_end=maps_end)


def runtime_text(paths: Iterable[Path]) -> str:
    """The runtime files a generated header embeds in one place, one after the other, as the
    compiler reads them: without their comments, which are for people reading the runtime and
    stay in its installed copy (the embedded code is the same code, line for line)."""
    return "".join(_code_of(path) for path in paths)


# A string or character literal (kept), or a comment: left out, as a space (the compiler's own
# rule, so that code on either side of a comment stays apart and a comment spanning lines inside
# a directive does not end it), but for a NOLINT comment, which tells clang-tidy what it means.
_LITERAL_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.DOTALL)


@functools.lru_cache(maxsize=None)
def _code_of(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    code = _LITERAL_OR_COMMENT.sub(lambda match: match.group(0) if match.group(0)[0] in "\"'" or "NOLINT" in match.group(0)[:15]
                                   else " ", text)
    return "".join(line.rstrip() + "\n" for line in code.splitlines() if line.strip())


def _abi_version(runtime_header: str) -> str:
    """The header's one version number, which the generated header checks against whichever
    copy of it came first in a translation unit."""
    return re.search(r"^#define USDT_ABI_VERSION (\d+)$", runtime_header, re.MULTILINE).group(1)


def compile_templates() -> None:
    """Compiles every template into COMPILED_DIRECTORY (CMakeLists.txt, as usdt is installed)."""
    COMPILED_DIRECTORY.mkdir(exist_ok=True)
    environment = _new_environment(_NamedAsInstalled(str(TEMPLATE_DIRECTORY)), _CompiledTemplates(writing=True))
    for template in sorted(TEMPLATE_DIRECTORY.glob("*.j2")):
        environment.get_template(template.name)


class _NamedAsInstalled(jinja2.FileSystemLoader):
    """Names each template's file `usdt/templates/NAME`, not by the directory it is installed
    to (a package's staging directory), which the compiled code would keep."""

    def get_source(self, environment: jinja2.Environment, template: str):
        source, _, up_to_date = super().get_source(environment, template)
        return source, f"usdt/templates/{template}", up_to_date


class _CompiledTemplates(jinja2.BytecodeCache):
    """The templates as compiled when usdt was installed: compiling them again at each start
    took longer than anything else `usdt trace` does before bpftrace runs. A template changed
    since is compiled as before, in memory (Jinja2 checks its source's hash)."""

    def __init__(self, writing: bool = False):
        self.writing = writing

    def get_cache_key(self, name: str, filename: Optional[str] = None) -> str:
        return name     # not its path, which differs at install time (DESTDIR) and moves with the prefix

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            with open(COMPILED_DIRECTORY / f"{bucket.key}.cache", "rb") as compiled:
                bucket.load_bytecode(compiled)
        except OSError:
            pass

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if self.writing:
            with open(COMPILED_DIRECTORY / f"{bucket.key}.cache", "wb") as compiled:
                bucket.write_bytecode(compiled)


@functools.lru_cache(maxsize=None)
def _environment() -> jinja2.Environment:
    return _new_environment(jinja2.FileSystemLoader(str(TEMPLATE_DIRECTORY)), _CompiledTemplates())


def _new_environment(loader: jinja2.BaseLoader, compiled: jinja2.BytecodeCache) -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=loader,
        bytecode_cache=compiled,
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
