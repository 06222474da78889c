"""`usdt trace` of strings and many arguments, with bpftrace attached for real (root):
StringsTest, which tool.trace runs through test_trace.py (and tool.bpftrace_releases in Debian
roots). programs/strings.c fires probes shaped like perl's sub__entry and ruby's
method__entry (three strings and an int: more than bpftrace 0.17's stack holds in one
printf), twelve arguments (bpftrace up to 0.23 reads arg0..arg5 only), chars, and strings
with control bytes, quotes, backslashes, bytes that are not UTF-8, NULL, "", one longer than a
hit carries and one exactly as long. What it fires is written here from its source.
"""

import json

from trace_support import PROGRAMS, TraceTestCase, usdt
from usdt_testing import require_tracer

SUB = "main::run"
ODD = b'unit\x1fsep\x1erec\nline "q" back\\slash \xff\xfe caf\xc3\xa9'
LONG = b"long:" + b"x" * 94          # 99 bytes: cut at 63
EXACT = b"e" * 63                    # as long as a hit carries: not cut

# As the hit's line prints each (strace's escapes; `...` after a cut string).
ODD_TEXT = '"unit\\x1fsep\\x1erec\\nline \\"q\\" back\\\\slash \\xff\\xfe café"'
TEXT_LINES = [
    'strs:sub__entry sub="main::run" file="/usr/share/perl5/App.pm" line=42 package="App"',
    f'strs:method__entry class=NULL method={ODD_TEXT} file="" line=-7',
    f'strs:wide s0="main::run" i1=1 s2=NULL i3=-3000000000 s4="" i5=5 s6={ODD_TEXT} i7=7000000000 '
    f's8="{LONG[:63].decode()}"... i9=-9 s10="{EXACT.decode()}" i11=11',
    "strs:letter letter='a' control='\\x1f' text=NULL",
    f"strs:letter letter='\\'' control='\\xff' text=\"{EXACT.decode()}\"",
]


def text(data: bytes) -> str:
    """A string as --json writes it: each byte that is not UTF-8 as a lone surrogate."""
    return data.decode("utf-8", "surrogateescape")


# --json's hits: (probe, args, the keys beside args that say what a value does not).
JSON_HITS = [
    ("strs:sub__entry", {"sub": SUB, "file": "/usr/share/perl5/App.pm", "line": 42, "package": "App"}, {}),
    ("strs:method__entry", {"class": None, "method": text(ODD), "file": "", "line": -7}, {}),
    ("strs:wide", {"s0": SUB, "i1": 1, "s2": None, "i3": -3000000000, "s4": "", "i5": 5, "s6": text(ODD),
                   "i7": 7000000000, "s8": text(LONG[:63]), "i9": -9, "s10": text(EXACT), "i11": 11},
     {"cut": ["s8"]}),
    ("strs:letter", {"letter": "a", "control": "\x1f", "text": None}, {}),
    ("strs:letter", {"letter": "'", "control": text(b"\xff"), "text": text(EXACT)}, {}),
]


class StringsTest(TraceTestCase):
    """Every probe of programs/strings.c traced at once: one probe bpftrace could not load would
    stop them all."""

    def setUp(self):
        require_tracer(self, "bpftrace")

    def test_each_value_on_its_line(self):
        result = usdt("trace", PROGRAMS["strings"], "--", PROGRAMS["strings"])
        self.assertEqual(result.returncode, 0, result)
        lines = sorted(result.stdout.splitlines(), key=lambda line: int(line.split(" ", 1)[0]))
        self.assertEqual([line.split(" ", 3)[3] for line in lines], TEXT_LINES, result)

    def test_each_value_in_json(self):
        result = usdt("trace", "--json", PROGRAMS["strings"], "--", PROGRAMS["strings"])
        self.assertEqual(result.returncode, 0, result)
        self.assertIn("\\udcff\\udcfe caf\u00e9", result.stdout)     # bytes not UTF-8 as escapes
        found = sorted((json.loads(line) for line in result.stdout.splitlines()), key=lambda hit: hit["monotonic_ns"])
        self.assertEqual([(hit["probe"], hit["args"], {key: hit[key] for key in ("cut", "unreadable", "not_read")
                                                       if key in hit}) for hit in found], JSON_HITS)

    def test_histograms_of_arguments_past_the_sixth(self):
        # Read as arg9, arg11 where bpftrace can, else from their operands (releases.operand_value).
        result = usdt("trace", "--json", "--histogram", "strs:wide:i9", "--histogram", "strs:wide:i11",
                      PROGRAMS["strings"], "--", PROGRAMS["strings"])
        self.assertEqual(result.returncode, 0, result)
        histograms = [line for line in map(json.loads, result.stdout.splitlines()) if line["type"] == "histogram"]
        self.assertEqual([(histogram["argument"], histogram["count"], histogram["min"], histogram["max"])
                          for histogram in histograms], [("i9", 1, -9, -9), ("i11", 1, 11, 11)], result)
