"""The typed model of a provider file: frozen data, each with its source location and every
name derived from it (macro, semaphore, C++ identifier, output file). What an output prints
for it is its view's (header_view.py; and bpftrace_view.py, systemtap_view.py, perf_view.py,
which print a probe as a tracer sees it: Probe.traced(), tracer_probe.py).

`build` turns a syntax tree into the model and runs the semantic checks (checks.py).
"""

from dataclasses import dataclass
from typing import Callable, Dict, List, Tuple

from . import types
from .checks import (SEMAPHORE_SETTINGS, Generated, check_argument_count, check_file_declares_providers,
                     check_file_name_quotable, check_generated_names_free, check_generated_names_unique,
                     check_pragma_setting_known, check_pragma_target_declared, check_provider_declares_probes,
                     check_provider_namespace_not_reserved, check_unique)
from .errors import GeneratorError, SourceLocation
from .parser import FileSyntax, ParameterSyntax, PragmaSyntax, ProbeSyntax, ProviderSyntax
from .tracer_probe import TracerArgument, TracerProbe


class cached_property:
    """functools.cached_property without the lock it takes on every read before Python 3.12:
    rendering reads these properties many times per probe, and the lock would take longer
    than the rest of rendering. After the first read the value sits in the instance's
    __dict__ and shadows this descriptor."""

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


# The file's typedefs: name -> the type words it stands for.
Typedefs = Dict[str, Tuple[str, ...]]

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


def cxx_function_name(probe_name: str) -> str:
    """`request__start` -> `request_start`; `delete` -> `delete_`."""
    return cxx_identifier(probe_name.replace("__", "_"))


@dataclass(frozen=True)
class Argument:
    index: int
    name: str                 # C++ parameter name: declared (keyword-safe) or argN
    type: types.ArgumentType
    location: SourceLocation
    # As the .d file names it, or argN: what `.note.usdt` records and the tracer scripts
    # print (`class`, where the C++ API has `class_`).
    declared_name: str

    @cached_property
    def macro_parameter(self) -> str:
        return f"arg{self.index}"

    def traced(self, pointer_size: int = 8) -> TracerArgument:
        """As a tracer sees it in a module whose pointers have `pointer_size` bytes."""
        return TracerArgument(self.index, self.declared_name, self.type.declared, self.type.kind,
                              self.type.note_size(pointer_size), self.type.signed)


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
    def signature(self) -> str:
        """The declaration as a comment: `uint64_t id, const char * path`."""
        return ", ".join(
            f"{argument.type.declared} {argument.declared_name}".strip() for argument in self.arguments)

    def traced(self, pointer_size: int = 8) -> TracerProbe:
        """As a tracer sees it in a module whose pointers have `pointer_size` bytes (only the
        sizes depend on it: the tracer scripts print the same for any)."""
        return TracerProbe(self.provider, self.name,
                           tuple(argument.traced(pointer_size) for argument in self.arguments))


@dataclass(frozen=True)
class Provider:
    name: str
    probes: Tuple[Probe, ...]
    location: SourceLocation

    @cached_property
    def cxx_namespace(self) -> str:
        return cxx_identifier(self.name)



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
    resolve = _type_resolver(typedefs)
    providers = tuple(_provider(provider, has_semaphore, resolve, source_name) for provider in syntax.providers)
    model = ProviderFile(source_name, _stem(source_name), providers)
    check_generated_names_unique(probe_names(model))
    for provider in providers:
        check_provider_namespace_not_reserved(provider.name, provider.cxx_namespace, provider.location)
        check_generated_names_free(_generated_names(provider), typedefs)
    return model


def probe_names(provider_file: ProviderFile) -> List[Generated]:
    """Each probe of the file with the names its declaration generates: its macros, its
    semaphore, its C++ function."""
    return [(_what(probe), probe.location, (probe.macro_name, probe.enabled_macro_name, probe.semaphore_name,
                                            f"{provider.cxx_namespace}::{probe.cxx_name}"))
            for provider in provider_file.providers for probe in provider.probes]


def _what(probe: Probe) -> str:
    return f"probe '{probe.provider}:{probe.name}'"


def _generated_names(provider: Provider) -> List[Generated]:
    """Each name the provider's declarations generate in the header, with what declares it."""
    named = [(f"provider '{provider.name}'", provider.location, (provider.cxx_namespace,))]
    named += [(_what(probe), probe.location,
               (probe.macro_name, probe.enabled_macro_name, probe.semaphore_name, probe.cxx_name))
              for probe in provider.probes]
    named += [(f"argument '{argument.name}'", argument.location, (argument.name,))
              for probe in provider.probes for argument in probe.arguments]
    return named


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


# The argument type of a parameter's type words (types.resolve through the file's typedefs).
TypeResolver = Callable[[Tuple[str, ...], SourceLocation], types.ArgumentType]


def _type_resolver(typedefs: Typedefs) -> TypeResolver:
    """types.resolve for one file, each spelling of a type resolved once: a file has thousands
    of arguments and few types. A type that cannot be resolved raises at each of its uses, the
    first of which stops the build."""
    resolved: Dict[Tuple[str, ...], types.ArgumentType] = {}

    def resolve(words: Tuple[str, ...], location: SourceLocation) -> types.ArgumentType:
        argument_type = resolved.get(words)
        if argument_type is None:
            argument_type = resolved[words] = types.resolve(words, location, typedefs)
        return argument_type
    return resolve


def _provider(syntax: ProviderSyntax, has_semaphore: Dict[Tuple[str, str], bool], resolve: TypeResolver,
              source_name: str) -> Provider:
    check_provider_declares_probes(syntax)
    check_unique(((p.name, p.location) for p in syntax.probes), "probe", f" in provider '{syntax.name}'")
    probes = tuple(_probe(syntax.name, probe, has_semaphore[(syntax.name, probe.name)], resolve, source_name)
                   for probe in syntax.probes)
    return Provider(syntax.name, probes, syntax.location)


def _probe(provider: str, syntax: ProbeSyntax, has_semaphore: bool, resolve: TypeResolver, source_name: str) -> Probe:
    check_argument_count(syntax)
    arguments = tuple(_argument(index, parameter, resolve)
                      for index, parameter in enumerate(syntax.parameters))
    # On the C++ names: `delete` and `delete_`, or an unnamed argN and a declared argN, clash too.
    check_unique(((a.name, a.location) for a in arguments), "argument name", f" in probe '{syntax.name}'")
    return Probe(provider, syntax.name, arguments, syntax.location, has_semaphore, source_name)


def _argument(index: int, syntax: ParameterSyntax, resolve: TypeResolver) -> Argument:
    declared = syntax.name or f"arg{index}"
    name = cxx_identifier(declared)
    location = syntax.name_location or syntax.location
    return Argument(index, name, resolve(syntax.type_words, syntax.location), location, declared)


def _stem(source_name: str) -> str:
    return source_name[:-2] if source_name.endswith(".d") else source_name
