"""The one error the tool reports: a message for the user, printed as `usdt: error: MESSAGE`;
and its warnings, `usdt: warning: MESSAGE`, which do not stop it."""

import sys


class ToolError(Exception):
    pass


def warn(message: str) -> None:
    sys.stderr.write(f"usdt: warning: {message}\n")
