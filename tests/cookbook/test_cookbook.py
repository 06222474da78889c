"""docs/cookbook.md's recipes, extracted from the document (recipes.py) and run against
kvserver and libkvstore.so (kvserver/) in a directory holding both, as a reader runs them
in the build tree. Each recipe has one check (recipe_checks.py), written from what kvserver does; it
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
from pathlib import Path

import bpftrace_attach
import recipes
from recipe_checks import CHECKS, LIBRARY, PROBE_COUNTS, PROGRAM, REQUESTS, USDT_HIT
from systemtap_stub import stub_kernel_tree
from usdt_testing import main, parse_options, require_tracer, tracers_required

OPTIONS = argparse.Namespace()   # from the command line (add_options)
RECIPES = {}                     # name -> recipes.Recipe, read from --document


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
