"""docs/cookbook.md's recipes, extracted from the document (recipes.py) and run against
kvserver and libkvstore.so (kvserver/) in a directory holding both, as a reader runs them
in the build tree. Each recipe has one check here, written from what kvserver does; it
is applied to the recipe's real output and to the sample the document shows for it.

--tool document: the document has exactly the recipes known here, and every sample
passes its check (no tracer needed). --tool usdt|bpftrace|perf|gdb|bcc|systemtap: that
tool's recipes run (as root, except gdb's, `usdt list` and the bcc and SystemTap listings). Test-side changes to a command, all
made where the test runs it: the process id for `"$(pidof kvserver)"`; a BEGIN probe that
says when bpftrace has attached; `-r` a stub kernel tree and `-p3` for SystemTap, which
cannot build modules here (see SystemTapTest); `-v` for bcc's trace where the kernel's
headers are missing (see BccTest).

Usage (CTest passes these): test_cookbook.py --document PATH --program PATH --library PATH
    --tool NAME [--usdt PATH] [unittest options]
"""

import argparse
import json
import os
import platform
import queue
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
from dataclasses import dataclass
from pathlib import Path

import bpftrace_attach
import elf_notes
import recipes
from systemtap_stub import stub_kernel_tree
from usdt_testing import main, parse_options, require_tracer, tracers_required

OPTIONS = argparse.Namespace()   # from the command line (add_options)
RECIPES = {}                     # name -> recipes.Recipe, read from --document


# What kvserver does (kvserver/kvserver.c): these requests in order, ids counting from 1, as
# one batch; with --serve, again and again, ids and batches counting on.
@dataclass(frozen=True)
class Request:
    op: str
    key: str
    status: int     # as example-project/kvserver.d says: 200 found, 201 created, 204 deleted, 404 missing


REQUESTS = (
    Request("PUT", "user:1", 201),
    Request("PUT", "user:2", 201),
    Request("GET", "user:1", 200),
    Request("GET", "user:3", 404),
    Request("DEL", "user:2", 204),
    Request("GET", "user:2", 404),
    Request("DEL", "user:1", 204),
)
IDS = range(1, len(REQUESTS) + 1)
# batch__done's summary, and the keys stored, after a batch.
SUMMARY, KEYS = "2 PUT 3 GET 2 DEL, 2 misses", 0

# Hits per probe in one run; key__miss for each 404; batch__done only while traced (its
# _ENABLED() guard); the library's (kvserver/store.c): PUT stores, GET looks up, DEL erases.
PROBE_COUNTS = {
    ("kvserver", "request__start"): len(REQUESTS),
    ("kvserver", "request__done"): len(REQUESTS),
    ("kvserver", "key__miss"): sum(request.status == 404 for request in REQUESTS),
    ("kvserver", "batch__done"): 1,
    ("kvstore", "store"): sum(request.op == "PUT" for request in REQUESTS),
    ("kvstore", "lookup"): sum(request.op == "GET" for request in REQUESTS),
    ("kvstore", "erase"): sum(request.op == "DEL" for request in REQUESTS),
}
# Arguments per probe, as kvserver.d and kvstore.d declare them.
ARGUMENT_COUNTS = {("kvserver", "request__start"): 3, ("kvserver", "request__done"): 3,
                   ("kvserver", "key__miss"): 2, ("kvserver", "batch__done"): 4,
                   ("kvstore", "store"): 3, ("kvstore", "lookup"): 2, ("kvstore", "erase"): 2}
PROGRAM_PROBES = {probe for probe in ARGUMENT_COUNTS if probe[0] == "kvserver"}
LIBRARY_PROBES = {probe for probe in ARGUMENT_COUNTS if probe[0] == "kvstore"}
PROGRAM, LIBRARY = "kvserver", "libkvstore.so"


def request(request_id):
    return REQUESTS[(request_id - 1) % len(REQUESTS)]


# The lines the recipes' printf formats make of kvserver's hits.
def start_line(request_id):
    return f"request {request_id}: {request(request_id).op} {request(request_id).key}"


def done_line(request_id):
    return f"request {request_id}: status {request(request_id).status}"


def lookup_line(request_id):
    return f"lookup {request(request_id).key}: found={int(request(request_id).status != 404)}"


def lines_matching(output, pattern):
    return re.findall(pattern, output, re.MULTILINE)


# Checks: check(test, output) for each recipe, on its real output and on its sample.

def check_bpftrace_list(test, output):
    expected = {f"usdt:./{PROGRAM}:{provider}:{name}" for provider, name in PROGRAM_PROBES}
    expected |= {f"usdt:./{LIBRARY}:{provider}:{name}" for provider, name in LIBRARY_PROBES}
    test.assertEqual(set(lines_matching(output, r"^usdt:.*$")), expected, output)


def check_bpftrace_arguments(test, output):
    test.assertEqual(lines_matching(output, r"^request \d+: .*$"), [start_line(i) for i in IDS], output)


def check_bpftrace_failed(test, output):
    expected = [f"request {i} failed: {request(i).status}" for i in IDS if request(i).status >= 400]
    test.assertEqual(lines_matching(output, r"^request \d+ failed: .*$"), expected, output)


def check_bpftrace_count(test, output):
    counts = {name: int(count) for name, count in
              lines_matching(output, rf"^@\[usdt:\./{PROGRAM}:kvserver:(\w+)\]: (\d+)$")}
    test.assertEqual(counts, {name: PROBE_COUNTS[provider, name] for provider, name in PROGRAM_PROBES}, output)


def check_bpftrace_latency(test, output):
    test.assertRegex(output, r"(?m)^@ns: *$")
    # `[4K, 8K)     5 |@@@@@|` or `[0]     5 |@@@@@|`
    buckets = lines_matching(output, r"^\[\w+(?:, \w+\)|\]) +(\d+) \|[@ ]+\|$")
    test.assertEqual(sum(map(int, buckets)), len(REQUESTS), output)


def check_consecutive_done_lines(test, output, pattern=r"^(request (\d+): status .*)$"):
    """At least a round of --serve's requests, consecutive from wherever tracing began."""
    hits = lines_matching(output, pattern)
    test.assertGreaterEqual(len(hits), len(REQUESTS), output)
    first = int(hits[0][1])
    test.assertEqual([line for line, _ in hits], [done_line(first + n) for n in range(len(hits))], output)


def check_bpftrace_library(test, output):
    expected = [lookup_line(i) for i in IDS if request(i).op == "GET"]
    test.assertEqual(lines_matching(output, r"^lookup .*$"), expected, output)


def perf_event(name: str) -> str:
    """An event's name as the perf checks compare it: perf 7 makes each `__` of a note's name `_`
    (sdt_kvserver:request_start), where perf 6 and `perf list` keep it."""
    return name.replace("__", "_")


def check_perf_list(test, output):
    listed = set(lines_matching(output, r"^ +sdt_(\w+):(\w+)(?:@\S+)? +\[SDT event\]$"))
    test.assertEqual(listed, PROGRAM_PROBES, output)


def check_perf_record(test, output):
    hits = [(name, re.findall(r"arg\d+=(-?\d+)", arguments)) for name, arguments in
            lines_matching(output, r"sdt_kvserver:(\w+): \([0-9a-f]+\)((?: arg\d+=-?\d+)*)$")]
    # Strings are addresses, and latencies vary: those argument positions read "-".
    unknown = {"request__start": (1, 2), "request__done": (2,), "key__miss": (1,), "batch__done": (3,)}
    unknown = {perf_event(name): indices for name, indices in unknown.items()}
    hits = [(perf_event(name), ["-" if index in unknown[perf_event(name)] else value
                                for index, value in enumerate(values)])
            for name, values in hits]
    expected = []
    for i in IDS:
        expected.append(("request__start", [str(i), "-", "-"]))
        if request(i).status == 404:
            expected.append(("key__miss", [str(i), "-"]))
        expected.append(("request__done", [str(i), str(request(i).status), "-"]))
    expected.append(("batch__done", ["1", str(len(REQUESTS)), str(KEYS), "-"]))
    test.assertEqual(hits, [(perf_event(name), values) for name, values in expected], output)


def check_perf_stat(test, output):
    counts = {(provider, perf_event(name)): int(count) for count, provider, name in
              lines_matching(output, r"^ +(\d+) +sdt_(\w+):(\w+) *$")}
    test.assertEqual(counts, {(provider, perf_event(name)): count for (provider, name), count in PROBE_COUNTS.items()},
                     output)


def check_perf_remove(test, output):
    removed = {(provider, perf_event(name))
               for provider, name in lines_matching(output, r"^Removed event: sdt_(\w+):(\w+)$")}
    test.assertEqual(removed, {(provider, perf_event(name)) for provider, name in PROGRAM_PROBES | LIBRARY_PROBES},
                     output)


def check_gdb_list(test, output):
    rows = {(provider, name, Path(path).name) for provider, name, path in
            lines_matching(output, r"^stap +(\w+) +(\w+) +0x[0-9a-f]+ +0x[0-9a-f]+ +(\S+) *$")}
    expected = {(provider, name, PROGRAM) for provider, name in PROGRAM_PROBES}
    expected |= {(provider, name, LIBRARY) for provider, name in LIBRARY_PROBES}
    test.assertEqual(rows, expected, output)


def gdb_values(output):
    return lines_matching(output, r"^\$\d+ = (.*)$")


def check_gdb_arguments(test, output):
    # The first PUT's: its key, the length of its value, and the entry that holds them.
    values = gdb_values(output)
    test.assertEqual(len(values), 4, output)
    test.assertEqual(values[0], str(ARGUMENT_COUNTS["kvstore", "store"]), output)
    test.assertRegex(values[1], rf'^0x[0-9a-f]+ "{request(1).key}"$')
    test.assertEqual(values[2], str(len("alice")), output)
    test.assertRegex(values[3], rf'^\{{used = true, key = "{request(1).key}", .*value = "alice", .*\}}$')


def check_gdb_condition(test, output):
    failed = next(i for i in IDS if request(i).status >= 400)
    test.assertEqual(gdb_values(output), [str(failed), str(request(failed).status)], output)
    test.assertEqual(lines_matching(output, r"^#\d+ +0x[0-9a-f]+ in (\w+) "), ["serve_requests", "main"], output)


def check_gdb_log(test, output):
    expected = []
    for i in IDS:
        expected.append(start_line(i))
        if request(i).op == "GET":
            expected.append(lookup_line(i))
    test.assertEqual(lines_matching(output, r"^(?:request|lookup) .*$"), expected, output)


def check_bcc_list(test, output):
    test.assertEqual(set(lines_matching(output, rf"^\./{PROGRAM} (\w+):(\w+)$")), PROGRAM_PROBES, output)
    described = {(provider, name): int(arguments) for provider, name, arguments in
                 re.findall(r"^(\w+):(\w+) \[sema 0x[0-9a-f]+\]\n  1 location\(s\)\n  (\d+) argument\(s\)$",
                            output, re.MULTILINE)}
    test.assertEqual(described, {probe: ARGUMENT_COUNTS[probe] for probe in LIBRARY_PROBES}, output)


def check_bcc_trace(test, output):
    test.assertRegex(output, r"(?m)^PID +TID +COMM +FUNC +-$")
    check_consecutive_done_lines(test, output, rf"^\d+ +\d+ +{PROGRAM} +request__done +(request (\d+): status .*)$")


def check_stap_list(test, output):
    marks = {(Path(path).name, name): len(arguments.split()) for path, name, arguments in
             lines_matching(output, r'^process\("(\S+)"\)\.mark\("(\w+)"\)((?: \$arg\d+:long)*)$')}
    expected = {(PROGRAM if provider == "kvserver" else LIBRARY, name): count
                for (provider, name), count in ARGUMENT_COUNTS.items()}
    test.assertEqual(marks, expected, output)


def check_stap_arguments(test, output):
    check_bpftrace_arguments(test, output)


# `NSECS pid=PID tid=TID provider:probe name=value...`, as usdt trace prints a hit.
USDT_HIT = r"^\d+ pid=\d+ tid=\d+ "

# example-project/kvserver.d and kvserver/kvstore.d as `usdt list` shows them.
USDT_SIGNATURES = {
    PROGRAM: ["kvserver:batch__done(uint32_t batch, uint32_t requests, size_t keys, string summary)",
              "kvserver:key__miss(uint64_t id, string key)",
              "kvserver:request__done(uint64_t id, int status, uint64_t latency_ns)",
              "kvserver:request__start(uint64_t id, string op, string key)"],
    LIBRARY: ["kvstore:erase(const char * key, bool found)", "kvstore:lookup(const char * key, bool found)",
              "kvstore:store(const char * key, size_t bytes, struct entry * entry)"],
}


def check_usdt_list(test, output):
    blocks = dict(re.findall(r"^(?:\./|\S*/)(\S+): \d+ probes?\n  SITES .*\n((?:  \d.*\n?)+)", output, re.MULTILINE))
    # glibc's files aside (elf_notes.GLIBC_FILE).
    listed = {module: re.findall(r"\s(\w+:\w+\(.*\))$", block, re.MULTILINE) for module, block in blocks.items()
              if not elf_notes.GLIBC_FILE.search(module)}
    test.assertEqual(listed, USDT_SIGNATURES, output)


def usdt_request_lines(request_id):
    item = request(request_id)
    lines = [f'kvserver:request__start id={request_id} op="{item.op}" key="{item.key}"']
    if item.status == 404:
        lines.append(f'kvserver:key__miss id={request_id} key="{item.key}"')
    return lines + [f"kvserver:request__done id={request_id} status={item.status} latency_ns=N"]


def usdt_hits(output):
    """Each hit line without its time, pid and tid, a non-null pointer as POINTER, a latency as N."""
    return [re.sub(r"latency_ns=\d+", "latency_ns=N", re.sub(r"=0x[0-9a-f]{4,}\b", "=POINTER", line))
            for line in lines_matching(output, USDT_HIT + r"(.*)$")]


def check_usdt_trace(test, output):
    test.assertIn("(names and types from kvserver.d)", output)
    batch = f'kvserver:batch__done batch=1 requests={len(REQUESTS)} keys={KEYS} summary="{SUMMARY}"'
    test.assertEqual(usdt_hits(output), [line for i in IDS for line in usdt_request_lines(i)] + [batch], output)


def check_usdt_trace_pid(test, output):
    # The library's hits for one round of REQUESTS, in order; a trace starts anywhere in a round.
    per_round = []
    values = {"user:1": "alice", "user:2": "bob"}
    stored = set()
    for item in REQUESTS:
        if item.op == "PUT":
            per_round.append(f'kvstore:store key="{item.key}" bytes={len(values[item.key])} entry=POINTER')
            stored.add(item.key)
        elif item.op == "GET":
            per_round.append(f'kvstore:lookup key="{item.key}" found={str(item.key in stored).lower()}')
        else:
            per_round.append(f'kvstore:erase key="{item.key}" found={str(item.key in stored).lower()}')
            stored.discard(item.key)
    # Ctrl-C drops the hits bpftrace has not printed yet, which may leave a gap: the test
    # waits for a round and one hit more, and checks those.
    hits = usdt_hits(output)[:len(per_round) + 1]
    test.assertGreaterEqual(len(hits), len(per_round), output)
    start = per_round.index(hits[0]) if hits[0] in per_round else test.fail(output)
    test.assertEqual(hits, [per_round[(start + i) % len(per_round)] for i in range(len(hits))], output)


def check_usdt_latency(test, output):
    counts = dict((name, int(count)) for count, name in
                  lines_matching(output, r"^ +(\d+) +[\d.]+  (\w+:\w+)$"))
    test.assertEqual(counts, {f"{provider}:{probe}": count for (provider, probe), count in PROBE_COUNTS.items()},
                     output)
    test.assertRegex(output, rf"kvserver:request \(by id\): {len(REQUESTS)} in ")
    statuses = sorted(item.status for item in REQUESTS)
    test.assertRegex(output, rf"kvserver:request__done status: {len(REQUESTS)} in .*\n"
                             rf" +min {statuses[0]} .* max {statuses[-1]}\n")


def check_usdt_json(test, output):
    hits = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    expected = []
    for request_id in IDS:
        item = request(request_id)
        expected.append(("kvserver:request__start", {"id": request_id, "op": item.op, "key": item.key}))
        expected.append(("kvserver:request__done", {"id": request_id, "status": item.status}))
    # The document's sample shows the first hits only; the run's are all checked (UsdtTest).
    test.assertGreaterEqual(len(hits), 4, output)
    test.assertEqual([(hit["probe"], {name: value for name, value in hit["args"].items() if name != "latency_ns"})
                      for hit in hits], expected[:len(hits)], output)


def check_usdt_timeline(test, output):
    test.assertRegex(output, rf"kvserver:request \(by id\): {len(REQUESTS)} in ")
    hits = sum(PROBE_COUNTS.values())
    test.assertIn(f"usdt: wrote {hits} hits and {len(REQUESTS)} spans to kvserver.json", output)


CHECKS = {
    "usdt-latency": check_usdt_latency,
    "usdt-json": check_usdt_json,
    "usdt-timeline": check_usdt_timeline,
    "usdt-list": check_usdt_list,
    "usdt-trace": check_usdt_trace,
    "usdt-trace-pid": check_usdt_trace_pid,
    "bpftrace-list": check_bpftrace_list,
    "bpftrace-arguments": check_bpftrace_arguments,
    "bpftrace-failed": check_bpftrace_failed,
    "bpftrace-count": check_bpftrace_count,
    "bpftrace-latency": check_bpftrace_latency,
    "bpftrace-pid": check_consecutive_done_lines,
    "bpftrace-library": check_bpftrace_library,
    "perf-list": check_perf_list,
    "perf-record": check_perf_record,
    "perf-stat": check_perf_stat,
    "perf-remove": check_perf_remove,
    "gdb-list": check_gdb_list,
    "gdb-arguments": check_gdb_arguments,
    "gdb-condition": check_gdb_condition,
    "gdb-log": check_gdb_log,
    "bcc-list": check_bcc_list,
    "bcc-trace": check_bcc_trace,
    "stap-list": check_stap_list,
    "stap-arguments": check_stap_arguments,
}


class DocumentTest(unittest.TestCase):
    def test_recipes_are_the_known_ones(self):
        self.assertEqual(sorted(set(RECIPES) - set(CHECKS)), [], "recipes in the document this test does not know")
        self.assertEqual(sorted(set(CHECKS) - set(RECIPES)), [], "known recipes missing from the document")

    def test_samples_pass_their_checks(self):
        for name, recipe in RECIPES.items():
            if name not in CHECKS:
                continue   # test_recipes_are_the_known_ones says so
            with self.subTest(recipe=name, line=recipe.line):
                CHECKS[name](self, recipe.sample)


class Background:
    """A command running in the background, its stdout and stderr read line by line."""

    def __init__(self, command, cwd, env=None):
        # exec: the signal that stops the command reaches it, not a shell.
        self.process = subprocess.Popen(["bash", "-c", "exec " + command], cwd=cwd, env=env,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, errors="replace")
        self.lines = []
        self._queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.process.stdout:
            self._queue.put(line)
        self._queue.put(None)

    def wait_for(self, pattern, count=1, timeout=30):
        """Reads until `count` lines match `pattern`, the command ends or `timeout` seconds pass."""
        while len([line for line in self.lines if re.search(pattern, line)]) < count:
            try:
                line = self._queue.get(timeout=timeout)
            except queue.Empty:
                return
            if line is None:
                self._queue.put(None)
                return
            self.lines.append(line)

    def stop(self, timeout=30):
        """Ctrl-C (again each second, as a user would), then the whole output."""
        bpftrace_attach.stop(self.process, timeout)
        self._reader.join(timeout=timeout)
        self.process.stdout.close()
        while not self._queue.empty():
            self.lines.append(self._queue.get() or "")
        return "".join(self.lines)


class RecipeTest(unittest.TestCase):
    """Runs recipes in a fresh directory holding ./kvserver and ./libkvstore.so."""
    maxDiff = None

    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="usdt-cookbook-"))
        self.addCleanup(shutil.rmtree, self.directory)
        (self.directory / PROGRAM).symlink_to(OPTIONS.program)
        (self.directory / LIBRARY).symlink_to(OPTIONS.library)

    def recipe(self, name):
        if name not in RECIPES:
            self.fail(f"{OPTIONS.document} has no recipe {name}")
        return RECIPES[name]

    def run_recipe(self, name, commands=None, env=None):
        """Runs the recipe's commands (or `commands`) with bash -e; returns stdout and stderr."""
        # Output to a file, as to a terminal: `perf record` writes to a pipe instead of perf.data.
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as output:
            completed = subprocess.run(["bash", "-e", "-c", commands or self.recipe(name).commands],
                                       cwd=self.directory, env=env, stdin=subprocess.DEVNULL,
                                       stdout=output, stderr=subprocess.STDOUT, timeout=120)
            output.seek(0)
            text = output.read()
        self.assertEqual(completed.returncode, 0, f"recipe {name}:\n{text}")
        return text

    def check_recipe(self, name, output):
        with self.subTest(recipe=name):
            CHECKS[name](self, output)

    def start_background(self, command, env=None):
        background = Background(command, self.directory, env)
        self.addCleanup(background.stop)
        return background

    def start_server(self, name):
        """Starts the recipe's first command, `./kvserver --serve &`; returns its process.

        On one CPU: tracers read each CPU's buffer of hits in turn, so hits fired on two CPUs
        (a server moved between them under load) can print out of order, and one left in the
        buffer read last is lost when the tracer stops. On one CPU, the hits print in the
        order they fired, and every hit before the last line read has been printed."""
        first = self.recipe(name).command_lines()[0]
        self.assertEqual(shlex.split(first), [f"./{PROGRAM}", "--serve", "&"], f"recipe {name}: start the server first")
        cpu = min(os.sched_getaffinity(0))
        server = subprocess.Popen([f"./{PROGRAM}", "--serve"], cwd=self.directory,
                                  preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        self.addCleanup(server.wait)
        self.addCleanup(server.kill)
        return server

    def tracer_of_server(self, name, server):
        """The recipe's second command, for the server's process id."""
        lines = self.recipe(name).command_lines()
        self.assertEqual(len(lines), 2, f"recipe {name}: the server, then the tracer")
        self.assertIn('"$(pidof kvserver)"', lines[1])
        return lines[1].replace('"$(pidof kvserver)"', str(server.pid))


class UsdtTest(RecipeTest):
    """usdt's own command, from the build tree (--usdt), on PATH as the recipes call it."""

    def setUp(self):
        super().setUp()
        self.env = dict(os.environ, PATH=f"{Path(OPTIONS.usdt).parent}{os.pathsep}{os.environ['PATH']}")

    def test_list(self):
        self.check_recipe("usdt-list", self.run_recipe("usdt-list", env=self.env))

    def test_trace(self):
        require_tracer(self, "bpftrace")
        self.check_recipe("usdt-trace", self.run_recipe("usdt-trace", env=self.env))

    def test_answers(self):
        require_tracer(self, "bpftrace")
        for name in ("usdt-latency", "usdt-json", "usdt-timeline"):
            output = self.run_recipe(name, env=self.env)
            self.check_recipe(name, output)
            if name == "usdt-json":
                self.assertEqual(output.count("\n{"), 2 * len(REQUESTS), output)
        trace = json.loads((self.directory / "kvserver.json").read_text())
        self.assertEqual(sum(event["ph"] == "b" for event in trace["traceEvents"]), len(REQUESTS))

    def test_trace_pid(self):
        require_tracer(self, "bpftrace")
        server = self.start_server("usdt-trace-pid")
        tracer = self.start_background(self.tracer_of_server("usdt-trace-pid", server), env=self.env)
        tracer.wait_for(USDT_HIT, count=len(REQUESTS) + 1)
        self.check_recipe("usdt-trace-pid", tracer.stop())


class BpftraceTest(RecipeTest):
    def setUp(self):
        require_tracer(self, "bpftrace")
        super().setUp()

    def test_list(self):
        self.check_recipe("bpftrace-list", self.run_recipe("bpftrace-list"))

    def test_programs_under_c(self):
        for name in ("bpftrace-arguments", "bpftrace-failed", "bpftrace-count", "bpftrace-latency"):
            self.check_recipe(name, self.run_recipe(name))

    def test_pid(self):
        server = self.start_server("bpftrace-pid")
        tracer = self.start_background(self.tracer_of_server("bpftrace-pid", server))
        tracer.wait_for(r"^request \d+: ", count=len(REQUESTS) + 1)
        self.check_recipe("bpftrace-pid", tracer.stop())

    def test_library(self):
        lines = self.recipe("bpftrace-library").command_lines()
        self.assertEqual(len(lines), 2, "bpftrace-library: the tracer, then the program")
        self.assertEqual(shlex.split(lines[1], comments=True), [f"./{PROGRAM}"])
        self.assertEqual(lines[0].count("-e '"), 1)
        # BEGIN fires once every probe is attached: the program starts only then.
        tracer = self.start_background(lines[0].replace("-e '", "-e 'BEGIN { printf(\"READY\\n\"); } "))
        tracer.wait_for(r"^READY$")
        self.assertIn("READY\n", tracer.lines, "".join(tracer.lines))
        self.run_recipe("bpftrace-library", lines[1])
        tracer.wait_for(r"^lookup ", count=PROBE_COUNTS["kvstore", "lookup"])
        self.check_recipe("bpftrace-library", tracer.stop())


class PerfTest(RecipeTest):
    EVENTS = ("sdt_kvserver:*", "sdt_kvstore:*")

    def setUp(self):
        require_tracer(self, "perf", package="linux-perf")
        super().setUp()
        # Events left by an interrupted run would make the recipes' `perf probe` fail.
        self.delete_events()
        self.addCleanup(self.delete_events)
        self.addCleanup(subprocess.run, ["perf", "buildid-cache", "--remove", OPTIONS.program], capture_output=True)

    def delete_events(self):
        subprocess.run(["perf", "probe", "-q", *(option for event in self.EVENTS for option in ("-d", event))],
                       capture_output=True)

    def test_list_record_count_remove(self):
        # In this order: each recipe uses the events the ones before it made.
        for name in ("perf-list", "perf-record", "perf-stat", "perf-remove"):
            self.check_recipe(name, self.run_recipe(name))
        self.assertNotRegex(subprocess.run(["perf", "probe", "-l"], capture_output=True, text=True).stdout,
                            r"sdt_kv(server|store):")


class GdbTest(RecipeTest):
    def setUp(self):
        require_tracer(self, "gdb", needs_root=False)
        super().setUp()

    def test_recipes(self):
        for name in ("gdb-list", "gdb-arguments", "gdb-condition", "gdb-log"):
            self.check_recipe(name, self.run_recipe(name))


# Debian's own kernel headers, which tests/install-dependencies.sh unpacks where the running
# kernel has none.
DEBIAN_KERNEL_HEADERS = Path("/var/cache/usdt-tests/kernel-headers/build")


def bcc_kernel_source():
    """Where bcc finds kernel headers to compile its BPF programs with: "" where libbcc 0.26
    finds the running kernel's own, else Debian's unpacked ones, else None."""
    release = platform.release()
    if os.environ.get("BCC_KERNEL_SOURCE") or Path(f"/lib/modules/{release}/build").is_dir() \
            or Path("/sys/kernel/kheaders.tar.xz").exists():
        return ""
    return str(DEBIAN_KERNEL_HEADERS) if DEBIAN_KERNEL_HEADERS.is_dir() else None


class BccTest(RecipeTest):
    """bcc's trace compiles a BPF program against kernel headers: the running kernel's, or
    Debian's (tests/install-dependencies.sh unpacks them for a kernel without). Without any,
    the recipe runs with -v up to that point, bcc finding the probe in the running server and
    printing how it would read each argument, and fails where tracers are required."""

    def test_list(self):
        require_tracer(self, "tplist-bpfcc", needs_root=False, package="bpfcc-tools")
        self.check_recipe("bcc-list", self.run_recipe("bcc-list"))

    def test_trace(self):
        require_tracer(self, "trace-bpfcc", package="bpfcc-tools")
        server = self.start_server("bcc-trace")
        command = self.tracer_of_server("bcc-trace", server)
        kernel_source = bcc_kernel_source()
        if kernel_source is not None:
            if kernel_source:
                os.environ["BCC_KERNEL_SOURCE"] = kernel_source
            tracer = self.start_background(command)
            tracer.wait_for(r" request__done +request \d+: ", count=len(REQUESTS) + 1, timeout=60)
            # What it printed while tracing: a Ctrl-C that arrives while trace-bpfcc prints a hit
            # is lost (ctypes swallows exceptions raised in its callbacks), and until one is
            # heeded it prints on, with a hit dropped now and then.
            printed = "".join(tracer.lines)
            tracer.stop()
            self.check_recipe("bcc-trace", printed)
            return
        self.assertTrue(command.startswith("trace-bpfcc "))
        tracer = self.start_background(command.replace("trace-bpfcc ", "trace-bpfcc -v ", 1))
        tracer.process.wait(timeout=60)
        output = tracer.stop()
        # example-project/kvserver.d: request__done(uint64_t id, int status, uint64_t latency_ns).
        readers = re.findall(r"_bpf_readarg_probe_request__done_\d+_(\d+)\(.*\n.*sizeof\((\w+)\)", output)
        self.assertEqual(readers, [("1", "uint64_t"), ("2", "int32_t"), ("3", "uint64_t")], output)
        self.assertIn("Unable to find kernel headers", output)
        missing = (f"no kernel headers: none for {platform.release()}, and no {DEBIAN_KERNEL_HEADERS} "
                   f"(tests/install-dependencies.sh tests unpacks Debian's)")
        if tracers_required():
            self.fail(f"USDT_REQUIRE_TRACERS=1 but bcc's trace ran only up to compiling: {missing}")
        sys.stderr.write(f"bcc-trace checked up to compiling its BPF program: {missing}\n")


class SystemTapTest(RecipeTest):
    """SystemTap builds a kernel module from each script, which needs the kernel's build tree
    and a kernel that loads modules (CONFIG_MODULES); a machine may have neither. The recipes run with a stub tree (`-r`) as far as
    SystemTap goes without building: the listing fully, the script to pass 3 (`-p3`:
    translated to C, the probe and every `$argN` resolved in the program)."""

    def setUp(self):
        require_tracer(self, "stap", needs_root=False, package="systemtap")
        super().setUp()
        self.kernel_tree = stub_kernel_tree(self.directory / "kernel")
        self.env = dict(os.environ, SYSTEMTAP_DIR=str(self.directory / "systemtap"))

    def with_stub_tree(self, name, options):
        commands = self.recipe(name).commands
        self.assertRegex(commands, r"(?m)^stap ")
        return re.sub(r"(?m)^stap ", " ".join(["stap", *options, "-r", str(self.kernel_tree), ""]), commands)

    def test_list(self):
        self.check_recipe("stap-list", self.run_recipe("stap-list", self.with_stub_tree("stap-list", []), self.env))

    def test_arguments_translate(self):
        translated = self.run_recipe("stap-arguments", self.with_stub_tree("stap-arguments", ["-p3"]), self.env)
        marks = re.findall(r'STAP_PROBE_INIT\(.*\.mark\(\\"(\w+)\\"\)', translated)
        self.assertEqual(marks, ["request__start"], translated)
        # The script reads $arg1, $arg2 and $arg3, each from its register.
        self.assertEqual(len(re.findall(r"u_fetch_register\(\d+\)", translated)), 3, translated)


# --tool -> the test classes it runs.
TOOL_TESTS = {
    "usdt": ["UsdtTest"],
    "document": ["DocumentTest"],
    "bpftrace": ["BpftraceTest"],
    "perf": ["PerfTest"],
    "gdb": ["GdbTest"],
    "bcc": ["BccTest"],
    "systemtap": ["SystemTapTest"],
}


def add_options(parser):
    parser.add_argument("--document", required=True)
    parser.add_argument("--program", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--tool", choices=sorted(TOOL_TESTS), required=True)
    parser.add_argument("--usdt", help="the build tree's bin/usdt (--tool usdt)")


if __name__ == "__main__":
    OPTIONS, _ = parse_options(add_options)
    try:
        RECIPES.update(recipes.read(Path(OPTIONS.document)))
    except recipes.RecipeError as error:
        sys.exit(str(error))
    sys.argv[1:] = sys.argv[1:] or TOOL_TESTS[OPTIONS.tool]
    main()
