"""What provider.perf.sh.j2 prints: the events `perf probe` makes of the notes. Each function is a
Jinja filter of the template."""

from .model import Provider
from .tracer_probe import TracerProbe

def perf_event(probe: TracerProbe) -> str:
    """The event `perf probe` creates from the note."""
    return f"sdt_{probe.provider}:{probe.name}"


def perf_event_names(probe: TracerProbe) -> list:
    """The names `perf probe --del` is given for the probe's event: perf_event's, and where the
    name has a `__`, perf 7's, which makes each `__` of a note's name `_` (perf 6 keeps it)."""
    event = perf_event(probe)
    renamed = f"sdt_{probe.provider}:{probe.name.replace('__', '_')}"
    return [event] if renamed == event else [event, renamed]


def perf_event_description(probe: TracerProbe) -> str:
    """The event and what its numbered arguments are (perf numbers them from arg1):
    `sdt_myapp:request__start arg1=id (uint64_t) arg2=path (const char *)`."""
    return " ".join([perf_event(probe), *(f"arg{argument.index + 1}={argument.name} ({argument.type_name})"
                                          for argument in probe.arguments)])


def perf_group(provider: Provider) -> str:
    """perf's event group for the provider's probes."""
    return f"sdt_{provider.name}"


FILTERS = {function.__name__: function
           for function in (perf_event, perf_event_names, perf_event_description, perf_group)}
