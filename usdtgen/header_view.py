"""What provider.h.j2 prints for a probe and its arguments: its argument specs, the C macros' site
arguments and the C++ API's pieces. Each function is a
Jinja filter of that template (`{{ probe | macro_operands }}`).

Argument lists the header prints on one line are joined here: a template loop per list and
probe costs far more than a join, and the header has several lists per probe.
"""

import functools
import re
from typing import List

from .model import Argument, Probe
from .types import Kind

# Not `*`: a declared type the note records, `char *`, is spelled `char \052`, out of the reach
# of builds' edits of the header (see c_type).
_ASM_STRING_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 _.-+:/")

# The runtime header's check of a probe macro's argument, per kind of declared type.
MACRO_CHECKS = {Kind.INTEGER: "_USDT_CHECK_INTEGER", Kind.BOOLEAN: "_USDT_CHECK_BOOL", Kind.STRING: "_USDT_CHECK_STRING",
                Kind.POINTER: "_USDT_CHECK_POINTER"}

# The runtime header's C++ argument classes of each kind but integers, whose class also
# takes the declared type: usdt::<name><index>.
CXX_ARGUMENT_TYPES = {Kind.BOOLEAN: "bool_argument", Kind.STRING: "string_argument",
                      Kind.POINTER: "pointer_argument"}


def asm_string_text(text: str) -> str:
    """`text` spelled for the inside of a quoted string in an asm template, through a C string
    literal: anything beyond plain name characters as the assembler's octal escapes (`{` ->
    `\\173`), because `%`, `{`, `|` and `}` mean something to the compiler in an x86-64 asm
    template and something else on aarch64."""
    if _ASM_STRING_SAFE.issuperset(text):
        return text     # most names and types: a probe has several, and a file thousands of probes
    return "".join(character if character in _ASM_STRING_SAFE
                   else "".join(f"\\{byte:03o}" for byte in character.encode())
                   for character in text)


def c_type(argument: Argument) -> str:
    """The argument's C type as the header's code spells it: a pointer's qualifiers after the type
    they qualify, `char const *`, `void const volatile *`. Builds written for systemtap's dtrace
    sed its header's `char *` and `void *` into `const char *` (docs/dtrace.md): a
    `const char *` would become `const const char *`, which -Wall -Werror refuses."""
    return _qualifiers_after(argument.type.c_type)


_QUALIFIED_POINTER_RE = re.compile(r"^((?:const |volatile )+)(\w+) \*$")


@functools.lru_cache(maxsize=None)
def _qualifiers_after(c_type: str) -> str:
    # Cached: the header spells a file's few types several times per argument.
    return _QUALIFIED_POINTER_RE.sub(r"\2 \1*", c_type)


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


def spec_macro_name(probe: Probe) -> str:
    """The macro holding the probe's argument specs (spec_definition). Unique in a file as the
    probe's semaphore name is (checks)."""
    return f"_USDT_SPEC_{probe.provider}_{probe.name}"


def spec_definition(probe: Probe) -> str:
    """`#define _USDT_SPEC_p_x _USDT_ARGSPEC(i32, 0) " " _USDT_ARGSPEC(address, 1)`: the note's
    argument string, each argument's spec as usdt/usdt_site.h spells it for the target being
    compiled for."""
    specs = ' " " '.join(f"_USDT_ARGSPEC({slot_member(argument)}, {argument.index})" for argument in probe.arguments)
    return f"#define {spec_macro_name(probe)} {specs or chr(34) * 2}"


def enabled_expression(probe: Probe) -> str:
    """What the `_ENABLED()` macro expands to."""
    return f"_USDT_SEMAPHORE_ACTIVE({probe.semaphore_name})" if probe.has_semaphore else "_USDT_ALWAYS_ACTIVE"


def site_macro_name(probe: Probe) -> str:
    """The macro holding the probe's one _USDT_SITE, which its C macro and its C++ function
    expand with their own operands. Unique in a file as the probe's semaphore name is (checks)."""
    return f"_USDT_SITE_{probe.provider}_{probe.name}"


def site_semaphore(probe: Probe) -> str:
    """_USDT_SITE's semaphore arguments: its name, as a string, the name of what the site keeps
    (the semaphore, which the header defines), and the variable as an operand."""
    if probe.has_semaphore:
        return f'"{probe.semaphore_name}", "{probe.semaphore_name}", "m"({probe.semaphore_name})'
    return '"0", "0", "i"(0)'


def site_description(probe: Probe) -> str:
    r"""The `.note.usdt` record after provider and name, finished: one C string literal whose
    text the site puts in its asm template as the operands of an `.asciz`. The assembler reads
    `"t.d", "key", "char \052", "string"` (each string escaped for it by asm_string_text); the
    header spells that for the C compiler, `"\"t.d\", \"key\", \"char \\052\", \"string\""`."""
    strings = [probe.source_name]
    for argument in probe.arguments:
        strings += [argument.declared_name, argument.type.declared, argument.type.kind.note_spelling]
    asciz_operands = ", ".join(f'"{asm_string_text(string)}"' for string in strings)
    return '"' + asciz_operands.replace("\\", "\\\\").replace('"', '\\"') + '"'


def macro_parameters(probe: Probe) -> str:
    """`arg0, arg1`"""
    return ", ".join(argument.macro_parameter for argument in probe.arguments)


def _points(argument: Argument) -> bool:
    """Whether a tracer reads what the argument points to: the site names that memory too."""
    kind = argument.type.kind
    return kind is Kind.STRING or kind is Kind.POINTER     # no hashing of the enum: many calls per probe


def _address_local(argument: Argument) -> str:
    return f"_usdt_address_{argument.index}"


def _operands(probe: Probe, value) -> str:
    """The site's operands: each argument's _USDT_VALUE (`value(argument)` for an integer or bool;
    its local for a string or pointer), then the memory each string or pointer points to."""
    return " ".join([f"_USDT_VALUE(address, {_address_local(argument)})" if _points(argument) else value(argument)
                     for argument in probe.arguments]
                    + [f"_USDT_POINTED_TO({_address_local(argument)})" for argument in probe.arguments
                       if _points(argument)])


def macro_declarations(probe: Probe) -> List[str]:
    """`_USDT_ADDRESS_ARG(_usdt_address_1, char const *, arg1)`: each string or pointer argument,
    converted and held in a local, as its site names it twice. The macros and the C++ API
    (cxx_declarations) reach the site the same way from there."""
    return [f"_USDT_ADDRESS_ARG({_address_local(argument)}, {c_type(argument)}, {argument.macro_parameter})"
            for argument in probe.arguments if _points(argument)]


def macro_operands(probe: Probe) -> str:
    """`_USDT_ARG(u64, uint64_t, arg0) _USDT_VALUE(address, _usdt_address_1) _USDT_POINTED_TO(_usdt_address_1)`"""
    return _operands(probe, lambda argument: f"_USDT_ARG({slot_member(argument)}, {c_type(argument)}, "
                                             f"{argument.macro_parameter})")


def macro_checks(probe: Probe) -> str:
    """`_USDT_CHECK_INTEGER(0, uint64_t, arg0) _USDT_CHECK_STRING(1, char const *, arg1)`: statements
    the macro runs before its site (after the declarations, for C89-minded warnings), in its own
    expansion, so that a compiler's diagnostic of a wrong argument shows few macros between it and
    the caller's line."""
    return " ".join(f"{MACRO_CHECKS[argument.type.kind]}({argument.index}, {c_type(argument)}, "
                    f"{argument.macro_parameter})" for argument in probe.arguments)


def cxx_parameter_type(argument: Argument) -> str:
    """The runtime header's class that checks and converts this argument in the C++ API; the
    argument's index is part of it, so that a compiler's message names the argument."""
    kind = argument.type.kind
    if kind == Kind.INTEGER:
        return f"::usdt::integer_argument<{c_type(argument)}, {argument.index}>"
    return f"::usdt::{CXX_ARGUMENT_TYPES[kind]}<{argument.index}>"


def cxx_parameters(probe: Probe) -> str:
    """`::usdt::integer_argument<uint64_t, 0> id, ::usdt::string_argument<1> path`"""
    return ", ".join(f"{cxx_parameter_type(argument)} {argument.name}" for argument in probe.arguments)


def cxx_string_buffer(argument: Argument) -> str:
    """The probe function's local that a costly string argument is prepared into."""
    return f"_usdt_buffer_{argument.index}"


def cxx_string_arguments(probe: Probe) -> List[Argument]:
    return [argument for argument in probe.arguments if argument.type.kind == Kind.STRING]


def cxx_string_text(probe: Probe, argument: Argument) -> str:
    """`path.costly() ? path.prepared(_usdt_buffer_1, <enabled>) : path.text()`: the C string a
    string argument records. A costly string is prepared only while the probe is enabled, by the
    one is-enabled check the _ENABLED() macro has too (enabled_expression)."""
    return (f"{argument.name}.costly() ? {argument.name}.prepared({cxx_string_buffer(argument)}, "
            f"{enabled_expression(probe)}) : {argument.name}.text()")


def cxx_declarations(probe: Probe) -> List[str]:
    """`char const *const _usdt_address_1 = path.costly() ? ... : path.text();`: the C++ API's string
    and pointer arguments, in the locals a macro's are in (macro_declarations). They have their
    types already (the argument classes converted them), so no conversion of the macros'
    (_USDT_ADDRESS_ARG's template) is instantiated in every probe function."""
    return [f"char const *const {_address_local(argument)} = {cxx_string_text(probe, argument)};"
            if argument.type.kind == Kind.STRING
            else f"void const *const {_address_local(argument)} = {argument.name}.value;"
            for argument in probe.arguments if _points(argument)]


def cxx_operands(probe: Probe) -> str:
    """`_USDT_VALUE(u64, id.value) _USDT_VALUE(address, _usdt_address_1) _USDT_POINTED_TO(_usdt_address_1)`:
    the site's operands in the C++ API, whose values are of the declared types already."""
    return _operands(probe, lambda argument: f"_USDT_VALUE({slot_member(argument)}, {argument.name}.value)")


FILTERS = {function.__name__: function for function in (
    spec_macro_name, spec_definition, enabled_expression, site_macro_name, site_semaphore, site_description, macro_parameters,
    macro_checks, macro_declarations, macro_operands, cxx_parameters, cxx_string_buffer, cxx_string_arguments,
    cxx_string_text, cxx_declarations, cxx_operands)}
