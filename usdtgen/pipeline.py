"""The generator's pipeline, which every entry point calls (the command line, usdt-dtrace and
usdt trace -d): read the provider file, preprocess it when it needs it, tokenize, parse, build
the checked model, render the outputs. What goes wrong is raised as one of errors.FAILURES,
which the entry points report with errors.report().
"""

import enum
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Sequence

from . import checks, errors, lexer, model, parser, preprocess, render
from .errors import GeneratorError, SourceLocation


class Preprocessing(enum.Enum):
    """When the C preprocessor runs over the provider file."""
    WHEN_DIRECTIVES = "when the file has a directive"   # usdt_add_provider, python3 -m usdtgen
    ALWAYS = "always"                                    # dtrace -C, or -D and -U options to reach the file
    NEVER = "never"                                      # usdt-dtrace without -C, as systemtap's dtrace


def preprocessing_for(cpp_options: Sequence[str]) -> Preprocessing:
    """usdt_add_provider's and usdtgen's rule: a -D or -U means something only to the
    preprocessor, so it runs even over a file without directives, as `dtrace -C` does (else
    `-Dreq_id_t=uint64_t` would be ignored)."""
    defines = any(option.startswith(("-D", "-U")) for option in cpp_options)
    return Preprocessing.ALWAYS if defines else Preprocessing.WHEN_DIRECTIVES


@dataclass(frozen=True)
class OtherFile:
    """Another provider file of the same target, with its own preprocessor options: the same
    probe must not be declared in both (checks.check_probes_unique_across_files)."""
    path: str
    cpp_options: Sequence[str] = ()


@dataclass(frozen=True)
class Generated:
    model: model.ProviderFile
    outputs: Dict[str, str]      # output kind (a key of render.TEMPLATES) -> its text


def generate(path: str, compiler: Sequence[str] = ("cc",), cpp_options: Sequence[str] = (), semaphores: bool = True,
             preprocessing: Preprocessing = Preprocessing.WHEN_DIRECTIVES, kinds: Iterable[str] = tuple(render.TEMPLATES),
             providers_required: bool = True, other_files: Sequence[OtherFile] = ()) -> Generated:
    """The model of the provider file at `path` and its rendered outputs of `kinds`. Raises one
    of errors.FAILURES. `other_files`: the target's other provider files (the file itself may
    be among them), whose probes the file must not declare too. The other parameters are
    build_model()'s."""
    provider_file = build_model(path, compiler, cpp_options, semaphores, preprocessing, providers_required)
    checks.check_probes_unique_across_files(model.probe_names(provider_file),
                                            _probes_of(other_files, path, compiler, semaphores))
    return Generated(provider_file, render.render(provider_file, kinds))


def _probes_of(other_files: Sequence[OtherFile], path: str, compiler: Sequence[str],
               semaphores: bool) -> List[checks.Generated]:
    """The probes of `other_files` but `path`, with their generated names. A file with an error
    is left out: the build of that file reports it."""
    probes: List[checks.Generated] = []
    for other in other_files:
        if os.path.abspath(other.path) == os.path.abspath(path):
            continue
        try:
            other_model = build_model(other.path, compiler, other.cpp_options, semaphores,
                                      preprocessing_for(other.cpp_options), providers_required=False)
        except errors.FAILURES:
            continue
        probes += model.probe_names(other_model)
    return probes


def build_model(path: str, compiler: Sequence[str] = ("cc",), cpp_options: Sequence[str] = (), semaphores: bool = True,
                preprocessing: Preprocessing = Preprocessing.WHEN_DIRECTIVES,
                providers_required: bool = True) -> model.ProviderFile:
    """The checked model of the provider file at `path`. Raises one of errors.FAILURES.

    `compiler`: the command, in words, that preprocesses a file with directives.
    `semaphores`: whether probes that no `#pragma usdt` names get a semaphore.
    `preprocessing`: when the preprocessor runs. A file it does not run over is read as
    systemtap's dtrace without -C reads it: a `#` starts a comment to the end of its line.
    `providers_required`: a file that declares no provider is an error (model.build()).
    """
    text = _read_source(path)
    if preprocessing is Preprocessing.ALWAYS or (preprocessing is Preprocessing.WHEN_DIRECTIVES
                                                 and preprocess.needs_preprocessor(text)):
        preprocessed = preprocess.preprocess(path, compiler, cpp_options)
        tokens = preprocess.restore_columns(lexer.tokenize(preprocessed, path, preprocessed=True))
    else:
        tokens = lexer.tokenize(text, path)
    syntax = parser.parse_tokens(tokens)
    return model.build(syntax, os.path.basename(path), path, semaphores, providers_required)


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
