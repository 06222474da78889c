"""Writing outputs: atomically, and not at all when they are unchanged; removing a stale one
after a failure, and nothing else."""

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Iterator


def written_in_place(path: Path) -> bool:
    """Whether `path` is an output that exists and is neither a regular file nor a directory:
    `/dev/null`, `/dev/stdout` (a pipe, a terminal), a FIFO. Such an output is written in place,
    as systemtap's dtrace writes it: never read first (reading `/dev/stdout` when it is a pipe
    reads the command's own output and waits forever), replaced or removed (as root, replacing
    `/dev/null` by a regular file, or removing it, breaks the whole machine)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def remove_stale(path: Path) -> None:
    """Removes the output `path` after a failed run, so that a build cannot go on with one
    from an earlier run, if it is a regular file, which only a run can have made there (an
    output is replaced by a regular file, `replaced_atomically`). Anything else is left as
    it is: what is `written_in_place` (`/dev/null`, which as root a removal would take from the
    whole machine, a FIFO), a directory, a symbolic link the user made."""
    try:
        if stat.S_ISREG(path.lstat().st_mode):
            path.unlink()
    except OSError:
        pass


def write_atomically(path: Path, text: str) -> None:
    """Writes `text` to `path` unless it holds that text already: an unchanged output keeps
    its time stamp, so a build that regenerates it (`touch probes.d`) recompiles nothing."""
    if written_in_place(path):
        with open(path, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        return
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (OSError, UnicodeDecodeError):
        pass
    with replaced_atomically(path) as temporary:
        with open(temporary, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)


@contextlib.contextmanager
def replaced_atomically(output: Path) -> Iterator[Path]:
    """Yields a path to write; on success it replaces `output` in one rename, so readers and
    a build interrupted midway see the old file or the new one, never half of one.

    The path is in a private directory next to `output` (a rename cannot cross file
    systems), where files get the permissions any new file would get (mkstemp's 0600 would
    leave a tracer script built by one user unreadable to the one who runs it). An output
    `written_in_place` is yielded itself.
    """
    if written_in_place(output):
        yield output
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    directory = Path(tempfile.mkdtemp(dir=output.parent, prefix=f".{output.name}."))
    try:
        temporary = directory / output.name
        yield temporary
        os.replace(temporary, output)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
