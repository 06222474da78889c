"""For the test modules that import usdttool's ELF reader: usdttool reads ELF files with
pyelftools, which Debian's interpreter has where the one CTest was given (a pyenv's) may not."""

import importlib.util
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"


def use_an_interpreter_with_pyelftools() -> None:
    """Runs the calling module again under Debian's interpreter, as bin/usdt does
    (bin/launcher.in), unless this one imports pyelftools. Call it before importing usdttool."""
    if importlib.util.find_spec("elftools") is None and sys.executable != SYSTEM_PYTHON \
            and os.access(SYSTEM_PYTHON, os.X_OK):
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, *sys.argv])
