"""Runs the C preprocessor over a provider file when it uses directives, as `dtrace -C` does.

Files without directives are read as they are. After the preprocessor, `# LINE "FILE"`
markers keep the lines right, and `restore_columns` finds each token in its original line
again, because the preprocessor collapses white space.
"""

import dataclasses
import re
import subprocess
from typing import Dict, Iterator, List, Sequence, Tuple

from .errors import GeneratorError, SourceLocation
from .lexer import IDENTIFIER, Token

# Any directive but `#pragma D ...` and `#pragma usdt ...`, which the lexer reads itself.
_DIRECTIVE_RE = re.compile(r"^[ \t]*#(?![ \t]*pragma[ \t]+(?:D|usdt)\b)", re.MULTILINE)


def needs_preprocessor(text: str) -> bool:
    return _DIRECTIVE_RE.search(text) is not None


def preprocess(path: str, compiler: str, options: Sequence[str]) -> str:
    """Returns the text as `compiler -E -x c OPTIONS path` (gcc or clang, C or C++ driver) prints it.

    The preprocessor's own diagnostics already read `file:line:col: error: ...`; they
    are passed through and reported as a failure at the file's start.
    """
    argv = [compiler, "-E", "-x", "c", *options, path]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, check=False)
    except OSError as error:
        raise GeneratorError(SourceLocation(path, 1, 1),
                             f"cannot run the C preprocessor '{compiler}': {error.strerror}") from None
    if result.returncode != 0:
        raise PreprocessorFailed(result.stderr)
    return result.stdout


class PreprocessorFailed(Exception):
    """The preprocessor rejected the file and printed why."""

    def __init__(self, diagnostics: str):
        super().__init__(diagnostics)
        self.diagnostics = diagnostics


def restore_columns(tokens: Iterator[Token]) -> Iterator[Token]:
    """Moves each token to its column in the original file, where it can be found there.

    Tokens are searched left to right in their original line; a token that a macro
    expansion produced is not found and keeps the preprocessor's column.
    """
    lines: Dict[str, List[str]] = {}
    searched_up_to: Dict[Tuple[str, int], int] = {}
    for token in tokens:
        location = token.location
        if location.path not in lines:
            lines[location.path] = _read_lines(location.path)
        original = lines[location.path]
        if not token.text or not 0 < location.line <= len(original):
            yield token
            continue
        key = (location.path, location.line)
        word = re.escape(token.text)
        pattern = rf"(?<![A-Za-z0-9_]){word}(?![A-Za-z0-9_])" if token.kind == IDENTIFIER else word
        found = re.compile(pattern).search(original[location.line - 1], searched_up_to.get(key, 0))
        if not found:
            yield token
            continue
        searched_up_to[key] = found.end()
        yield dataclasses.replace(token, location=dataclasses.replace(location, column=found.start() + 1))


def _read_lines(path: str) -> List[str]:
    # Split on "\n" only, as the lexer counts lines (splitlines() also splits on \f, \v...).
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as stream:
            return stream.read().split("\n")
    except OSError:
        return []
