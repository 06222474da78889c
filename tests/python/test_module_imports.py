"""No two modules of usdtgen and usdttool import each other, directly or through others: every
import line counts, those under `if TYPE_CHECKING:` and inside functions too. Data flows one
way (STYLE.md): the model imports its checks, the views the probe type, usdttool usdtgen. And
none imports pyelftools: usdttool/files/elf.py reads ELF files itself."""

import ast
import subprocess
import sys
import unittest
from pathlib import Path
from typing import Dict, List, Set

import usdt_testing

REPOSITORY = Path(__file__).resolve().parents[2]
PACKAGES = ("usdtgen", "usdttool")


def modules() -> Dict[str, Path]:
    """Each module of PACKAGES by name (usdttool.files.elf), and its file."""
    return {".".join(path.relative_to(REPOSITORY).with_suffix("").parts): path for package in PACKAGES
            for path in sorted((REPOSITORY / package).rglob("*.py"))}


def imported_names() -> Dict[str, Set[str]]:
    """Module -> every module its import lines name (`from a import b`: a and a.b)."""
    named = {}
    for name, path in modules().items():
        # What `from .` means here: the module's package (a package's own __init__ is its package).
        package = name.rsplit(".", 1)[0] if path.name != "__init__.py" else name.removesuffix(".__init__")
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{base}.{node.module}" if node.module else base
                else:
                    base = node.module
                imported |= {base, *(f"{base}.{alias.name}" for alias in node.names)}
        named[name] = imported
    return named


def imports() -> Dict[str, Set[str]]:
    """Module -> the modules of PACKAGES it imports (their subpackages' too: usdttool.files.elf)."""
    ours = modules()
    return {name: {module for module in imported if module in ours and module != name}
            for name, imported in imported_names().items()}


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    found: List[List[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


class ImportTest(unittest.TestCase):
    def test_no_module_imports_one_that_imports_it(self):
        graph = imports()
        self.assertIn("usdtgen.checks", graph["usdtgen.model"])      # the reader sees something
        self.assertIn("usdttool.files.elf", graph["usdttool.bpftrace.releases"])     # and across subpackages
        self.assertEqual(cycles(graph), [])

    def test_a_cycle_is_found(self):
        self.assertEqual(cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}), [["a", "b", "c"]])
        self.assertEqual(cycles({"a": {"b"}, "b": set()}), [])

    def test_usdt_imports_neither_the_generator_s_front_end_nor_jinja2(self):
        # Imported where they are needed: the pipeline for -d, the templates for a trace's program.
        loaded = subprocess.run(
            [sys.executable, "-c", "import sys, usdttool.main; print(' '.join(sorted(sys.modules)))"],
            capture_output=True, text=True, check=True, cwd=REPOSITORY, timeout=60).stdout.split()
        self.assertEqual([module for module in loaded if module.startswith("usdtgen.")],
                         ["usdtgen.errors", "usdtgen.notes", "usdtgen.tracer_probe"])
        self.assertNotIn("jinja2", loaded)

    def test_no_module_imports_pyelftools(self):
        importers = [name for name, imported in imported_names().items()
                     if any(module.split(".")[0] == "elftools" for module in imported)]
        self.assertEqual(importers, [])


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
