"""The one error the tool reports: a message for the user, printed as `usdt: error: MESSAGE`;
and its warnings, `usdt: warning: MESSAGE`, which do not stop it."""

import sys


class ToolError(Exception):
    pass


class OutputClosed(Exception):
    """Standard output was closed under `usdt trace` (`usdt trace ... | head`): tracing has
    stopped; the message says what became of the command or process. usdt then exits as a
    process that SIGPIPE killed is seen, 141."""


def warn(message: str) -> None:
    sys.stderr.write(f"usdt: warning: {message}\n")
