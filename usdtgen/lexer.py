"""Splits provider-file text into tokens that carry their source location.

The text is either the .d file itself or the C preprocessor's output for it; in the
latter case `# LINE "FILE"` markers move the locations back to the original files.
Everything else from a `#` to the end of its line is a comment, as systemtap's dtrace reads
it (`# file: src/util/virobject.c` in libvirt's provider file, `probe x(); # note`), except
a `#pragma usdt` line.
"""

import codecs
import re
from dataclasses import dataclass
from typing import Iterator, Optional

from .errors import GeneratorError, SourceLocation, printable

IDENTIFIER = "identifier"
PUNCTUATION = "punctuation"
PRAGMA = "pragma"           # a `#pragma usdt` line; text: what follows `usdt`
OTHER = "other"             # numbers, literals and operators: only C declarations have them
END = "end of file"

PUNCTUATION_CHARACTERS = "{}();,*:"

_IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IDENTIFIER_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_BLANKS_RE = re.compile(r"[ \t\r\f\v]+")
# C's numbers, string and character literals and operators, which the C declarations that a
# provider file may hold around its providers contain (`char name[16];`, `A = 1 << 2`).
_OTHER_RE = re.compile(r"""[0-9][A-Za-z0-9_.]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[][=+\-.&|<>!~%^?/]""")
_LINE_MARKER_RE = re.compile(r'#\s*(?:line\s+)?(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?[^\n]*')
# The pragmas of provider files, `#pragma usdt SETTINGS` and DTrace's `#pragma D ...`: the lexer
# reads them itself, and the C preprocessor passes them through, so preprocess.py counts neither
# as a directive. Group 1 is what follows `usdt`, up to a `#`, which starts a comment.
_PROVIDER_PRAGMA_RE = re.compile(r"#[ \t]*pragma[ \t]+(?:usdt\b[ \t]*([^\n#]*)|D\b)")


@dataclass(frozen=True)
class Token:
    __slots__ = ("kind", "text", "location")   # cheaper to create, and a file has many
    kind: str
    text: str
    location: SourceLocation

    def describe(self) -> str:
        return "end of file" if self.kind == END else f"'{printable(self.text)}'"


def tokenize(text: str, path: str, preprocessed: bool = False) -> Iterator[Token]:
    """Yields the tokens of `text`, then one END token. Raises GeneratorError.

    `preprocessed`: `text` is the preprocessor's output, whose line markers are honoured. In a
    file read as it is they are comments, as systemtap's dtrace without -C reads them: a
    comment line such as `# 2 probes per request` must not renumber the lines after it."""
    position = 0
    line = 1
    line_start = 0
    end_of_text = len(text)

    def here() -> SourceLocation:
        return SourceLocation(path, line, position - line_start + 1)

    while True:
        if position >= end_of_text:
            yield Token(END, "", here())
            return
        character = text[position]
        # Words and punctuation first, the most tokens, without the tests for the rest.
        if character in _IDENTIFIER_START:
            word_end = _IDENTIFIER_RE.match(text, position).end()
            yield Token(IDENTIFIER, text[position:word_end], SourceLocation(path, line, position - line_start + 1))
            position = word_end
        elif character in PUNCTUATION_CHARACTERS:
            yield Token(PUNCTUATION, character, SourceLocation(path, line, position - line_start + 1))
            position += 1
        elif character == "\n":
            position += 1
            line += 1
            line_start = position
        elif character in " \t\r\f\v":
            position = _BLANKS_RE.match(text, position).end()
        elif text.startswith("//", position):
            end = text.find("\n", position)
            position = end_of_text if end < 0 else end
        elif text.startswith("/*", position):
            end = text.find("*/", position + 2)
            if end < 0:
                raise GeneratorError(here(), "unterminated comment")
            comment = text[position:end + 2]
            newlines = comment.count("\n")
            if newlines:
                line += newlines
                line_start = position + comment.rfind("\n") + 1
            position = end + 2
        elif character == "#":
            at_line_start = text[line_start:position].strip() == ""
            marker = _LINE_MARKER_RE.match(text, position) if preprocessed and at_line_start else None
            pragma = provider_pragma(text, position) if at_line_start else None
            if marker:
                # The marker names the line that follows it.
                line = int(marker.group(1)) - 1
                # An empty name (`# 5 ""`) would leave messages without a file: keep the current one.
                if marker.group(2):
                    path = _unquote(marker.group(2))
                position = marker.end()
            elif pragma and pragma.group(1) is not None:
                body_column = pragma.start(1) - line_start + 1
                yield Token(PRAGMA, pragma.group(1), SourceLocation(path, line, body_column))
                position = pragma.end()
            else:
                # A comment to the end of the line, `#pragma D attributes ...` among them (they
                # carry nothing a stapsdt note can express), and whatever else the
                # preprocessor leaves (`#ident`).
                end = text.find("\n", position)
                position = end_of_text if end < 0 else end
        else:
            other = _OTHER_RE.match(text, position)
            if not other:
                raise GeneratorError(here(), f"unexpected character '{printable(character)}'")
            yield Token(OTHER, other.group(0), here())
            position = other.end()


def provider_pragma(text: str, position: int) -> Optional[re.Match]:
    """The `#pragma usdt` or `#pragma D` at `position` in `text`, a `#` that starts its line, or
    None; the match's group 1 is the text of a `#pragma usdt`, None for a `#pragma D`."""
    return _PROVIDER_PRAGMA_RE.match(text, position)


def _unquote(quoted: str) -> str:
    """The text of a C string literal's body as the preprocessor writes file names in markers."""
    return codecs.escape_decode(quoted.encode("utf-8"))[0].decode("utf-8", errors="replace")
