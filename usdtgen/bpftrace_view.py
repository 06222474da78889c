"""What provider.bt.j2 and usdt trace's trace.bt.j2 print for a probe: the line per hit,
`NSECS pid=PID tid=TID provider:probe name=value...`, as bpftrace's printf format and
arguments. Each public function is a Jinja filter of those templates. bpftrace hands printf
64-bit values already sign- or zero-extended from the note's size, so every integer is
printed whole with the note's signedness.

usdt trace's program holds each string in a variable, read once, and prints a hit whose
non-NULL string read as "" (BPF cannot fault a page in) as a marked line instead, for usdt to
read the string itself (usdttool/bpftrace/unread_strings.py).
"""

from typing import List

from .notes import Kind
from .tracer_probe import TracerArgument, TracerProbe

# The arguments bpftrace 0.17 reads from a usdt probe: arg0..arg5. It rejects arg6..arg9
# ("x86_64 doesn't support arg6") and knows no arg10.
BPFTRACE_ARGUMENTS_READ = 6


def _bpftrace_format(argument: TracerArgument) -> str:
    """In a bpftrace printf format: `%d` would print only the low 32 bits."""
    return {
        Kind.INTEGER: "%lld" if argument.signed else "%llu",
        Kind.BOOLEAN: "%s",
        Kind.STRING: '\\"%s\\"',
        Kind.POINTER: "0x%lx",
    }[argument.kind]


def _bpftrace_value(argument: TracerArgument, held_strings: bool) -> str:
    register = f"arg{argument.index}"
    return {
        Kind.INTEGER: register,
        Kind.BOOLEAN: f'{register} ? "true" : "false"',
        Kind.STRING: bpftrace_string_variable(argument) if held_strings else f"str({register})",
        Kind.POINTER: register,
    }[argument.kind]


def bpftrace_printf_format(probe: TracerProbe) -> str:
    """Arguments past the ones bpftrace reads print as `name=?`."""
    read, unread = probe.arguments[:BPFTRACE_ARGUMENTS_READ], probe.arguments[BPFTRACE_ARGUMENTS_READ:]
    fields = [f"{argument.name}={_bpftrace_format(argument)}" for argument in read]
    fields += [f"{argument.name}=?" for argument in unread]
    return " ".join(["%llu pid=%d tid=%d", f"{probe.provider}:{probe.name}", *fields]) + "\\n"


def bpftrace_printf_arguments(probe: TracerProbe, held_strings: bool = False) -> str:
    """`nsecs, pid, tid, arg0, str(arg1)`; `held_strings`: `$string1` for `str(arg1)`."""
    values = [_bpftrace_value(argument, held_strings) for argument in probe.arguments[:BPFTRACE_ARGUMENTS_READ]]
    return ", ".join(["nsecs", "pid", "tid", *values])


def bpftrace_string_arguments(probe: TracerProbe) -> List[TracerArgument]:
    """The string arguments bpftrace reads."""
    return [argument for argument in probe.arguments[:BPFTRACE_ARGUMENTS_READ] if argument.kind is Kind.STRING]


def bpftrace_string_variable(argument: TracerArgument) -> str:
    """The variable holding `str(argN)`, read once: what the line prints is what was tested."""
    return f"$string{argument.index}"


def _read_empty(argument: TracerArgument) -> str:
    # `$s == ""` draws bpftrace 0.17's "Addrspace mismatch" warning; strncmp does not.
    return f'strncmp({bpftrace_string_variable(argument)}, "", 1) == 0'


def bpftrace_unread_condition(probe: TracerProbe) -> str:
    """Whether some string argument's pointer is not NULL yet its string read as ""."""
    return " || ".join(f"(arg{argument.index} != 0 && {_read_empty(argument)})"
                       for argument in bpftrace_string_arguments(probe))


def bpftrace_unread_format(probe: TracerProbe) -> str:
    """The fields the marked line puts before the hit's line: the probe's address, then each
    string argument's pointer where its string read as "", else 0."""
    return " ".join(["0x%lx"] * (1 + len(bpftrace_string_arguments(probe))))


def bpftrace_unread_arguments(probe: TracerProbe) -> str:
    """`reg("ip"), strncmp($string1, "", 1) == 0 ? arg1 : 0`: at a uprobe, the ip register
    holds the probe's address, which gives usdt the probed file's load address."""
    pointers = [f"{_read_empty(argument)} ? arg{argument.index} : 0" for argument in bpftrace_string_arguments(probe)]
    return ", ".join(['reg("ip")', *pointers])


FILTERS = {function.__name__: function for function in (
    bpftrace_printf_format, bpftrace_printf_arguments, bpftrace_string_arguments, bpftrace_string_variable,
    bpftrace_unread_condition, bpftrace_unread_format, bpftrace_unread_arguments)}
