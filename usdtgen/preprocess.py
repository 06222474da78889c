"""Runs the C preprocessor over a provider file when it uses directives, as `dtrace -C` does.

Files without directives are read as they are, where a `#` line that is no directive is a
comment (`# file: src/util/virobject.c`), as systemtap's dtrace without -C reads it. After the preprocessor, `# LINE "FILE"`
markers keep the lines right, and `restore_columns` finds each token in its original line
again, because the preprocessor collapses white space.
"""

import os
import re
import subprocess
from typing import Dict, Iterator, List, Sequence, Tuple

from .errors import GeneratorError, PreprocessorFailed, SourceLocation
from .lexer import IDENTIFIER, Token, provider_pragma

# The preprocessor's directives (GCC's and Clang's, a line marker `# 12 "file"` among them, not
# `# 2 probes per request`), but the pragmas of provider files (`#pragma usdt`, `#pragma D`),
# which the lexer reads itself (lexer.provider_pragma). Another word after a line's `#` makes
# a comment, which the preprocessor would reject ("invalid preprocessing directive #file"): a
# file with only such lines is read as it is. Group 1 is the `#`, group 2 a directive's name.
_DIRECTIVE_RE = re.compile(r"^[ \t]*(#)[ \t]*(?:(include|include_next|import|define|undef|if|ifdef|ifndef|elif|"
                           r"elifdef|elifndef|else|endif|line|error|warning|ident|sccs|assert|unassert|pragma)\b|"
                           r"[0-9]+[ \t]*(?:\"|$))", re.MULTILINE)


# A diagnostic that says where: `file:line:col: error:` (GCC leaves the column out of some).
_LOCATED_ERROR_RE = re.compile(r"^[^\n]+:\d+(?::\d+)?: (?:fatal )?error: ", re.MULTILINE)


def needs_preprocessor(text: str) -> bool:
    return any(directive.group(2) != "pragma" or provider_pragma(text, directive.start(1)) is None
               for directive in _DIRECTIVE_RE.finditer(text))


def preprocess(path: str, compiler: Sequence[str], options: Sequence[str]) -> str:
    """Returns the text as `COMPILER... -E -x c OPTIONS path` prints it: gcc or clang, C or C++
    driver, with any launcher before it and target options (`--sysroot=`, `--target=`) after.

    The preprocessor's own diagnostics already read `file:line:col: error: ...`; they
    are passed through and reported as a failure at the file's start.
    """
    argv = [*compiler, "-E", "-x", "c", *options, path]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, check=False)
    except OSError as error:
        raise GeneratorError(SourceLocation(path, 1, 1),
                             f"cannot run the C preprocessor '{compiler[0]}': {error.strerror}") from None
    if result.returncode != 0:
        diagnostics = result.stderr
        if not _LOCATED_ERROR_RE.search(diagnostics):
            # GCC leaves the line out where a `# 0` line marker put it, and a crashed
            # preprocessor may print nothing: the failure still gets a compiler-style line.
            diagnostics += f"{SourceLocation(path, 1, 1)}: error: the C preprocessor failed on this file\n"
        raise PreprocessorFailed(diagnostics)
    return result.stdout



def restore_columns(tokens: Iterator[Token]) -> Iterator[Token]:
    """Moves each token to its column in the original file, where it can be found there.

    A token is where the preprocessor put it when the original line has it there (GCC and
    Clang keep the columns of lines no macro changed); otherwise it is searched left to right
    in its original line. A token that a macro expansion produced is not found and keeps the
    preprocessor's column.
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
        line = original[location.line - 1]
        key = (location.path, location.line)
        start = searched_up_to.get(key, 0)
        whole_word = token.kind == IDENTIFIER
        column = location.column - 1
        if column >= start and _is_at(line, token.text, column, whole_word):
            found = column
        else:
            found = _find(line, token.text, start, whole_word)
        if found < 0:
            yield token
            continue
        searched_up_to[key] = found + len(token.text)
        # Most tokens are already in place: a new token for each would be most of the work.
        yield token if found == column else Token(token.kind, token.text,
                                                  SourceLocation(location.path, location.line, found + 1))


_WORD_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def _is_at(line: str, text: str, position: int, whole_word: bool) -> bool:
    """Whether `text` is in `line` at `position`, as a whole word if asked."""
    return line.startswith(text, position) and not (whole_word and _inside_a_word(line, text, position))


def _inside_a_word(line: str, text: str, position: int) -> bool:
    end = position + len(text)
    return (position > 0 and line[position - 1] in _WORD_CHARACTERS) or line[end:end + 1] in _WORD_CHARACTERS


def _find(line: str, text: str, start: int, whole_word: bool) -> int:
    """Where `text` is in `line` from `start`, as a whole word if asked; -1 if nowhere.
    (str.find, not a regular expression per token: compiling a pattern costs far more than the
    search, and a preprocessed file has a search per token.)"""
    position = line.find(text, start)
    while whole_word and position >= 0 and _inside_a_word(line, text, position):
        position = line.find(text, position + 1)
    return position


def _read_lines(path: str) -> List[str]:
    # Only regular files: a line marker may name /dev/zero or /dev/stdin, which never end.
    if not os.path.isfile(path):
        return []
    # Split on "\n" only, as the lexer counts lines (splitlines() also splits on \f, \v...).
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as stream:
            return stream.read().split("\n")
    except OSError:
        return []
