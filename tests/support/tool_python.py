"""Which interpreter a test starts for code that needs a module usdt does without, or that the
interpreter CTest was given (a pyenv's) may lack: pyelftools (elftools_reading.py), pyflakes,
Jinja2 for a launcher run without the launcher. The one rule: this interpreter, which CTest runs
under the interpreter usdt's launchers start (cmake/usdtAddProvider.cmake's _usdt_find_python),
else Debian's, where apt installs python3-pyelftools, python3-pyflakes and python3-jinja2;
bin/launcher.in falls back to Debian's the same way."""

import importlib.util
import os
import subprocess
import sys
from typing import Optional

SYSTEM_PYTHON = "/usr/bin/python3"


def interpreter_with(*modules: str) -> Optional[str]:
    """The first of this interpreter and Debian's that imports every one of `modules`, or None."""
    if all(importlib.util.find_spec(module) is not None for module in modules):
        return sys.executable
    if sys.executable != SYSTEM_PYTHON and os.access(SYSTEM_PYTHON, os.X_OK):
        check = subprocess.run([SYSTEM_PYTHON, "-c", f"import {', '.join(modules)}"], capture_output=True, check=False)
        if check.returncode == 0:
            return SYSTEM_PYTHON
    return None


def use_an_interpreter_with_pyelftools() -> None:
    """Runs the calling module again under Debian's interpreter where it imports pyelftools and
    this one does not. Call it before importing elftools_reading."""
    python = interpreter_with("elftools")
    if python is not None and python != sys.executable:
        os.execv(python, [python, *sys.argv])
