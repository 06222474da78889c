"""Decides what a declared D argument type becomes: its C type, note size and signedness.

Linux is LP64 on its 64-bit targets and ILP32 on its 32-bit ones: pointers, `long` and
`size_t` are pointer-sized (4 or 8 bytes: usdt/usdt_site.h's _USDT_ARGSPEC_word), every
other type has one size everywhere. The declared type, not the caller's expression, decides
the argument spec.
"""

import re
from collections import Counter
from dataclasses import dataclass
from typing import List, Mapping, Sequence

from .errors import GeneratorError, SourceLocation
from .notes import INTEGER_TYPE_NAMES, Kind


@dataclass(frozen=True)
class ArgumentType:
    declared: str     # as written in the .d file, words joined by single spaces
    c_type: str       # the C/C++ type the probe takes and casts to
    kind: Kind
    size: int         # bytes in the note on LP64 targets: 1, 2, 4 or 8
    signed: bool
    pointer_sized: bool = False   # 4 bytes on 32-bit targets

    def note_size(self, pointer_size: int) -> int:
        """Bytes in the note of a module whose pointers have `pointer_size` bytes."""
        return pointer_size if self.pointer_sized else self.size


# In the tables below: the size of a pointer on the target, 4 or 8 bytes.
WORD = "word"

# <stdint.h>, <stddef.h> and <sys/types.h> names: (size, signed).
NAMED_INTEGERS = {
    **{name: size_and_sign for size_and_sign, name in INTEGER_TYPE_NAMES.items()},
    "intptr_t": (WORD, True), "uintptr_t": (WORD, False), "intmax_t": (8, True), "uintmax_t": (8, False),
    "size_t": (WORD, False), "ssize_t": (WORD, True), "ptrdiff_t": (WORD, True),
    "pid_t": (4, True), "uid_t": (4, False), "gid_t": (4, False), "mode_t": (4, False),
    "off_t": (8, True), "time_t": (8, True),
}

# Types whose size a 32-bit build chooses (_FILE_OFFSET_BITS, _TIME_BITS): probes take them as
# int64_t, which holds every value of either size.
WIDENED_INTEGERS = {"off_t": "int64_t", "time_t": "int64_t"}

# Canonical C spellings of the keyword integer types: (size, signed).
KEYWORD_INTEGERS = {
    "signed char": (1, True), "unsigned char": (1, False),
    "short": (2, True), "unsigned short": (2, False),
    "int": (4, True), "unsigned int": (4, False),
    "long": (WORD, True), "unsigned long": (WORD, False),
    "long long": (8, True), "unsigned long long": (8, False),
}

# More words than any meaningful type has (`const unsigned long long int * const *`).
MAX_TYPE_WORDS = 64

_QUALIFIERS = {"const", "volatile"}
_INTEGER_WORDS = {"signed", "unsigned", "char", "short", "int", "long"}
_FLOATING = {"float", "double", "_Float32", "_Float64", "_Float128", "__float128"}
_WIDE = {"__int128", "__int128_t", "__uint128_t"}
_AGGREGATES = {"struct", "union"}

_FLOAT_REASON = ("floating-point arguments are not supported: gdb and libbpf reject the "
                 "'f' argument spec and bpftrace cannot parse it; pass a scaled integer "
                 "or a pointer to the value")


def resolve(words: Sequence[str], location: SourceLocation,
            typedefs: Mapping[str, Sequence[str]] = {}) -> ArgumentType:
    """Resolves the type words of one parameter (identifiers and '*'), through the file's
    typedefs (name -> type words). Raises GeneratorError."""
    declared = re.sub(r"\* (?=\*)", "*", " ".join(words))
    fail = _failer(location, declared)
    words = _expand_typedefs(words, typedefs, fail)
    pointer_depth = words.count("*")
    base = [word for word in words if word != "*" and word not in _QUALIFIERS]

    if not base:
        fail("a type is missing: 'const' and 'volatile' only qualify one")
    if pointer_depth == 0 and any(word in _FLOATING for word in base):
        fail(_FLOAT_REASON)
    if pointer_depth == 0 and any(word in _WIDE for word in base):
        fail("128-bit integers are not supported: a stapsdt argument is at most 8 bytes; "
             "pass two uint64_t halves")
    if pointer_depth:
        if pointer_depth == 1 and base in (["char"], ["string"]):
            return _argument_type(declared, "const char *", Kind.STRING, WORD, False)
        return _argument_type(declared, "const volatile void *", Kind.POINTER, WORD, False)
    if base == ["string"]:
        return _argument_type(declared, "const char *", Kind.STRING, WORD, False)
    if base and base[0] in _AGGREGATES:
        fail(f"{base[0]} arguments by value are not supported: no tracer can read them "
             f"from a stapsdt note; pass a pointer ('{declared} *')")
    if base and base[0] == "enum":
        fail("enum arguments are not supported: their size is up to the compiler; "
             "declare the argument as 'int' (or the enum's underlying type)")
    if base in (["bool"], ["_Bool"]):
        return ArgumentType(declared, "bool", Kind.BOOLEAN, 1, False)
    if base == ["void"]:
        fail("'void' is only allowed as the whole parameter list, as in 'probe name(void)'")
    if len(base) == 1 and base[0] in NAMED_INTEGERS:
        size, signed = NAMED_INTEGERS[base[0]]
        return _argument_type(declared, WIDENED_INTEGERS.get(base[0], base[0]), Kind.INTEGER, size, signed)
    if base and all(word in _INTEGER_WORDS for word in base):
        return _keyword_integer(base, declared, fail)
    unknown = next(word for word in base if word not in _INTEGER_WORDS)
    fail(f"unknown type '{unknown}'; use a C integer type, a <stdint.h> type, bool, "
         f"string, or a pointer, or '#define {unknown} <type>' before the provider")
    raise AssertionError("unreachable")


def _expand_typedefs(words: Sequence[str], typedefs: Mapping[str, Sequence[str]], fail) -> List[str]:
    """The words with typedef names replaced by what they stand for, a name inside its own
    expansion left as it is. A stack, not recursion: a chain of 10,000 typedefs is fine; and a
    limit, because typedefs that each repeat the previous one twice grow exponentially."""
    expanded: List[str] = []
    pending = [(word, ()) for word in reversed(words)]
    while pending:
        word, expanding = pending.pop()
        if word in typedefs and word not in expanding:
            pending.extend((inner, (*expanding, word)) for inner in reversed(typedefs[word]))
        else:
            expanded.append(word)
            if len(expanded) > MAX_TYPE_WORDS:
                fail(f"its typedefs expand to more than {MAX_TYPE_WORDS} words")
    return expanded


def _keyword_integer(words, declared, fail) -> ArgumentType:
    counts = Counter(words)
    signedness = counts["signed"] + counts["unsigned"]
    size_words = counts["char"] + counts["short"] + counts["long"]
    valid = (
        signedness <= 1 and counts["int"] <= 1
        and counts["char"] + counts["short"] <= 1 and counts["long"] <= 2
        and not (counts["long"] and counts["char"] + counts["short"])
        and not (counts["char"] and counts["int"])
        and (size_words or signedness or counts["int"])
    )
    if not valid:
        fail("invalid combination of integer type words")
    prefix = "unsigned " if counts["unsigned"] else ""
    if counts["char"]:
        # Plain char is signed on x86-64 but unsigned on aarch64; the note says signed for both.
        canonical = "unsigned char" if counts["unsigned"] else "signed char"
    elif counts["short"]:
        canonical = prefix + "short"
    elif counts["long"]:
        canonical = prefix + " ".join(["long"] * counts["long"])
    else:
        canonical = prefix + "int"
    size, signed = KEYWORD_INTEGERS[canonical]
    return _argument_type(declared, canonical, Kind.INTEGER, size, signed)


def _argument_type(declared: str, c_type: str, kind: Kind, size, signed: bool) -> ArgumentType:
    if size == WORD:
        return ArgumentType(declared, c_type, kind, 8, signed, pointer_sized=True)
    return ArgumentType(declared, c_type, kind, size, signed)


def _failer(location: SourceLocation, declared: str):
    def fail(reason: str):
        raise GeneratorError(location, f"argument type '{declared}': {reason}")
    return fail
