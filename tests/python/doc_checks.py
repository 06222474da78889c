"""What test_docs.py checks in the documents (README.md, docs/*.md): the quotes they hold
(code spans, links, code block lines) and, for each kind of fact they quote, the problems
found, one line each naming the document and line. The checks take the quotes or texts as
arguments, so that the tests can also run them on stale text.
"""

import fnmatch
import re
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Set, Tuple

REPOSITORY = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
MODULE = REPOSITORY / "cmake" / "usdtAddProvider.cmake"
INSTALLED_FILES = REPOSITORY / "tests" / "package" / "installed-files.txt"
RUNTIME_HEADERS = sorted(path for path in (REPOSITORY / "runtime" / "include").rglob("*") if path.is_file())
# Where usdt's own code is: what a quoted USDT_ name must be spelt in.
CODE = ["CMakeLists.txt", "cmake", "runtime", "templates", "usdtgen", "usdttool", "bin"]
INSTALL_DIRECTORIES = {"share", "libexec", "include", "bin"}
# These checks and their tests, which spell stale names on purpose.
THESE_CHECKS = {Path(__file__).resolve(), Path(__file__).resolve().with_name("test_docs.py")}


@dataclass(frozen=True)
class Quote:
    """A piece of a document: a code span, a link target or a code block's line."""
    document: str
    line: int
    text: str
    kind: str       # "span", "link" or "block"
    recorded: bool  # in an output a test records (a cookbook sample)
    section: str    # the heading above it

    def __str__(self):
        return f"{self.document}:{self.line}: {self.text!r}"


def quotes(document: str, text: str) -> Iterator[Quote]:
    """The code spans (which may wrap lines), link targets and code block lines of `text`."""
    lines = text.split("\n")
    section, block, recorded, after_recipe = "", None, False, False
    paragraph: List[tuple] = []   # (line number, text) of the current paragraph

    def flush():
        joined = " ".join(part for _, part in paragraph)
        starts = []
        offset = 0
        for number, part in paragraph:
            starts.append((offset, number))
            offset += len(part) + 1

        def line_of(position):
            return max(number for start, number in starts if start <= position)
        for match in re.finditer(r"(`+)(.+?)\1", joined):
            yield Quote(document, line_of(match.start()), match.group(2).strip(), "span", False, section)
        for match in re.finditer(r"\]\(([^)\s]+)\)", joined):
            yield Quote(document, line_of(match.start()), match.group(1), "link", False, section)
        paragraph.clear()

    for number, line in enumerate(lines, 1):
        if block is not None:
            if line.lstrip().startswith("```"):
                block, recorded = None, False
            else:
                yield Quote(document, number, line, "block", recorded, section)
            continue
        if line.lstrip().startswith("```"):
            yield from flush()
            block = line.lstrip()[3:].strip()
            recorded = after_recipe and block == "text"
            continue
        if line.startswith("<!-- recipe:"):
            after_recipe = True
        elif line.startswith("#"):
            section = line.lstrip("#").strip()
            after_recipe = False
        if not line.strip():
            yield from flush()
        else:
            paragraph.append((number, line))
    yield from flush()


def all_quotes() -> List[Quote]:
    return [quote for path in DOCUMENTS
            for quote in quotes(str(path.relative_to(REPOSITORY)), path.read_text(encoding="utf-8"))]


# ---- paths

TREE_ENTRIES = {path.name for path in REPOSITORY.iterdir()
                if not path.name.startswith(("build", ".git"))}
PATH = re.compile(r"(?:\.\./|\./)*(?:<prefix>/)?[\w.-]+(?:/[\w.*-]*)+")


def installed_files() -> List[str]:
    return [line.strip().replace("TAG", "*") for line in INSTALLED_FILES.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def path_problem(path: str, installed: List[str]) -> str:
    """Why `path`, quoted as a path of the tree or of an install, does not exist; '' if it does."""
    path = re.sub(r"^(?:\.\./|\./)+", "", path.split("#")[0]).rstrip("/")
    installed_path = path.startswith("<prefix>/")
    path = path.replace("<prefix>/", "")
    first = path.split("/")[0]
    if not path or (first not in TREE_ENTRIES and first not in INSTALL_DIRECTORIES):
        return ""
    if first in TREE_ENTRIES and not installed_path and list(REPOSITORY.glob(path)):
        return ""
    if first in INSTALL_DIRECTORIES:
        if "usdt" not in path:
            return ""   # another package's: include/mylib.h
        if any(fnmatch.fnmatch(file, path) or fnmatch.fnmatch(file, path + "/*") for file in installed):
            return ""
        return f"{path} is neither in the tree nor in tests/package/installed-files.txt"
    return f"{path} is not in the tree"


def path_problems(quotes_: List[Quote]) -> List[str]:
    installed = installed_files()
    problems = []
    templates = {path.name for path in (REPOSITORY / "templates").glob("*.j2")}
    tree_names = {path.name for entry in CODE + ["tests", "bench"] for path in (REPOSITORY / entry).rglob("*.py")}
    for quote in quotes_:
        if quote.kind == "link" and re.match(r"\w+:", quote.text):
            continue   # https: and mailto: links
        words = [quote.text] if quote.kind == "link" else quote.text.replace(",", " ").split()
        for word in words:
            word = word.strip("()'\"`;:")
            if "<" in word.replace("<prefix>/", "") or "…" in word or "..." in word:
                continue   # a pattern: <target>.usdt/, build/tests-SUITE...
            if PATH.fullmatch(word):
                problem = path_problem(word, installed)
                if problem:
                    problems.append(f"{quote}: {problem}")
            elif word.endswith(".j2") and word not in templates:
                problems.append(f"{quote}: no template {word} in templates/")
            elif (quote.kind == "block" and not quote.recorded and re.fullmatch(r"\w+\.py", word)
                  and word not in tree_names):
                problems.append(f"{quote}: no module {word} in the tree")
    return problems


def slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def link_problems(quotes_: List[Quote]) -> List[str]:
    """Links to the tree: the file exists, relative to the document, and so does the heading
    an anchor names."""
    problems = []
    for quote in quotes_:
        if quote.kind != "link" or re.match(r"[a-z]+:", quote.text):
            continue
        target, _, anchor = quote.text.partition("#")
        path = (REPOSITORY / quote.document).parent / target if target else REPOSITORY / quote.document
        if not path.exists():
            problems.append(f"{quote}: no file {target} beside {quote.document}")
        elif anchor and path.suffix == ".md":
            anchors = {slug(line.lstrip("#")) for line in path.read_text(encoding="utf-8").splitlines()
                       if re.match(r"#+ ", line)}
            if anchor not in anchors:
                problems.append(f"{quote}: {path.name} has no heading #{anchor}")
    return problems


def code_files() -> Dict[str, str]:
    """usdt's code, tests and packaging, this file aside, by path."""
    files = [path for entry in CODE + ["tests", "debian"] for path in
             ([REPOSITORY / entry] if (REPOSITORY / entry).is_file() else (REPOSITORY / entry).rglob("*"))
             if path.is_file() and "__pycache__" not in path.parts and path.resolve() not in THESE_CHECKS]
    return {str(path.relative_to(REPOSITORY)): path.read_text(encoding="utf-8", errors="replace") for path in files}


def code_reference_problems(files: Dict[str, str]) -> List[str]:
    """usdt's code and tests point to the documents (`docs/internals.md ("Targets")`): each
    document named exists, and so does a heading quoted right after its name."""
    problems = []
    for path, text in files.items():
        # A heading is quoted past a separator (`docs/cmake.md, "Keywords"`): a quote right after
        # the name ends the string literal that holds it.
        for match in re.finditer(r"docs/([\w-]+\.md)(?![\w.])(?:[^\"\n]{1,20}\"([^\"\n]+)\")?", text):
            document = REPOSITORY / "docs" / match.group(1)
            where = f"{path}:{text.count(chr(10), 0, match.start()) + 1}"
            if not document.is_file():
                problems.append(f"{where}: no document docs/{match.group(1)}")
            elif match.group(2):
                headings = {line.lstrip("#").strip().replace("`", "") for line in
                            document.read_text(encoding="utf-8").splitlines() if re.match(r"#+ ", line)}
                if match.group(2).replace("`", "") not in headings:
                    problems.append(f"{where}: docs/{match.group(1)} has no heading {match.group(2)!r}")
    return problems


# ---- code names

def code_text() -> str:
    """usdt's code and its tests' (which read the USDT_ variables of the environment), this file aside."""
    files = []
    for entry in CODE + ["tests"]:
        path = REPOSITORY / entry
        files += [path] if path.is_file() else [file for file in path.rglob("*") if file.is_file()
                                                 and "__pycache__" not in file.parts and file.resolve() not in THESE_CHECKS]
    return "\n".join(file.read_text(encoding="utf-8", errors="replace") for file in files)


def exported_targets() -> Set[str]:
    """The targets find_package(usdt) gives: the exported ones (install(TARGETS ... EXPORT)
    of targets whose EXPORT_NAME the runtime sets) and those the configuration adds."""
    text = (REPOSITORY / "runtime" / "CMakeLists.txt").read_text() + (REPOSITORY / "cmake" / "usdtConfig.cmake.in").read_text()
    return set(re.findall(r"EXPORT_NAME\s+(\w+)", text)) | set(re.findall(r"add_library\(usdt::(\w+)", text))


def code_name_problems(quotes_: List[Quote]) -> List[str]:
    code = code_text()
    runtime = "\n".join(path.read_text() for path in RUNTIME_HEADERS)
    targets = exported_targets()
    checks = set(re.findall(r"^def (check_\w+)", "\n".join(path.read_text() for path in (REPOSITORY / "usdtgen").glob("*.py")), re.MULTILINE))
    problems = []
    for quote in quotes_:
        if quote.kind == "link":
            continue
        for name in re.findall(r"(?<![\w$])(_?USDT_\w+|_usdt_\w+)", quote.text):
            if not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", code):
                problems.append(f"{quote}: {name} is in none of usdt's code ({', '.join(CODE)}) or tests")
        if "Rust" not in quote.section:
            for name in re.findall(r"(?<![\w#\[])usdt::(\w+)", quote.text):
                if name not in targets and not re.search(rf"\b{name}\b", runtime):
                    problems.append(f"{quote}: usdt::{name} is neither a target of the package ({sorted(targets)}) "
                                    "nor a name of the runtime headers")
        if quote.kind == "span":
            for name in re.findall(r"^(check_\w+)$", quote.text):
                if name not in checks:
                    problems.append(f"{quote}: no check {name} in usdtgen/")
    return problems


# ---- usdt_add_provider's keywords

def parsed_keywords() -> Set[str]:
    match = re.search(r"cmake_parse_arguments\(PARSE_ARGV \d+ \w+((?:\s+\"[^\"]*\")+)\)", MODULE.read_text())
    return {keyword for group in re.findall(r"\"([^\"]*)\"", match.group(1)) for keyword in group.split(";") if keyword}


def calls(text: str) -> Iterator[str]:
    """The argument lists of the usdt_add_provider calls in `text`."""
    for match in re.finditer(r"usdt_add_provider\(", text):
        depth, end = 1, match.end()
        while end < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        yield text[match.end():end - 1]


def keyword_problems(documents: Dict[str, str], module_comment: str) -> List[str]:
    keywords = parsed_keywords()
    problems = []
    for name, text in documents.items():
        for arguments in calls(text):
            arguments = re.sub(r"\$\{[^}]*\}|\"[^\"]*\"|#[^\n]*|``?[^`]*``?", " ", arguments)
            for word in re.findall(r"(?<![\w-])[A-Z][A-Z_]{2,}\b", arguments):
                if word not in keywords:
                    problems.append(f"{name}: usdt_add_provider(... {word} ...): the module parses no "
                                    f"keyword {word} (it parses {sorted(keywords)})")
    for keyword in sorted(keywords):
        if f"\n``{keyword}``\n" not in module_comment:
            problems.append(f"{MODULE.name}: its top comment documents no ``{keyword}``, which it parses")
    return problems


# ---- usdt's options

def usdt_options(usdt: str) -> Set[str]:
    """The options of `usdt` and each of its commands, from their --help."""
    options = set()
    for command in ([], ["list"], ["trace"], ["verify"], ["diff"]):
        result = subprocess.run([usdt, *command, "--help"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            raise AssertionError(f"usdt {' '.join(command)} --help exited {result.returncode}:\n{result.stdout}")
        options |= set(re.findall(r"(?<![\w-])--[a-z][\w-]*", result.stdout))
    return options


def usdt_dtrace_options(usdt_dtrace: str) -> Set[str]:
    """usdt-dtrace's options, from its --help."""
    result = subprocess.run([usdt_dtrace, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        raise AssertionError(f"usdt-dtrace --help exited {result.returncode}:\n{result.stdout}")
    return set(re.findall(r"(?<![\w-])--?[A-Za-z0-9][\w-]*", result.stdout))


def dtrace_option_problems(quotes_: List[Quote], options: Set[str]) -> List[str]:
    """A quoted dtrace command line (`usdt-dtrace -h ...`, or systemtap's, which usdt-dtrace
    stands in for) uses only options usdt-dtrace takes."""
    problems = []
    for quote in quotes_:
        if quote.kind == "link" or quote.recorded:
            continue
        for command in re.findall(r"(?:^|[\s;&|(])(?:(?:usdt-)?dtrace|\$\(DTRACE\))((?: +-[^\s;&|`]*(?: +[^-\s;&|`][^\s;&|`]*)*)+)", quote.text):
            for option in re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", command.split(" #")[0]):
                if option not in options:
                    problems.append(f"{quote}: usdt-dtrace takes no option {option} (usdt-dtrace --help)")
    return problems


def option_problems(quotes_: List[Quote], options: Set[str]) -> List[str]:
    problems = []
    for quote in quotes_:
        if quote.kind == "link":
            continue
        quoted = []
        for command in re.findall(r"(?:^|[;&|(]\s*|\$ )usdt (?:list|trace|verify|diff)\b([^;&|`]*)", quote.text):
            quoted += re.findall(r"(?<![\w-])--[a-z][\w-]*", command.split(" -- ")[0])
        if quote.document == "docs/tracing.md" and quote.kind == "span":
            quoted += re.findall(r"^(--[a-z][\w-]*)(?:[ =].*)?$", quote.text)
        problems += [f"{quote}: usdt has no option {option} (usdt --help, usdt COMMAND --help)"
                     for option in quoted if option not in options]
    return problems


# ---- lines

def static_assertion_messages() -> Set[str]:
    messages = set()
    for header in RUNTIME_HEADERS:
        for match in re.finditer(r"static_assert\([^\"]*((?:\"(?:[^\"\\]|\\.)*\"\s*)+)\)", header.read_text()):
            messages.add("".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", match.group(1))))
    return messages


def line_problems(documents: Dict[str, str], quotes_: List[Quote]) -> List[str]:
    problems = []
    for quote in quotes_:
        if quote.recorded or quote.kind == "link":
            continue
        for file, line in re.findall(r"(?<![\w/.-])([\w./-]+\.(?:h|hpp|c|cpp|py|cmake|j2|txt)):(\d+)(?::\d+)?:", quote.text + ":"):
            tree_file = REPOSITORY / file
            if tree_file.is_file():
                if int(line) > len(tree_file.read_text().splitlines()):
                    problems.append(f"{quote}: {file} has no line {line}")
            elif file.endswith((".h", ".hpp")):
                problems.append(f"{quote}: {file}:{line} is a generated header's line, which moves with "
                                f"every change to the runtime header; write {file}:…")
    messages = static_assertion_messages()
    for name, text in documents.items():
        for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.DOTALL):
            for match in re.finditer(r"static assertion failed: (.*?)(?=\n\S+:\d|\n\S+: |\Z)", block, re.DOTALL):
                message = " ".join(match.group(1).split())
                if message not in messages:
                    problems.append(f"{name}: the quoted 'static assertion failed: {message[:60]}...' is no "
                                    "message of the runtime headers")
    return problems


def module_comment() -> str:
    text = MODULE.read_text()
    return text[:text.index("#]=")]


# ---- the runtime's mechanics

MECHANICS_PROVIDER = "provider myapp {\n    probe request__start(uint64_t id, const char *path);\n};\n"
MECHANICS_USER = """#include "probes.h"
int docs_enabled(void) { return MYAPP_REQUEST_START_ENABLED(); }
void docs_fire(const char *path) { MYAPP_REQUEST_START(1, path); }
"""


@dataclass(frozen=True)
class Mechanics:
    """How a generated header's probe works when compiled here, read from what the C
    preprocessor expands MECHANICS_USER to: what the documents' sentences on it must agree with."""
    enabled_check: str           # how PROBE_ENABLED() reads the semaphore: "asm goto" or "volatile read"
    site_checks_semaphore: bool  # whether the site of a probe with a string argument tests the semaphore


def function_body(source: str, name: str) -> str:
    """The body of C function `name` in `source`, braces in string literals (asm templates) aside."""
    match = re.search(rf"\b{name}\s*\([^)]*\)\s*\{{", source)
    if not match:
        raise AssertionError(f"no function {name} in the preprocessed header")
    depth, end = 1, match.end()
    while depth:
        if source[end] == '"':
            end = re.compile(r'"(?:[^"\\]|\\.)*"').match(source, end).end()
            continue
        depth += {"{": 1, "}": -1}.get(source[end], 0)
        end += 1
    return source[match.end():end - 1]


def runtime_mechanics(usdt_dtrace: str, compiler: str = "cc") -> Mechanics:
    """The mechanics of a header usdt-dtrace generates, as `compiler` preprocesses it."""
    with tempfile.TemporaryDirectory() as directory:
        (Path(directory) / "probes.d").write_text(MECHANICS_PROVIDER)
        (Path(directory) / "user.c").write_text(MECHANICS_USER)
        for command in ([usdt_dtrace, "-h", "-s", "probes.d", "-o", "probes.h"], [compiler, "-E", "-P", "user.c"]):
            result = subprocess.run(command, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if result.returncode != 0:
                raise AssertionError(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout}")
    source = result.stdout
    expression = " ".join(re.fullmatch(r"\s*return\s+(.*);\s*", function_body(source, "docs_enabled"), re.DOTALL)
                          .group(1).split())
    called = re.match(r"[(\s]*(\w+)\s*\(", expression)
    if called and re.search(r"\basm\b[\w\s]*\bgoto\b|\b__asm__\b[\w\s]*\bgoto\b", function_body(source, called.group(1))):
        enabled_check = "asm goto"
    elif (re.fullmatch(r"[(\s]*myapp_request__start_semaphore[)\s]*!= 0[)\s]*", expression)
          and re.search(r"\bvolatile unsigned short myapp_request__start_semaphore\b", source)):
        enabled_check = "volatile read"
    else:
        raise AssertionError(f"the is-enabled check is {expression!r}, neither an asm goto nor a volatile read: "
                             "say what it is in Mechanics")
    site = " ".join(function_body(source, "docs_fire").split())
    return Mechanics(enabled_check=enabled_check,
                     site_checks_semaphore=expression in site or bool(called and re.search(rf"\b{called.group(1)}\b", site)))


@dataclass(frozen=True)
class Claim:
    """A way the documents say how the runtime works, and what must hold of the Mechanics
    for a sentence saying it to be true."""
    says: str                                # a regular expression, searched in each sentence
    problem: str                             # why it is false, formatted with the Mechanics' fields
    holds: Callable[[Mechanics, str], bool]  # of the Mechanics and the sentence


# How a sentence names each way the is-enabled check can read the semaphore.
ENABLED_CHECK_NAMES = {"asm goto": r"\basm goto\b", "volatile read": r"\bvolatile\b"}
CLAIMS = (
    Claim(r"\b(?:check|test|read)s? of (?:the|its) semaphore (?:per|for each|for every|for an?) (?:string|pointer)"
          r"|\b(?:string|pointer) arguments? (?:adds?|costs?) an? (?:check|test|read) of (?:it|the semaphore)",
          "says a probe site tests its semaphore for a string argument: a generated header's site holds no "
          "is-enabled check", lambda mechanics, sentence: mechanics.site_checks_semaphore),
    Claim(r"(?:ENABLED\(\)|is-enabled|\bguard)[^.]*?(?:volatile (?:read|access|load)|costs? a load)",
          "says how the is-enabled check reads the semaphore without naming what it is here: {enabled_check}",
          lambda mechanics, sentence: bool(re.search(ENABLED_CHECK_NAMES[mechanics.enabled_check], sentence))),
)


def sentences(text: str) -> Iterator[Tuple[int, str]]:
    """The sentences of a document's prose (paragraphs, list items, table rows and headings; not
    code blocks), each with the line it starts on."""
    unit: List[Tuple[int, str]] = []

    def flush():
        joined = " ".join(part for _, part in unit)
        starts, offset = [], 0
        for number, part in unit:
            starts.append((offset, number))
            offset += len(part) + 1
        start = 0
        for match in re.finditer(r"(?<=[.!?])\s+(?=[A-Z`(*\[])|$", joined):
            if joined[start:match.start()].strip():
                yield max(number for begin, number in starts if begin <= start), joined[start:match.start()]
            start = match.end()
        unit.clear()

    block = False
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            yield from flush()
            block = not block
        elif not block:
            if not stripped or re.match(r"(?:[-*|#]|\d+\.)\s", stripped + " "):
                yield from flush()
            if stripped:
                unit.append((number, stripped))
    yield from flush()


def mechanics_problems(documents: Dict[str, str], mechanics: Mechanics) -> List[str]:
    return [f"{name}:{line}: {sentence!r} {claim.problem.format(**asdict(mechanics))}"
            for name, text in documents.items() for line, sentence in sentences(text)
            for claim in CLAIMS if re.search(claim.says, sentence) and not claim.holds(mechanics, sentence)]
