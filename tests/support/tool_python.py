"""For the test modules that read ELF files with pyelftools too, to compare usdttool's reader with
(elftools_reading.py): pyelftools, which usdt does without, is in Debian's interpreter where the
one CTest was given (a pyenv's) may not have it."""

import importlib.util
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"


def use_an_interpreter_with_pyelftools() -> None:
    """Runs the calling module again under Debian's interpreter, unless this one imports
    pyelftools. Call it before importing elftools_reading."""
    if importlib.util.find_spec("elftools") is None and sys.executable != SYSTEM_PYTHON \
            and os.access(SYSTEM_PYTHON, os.X_OK):
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, *sys.argv])
