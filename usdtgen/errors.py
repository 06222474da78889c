"""Source locations and the one error type the generator reports."""

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


class GeneratorError(Exception):
    """A problem in the user's input, reported as `file:line:col: error: message`."""

    def __init__(self, location: SourceLocation, message: str):
        super().__init__(f"{location}: error: {message}")
        self.location = location
        self.message = message
