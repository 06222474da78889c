"""Unit tests of usdtgen.types: every accepted D type's C type, note size and sign, and the rejected ones."""

import unittest

import usdt_testing
from usdtgen.errors import GeneratorError, SourceLocation
from usdtgen.types import resolve

LOCATION = SourceLocation("t.d", 3, 7)


def words(declared):
    """The parser's type words for a declaration written with spaces: "char **" -> char, *, *."""
    return tuple(declared.replace("*", " * ").split())


def resolved(declared):
    argument_type = resolve(words(declared), LOCATION)
    return (argument_type.c_type, argument_type.kind.note_spelling, argument_type.size, argument_type.signed)


# Declared spelling -> (C type, kind, size in the note, signed). Sizes are LP64 Linux.
ACCEPTED = {
    # Plain char is recorded as signed on every target (aarch64's char is unsigned, see types.py).
    "char": ("signed char", "integer", 1, True),
    "signed char": ("signed char", "integer", 1, True),
    "char signed": ("signed char", "integer", 1, True),
    "unsigned char": ("unsigned char", "integer", 1, False),
    "short": ("short", "integer", 2, True),
    "short int": ("short", "integer", 2, True),
    "signed short": ("short", "integer", 2, True),
    "signed short int": ("short", "integer", 2, True),
    "int short": ("short", "integer", 2, True),
    "unsigned short": ("unsigned short", "integer", 2, False),
    "unsigned short int": ("unsigned short", "integer", 2, False),
    "short unsigned int": ("unsigned short", "integer", 2, False),
    "int": ("int", "integer", 4, True),
    "signed": ("int", "integer", 4, True),
    "signed int": ("int", "integer", 4, True),
    "unsigned": ("unsigned int", "integer", 4, False),
    "unsigned int": ("unsigned int", "integer", 4, False),
    "int unsigned": ("unsigned int", "integer", 4, False),
    "long": ("long", "integer", 8, True),
    "long int": ("long", "integer", 8, True),
    "signed long": ("long", "integer", 8, True),
    "long signed int": ("long", "integer", 8, True),
    "unsigned long": ("unsigned long", "integer", 8, False),
    "long unsigned int": ("unsigned long", "integer", 8, False),
    "int long unsigned": ("unsigned long", "integer", 8, False),
    "long long": ("long long", "integer", 8, True),
    "long long int": ("long long", "integer", 8, True),
    "long int long": ("long long", "integer", 8, True),
    "signed long long int": ("long long", "integer", 8, True),
    "unsigned long long": ("unsigned long long", "integer", 8, False),
    "long long unsigned int": ("unsigned long long", "integer", 8, False),
    "unsigned long long int": ("unsigned long long", "integer", 8, False),
    # Qualifiers do not change the value recorded.
    "const int": ("int", "integer", 4, True),
    "volatile unsigned": ("unsigned int", "integer", 4, False),
    "const uint64_t": ("uint64_t", "integer", 8, False),
    "uint32_t const": ("uint32_t", "integer", 4, False),
    # <stdint.h>, <stddef.h>, <sys/types.h>.
    "int8_t": ("int8_t", "integer", 1, True),
    "int16_t": ("int16_t", "integer", 2, True),
    "int32_t": ("int32_t", "integer", 4, True),
    "int64_t": ("int64_t", "integer", 8, True),
    "uint8_t": ("uint8_t", "integer", 1, False),
    "uint16_t": ("uint16_t", "integer", 2, False),
    "uint32_t": ("uint32_t", "integer", 4, False),
    "uint64_t": ("uint64_t", "integer", 8, False),
    "intmax_t": ("intmax_t", "integer", 8, True),
    "uintmax_t": ("uintmax_t", "integer", 8, False),
    "size_t": ("size_t", "integer", 8, False),
    "ssize_t": ("ssize_t", "integer", 8, True),
    "ptrdiff_t": ("ptrdiff_t", "integer", 8, True),
    "intptr_t": ("intptr_t", "integer", 8, True),
    "uintptr_t": ("uintptr_t", "integer", 8, False),
    "pid_t": ("pid_t", "integer", 4, True),
    "uid_t": ("uid_t", "integer", 4, False),
    "gid_t": ("gid_t", "integer", 4, False),
    "mode_t": ("mode_t", "integer", 4, False),
    # Their size is a 32-bit build's choice (_FILE_OFFSET_BITS, _TIME_BITS): int64_t holds either.
    "off_t": ("int64_t", "integer", 8, True),
    "time_t": ("int64_t", "integer", 8, True),
    "bool": ("bool", "bool", 1, False),
    "_Bool": ("bool", "bool", 1, False),
    "const bool": ("bool", "bool", 1, False),
    # Strings: tracers read them with str(), so the note says unsigned address (pointer-sized).
    "string": ("const char *", "string", 8, False),
    "char *": ("const char *", "string", 8, False),
    "const char *": ("const char *", "string", 8, False),
    "char const *": ("const char *", "string", 8, False),
    # Every other pointer is an address.
    "unsigned char *": ("const volatile void *", "pointer", 8, False),
    "void *": ("const volatile void *", "pointer", 8, False),
    "const void *": ("const volatile void *", "pointer", 8, False),
    "struct foo *": ("const volatile void *", "pointer", 8, False),
    "const struct foo *": ("const volatile void *", "pointer", 8, False),
    "union u *": ("const volatile void *", "pointer", 8, False),
    "enum e *": ("const volatile void *", "pointer", 8, False),
    "int *": ("const volatile void *", "pointer", 8, False),
    "int **": ("const volatile void *", "pointer", 8, False),
    "char **": ("const volatile void *", "pointer", 8, False),
    "const char **": ("const volatile void *", "pointer", 8, False),
    "uint8_t *": ("const volatile void *", "pointer", 8, False),
    "double *": ("const volatile void *", "pointer", 8, False),
    "my_type_t *": ("const volatile void *", "pointer", 8, False),
}


class AcceptedTypeTest(unittest.TestCase):
    def test_accepted_types(self):
        for declared, expected in ACCEPTED.items():
            with self.subTest(declared=declared):
                self.assertEqual(resolved(declared), expected)

    def test_declared_keeps_the_written_words(self):
        self.assertEqual(resolve(words("int long unsigned"), LOCATION).declared, "int long unsigned")
        self.assertEqual(resolve(words("const char *"), LOCATION).declared, "const char *")
        self.assertEqual(resolve(words("char **"), LOCATION).declared, "char **")
        self.assertEqual(resolve(words("struct foo * const *"), LOCATION).declared, "struct foo * const *")

    def test_pointer_sized_types(self):
        # 4 bytes on 32-bit targets, 8 on 64-bit ones: the note's size is the target's.
        for declared in ("long", "unsigned long", "size_t", "ssize_t", "intptr_t", "uintptr_t", "ptrdiff_t",
                         "const char *", "string", "struct foo *", "void *"):
            with self.subTest(declared=declared):
                argument_type = resolve(words(declared), LOCATION)
                self.assertTrue(argument_type.pointer_sized)
                self.assertEqual((argument_type.note_size(4), argument_type.note_size(8)), (4, 8))
        for declared in ("int", "uint16_t", "char", "bool", "long long", "int64_t", "uint64_t", "off_t"):
            with self.subTest(declared=declared):
                argument_type = resolve(words(declared), LOCATION)
                self.assertFalse(argument_type.pointer_sized)
                self.assertEqual(argument_type.note_size(4), argument_type.note_size(8))


FLOAT_REASON = ("floating-point arguments are not supported: gdb and libbpf reject the 'f' "
                "argument spec and bpftrace cannot parse it; pass a scaled integer or a pointer "
                "to the value")
INT128_REASON = ("128-bit integers are not supported: a stapsdt argument is at most 8 bytes; "
                 "pass two uint64_t halves")
BAD_COMBINATION = "invalid combination of integer type words"

# Declared spelling -> the whole message, at LOCATION (the parameter's first token).
REJECTED = {
    "float": f"t.d:3:7: error: argument type 'float': {FLOAT_REASON}",
    "double": f"t.d:3:7: error: argument type 'double': {FLOAT_REASON}",
    "long double": f"t.d:3:7: error: argument type 'long double': {FLOAT_REASON}",
    "const float": f"t.d:3:7: error: argument type 'const float': {FLOAT_REASON}",
    "__int128": f"t.d:3:7: error: argument type '__int128': {INT128_REASON}",
    "unsigned __int128": f"t.d:3:7: error: argument type 'unsigned __int128': {INT128_REASON}",
    "__uint128_t": f"t.d:3:7: error: argument type '__uint128_t': {INT128_REASON}",
    "struct foo": ("t.d:3:7: error: argument type 'struct foo': struct arguments by value are not "
                   "supported: no tracer can read them from a stapsdt note; pass a pointer "
                   "('struct foo *')"),
    "union u": ("t.d:3:7: error: argument type 'union u': union arguments by value are not "
                "supported: no tracer can read them from a stapsdt note; pass a pointer ('union u *')"),
    "enum color": ("t.d:3:7: error: argument type 'enum color': enum arguments are not supported: "
                   "their size is up to the compiler; declare the argument as 'int' (or the enum's "
                   "underlying type)"),
    "foo_t": ("t.d:3:7: error: argument type 'foo_t': unknown type 'foo_t'; use a C integer type, "
              "a <stdint.h> type, bool, string, or a pointer, or '#define foo_t <type>' before "
              "the provider"),
    "unsigned foo_t": ("t.d:3:7: error: argument type 'unsigned foo_t': unknown type 'foo_t'; use a "
                       "C integer type, a <stdint.h> type, bool, string, or a pointer, or "
                       "'#define foo_t <type>' before the provider"),
    "short long": f"t.d:3:7: error: argument type 'short long': {BAD_COMBINATION}",
    "signed unsigned": f"t.d:3:7: error: argument type 'signed unsigned': {BAD_COMBINATION}",
    "unsigned unsigned int": f"t.d:3:7: error: argument type 'unsigned unsigned int': {BAD_COMBINATION}",
    "long long long": f"t.d:3:7: error: argument type 'long long long': {BAD_COMBINATION}",
    "int int": f"t.d:3:7: error: argument type 'int int': {BAD_COMBINATION}",
    "char int": f"t.d:3:7: error: argument type 'char int': {BAD_COMBINATION}",
    "short char": f"t.d:3:7: error: argument type 'short char': {BAD_COMBINATION}",
    "long char": f"t.d:3:7: error: argument type 'long char': {BAD_COMBINATION}",
    "void": ("t.d:3:7: error: argument type 'void': 'void' is only allowed as the whole parameter "
             "list, as in 'probe name(void)'"),
}


class RejectedTypeTest(unittest.TestCase):
    def test_rejected_types(self):
        for declared, expected in REJECTED.items():
            with self.subTest(declared=declared):
                with self.assertRaises(GeneratorError) as caught:
                    resolve(words(declared), LOCATION)
                self.assertEqual(str(caught.exception), expected)

    def test_qualifier_alone_is_an_error(self):
        with self.assertRaises(GeneratorError):
            resolve(("const",), LOCATION)


class TypedefTest(unittest.TestCase):
    """Types through the file's own typedefs: the generated header never names them."""
    TYPEDEFS = {
        "txid_t": ("unsigned", "int"),
        "subtxid_t": ("const", "txid_t"),       # nested
        "oid_t": ("uint32_t",),
        "conn_t": ("struct", "conn_t"),         # typedef struct {...} conn_t;
        "name_t": ("char", "*"),
        "loop_t": ("loop_t",),                  # typedef struct loop_t loop_t; in effect
    }

    def resolved(self, declared):
        argument_type = resolve(words(declared), LOCATION, self.TYPEDEFS)
        return (argument_type.declared, argument_type.c_type, argument_type.kind.note_spelling,
                argument_type.size, argument_type.signed)

    def test_aliases_resolve_to_what_they_stand_for(self):
        self.assertEqual(self.resolved("txid_t"), ("txid_t", "unsigned int", "integer", 4, False))
        self.assertEqual(self.resolved("subtxid_t"), ("subtxid_t", "unsigned int", "integer", 4, False))
        self.assertEqual(self.resolved("oid_t"), ("oid_t", "uint32_t", "integer", 4, False))
        self.assertEqual(self.resolved("name_t"), ("name_t", "const char *", "string", 8, False))
        self.assertEqual(self.resolved("conn_t *"), ("conn_t *", "const volatile void *", "pointer", 8, False))
        self.assertEqual(self.resolved("conn_t **"), ("conn_t **", "const volatile void *", "pointer", 8, False))

    def test_struct_typedef_by_value_is_refused(self):
        with self.assertRaises(GeneratorError) as caught:
            resolve(words("conn_t"), LOCATION, self.TYPEDEFS)
        self.assertIn("struct arguments by value are not supported", str(caught.exception))

    def test_a_typedef_naming_itself_does_not_loop(self):
        with self.assertRaises(GeneratorError) as caught:
            resolve(words("loop_t"), LOCATION, self.TYPEDEFS)
        self.assertIn("unknown type 'loop_t'", str(caught.exception))


if __name__ == "__main__":
    usdt_testing.main()
