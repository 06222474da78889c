"""Command line: `python3 -m usdtgen [options] FILE.d`; prints nothing on success.

On any problem in the input it prints `file:line:col: error: ...`, exits 1 and removes the
outputs, so a build never goes on with a stale or half-written header.
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

from . import VERSION, lexer, model, parser, preprocess, render
from .errors import GeneratorError, SourceLocation


def main(argv: Optional[List[str]] = None) -> int:
    arguments = _argument_parser().parse_args(argv)
    outputs = {"header": arguments.header, "source": arguments.source}
    outputs = {kind: Path(path) for kind, path in outputs.items() if path}
    try:
        texts = generate(arguments.input, arguments.cc, arguments.cpp_options, not arguments.no_semaphores)
    except GeneratorError as error:
        _remove(outputs)
        print(error, file=sys.stderr)
        return 1
    except preprocess.PreprocessorFailed as failure:
        _remove(outputs)
        sys.stderr.write(failure.diagnostics)
        return 1
    for kind, path in outputs.items():
        _write_atomically(path, texts[kind])
    return 0


def generate(path: str, compiler: str = "cc", cpp_options: tuple = (), semaphores: bool = True) -> Dict[str, str]:
    """Returns the rendered outputs for the provider file at `path`. Raises GeneratorError.

    `semaphores`: whether probes that no `#pragma usdt` names get a semaphore.
    """
    text = _read_source(path)
    if preprocess.needs_preprocessor(text):
        preprocessed = preprocess.preprocess(path, compiler, cpp_options)
        tokens = preprocess.restore_columns(lexer.tokenize(preprocessed, path))
    else:
        tokens = lexer.tokenize(text, path)
    syntax = parser.parse_tokens(tokens)
    return render.render(model.build(syntax, os.path.basename(path), path, semaphores))


def _read_source(path: str) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise GeneratorError(SourceLocation(path, 1, 1), f"cannot read: {error.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise GeneratorError(SourceLocation(path, line, column),
                             f"not UTF-8 text: byte 0x{data[error.start]:02x}") from None


def _argument_parser() -> argparse.ArgumentParser:
    cli = argparse.ArgumentParser(
        prog="usdtgen", description="Generate USDT probe headers from a DTrace provider file.")
    cli.add_argument("input", help="the provider file (.d)")
    cli.add_argument("--header", metavar="FILE", help="write the C/C++ header here")
    cli.add_argument("--source", metavar="FILE", help="write the semaphore definitions here")
    cli.add_argument("--cc", default="cc", metavar="COMPILER",
                     help="C or C++ compiler driver used as the preprocessor (default: cc)")
    cli.add_argument("--no-semaphores", action="store_true",
                     help="probes get no semaphore unless a '#pragma usdt semaphore' names them")
    cli.add_argument("-I", "-D", "-U", dest="cpp_options", action=_PreprocessorOption, default=[],
                     metavar="ARG", help="passed to the preprocessor, as with dtrace -C")
    cli.add_argument("--version", action="version", version=f"usdtgen {VERSION}")
    return cli


class _PreprocessorOption(argparse.Action):
    def __call__(self, cli, namespace, value, option_string=None):
        getattr(namespace, self.dest).append(option_string + value)


def _write_atomically(path: Path, text: str) -> None:
    """Writes through a temporary file and a rename: readers see the old or the new file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _remove(outputs: Dict[str, Path]) -> None:
    for path in outputs.values():
        try:
            path.unlink()
        except FileNotFoundError:
            pass
