"""What the integration programs' notes say and what their probes fire, written out by hand.

The readelf, gdb and bpftrace tests all compare against this file; nothing here comes
from usdtgen. Program sources: programs/; provider files: probes/.
"""

import re
from dataclasses import dataclass, field
from typing import Dict, List, Tuple


@dataclass(frozen=True)
class Text:
    """A string argument: a tracer reads it through the pointer."""
    value: str


@dataclass(frozen=True)
class Address:
    """A pointer argument whose value the program prints on stdout as `NAME=0x...`."""
    name: str


@dataclass(frozen=True)
class Hit:
    probe: str                # provider:name
    values: Tuple = ()        # int, Text or Address per argument


def resolve(values: Tuple, output: str) -> Tuple:
    """Values as a tracer reports them: Text -> str, Address -> the address in `output`."""
    resolved = []
    for value in values:
        if isinstance(value, Text):
            resolved.append(value.value)
        elif isinstance(value, Address):
            printed = re.search(rf"^{value.name}=(0x[0-9a-f]+)$", output, re.MULTILINE)
            resolved.append(int(printed.group(1), 16) if printed else f"<{value.name}= not printed>")
        else:
            resolved.append(value)
    return tuple(resolved)


def string_indices(hits) -> Dict[str, List[int]]:
    """probe -> indices of its string arguments, in the order the probes first fire."""
    indices: Dict[str, List[int]] = {}
    for hit in hits:
        indices.setdefault(hit.probe, [i for i, value in enumerate(hit.values) if isinstance(value, Text)])
    return indices


def sized_notes(notes: str, pointer_size: int = 8) -> str:
    """Notes written with `W` for the size of a pointer (`long`, `size_t`, strings, pointers):
    8 on 64-bit targets, 4 on 32-bit ones."""
    return notes.replace("W@", f"{pointer_size}@")


@dataclass(frozen=True)
class Module:
    notes: str                # one line per probe: `provider:name` and each argument's `[-]SIZE@`
    declared: Tuple[str, ...]  # every probe of the module's .d files with a semaphore: one each
    sites: Dict[str, int] = field(default_factory=dict)  # exact site counts, where it matters

    def expected_specs(self, pointer_size: int = 8) -> Dict[str, Tuple[str, ...]]:
        lines = (line.split() for line in sized_notes(self.notes, pointer_size).strip().splitlines())
        return {words[0]: tuple(words[1:]) for words in lines}


# The types programs (types.c and types.cpp, -O0 and -O2).
TYPES_ARGUMENTS = ("0", "/tmp/usdt/path", "worker")

TYPES_NOTES = """
myapp:signed__ints -1@ -2@ -4@ -8@
myapp:unsigned__ints 1@ 2@ 4@ 8@
myapp:keyword__ints -1@ -2@ -4@ -W@ 4@ 8@
myapp:flags 1@ 1@ W@ -W@
myapp:strings W@ W@ W@
myapp:pointers W@ W@ W@
myapp:nothing
myapp:twelve -1@ 1@ -2@ 2@ -4@ 4@ -8@ 8@ -1@ 1@ W@ W@
myapp:request__start 8@ W@
myapp:delete -4@
second:hello -4@ W@
second:bye
other:tick 8@ -2@
"""

MYAPP_D_PROBES = (
    "myapp:signed__ints", "myapp:unsigned__ints", "myapp:keyword__ints", "myapp:flags",
    "myapp:strings", "myapp:pointers", "myapp:nothing", "myapp:twelve",
    "myapp:request__start", "myapp:delete", "myapp:guarded", "second:hello", "second:bye",
)

U8_MAX, U16_MAX, U32_MAX, U64_MAX = 255, 65535, 4294967295, 18446744073709551615
I8_MIN, I16_MIN, I32_MIN, I64_MIN = -128, -32768, -2147483648, -9223372036854775808
I8_MAX, I16_MAX, I32_MAX, I64_MAX = 127, 32767, 2147483647, 9223372036854775807

def types_hits(pointer_size: int = 8) -> Tuple[Hit, ...]:
    """What the types programs fire where a pointer, `long` and `size_t` have `pointer_size`
    bytes. argc is 4; "/tmp/usdt/path" has 14 characters, "worker" 6; 'w' is 119, 'o' 111."""
    long_max, size_max = (I64_MAX, U64_MAX) if pointer_size == 8 else (I32_MAX, U32_MAX)
    return (
        Hit("myapp:signed__ints", (I8_MIN, I16_MIN, I32_MIN, I64_MIN)),
        Hit("myapp:unsigned__ints", (0, 0, 0, 0)),
        Hit("myapp:signed__ints", (I8_MAX, I16_MAX, I32_MAX, I64_MAX)),
        Hit("myapp:unsigned__ints", (U8_MAX, U16_MAX, U32_MAX, U64_MAX)),
        Hit("myapp:signed__ints", (-1, -1, -1, -1)),
        Hit("myapp:unsigned__ints", (1, 2, 3, 4)),
        Hit("myapp:signed__ints", (0, 0, 0, 0)),
        Hit("myapp:unsigned__ints", (0, 0, 0, 0)),
        Hit("myapp:unsigned__ints", (U8_MAX, U16_MAX, U32_MAX, U64_MAX)),
        Hit("myapp:keyword__ints", (119, -4000, I32_MIN, long_max, U32_MAX, U64_MAX)),
        Hit("myapp:flags", (1, 0, 14, -6)),
        Hit("myapp:strings", (Text("/tmp/usdt/path"), Text(""), Text("worker-copy"))),
        Hit("myapp:pointers", (Address("foo"), 0, Address("foo"))),
        Hit("myapp:nothing"),
        Hit("myapp:twelve", (I8_MIN, U8_MAX, I16_MIN, U16_MAX, I32_MIN, U32_MAX,
                             I64_MIN, U64_MAX, 111, 1, Text("worker"), size_max)),
        Hit("myapp:request__start", (1 << 40, Text("/tmp/usdt/path"))),
        Hit("myapp:delete", (-42,)),
        Hit("second:hello", (4, Text("world"))),
        Hit("second:bye"),
        Hit("other:tick", (12345678901234, -2)),
    )


TYPES_HITS = types_hits()

# The guarded program: spins until traced, then fires once.
GUARDED_VALUE = -1234567890123
GUARDED_HITS = (Hit("myapp:guarded", (GUARDED_VALUE,)),)

# The flavours program. Traced, lazy:guarded fires (the tracer raises its semaphore) and its
# label is formatted once; lazy:plain has no semaphore, so its ENABLED() guard is always true.
FLAVOURS_TRACED_HITS = (
    Hit("lazy:guarded", (-77, Text("lazy"))),
    Hit("lazy:plain", (3,)),
    Hit("lazy:plain", (4,)),
)

# The program `linked` and the shared library `solib` it uses. argc is 2.
LINKED_ARGUMENTS = ("libs",)
LINKED_HITS = (
    Hit("archive:fire", (1, Text("libs"))),
    Hit("archive:fire", (2, Text("libs"))),
    Hit("objects:built", (200,)),
    Hit("solib:work", (-10, Text("libs"))),
    Hit("solib:guarded", (4,)),   # only while traced: the tracer raises its semaphore
)

# `.note.usdt` records of the types programs: (.d file, (name, declared type, kind) each).
DESCRIPTIONS = {
    "myapp:keyword__ints": ("myapp.d", (("c", "char", "integer"), ("s", "short", "integer"),
                                        ("i", "int", "integer"), ("l", "long", "integer"),
                                        ("ui", "unsigned int", "integer"),
                                        ("ull", "unsigned long long", "integer"))),
    "myapp:flags": ("myapp.d", (("yes", "bool", "bool"), ("no", "bool", "bool"),
                                ("size", "size_t", "integer"), ("delta", "ssize_t", "integer"))),
    "myapp:strings": ("myapp.d", (("path", "const char *", "string"), ("empty", "const char *", "string"),
                                  ("copy", "string", "string"))),
    "myapp:pointers": ("myapp.d", (("foo", "struct foo *", "pointer"), ("null", "struct foo *", "pointer"),
                                   ("address", "uintptr_t", "integer"))),
    "myapp:nothing": ("myapp.d", ()),
    "second:bye": ("myapp.d", ()),
    "other:tick": ("other.d", (("n", "uint64_t", "integer"), ("k", "short", "integer"))),
}

MODULES = {
    "types_c": Module(TYPES_NOTES, MYAPP_D_PROBES + ("other:tick",)),
    "types_c_o2": Module(TYPES_NOTES, MYAPP_D_PROBES + ("other:tick",)),
    "types_cxx": Module(TYPES_NOTES, MYAPP_D_PROBES + ("other:tick",)),
    "types_cxx_o2": Module(TYPES_NOTES, MYAPP_D_PROBES + ("other:tick",)),
    "guarded": Module("myapp:guarded -8@", MYAPP_D_PROBES),
    "flavours": Module("lazy:guarded -8@ W@\nlazy:plain 4@", ("lazy:guarded",)),
    # archive:fire: one site in the static library, one in the program, one semaphore.
    "linked": Module("archive:fire -4@ W@\nobjects:built 2@", ("archive:fire", "objects:built"),
                     sites={"archive:fire": 2}),
    "solib": Module("solib:work -8@ W@\nsolib:guarded 4@", ("solib:work", "solib:guarded")),
}
