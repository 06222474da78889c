"""The one error the tool reports: a message for the user, printed as `usdt: error: MESSAGE`;
and its warnings, `usdt: warning: MESSAGE`, which do not stop it."""

import sys


class ToolError(Exception):
    pass


class OutputClosed(Exception):
    """Standard output was closed under `usdt trace` (`usdt trace ... | head`): tracing has
    stopped; the message says what became of the command or process. usdt then exits as a
    process that SIGPIPE killed is seen, 141."""


def counted(number: int, noun: str) -> str:
    """A count in a message: `1 probe`, `2 probes`."""
    return f"{number} {noun}" + ("" if number == 1 else "s")


def warn(message: str) -> None:
    sys.stderr.write(f"usdt: warning: {message}\n")
