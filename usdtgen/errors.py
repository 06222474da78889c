"""Source locations and the one error type the generator reports."""

from dataclasses import dataclass


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
    """A problem in the user's input, reported as `file:line:col: error: message`."""

    def __init__(self, location: SourceLocation, message: str):
        super().__init__(f"{location}: error: {message}")
        self.location = location
        self.message = message
