"""What each recipe of docs/cookbook.md must print, written from what kvserver does
(kvserver/): its requests and the hits they make, and one check per recipe, CHECKS[name](test,
output), which test_cookbook.py applies to the recipe's real output and to the sample the
document shows for it."""

import json
import re
from dataclasses import dataclass
from pathlib import Path

import elf_notes


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
