"""The recipes of docs/cookbook.md, read from the document itself so that what the tests run
is what readers copy.

A recipe is a line `<!-- recipe: NAME -->`, then a ```sh block of commands, then a ```text
block with a sample of their output, before the next recipe. Anything else that looks
like a recipe marker is an error, reported as `path:line: message`.
"""

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Tuple

MARKER = re.compile(r"^<!-- recipe: ([a-z0-9]+(?:-[a-z0-9]+)*) -->$")
FENCE = re.compile(r"^```(\S*)\s*$")


class RecipeError(Exception):
    pass


@dataclass(frozen=True)
class Recipe:
    name: str
    line: int          # of the marker, from 1
    commands: str      # the ```sh block
    sample: str        # the ```text block

    def command_lines(self) -> List[str]:
        """The commands, one per entry, as the shell reads them: continuation lines joined, a
        quoted string that spans lines kept whole, blank and comment lines dropped. Only for
        blocks without here-documents."""
        commands, pending = [], ""
        for line in re.sub(r"\\\n", " ", self.commands).splitlines():
            pending = f"{pending}\n{line}" if pending else line
            try:
                words = shlex.split(pending, comments=True)
            except ValueError:   # an open quote: the command goes on
                continue
            if words:
                commands.append(pending)
            pending = ""
        if pending:
            raise RecipeError(f"recipe {self.name} (line {self.line}): unterminated quote in its commands")
        return commands


def read(path: Path) -> Dict[str, Recipe]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    markers, blocks = _markers_and_blocks(path, lines)
    recipes = {}
    for index, (line, name) in enumerate(markers):
        end = markers[index + 1][0] if index + 1 < len(markers) else len(lines) + 1
        following = [block for block in blocks if line < block[0] < end]
        if [info for _, info, _ in following[:2]] != ["sh", "text"]:
            raise RecipeError(f"{path}:{line}: recipe {name}: expected a ```sh block of commands, "
                              f"then a ```text block of output, before the next recipe")
        if name in recipes:
            raise RecipeError(f"{path}:{line}: recipe {name} again (first at line {recipes[name].line})")
        recipes[name] = Recipe(name, line, following[0][2], following[1][2])
    return recipes


def _markers_and_blocks(path, lines) -> Tuple[List[Tuple[int, str]], List[Tuple[int, str, str]]]:
    """(line, name) of each marker; (line, info string, text) of each fenced block."""
    markers, blocks = [], []
    block_start, block_info, block_lines = None, "", []
    for number, text in enumerate(lines, start=1):
        fence = FENCE.match(text)
        if block_start is not None:
            if fence and not fence.group(1):
                blocks.append((block_start, block_info, "\n".join(block_lines) + "\n"))
                block_start = None
            else:
                block_lines.append(text)
        elif fence:
            block_start, block_info, block_lines = number, fence.group(1), []
        elif "recipe:" in text and "<!--" in text:
            marker = MARKER.match(text)
            if marker is None:
                raise RecipeError(f"{path}:{number}: malformed recipe marker: {text!r}")
            markers.append((number, marker.group(1)))
    if block_start is not None:
        raise RecipeError(f"{path}:{block_start}: unterminated ``` block")
    return markers, blocks
