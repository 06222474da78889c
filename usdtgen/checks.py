"""The semantic checks of a provider file, each named after what it checks; model.build() runs
them. Each raises GeneratorError at the declaration that breaks it. They read the parser's
syntax, or plain data the model hands them (names and where they are declared), not the model
itself, which imports them."""

import re
from typing import Dict, Iterable, Set, Tuple

from . import types
from .errors import GeneratorError, SourceLocation
from .parser import FileSyntax, PragmaSyntax, ProbeSyntax, ProbeTargetSyntax, ProviderSyntax

# The most arguments sys/sdt.h and libbpf read.
MAX_ARGUMENTS = 12

# `#pragma usdt SETTING provider:probe...` -> whether the probes named get a semaphore.
SEMAPHORE_SETTINGS = {"semaphore": True, "no_semaphore": False}

# What one declaration generates: what it is (`probe 'myapp:tick'`), where it is declared, and
# the names the generated code gives it.
Generated = Tuple[str, SourceLocation, Tuple[str, ...]]


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


def check_unique(named: Iterable[Tuple[str, SourceLocation]], what: str, scope: str = "") -> None:
    first_seen: Dict[str, SourceLocation] = {}
    for name, location in named:
        if name in first_seen:
            raise GeneratorError(
                location, f"duplicate {what} '{name}'{scope} (first declared at {first_seen[name]})")
        first_seen[name] = location


def check_generated_names_unique(probes: Iterable[Generated]) -> None:
    """Distinct probes that would generate the same macro, semaphore or C++ function
    (`a__b` and `a_b`; `foo` and `foo_enabled`; providers `delete` and `delete_`)."""
    owners: Dict[str, Tuple[int, str, SourceLocation]] = {}
    for number, (what, location, names) in enumerate(probes):
        for name in names:
            other_number, other, other_location = owners.setdefault(name, (number, what, location))
            if other_number != number:
                raise GeneratorError(
                    location,
                    f"{what} and {other} (declared at {other_location}) would both generate '{name}'; "
                    "rename one of them")


def check_probes_unique_across_files(probes: Iterable[Generated], elsewhere: Iterable[Generated]) -> None:
    """The file's probes against those of the target's other provider files (`elsewhere`):
    the same probe twice, or two that would generate the same macro, semaphore or C++
    function, compile to one site with a warning in C and to a redefinition in C++."""
    owners: Dict[str, Tuple[str, SourceLocation]] = {}
    for what, location, names in elsewhere:
        for name in names:
            owners.setdefault(name, (what, location))
    for what, location, names in probes:
        for name in names:
            if name not in owners:
                continue
            other, other_location = owners[name]
            if other == what:
                raise GeneratorError(location, f"{what} is declared in two provider files of the same target; "
                                               "declare it in one of them",
                                     [(other_location, f"{other} is also declared here")])
            raise GeneratorError(location, f"{what} and {other} (declared in another provider file of the same "
                                           f"target) would both generate '{name}'; rename one of them",
                                 [(other_location, f"{other} is declared here")])


# Macros the generated header's includes (<stdint.h>, <stddef.h>, <stdbool.h>, usdt/usdt.h)
# or GNU compilers (`linux`, `unix`) define: a generated name equal to one is replaced by
# the preprocessor, or redefines it.
_DEFINED_MACROS = re.compile(
    r"U?INT(?:8|16|32|64|PTR|MAX)_(?:MIN|MAX|C)|U?INT_(?:LEAST|FAST)(?:8|16|32|64)_(?:MIN|MAX)|"
    r"(?:SIZE|PTRDIFF|SIG_ATOMIC|WCHAR|WINT)_(?:MIN|MAX)|NULL|offsetof|true|false|bool|linux|unix|"
    r"_?USDT_\w*")


# Names C reserves for the implementation: `__` or `_` and a capital letter first.
_RESERVED_FOR_THE_IMPLEMENTATION = re.compile(r"_[A-Z_]")


# Top-level namespaces the C++ standard reserves: `std` ([namespace.std]), `std` followed by
# digits ([namespace.future]) and `posix` ([namespace.posix]). A provider's namespace is top-level.
_RESERVED_NAMESPACES = re.compile(r"std[0-9]*|posix")


def check_provider_namespace_not_reserved(provider: str, namespace: str, location: SourceLocation) -> None:
    """The C++ API puts a provider's functions in `namespace PROVIDER`, where a program may not
    declare anything if the standard reserves that namespace."""
    if _RESERVED_NAMESPACES.fullmatch(namespace):
        raise GeneratorError(location, f"provider '{provider}' would generate namespace "
                                       f"'{namespace}', which the C++ standard reserves "
                                       "(std, std followed by digits, posix); rename it")


def check_generated_names_free(named: Iterable[Generated], typedef_names: Iterable[str]) -> None:
    """Every name the generated code declares is free for it to take: not reserved for the C
    implementation or by the C++ standard, not a macro or a type the header sees, not the
    runtime header's own (`provider usdt` would add to its namespace `usdt`, an argument
    `_usdt_slot` would hide its type in a C++ API function)."""
    types_seen = set(types.NAMED_INTEGERS) | set(typedef_names)
    for what, location, generated_names in named:
        for generated in generated_names:
            if _RESERVED_FOR_THE_IMPLEMENTATION.match(generated):
                raise GeneratorError(location, f"{what} would generate '{generated}', a name reserved "
                                               "for the C implementation (it starts with '__' or '_' and a "
                                               "capital letter); rename it")
            if _DEFINED_MACROS.fullmatch(generated):
                raise GeneratorError(location, f"{what} would generate '{generated}', which the generated "
                                               "header's includes or the compiler define as a macro; rename it")
            if generated in types_seen:
                raise GeneratorError(location, f"{what} would generate '{generated}', the name of a type "
                                               "the generated code uses; rename it")
            if generated == "usdt" or generated.startswith("_usdt"):
                raise GeneratorError(location, f"{what} would generate '{generated}', a name the generated "
                                               "header uses itself; rename it")
