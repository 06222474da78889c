"""What provider.h.j2 prints for a probe and its arguments: the C macros' site arguments and
the C++ API's pieces. Each function is a Jinja filter of that template (`{{ probe | macro_operands }}`).

Argument lists the header prints on one line are joined here: a template loop per list and
probe made rendering the larger part of generating 10,000 probes.
"""

from .model import Argument, Probe, cxx_identifier
from .types import Kind

_ASM_STRING_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 _.-+*:/")

# The runtime header's C++ argument classes: usdt::detail::<name>_argument.
CXX_HOLDERS = {Kind.INTEGER: "integer_argument", Kind.BOOLEAN: "bool_argument",
               Kind.STRING: "string_argument", Kind.POINTER: "pointer_argument"}


def asm_string_text(text: str) -> str:
    """`text` spelled for the inside of a quoted string in an asm template, through a C string
    literal: anything beyond plain name characters as the assembler's octal escapes (`{` ->
    `\\173`), because `%`, `{`, `|` and `}` mean something to the compiler in an x86-64 asm
    template and something else on aarch64."""
    return "".join(character if character in _ASM_STRING_SAFE
                   else "".join(f"\\{byte:03o}" for byte in character.encode())
                   for character in text)


def spec(argument: Argument) -> str:
    """`[-]SIZE@OPERAND` as C string-literal tokens.

    The runtime header's USDT_SPEC_OPERAND and USDT_SPEC_NARROW_OPERAND (under 8 bytes) print
    the operand in the form tracers parse on the target: the register of operand N, or the
    argument's slot, 8 bytes each, in the argument block of 32-bit targets. A pointer-sized
    argument takes its size from USDT_WORD_SIZE, 4 or 8.
    """
    argument_type = argument.type
    sign = "-" if argument_type.signed else ""
    size = f'"{sign}" USDT_WORD_SIZE "@"' if argument_type.pointer_sized else f'"{sign}{argument_type.size}@"'
    operand = "USDT_SPEC_NARROW_OPERAND" if argument_type.size < 8 else "USDT_SPEC_OPERAND"
    return f'{size} {operand}("{argument.index}", "{8 * argument.index}")'


def slot_member(argument: Argument) -> str:
    """The member of the runtime header's union _usdt_slot that holds the argument."""
    argument_type = argument.type
    if argument_type.kind == Kind.BOOLEAN:
        return "flag"
    if argument_type.kind in (Kind.STRING, Kind.POINTER):
        return "address"
    if argument_type.pointer_sized:
        return "word" if argument_type.signed else "uword"
    return f"{'i' if argument_type.signed else 'u'}{8 * argument_type.size}"


def argument_spec(probe: Probe) -> str:
    """All argument specs, space separated, as adjacent C string literals."""
    # Separated by a space in the literal that starts the next: `... " -8@" ...`.
    return ' " " '.join(spec(argument) for argument in probe.arguments).replace('" " "', '" ') or '""'


def enabled_expression(probe: Probe) -> str:
    """What the `_ENABLED()` macro expands to."""
    return f"USDT_SEMAPHORE_ACTIVE({probe.semaphore_name})" if probe.has_semaphore else "USDT_ALWAYS_ACTIVE"


def site_macro(probe: Probe) -> str:
    return "USDT_PROBE" if probe.has_semaphore else "USDT_PROBE_WITHOUT_SEMAPHORE"


def site_semaphore_operand(probe: Probe) -> str:
    """The site macro's semaphore argument and its comma, or nothing."""
    return f"{probe.semaphore_name}, " if probe.has_semaphore else ""


def site_clobbers(probe: Probe) -> str:
    """String and pointer arguments need the memory they point to written before the site,
    where a tracer dereferences them."""
    if any(argument.type.kind in (Kind.STRING, Kind.POINTER) for argument in probe.arguments):
        return "USDT_MEMORY_CLOBBERS"
    return "USDT_NO_CLOBBERS"


def site_description(probe: Probe) -> str:
    """The `.note.usdt` record after provider and name, as the site macro takes it: a
    parenthesized list of C string literals that become the operands of an `.asciz`."""
    strings = [probe.source_name]
    for argument in probe.arguments:
        strings += [argument.declared_name, argument.type.declared, argument.type.kind.note_spelling]
    return "(" + ", ".join(f'"{asm_string_text(string)}"' for string in strings) + ")"


def macro_parameters(probe: Probe) -> str:
    """`arg0, arg1`"""
    return ", ".join(argument.macro_parameter for argument in probe.arguments)


def macro_operands(probe: Probe) -> str:
    """`USDT_ARG(u64, uint64_t, arg0) USDT_STRING_ARG(p_x_semaphore, const char *, arg1)`: a string
    of a probe with a semaphore is read while the probe is enabled, so that its pages are
    mapped when a tracer reads it (a BPF program cannot fault a page in)."""
    return " ".join(
        f"USDT_STRING_ARG({probe.semaphore_name}, {argument.type.c_type}, {argument.macro_parameter})"
        if probe.has_semaphore and argument.type.kind == Kind.STRING
        else f"USDT_ARG({slot_member(argument)}, {argument.type.c_type}, {argument.macro_parameter})"
        for argument in probe.arguments)


def cxx_holder(argument: Argument) -> str:
    """The runtime class that checks, prepares and converts this argument in the C++ API."""
    parameter = argument.cxx_template_parameter
    holder = CXX_HOLDERS[argument.type.kind]
    if argument.type.kind == Kind.INTEGER:
        return f"usdt::detail::{holder}<{argument.type.c_type}, {parameter}>"
    return f"usdt::detail::{holder}<{parameter}>"


def cxx_requirement(argument: Argument) -> str:
    """The static_assert message when the C++ API gets a value this argument cannot take."""
    argument_type = argument.type
    if argument_type.kind == Kind.INTEGER:
        if argument_type.pointer_sized:
            size = f"sizeof({argument_type.c_type}) bytes"
        else:
            size = f"{argument_type.size} byte{'s' if argument_type.size > 1 else ''}"
        # A braced conversion takes a one-word type only: `short{3}`, `static_cast<unsigned short>(3)`.
        literal = (f"static_cast<{argument_type.c_type}>(3)" if " " in argument_type.c_type
                   else f"{argument_type.c_type}{{3}}")
        literals = f", literals as {literal}" if argument_type.size < 4 else ""
        accepted = f"an integer or enum of at most {size} (convert wider values explicitly{literals})"
    else:
        accepted = {
            Kind.BOOLEAN: "a bool",
            Kind.STRING: "a C string, std::string, std::string_view, nullptr, or a type with usdt_format()",
            Kind.POINTER: "an object pointer or nullptr (smart pointers: pass .get())",
        }[argument_type.kind]
    return f"{argument.cxx_function}: argument {argument.index} '{argument.name}' ({argument_type.declared}) takes {accepted}"


def cxx_lazy_requirement(probe: Probe) -> str:
    """The static_assert message when a lazy probe's callable returns the wrong thing."""
    count = len(probe.arguments)
    return (f"{cxx_identifier(probe.provider)}::{probe.cxx_lazy_name}: the callable must return "
            f"std::make_tuple(...) of {count} argument{'s' if count != 1 else ''}")


def cxx_template_parameters(probe: Probe) -> str:
    """`typename UsdtArg0, typename UsdtArg1`"""
    return ", ".join(f"typename {argument.cxx_template_parameter}" for argument in probe.arguments)


def cxx_parameters(probe: Probe) -> str:
    """`const UsdtArg0 &id, const UsdtArg1 &path`"""
    return ", ".join(f"const {argument.cxx_template_parameter} &{argument.name}" for argument in probe.arguments)


def cxx_any_costly(probe: Probe) -> str:
    """Whether some argument is prepared only while traced, as a C++ constant expression."""
    return " || ".join(f"{cxx_holder(argument)}::costly" for argument in probe.arguments)


def cxx_prepared_values(probe: Probe) -> str:
    """`usdt_argument_0.get(), usdt_argument_1.get()`"""
    return ", ".join(f"{argument.cxx_prepared_name}.get()" for argument in probe.arguments)


def cxx_lazy_values(probe: Probe) -> str:
    """`std::get<0>(usdt_arguments), std::get<1>(usdt_arguments)`"""
    return ", ".join(f"std::get<{argument.index}>(usdt_arguments)" for argument in probe.arguments)


FILTERS = {function.__name__: function for function in (
    spec, slot_member, argument_spec, enabled_expression, site_macro, site_semaphore_operand, site_clobbers,
    site_description, macro_parameters, macro_operands, cxx_holder, cxx_requirement, cxx_lazy_requirement,
    cxx_template_parameters, cxx_parameters, cxx_any_costly, cxx_prepared_values, cxx_lazy_values)}
