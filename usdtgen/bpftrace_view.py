"""What provider.bt.j2 and usdt trace's trace.bt.j2 print for a probe: the line per hit,
`NSECS pid=PID tid=TID provider:probe name=value...`, as bpftrace's printf format and
arguments. Each public function is a Jinja filter of those templates. bpftrace hands printf
64-bit values already sign- or zero-extended from the note's size, so every integer is
printed whole with the note's signedness.
"""

from .model import Argument, Probe
from .types import Kind

# The arguments bpftrace 0.17 reads from a usdt probe: arg0..arg5. It rejects arg6..arg9
# ("x86_64 doesn't support arg6") and knows no arg10.
BPFTRACE_ARGUMENTS_READ = 6


def _bpftrace_format(argument: Argument) -> str:
    """In a bpftrace printf format: `%d` would print only the low 32 bits."""
    return {
        Kind.INTEGER: "%lld" if argument.type.signed else "%llu",
        Kind.BOOLEAN: "%s",
        Kind.STRING: '\\"%s\\"',
        Kind.POINTER: "0x%lx",
    }[argument.type.kind]


def _bpftrace_value(argument: Argument) -> str:
    register = f"arg{argument.index}"
    return {
        Kind.INTEGER: register,
        Kind.BOOLEAN: f'{register} ? "true" : "false"',
        Kind.STRING: f"str({register})",
        Kind.POINTER: register,
    }[argument.type.kind]


def bpftrace_printf_format(probe: Probe) -> str:
    """Arguments past the ones bpftrace reads print as `name=?`."""
    read, unread = probe.arguments[:BPFTRACE_ARGUMENTS_READ], probe.arguments[BPFTRACE_ARGUMENTS_READ:]
    fields = [f"{argument.declared_name}={_bpftrace_format(argument)}" for argument in read]
    fields += [f"{argument.declared_name}=?" for argument in unread]
    return " ".join(["%llu pid=%d tid=%d", f"{probe.provider}:{probe.name}", *fields]) + "\\n"


def bpftrace_printf_arguments(probe: Probe) -> str:
    """`nsecs, pid, tid, arg0, str(arg1)`"""
    values = [_bpftrace_value(argument) for argument in probe.arguments[:BPFTRACE_ARGUMENTS_READ]]
    return ", ".join(["nsecs", "pid", "tid", *values])


FILTERS = {function.__name__: function for function in (bpftrace_printf_format, bpftrace_printf_arguments)}
