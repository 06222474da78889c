"""The example project built against an installed usdt with find_package, run plainly, under
gdb, and under the installed `usdt trace` (as root).

gdb needs no root: it stops at each probe and prints its arguments, which are compared with
the transcript below. kvserver's requests are the same on every run (see make_request in
example-project/main.cpp): request N is DEL, PUT or GET for N % 3 == 0, 1, 2, of key
user:(N / 2 % 4), and batches hold four requests.
"""

import re
import unittest

import package_support as package
import usdt_testing

# kvserver --count 5: request 1 PUT user:0 (created), 2 GET user:1 (missing), 3 DEL user:1
# (missing), 4 PUT user:2 (created) | 5 GET user:2 (found).
GDB_TRANSCRIPT = """\
start id=1 op=PUT key=user:0
done id=1 status=201
start id=2 op=GET key=user:1
miss id=2 key=user:1
done id=2 status=404
start id=3 op=DEL key=user:1
miss id=3 key=user:1
done id=3 status=404
start id=4 op=PUT key=user:2
done id=4 status=201
batch=1 requests=4 keys=2 summary=2 PUT 1 GET 1 DEL, 2 misses, keys user:0 user:2
start id=5 op=GET key=user:2
done id=5 status=200
batch=2 requests=1 keys=2 summary=0 PUT 1 GET 0 DEL, 0 misses, keys user:0 user:2
"""

# A breakpoint per probe that prints its arguments (strings cast: gdb types them as integers).
GDB_SCRIPT = """\
break -probe-stap kvserver:request__start
commands
silent
printf "start id=%lu op=%s key=%s\\n", $_probe_arg0, (char *) $_probe_arg1, (char *) $_probe_arg2
continue
end
break -probe-stap kvserver:request__done
commands
silent
printf "done id=%lu status=%d\\n", $_probe_arg0, $_probe_arg1
continue
end
break -probe-stap kvserver:key__miss
commands
silent
printf "miss id=%lu key=%s\\n", $_probe_arg0, (char *) $_probe_arg1
continue
end
break -probe-stap kvserver:batch__done
commands
silent
printf "batch=%u requests=%u keys=%lu summary=%s\\n", $_probe_arg0, $_probe_arg1, $_probe_arg2, (char *) $_probe_arg3
continue
end
run
"""

# The same run under `usdt trace`, less each line's `NSECS pid=PID tid=TID `: arguments named and
# typed as kvserver.d declares them; latencies vary, so they read N.
USDT_TRACE_TRANSCRIPT = """\
kvserver:request__start id=1 op="PUT" key="user:0"
kvserver:request__done id=1 status=201 latency_ns=N
kvserver:request__start id=2 op="GET" key="user:1"
kvserver:key__miss id=2 key="user:1"
kvserver:request__done id=2 status=404 latency_ns=N
kvserver:request__start id=3 op="DEL" key="user:1"
kvserver:key__miss id=3 key="user:1"
kvserver:request__done id=3 status=404 latency_ns=N
kvserver:request__start id=4 op="PUT" key="user:2"
kvserver:request__done id=4 status=201 latency_ns=N
kvserver:batch__done batch=1 requests=4 keys=2 summary="2 PUT 1 GET 1 DEL, 2 misses, keys user:0 user:2"
kvserver:request__start id=5 op="GET" key="user:2"
kvserver:request__done id=5 status=200 latency_ns=N
kvserver:batch__done batch=2 requests=1 keys=2 summary="0 PUT 1 GET 0 DEL, 0 misses, keys user:0 user:2"
"""

# Declared sizes and signs, from kvserver.d.
EXPECTED_ARGUMENTS = {
    "request__start": "8 8 8",
    "request__done": "8 -4 8",
    "key__miss": "8 8",
    "batch__done": "4 4 8 8",
}


class FindPackageConsumerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        setup = package.SETUP
        prefix = package.installed_usdt()
        build = setup.work_dir / "example"
        package.configure(setup.source_dir / "example-project", build, f"CMAKE_PREFIX_PATH={prefix}")
        cls.usdt_dir = package.cache_value(build, "usdt_DIR")
        cls.expected_usdt_dir = str(prefix / "share" / "cmake" / "usdt")
        package.build(build)
        cls.kvserver = build / "kvserver"
        cls.usdt = prefix / "bin" / "usdt"
        cls.bpftrace_script = build / "kvserver.usdt" / "kvserver.bt"

    def test_found_the_installed_package(self):
        self.assertEqual(self.usdt_dir, self.expected_usdt_dir)

    def test_runs_untraced_without_building_summaries(self):
        result = package.run([self.kvserver, "--count", "5", "--interval-ms", "0"])
        self.assertEqual(result.stdout,
                         "kvserver: serving 5 requests, a batch of 4 every 0 ms\n"
                         "kvserver: 5 requests in 2 batches, 2 misses; summaries built for tracers: 0\n")

    def test_rejects_a_bad_command_line(self):
        result = package.run([self.kvserver, "--count", "many"], expect_status=2)
        self.assertIn("usage:", result.stderr)

    def test_has_a_note_per_probe(self):
        notes = package.stapsdt_notes(self.kvserver)
        self.assertEqual({name: package.argument_sizes(arguments) for _, name, arguments in notes},
                         EXPECTED_ARGUMENTS)
        self.assertEqual({provider for provider, _, _ in notes}, {"kvserver"})

    def test_generates_the_bpftrace_script_from_the_installed_templates(self):
        script = self.bpftrace_script.read_text()
        self.assertIn("\nusdt:$1:kvserver:request__start\n", script)
        self.assertIn(' kvserver:request__start id=%llu op=\\"%s\\" key=\\"%s\\"\\n",\n', script)

    def test_gdb_reads_every_probe_argument(self):
        usdt_testing.require_tracer(self, "gdb", needs_root=False)
        script = package.SETUP.work_dir / "probes.gdb"
        script.write_text(GDB_SCRIPT)
        result = package.run(["gdb", "-nx", "-batch", "-x", script,
                              "--args", self.kvserver, "--count", "5", "--interval-ms", "0"])
        printed = [line for line in result.stdout.splitlines()
                   if line.startswith(("start ", "done ", "miss ", "batch="))]
        self.assertEqual("\n".join(printed) + "\n", GDB_TRANSCRIPT)
        # gdb raises the semaphores of the probes it breaks on: the guarded summary was built.
        self.assertIn("summaries built for tracers: 2", result.stdout)


    def test_usdt_trace_prints_named_typed_arguments(self):
        usdt_testing.require_tracer(self, "bpftrace")
        result = package.run([self.usdt, "trace", self.kvserver, "--",
                              self.kvserver, "--count", "5", "--interval-ms", "0"])
        hits = [re.sub(r"^\d+ pid=\d+ tid=\d+ ", "", line) for line in result.stdout.splitlines()
                if line.startswith(tuple("0123456789"))]
        hits = [re.sub(r"latency_ns=\d+", "latency_ns=N", hit) for hit in hits]
        self.assertEqual("\n".join(hits) + "\n", USDT_TRACE_TRANSCRIPT)
        self.assertIn("usdt: tracing 4 probes of", result.stderr)
        self.assertIn("(names and types from kvserver.d)", result.stderr)
        self.assertIn("summaries built for tracers: 2", result.stdout)


class BuildTreeConsumerTest(unittest.TestCase):
    """find_package(usdt) pointed at usdt's own build directory, without installing."""

    def test_example_builds_and_runs_against_the_build_tree(self):
        setup = package.SETUP
        build = setup.work_dir / "example-against-build-tree"
        package.configure(setup.source_dir / "example-project", build, f"usdt_DIR={setup.build_dir}")
        self.assertEqual(package.cache_value(build, "usdt_DIR"), str(setup.build_dir))
        package.build(build)
        result = package.run([build / "kvserver", "--count", "5", "--interval-ms", "0"])
        self.assertIn("kvserver: 5 requests in 2 batches, 2 misses", result.stdout)
        self.assertEqual(package.stapsdt_notes(build / "kvserver")[0][0], "kvserver")


if __name__ == "__main__":
    package.parse_arguments()
    usdt_testing.main()
