"""Runs the C preprocessor over a provider file when it uses directives, as `dtrace -C` does.

Files without directives are read as they are, so error columns match the file exactly;
after the preprocessor, `# LINE "FILE"` markers keep the lines right (columns are the
preprocessor's).
"""

import re
import subprocess
from typing import Sequence

from .errors import GeneratorError, SourceLocation

# Any directive but `#pragma D ...`, which the lexer skips.
_DIRECTIVE_RE = re.compile(r"^[ \t]*#(?![ \t]*pragma[ \t]+D\b)", re.MULTILINE)


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
