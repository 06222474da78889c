"""The `usdt` command line: `usdt list ...` (listing.py), `usdt trace ...` (trace.py), `usdt verify ...`
(verify.py) and `usdt diff ...` (diff.py).

Every failure the user can cause or fix prints one line, `usdt: error: MESSAGE`, and exits 1;
usage errors print such a line too, and exit 2. A Ctrl-C that reaches Python as
KeyboardInterrupt exits 130 quietly; `usdt trace` handles Ctrl-C itself (trace.py).
"""

import argparse
import io
import os
import select
import signal
import sys
from typing import List, Optional

from . import diff, listing, trace, verify
from usdtgen import VERSION, errors

from .errors import OutputClosed, ToolError

PROGRAM = "usdt"
# Imported only where they are needed: Jinja2 renders `usdt trace`'s program
# (bpftrace/program.py's program()) and is a good part of usdt's start-up, which `usdt list` does
# without. The launcher (bin/launcher.in) looks for them as it starts.
LATER_IMPORTS = ("jinja2",)


class _ArgumentParser(argparse.ArgumentParser):
    """Usage errors as one line, like every other error."""

    def error(self, message: str):
        sys.stderr.write(f"{PROGRAM}: error: {message} (see '{self.prog} --help')\n")
        sys.exit(2)


# Each command: its name, the module that parses and runs it (add_arguments, run), its line in
# `usdt --help` and its own help's description.
COMMANDS = (
    ("list", listing, "list the probes of a file or a process",
     "Lists the probes of an executable or shared library, or of every file a running process maps, with "
     "their arguments' names and types."),
    ("trace", trace, "trace probes with bpftrace, arguments by name", None),
    ("verify", verify, "check a file's probes against its .d files and what tracers read",
     "Checks that an executable or shared library has every probe its .d files declare, with the declared "
     "arguments' sizes and signedness, and nothing its tracers cannot read. Prints one line per problem; "
     "exits 1 on an error."),
    ("diff", diff, "compare the probes of two builds",
     "Compares the probes of two files, or of saved `usdt list --json` manifests: removed, added and changed "
     "probes. Exits 1 when a probe was removed or its arguments changed."),
)


def argument_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(prog=PROGRAM, description="Lists, traces, verifies and compares USDT probes.")
    parser.add_argument("--version", action="version", version=f"{PROGRAM} {VERSION}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    parser.command_parsers = {}
    for name, module, summary, description in COMMANDS:
        command_parser = commands.add_parser(name, help=summary, description=description)
        module.add_arguments(command_parser)
        command_parser.set_defaults(run=module.run)
        parser.command_parsers[name] = command_parser
    return parser


def _parse_intermixed(parser: argparse.ArgumentParser, argv: List[str]) -> argparse.Namespace:
    """parser.parse_intermixed_args(argv), but for what a Ctrl-C in the middle of it raises: its
    cleanup (Python 3.11 and 3.12) turns any exception raised inside it, the launcher's exit
    130 included, into an AttributeError of its own, which would print a traceback."""
    try:
        return parser.parse_intermixed_args(argv)
    except AttributeError as error:
        if isinstance(error.__context__, SystemExit):
            raise error.__context__ from None
        raise


class _Messages:
    """Standard error, where a message that cannot be written (a closed pipe: `2>&1 | head`) is
    dropped: usdt goes on with what it does, and none of its threads dies of it."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except (BrokenPipeError, ValueError):
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except (BrokenPipeError, ValueError):
            pass

    def __getattr__(self, name):
        return getattr(self.stream, name)


class _WholeLines(io.BufferedIOBase):
    """Standard output in writes that each end where a line ends and hold at most PIPE_BUF
    bytes, which a pipe never splits: the traced command shares it (`usdt trace ./app --
    ./app | less`), and its own lines come between usdt's, never inside one, as they did with
    Python's writes of 8 KiB wherever they ended. A flush writes a last unfinished line too."""

    def __init__(self, descriptor: int):
        super().__init__()
        self.descriptor = descriptor
        self.pending = bytearray()

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.descriptor

    def isatty(self) -> bool:
        return os.isatty(self.descriptor)

    def write(self, data) -> int:
        self.pending += data
        if len(self.pending) >= select.PIPE_BUF:
            self._write_out(whole_lines_only=True)
        return len(data)

    def flush(self) -> None:
        self._write_out(whole_lines_only=False)

    def _write_out(self, whole_lines_only: bool) -> None:
        while self.pending:
            end = self.pending.rfind(b"\n", 0, select.PIPE_BUF) + 1
            if len(self.pending) <= select.PIPE_BUF and not whole_lines_only:
                end = len(self.pending)
            elif end == 0:
                if len(self.pending) < select.PIPE_BUF:
                    return      # a line not finished yet
                end = select.PIPE_BUF     # a line longer than PIPE_BUF: no write keeps it whole
            del self.pending[:os.write(self.descriptor, self.pending[:end])]


def _standard_streams() -> List[int]:
    """The standard descriptors that were closed (`>&-`), each now /dev/null: else the next file
    usdt opens, a pipe to bpftrace say, would take its number, and the command would inherit it
    as its own standard output."""
    closed = []
    streams = {0: sys.stdin, 1: sys.stdout, 2: sys.stderr}
    for descriptor, stream in streams.items():
        try:
            os.fstat(descriptor)
        except OSError:
            os.dup2(os.open(os.devnull, os.O_RDWR), descriptor)
        else:
            if stream is not None:
                continue
            # Closed as Python started (it has no stream for it), and taken since by a file
            # it opened: left to that file.
        closed.append(descriptor)
    if 1 in closed:
        sys.stdout = open(os.devnull, "w")
    elif sys.stdout is sys.__stdout__:      # not a test's capture
        sys.stdout.flush()
        sys.stdout = io.TextIOWrapper(_WholeLines(1), encoding=sys.stdout.encoding, errors=sys.stdout.errors,
                                      line_buffering=sys.stdout.line_buffering)
    if 2 in closed:
        sys.stderr = open(os.devnull, "w")
    sys.stderr = _Messages(sys.stderr)
    return closed


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    closed = _standard_streams()
    # `usdt trace ... -- COMMAND ARGS...`: what follows `--` is the command's, not usdt's.
    traced_command: List[str] = []
    if "--" in argv:
        split = argv.index("--")
        argv, traced_command = argv[:split], argv[split + 1:]
    parser = argument_parser()
    if argv[:1] == ["trace"]:
        # Probe patterns may follow options (`usdt trace app -d app.d 'app:*'`): only
        # parse_intermixed_args() accepts that, and it refuses a parser with subcommands.
        args = _parse_intermixed(parser.command_parsers["trace"], argv[1:])
        args.command = "trace"
    else:
        args = parser.parse_args(argv)
    args.traced_command = traced_command
    args.stdout_closed = 1 in closed
    if traced_command and args.command != "trace":
        sys.stderr.write(f"{PROGRAM}: error: only `usdt trace` runs a command given after `--`\n")
        return 2
    try:
        status = args.run(args)
        sys.stdout.flush()
        return status
    except ToolError as error:
        sys.stderr.write(f"{PROGRAM}: error: {error}\n")
        return 1
    except errors.FAILURES as failure:
        # A provider file's problem (-d), where it is: `file:line:col: error: message`.
        errors.report(failure)
        return 1
    except KeyboardInterrupt:
        return 130
    except OutputClosed as closed:
        # As a filter whose reader left: stopped, with the status SIGPIPE gives (128 + 13).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.stderr.write(f"{PROGRAM}: standard output closed: {closed}\n")
        return 128 + signal.SIGPIPE
    except BrokenPipeError:
        # `usdt list ... | head`: the reader left; the rest is nobody's business. Python would
        # report the failed flush at exit, so stdout goes to /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
