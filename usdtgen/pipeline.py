"""The generator's pipeline, which every entry point calls (the command line, usdt-dtrace and
usdt trace -d): read the provider file, preprocess it when it needs it, tokenize, parse, build
the checked model, render the outputs; and the check across the provider files of a target
(compare_target_files). What goes wrong is raised as one of errors.FAILURES,
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
class Generated:
    model: model.ProviderFile
    outputs: Dict[str, str]      # output kind (a key of render.TEMPLATES) -> its text


def generate(path: str, compiler: Sequence[str] = ("cc",), cpp_options: Sequence[str] = (), semaphores: bool = True,
             preprocessing: Preprocessing = Preprocessing.WHEN_DIRECTIVES, kinds: Iterable[str] = tuple(render.TEMPLATES),
             providers_required: bool = True, include_runtime: bool = False) -> Generated:
    """The model of the provider file at `path` and its rendered outputs of `kinds`. Raises one
    of errors.FAILURES. `include_runtime` is render()'s; the other parameters are build_model()'s."""
    provider_file = build_model(path, compiler, cpp_options, semaphores, preprocessing, providers_required)
    return Generated(provider_file, render.render(provider_file, kinds, include_runtime))


@dataclass(frozen=True)
class TargetFile:
    """One provider file of a target, with the preprocessor options its usdt_add_provider call gives it."""
    path: str
    cpp_options: Sequence[str] = ()


def compare_target_files(target_files: Sequence[TargetFile], compiler: Sequence[str] = ("cc",)) -> None:
    """The provider files of one target, in order: a probe declared in two of them, or two that
    would generate the same name, is reported at the later file's probe with a note at the
    earlier one's (checks.check_probes_unique_across_files). A file with an error of its own is
    left out: the rule that generates its header reports it. Raises GeneratorError. A target
    with one file has nothing to compare: it is not read (nor preprocessed) again."""
    if len(target_files) < 2:
        return
    earlier: List[checks.Generated] = []
    for target_file in target_files:
        try:
            provider_file = build_model(target_file.path, compiler, target_file.cpp_options,
                                        preprocessing=preprocessing_for(target_file.cpp_options),
                                        providers_required=False)
        except errors.FAILURES:
            continue
        probes = model.probe_names(provider_file)
        checks.check_probes_unique_across_files(probes, earlier)
        earlier += probes


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
