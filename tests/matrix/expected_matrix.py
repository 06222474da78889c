"""What a matrix program's notes say and what its probes fire, written out by hand.

A matrix program runs types.c (or types.cpp) of the integration layer first, then edges.c:
its notes are expected.TYPES_NOTES and EDGES_NOTES, its hits expected.TYPES_HITS followed
by EDGES_HITS (HITS). Nothing here comes from usdtgen.
"""

import sys
from pathlib import Path

# The integration layer's expected.py: the types programs' notes and hits, Hit, Text.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
import expected  # noqa: E402
from expected import (I8_MAX, I8_MIN, I16_MAX, I16_MIN, I32_MAX, I32_MIN, I64_MAX,  # noqa: E402
                      I64_MIN, U8_MAX, U16_MAX, U32_MAX, U64_MAX, Hit, Text)

EDGES_NOTES = """
edges:signed__keywords -1@ -2@ -4@ -8@ -8@
edges:unsigned__keywords 1@ 2@ 4@ 8@ 8@
edges:bools 1@ 1@ 1@ 1@
edges:text 8@ 8@ 8@
edges:stacked -1@ 1@ -2@ 2@ -4@ 4@ -8@ 8@ -1@ 1@ 8@ 8@
edges:guarded -8@
"""

# In the matrix programs only where gc.c is linked in, and then only if the linker kept the
# code nobody calls: with --gc-sections its note must be gone.
UNUSED_PROBE = "edges:unused"

LONG_TEXT = "0123456789" * 30
UTF8_TEXT = "Grüße, мир, 日本語, 🎉"

EDGES_HITS = (
    Hit("edges:signed__keywords", (I8_MIN, I16_MIN, I32_MIN, I64_MIN, I64_MIN)),
    Hit("edges:signed__keywords", (I8_MAX, I16_MAX, I32_MAX, I64_MAX, I64_MAX)),
    Hit("edges:signed__keywords", (0, 0, 0, 0, 0)),
    Hit("edges:signed__keywords", (-1, -1, -1, -1, -1)),
    Hit("edges:unsigned__keywords", (0, 0, 0, 0, 0)),
    Hit("edges:unsigned__keywords", (U8_MAX, U16_MAX, U32_MAX, U64_MAX, U64_MAX)),
    Hit("edges:unsigned__keywords", (U8_MAX, U16_MAX, U32_MAX, U64_MAX, U64_MAX)),
    Hit("edges:bools", (1, 1, 1, 0)),
    Hit("edges:text", (Text(""), Text(LONG_TEXT), Text(UTF8_TEXT))),
    Hit("edges:stacked", (I8_MAX, 0, -1, U16_MAX, I32_MAX, 1, -1, U64_MAX - 1, I8_MIN, 0,
                          Text("stacked"), U64_MAX)),
    # Only while traced: gdb and bpftrace raise the semaphore.
    Hit("edges:guarded", (I64_MIN,)),
)

ARGUMENTS = expected.TYPES_ARGUMENTS
HITS = expected.TYPES_HITS + EDGES_HITS


def specs():
    """provider:name -> the `[-]SIZE@` of each argument, for every probe with a note."""
    lines = expected.sized_notes(expected.TYPES_NOTES + EDGES_NOTES).splitlines()
    return {words[0]: tuple(words[1:]) for words in (line.split() for line in lines) if words}
