"""The fuzzer's inputs: mutations of valid provider files, files written from the grammar,
and random bytes. Everything is drawn from one `random.Random`, so a seed replays a run.

Mutations work on lexemes (words, punctuation, comments, directives, white space), so that
most of them keep a file close to valid and reach the parser's and the model's checks
rather than stopping at the first character.
"""

import random
import re
from pathlib import Path
from typing import Callable, List, Sequence

REPOSITORY = Path(__file__).resolve().parents[2]

# Seeds: every provider file of the project, the fuzzer's own corpus/ among them.
SEED_GLOBS = ("tests/**/*.d", "example-project/**/*.d")

_LEXEME_RE = re.compile(
    rb"""\s+|//[^\n]*|/\*.*?\*/|^[ \t]*\#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|[0-9][A-Za-z0-9_.]*|"[^"\n]*"|'[^'\n]*'|.""",
    re.DOTALL | re.MULTILINE)

# Words a provider file may hold, and words that collide with what the generated code
# uses or includes (macros of <stdint.h>, GNU's predefined `linux`, the runtime's names).
TYPE_WORDS = (
    "char", "short", "int", "long", "signed", "unsigned", "bool", "_Bool", "float", "double",
    "void", "const", "volatile", "string", "struct", "union", "enum", "__int128", "int8_t",
    "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "size_t",
    "ssize_t", "uintptr_t", "intptr_t", "pid_t", "off_t", "time_t", "long double", "char *",
    "const char *", "void *", "struct s *", "unsigned long long", "signed char",
)
KEYWORDS = ("provider", "probe", "typedef", "struct", "union", "enum", "void", "string",
            "namespace", "class", "template", "delete", "register", "and", "or", "new", "this",
            "operator", "auto", "extern", "static", "inline", "sizeof", "return")
COLLIDING_NAMES = (
    "usdt", "std", "detail", "get", "make_tuple", "tuple", "NULL", "errno", "linux", "unix",
    "INT8_MAX", "SIZE_MAX", "offsetof", "true", "false", "USDT_SITE", "USDT_ARG", "USDT_VALUE",
    "USDT_INLINE", "_USDT_SITE", "usdt_argument_0", "UsdtArg0", "arg0", "arg1", "a__b", "a_b",
    "x_enabled", "x_lazy", "main", "semaphore", "__attribute__", "asm", "__asm__",
)
STRANGE_NAMES = ("_", "__", "___x__", "x" * 300, "é", "naïve", "ﬁle", "a$b", "a\u200bb", "Σ")
PUNCTUATION = ("{", "}", "(", ")", ";", ",", "*", ":", "[", "]", "=", "-", ".", "...", "::",
               "#", "\\", "\"", "'", "@", "%", "`", "$")
DIRECTIVES = (
    "#pragma usdt semaphore {p}:*", "#pragma usdt no_semaphore {p}:{n}",
    "#pragma usdt semaphore {p}:{n} {p}:*", "#pragma usdt semaphore", "#pragma usdt",
    "#pragma usdt frobnicate {p}:*", "#pragma usdt semaphore {p}", "#pragma usdt semaphore {p}:",
    "#pragma usdt semaphore nosuch:*", "#pragma usdt semaphore {p}:nosuch",
    "#pragma D attributes Evolving/Evolving/Common provider {p} provider", "#pragma D option quiet",
    "#pragma once", "#pragma", "# 42 \"other.d\"", "#line 7", "# 0", "# 1 \"{p}.d\" 1 3 4",
    "# 99999999999999999999 \"x.d\"", "# 3 \"a\\\\nb.d\"", "# 1 \"a\\\"b\"", "# 5 \"\"",
    "#define {n} int", "#define X(a) a", "#define {p} int", "#undef {n}", "#if 0", "#endif",
    "#ifdef X", "#else", "#error boom", "#warning careful", "#include <stdint.h>",
    "#include \"nosuch.h\"", "#", "#!", "#pragma GCC poison {n}", "#foo",
)
COMMENTS = ("/* */", "/* x\n y */", "// x", "/* unterminated", "/**/", "/* // */", "/* */ */",
            "//\\\n continued", "/* \u2028 */")
WHITE_SPACE = (" ", "\t", "\n", "\r\n", "\r", "\f", "\v", "\x00", "\u00a0", "\ufeff", "\u2028",
               "\\\n")
LITERALS = ("0", "1", "-1", "12", "0x10", "1e9", "99999999999999999999", "\"s\"", "\"a;b\\\"\"",
            "'c'", "\"\\n\"", "\".section .text\"", "\"%0\"")


def seed_files() -> List[bytes]:
    """The seed corpus, in a fixed order so that a seed number means the same inputs."""
    paths = sorted({path for pattern in SEED_GLOBS for path in REPOSITORY.glob(pattern)})
    return [path.read_bytes() for path in paths]


def lexemes(data: bytes) -> List[bytes]:
    return _LEXEME_RE.findall(data)


class InputMaker:
    """Draws inputs: mutated seeds, grammar-written files and random bytes."""

    def __init__(self, rng: random.Random, seeds: Sequence[bytes]):
        self.rng = rng
        self.seeds = list(seeds)
        self._mutations: List[Callable[[List[bytes]], None]] = [
            self._delete, self._duplicate, self._swap, self._replace_word, self._insert_word,
            self._insert_punctuation, self._insert_directive, self._insert_comment,
            self._insert_white_space, self._insert_literal, self._change_type, self._splice,
            self._nest, self._grow_name, self._truncate, self._repeat_probe, self._crlf,
        ]

    def next_input(self) -> bytes:
        roll = self.rng.random()
        if roll < 0.65:
            return self.mutated()
        if roll < 0.92:
            return self.written()
        return self.random_bytes()

    # Mutations of a seed.
    def mutated(self) -> bytes:
        pieces = lexemes(self.rng.choice(self.seeds))
        for _ in range(self.rng.choice((1, 1, 1, 2, 2, 3, 5, 8))):
            self.rng.choice(self._mutations)(pieces)
        data = b"".join(pieces)
        if self.rng.random() < 0.02:
            data = self._flip_bytes(data)
        return data

    def _index(self, pieces: List[bytes], words_only=False) -> int:
        if words_only:
            words = [i for i, piece in enumerate(pieces) if piece[:1].isalpha() or piece[:1] == b"_"]
            if words:
                return self.rng.choice(words)
        return self.rng.randrange(len(pieces) + 1) if pieces else 0

    def _names(self, pieces: List[bytes]) -> List[str]:
        words = [piece.decode("utf-8", "replace") for piece in pieces
                 if re.fullmatch(rb"[A-Za-z_][A-Za-z0-9_]*", piece)]
        return words or ["p"]

    def _word(self, pieces: List[bytes]) -> str:
        pool = self.rng.choice((TYPE_WORDS, KEYWORDS, COLLIDING_NAMES, STRANGE_NAMES, self._names(pieces)))
        return self.rng.choice(pool)

    def _insert(self, pieces: List[bytes], text: str, index=None) -> None:
        pieces.insert(self._index(pieces) if index is None else index, text.encode("utf-8"))

    def _delete(self, pieces):
        if pieces:
            start = self._index(pieces[:-1]) if len(pieces) > 1 else 0
            del pieces[start:start + self.rng.choice((1, 1, 2, 5, 20))]

    def _duplicate(self, pieces):
        if pieces:
            start = self.rng.randrange(len(pieces))
            span = pieces[start:start + self.rng.choice((1, 3, 10, 40))]
            pieces[start:start] = span

    def _swap(self, pieces):
        if len(pieces) > 1:
            a, b = self.rng.randrange(len(pieces)), self.rng.randrange(len(pieces))
            pieces[a], pieces[b] = pieces[b], pieces[a]

    def _replace_word(self, pieces):
        index = self._index(pieces, words_only=True)
        pieces[index:index + 1] = [self._word(pieces).encode("utf-8")]

    def _insert_word(self, pieces):
        self._insert(pieces, f" {self._word(pieces)} ")

    def _insert_punctuation(self, pieces):
        self._insert(pieces, self.rng.choice(PUNCTUATION))

    def _insert_directive(self, pieces):
        names = self._names(pieces)
        line = self.rng.choice(DIRECTIVES).format(p=self.rng.choice(names), n=self.rng.choice(names))
        # Directives need a line of their own; sometimes they get none.
        self._insert(pieces, f"\n{line}\n" if self.rng.random() < 0.9 else line)

    def _insert_comment(self, pieces):
        self._insert(pieces, self.rng.choice(COMMENTS) + ("\n" if self.rng.random() < 0.5 else ""))

    def _insert_white_space(self, pieces):
        self._insert(pieces, self.rng.choice(WHITE_SPACE))

    def _insert_literal(self, pieces):
        self._insert(pieces, self.rng.choice(LITERALS))

    def _change_type(self, pieces):
        type_words = [i for i, piece in enumerate(pieces) if piece.decode("utf-8", "replace") in TYPE_WORDS]
        index = self.rng.choice(type_words) if type_words else self._index(pieces)
        pieces[index:index + 1] = [self.written_type().encode("utf-8")]

    def _splice(self, pieces):
        other = lexemes(self.rng.choice(self.seeds))
        if other:
            start = self.rng.randrange(len(other))
            pieces[self._index(pieces):0] = other[start:start + self.rng.randrange(1, 60)]

    def _nest(self, pieces):
        depth = self.rng.choice((3, 50, 2000))
        opening, closing = self.rng.choice((("(", ")"), ("{", "}"), ("[", "]")))
        balanced = self.rng.random() < 0.7
        self._insert(pieces, opening * depth + (closing * depth if balanced else ""))

    def _grow_name(self, pieces):
        index = self._index(pieces, words_only=True)
        # Grown once at most: stacked mutations must not make gigabytes.
        if index < len(pieces) and len(pieces[index]) < 1000:
            pieces[index] = pieces[index] * self.rng.choice((2, 50, 5000))

    def _truncate(self, pieces):
        if pieces:
            del pieces[self.rng.randrange(len(pieces)):]

    def _repeat_probe(self, pieces):
        """Many probes or many arguments: the limits (12 arguments) and the duplicate checks."""
        name = self.rng.choice(self._names(pieces))
        count = self.rng.choice((11, 12, 13, 200))
        arguments = ", ".join(f"int a{i}" for i in range(count))
        probes = "".join(f" probe {name}{i if self.rng.random() < 0.8 else ''}({arguments});"
                         for i in range(self.rng.choice((1, 2, 30))))
        self._insert(pieces, probes)

    def _crlf(self, pieces):
        pieces[:] = [piece.replace(b"\n", b"\r\n") for piece in pieces]

    def _flip_bytes(self, data: bytes) -> bytes:
        mutable = bytearray(data)
        for _ in range(self.rng.randrange(1, 4)):
            if mutable:
                mutable[self.rng.randrange(len(mutable))] = self.rng.randrange(256)
        return bytes(mutable)

    # Files written from the grammar: mostly valid, with many shapes of names and types.
    def written(self) -> bytes:
        rng = self.rng
        parts: List[str] = []
        typedef_names = []
        for index in range(rng.choice((0, 0, 1, 3))):
            name = f"t{index}_t"
            parts.append(f"typedef {self.written_type(typedefs=typedef_names, pointers=False)} {name};")
            typedef_names.append(name)
        targets = []
        providers = {}
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            provider = self.written_name()
            probes = []
            for _ in range(rng.choice((1, 1, 2, 3, 6))):
                probe = self.written_name()
                arguments = ", ".join(
                    f"{self.written_type(typedefs=typedef_names)} {self.written_name() if rng.random() < 0.8 else ''}"
                    for _ in range(rng.choice((0, 1, 2, 3, 4, 12))))
                translated = f" : ({arguments})" if rng.random() < 0.05 else ""
                probes.append(f"    probe {probe}({arguments or rng.choice(('', 'void'))}){translated};")
                targets.append(f"{provider}:{probe}")
            targets.append(f"{provider}:*")
            providers[provider] = probes
            parts.append(f"provider {provider} {{\n" + "\n".join(probes) + "\n};")
        for _ in range(rng.choice((0, 0, 1, 2))):
            setting = rng.choice(("semaphore", "no_semaphore"))
            chosen = rng.sample(targets, rng.randint(1, min(3, len(targets))))
            parts.insert(rng.randrange(len(parts) + 1), f"#pragma usdt {setting} {' '.join(chosen)}")
        if rng.random() < 0.2:
            parts.insert(rng.randrange(len(parts) + 1), rng.choice((
                "struct point { int x, y; };", "enum e { A = 1 << 2, B };", "int f(const char *name);",
                "union u { long l; void *p; } values[4];", "#define EXTRA_T uint32_t",
                "extern char buffer[16];")))
        return ("\n".join(parts) + "\n").encode("utf-8")

    def written_name(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.55:
            return rng.choice(("a", "b", "app", "request__start", "x1", "_y", "Upper", "done", "n")) + (
                str(rng.randrange(100)) if rng.random() < 0.5 else "")
        if roll < 0.75:
            return rng.choice(KEYWORDS)
        if roll < 0.95:
            return rng.choice(COLLIDING_NAMES)
        return rng.choice(STRANGE_NAMES)

    def written_type(self, typedefs: Sequence[str] = (), pointers=True) -> str:
        rng = self.rng
        words = [rng.choice(TYPE_WORDS)]
        if typedefs and rng.random() < 0.3:
            words = [rng.choice(typedefs)]
        if rng.random() < 0.2:
            words.insert(0, rng.choice(("const", "volatile", "unsigned", "signed", "long")))
        if pointers and rng.random() < 0.2:
            words.append(rng.choice(("*", "**", "* const", "const *")))
        return " ".join(words)

    def random_bytes(self) -> bytes:
        rng = self.rng
        size = rng.choice((0, 1, 8, 100, 4000))
        if rng.random() < 0.5:
            return bytes(rng.randrange(256) for _ in range(size))
        # Printable ASCII reaches further into the lexer than arbitrary bytes do.
        return bytes(rng.choice(b" \n\t{}();,*:#_azAZ09\"'/") for _ in range(size))
