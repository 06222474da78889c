"""`usdt verify FILE [FILE.d ...]`: checks a binary against the probes its .d files declare
(each has a site, with the declared arguments' sizes and signedness) and against what every
tracer needs (contract/checks.py). One compiler-style line per problem on standard error,
nothing on success; exit 1 when there is an error, 0 when there are only warnings.

The .d files are read by the generator's pipeline, as usdt_add_provider reads them.
"""

import argparse
import os
import sys
from typing import List

from .contract import checks
from .files import elf, libraries

# The exit status of a binary that breaks its contract, as of a bad input file.
FAILED = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the executable or shared library to check (a name without a "
                                                     "'/': the file here, else a program on PATH)")
    parser.add_argument("provider_files", nargs="*", metavar="FILE.d",
                        help="the provider files whose probes FILE must have")
    parser.add_argument("--libraries", action="store_true",
                        help="a declared probe may be in a shared library FILE loads; libraries holding one are "
                             "checked too (without FILE.d, every library)")
    parser.add_argument("-I", "-D", "-U", dest="cpp_options", action=_PreprocessorOption, default=[],
                        metavar="ARG", help="passed to the preprocessor of the .d files, as usdt_add_provider's "
                                            "PREPROCESSOR_OPTIONS")
    parser.add_argument("--cc", action="append", metavar="WORD",
                        help="the compiler command that preprocesses a .d file, one word per --cc (default: cc)")


class _PreprocessorOption(argparse.Action):
    def __call__(self, parser, namespace, value, option_string=None):
        getattr(namespace, self.dest).append(option_string + value)


def run(args: argparse.Namespace) -> int:
    from usdtgen import pipeline   # Jinja2, which it imports, is a good part of usdt's start-up (main.py)
    declared = [probe for path in args.provider_files
                for probe in pipeline.build_model(path, args.cc or ["cc"], args.cpp_options,
                                                  preprocessing=pipeline.preprocessing_for(args.cpp_options)).probes]
    # The file here first: a build checks what it just linked (`usdt verify app app.d` in a
    # Makefile), never a program of that name on PATH.
    path = args.file if os.path.exists(args.file) else libraries.find_program(args.file)
    module = elf.read_module(path)
    modules = [module]
    problems: List[checks.Problem] = []
    if args.libraries:
        found = libraries.shared_libraries(path)
        modules += [elf.read_module(library) for library in found.paths]
        problems += [checks.Problem(path, f"{name}, needed by {needer}: not found", error=False)
                     for needer, name in found.missing]
    nowhere = f"{path} or the libraries it loads" if args.libraries else path
    problems += checks.declaration_problems(declared, modules, nowhere)
    problems += checks.undeclared_problems(declared, modules)
    declared_names = {(probe.provider, probe.name) for probe in declared}
    for checked in modules:
        holds_declared = any((probe.provider, probe.name) in declared_names for probe in checked.probes)
        if checked is module or not declared or holds_declared:
            problems += checks.file_problems(checked)
    for problem in problems:
        sys.stderr.write(f"{problem}\n")
    return FAILED if any(problem.error for problem in problems) else 0
