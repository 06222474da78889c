"""What provider.stp.j2 prints for a probe: the line per hit, as SystemTap's printf format and
arguments. Each public function is a Jinja filter of the template. SystemTap hands printf
64-bit values already sign- or zero-extended from the note's size.
"""

from .notes import Kind
from .tracer_probe import TracerArgument, TracerProbe


def _systemtap_format(argument: TracerArgument) -> str:
    """In a SystemTap printf format; user_string_quoted() adds the quotes."""
    return {
        Kind.INTEGER: "%d" if argument.signed else "%u",
        Kind.BOOLEAN: "%s",
        Kind.STRING: "%s",
        Kind.POINTER: "0x%x",
    }[argument.kind]


def _systemtap_value(argument: TracerArgument) -> str:
    """SystemTap numbers a probe's arguments from $arg1."""
    register = f"$arg{argument.index + 1}"
    return {
        Kind.INTEGER: register,
        Kind.BOOLEAN: f'{register} ? "true" : "false"',
        Kind.STRING: f"user_string_quoted({register})",
        Kind.POINTER: register,
    }[argument.kind]


def systemtap_printf_format(probe: TracerProbe) -> str:
    fields = [f"{argument.name}={_systemtap_format(argument)}" for argument in probe.arguments]
    return " ".join(["%d pid=%d tid=%d", f"{probe.provider}:{probe.name}", *fields]) + "\\n"


def systemtap_printf_arguments(probe: TracerProbe) -> str:
    """`ktime_get_ns(), pid(), tid(), $arg1, user_string_quoted($arg2)`"""
    values = [_systemtap_value(argument) for argument in probe.arguments]
    return ", ".join(["ktime_get_ns()", "pid()", "tid()", *values])


FILTERS = {function.__name__: function for function in (systemtap_printf_format, systemtap_printf_arguments)}
