"""`usdt-dtrace`: systemtap's `dtrace` command line (-h header, -G object) over the generator.

Build systems written for systemtap swap `DTRACE=dtrace` for `DTRACE=usdt-dtrace`:

    usdt-dtrace [-C] [-I DIR] [-D NAME[=VALUE]] [-U NAME] -h -s probes.d [-o probes.h]
    usdt-dtrace [-C] [-I DIR] [-D NAME[=VALUE]] [-U NAME] -G -s probes.d [-o probes.o] [OBJECT...]

-h writes the generator's header, which needs no include path or library. -G compiles, with
$CC $CFLAGS -fPIC -c, an object that defines the semaphores and `.stapsdt.base`, for builds
that link one.
A file that declares no provider, such as the `BEGIN{}` a configure script runs -G on to
test for it, gets a compiler-style warning and an output without probes, and exit status 0,
as systemtap's dtrace gives. The command reads nothing from the name it is run by, so it is
also installed as `dtrace` (<prefix>/libexec/usdt/bin) for builds that search PATH for one.
Options systemtap's dtrace and Solaris dtrace users pass that mean nothing here are
accepted and ignored (IGNORED_OPTIONS). Usage errors print `usdt-dtrace: error: ...` and
exit 2; errors in the provider file print `file:line:col: error: ...` and exit 1, and then
no output file is left behind.
"""

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Tuple

from . import VERSION, errors, files, pipeline
from .errors import SourceLocation

PROGRAM = "usdt-dtrace"

USAGE = (f"usage: {PROGRAM} (-h | -G) -s FILE.d [-o FILE] [-C] [-I DIR] [-D NAME[=VALUE]] [-U NAME] "
         "[OBJECT...]")

HELP = f"""{USAGE}

Generates USDT probes from a DTrace provider file, as systemtap's dtrace does.

  -h            write a C/C++ header with the probe macros (default output: FILE.h)
  -G            compile an object defining the probes' semaphores and .stapsdt.base
                with $CC (default cc) $CFLAGS -fPIC -c (default output: FILE.o)
  -s FILE.d     the provider file
  -o FILE       the output file
  -C            run the C preprocessor over the provider file: $CC (default cc),
                all its words, with the options of $CFLAGS that choose the target
                (--sysroot, --target, -m...) or what it defines and finds (-I, -D,
                -U, -isystem). Without -C, as with systemtap's dtrace, a '#' starts
                a comment to the end of its line ('#pragma usdt' lines excepted)
  -I DIR, -D NAME[=VALUE], -U NAME
                preprocessor options, also passed to the compiler for -G
  -x ARG, -k, -q, -32, -64, -fpic, -fPIC, --types, --no-pyparsing
                accepted for compatibility and ignored
  OBJECT...     object files (`dtrace -G -s FILE.d a.o b.o`) are ignored
  --help        print this help
  --version     print the version

The header is self-contained: it needs no include path and no library. A file
declaring no provider (a configure script's `BEGIN{{}}`) gets a warning and an
output without probes. For builds that look for `dtrace` on PATH, put
<prefix>/libexec/usdt/bin first: its `dtrace` is this command.
"""

# Options that mean something to systemtap's or Solaris' dtrace but nothing here.
IGNORED_OPTIONS = frozenset({"-k", "-q", "-32", "-64", "-fpic", "-fPIC", "--types", "--no-pyparsing"})
# `-x nolibs` and `-xnolibs` (Solaris dtrace compiler options, given by Node.js and others).
IGNORED_OPTIONS_WITH_ARGUMENT = frozenset({"-x"})
# Passed to the preprocessor and the compiler; joined (`-Idir`) or split (`-I dir`).
PREPROCESSOR_OPTIONS = frozenset({"-I", "-D", "-U"})

# The $CFLAGS options that the .d file's preprocessing shares with the -G compile, as
# prefixes: those that choose the target (a cross compiler's --sysroot, clang's --target,
# gcc's -m32 or -march=), and those that set what the preprocessor defines and finds.
TARGET_FLAGS = ("--sysroot", "--target", "-target", "-m")
PREPROCESSOR_FLAGS = ("-I", "-D", "-U", "-isystem")
# $CFLAGS options whose argument can be the next word (`--sysroot DIR`, `-I DIR`), which is
# kept or left out with them (`-Xassembler -mrelax-relocations=no` chooses no target).
SEPARATE_ARGUMENT_FLAGS = frozenset({"--sysroot", "-target", "-I", "-D", "-U", "-isystem", "-include",
                                     "-imacros", "-Xassembler", "-Xlinker", "-Xclang", "-x", "-o",
                                     "-MF", "-MT", "-MQ"})

MODE_OPTIONS = {"-h": "header", "-G": "object"}
DEFAULT_SUFFIXES = {"header": ".h", "object": ".o"}


class UsageError(Exception):
    """A command line that cannot be run; reported with the usage line, exit status 2."""


class ObjectFailed(Exception):
    """The -G object could not be built; the message says why (after the compiler's own)."""


@dataclass
class Invocation:
    mode: str = ""                       # "header" or "object"
    provider_file: str = ""
    output: str = ""
    always_preprocess: bool = False      # -C; without it, no preprocessor, as systemtap's dtrace
    cpp_options: List[str] = field(default_factory=list)
    action: str = "generate"             # or "help", "version"
    compiler: List[str] = field(default_factory=lambda: ["cc"])   # $CC
    flags: List[str] = field(default_factory=list)                # $CFLAGS

    @property
    def preprocessing(self) -> pipeline.Preprocessing:
        return pipeline.Preprocessing.ALWAYS if self.always_preprocess else pipeline.Preprocessing.NEVER

    @property
    def preprocessor(self) -> List[str]:
        """$CC, all of its words (`ccache gcc`, `gcc -m32`), and the options of $CFLAGS that
        choose the target (TARGET_FLAGS): the .d file is preprocessed for the target."""
        return self.compiler + _flags_of(self.flags, TARGET_FLAGS)

    @property
    def preprocessor_options(self) -> List[str]:
        """-I, -D and -U from the command line, then those of $CFLAGS (PREPROCESSOR_FLAGS): the
        -G compile's order."""
        return self.cpp_options + _flags_of(self.flags, PREPROCESSOR_FLAGS)

    @property
    def output_path(self) -> Path:
        """-o as given, or the provider file's base name without its extension + .h or .o."""
        if self.output:
            return Path(self.output)
        stem = os.path.splitext(os.path.basename(self.provider_file))[0]
        return Path(stem + DEFAULT_SUFFIXES[self.mode])


def parse_command_line(argv: Sequence[str], environment: Mapping[str, str]) -> Invocation:
    """Reads systemtap's dtrace options, and $CC and $CFLAGS. Raises UsageError."""
    invocation = Invocation()
    invocation.compiler = _words(environment, "CC") or invocation.compiler
    # Backslash-newlines in CFLAGS come from Makefile line continuations (systemtap's PR21063).
    invocation.flags = _words(environment, "CFLAGS", lambda text: re.sub(r"\\\r?\n", " ", text))
    arguments = iter(argv)

    def value_of(option: str) -> str:
        value = next(arguments, None)
        if value is None:
            raise UsageError(f"option {option} needs an argument")
        return value

    for argument in arguments:
        if argument in ("--help", "--version"):
            invocation.action = argument[2:]
            return invocation
        if argument in MODE_OPTIONS:
            mode = MODE_OPTIONS[argument]
            if invocation.mode and invocation.mode != mode:
                raise UsageError("-h and -G cannot be combined; run usdt-dtrace once for each")
            invocation.mode = mode
        elif argument in ("-s", "-o"):
            value = value_of(argument)
            attribute = "provider_file" if argument == "-s" else "output"
            if getattr(invocation, attribute):
                raise UsageError(f"{argument} given twice")
            setattr(invocation, attribute, value)
        elif argument == "-C":
            invocation.always_preprocess = True
        elif argument[:2] in PREPROCESSOR_OPTIONS:
            option = argument[:2]
            invocation.cpp_options.append(option + (argument[2:] or value_of(option)))
        elif argument in IGNORED_OPTIONS:
            pass
        elif argument[:2] in IGNORED_OPTIONS_WITH_ARGUMENT:
            if len(argument) == 2:
                value_of(argument)
        elif argument.startswith("-") and argument != "-":
            raise UsageError(f"unknown option '{argument}'")
        # Anything else is an object file, as `dtrace -G -s probes.d a.o b.o` passes (Solaris
        # dtrace rewrites them; here the objects need nothing): ignored.
    if not invocation.mode:
        raise UsageError("give -h to generate a header or -G to build an object")
    if not invocation.provider_file:
        raise UsageError("no provider file: give -s FILE.d")
    return invocation


def _flags_of(flags: Sequence[str], prefixes: Tuple[str, ...]) -> List[str]:
    """The options in `flags` that start with one of `prefixes`, each with its argument."""
    chosen: List[str] = []
    words = iter(flags)
    for word in words:
        argument = next(words, None) if word in SEPARATE_ARGUMENT_FLAGS else None
        if word.startswith(prefixes):
            chosen += [word] if argument is None else [word, argument]
    return chosen


def _words(environment: Mapping[str, str], name: str, clean=lambda text: text) -> List[str]:
    try:
        return shlex.split(clean(environment.get(name, "")))
    except ValueError as error:
        raise UsageError(f"${name} is not a valid command line: {error}") from None


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        invocation = parse_command_line(sys.argv[1:] if argv is None else argv, os.environ)
    except UsageError as error:
        print(f"{PROGRAM}: error: {error}\n{USAGE}", file=sys.stderr)
        return 2
    if invocation.action == "help":
        sys.stdout.write(HELP)
        return 0
    if invocation.action == "version":
        print(f"{PROGRAM} (usdt) {VERSION}")
        return 0
    output = invocation.output_path
    try:
        generated = pipeline.generate(invocation.provider_file, invocation.preprocessor,
                                      invocation.preprocessor_options, preprocessing=invocation.preprocessing,
                                      kinds=("header",), providers_required=False)
        if not generated.model.providers:
            # As systemtap's dtrace, a warning: configure scripts test whether -G works on `BEGIN{}`.
            print(f"{SourceLocation(invocation.provider_file, 1, 1)}: warning: no provider declared; "
                  f"the {invocation.mode} defines no probes", file=sys.stderr)
        header = generated.outputs["header"]
        if invocation.mode == "header":
            files.write_atomically(output, header)
        else:
            build_object(header, output, invocation)
    except errors.FAILURES as failure:
        errors.report(failure)
    except ObjectFailed as failure:
        print(f"{PROGRAM}: error: {failure}", file=sys.stderr)
    except OSError as error:
        print(f"{PROGRAM}: error: cannot write {output}: {error.strerror}", file=sys.stderr)
    else:
        return 0
    # A stale output from an earlier run must not let the build go on either.
    files.remove_stale(output)
    return 1


def build_object(header: str, output: Path, invocation: Invocation) -> None:
    """Compiles the header as systemtap's dtrace -G does: $CC -D.. -I.. $CFLAGS -fPIC -c. The
    header defines the semaphores and `.stapsdt.base` itself; this object, for builds that link
    one, defines them too. The header is compiled from standard input, not from a temporary
    file, so the object names no temporary path (its debug information stays reproducible).
    Compiled on its own, as a main file, the header's inline helpers and macros are unused,
    which $CFLAGS like `-Weverything -Werror` or `-Wunused-macros -Werror` would make errors
    pointing into standard input: -w, after $CFLAGS (code that includes the header gets its
    warnings as usual). Raises ObjectFailed.
    """
    compiler = invocation.compiler
    with files.replaced_atomically(output) as temporary:
        command = [*compiler, *invocation.cpp_options, *invocation.flags,
                   "-w", "-fPIC", "-x", "c", "-c", "-", "-o", str(temporary)]
        try:
            result = subprocess.run(command, input=header, text=True, check=False)
        except OSError as error:
            raise ObjectFailed(f"cannot run the C compiler '{compiler[0]}': {error.strerror}") from None
        if result.returncode != 0:
            raise ObjectFailed(f"'{compiler[0]}' failed to compile the semaphores for {output} "
                               f"(exit status {result.returncode})")


