"""`usdt trace`, run through the build tree's launcher (bin/usdt) on this directory's programs:
one line per hit with the arguments named and formatted as the .d files declare them;
the stapsdt-notes fallback (sys/sdt.h) and a provider file given on the command line; a
command after `--` (its status is usdt's), a running process (-p, with its shared library's
probes, a library it has not loaded yet named, and one it loads while traced, in a bpftrace
of its own), Ctrl-C; and each error that says what is missing: root, bpftrace, probes.
Programs shaped like real ones: probes only in the libraries a program links or dlopen()s,
one static library's probe in two shared libraries of one process (which bpftrace 0.17's -p
mixes up), a C++ process (libstdc++ has probes too), paths with unusual characters, and
string literals nothing but the tracer reads.

What the programs fire is written here from their sources (programs/*.c), not taken from a
tracer. Everything but --script and the errors needs root and bpftrace.

Here: --script (ScriptTest), the errors (ErrorTest) and a Ctrl-C while usdt starts
(StartupInterruptTest). CTest runs every class of usdt trace's tests through this module, by
name (tool.trace_script, tool.trace, tool.bpftrace_releases): LiveTest is test_trace_live.py's,
StringsTest test_trace_strings.py's,
and the tests of what usdt makes of what it reads are test_trace_output.py's. What the tests
share is trace_support.py.
"""

import os
import re
import subprocess
import tempfile
from pathlib import Path

import launcher
import usdt_testing
from test_trace_live import LiveTest
from test_trace_output import EarlyHitsTest, ElfReadingTest, SeveralTracersTest, UnreadStringsTest
from test_trace_strings import StringsTest
from trace_support import (CTRL_C_DROPPED, CTRL_C_IN_A_CALLBACK, INTERRUPT_DELAYS, KVSERVER_PROBES, OPTIONS, PROGRAMS, TRACE_TIMEOUT,
                           UNUSUAL_DIRECTORY, TraceTestCase, bpftrace_path, copy_programs, counted, interrupted,
                           parse_arguments, start_loading_late, start_waiting, usdt, usdt_command,
                           without_glibc_probes)

# The classes of the other modules that CTest names.
OTHER_MODULES_CLASSES = (LiveTest, EarlyHitsTest, ElfReadingTest, SeveralTracersTest, UnreadStringsTest,
                         StringsTest)


class ScriptTest(TraceTestCase):
    """--script prints the bpftrace program: no root, no bpftrace needed."""

    def test_each_probe_prints_its_arguments_by_name_and_type(self):
        result = usdt("trace", PROGRAMS["kvserver"], "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        path = os.path.realpath(PROGRAMS["kvserver"])
        # A record per hit, for bpftrace -f json (hits.py): a printf of the numbers, each with its
        # argument's signedness (a string's pointer, then whether its byte after the cut is not
        # NUL), then a printf per string, both naming the hit by thread and time.
        # Each probe counts its hits, for the account of those lost (test_trace_answers.py).
        self.assertIn(f'usdt:"{path}":kvcache:fill /@usdt_on/\n{{\n{counted("@usdt_hits[0]")}'
                      '    $usdt_time = nsecs;\n'
                      '    printf("usdt-hit 0 %llu %d %d 0x%lx %llu %llu %lld %d %s",\n'
                      '           $usdt_time, pid, tid, reg("ip"), arg0, arg1, arg2, strncmp(str(arg1 + 63, 2), "", 1), '
                      'comm);\n'
                      '    printf("usdt-string %d %llu %s",\n'
                      '           tid, $usdt_time, str(arg1, 64));\n}', result.stdout)
        self.assertIn(f'usdt:"{path}":kvcache:get /@usdt_on/\n{{\n{counted("@usdt_hits[1]")}'
                      '    $usdt_time = nsecs;\n'
                      '    printf("usdt-hit 1 %llu %d %d 0x%lx %llu %lld %llu %llu %s",\n'
                      '           $usdt_time, pid, tid, reg("ip"), arg0, arg1, arg2, arg3, comm);\n}', result.stdout)
        self.assertIn(f'usdt:"{path}":kvserver:request__done /@usdt_on/\n{{\n{counted("@usdt_hits[3]")}'
                      '    $usdt_time = nsecs;\n'
                      '    printf("usdt-hit 3 %llu %d %d 0x%lx %llu %lld %llu %s",\n'
                      "           $usdt_time, pid, tid, reg(\"ip\"), arg0, arg1, arg2, comm);\n}", result.stdout)

    def test_a_binary_without_a_slash_is_a_program_on_path(self):
        # As the command after `--` is (`usdt trace python3 -- python3 app.py`); the operands
        # after BINARY keep their rule: with a '/' a file, without a pattern.
        kvserver = Path(PROGRAMS["kvserver"])
        environment = {"PATH": f"{kvserver.parent}:{os.environ['PATH']}"}
        result = usdt("trace", kvserver.name, "kvcache:tick", "--script", environment=environment)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertIn(f'usdt:"{kvserver}":kvcache:tick /@usdt_on/\n', result.stdout)
        self.assert_error(usdt("trace", "no-such-program-here", "--script", environment=environment),
                          "no-such-program-here: no such file here, and no program of that name on PATH")

    def test_the_gate_says_where_it_closed(self):
        # usdt closes the gate on each CPU in turn; the line each prints comes after the hits
        # that CPU's buffer holds, and tells usdt it may stop bpftrace without losing one.
        result = usdt("trace", PROGRAMS["kvserver"], "--script")
        self.assertRegex(result.stdout, r'tracepoint:syscalls:sys_enter_kill /pid == \d+/\n\{\n    @usdt_on = 0;\n'
                                        r'    printf\("usdt-trace: closed %d\\n", cpu\);\n\}')

    def test_libraries_usdt_did_not_build_only_when_a_pattern_names_them(self):
        # cxxapp links libstdc++, whose sys/sdt.h probes have no .note.usdt records.
        quiet = usdt("trace", PROGRAMS["cxxapp"], "--script")
        self.assertEqual((quiet.returncode, quiet.stderr), (0, ""))
        self.assertIn(":cxxapp:work /@usdt_on/\n", quiet.stdout)
        self.assertNotIn("libstdc++", quiet.stdout)
        named = usdt("trace", PROGRAMS["cxxapp"], "cxxapp:*", "libstdcxx:throw", "--script")
        self.assertEqual((named.returncode, named.stderr), (0, ""))
        self.assertIn(":cxxapp:work /@usdt_on/\n", named.stdout)
        # bpftrace (C++) maps libstdc++ too: its own hits are left out (LiveTest's
        # test_usdt_never_traces_its_own_processes).
        self.assertRegex(named.stdout, r'usdt:"[^"]*libstdc\+\+[^"]*":libstdcxx:throw '
                                       r'/(pid != \d+ && pid != @usdt_tracer && )?@usdt_on/\n')

    def test_a_process_with_patterns(self):
        # With -p, every operand is a pattern; the process's shared library is traced too.
        program = subprocess.Popen([PROGRAMS["kvserver"], "--wait"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(program.stdout.readline(), "ready\n")
            result = usdt("trace", "-p", program.pid, "kvcache:tick", "kvstore:*", "--script")
        finally:
            program.kill()
            program.wait()
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(re.findall(r'^usdt:"\S+/([^/"]+)":(\S+:\S+) /(?:pid == \d+ && )?@usdt_on/$', result.stdout, re.MULTILINE),
                         [("tool_kvserver", "kvcache:tick"), ("libtool_kvstore.so", "kvstore:lookup")])

    def test_names_that_are_not_identifiers_stay_out_of_the_program(self):
        # programs/broken.c: broken:injected's record names its first argument `x"%`.
        result = usdt("trace", PROGRAMS["broken"], "broken:injected", "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        # The program prints no name: the hit's line is written by usdt (hits.text_line).
        self.assertIn('printf("usdt-hit 0 %llu %d %d 0x%lx %lld %lld %s",', result.stdout)
        self.assertNotIn('x"', result.stdout)

    def test_a_link_with_a_plain_name_stands_for_a_path_bpftrace_cannot_take(self):
        # bpftrace 0.17 splits an attach point at ':' even within quotes.
        kvserver = copy_programs(OPTIONS.work_dir / "with:colon", "kvserver", "kvstore")["kvserver"]
        self.assert_error(usdt("trace", kvserver, "--script"),
                          f"{kvserver}: bpftrace cannot attach to a path with a colon, an asterisk or a control "
                          f"character; trace it through a link (ln -s) with a plain name; {kvserver.parent}/")
        link = OPTIONS.work_dir / "kvserver-link"
        link.symlink_to(kvserver)
        result = usdt("trace", link, "kvcache:tick", "--script")
        # The library it loads from its directory ($ORIGIN) cannot be traced there.
        self.assertEqual((result.returncode, result.stderr.count("\n")), (0, 1), result)
        self.assertRegex(result.stderr, r"^usdt: warning: .*/with:colon/libtool_kvstore.so: .*its probes are left out\n")
        self.assertIn(f'usdt:"{link}":kvcache:tick /@usdt_on/\n', result.stdout)

    def test_paths_are_quoted(self):
        # libstdc++.so.6 is a syntax error unquoted; a space, quotes and a backslash are escaped.
        copies = copy_programs(OPTIONS.work_dir / UNUSUAL_DIRECTORY, "kvserver", "kvstore")
        result = usdt("trace", copies["kvserver"], "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertIn(f"usdt:{bpftrace_path(copies['kvserver'])}:kvcache:tick /@usdt_on/\n{{\n", result.stdout)
        self.assertIn(f"usdt:{bpftrace_path(copies['kvstore'])}:kvstore:lookup /@usdt_on/\n{{\n", result.stdout)

    def test_a_file_bpftrace_cannot_attach_to_is_left_out_with_a_warning(self):
        # An '*' in a quoted path is still a wildcard: another file could match it.
        library = copy_programs(OPTIONS.work_dir / "star*", "kvstore")["kvstore"]
        result = usdt("trace", PROGRAMS["kvserver"], library, "--script")
        self.assertEqual(result.returncode, 0, result)
        self.assertEqual(result.stderr, f"usdt: warning: {library}: bpftrace cannot attach to a path with a colon, "
                                        f"an asterisk or a control character; trace it through a link (ln -s) "
                                        f"with a plain name; its probes are left out\n")
        self.assertNotIn("star*", result.stdout)
        self.assertIn("kvstore:lookup", result.stdout)     # the library kvserver loads, from its own directory

    def test_the_libraries_a_program_loads_and_the_files_named(self):
        # tool_twolibs has no probes: libtool_core_a.so, which it links, has; libtool_core_b.so,
        # which it loads with dlopen(), is traced when named (an operand with a '/').
        result = usdt("trace", PROGRAMS["twolibs"], "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(re.findall(r'^usdt:"\S+/([^/"]+)":(\S+:\S+) /(?:pid == \d+ && )?@usdt_on/$', result.stdout, re.MULTILINE),
                         [("libtool_core_a.so", "core:hit")])
        result = usdt("trace", PROGRAMS["twolibs"], PROGRAMS["core_b"], "core:*", "--script")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(re.findall(r'^usdt:"\S+/([^/"]+)":(\S+:\S+) /(?:pid == \d+ && )?@usdt_on/$', result.stdout, re.MULTILINE),
                         [("libtool_core_a.so", "core:hit"), ("libtool_core_b.so", "core:hit")])

    def script_of_process(self, program: subprocess.Popen, *arguments) -> subprocess.CompletedProcess:
        """`usdt trace -p` of the waiting `program`, with `arguments`, --script; the program killed."""
        try:
            return usdt("trace", "-p", program.pid, *arguments, "--script")
        finally:
            program.kill()
            program.communicate()

    def test_one_probe_in_two_files_of_a_process_is_kept_to_it_by_a_predicate(self):
        # Not bpftrace -p, which mixes up the two files' sites: by path, and the process's pid.
        program = start_waiting(PROGRAMS["twolibs"])
        result = self.script_of_process(program)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(sorted(re.findall(r'^usdt:"\S+/([^/"]+)":(\S+:\S+) /(.*) && @usdt_on/$', result.stdout, re.MULTILINE)),
                         [(os.path.basename(PROGRAMS[name]), "core:hit", f"pid == {program.pid}")
                          for name in ("core_a", "core_b")])

    def test_a_process_is_stopped_at_its_dynamic_linker_s_notice_of_a_load(self):
        # Once it has mapped a dlopen()'s libraries (RT_CONSISTENT, 0), before dlopen() returns.
        program = start_loading_late()
        result = self.script_of_process(program)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertRegex(result.stdout, rf'\nuprobe:"(/proc/{program.pid}/root)?/\S*/ld-linux[^"/]*":_dl_debug_state '
                                        rf'/pid == {program.pid}( && @usdt_on)?/\n{{\n'
                                        r'    if \(\*\(int32 \*\)uptr\(\d+\) == 0\) {\n'
                                        r'        printf\("usdt-trace-loaded\\n"\);\n'
                                        r'        signal\("SIGSTOP"\);\n    }\n}\n')

    def test_glibc_s_probes_only_by_pattern_with_a_process(self):
        # A glibc built with sys/sdt.h (Debian unstable's) has probes in every process; where it
        # has none (Debian 12's, 13's), `libc:*` matches nothing.
        program = start_waiting(PROGRAMS["kvserver"])
        try:
            every = usdt("trace", "-p", program.pid, "--script")
            glibc = usdt("trace", "-p", program.pid, "libc:*", "rtld:*", "--script")
        finally:
            program.kill()
            program.communicate()
        self.assertEqual((every.returncode, every.stderr), (0, ""))
        self.assertEqual(re.findall(r'^usdt:"\S+":((?:libc|rtld):\S+)', every.stdout, re.MULTILINE), [])
        if glibc.returncode == 0:
            attached = re.findall(r'^usdt:"\S+":(\w+):\S+', glibc.stdout, re.MULTILINE)
            self.assertEqual(set(attached), {"libc", "rtld"})
            # glibc's memory_* probes pass values at a symbol's address, which bpftrace cannot read.
            self.assertRegex(glibc.stderr, r"^usdt: warning: \S+libc\.so\.6: (libc:memory_\w+ )*libc:memory_\w+: "
                                           r"left out: bpftrace cannot read an argument at a symbol's address "
                                           r"\(8@\d+\+mp_\(%rip\)\)\n\Z")
        else:
            self.assertIn("matches libc:*, rtld:*", glibc.stderr)

    def test_a_process_and_a_file_it_has_not_loaded(self):
        # bpftrace 0.17's -p attaches only to mapped files: by path, and the process's pid.
        program = start_loading_late()
        result = self.script_of_process(program, PROGRAMS["core_b"])
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(sorted(set(re.findall(r'^usdt:"\S+/([^/"]+)":(\S+:\S+) /pid == (\d+)\b', result.stdout,
                                               re.MULTILINE))),
                         [(os.path.basename(PROGRAMS[name]), "core:hit", str(program.pid)) for name in ("core_a", "core_b")])

    def test_patterns_choose_probes(self):
        result = usdt("trace", PROGRAMS["kvserver"], "kvserver:request__*", "--script")
        self.assertEqual(re.findall(r"^usdt:[^:]+:(\S+) /@usdt_on/$", result.stdout, re.MULTILINE),
                         ["kvserver:request__done", "kvserver:request__start"])
        # A provider alone means all of its probes.
        result = usdt("trace", PROGRAMS["kvserver"], "kvcache", "--script")
        self.assertEqual(len(re.findall(r"^usdt:", result.stdout, re.MULTILINE)), 3)


class StartupInterruptTest(TraceTestCase):
    """A Ctrl-C while usdt starts (no root needed: nothing is attached): exit 130 and no
    traceback, whichever moment it comes, or the usual result where usdt was done first."""

    def test_ctrl_c_at_any_moment_of_the_start(self):
        for arguments in (("trace", PROGRAMS["kvserver"], "--script"), ("list", PROGRAMS["kvserver"])):
            for delay in INTERRUPT_DELAYS:
                with self.subTest(arguments=arguments[0], delay=delay):
                    result = interrupted(delay, *arguments)
                    if result.returncode != 0:
                        self.assert_interrupted_quietly(result)
                    else:
                        self.assertEqual(result.stderr, "")
                        self.assertIn("kvcache:fill", result.stdout)

    def test_ctrl_c_where_python_drops_what_its_handler_raises(self):
        for name, module in (("a callback", CTRL_C_IN_A_CALLBACK), ("dropped", CTRL_C_DROPPED)):
            with tempfile.TemporaryDirectory() as directory:
                Path(directory, "sitecustomize.py").write_text(module)
                for arguments in (("trace", PROGRAMS["kvserver"], "--script"), ("list", PROGRAMS["kvserver"])):
                    with self.subTest(module=name, arguments=arguments[0]):
                        self.assert_interrupted_quietly(usdt(*arguments, environment={"PYTHONPATH": directory}))


class ErrorTest(TraceTestCase):
    def test_a_pattern_that_matches_nothing_names_the_probes_there_are(self):
        result = usdt("trace", PROGRAMS["kvserver"], "kvserver:request*", "kvserver:nope", "--script")
        result.stderr = without_glibc_probes(result.stderr)
        self.assert_error(result, f"no probe of {PROGRAMS['kvserver']} matches kvserver:nope; its probes: "
                                  f"{KVSERVER_PROBES}\n")

    def test_a_binary_without_probes(self):
        self.assert_error(usdt("trace", PROGRAMS["plain"]),
                          f"{PROGRAMS['plain']} and the shared libraries it loads have no USDT probes")

    def test_a_file_without_a_slash_is_a_pattern(self):
        # `usdt trace ./app libfoo.so` meant the file: the error says how to name it.
        directory = Path(PROGRAMS["kvserver"]).parent
        result = subprocess.run(usdt_command("trace", PROGRAMS["kvserver"], "libtool_kvstore.so", "--script"),
                                capture_output=True, text=True, cwd=directory, timeout=TRACE_TIMEOUT)
        result.stderr = without_glibc_probes(result.stderr)
        self.assert_error(result, f"no probe of {PROGRAMS['kvserver']} matches libtool_kvstore.so; its probes: "
                                  f"{KVSERVER_PROBES} (to trace the file libtool_kvstore.so too, write "
                                  "./libtool_kvstore.so)")

    def test_usdt_does_not_trace_itself(self):
        # `exec` keeps the shell's pid, $$, through the launcher's own exec: usdt's pid.
        command = [*launcher.direct(OPTIONS.usdt), "trace", "-p"]
        result = subprocess.run(["/bin/sh", "-c", 'exec "$@" $$', "sh", *command], capture_output=True, text=True,
                                timeout=TRACE_TIMEOUT)
        self.assert_error(result, "is this usdt itself, which does not trace itself")

    def test_with_pid_a_file_without_a_slash_is_a_pattern(self):
        # The hint is taken: `./FILE` is the file, loaded by the process or not.
        program = start_loading_late()
        directory = Path(PROGRAMS["core_b"]).parent
        try:
            result = subprocess.run(usdt_command("trace", "-p", program.pid, "libtool_core_b.so", "--script"),
                                    capture_output=True, text=True, cwd=directory, timeout=TRACE_TIMEOUT)
            result.stderr = without_glibc_probes(result.stderr)
            self.assert_error(result, f"no probe of process {program.pid} matches libtool_core_b.so; its probes: "
                                      "core:hit (to trace the file libtool_core_b.so too, write ./libtool_core_b.so)")
            result = subprocess.run(usdt_command("trace", "-p", program.pid, "./libtool_core_b.so", "--script"),
                                    capture_output=True, text=True, cwd=directory, timeout=TRACE_TIMEOUT)
            self.assertEqual((result.returncode, result.stderr), (0, ""))
            self.assertIn(f'usdt:"{PROGRAMS["core_b"]}":core:hit /pid == {program.pid}', result.stdout)
            self.assert_error(usdt("trace", "-p", program.pid, PROGRAMS["plain"]),
                              f"{PROGRAMS['plain']} has no USDT probes")
            # A pattern for a library the process has not loaded yet: naming the file is the way.
            result = usdt("trace", "-p", program.pid, "plugin:*", "--script")
            result.stderr = without_glibc_probes(result.stderr)
            self.assert_error(result, f"no probe of process {program.pid} matches plugin:*; its probes: core:hit (a "
                                      f"library process {program.pid} has not loaded yet is traced when named: "
                                      f"usdt trace -p {program.pid} ./libfoo.so plugin:*)")
        finally:
            program.kill()
            program.communicate()

    def test_a_missing_file(self):
        self.assert_error(usdt("trace", "/nonexistent/app"), "/nonexistent/app")

    def test_binary_or_pid(self):
        self.assert_error(usdt("trace"), "give a BINARY or -p PID to trace")
        self.assert_error(usdt("trace", "-p", os.getpid(), "--", "true"),
                          "-p PID traces a running process; a command after `--` needs a BINARY instead")

    def test_not_root(self):
        if os.geteuid() != 0:
            self.skipTest("runs `usdt trace` as nobody, which needs root to arrange")
        nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--inh-caps=-all"]
        result = usdt("trace", PROGRAMS["kvserver"], prefix=nobody)
        self.assert_error(result, "usdt trace needs root to attach uprobes with bpftrace")

    def test_no_bpftrace(self):
        # Nothing on PATH: the launcher runs under Debian's interpreter, found without PATH.
        result = subprocess.run(["/usr/bin/python3", *usdt_command("trace", PROGRAMS["kvserver"])],
                                capture_output=True, text=True, env=dict(os.environ, PATH="/nonexistent"),
                                timeout=TRACE_TIMEOUT)
        self.assert_error(result, "usdt trace runs bpftrace, which is not installed "
                                  "(Debian/Ubuntu: apt-get install bpftrace)")

    def test_a_bpftrace_older_than_the_minimum(self):
        fake = OPTIONS.work_dir / "old-bpftrace"
        fake.mkdir(parents=True, exist_ok=True)
        (fake / "bpftrace").write_text("#!/bin/sh\necho bpftrace v0.16.0\n")
        (fake / "bpftrace").chmod(0o755)
        result = usdt("trace", PROGRAMS["kvserver"], environment={"PATH": f"{fake}:{os.environ['PATH']}"})
        self.assert_error(result, f"usdt trace needs bpftrace 0.17 or newer, and {fake}/bpftrace is 0.16.0")

    def test_a_provider_file_that_does_not_fit_the_notes(self):
        provider_file = OPTIONS.work_dir / "sizes.d"
        provider_file.write_text("provider kvcache {\n"
                                 "    probe fill(uint32_t id, const char *key, int op);\n};\n")
        self.assert_error(usdt("trace", PROGRAMS["kvserver"], "-d", provider_file, "--script"),
                          f"{provider_file}:2:11: error: kvcache:fill is declared here with arguments "
                          f"of (4, 8, -4), but {PROGRAMS['kvserver']}'s notes say (8, 8, -4)", prefix=str(provider_file))

    def test_a_provider_file_with_an_error(self):
        provider_file = OPTIONS.work_dir / "broken.d"
        provider_file.write_text("provider kvcache {\n    probe x(float f);\n};\n")
        self.assert_error(usdt("trace", PROGRAMS["kvserver"], "-d", provider_file, "--script"),
                          f"{provider_file}:2:13: error: argument type 'float'", prefix=str(provider_file))

    def test_a_provider_file_the_preprocessor_rejects(self):
        # The preprocessor's own diagnostics, which say where, and no traceback.
        provider_file = OPTIONS.work_dir / "includes_missing.d"
        provider_file.write_text('#include "missing_header.h"\nprovider kvcache {\n    probe tick();\n};\n')
        result = usdt("trace", PROGRAMS["kvserver"], "-d", provider_file, "--script")
        self.assertEqual((result.returncode, result.stdout), (1, ""), result)
        self.assertTrue(result.stderr.startswith(f"{provider_file}:1:"), result.stderr)
        self.assertIn("missing_header.h", result.stderr)
        self.assertNotIn("Traceback", result.stderr)

    def test_errors_before_the_program_never_import_jinja2(self):
        # Jinja2, a good part of usdt's start-up, renders the program alone: a Jinja2 that fails
        # to import changes nothing until then.
        fake = OPTIONS.work_dir / "unimportable-modules"
        (fake / "jinja2").mkdir(parents=True, exist_ok=True)
        (fake / "jinja2" / "__init__.py").write_text('raise ImportError("usdt imported jinja2", name="jinja2")\n')
        environment = {"PYTHONPATH": str(fake)}
        self.assert_error(usdt("trace", PROGRAMS["plain"], environment=environment),
                          f"{PROGRAMS['plain']} and the shared libraries it loads have no USDT probes")
        result = usdt("trace", PROGRAMS["kvserver"], "kvserver:nope", "--script", environment=environment)
        result.stderr = without_glibc_probes(result.stderr)
        self.assert_error(result, f"no probe of {PROGRAMS['kvserver']} matches kvserver:nope")
        self.assert_error(usdt("trace", PROGRAMS["kvserver"], "--histogram", "kvserver:nope:x", "--script",
                               environment=environment), "--histogram: no traced probe is named kvserver:nope")


if __name__ == "__main__":
    parse_arguments()
    usdt_testing.main()
