"""The one error the tool reports: a message for the user, printed as `usdt: error: MESSAGE`."""


class ToolError(Exception):
    pass
