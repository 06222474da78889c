"""How the tool tests run bin/usdt: most calls under the interpreter that the launcher would
end up in, without the launcher's own `#!/usr/bin/env python3` and its re-exec. On a
machine whose `python3` on PATH is a pyenv shim without Jinja2, that route costs each call a
shell script, an interpreter that fails to import, and a second interpreter.

The tests of that route itself (the #! line, PATH, the re-exec, as another user, the
installed command) run the launcher as a user does, and so does every `usdt trace` that a
test reads as it goes or stops with a signal (test_trace.py's usdt_command).
"""

from typing import List

import tool_python

# What usdt imports beyond the standard library (bin/launcher.in's DEBIAN_PACKAGES).
MODULES = ("jinja2",)


def interpreter() -> List[str]:
    """[the interpreter that imports usdt's modules], or [] (run the launcher itself): this one,
    which is the launcher's own (tests/CMakeLists.txt), else Debian's, as the launcher falls back."""
    python = tool_python.interpreter_with(*MODULES)
    return [python] if python else []


INTERPRETER = interpreter()


def direct(launcher: str) -> List[str]:
    """The command that runs `launcher` under INTERPRETER."""
    return [*INTERPRETER, launcher]
