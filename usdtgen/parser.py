"""Parses provider-file tokens into a syntax tree: what was written, where, nothing checked.

Grammar (the DTrace subset that stapsdt can express):
    file      := ( provider | declaration | clause )* END
    declaration := any C declaration, up to its ';' outside brackets; typedefs are kept
    clause    := tokens '{' ... '}'   -- braces that open no struct, union, enum or initializer:
                 a D program clause (`BEGIN{}`, which configure scripts run `dtrace -G` on to
                 test for it) or a function definition; skipped
    provider  := 'provider' IDENT '{' probe* '}' [ ';' ]
    probe     := 'probe' IDENT '(' params ')' [ ':' '(' params ')' ] ( ';' | before 'probe' or '}' )
    params    := [ 'void' | param ( ',' param )* ]
    param     := IDENT+ ( '*' | IDENT )*      -- type words and stars, then an optional name
The optional second parameter list is DTrace's translated-argument list; the first one
decides the note, as in systemtap's dtrace. Its grammar also makes the ';' after a probe and
after a provider's '}' optional (`Optional(semi)`), which changes no meaning: so here.

`#pragma usdt` lines may stand anywhere, one per line:
    pragma    := '#pragma usdt' SETTING target+
    target    := PROVIDER ':' ( PROBE | '*' )
"""

import dataclasses
import re
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

from .errors import GeneratorError, SourceLocation
from .lexer import END, IDENTIFIER, OTHER, PRAGMA, Token, tokenize

# Words that can only be part of a type, so a parameter ending in one has no name.
TYPE_KEYWORDS = frozenset({
    "char", "short", "int", "long", "signed", "unsigned", "_Bool", "bool", "float",
    "double", "void", "const", "volatile", "__int128", "struct", "union", "enum",
})
QUALIFIERS = frozenset({"const", "volatile"})
TAG_KEYWORDS = frozenset({"struct", "union", "enum"})


@dataclass(frozen=True)
class ParameterSyntax:
    type_words: Tuple[str, ...]   # identifiers and '*' in written order, name excluded
    name: Optional[str]
    location: SourceLocation      # of the parameter's first token
    name_location: Optional[SourceLocation]


@dataclass(frozen=True)
class ProbeSyntax:
    name: str
    parameters: Tuple[ParameterSyntax, ...]
    location: SourceLocation      # of the probe's name


@dataclass(frozen=True)
class ProviderSyntax:
    name: str
    probes: Tuple[ProbeSyntax, ...]
    location: SourceLocation      # of the provider's name


@dataclass(frozen=True)
class ProbeTargetSyntax:
    provider: str
    probe: str                    # a probe name, or '*' for all of the provider's probes
    location: SourceLocation


@dataclass(frozen=True)
class PragmaSyntax:
    setting: str                  # `semaphore` in `#pragma usdt semaphore app:*`
    targets: Tuple[ProbeTargetSyntax, ...]
    location: SourceLocation      # of the setting


@dataclass(frozen=True)
class TypedefSyntax:
    """`typedef unsigned int txid_t;` or `typedef struct {...} conn_t;` (words: struct, conn_t)."""
    name: str
    type_words: Tuple[str, ...]
    location: SourceLocation      # of the name


@dataclass(frozen=True)
class FileSyntax:
    providers: Tuple[ProviderSyntax, ...]
    pragmas: Tuple[PragmaSyntax, ...]
    typedefs: Tuple[TypedefSyntax, ...]
    end: SourceLocation


def parse(text: str, path: str, preprocessed: bool = False) -> FileSyntax:
    """Parses provider-file text (the preprocessor's output if `preprocessed`). Raises
    GeneratorError at the first syntax error."""
    return parse_tokens(tokenize(text, path, preprocessed))


def parse_tokens(tokens: Iterator[Token]) -> FileSyntax:
    """Parses a token stream ending in an END token. Raises GeneratorError."""
    return _Parser(tokens).parse_file()


class _Parser:
    def __init__(self, tokens: Iterator[Token]):
        self._tokens = tokens
        self._pragmas: List[PragmaSyntax] = []
        self._current = self._next_token()
        self._previous = self._current   # the token before the current one

    def parse_file(self) -> FileSyntax:
        providers = []
        typedefs = []
        while self._current.kind != END:
            if self._at_word("provider") or self._at_word("probe"):
                providers.append(self._provider())
            else:
                typedef = _typedef(self._declaration())
                if typedef:
                    typedefs.append(typedef)
        return FileSyntax(tuple(providers), tuple(self._pragmas), tuple(typedefs), self._current.location)

    def _declaration(self) -> List[Token]:
        """A C declaration or a clause around the providers (systemtap's dtrace skips them
        too): its tokens. A declaration whose ';' is missing ends where the next one, or a
        provider, starts: that is where the error says the ';' is expected."""
        start = self._current
        tokens: List[Token] = []
        depth = 0
        clause = False   # ends at its closing brace rather than at a ';'
        while depth or not (clause or self._at(";")):
            if self._current.kind == END:
                raise _missing_semicolon(start, tokens, self._current)
            if not depth and tokens and _starts_a_declaration(self._current, tokens[-1]):
                raise _missing_semicolon(start, tokens, self._current)
            provider = _provider_block_at(tokens) if not depth and self._at("{") else 0
            if provider:
                raise _missing_semicolon(start, tokens[:provider], tokens[provider])
            if self._current.text in ("{", "(", "["):
                clause = clause or (not depth and self._current.text == "{" and _opens_a_clause(tokens))
                depth += 1
            elif self._current.text in ("}", ")", "]"):
                if not depth:
                    raise self._error(f"unbalanced '{self._current.text}'")
                depth -= 1
            tokens.append(self._advance())
        if not clause:
            self._advance()
        if _looks_like_a_provider(tokens):
            raise GeneratorError(start.location, f"expected 'provider', found {start.describe()}")
        return tokens

    def _provider(self) -> ProviderSyntax:
        self._expect_word("provider", "expected 'provider'")
        name = self._identifier("a provider name")
        self._expect("{")
        probes = []
        while not self._at("}"):
            probes.append(self._probe())
        self._advance()
        if self._at(";"):
            self._advance()
        return ProviderSyntax(name.text, tuple(probes), name.location)

    def _probe(self) -> ProbeSyntax:
        self._expect_word("probe", "expected 'probe' or '}'")
        name = self._identifier("a probe name")
        parameters = self._parameter_list()
        if self._at(":"):
            self._advance()
            self._parameter_list()
        if self._at(";"):
            self._advance()
        elif not (self._at_word("probe") or self._at("}")):
            raise GeneratorError(_just_after(self._previous),
                                 f"expected ';' after the probe declaration, found {self._current.describe()}")
        return ProbeSyntax(name.text, parameters, name.location)

    def _parameter_list(self) -> Tuple[ParameterSyntax, ...]:
        self._expect("(")
        parameters: List[ParameterSyntax] = []
        if self._at_word("void"):
            void = self._advance()
            if self._at(")"):
                self._advance()
                return ()
            parameters.append(self._parameter(first=void))
        elif self._at(")"):
            self._advance()
            return ()
        else:
            parameters.append(self._parameter())
        while not self._at(")"):
            self._expect(",", "between parameters")
            parameters.append(self._parameter())
        self._advance()
        return tuple(parameters)

    def _parameter(self, first: Optional[Token] = None) -> ParameterSyntax:
        tokens = [first] if first else []
        while self._current.kind == IDENTIFIER or self._at("*"):
            tokens.append(self._advance())
        if not tokens:
            raise self._error(f"expected a parameter type, found {self._current.describe()}")
        if not self._at(",") and not self._at(")"):
            raise self._error(f"expected ',' or ')' after a parameter, found {self._current.describe()}")
        if tokens[0].text == "*":
            raise GeneratorError(tokens[0].location, "expected a parameter type before '*'")
        last = tokens[-1]
        # The last word is a name when a type precedes it: not in `const uint64_t`, nor in
        # `struct foo`, where it is the tag.
        before = [token.text for token in tokens[:-1] if token.text not in QUALIFIERS]
        named = (last.kind == IDENTIFIER and last.text not in TYPE_KEYWORDS
                 and bool(before) and before[-1] not in TAG_KEYWORDS)
        type_tokens = tokens[:-1] if named else tokens
        return ParameterSyntax(
            type_words=tuple(token.text for token in type_tokens),
            name=last.text if named else None,
            location=tokens[0].location,
            name_location=last.location if named else None,
        )

    # Token helpers.
    def _next_token(self) -> Token:
        """The next token of the grammar; pragma lines, which may stand anywhere, are collected."""
        token = next(self._tokens)
        while token.kind == PRAGMA:
            self._pragmas.append(_pragma(token))
            token = next(self._tokens)
        return token

    def _advance(self) -> Token:
        token = self._previous = self._current
        self._current = self._next_token()
        return token

    def _at(self, punctuation: str) -> bool:
        return self._current.kind != IDENTIFIER and self._current.text == punctuation

    def _at_word(self, word: str) -> bool:
        return self._current.kind == IDENTIFIER and self._current.text == word

    def _expect(self, punctuation: str, context: str = "") -> Token:
        if not self._at(punctuation):
            where = f" {context}" if context else ""
            raise self._error(f"expected '{punctuation}'{where}, found {self._current.describe()}")
        return self._advance()

    def _expect_word(self, word: str, message: str) -> Token:
        if not self._at_word(word):
            raise self._error(f"{message}, found {self._current.describe()}")
        return self._advance()

    def _identifier(self, what: str) -> Token:
        if self._current.kind != IDENTIFIER:
            raise self._error(f"expected {what}, found {self._current.describe()}")
        return self._advance()

    def _error(self, message: str) -> GeneratorError:
        """An error at the current token; the likely mistakes behind a number or a '-' get a
        message of their own."""
        if self._current.kind == OTHER:
            message = _misspelt_name(self._current.text) or message
        return GeneratorError(self._current.location, message)


def _misspelt_name(text: str) -> Optional[str]:
    if text[0].isdigit():
        return f"invalid identifier '{text}': identifiers start with a letter or '_'"
    if text == "-":
        return "unexpected character '-': names cannot contain '-' (DTrace's probe request-start is written request__start)"
    return None


def _opens_a_clause(tokens: List[Token]) -> bool:
    """Whether a '{' after `tokens`, outside brackets, opens a clause's body: not the body of
    a struct, union or enum (`struct s {...} x;`), nor an initializer (`= {...};`)."""
    return not (tokens and tokens[-1].text == "=") and not any(
        token.kind == IDENTIFIER and token.text in TAG_KEYWORDS for token in tokens)


def _missing_semicolon(start: Token, tokens: List[Token], found: Token) -> GeneratorError:
    """The error for a declaration from `start` whose `tokens` no ';' ends before `found`."""
    return GeneratorError(_just_after(tokens[-1]),
                          f"expected ';' to end the declaration at {start.location}, found {found.describe()}")


def _just_after(token: Token) -> SourceLocation:
    """Where a missing ';' after `token` is reported, as compilers place it: right after it."""
    return dataclasses.replace(token.location, column=token.location.column + len(token.text))


def _starts_a_declaration(token: Token, previous: Token) -> bool:
    """Whether `token`, outside brackets in a declaration, can only start another one: a
    `typedef`, or a struct, union or enum keyword right after a body's `}`."""
    return token.kind == IDENTIFIER and (token.text == "typedef" or (token.text in TAG_KEYWORDS
                                                                      and previous.text == "}"))


def _provider_block_at(tokens: List[Token]) -> int:
    """Where in `tokens`, which a '{' outside brackets follows, `provider NAME` or `provider`
    starts a provider block (not `struct provider {`); 0 if nowhere (never its first token,
    which parse_file() takes for a provider itself)."""
    for index in (len(tokens) - 2, len(tokens) - 1):
        if (index > 0 and tokens[index].kind == IDENTIFIER and tokens[index].text == "provider"
                and tokens[index - 1].text not in TAG_KEYWORDS):
            return index
    return 0


def _looks_like_a_provider(tokens: List[Token]) -> bool:
    """`provder p { probe x(); };`: a misspelt provider must not pass for a C declaration."""
    texts = [token.text for token in tokens]
    return any(texts[i:i + 2] in (["{", "probe"], [";", "probe"]) for i in range(len(texts)))


def _typedef(tokens: List[Token]) -> Optional[TypedefSyntax]:
    """The alias a declaration defines, for the shapes a probe argument can use; else None."""
    if not tokens or tokens[0].text != "typedef" or len(tokens) < 3 or tokens[-1].kind != IDENTIFIER:
        return None
    name = tokens[-1]
    words = [token.text for token in tokens[1:-1]]
    if all(token.kind == IDENTIFIER or token.text == "*" for token in tokens[1:-1]):
        return TypedefSyntax(name.text, tuple(words), name.location)
    if words[0] in TAG_KEYWORDS and words[-1] == "}":
        # `typedef struct [tag] {...} name`: what matters is that it is a struct (or enum).
        return TypedefSyntax(name.text, (words[0], name.text), name.location)
    return None


_PRAGMA_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\S")
_IDENTIFIER_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _pragma(token: Token) -> PragmaSyntax:
    """Parses the text of a `#pragma usdt` line: a setting, then `provider:probe` targets."""
    words = [(match.group(0), dataclasses.replace(token.location, column=token.location.column + match.start()))
             for match in _PRAGMA_WORD_RE.finditer(token.text)]
    end = dataclasses.replace(token.location, column=token.location.column + len(token.text.rstrip()))
    words.append(("", end))

    def expect(index: int, what: str, accepted) -> str:
        text, location = words[index]
        if not accepted(text):
            found = f"'{text}'" if text else "the end of the line"
            raise GeneratorError(location, f"expected {what} in '#pragma usdt', found {found}")
        return text

    is_identifier = _IDENTIFIER_WORD_RE.fullmatch
    setting = expect(0, "a setting", is_identifier)
    targets = []
    index = 1
    while words[index][0] or not targets:
        location = words[index][1]
        provider = expect(index, "a 'provider:probe' target", is_identifier)
        expect(index + 1, "':' after the provider name", lambda text: text == ":")
        probe = expect(index + 2, "a probe name or '*'", lambda text: text == "*" or is_identifier(text))
        targets.append(ProbeTargetSyntax(provider, probe, location))
        index += 3
    return PragmaSyntax(setting, tuple(targets), words[0][1])
