"""The typed model of a provider file: every name and spec the templates print.

`build` turns a syntax tree into the model and runs the semantic checks, each a
function named after what it checks. Templates only print what is here.
"""

import re
from dataclasses import dataclass
from typing import Dict, Iterable, Set, Tuple

from . import types
from .errors import GeneratorError, SourceLocation
from .parser import (FileSyntax, ParameterSyntax, PragmaSyntax, ProbeSyntax, ProbeTargetSyntax,
                     ProviderSyntax)

class cached_property:
    """functools.cached_property without the lock it takes on every read before Python 3.12,
    which made it the larger part of rendering 10,000 probes. After the first read the value
    sits in the instance's __dict__ and shadows this descriptor."""

    def __init__(self, function):
        self.function = function
        self.__doc__ = function.__doc__

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.function(instance)
        return value


# The most arguments sys/sdt.h and libbpf read.
MAX_ARGUMENTS = 12

# The arguments bpftrace 0.17 reads from a usdt probe: arg0..arg5. It rejects arg6..arg9
# ("x86_64 doesn't support arg6") and knows no arg10.
BPFTRACE_ARGUMENTS_READ = 6

# The file's typedefs: name -> the type words it stands for.
Typedefs = Dict[str, Tuple[str, ...]]

# `#pragma usdt SETTING provider:probe...` -> whether the probes named get a semaphore.
SEMAPHORE_SETTINGS = {"semaphore": True, "no_semaphore": False}

# C and C++ keywords and alternative tokens: a probe, provider or argument with one of these
# names gets a '_' appended in the C++ API (`probe delete()` -> `provider::delete_()`).
CXX_RESERVED = frozenset("""
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast
    else enum explicit export extern false float for friend goto if inline int long
    mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected
    public register reinterpret_cast requires restrict return short signed sizeof static
    static_assert static_cast struct switch template this thread_local throw true try
    typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
    xor_eq _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn
    _Static_assert _Thread_local
""".split())


def cxx_identifier(name: str) -> str:
    return name + "_" if name in CXX_RESERVED else name


_ASM_STRING_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 _.-+*:/")


def asm_string_text(text: str) -> str:
    """`text` spelled for the inside of a quoted string in an asm template, through a C string
    literal: anything beyond plain name characters as the assembler's octal escapes (`{` ->
    `\\173`), because `%`, `{`, `|` and `}` mean something to the compiler in an x86-64 asm
    template and something else on aarch64."""
    return "".join(character if character in _ASM_STRING_SAFE
                   else "".join(f"\\{byte:03o}" for byte in character.encode())
                   for character in text)


def cxx_function_name(probe_name: str) -> str:
    """`request__start` -> `request_start`; `delete` -> `delete_`."""
    return cxx_identifier(probe_name.replace("__", "_"))


@dataclass(frozen=True)
class Argument:
    index: int
    name: str                 # C++ parameter name: declared (keyword-safe) or argN
    type: types.ArgumentType
    location: SourceLocation
    cxx_function: str         # the C++ function taking it, for messages: `myapp::request_start`
    declared_name: str = ""   # as the .d file names it (`class`), or argN; default: `name`

    @cached_property
    def recorded_name(self) -> str:
        """The name `.note.usdt` records: the .d file's, not one output language's."""
        return self.declared_name or self.name

    @cached_property
    def macro_parameter(self) -> str:
        return f"arg{self.index}"

    @cached_property
    def cxx_template_parameter(self) -> str:
        return f"UsdtArg{self.index}"

    @cached_property
    def cxx_prepared_name(self) -> str:
        """The local holding the prepared argument: it must live until the probe site runs."""
        return f"usdt_argument_{self.index}"

    @cached_property
    def cxx_holder(self) -> str:
        """The runtime class that checks, prepares and converts this argument in the C++ API."""
        parameter = self.cxx_template_parameter
        if self.type.kind == types.INTEGER:
            return f"usdt::detail::integer_argument<{self.type.c_type}, {parameter}>"
        return f"usdt::detail::{self.type.kind}_argument<{parameter}>"

    @cached_property
    def cxx_requirement(self) -> str:
        """The static_assert message when the C++ API gets a value this argument cannot take."""
        accepted = {
            types.INTEGER: f"an integer or enum of at most "
                           f"{f'sizeof({self.type.c_type})' if self.type.pointer_sized else self.type.size} bytes "
                           f"(convert wider values explicitly{', literals as {0}{{3}}'.format(self.type.c_type) if self.type.size < 4 else ''})",
            types.BOOLEAN: "a bool",
            types.STRING: "a C string, std::string, std::string_view, nullptr, or a type with usdt_format()",
            types.POINTER: "an object pointer or nullptr (smart pointers: pass .get())",
        }[self.type.kind]
        return f"{self.cxx_function}: argument {self.index} '{self.name}' ({self.type.declared}) takes {accepted}"

    @cached_property
    def spec(self) -> str:
        """`[-]SIZE@OPERAND` as C string-literal tokens.

        The runtime header's USDT_SPEC_OPERAND and USDT_SPEC_NARROW_OPERAND (under 8 bytes)
        print the operand in the form tracers parse on the target: the register of operand N,
        or the argument's slot, 8 bytes each, in the argument block of 32-bit targets. A
        pointer-sized argument takes its size from USDT_WORD_SIZE, 4 or 8.
        """
        sign = "-" if self.type.signed else ""
        size = f'"{sign}" USDT_WORD_SIZE "@"' if self.type.pointer_sized else f'"{sign}{self.type.size}@"'
        operand = "USDT_SPEC_NARROW_OPERAND" if self.type.size < 8 else "USDT_SPEC_OPERAND"
        return f'{size} {operand}("{self.index}", "{8 * self.index}")'

    @cached_property
    def slot_member(self) -> str:
        """The member of the runtime header's union _usdt_slot that holds the argument."""
        if self.type.kind == types.BOOLEAN:
            return "flag"
        if self.type.kind in (types.STRING, types.POINTER):
            return "address"
        unsigned = "" if self.type.signed else "u"
        if self.type.pointer_sized:
            return f"{unsigned}word"
        return f"{'i' if self.type.signed else 'u'}{8 * self.type.size}"

    # How the tracer scripts print the argument: a printf conversion and the value it takes.
    # bpftrace and SystemTap hand printf 64-bit values already sign- or zero-extended from
    # the note's size, so every integer is printed whole with the note's signedness.

    @cached_property
    def bpftrace_format(self) -> str:
        """In a bpftrace printf format: `%d` would print only the low 32 bits."""
        return {
            types.INTEGER: "%lld" if self.type.signed else "%llu",
            types.BOOLEAN: "%s",
            types.STRING: '\\"%s\\"',
            types.POINTER: "0x%lx",
        }[self.type.kind]

    @cached_property
    def bpftrace_value(self) -> str:
        register = f"arg{self.index}"
        return {
            types.INTEGER: register,
            types.BOOLEAN: f'{register} ? "true" : "false"',
            types.STRING: f"str({register})",
            types.POINTER: register,
        }[self.type.kind]

    @cached_property
    def systemtap_format(self) -> str:
        """In a SystemTap printf format; user_string_quoted() adds the quotes."""
        return {
            types.INTEGER: "%d" if self.type.signed else "%u",
            types.BOOLEAN: "%s",
            types.STRING: "%s",
            types.POINTER: "0x%x",
        }[self.type.kind]

    @cached_property
    def systemtap_value(self) -> str:
        """SystemTap numbers a probe's arguments from $arg1."""
        register = f"$arg{self.index + 1}"
        return {
            types.INTEGER: register,
            types.BOOLEAN: f'{register} ? "true" : "false"',
            types.STRING: f"user_string_quoted({register})",
            types.POINTER: register,
        }[self.type.kind]

    @cached_property
    def perf_name(self) -> str:
        """What perf calls the argument: it numbers them from arg1."""
        return f"arg{self.index + 1}"


@dataclass(frozen=True)
class Probe:
    provider: str
    name: str                 # exactly as written; the note's probe name
    arguments: Tuple[Argument, ...]
    location: SourceLocation
    has_semaphore: bool       # without one, the site is only the nop and is-enabled is always true
    source_name: str          # the .d file's base name, recorded in the site's description

    @cached_property
    def macro_name(self) -> str:
        """As systemtap's `dtrace -h` names it: PROVIDER_PROBE, with `__` -> `_`."""
        return f"{self.provider.upper()}_{self.name.replace('__', '_').upper()}"

    @cached_property
    def enabled_macro_name(self) -> str:
        return self.macro_name + "_ENABLED"

    @cached_property
    def semaphore_name(self) -> str:
        """As systemtap's `dtrace -h` names it, so existing code that references it links."""
        return f"{self.provider}_{self.name}_semaphore"

    @cached_property
    def cxx_name(self) -> str:
        return cxx_function_name(self.name)

    @cached_property
    def cxx_enabled_name(self) -> str:
        return self.name.replace("__", "_") + "_enabled"

    @cached_property
    def cxx_lazy_name(self) -> str:
        return self.name.replace("__", "_") + "_lazy"

    @cached_property
    def cxx_lazy_requirement(self) -> str:
        """The static_assert message when a lazy probe's callable returns the wrong thing."""
        count = len(self.arguments)
        return (f"{cxx_identifier(self.provider)}::{self.cxx_lazy_name}: the callable must return "
                f"std::make_tuple(...) of {count} argument{'s' if count != 1 else ''}")

    @cached_property
    def enabled_expression(self) -> str:
        """What the `_ENABLED()` macro expands to."""
        if self.has_semaphore:
            return f"USDT_SEMAPHORE_ACTIVE({self.semaphore_name})"
        return "USDT_ALWAYS_ACTIVE"

    @cached_property
    def site_macro(self) -> str:
        return "USDT_PROBE" if self.has_semaphore else "USDT_PROBE_WITHOUT_SEMAPHORE"

    @cached_property
    def site_semaphore_operand(self) -> str:
        """The site macro's semaphore argument and its comma, or nothing."""
        return f"{self.semaphore_name}, " if self.has_semaphore else ""

    @cached_property
    def site_clobbers(self) -> str:
        """String and pointer arguments need the memory they point to written before the site,
        where a tracer dereferences them."""
        if any(argument.type.kind in (types.STRING, types.POINTER) for argument in self.arguments):
            return "USDT_MEMORY_CLOBBERS"
        return "USDT_NO_CLOBBERS"

    @cached_property
    def site_description(self) -> str:
        """The `.note.usdt` record after provider and name, as the site macro takes it: a
        parenthesized list of C string literals that become the operands of an `.asciz`."""
        strings = [self.source_name]
        for argument in self.arguments:
            strings += [argument.recorded_name, argument.type.declared, argument.type.kind]
        return "(" + ", ".join(f'"{asm_string_text(string)}"' for string in strings) + ")"

    @cached_property
    def argument_spec(self) -> str:
        """All argument specs, space separated, as adjacent C string literals."""
        # Separated by a space in the literal that starts the next: `... " -8@" ...`.
        return ' " " '.join(argument.spec for argument in self.arguments).replace('" " "', '" ') or '""'

    @cached_property
    def signature(self) -> str:
        """The declaration as a comment: `uint64_t id, const char * path`."""
        return ", ".join(
            f"{argument.type.declared} {argument.name}".strip() for argument in self.arguments)

    # Argument lists the header prints on one line, joined here: a template loop per list and
    # probe made rendering the larger part of generating 10,000 probes.

    @cached_property
    def macro_parameters(self) -> str:
        """`arg0, arg1`"""
        return ", ".join(argument.macro_parameter for argument in self.arguments)

    @cached_property
    def macro_operands(self) -> str:
        """`USDT_ARG(u64, uint64_t, arg0) USDT_STRING_ARG(p_x_semaphore, const char *, arg1)`: a string
        of a probe with a semaphore is read while the probe is enabled, so that its pages are
        mapped when a tracer reads it (a BPF program cannot fault a page in)."""
        return " ".join(
            f"USDT_STRING_ARG({self.semaphore_name}, {argument.type.c_type}, {argument.macro_parameter})"
            if self.has_semaphore and argument.type.kind == types.STRING
            else f"USDT_ARG({argument.slot_member}, {argument.type.c_type}, {argument.macro_parameter})"
            for argument in self.arguments)

    @cached_property
    def cxx_template_parameters(self) -> str:
        """`typename UsdtArg0, typename UsdtArg1`"""
        return ", ".join(f"typename {argument.cxx_template_parameter}" for argument in self.arguments)

    @cached_property
    def cxx_parameters(self) -> str:
        """`const UsdtArg0 &id, const UsdtArg1 &path`"""
        return ", ".join(f"const {argument.cxx_template_parameter} &{argument.name}" for argument in self.arguments)

    @cached_property
    def cxx_any_costly(self) -> str:
        """Whether some argument is prepared only while traced, as a C++ constant expression."""
        return " || ".join(f"{argument.cxx_holder}::costly" for argument in self.arguments)

    @cached_property
    def cxx_prepared_values(self) -> str:
        """`usdt_argument_0.get(), usdt_argument_1.get()`"""
        return ", ".join(f"{argument.cxx_prepared_name}.get()" for argument in self.arguments)

    @cached_property
    def cxx_lazy_values(self) -> str:
        """`std::get<0>(usdt_arguments), std::get<1>(usdt_arguments)`"""
        return ", ".join(f"std::get<{argument.index}>(usdt_arguments)" for argument in self.arguments)

    # The tracer scripts' line per hit: `NSECS pid=PID tid=TID provider:probe name=value...`,
    # as a printf format and its arguments.

    @cached_property
    def bpftrace_printf_format(self) -> str:
        """Arguments past the ones bpftrace reads print as `name=?`."""
        read, unread = self.arguments[:BPFTRACE_ARGUMENTS_READ], self.arguments[BPFTRACE_ARGUMENTS_READ:]
        fields = [f"{argument.name}={argument.bpftrace_format}" for argument in read]
        fields += [f"{argument.name}=?" for argument in unread]
        return " ".join(["%llu pid=%d tid=%d", f"{self.provider}:{self.name}", *fields]) + "\\n"

    @cached_property
    def bpftrace_printf_arguments(self) -> str:
        """`nsecs, pid, tid, arg0, str(arg1)`"""
        values = [argument.bpftrace_value for argument in self.arguments[:BPFTRACE_ARGUMENTS_READ]]
        return ", ".join(["nsecs", "pid", "tid", *values])

    @cached_property
    def systemtap_printf_format(self) -> str:
        fields = [f"{argument.name}={argument.systemtap_format}" for argument in self.arguments]
        return " ".join(["%d pid=%d tid=%d", f"{self.provider}:{self.name}", *fields]) + "\\n"

    @cached_property
    def systemtap_printf_arguments(self) -> str:
        """`ktime_get_ns(), pid(), tid(), $arg1, user_string_quoted($arg2)`"""
        values = [argument.systemtap_value for argument in self.arguments]
        return ", ".join(["ktime_get_ns()", "pid()", "tid()", *values])

    @cached_property
    def perf_event(self) -> str:
        """The event `perf probe` creates from the note."""
        return f"sdt_{self.provider}:{self.name}"

    @cached_property
    def perf_event_description(self) -> str:
        """The event and what its numbered arguments are:
        `sdt_myapp:request__start arg1=id (uint64_t) arg2=path (const char *)`."""
        return " ".join([self.perf_event, *(f"{argument.perf_name}={argument.name} ({argument.type.declared})"
                                            for argument in self.arguments)])


@dataclass(frozen=True)
class Provider:
    name: str
    probes: Tuple[Probe, ...]
    location: SourceLocation

    @cached_property
    def cxx_namespace(self) -> str:
        return cxx_identifier(self.name)

    @cached_property
    def perf_group(self) -> str:
        """perf's event group for the provider's probes."""
        return f"sdt_{self.name}"


@dataclass(frozen=True)
class ProviderFile:
    source_name: str          # the .d file's base name, for banners; never a full path
    stem: str                 # base name without `.d`: names the outputs and the guard
    providers: Tuple[Provider, ...]

    @cached_property
    def include_guard(self) -> str:
        safe = "".join(c if c.isalnum() else "_" for c in self.stem.upper())
        return f"USDT_GENERATED_{safe}_H"

    @cached_property
    def probes(self) -> Tuple[Probe, ...]:
        return tuple(probe for provider in self.providers for probe in provider.probes)

    @cached_property
    def semaphore_probes(self) -> Tuple[Probe, ...]:
        return tuple(probe for probe in self.probes if probe.has_semaphore)

    # The tracer scripts' file names, as usdt_add_provider names them; the scripts' usage
    # comments print them.

    @cached_property
    def bpftrace_script_name(self) -> str:
        return f"{self.stem}.bt"

    @cached_property
    def systemtap_script_name(self) -> str:
        return f"{self.stem}.stp"

    @cached_property
    def perf_script_name(self) -> str:
        return f"{self.stem}.perf.sh"


def build(syntax: FileSyntax, source_name: str, path: str, semaphores: bool = True,
          providers_required: bool = True) -> ProviderFile:
    """Builds and checks the model. `semaphores` is the flavour of probes no `#pragma usdt`
    names. Without `providers_required`, a file that declares no provider gives a model with
    none (usdt-dtrace's case: configure scripts run `dtrace -G` on `BEGIN{}`).
    Raises GeneratorError at the first problem."""
    if providers_required:
        check_file_declares_providers(syntax, path)
    check_file_name_quotable(source_name, path)
    check_unique(((p.name, p.location) for p in syntax.providers), "provider")
    has_semaphore = _semaphore_flavours(syntax, semaphores)
    typedefs = {typedef.name: typedef.type_words for typedef in syntax.typedefs}
    providers = tuple(_provider(provider, has_semaphore, typedefs, source_name) for provider in syntax.providers)
    model = ProviderFile(source_name, _stem(source_name), providers)
    check_generated_names_unique(model)
    check_generated_names_free(model, typedefs)
    return model


def _semaphore_flavours(syntax: FileSyntax, default: bool) -> Dict[Tuple[str, str], bool]:
    """(provider, probe) -> whether it has a semaphore, from the pragmas and the default.

    A pragma naming a probe beats one naming `provider:*`; two settings for the same target
    are an error, wherever they stand in the file.
    """
    declared = {provider.name: {probe.name for probe in provider.probes} for provider in syntax.providers}
    settings: Dict[Tuple[str, str], Tuple[bool, PragmaSyntax]] = {}
    for pragma in syntax.pragmas:
        check_pragma_setting_known(pragma)
        for target in pragma.targets:
            check_pragma_target_declared(target, declared)
            key = (target.provider, target.probe)
            value = SEMAPHORE_SETTINGS[pragma.setting]
            if key in settings and settings[key][0] != value:
                first = settings[key][1]
                raise GeneratorError(
                    target.location, f"'{target.provider}:{target.probe}' is set to '{pragma.setting}' here and to "
                                     f"'{first.setting}' at {first.location}")
            settings.setdefault(key, (value, pragma))
    flavours = {}
    for provider, probes in declared.items():
        for probe in probes:
            chosen = settings.get((provider, probe)) or settings.get((provider, "*"))
            flavours[(provider, probe)] = chosen[0] if chosen else default
    return flavours


def _provider(syntax: ProviderSyntax, has_semaphore: Dict[Tuple[str, str], bool], typedefs: Typedefs,
              source_name: str) -> Provider:
    check_provider_declares_probes(syntax)
    check_unique(((p.name, p.location) for p in syntax.probes), "probe", f" in provider '{syntax.name}'")
    probes = tuple(_probe(syntax.name, probe, has_semaphore[(syntax.name, probe.name)], typedefs, source_name)
                   for probe in syntax.probes)
    return Provider(syntax.name, probes, syntax.location)


def _probe(provider: str, syntax: ProbeSyntax, has_semaphore: bool, typedefs: Typedefs, source_name: str) -> Probe:
    check_argument_count(syntax)
    function = f"{cxx_identifier(provider)}::{cxx_function_name(syntax.name)}"
    arguments = tuple(_argument(index, parameter, function, typedefs)
                      for index, parameter in enumerate(syntax.parameters))
    # On the C++ names: `delete` and `delete_`, or an unnamed argN and a declared argN, clash too.
    check_unique(((a.name, a.location) for a in arguments), "argument name", f" in probe '{syntax.name}'")
    return Probe(provider, syntax.name, arguments, syntax.location, has_semaphore, source_name)


def _argument(index: int, syntax: ParameterSyntax, function: str, typedefs: Typedefs) -> Argument:
    declared = syntax.name or f"arg{index}"
    name = cxx_identifier(declared)
    location = syntax.name_location or syntax.location
    check_argument_name_not_reserved(name, location)
    return Argument(index, name, types.resolve(syntax.type_words, syntax.location, typedefs), location, function,
                    declared)


def _stem(source_name: str) -> str:
    return source_name[:-2] if source_name.endswith(".d") else source_name


# Semantic checks.

def check_file_declares_providers(syntax: FileSyntax, path: str) -> None:
    if not syntax.providers:
        raise GeneratorError(SourceLocation(path, 1, 1),
                             "no provider declared; expected 'provider NAME { probe NAME(TYPE, ...); };'")


def check_file_name_quotable(source_name: str, path: str) -> None:
    """The header names the file in a string literal (`#error "... regenerate it from NAME"`),
    where a quote would end it and a backslash start an escape."""
    if any(character in '"\\' or not character.isprintable() for character in source_name):
        raise GeneratorError(SourceLocation(path, 1, 1), f"the file name {source_name!r} cannot stand in the "
                                                         "header's C strings (no quotes, backslashes or control "
                                                         "characters); rename the file")


def check_provider_declares_probes(syntax: ProviderSyntax) -> None:
    if not syntax.probes:
        raise GeneratorError(syntax.location, f"provider '{syntax.name}' declares no probes")


def check_argument_count(syntax: ProbeSyntax) -> None:
    if len(syntax.parameters) > MAX_ARGUMENTS:
        extra = syntax.parameters[MAX_ARGUMENTS]
        raise GeneratorError(
            extra.location,
            f"probe '{syntax.name}' has {len(syntax.parameters)} arguments; at most "
            f"{MAX_ARGUMENTS} are supported (the limit of sys/sdt.h and libbpf)")


def check_pragma_setting_known(pragma: PragmaSyntax) -> None:
    if pragma.setting not in SEMAPHORE_SETTINGS:
        known = " or ".join(f"'{setting}'" for setting in SEMAPHORE_SETTINGS)
        raise GeneratorError(pragma.location, f"unknown '#pragma usdt' setting '{pragma.setting}'; expected {known}")


def check_pragma_target_declared(target: ProbeTargetSyntax, declared: Dict[str, Set[str]]) -> None:
    if target.provider not in declared:
        raise GeneratorError(target.location, f"'#pragma usdt' names provider '{target.provider}', "
                                              "which this file does not declare")
    if target.probe != "*" and target.probe not in declared[target.provider]:
        raise GeneratorError(target.location, f"'#pragma usdt' names probe '{target.provider}:{target.probe}', "
                                              "which this file does not declare")


def check_argument_name_not_reserved(name: str, location: SourceLocation) -> None:
    """The C++ API names its template parameters UsdtArgN and its locals usdt_argument_N."""
    if name.startswith(("usdt_", "UsdtArg")):
        raise GeneratorError(location, f"argument name '{name}': names starting with 'usdt_' or "
                                       "'UsdtArg' are reserved for the generated C++ API")


def check_unique(named: Iterable[Tuple[str, SourceLocation]], what: str, scope: str = "") -> None:
    first_seen: Dict[str, SourceLocation] = {}
    for name, location in named:
        if name in first_seen:
            raise GeneratorError(
                location, f"duplicate {what} '{name}'{scope} (first declared at {first_seen[name]})")
        first_seen[name] = location


def check_generated_names_unique(model: ProviderFile) -> None:
    """Distinct probes that would generate the same macro, semaphore or C++ function
    (`a__b` and `a_b`; `foo` and `foo_enabled`; providers `delete` and `delete_`)."""
    owners: Dict[str, Probe] = {}
    for provider in model.providers:
        namespace = provider.cxx_namespace
        for probe in provider.probes:
            for name in (probe.macro_name, probe.enabled_macro_name, probe.semaphore_name,
                         f"{namespace}::{probe.cxx_name}", f"{namespace}::{probe.cxx_enabled_name}",
                         f"{namespace}::{probe.cxx_lazy_name}"):
                other = owners.setdefault(name, probe)
                if other is not probe:
                    raise GeneratorError(
                        probe.location,
                        f"probe '{probe.provider}:{probe.name}' and probe '{other.provider}:{other.name}' "
                        f"(declared at {other.location}) would both generate '{name}'; rename one of them")


# Macros the generated header's includes (<stdint.h>, <stddef.h>, <stdbool.h>, usdt/usdt.h)
# or GNU compilers (`linux`, `unix`) define: a generated name equal to one is replaced by
# the preprocessor, or redefines it.
_DEFINED_MACROS = re.compile(
    r"U?INT(?:8|16|32|64|PTR|MAX)_(?:MIN|MAX|C)|U?INT_(?:LEAST|FAST)(?:8|16|32|64)_(?:MIN|MAX)|"
    r"(?:SIZE|PTRDIFF|SIG_ATOMIC|WCHAR|WINT)_(?:MIN|MAX)|NULL|offsetof|true|false|bool|linux|unix|"
    r"_?USDT_\w*")


# Top-level namespaces the C++ standard reserves: `std` ([namespace.std]), `std` followed by
# digits ([namespace.future]) and `posix` ([namespace.posix]). A provider's namespace is top-level.
_RESERVED_NAMESPACES = re.compile(r"std[0-9]*|posix")


def check_provider_namespace_not_reserved(provider: Provider) -> None:
    """The C++ API puts a provider's functions in `namespace PROVIDER`, where a program may not
    declare anything if the standard reserves that namespace."""
    if _RESERVED_NAMESPACES.fullmatch(provider.cxx_namespace):
        raise GeneratorError(provider.location, f"provider '{provider.name}' would generate namespace "
                                                f"'{provider.cxx_namespace}', which the C++ standard reserves "
                                                "(std, std followed by digits, posix); rename it")


def check_generated_names_free(model: ProviderFile, typedefs: Typedefs) -> None:
    """Every name the generated code declares is free for it to take: not reserved for the C
    implementation or by the C++ standard, not a macro or a type the header sees, not the
    runtime's or the C++ API's own (`provider usdt` would add to the runtime's namespace `usdt`)."""
    types_seen = set(types.NAMED_INTEGERS) | set(typedefs)
    for provider in model.providers:
        check_provider_namespace_not_reserved(provider)
        named = [(f"provider '{provider.name}'", provider.location, (provider.cxx_namespace,))]
        named += [(f"probe '{probe.provider}:{probe.name}'", probe.location,
                   (probe.macro_name, probe.enabled_macro_name, probe.semaphore_name, probe.cxx_name,
                    probe.cxx_enabled_name, probe.cxx_lazy_name)) for probe in provider.probes]
        named += [(f"argument '{argument.name}'", argument.location, (argument.name,))
                  for probe in provider.probes for argument in probe.arguments]
        for what, location, generated_names in named:
            for generated in generated_names:
                if re.match(r"_[A-Z_]", generated):
                    raise GeneratorError(location, f"{what} would generate '{generated}', a name reserved "
                                                   "for the C implementation (it starts with '__' or '_' and a "
                                                   "capital letter); rename it")
                if _DEFINED_MACROS.fullmatch(generated):
                    raise GeneratorError(location, f"{what} would generate '{generated}', which the generated "
                                                   "header's includes or the compiler define as a macro; rename it")
                if generated in types_seen:
                    raise GeneratorError(location, f"{what} would generate '{generated}', the name of a type "
                                                   "the generated code uses; rename it")
                if generated == "usdt" or generated.startswith(("UsdtArg", "UsdtMake")):
                    raise GeneratorError(location, f"{what} would generate '{generated}', a name the generated "
                                                   "C++ API uses itself; rename it")
