"""Runs the generator on fuzzer inputs and judges each result against the contract:

    every input ends in generated code that compiles, or in one `file:line:col: error:`
    line (or the C preprocessor's own diagnostics); never a traceback, a hang, or output
    that carries anything but plain identifiers from the input into C or assembler text.

The generator runs in-process (`usdtgen.pipeline.generate`) inside a child process, so that a
hang is cut off by a timeout and a memory blow-up by an address-space limit, and the
fuzzer survives both to report them.
"""

import hashlib
import multiprocessing
import os
import re
import resource
import subprocess
import traceback
import types
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

ERROR_LINE = re.compile(r"[^\n\r]+:\d+:\d+: error: [^\n\r]+")
# GCC leaves the column out of some diagnostics (`unterminated #if`).
DIAGNOSTIC_ERROR_LINE = re.compile(r"^[^\n]+:\d+(?::\d+)?: (?:fatal )?error: ", re.MULTILINE)
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Printable ASCII and newlines: what generated text may contain, given an ASCII file name.
GENERATED_TEXT = re.compile(r"[\x20-\x7e\n]*")
# A probe site in the header, one per probe (in its _USDT_SITE_ macro, which the C macro and the
# C++ function expand): `_USDT_SITE("p", "name", "semaphore", "semaphore", "m"(semaphore), _USDT_SPEC_p_name, \`.
SITE_LINE = re.compile(r'^\s*_USDT_SITE\(("[^"]*", .*)$', re.MULTILINE)
# Its last line: the `.note.usdt` strings, one C string literal that is the operands of an
# `.asciz`, `"\"fuzz.d\", \"name\", \"declared type\", \"kind\"...")`.
DESCRIPTION_LINE = re.compile(r'^\s*("\\"(?:[^"\\\n]|\\.)*")\)$', re.MULTILINE)
# Names, declared types, kinds and the file name, each quoted for the assembler; anything else
# octal-escaped for the asm template (`\173`, in the C literal `\\173`).
_DESCRIPTION_STRING = r'\\"(?:[A-Za-z0-9_ .*:/+-]|\\\\[0-7]{3})*\\"'
DESCRIPTION = re.compile(rf'"{_DESCRIPTION_STRING}(?:, {_DESCRIPTION_STRING})*"')
STRING_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# What the provider, probe and semaphore names in a site's strings may be made of.
SITE_STRING = re.compile(r"[A-Za-z0-9_]*")
# Each probe's argument specs, defined once, as the runtime spells each argument's for the target:
# `#define _USDT_SPEC_p_x _USDT_ARGSPEC(i32, 0) " " _USDT_ARGSPEC(address, 1)`, or `""`.
SPEC_DEFINITION = re.compile(r'^#define (_USDT_SPEC_\w+) (.*)$', re.MULTILINE)
SPEC_NAME = re.compile(r"\b_USDT_SPEC_\w+")
ARGUMENT_SPEC = re.compile(r"_USDT_ARGSPEC\((i8|u8|i16|u16|i32|u32|i64|u64|word|uword|flag|address), (\d+)\)")
ARGUMENT_C_TYPES = re.compile(r"(?:(?:unsigned |signed )?(?:char|short|int|long|long long)|"
                              r"u?int(?:8|16|32|64|ptr|max)_t|s?size_t|ptrdiff_t|[pug]id_t|mode_t|off_t|"
                              r"time_t|bool|const char \*|const volatile void \*)")

STEM = "fuzz"
INPUT_NAME = STEM + ".d"


@dataclass
class Outcome:
    kind: str                     # generated, error, preprocessor, crash, hang, died
    detail: str = ""              # the message, diagnostics or traceback
    texts: Dict[str, str] = field(default_factory=dict)
    providers: List[dict] = field(default_factory=list)   # what the model declares, for compiling uses


class GeneratorProcess:
    """A child process that runs usdtgen.pipeline.generate on inputs, one after the other."""

    def __init__(self, directory: Path, timeout: float = 10.0, memory_limit: int = 2 << 30):
        self.directory = directory
        self.timeout = timeout
        self.memory_limit = memory_limit
        self._context = multiprocessing.get_context("fork")
        self._process = None
        self._connection = None

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()

    def run(self, data: bytes, semaphores: bool = True, name: str = INPUT_NAME) -> Outcome:
        return next(self.run_many([(data, semaphores, name)]))

    def run_many(self, requests: Sequence[Tuple[bytes, bool, str]]) -> Iterator[Outcome]:
        """One outcome per (data, semaphores, file name). The child works through the list
        without waiting for the parent (a round trip per input costs more than most inputs
        do); after a hang or a death, a new child goes on with the rest."""
        pending = list(requests)
        while pending:
            if self._process is None:
                self._start()
            self._connection.send(pending)
            for index in range(len(pending)):
                outcome = self._receive()
                yield outcome
                if outcome.kind in ("hang", "died"):
                    pending = pending[index + 1:]
                    break
            else:
                pending = []

    def _receive(self) -> Outcome:
        if not self._connection.poll(self.timeout):
            self._kill()
            return Outcome("hang", f"no result within {self.timeout:g} s")
        try:
            kind, detail, texts, providers = self._connection.recv()
        except EOFError:
            code = self._kill()
            return Outcome("died", f"the generator's process died (exit status {code})")
        return Outcome(kind, detail, texts, providers)

    def close(self):
        if self._process is not None:
            self._connection.send(None)
            self._process.join(5)
            self._kill()

    def _start(self):
        self._connection, child_end = self._context.Pipe()
        self._process = self._context.Process(
            target=_serve, args=(child_end, self.directory, self.memory_limit), daemon=True)
        self._process.start()
        child_end.close()

    def _kill(self) -> Optional[int]:
        process, self._process = self._process, None
        if process.is_alive():
            process.kill()
        process.join()
        self._connection.close()
        return process.exitcode


def _serve(connection, directory: Path, memory_limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    from usdtgen import errors, pipeline, preprocess, render
    _share_template_environment(render)
    rendered = []
    render_model = render.render

    def capture(model, *arguments, **keywords):
        rendered.append(model)
        return render_model(model, *arguments, **keywords)

    # The model behind the output tells the fuzzer which probes to call when compiling it.
    render.render = capture
    while True:
        requests = connection.recv()
        if requests is None:
            return
        for data, semaphores, name in requests:
            path = directory / name
            path.write_bytes(data)
            rendered.clear()
            try:
                texts = pipeline.generate(str(path), semaphores=semaphores).outputs
                result = ("generated", "", texts, describe(rendered[-1]))
            except errors.GeneratorError as error:
                result = ("error", str(error), {}, [])
            except preprocess.PreprocessorFailed as failure:
                result = ("preprocessor", failure.diagnostics, {}, [])
            except BaseException:    # RecursionError, MemoryError...: what cli.main would print as a traceback
                result = ("crash", traceback.format_exc(), {}, [])
            connection.send(result)


def _share_template_environment(render_module) -> None:
    """render() builds a jinja2 Environment, and so compiles every template, per call, which
    costs more than rendering a small model; the fuzzer renders thousands of models, so equal
    settings share one Environment."""
    import jinja2
    environments = {}

    def shared_environment(**settings):
        key = repr(sorted((name, getattr(value, "searchpath", value)) for name, value in settings.items()))
        if key not in environments:
            environments[key] = jinja2.Environment(**settings)
        return environments[key]

    render_module.jinja2 = types.SimpleNamespace(**{**vars(jinja2), "Environment": shared_environment})


def describe(model) -> List[dict]:
    """The names and argument kinds of a usdtgen model, as plain data."""
    return [{
        "name": provider.name,
        "namespace": provider.cxx_namespace,
        "probes": [{
            "name": probe.name,
            "macro": probe.macro_name,
            "enabled_macro": probe.enabled_macro_name,
            "semaphore": probe.semaphore_name if probe.has_semaphore else None,
            "cxx": probe.cxx_name,
            "arguments": [{"kind": argument.type.kind.note_spelling, "c_type": argument.type.c_type, "name": argument.name}
                          for argument in probe.arguments],
        } for probe in provider.probes],
    } for provider in model.providers]


def problem(outcome: Outcome) -> Optional[str]:
    """What breaks the contract in this outcome, or None."""
    if outcome.kind in ("crash", "hang", "died"):
        return f"{outcome.kind}: {outcome.detail}"
    if outcome.kind == "error":
        if not ERROR_LINE.fullmatch(outcome.detail):
            return f"not one 'file:line:col: error: message' line: {outcome.detail!r}"
        return None
    if outcome.kind == "preprocessor":
        if not DIAGNOSTIC_ERROR_LINE.search(outcome.detail):
            return f"preprocessor failure without a 'file:line:col: error:' line: {outcome.detail!r}"
        return None
    return injection_problem(outcome)


def injection_problem(outcome: Outcome) -> Optional[str]:
    """Anything from the input that reached the output other than as a plain identifier."""
    for provider in outcome.providers:
        names = [provider["name"], provider["namespace"]]
        for probe in provider["probes"]:
            names += [probe["name"], probe["macro"], probe["enabled_macro"], probe["cxx"],
                      probe["semaphore"] or "x"]
            names += [argument["name"] for argument in probe["arguments"]]
            for argument in probe["arguments"]:
                if not ARGUMENT_C_TYPES.fullmatch(argument["c_type"]):
                    return f"argument C type {argument['c_type']!r} is not one of the generator's own"
        for name in names:
            if not IDENTIFIER.fullmatch(name):
                return f"generated name {name!r} is not a C identifier"
    for kind, text in outcome.texts.items():
        if not GENERATED_TEXT.fullmatch(text):
            bad = next(c for c in text if not GENERATED_TEXT.fullmatch(c))
            return f"generated {kind} contains {bad!r}"
    sites = SITE_LINE.findall(outcome.texts["header"])
    if len(sites) != sum(len(provider["probes"]) for provider in outcome.providers):
        return f"{len(sites)} probe sites in the header for the model's probes"
    for site in sites:
        for literal in STRING_LITERAL.findall(site):
            if not SITE_STRING.fullmatch(literal):
                return f"probe site string {literal!r} holds more than names"
    definitions = SPEC_DEFINITION.findall(outcome.texts["header"])
    used = [name for site in sites for name in SPEC_NAME.findall(site)]
    defined = Counter(name for name, _ in definitions)
    counts = {name: defined[name] for name in used}
    per_site = set(counts.values())
    if len(used) != len(sites) or per_site != {1} or sum(counts.values()) != len(definitions):
        return f"argument spec definitions {counts} for {len(sites)} sites: not each site's, once"
    for _, spec in definitions:
        specs = spec.split(' " " ') if spec != '""' else []
        matches = [ARGUMENT_SPEC.fullmatch(one) for one in specs]
        if not all(matches) or [int(match[2]) for match in matches] != list(range(len(specs))):
            return f"argument specs {spec!r} are not each argument's, in order"
    descriptions = DESCRIPTION_LINE.findall(outcome.texts["header"])
    if len(descriptions) != len(sites):
        return f"{len(descriptions)} site descriptions in the header for {len(sites)} sites"
    for description in descriptions:
        if not DESCRIPTION.fullmatch(description):
            return f"site description {description!r} could break out of the asm template"
    return None


def output_key(outcome: Outcome) -> str:
    return hashlib.sha256("\0".join(outcome.texts[kind] for kind in sorted(outcome.texts)).encode()).hexdigest()


# Compiling generated code.

@dataclass(frozen=True)
class Compiler:
    command: str
    language: str          # c or c++
    standard: str

    def __str__(self):
        return f"{self.command} -std={self.standard}"


# C as CMake's C_EXTENSIONS OFF builds it; C++ in the GNU dialect, CMake's default, which
# also predefines `linux` and `unix`.
DEFAULT_COMPILERS = (Compiler("gcc", "c", "c99"), Compiler("g++", "c++", "gnu++11"))
MORE_COMPILERS = (Compiler("clang", "c", "gnu11"), Compiler("clang++", "c++", "c++17"))
WARNINGS = ("-Wall", "-Wextra", "-Wpedantic", "-Werror")


def write_case(directory: Path, outcome: Outcome, stem: str = STEM) -> None:
    """The generated header, `stem`.h as the input file's name makes it, and one translation
    unit per language that includes it and calls every probe macro and C++ function."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{stem}.h").write_text(outcome.texts["header"])
    (directory / "use.c").write_text(use_program(outcome.providers, f"{stem}.h", cxx=False))
    (directory / "use.cpp").write_text(use_program(outcome.providers, f"{stem}.h", cxx=True))


def compile_case(directory: Path, compiler: Compiler) -> Optional[str]:
    """Compiles (and assembles: the notes are assembler text) one case; the diagnostics, or None.
    No include path but the case's own: the header is self-contained."""
    source = "use.cpp" if compiler.language == "c++" else "use.c"
    command = [compiler.command, f"-std={compiler.standard}", *WARNINGS,
               "-I", str(directory), "-c", source, "-o", os.devnull]
    result = subprocess.run(command, cwd=directory, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return f"{compiler} failed:\n{result.stderr[:3000]}"
    return None


# A name the generator cannot produce from the names the fuzzer writes.
_USE_FUNCTION = "usdt_fuzz_calls_every_probe"
_C_VALUES = {"integer": "0", "bool": "0", "string": '""', "pointer": "(const volatile void *)0"}


def use_program(providers: Sequence[dict], include: str, cxx: bool) -> str:
    """A translation unit that includes `include` and calls every probe of `providers`
    (describe()'s data) through the macros and, in C++, through the C++ API."""
    lines = [f'#include "{include}"', f"void {_USE_FUNCTION}(void);", f"void {_USE_FUNCTION}(void) {{"]
    for provider in providers:
        for probe in provider["probes"]:
            values = ", ".join(_C_VALUES[argument["kind"]] for argument in probe["arguments"])
            lines.append(f"    if ({probe['enabled_macro']}()) {{ {probe['macro']}({values}); }}")
            if not cxx:
                continue
            namespace = provider["namespace"]
            values = ", ".join(_cxx_value(argument) for argument in probe["arguments"])
            lines.append(f"    {namespace}::{probe['cxx']}({values});")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _cxx_value(argument: dict) -> str:
    return {"integer": f"static_cast<{argument['c_type']}>(0)", "bool": "false", "string": '""',
            "pointer": "nullptr"}[argument["kind"]]
