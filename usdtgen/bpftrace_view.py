"""What provider.bt.j2 prints for a probe: the line per hit,
`NSECS pid=PID tid=TID provider:probe name=value...`, as bpftrace's printf format and
arguments. Each public function is a Jinja filter of those templates. bpftrace hands printf
64-bit values already sign- or zero-extended from the note's size, so every integer is
printed whole with the note's signedness.

(usdt trace prints the same line from a record of each hit: usdttool/bpftrace/hits.py.)
"""

from .notes import Kind
from .tracer_probe import TracerArgument, TracerProbe

# The arguments the generated script reads: arg0..arg5. bpftrace up to 0.24 rejects arg6 and beyond
# ("x86_64 doesn't support arg6"); usdt trace reads those from their operands
# (usdttool/bpftrace/releases.py), which a script written from a .d file does not know.
BPFTRACE_ARGUMENTS_READ = 6


def _bpftrace_format(argument: TracerArgument) -> str:
    """In a bpftrace printf format: `%d` would print only the low 32 bits."""
    return {
        Kind.INTEGER: "%lld" if argument.signed else "%llu",
        Kind.BOOLEAN: "%s",
        Kind.STRING: '\\"%s\\"',
        Kind.POINTER: "0x%lx",
    }[argument.kind]


def _bpftrace_value(argument: TracerArgument) -> str:
    register = f"arg{argument.index}"
    return {
        Kind.INTEGER: register,
        Kind.BOOLEAN: f'{register} ? "true" : "false"',
        Kind.STRING: f"str({register})",
        Kind.POINTER: register,
    }[argument.kind]


def bpftrace_printf_format(probe: TracerProbe) -> str:
    """Arguments past the ones the script reads print as `name=?`."""
    read, unread = probe.arguments[:BPFTRACE_ARGUMENTS_READ], probe.arguments[BPFTRACE_ARGUMENTS_READ:]
    fields = [f"{argument.name}={_bpftrace_format(argument)}" for argument in read]
    fields += [f"{argument.name}=?" for argument in unread]
    return " ".join(["%llu pid=%d tid=%d", f"{probe.provider}:{probe.name}", *fields]) + "\\n"


def bpftrace_printf_arguments(probe: TracerProbe) -> str:
    """`nsecs, pid, tid, arg0, str(arg1)`. One printf holds them all: bpftrace 0.17 builds its
    arguments on the 512-byte BPF stack, where six str() of 64 bytes and three integers fit (a
    seventh string does not)."""
    values = [_bpftrace_value(argument) for argument in probe.arguments[:BPFTRACE_ARGUMENTS_READ]]
    return ", ".join(["nsecs", "pid", "tid", *values])


FILTERS = {function.__name__: function for function in (bpftrace_printf_format, bpftrace_printf_arguments)}
