"""A command's main() run in the test's own process, observed as a subprocess would be.

For tests of command lines that run many cases: a new interpreter per case costs more than the
case. What reaches file descriptors 1 and 2 is captured (so the output of a preprocessor or
compiler the command starts too), the exit status includes SystemExit's, and an uncaught
exception is printed as the interpreter would print it, with status 1, so that a test's "no
Traceback" assertion still sees it. What needs a process of its own (the launcher script, the
interpreter's start-up, a new hash seed per run) is for the tests that run the real command.
"""

import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence


def run(main: Callable[[Sequence[str]], int], argv: Sequence[str], cwd: Path,
        environment: Optional[Mapping[str, str]] = None) -> subprocess.CompletedProcess:
    """main(argv) in `cwd` with `environment` added to os.environ: a CompletedProcess with text
    stdout and stderr, as subprocess.run(..., capture_output=True, text=True) returns."""
    argv = [str(argument) for argument in argv]
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        sys.stdout.flush()
        sys.stderr.flush()
        saved_descriptors = os.dup(1), os.dup(2)
        saved_directory = os.getcwd()
        saved_environment = dict(os.environ)
        os.dup2(stdout.fileno(), 1)
        os.dup2(stderr.fileno(), 2)
        try:
            os.environ.update(environment or {})
            os.chdir(cwd)
            try:
                status = main(argv)
            except SystemExit as exit:
                status = exit.code if isinstance(exit.code, int) else 0 if exit.code is None else 1
                if not isinstance(exit.code, (int, type(None))):
                    print(exit.code, file=sys.stderr)
            except Exception:   # noqa: BLE001  (shown as the interpreter would show it)
                traceback.print_exc()
                status = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.chdir(saved_directory)
            os.environ.clear()
            os.environ.update(saved_environment)
            for descriptor, saved in zip((1, 2), saved_descriptors):
                os.dup2(saved, descriptor)
                os.close(saved)
        outputs = []
        for captured in (stdout, stderr):
            captured.seek(0)
            outputs.append(captured.read().decode("utf-8", "replace"))
    return subprocess.CompletedProcess([getattr(main, "__module__", "main"), *argv], status, *outputs)
