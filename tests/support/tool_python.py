"""Imported first by the test modules that import usdttool's ELF reader: usdttool reads ELF
files with pyelftools, which Debian's interpreter has where the one CTest was given (a
pyenv's) may not. The module then runs under Debian's, as bin/usdt does (bin/launcher.in)."""

import importlib.util
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"

if importlib.util.find_spec("elftools") is None and sys.executable != SYSTEM_PYTHON \
        and os.access(SYSTEM_PYTHON, os.X_OK):
    os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, *sys.argv])
