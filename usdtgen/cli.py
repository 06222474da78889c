"""Command line: `python3 -m usdtgen [options] FILE.d`, and `python3 -m usdtgen --check-unique
FILE.d [--check-unique-option=ARG]... ...` for the provider files of one target; prints nothing
on success.

On any problem in the input it prints `file:line:col: error: ...`, exits 1 and removes the
outputs that are regular files (files.remove_stale), so a build never goes on with a stale or
half-written header; a FIFO or `/dev/null` given as an output stays.
"""

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

from . import VERSION, errors, files, pipeline, render


def main(argv: Optional[List[str]] = None) -> int:
    arguments = _parse_arguments(argv)
    if arguments.check_unique:
        return _check_unique(arguments)
    outputs = {kind: getattr(arguments, kind) for kind in render.TEMPLATES}
    outputs = {kind: Path(path) for kind, path in outputs.items() if path}
    removed_on_error = dict(outputs, depfile=Path(arguments.depfile)) if arguments.depfile else outputs
    with tempfile.TemporaryDirectory(prefix="usdtgen-") as scratch:
        cpp_options = list(arguments.cpp_options)
        if arguments.depfile:
            # The preprocessor lists what the .d file #includes; it only runs for a file with directives.
            listed = Path(scratch, "listed.d")
            cpp_options += ["-MD", "-MF", str(listed), "-MQ", _depfile_target(outputs, arguments)]
        try:
            texts = pipeline.generate(arguments.input, arguments.cc or ["cc"], cpp_options, not arguments.no_semaphores,
                                      preprocessing=pipeline.preprocessing_for(arguments.cpp_options),
                                      kinds=tuple(outputs), include_runtime=arguments.include_runtime).outputs
        except errors.FAILURES as failure:
            for path in removed_on_error.values():
                files.remove_stale(path)
            errors.report(failure)
            return 1
        writes = [(path, texts[kind]) for kind, path in outputs.items()]
        if arguments.depfile:
            dependencies = _listed_dependencies(listed) if listed.exists() else [arguments.input]
            writes.append((Path(arguments.depfile), _depfile_text(
                _depfile_target(outputs, arguments), dependencies)))
        for path, text in writes:
            try:
                files.write_atomically(path, text)
            except OSError as error:
                print(f"usdtgen: error: cannot write {path}: {error.strerror}", file=sys.stderr)
                return 1
    return _touch_stamp(arguments)


def _check_unique(arguments: argparse.Namespace) -> int:
    """usdt_add_provider's rule per target: its provider files, each with its call's options."""
    target_files = [pipeline.TargetFile(path, tuple(options)) for path, options in arguments.check_unique]
    try:
        pipeline.compare_target_files(target_files, arguments.cc or ["cc"])
    except errors.GeneratorError as failure:
        errors.report(failure)
        return 1
    return _touch_stamp(arguments)


def _touch_stamp(arguments: argparse.Namespace) -> int:
    if arguments.stamp:
        try:
            Path(arguments.stamp).touch()
        except OSError as error:
            print(f"usdtgen: error: cannot write {arguments.stamp}: {error.strerror}", file=sys.stderr)
            return 1
    return 0


def _depfile_target(outputs: Dict[str, Path], arguments: argparse.Namespace) -> str:
    # Ninja wants the depfile to name the rule's output: the stamp where there is one (as
    # usdt_add_provider's rule has), else the header.
    target = arguments.stamp or outputs.get("header") or next(iter(outputs.values()), arguments.depfile)
    return os.path.abspath(target)


def _listed_dependencies(listed: Path) -> List[str]:
    """The prerequisites in the preprocessor's `-MF` file, which are relative to the working directory."""
    words = re.findall(r"(?:\\.|[^\s\\])+", listed.read_text(encoding="utf-8").replace("\\\n", " "))
    return [re.sub(r"\\(.)", r"\1", word).replace("$$", "$") for word in words if not word.endswith(":")]


def _depfile_text(target: str, dependencies: List[str]) -> str:
    # Absolute paths: CMake and Make read them the same whatever the generator's working directory was.
    return " \\\n  ".join([_make_escaped(target) + ":",
                            *(_make_escaped(os.path.abspath(path)) for path in dependencies)]) + "\n"


def _make_escaped(path: str) -> str:
    return path.replace("$", "$$").replace(" ", "\\ ").replace("#", "\\#")


def _parse_arguments(argv: Optional[List[str]]) -> argparse.Namespace:
    cli = _argument_parser()
    arguments = cli.parse_args(argv)
    generating = [arguments.input, arguments.depfile, arguments.cpp_options, arguments.no_semaphores,
                  arguments.include_runtime,
                  *(getattr(arguments, kind) for kind in render.TEMPLATES)]
    if arguments.check_unique and any(generating):
        cli.error("--check-unique generates nothing: give it no other FILE.d, output, -I, -D, -U or "
                  "--no-semaphores (a file's preprocessor options are its --check-unique-option)")
    if not arguments.check_unique and arguments.input is None:
        cli.error("the following arguments are required: input")
    return arguments


def _argument_parser() -> argparse.ArgumentParser:
    cli = argparse.ArgumentParser(
        prog="usdtgen", description="Generate USDT probe headers from a DTrace provider file.")
    cli.add_argument("input", nargs="?", help="the provider file (.d)")
    cli.add_argument("--header", metavar="FILE", help="write the C/C++ header here")
    cli.add_argument("--bpftrace", metavar="FILE",
                     help="write a bpftrace script printing every probe with its arguments here (STEM.bt)")
    cli.add_argument("--systemtap", metavar="FILE",
                     help="write a SystemTap script printing every probe with its arguments here (STEM.stp)")
    cli.add_argument("--perf", metavar="FILE",
                     help="write a shell script adding and deleting the probes' perf events here (STEM.perf.sh)")
    cli.add_argument("--depfile", metavar="FILE",
                     help="write a Make-style list of the files the outputs depend on here: the .d file and "
                          "what it #includes")
    cli.add_argument("--cc", action="append", metavar="WORD",
                     help="the C or C++ compiler command that preprocesses, one word per --cc, in order: "
                          "--cc=ccache --cc=gcc --cc=--sysroot=DIR (default: cc)")
    cli.add_argument("--stamp", metavar="FILE",
                     help="touch this file after each successful run, whether or not an output changed")
    cli.add_argument("--include-runtime", action="store_true",
                     help="the header includes usdt's runtime headers (<usdt/usdt_site.h>; in C++ "
                          "<usdt/usdt_cxx_api.h>), which the include path must reach, instead of carrying them")
    cli.add_argument("--no-semaphores", action="store_true",
                     help="probes get no semaphore unless a '#pragma usdt semaphore' names them")
    cli.add_argument("-I", "-D", "-U", dest="cpp_options", action=_PreprocessorOption, default=[],
                     metavar="ARG", help="passed to the preprocessor, as with dtrace -C; a -D or -U runs it "
                                         "over a file without directives too")
    cli.add_argument("--check-unique", dest="check_unique", action=_TargetFile, default=[], metavar="FILE",
                     help="generate nothing; check that no probe is declared in two of the provider files given "
                          "so (the files of one target, in order), nor two would generate the same name")
    cli.add_argument("--check-unique-option", dest="check_unique", action=_TargetFileOption, metavar="ARG",
                     help="a preprocessor option (-I, -D, -U) of the --check-unique file before it: "
                          "--check-unique-option=-DNAME")
    cli.add_argument("--version", action="version", version=f"usdtgen {VERSION}")
    return cli


class _TargetFile(argparse.Action):
    def __call__(self, cli, namespace, value, option_string=None):
        getattr(namespace, self.dest).append((value, []))


class _TargetFileOption(argparse.Action):
    def __call__(self, cli, namespace, value, option_string=None):
        target_files = getattr(namespace, self.dest)
        if not target_files:
            cli.error(f"{option_string} must follow the --check-unique file it is for")
        target_files[-1][1].append(value)


class _PreprocessorOption(argparse.Action):
    def __call__(self, cli, namespace, value, option_string=None):
        getattr(namespace, self.dest).append(option_string + value)
