"""Renders the model through the Jinja2 templates in ../templates."""

from pathlib import Path
from typing import Dict, Iterable

import jinja2

from . import ABI_VERSION, VERSION
from .model import ProviderFile

TEMPLATE_DIRECTORY = Path(__file__).resolve().parent.parent / "templates"

# Output kind -> template producing it.
TEMPLATES = {
    "header": "provider.h.j2",
    "source": "provider.c.j2",
    "bpftrace": "provider.bt.j2",
    "systemtap": "provider.stp.j2",
    "perf": "provider.perf.sh.j2",
}


def render(model: ProviderFile, kinds: Iterable[str] = tuple(TEMPLATES)) -> Dict[str, str]:
    """Returns the text of each output kind in `kinds`, keys of TEMPLATES."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIRECTORY)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    context = {"model": model, "version": VERSION, "abi_version": ABI_VERSION}
    return {kind: environment.get_template(TEMPLATES[kind]).render(context) for kind in kinds}
