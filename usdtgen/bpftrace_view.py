"""What provider.bt.j2 prints for a probe: the line per hit,
`NSECS pid=PID tid=TID provider:probe name=value...`, as bpftrace's printf formats and
arguments. Each public function is a Jinja filter of those templates. bpftrace hands printf
64-bit values already sign- or zero-extended from the note's size, so every integer is
printed whole with the note's signedness.

(usdt trace prints the same line from a record of each hit: usdttool/bpftrace/hits.py.)
"""

from typing import List, Tuple

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


# bpftrace 0.17 builds a printf's arguments on its 512-byte stack, a str() 64 bytes: a printf of
# three strings does not load. A line with more is printed by several printfs.
STRINGS_PER_PRINTF = 2


def bpftrace_printf_statements(probe: TracerProbe) -> List[Tuple[str, str]]:
    """The line's printf statements, (format, arguments) each: one, unless the probe has more
    than STRINGS_PER_PRINTF strings, then one more per STRINGS_PER_PRINTF strings; only the
    last ends the line. Arguments past the ones the script reads print as `name=?`."""
    read = probe.arguments[:BPFTRACE_ARGUMENTS_READ]
    statements: List[Tuple[List[str], List[str]]] = [(["%llu pid=%d tid=%d", f"{probe.provider}:{probe.name}"],
                                                      ["nsecs", "pid", "tid"])]
    strings = 0
    for argument in read:
        if argument.kind is Kind.STRING:
            if strings == STRINGS_PER_PRINTF:
                statements.append(([""], []))
                strings = 0
            strings += 1
        statements[-1][0].append(f"{argument.name}={_bpftrace_format(argument)}")
        statements[-1][1].append(_bpftrace_value(argument))
    statements[-1][0].extend(f"{argument.name}=?" for argument in probe.arguments[BPFTRACE_ARGUMENTS_READ:])
    formats = [" ".join(fields) for fields, _ in statements]
    formats[-1] += "\\n"
    return [(text, ", ".join(values)) for text, (_, values) in zip(formats, statements)]


FILTERS = {function.__name__: function for function in (bpftrace_printf_statements,)}
