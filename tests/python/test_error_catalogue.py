"""docs/errors.md lists every error the generator reports, and cannot drift from the code.
Its table is for readers; the examples behind it are test data, tests/python/error_examples.txt:

- each example, run as written, prints exactly the output shown (`...` stands for any lines);
- each message the generator's sources can build (found by reading them: the message
  arguments of GeneratorError and of the functions that pass theirs on to it) shares all
  its literal text with one of the examples' messages;
- each example's message matches a row of the document's tables, and each row an example's
  (a row's message is its first cell's code span, where `…` stands for any text);
- each semantic check (`check_*`) is named in the document.
"""

import ast
import contextlib
import io
import os
import re
import shlex
import tempfile
import unittest
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Set

import usdt_testing
from usdtgen import cli

REPOSITORY = Path(__file__).resolve().parents[2]
CATALOGUE = REPOSITORY / "docs" / "errors.md"
EXAMPLES = Path(__file__).resolve().parent / "error_examples.txt"
SOURCES = sorted((REPOSITORY / "usdtgen").glob("*.py"))
COMMAND = "$ python3 -m usdtgen "   # how each example runs the generator

# Messages the code can build but no input reaches, and why; each must still be in the code.
UNREACHABLE = {
    "between parameters": "parser._parameter already stops at anything but ',' or ')'",
}


@dataclass
class Example:
    title: str
    input: Optional[bytes]
    arguments: List[str]
    expected: List[str]
    other_files: Dict[str, bytes]   # name -> text: the files of ```d NAME.d blocks


def read_examples() -> List[Example]:
    """The examples: under each `###` title, an optional ```d block, then a ```console block
    whose first line is `$ python3 -m usdtgen ARGUMENTS` and the rest the expected stderr."""
    examples = []
    title, source, block, info, other_files = None, None, None, "", {}
    for line in EXAMPLES.read_text(encoding="utf-8").split("\n"):
        if block is not None:
            if line != "```":
                block.append(line)
                continue
            words = info.split()
            if words[:1] == ["d"] and len(words) > 1 and words[1].endswith(".d"):
                other_files[words[1]] = ("\n".join(block) + "\n").encode("utf-8")
            elif words[:1] == ["d"]:
                encoding = words[1] if len(words) > 1 else "utf-8"
                source = ("\n".join(block) + "\n").encode(encoding)
            elif info == "console":
                command = block[0]
                assert command.startswith(COMMAND), f"{title}: a console block starts with '{COMMAND}'"
                examples.append(Example(title, source, shlex.split(command[len(COMMAND):]), block[1:],
                                        other_files))
            block = None
        elif line.startswith("### "):
            title, source, other_files = line[4:], None, {}
        elif line.startswith("```"):
            block, info = [], line[3:].strip()
    return examples


def run(example: Example, directory: Path):
    """Writes the input to the file the command line names last, and the other files, runs the
    command line in `directory`, in this process; returns (status, stderr)."""
    if example.input is not None:
        (directory / example.arguments[-1]).write_bytes(example.input)
    for name, text in example.other_files.items():
        (directory / name).write_bytes(text)
    stderr = io.StringIO()
    previous = os.getcwd()
    os.chdir(directory)
    try:
        with contextlib.redirect_stderr(stderr):
            try:
                status = cli.main(example.arguments)
            except SystemExit as exit:   # argparse's usage errors
                status = exit.code
    finally:
        os.chdir(previous)
    return status, stderr.getvalue()


def expected_pattern(lines: List[str]) -> str:
    return "".join(r"(?:.*\n)*" if line == "..." else re.escape(line) + r"\n" for line in lines)


# A diagnostic line: `file:line:col: ` or `usdtgen: `, then the message, less a leading `error: `.
DIAGNOSTIC = re.compile(r"^(?:[^\s:][^:]*:\d+:\d+|usdtgen): (?:error: )?(?P<message>.+)$")
# A table row of the document whose first cell starts with a code span: the row's message.
ROW = re.compile(r"^\| `(?P<message>[^`]+)`")


def example_message(example: Example) -> str:
    """The message of the example's first diagnostic line."""
    messages = [match.group("message") for match in map(DIAGNOSTIC.match, example.expected) if match]
    assert messages, f"{example.title}: no diagnostic line in its output"
    return messages[0]


def document_rows() -> List[str]:
    """The message of each table row of the document, as written (`…` for any text)."""
    return [match.group("message") for match in map(ROW.match, CATALOGUE.read_text(encoding="utf-8").split("\n"))
            if match]


def row_pattern(row: str) -> "re.Pattern[str]":
    return re.compile(".*?".join(re.escape(part) for part in row.split("…")))


# Reading the sources.

def _functions(trees) -> Dict[str, List[ast.AST]]:
    found: Dict[str, List[ast.AST]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(node.name, []).append(node)
    return found


def _called_name(call: ast.Call) -> Optional[str]:
    function = call.func
    return function.id if isinstance(function, ast.Name) else function.attr if isinstance(function, ast.Attribute) else None


def _parameters(function) -> List[str]:
    return [argument.arg for argument in function.args.args]


def _message_arguments(call: ast.Call, positions: Set[int], offset: int) -> List[ast.AST]:
    return [argument for index, argument in enumerate(call.args) if index + offset in positions]


def _parameter_origins(function) -> Dict[str, Set[int]]:
    """Each parameter, and each local assigned from them (`where = f" {context}"`): the
    positions of the parameters it comes from."""
    origins = {parameter: {index} for index, parameter in enumerate(_parameters(function))}
    assignments = [node for node in ast.walk(function)
                   if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)]
    changed = True
    while changed:
        changed = False
        for assignment in assignments:
            sources = set().union(*(origins.get(node.id, set()) for node in ast.walk(assignment.value)
                                    if isinstance(node, ast.Name)))
            target = assignment.targets[0].id
            if not sources <= origins.get(target, set()):
                origins[target] = origins.get(target, set()) | sources
                changed = True
    return origins


def message_helpers(functions) -> Dict[str, Set[int]]:
    """GeneratorError, and every function that passes one of its parameters into the message
    of another such call: name -> positions of its parameters that end up in the message."""
    helpers = {"GeneratorError": {1}}
    changed = True
    while changed:
        changed = False
        for name, definitions in functions.items():
            for function in definitions:
                origins = _parameter_origins(function)
                for call in (node for node in ast.walk(function) if isinstance(node, ast.Call)):
                    callee = _called_name(call)
                    if callee not in helpers:
                        continue
                    offset = _method_offset(call, functions.get(callee, []))
                    used = {node.id for argument in _message_arguments(call, helpers[callee], offset)
                            for node in ast.walk(argument) if isinstance(node, ast.Name)}
                    positions = set().union(*(origins.get(used_name, set()) for used_name in used))
                    if not positions <= helpers.get(name, set()):
                        helpers[name] = helpers.get(name, set()) | positions
                        changed = True
    return helpers


def _method_offset(call: ast.Call, definitions) -> int:
    """`self._error(m)` passes m as the definition's second parameter."""
    is_method = any(_parameters(function)[:1] == ["self"] for function in definitions)
    return 1 if is_method and isinstance(call.func, ast.Attribute) else 0


def _fragments(expression: ast.AST, constants: Dict[str, str]) -> List[str]:
    """The literal text in an expression: string constants, f-string text (not format
    specifications such as `02x`) and module-level string constants it names."""
    if isinstance(expression, ast.Constant):
        return [expression.value] if isinstance(expression.value, str) and expression.value.strip() else []
    if isinstance(expression, ast.Name):
        return [constants[expression.id]] if expression.id in constants else []
    if isinstance(expression, ast.FormattedValue):
        return _fragments(expression.value, constants)
    return [fragment for child in ast.iter_child_nodes(expression) for fragment in _fragments(child, constants)]


def message_templates() -> List[List[str]]:
    """The literal fragments of every message the sources can build, one list per message."""
    trees = [ast.parse(path.read_text(encoding="utf-8"), str(path)) for path in SOURCES]
    constants = {target.id: node.value.value for tree in trees for node in tree.body
                 if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                 and isinstance(node.value.value, str) for target in node.targets if isinstance(target, ast.Name)}
    functions = _functions(trees)
    helpers = message_helpers(functions)
    templates = []
    for tree in trees:
        for call in (node for node in ast.walk(tree) if isinstance(node, ast.Call)):
            callee = _called_name(call)
            if callee in helpers:
                offset = _method_offset(call, functions.get(callee, []))
                fragments = [fragment for argument in _message_arguments(call, helpers[callee], offset)
                             for fragment in _fragments(argument, constants)]
                if fragments:
                    templates.append(fragments)
    # Strings that functions called inside a helper return, such as parser._misspelt_name's.
    for name in helpers:
        for function in functions.get(name, []):
            for call in (node for node in ast.walk(function) if isinstance(node, ast.Call)):
                for called in functions.get(_called_name(call), []):
                    for node in ast.walk(called):
                        if isinstance(node, ast.Return) and node.value is not None:
                            fragments = _fragments(node.value, constants)
                            if isinstance(node.value, (ast.Constant, ast.JoinedStr)) and fragments:
                                templates.append(fragments)
    return templates


class ErrorCatalogueTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.examples = read_examples()
        cls.messages = [line for example in cls.examples for line in example.expected]
        cls.rows = document_rows()

    def test_catalogue_has_examples(self):
        self.assertGreater(len(self.examples), 40)
        titles = [example.title for example in self.examples]
        self.assertEqual(len(titles), len(set(titles)), "titles must be unique")

    def test_each_example_prints_exactly_what_is_shown(self):
        for example in self.examples:
            with self.subTest(example.title), tempfile.TemporaryDirectory(prefix="usdt-errors-") as directory:
                status, stderr = run(example, Path(directory))
                self.assertRegex(stderr, "^" + expected_pattern(example.expected) + r"\Z")
                self.assertEqual(status, 2 if stderr.startswith("usage:") else 1)
                self.assertNotIn("Traceback", stderr)

    def test_every_message_in_the_sources_has_an_example(self):
        templates = message_templates()
        self.assertGreater(len(templates), 30, "the sources' messages were not found")
        for fragments in templates:
            unreachable = [fragment for fragment in fragments if fragment in UNREACHABLE]
            if unreachable:
                continue
            with self.subTest(" ... ".join(fragments)):
                matching = [message for message in self.messages
                            if all(fragment in message for fragment in fragments)]
                self.assertTrue(matching, f"no example in {EXAMPLES.name} prints a message with "
                                          f"all of {fragments}: add one")

    def test_every_example_has_a_row(self):
        self.assertGreater(len(self.rows), 40)
        for example in self.examples:
            message = example_message(example)
            with self.subTest(example.title):
                self.assertTrue([row for row in self.rows if row_pattern(row).fullmatch(message)],
                                f"no row of {CATALOGUE.name} matches {message!r}: add one")

    def test_every_row_has_an_example(self):
        messages = [example_message(example) for example in self.examples]
        for row in self.rows:
            with self.subTest(row):
                self.assertTrue([message for message in messages if row_pattern(row).fullmatch(message)],
                                f"no example in {EXAMPLES.name} prints a message that {row!r} matches: "
                                f"correct the row, or add an example")

    def test_unreachable_messages_are_still_in_the_sources(self):
        fragments = {fragment for template in message_templates() for fragment in template}
        for fragment in UNREACHABLE:
            self.assertIn(fragment, fragments, "gone from the code: remove it from UNREACHABLE")

    def test_every_check_is_named(self):
        checks = {match for path in SOURCES
                  for match in re.findall(r"^def (check_\w+)", path.read_text(encoding="utf-8"), re.MULTILINE)}
        self.assertGreater(len(checks), 5)
        text = CATALOGUE.read_text(encoding="utf-8")
        for check in sorted(checks):
            with self.subTest(check):
                self.assertTrue(f"`{check}`" in text, f"{CATALOGUE.name} names no `{check}`")


if __name__ == "__main__":
    usdt_testing.main()
