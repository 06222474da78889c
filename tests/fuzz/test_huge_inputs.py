"""Huge and pathological inputs generate, or fail with an error, in bounded time and memory:
10,000 probes, a 10 MB file of comments and declarations (read as it is and through the
preprocessor), and typedef chains that are long or that double at every step.

Each input runs in its own Python process, which reports its CPU time (with the
preprocessor's) and peak memory. CPU time, unlike wall time, does not grow on a loaded
machine. The bounds are about twice what the largest input needs: they catch super-linear
work, such as a regular expression compiled once per token of a preprocessed file, not a
slower machine.
"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import usdt_testing

CPU_SECONDS = 20.0
MEMORY_BYTES = 500 << 20
# Past these the process is stopped and the input reported as unbounded.
WALL_SECONDS = 60
ADDRESS_SPACE = 2 << 30

MEASURE = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from usdtgen import errors, pipeline, preprocess
try:
    texts = pipeline.generate(sys.argv[1]).outputs
    outcome, detail = "generated", str(sum(map(len, texts.values())))
except errors.GeneratorError as error:
    outcome, detail = "error", str(error)
except preprocess.PreprocessorFailed as failure:
    outcome, detail = "preprocessor", failure.diagnostics
usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
print(json.dumps({{"outcome": outcome, "detail": detail[:300],
                  "cpu": sum(u.ru_utime + u.ru_stime for u in usage),
                  "max_rss": max(u.ru_maxrss for u in usage) * 1024}}))
"""


def many_probes(count=10_000, per_provider=100) -> str:
    providers = []
    for provider in range(count // per_provider):
        probes = "".join(f"    probe event{probe}(uint64_t id, const char *name, int status, bool flag);\n"
                         for probe in range(per_provider))
        providers.append(f"provider service{provider} {{\n{probes}}};\n")
    return "".join(providers)


def ten_megabytes(preamble="") -> str:
    """Half comments, half the C declarations a provider file may hold, and one provider."""
    parts = [preamble, "provider big { probe event(total_t count, const char *name); };\n"]
    size = 0
    comment = "/* " + "a comment that goes on " * 40 + "*/\n"
    while size < 5_000_000:
        parts.append(comment)
        size += len(comment)
    index = 0
    while size < 10_000_000:
        declaration = (f"struct record{index} {{ int id; char name[16]; long values[4]; }};\n"
                       f"typedef unsigned long long total{index}_t;\n"
                       f"int handler{index}(const struct record{index} *record, unsigned flags);\n")
        parts.append(declaration)
        size += len(declaration)
        index += 1
    parts.append("typedef unsigned long long total_t;\n")
    return "".join(parts)


def typedef_chain(length=10_000) -> str:
    lines = ["typedef int t0;"] + [f"typedef t{i} t{i + 1};" for i in range(length)]
    return "\n".join(lines) + f"\nprovider p {{ probe a(t{length} value); }};\n"


def doubling_typedefs(steps=60) -> str:
    """t1 is `t0 t0`, t2 is `t1 t1`...: expanded naively, t60 is 2**60 words."""
    lines = ["typedef int t0;"] + [f"typedef t{i} t{i} t{i + 1};" for i in range(steps)]
    return "\n".join(lines) + f"\nprovider p {{ probe a(t{steps} value); }};\n"


class HugeInputsTest(unittest.TestCase):
    def measure(self, text: str) -> dict:
        with tempfile.TemporaryDirectory(prefix="usdt-huge-") as directory:
            path = Path(directory) / "huge.d"
            path.write_text(text)
            try:
                result = subprocess.run([sys.executable, "-c", MEASURE.format(limit=ADDRESS_SPACE), str(path)],
                                        capture_output=True, text=True, timeout=WALL_SECONDS, check=False)
            except subprocess.TimeoutExpired:
                result = None
        self.assertIsNotNone(result, f"no result within {WALL_SECONDS} s")
        self.assertEqual(result.returncode, 0, f"the generator failed:\n{result.stderr[-3000:]}")
        measured = json.loads(result.stdout)
        print(f"\n  {self.id().rsplit('.', 1)[-1]}: {measured['outcome']}, {measured['cpu']:.1f} CPU s, "
              f"{measured['max_rss'] >> 20} MB", file=sys.stderr)
        return measured

    def assertBounded(self, text: str, expected_outcome: str) -> dict:
        measured = self.measure(text)
        self.assertEqual(measured["outcome"], expected_outcome, measured["detail"])
        self.assertLess(measured["cpu"], CPU_SECONDS, f"CPU seconds: {measured}")
        self.assertLess(measured["max_rss"], MEMORY_BYTES, f"peak memory: {measured}")
        return measured

    def test_ten_thousand_probes(self):
        self.assertBounded(many_probes(), "generated")

    def test_ten_megabyte_file(self):
        text = ten_megabytes()
        self.assertGreaterEqual(len(text), 10_000_000)
        self.assertBounded(text, "generated")

    def test_ten_megabyte_file_through_the_preprocessor(self):
        self.assertBounded(ten_megabytes(preamble="#define EVENT_NAME event\n"), "generated")

    def test_long_typedef_chain(self):
        self.assertBounded(typedef_chain(), "generated")

    def test_doubling_typedefs(self):
        measured = self.measure(doubling_typedefs())
        self.assertIn(measured["outcome"], ("generated", "error"), measured["detail"])
        self.assertLess(measured["cpu"], CPU_SECONDS, f"CPU seconds: {measured}")


if __name__ == "__main__":
    usdt_testing.main()
