"""`usdt trace` with bpftrace attached for real (root): LiveTest, which tool.trace runs through
test_trace.py (and tool.bpftrace_releases in Debian roots); trace_support.py holds what the
tests of usdt trace share. What the programs fire is written from their sources, not taken
from a tracer.
"""

import json
import os
import re
import select
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import usdt_testing
from trace_support import (CXXAPP_HITS, INTERRUPT_DELAYS, KVSERVER_HITS, KVSTORE_HITS, LOADED_HITS, OPTIONS, PROGRAMS,
                           SDT_ONLY_HITS, TRACE_TIMEOUT, TWOLIBS_HITS, UNUSUAL_DIRECTORY, TraceTestCase,
                           copy_programs, hits, interrupted, parse_arguments, start_in_a_chroot,
                           start_in_a_mount_namespace, start_loading_late, start_waiting,
                           stopped_at_the_end, trace_process, usdt, usdt_command)
from usdt_testing import require_tracer


class LiveTest(TraceTestCase):
    """bpftrace attached for real (root)."""

    def setUp(self):
        require_tracer(self, "bpftrace")

    def test_a_command_with_its_status_and_arguments(self):
        # A shell runs the program and exits 3: usdt exits 3, after every hit. The program
        # and the library it loads are copies in a directory whose path must be quoted; an
        # argument with a space reaches the command whole (else the shell exits 1).
        copies = copy_programs(OPTIONS.work_dir / UNUSUAL_DIRECTORY, "kvserver", "kvstore")
        result = usdt("trace", copies["kvserver"], "--", "/bin/sh", "-c",
                      'test "$1" = "a b" || exit 1; "$0" > /dev/null; exit 3', copies["kvserver"], "a b")
        self.assertEqual(result.returncode, 3, result)
        # With the library it loads.
        self.assertIn(f"usdt: tracing 6 probes of {copies['kvserver']}, in 2 files", result.stderr)
        self.assertIn("(names and types from kvcache.d, kvserver.d, kvstore.d)", result.stderr)
        self.assert_hits(result.stdout, KVSERVER_HITS + KVSTORE_HITS)

    def test_probes_described_by_their_notes_only(self):
        result = usdt("trace", PROGRAMS["sdt_only"], "--", PROGRAMS["sdt_only"])
        self.assertEqual(result.returncode, 0, result)
        self.assertIn("(names and types from the stapsdt notes)", result.stderr)
        self.assert_hits(result.stdout, SDT_ONLY_HITS)

    def test_names_from_a_provider_file(self):
        provider_file = OPTIONS.work_dir / "renamed.d"
        provider_file.write_text("provider sdtapp { probe hello(int32_t count, uint64_t total, char letter); };\n")
        result = usdt("trace", PROGRAMS["sdt_only"], "-d", provider_file, "sdtapp:hello", "--", PROGRAMS["sdt_only"])
        self.assertEqual(result.returncode, 0, result)
        self.assertIn("(names and types from renamed.d)", result.stderr)
        self.assert_hits(result.stdout, [("sdtapp:hello", {"count": "-3", "total": "7", "letter": "'x'"})])

    def test_a_running_process_and_its_shared_library(self):
        program = subprocess.Popen([PROGRAMS["kvserver"], "--wait"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(program.stdout.readline(), "ready\n")
            tracer = subprocess.Popen(usdt_command("trace", "-p", program.pid), stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
            announcement = tracer.stderr.readline()
            self.assertIn(f"usdt: tracing 6 probes of process {program.pid}", announcement)
            program.stdin.close()     # the program fires its probes and exits; so does bpftrace
            output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
        finally:
            program.kill()
            program.wait()
        self.assertEqual((tracer.returncode, errors), (0, ""))
        lines = hits(output)
        from_library = [line for line in lines if line[0].startswith("kvstore:")]
        self.assert_hits("\n".join(line for line in output.splitlines() if " kvstore:" not in line),
                         KVSERVER_HITS, pid=program.pid)
        self.assertEqual([(probe, fields) for probe, fields, _ in from_library], KVSTORE_HITS)

    def test_probes_in_the_libraries_a_program_loads(self):
        # The program has none: the library it links has, and the one it dlopen()s when named.
        # The string literals are on pages nothing but the tracer reads: bpftrace reads them as
        # "", usdt from the library's file (the program may have exited), from the first hit on.
        result = usdt("trace", PROGRAMS["twolibs"], "--", PROGRAMS["twolibs"])
        self.assertEqual(result.returncode, 0, result)
        self.assertIn(f"usdt: tracing 1 probe of {PROGRAMS['twolibs']} (names and types from core.d)", result.stderr)
        self.assert_hits(result.stdout, TWOLIBS_HITS[0::2])
        result = usdt("trace", PROGRAMS["twolibs"], PROGRAMS["core_b"], "--", PROGRAMS["twolibs"])
        self.assertEqual(result.returncode, 0, result)
        self.assert_hits(result.stdout, TWOLIBS_HITS)

    def test_one_probe_in_two_libraries_of_a_process(self):
        # bpftrace 0.17's -p attached one library's site to the other (garbage, SIGSEGV):
        # each library's own values, and the program ends as it would untraced. programs/core_a.c
        # and core_b.c pass string literals nothing else reads, on pages the process never
        # touched: with -p, usdt faults the traced files' pages in before attaching.
        for patterns in ((), ("core:hit",)):
            with self.subTest(patterns=patterns):
                program = start_waiting(PROGRAMS["twolibs"])
                result, status = trace_process(program, *patterns)
                self.assertEqual((result.returncode, status), (0, 0), result)
                self.assertEqual(result.stderr, f"usdt: tracing 2 probes of process {program.pid}, in 2 files "
                                                f"(names and types from core.d); Ctrl-C to stop\n")
                self.assert_hits(result.stdout, TWOLIBS_HITS, pid=program.pid)

    def test_a_library_named_before_the_process_loads_it(self):
        # Attached by its path from the start: from the first hit after dlopen(), no bpftrace more.
        output, pid = self.trace_loading_late(
            PROGRAMS["core_b"], says=lambda pid: None,
            announced=lambda pid: f"usdt: tracing 2 probes of process {pid}, in 2 files (names and types from "
                                  f"core.d); Ctrl-C to stop\n")
        self.assert_hits(output, [*LOADED_HITS, *TWOLIBS_HITS], pid=pid)

    def trace_loading_late(self, *arguments, says=None, announced=None, program_name="twolibs"):
        """`usdt trace -p` on tool_twolibs --load-late (or `program_name`'s), which loads
        libtool_core_b.so once usdt has announced it traces (`announced(pid)`, if given: the
        line, or a pattern it matches), then,
        once usdt says it traces that library too (or `says(pid)`, if given; nothing, if that is
        None), fires the rounds and exits: (usdt's standard output, the program's pid)."""
        program = start_loading_late(program_name)
        tracer = subprocess.Popen(usdt_command("trace", "-p", program.pid, *arguments), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        with stopped_at_the_end(tracer, program):
            expected = announced(program.pid) if announced else \
                f"usdt: tracing 1 probe of process {program.pid} (names and types from core.d); Ctrl-C to stop\n"
            if isinstance(expected, re.Pattern):
                self.assertRegex(tracer.stderr.readline(), expected)
            else:
                self.assertEqual(tracer.stderr.readline(), expected)
            program.stdin.write("load\n")
            program.stdin.flush()
            self.assertEqual(program.stdout.readline(), "loaded\n")
            later = says(program.pid) if says else (f"usdt: tracing 1 more probe of process {program.pid}, in "
                                                   f"{PROGRAMS['core_b']}, loaded since (names and types from "
                                                   f"core.d)\n")
            if later is not None:
                self.assertEqual(tracer.stderr.readline(), later)
            program.stdin.close()
            output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
            status = program.wait(timeout=TRACE_TIMEOUT)
        self.assertEqual((tracer.returncode, errors, status), (0, "", 0))
        return output, program.pid

    def test_a_library_the_process_loads_after_usdt_attached(self):
        # From its first hit, the five fired as dlopen() returns: the dynamic linker's notice
        # stops the process until another bpftrace has attached to the library (a line on
        # stderr says so). Two bpftraces: each one's lines in order, their nsecs tell the order
        # of both.
        output, pid = self.trace_loading_late()
        lines = sorted(output.splitlines(), key=lambda line: int(line.split()[0]))
        self.assert_hits("\n".join(lines), LOADED_HITS + TWOLIBS_HITS, pid=pid)

    def test_a_process_with_no_probes_yet_is_traced_once_it_loads_a_library(self):
        # tool_plain has none until it dlopen()s libtool_core_b.so: usdt says it waits (glibc's
        # probes, in Debian unstable's, are not traced unless a pattern names them).
        output, pid = self.trace_loading_late(
            program_name="plain",
            announced=lambda pid: re.compile(
                rf"usdt: tracing no probes of process {pid} yet: it maps (no file with USDT probes|none but "
                rf"glibc's, which a pattern reaches \('libc:\*'\)); waiting for the libraries it loads "
                rf"\(dlopen\(\)\), traced from their first hit; Ctrl-C to stop\n\Z"))
        self.assert_hits(output, LOADED_HITS, pid=pid)

    def test_a_process_stopped_for_a_library_is_resumed_however_usdt_ends(self):
        # While the process waits for the next bpftrace: a Ctrl-C (usdt resumes it as it stops),
        # SIGKILL (usdt's guard does).
        for stop in (signal.SIGINT, signal.SIGKILL):
            with self.subTest(signal=stop.name):
                program = start_loading_late()
                tracer = subprocess.Popen(usdt_command("trace", "-p", program.pid), stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True)
                with stopped_at_the_end(tracer, program):
                    self.assertIn("Ctrl-C to stop", tracer.stderr.readline())
                    program.stdin.write("load\n")
                    program.stdin.flush()
                    while Path(f"/proc/{program.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
                        # Stopped until the next bpftrace has attached, a good while: never loaded before.
                        self.assertEqual(select.select([program.stdout], [], [], 0)[0], [],
                                         "the program was not stopped")
                    tracer.send_signal(stop)
                    tracer.wait(timeout=TRACE_TIMEOUT)
                    tracer.stderr.close()
                    ready, _, _ = select.select([program.stdout], [], [], TRACE_TIMEOUT)
                    self.assertTrue(ready, "the program was left stopped")
                    self.assertEqual(program.stdout.readline(), "loaded\n")
                    program.stdin.close()
                    self.assertEqual(program.wait(timeout=TRACE_TIMEOUT), 0)

    def test_a_library_the_process_loads_after_usdt_attached_as_json(self):
        output, pid = self.trace_loading_late("--json")
        objects = sorted((json.loads(line) for line in output.splitlines()), key=lambda hit: hit["monotonic_ns"])
        self.assertEqual([(hit["type"], hit["probe"], hit["pid"], hit["args"]) for hit in objects],
                         [("hit", probe, pid, {"who": int(fields["who"]), "value": int(fields["value"]),
                                               "from": fields["from"].strip('"')})
                          for probe, fields in LOADED_HITS + TWOLIBS_HITS])

    def test_summaries_leave_out_a_library_the_process_loads_later(self):
        # Counted by the first bpftrace alone: a warning says how to count the library too.
        library = PROGRAMS["core_b"]
        output, pid = self.trace_loading_late(
            "--count", "--json",
            says=lambda pid: f"usdt: warning: process {pid} loaded {library} since usdt started: the summaries "
                             f"count the files traced from the start alone; to include it, name it: "
                             f"usdt trace -p {pid} {library}\n")
        counts = [json.loads(line) for line in output.splitlines()]
        self.assertEqual([(summary["type"], summary["hits"]) for summary in counts], [("counts", {"core:hit": 3})])

    def test_usdt_never_traces_its_own_processes(self):
        # usdt runs the Python interpreter it traces, whose probes fire in every process that
        # runs it: usdt's own are left out, the command's are all there. A copy of the interpreter
        # runs both, so that no other Python on the machine fires them. Python 3.11 (Debian 12)
        # has function__entry, which it fires only while python:line is enabled; 3.12 and later
        # (Debian 13, unstable) have neither: there, an import and the collector's runs, which
        # usdt's own allocations set off too.
        python = Path(shutil.copy(os.path.realpath("/usr/bin/python3"), OPTIONS.work_dir / "python3"))
        provider_file = OPTIONS.work_dir / "python.d"
        if "python:line(" in usdt("list", python).stdout:
            probes, counted, marked, extra, expected = ("python:function__entry", "python:line"), \
                "python:function__entry", ' function="f" ', "def f(): pass\nfor i in range(5): f()\n", 5
            provider_file.write_text("provider python {\n"
                                     "  probe function__entry(const char *file, const char *function, int line);\n"
                                     "  probe line(const char *file, const char *function, int line);\n};\n")
        else:
            probes, counted, marked, extra, expected = ("python:import__find__load__start", "python:gc__start"), \
                "python:import__find__load__start", ' module="colorsys" ', "import colorsys\n", 1
            provider_file.write_text("provider python { probe import__find__load__start(const char *module); };\n")
        # The same calls in every run: -S -I and a fixed hash seed (sets iterate the same way).
        environment = dict(os.environ, PYTHONHASHSEED="0", BPFTRACE_PERF_RB_PAGES="1024")

        def trace(code, *arguments):
            tracer = subprocess.Popen([str(python), OPTIONS.usdt, "trace", python, "-d", provider_file, *arguments,
                                       "--", python, "-S", "-I", "-c", code], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=environment)
            try:
                output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
            finally:
                if tracer.poll() is None:
                    tracer.kill()
                    tracer.wait()
            self.assertEqual(tracer.returncode, 0, errors)
            return output, tracer.pid

        calls = "import os\nprint(os.getpid())\n" + extra
        for patterns in (probes, ()):
            with self.subTest(patterns=patterns):
                output, usdt_pid = trace(calls, *patterns)
                command_pid = next(int(line) for line in output.splitlines() if line.isdigit())
                # A file's name may hold spaces: the fields that matter come first.
                lines = [(re.match(r"\d+ pid=(\d+) tid=\d+ (\S+)", line), line) for line in output.splitlines()
                         if not line.isdigit()]
                self.assertNotIn(None, [match for match, _ in lines], output[-2000:])
                self.assertEqual({int(match[1]) for match, _ in lines}, {command_pid})
                self.assertNotEqual(usdt_pid, command_pid)
                self.assertEqual(sum(1 for match, line in lines if match[2] == counted and marked in line + " "),
                                 expected)
        # Counted in maps: the command's own, `expected` more than the same program without its
        # calls (usdt's own would add a different number each run).
        counts = {}
        for code in (calls, calls.replace(extra, "pass\n")):
            output, _ = trace(code, "--count", "--json", *probes)
            counts[code] = next(json.loads(line) for line in output.splitlines()
                                if line.startswith("{"))["hits"][counted]
        self.assertEqual(counts[calls] - min(counts.values()), expected, counts)

    def test_pointers_nothing_can_read_crash_neither_the_program_nor_usdt(self):
        # tests/integration/programs/bad_pointers.h: NULL, (const char *)1, unmapped and
        # PROT_NONE memory, an unterminated string running into it, then "good"; to bad:text
        # (a semaphore; the C++ API in the C++ program) and bad:unguarded (none, a macro).
        # usdt's status is the program's own.
        for name in ("bad_strings_c", "bad_strings_cpp"):
            with self.subTest(program=name):
                result = usdt("trace", PROGRAMS[name], "--", PROGRAMS[name])
                self.assertEqual(result.returncode, 0, result)
                lines = hits(result.stdout)
                self.assertEqual([(probe, fields["number"]) for probe, fields, _ in lines],
                                 [(probe, str(number)) for number in range(1, 7)
                                  for probe in ("bad:text", "bad:unguarded")])
                texts = [fields["text"] for _, fields, _ in lines]
                self.assertEqual(texts[:2] + texts[-2:], ['NULL', 'NULL', '"good"', '"good"'])
                for text in texts[2:-2]:
                    # Read as "" by bpftrace; usdt says what it found, if it found the process.
                    self.assertRegex(text, r'^(""|<unreadable:0x[0-9a-f]+>)$')

    def test_a_cxx_process_and_libstdcxx(self):
        # libstdc++ maps as libstdc++.so.6.0.30: the path of its probes must be quoted.
        program = start_waiting(PROGRAMS["cxxapp"])
        result, status = trace_process(program)
        self.assertEqual((result.returncode, status), (0, 0), result)
        self.assertIn(f"usdt: tracing 4 probes of process {program.pid}, in 2 files "
                      f"(names and types from cxxapp.d, the stapsdt notes)", result.stderr)
        self.assert_hits(result.stdout, CXXAPP_HITS, pid=program.pid)
        # Counted, libstdc++'s probes nobody asked for are listed only where they fired (no
        # libstdcxx:rethrow): a summary says what was asked for.
        program = start_waiting(PROGRAMS["cxxapp"])
        result, status = trace_process(program, "--count")
        self.assertEqual((result.returncode, status), (0, 0), result)
        self.assertEqual(re.findall(r"^ +(\d+) +[\d.]+  (\S+)$", result.stdout, re.M),
                         [("2", "cxxapp:work"), ("1", "libstdcxx:catch"), ("1", "libstdcxx:throw")])

    def test_a_process_in_a_path_with_unusual_characters(self):
        # By path, test_a_command_with_its_status.
        copies = copy_programs(OPTIONS.work_dir / UNUSUAL_DIRECTORY, "kvserver", "kvstore")
        program = start_waiting(copies["kvserver"])
        result, status = trace_process(program)
        self.assertEqual((result.returncode, status), (0, 0), result)
        self.assert_hits(result.stdout, KVSERVER_HITS + KVSTORE_HITS, pid=program.pid)

    def test_a_process_in_a_chroot(self):
        # /proc/PID/maps names its files at their paths here, but bpftrace 0.17's -p looked for
        # them in its root ("couldn't get argument 0"): by those paths and its pid.
        program = start_in_a_chroot(OPTIONS.work_dir / "chroot", "kvserver", "kvstore")
        self.assert_traced_in_its_own_root(program, re.escape(f"{OPTIONS.work_dir}/chroot/app/"))

    def test_a_process_in_a_mount_namespace_of_its_own(self):
        # A container's: at the paths it maps, this system has other files (tool_plain's), or
        # none. Its files are read, listed and attached to through /proc/PID/root, or where the
        # path is its namespace's (in a Debian root, a chroot), through the mapping itself.
        directory = OPTIONS.work_dir / "namespaced"
        program = start_in_a_mount_namespace(directory, "kvserver", "kvstore")
        self.assert_traced_in_its_own_root(
            program, rf"/proc/{program.pid}/(root{re.escape(str(directory))}/|map_files/[0-9a-f]+-[0-9a-f]+$)")

    def assert_traced_in_its_own_root(self, program: subprocess.Popen, path_pattern: str):
        """`usdt list` and `usdt trace -p` of the waiting tool_kvserver `program` find its files at
        paths that match `path_pattern`, and every hit."""
        try:
            listed = usdt("list", "--json", program.pid)
        except BaseException:
            program.kill()
            program.wait()
            raise
        self.assertEqual((listed.returncode, listed.stderr), (0, ""), listed)
        modules = {module["path"]: {probe["provider"] for probe in module["probes"]}
                   for module in json.loads(listed.stdout)["modules"]}
        ours = {path: providers for path, providers in modules.items() if providers - {"libc", "rtld"}}
        self.assertEqual(sorted(ours.values(), key=sorted), [{"kvcache", "kvserver"}, {"kvstore"}], modules)
        for path in ours:
            self.assertRegex(path, path_pattern)
        result, status = trace_process(program)
        self.assertEqual((result.returncode, status), (0, 0), result)
        self.assertIn(f"usdt: tracing 6 probes of process {program.pid}, in 2 files", result.stderr)
        self.assert_hits(result.stdout, KVSERVER_HITS + KVSTORE_HITS, pid=program.pid)

    def test_ctrl_c_stops_cleanly(self):
        # As a terminal's Ctrl-C does: SIGINT to usdt's whole process group. Without
        # PYTHONUNBUFFERED, as a user's pipe (`usdt trace ... | grep`): lines must come as hits do.
        environment = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
        tracer = subprocess.Popen(usdt_command("trace", PROGRAMS["kvserver"]), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, start_new_session=True, env=environment)
        watchdog = threading.Timer(TRACE_TIMEOUT, tracer.kill)
        watchdog.start()
        self.addCleanup(watchdog.cancel)
        try:
            self.assertIn("Ctrl-C to stop", tracer.stderr.readline())
            bpftrace = subprocess.run(["pgrep", "-P", str(tracer.pid), "bpftrace"], capture_output=True,
                                      text=True).stdout.split()
            self.assertEqual(len(bpftrace), 1, "one bpftrace child")
            for _ in range(2):
                subprocess.run([PROGRAMS["kvserver"]], stdout=subprocess.DEVNULL, check=True)
            # Ctrl-C stops bpftrace at once, dropping hits it has not printed yet: wait for them.
            printed = [tracer.stdout.readline() for _ in range(len(KVSERVER_HITS + KVSTORE_HITS) * 2)]
            os.killpg(tracer.pid, signal.SIGINT)
            output, errors = tracer.communicate(timeout=TRACE_TIMEOUT)
            output = "".join(printed) + output
        finally:
            if tracer.poll() is None:
                tracer.kill()
        self.assertEqual((tracer.returncode, errors), (0, ""))
        self.assert_hits(output, (KVSERVER_HITS + KVSTORE_HITS) * 2)
        self.assertFalse(Path(f"/proc/{bpftrace[0]}").exists(), "bpftrace outlived usdt trace")

    def test_ctrl_c_while_starting_or_attaching(self):
        # Before the announcement: 130, nothing printed, no bpftrace left; after it, a plain stop
        # (130 where the Ctrl-C came as bpftrace attached).
        for delay in INTERRUPT_DELAYS:
            with self.subTest(delay=delay):
                result = interrupted(delay, "trace", PROGRAMS["kvserver"])
                if "Ctrl-C to stop" in result.stderr:
                    self.assertIn(result.returncode, (0, 130), result)
                    self.assertNotIn("Traceback", result.stderr)
                else:
                    self.assert_interrupted_quietly(result)
        self.assertEqual(subprocess.run(["pgrep", "-f", f"bpftrace .*{PROGRAMS['kvserver']}"], capture_output=True,
                                        text=True).stdout, "", "a bpftrace outlived usdt")

    def test_bpftrace_does_not_outlive_usdt(self):
        # One `usdt trace` per signal, all attached, then all signalled, at once: nothing fires
        # their probes, and each bpftrace takes its time to stop.
        stops = (signal.SIGTERM, signal.SIGHUP, signal.SIGKILL)
        tracers = [subprocess.Popen(usdt_command("trace", PROGRAMS["kvserver"]), stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True, start_new_session=True) for _ in stops]
        for tracer in tracers:
            self.addCleanup(tracer.wait)
            self.addCleanup(tracer.kill)
        children = []
        for tracer in tracers:
            self.assertIn("Ctrl-C to stop", tracer.stderr.readline())
            bpftrace = subprocess.run(["pgrep", "-P", str(tracer.pid), "bpftrace"], capture_output=True,
                                      text=True).stdout.split()
            self.assertEqual(len(bpftrace), 1, "one bpftrace child")
            children.append(bpftrace[0])
        for stop, tracer in zip(stops, tracers):
            os.kill(tracer.pid, stop)   # usdt alone
        deadline = time.monotonic() + TRACE_TIMEOUT
        for stop, tracer, bpftrace in zip(stops, tracers, children):
            with self.subTest(signal=stop.name):
                tracer.wait(timeout=TRACE_TIMEOUT)
                while Path(f"/proc/{bpftrace}/exe").exists() and time.monotonic() < deadline:
                    time.sleep(0.1)
                self.assertFalse(Path(f"/proc/{bpftrace}/exe").exists(), f"bpftrace outlived {stop.name}")

if __name__ == "__main__":
    parse_arguments()
    usdt_testing.main()
