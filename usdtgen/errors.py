"""Source locations, the errors the generator reports (GeneratorError, and PreprocessorFailed
for the preprocessor's own diagnostics), and the one way every entry point reports them
(report())."""

import sys
from dataclasses import dataclass
from typing import Optional, Sequence, TextIO, Tuple


@dataclass(frozen=True)
class SourceLocation:
    __slots__ = ("path", "line", "column")   # one per token: slots make them cheaper to create
    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{printable(self.path)}:{self.line}:{self.column}"


def printable(text: str) -> str:
    """`text` with the characters that are not printable escaped (`\\n`, `\\x1b`): a file name
    from a line marker, or a stray character, must not split or colour the one-line message."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


class GeneratorError(Exception):
    """A problem in the user's input, reported as `file:line:col: error: message`, and then one
    `file:line:col: note: text` line per note: the other place a clash involves."""

    def __init__(self, location: SourceLocation, message: str,
                 notes: Sequence[Tuple[SourceLocation, str]] = ()):
        super().__init__(f"{location}: error: {message}")
        self.location = location
        self.message = message
        self.notes = tuple(notes)


class PreprocessorFailed(Exception):
    """The preprocessor rejected the file and printed why (preprocess.py)."""

    def __init__(self, diagnostics: str):
        super().__init__(diagnostics)
        self.diagnostics = diagnostics


# What the generator raises for a problem in the user's input: every entry point catches these
# (the command line, usdt-dtrace, usdt trace -d) and report()s them.
FAILURES = (GeneratorError, PreprocessorFailed)


def report(failure: Exception, stream: Optional[TextIO] = None) -> None:
    """Writes one of FAILURES to `stream` (standard error): `file:line:col: error: message`, or
    the preprocessor's diagnostics, which end with a line that says where too."""
    stream = sys.stderr if stream is None else stream
    if isinstance(failure, PreprocessorFailed):
        stream.write(failure.diagnostics)
    else:
        stream.write(f"{failure}\n")
        for location, note in failure.notes:
            stream.write(f"{location}: note: {note}\n")
