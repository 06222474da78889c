"""`usdt list`, run through the build tree's launcher (bin/usdt) on the programs of this
directory's CMakeLists.txt: names and declared types from .note.usdt as the .d files
write them (example-project/kvserver.d, probes/kvcache.d, probes/kvstore.d), the stapsdt-notes fallback (sys/sdt.h, and records that disagree with their
notes), JSON, --libraries, running processes with their semaphores (inactive; active while
bpftrace is attached, as root), listing as `nobody`, the installed and moved command, and
every error as one `usdt: error:` line.

Addresses, sites and argument specs are checked against readelf (tests/support/elf_notes.py);
list_support.py holds what the tests share.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import bpftrace_attach
import elf_notes
import usdt_testing
from list_support import (KVSERVER_ARGUMENTS, KVSERVER_HEADING, KVSERVER_SIGNATURES, KVSERVER_SOURCES, NOTES_FALLBACK,
                          OPTIONS, PROGRAMS, SHARED_SEMAPHORE_PAGE, ListTestCase, elf_dynamic, elf_notes_spec, files_in,
                          kvserver_table, kvstore_table, ldd, no_such_pid, note_sites, parse_arguments,
                          semaphore_address, table, usdt, waiting_kvserver, yama_ptrace_scope)
from usdt_testing import require_tracer
from usdtgen import VERSION


class FileTest(ListTestCase):
    def test_names_and_declared_types_come_from_the_d_file(self):
        kvserver = PROGRAMS["kvserver"]
        self.assert_lists(usdt("list", kvserver), [f"{kvserver}: {KVSERVER_HEADING}", *kvserver_table(kvserver)])
        kvstore = PROGRAMS["kvstore"]
        self.assert_lists(usdt("list", kvstore), [f"{kvstore}: 1 probe", *kvstore_table(kvstore)])

    def test_a_name_without_a_slash_is_a_program_on_path_else_a_file_here(self):
        # As a shell runs it (`usdt list python3`); a library is no program: the file here.
        kvserver, kvstore = Path(PROGRAMS["kvserver"]), Path(PROGRAMS["kvstore"])
        on_path = usdt("list", kvserver.name, environment={"PATH": f"{kvserver.parent}:{os.environ['PATH']}"})
        self.assert_lists(on_path, [f"{kvserver}: {KVSERVER_HEADING}", *kvserver_table(kvserver)])
        here = usdt("list", kvstore.name, cwd=kvstore.parent)
        self.assert_lists(here, [f"{kvstore.name}: 1 probe", *kvstore_table(kvstore)])

    def test_json_has_every_probe_site_and_argument(self):
        kvserver = PROGRAMS["kvserver"]
        result = usdt("list", "--json", kvserver)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        listing = json.loads(result.stdout)
        self.assertEqual((listing["version"], listing["pid"], listing["warnings"]), (1, None, []))
        (module,) = listing["modules"]
        self.assertEqual((module["path"], module["warnings"]), (kvserver, []))
        self.assertEqual([f"{probe['provider']}:{probe['name']}" for probe in module["probes"]],
                         list(KVSERVER_SIGNATURES))
        for probe in module["probes"]:
            name = f"{probe['provider']}:{probe['name']}"
            notes = note_sites(kvserver, name)
            specs = [elf_notes_spec(spec) for spec in notes[0].arguments]
            self.assertEqual(len(specs), len(KVSERVER_ARGUMENTS[name]))
            semaphore = None
            if name != "kvcache:tick":
                semaphore = {"address": semaphore_address(kvserver, name),
                             "value": None, "active": None, "error": None}
            self.assertEqual(probe, {
                "provider": probe["provider"], "name": probe["name"], "source": KVSERVER_SOURCES[name],
                "semaphore": semaphore,
                "arguments": [{"index": index, "name": argument, "type": declared, "kind": kind,
                               "size": spec["size"], "signed": spec["signed"]}
                              for index, ((argument, declared, kind), spec)
                              in enumerate(zip(KVSERVER_ARGUMENTS[name], specs))],
                "sites": [{"address": note.location, "semaphore": note.semaphore or None,
                           "arguments": [elf_notes_spec(spec) for spec in note.arguments]} for note in notes],
            })

    def test_verbose_decodes_every_site_argument(self):
        kvserver = PROGRAMS["kvserver"]
        result = usdt("list", "-v", kvserver)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        expected = [f"{kvserver}: {KVSERVER_HEADING}"]
        for line in kvserver_table(kvserver):
            expected.append(line)
            name = next((name for name, signature in KVSERVER_SIGNATURES.items() if line.endswith(signature)), None)
            for note in note_sites(kvserver, name) if name else ():
                arguments = ", ".join(f"{argument[0]} {elf_notes_spec(spec)['type']} in {spec.split('@')[1]}"
                                      for argument, spec in zip(KVSERVER_ARGUMENTS[name], note.arguments))
                expected.append(f"      site 0x{note.location:x}: {arguments or 'no arguments'}")
        self.assertEqual(result.stdout.splitlines(), expected)

    def test_sys_sdt_h_probes_are_described_by_their_notes(self):
        program = PROGRAMS["sdt_only"]
        if not program:
            self.skipTest("<sys/sdt.h> is missing (Debian: apt-get install systemtap-sdt-dev)")
        # count is int32_t, total uint64_t, letter a char: signed on x86-64, unsigned on aarch64.
        letter = "int8_t" if note_sites(program, "sdtapp:hello")[0].arguments[2].startswith("-") else "uint8_t"
        signatures = {"bye": "sdtapp:bye()", "hello": f"sdtapp:hello(int32_t arg0, uint64_t arg1, {letter} arg2)"}
        self.assert_lists(usdt("list", program), [f"{program}: 2 probes", *table(
            {"bye": "none", "hello": "none"}, dict.fromkeys(signatures, "stapsdt notes"), signatures,
            {"bye": 1, "hello": 1})])
        result = usdt("list", "--json", program)
        (module,) = json.loads(result.stdout)["modules"]
        hello = module["probes"][1]
        self.assertEqual((hello["source"], [argument["kind"] for argument in hello["arguments"]]),
                         (None, ["integer"] * 3))

    def test_a_semaphore_on_a_relro_page_is_warned_about(self):
        # A sys/sdt.h semaphore linked by lld: on the file page its GNU_RELRO segment ends on,
        # where the kernel raises it for a tracer that started first; and with every segment
        # on pages of its own.
        if not PROGRAMS["sdt_only"]:
            self.skipTest("<sys/sdt.h> is missing (Debian: apt-get install systemtap-sdt-dev)")
        require_tracer(self, "ld.lld", needs_root=False, package="lld")
        directory = self.work_directory()
        source = Path(__file__).resolve().with_name("programs") / "sdt_semaphore.c"
        for name, flags, warnings in (("relro_page", [], [SHARED_SEMAPHORE_PAGE]),
                                      ("own_pages", ["-Wl,-z,separate-loadable-segments"], [])):
            with self.subTest(name=name):
                program = directory / name
                subprocess.run(["cc", "-O2", "-fuse-ld=lld", *flags, source, "-o", program], check=True)
                result = usdt("list", "--json", program)
                self.assertEqual((result.returncode, result.stderr), (0, ""))
                listing = json.loads(result.stdout)
                self.assertEqual((listing["modules"][0]["warnings"], listing["warnings"]), (warnings, []))
                text = usdt("list", program).stdout.splitlines()
                self.assertEqual(text[3:], [f"  warning: {warning}" for warning in warnings])

    def test_a_kernel_without_semaphore_support_is_warned_about(self):
        # setarch --uname-2.6 makes the kernel report a 2.6 release.
        result = usdt("list", PROGRAMS["kvserver"], command=["setarch", "--uname-2.6"])
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertRegex(result.stdout.splitlines()[-1], r"^warning: the running kernel, Linux 2\.6\.\S+, is "
                                                         r"older than 4\.20 and does not raise semaphores ")
        plain = usdt("list", PROGRAMS["plain"], command=["setarch", "--uname-2.6"])
        self.assertEqual(plain.stdout, f"{PROGRAMS['plain']}: no probes\n", "a file without semaphores")

    def test_records_that_disagree_with_the_notes_are_set_aside(self):
        program = PROGRAMS["broken"]
        signatures = {"count": "broken:count(int32_t arg0, int32_t arg1)", "fine": "broken:fine(int a, unsigned b)",
                      "torn": "broken:torn(int32_t arg0, int32_t arg1)",
                      "injected": 'broken:injected(int x"%, int y)',
                      "unknown__kind": "broken:unknown__kind(int32_t arg0, int32_t arg1)",
                      "legacy": "broken:legacy(int class_)"}
        sources = dict.fromkeys(signatures, "stapsdt notes")
        sources["fine"] = sources["injected"] = sources["legacy"] = "broken.d"
        self.assert_lists(usdt("list", program), [
            f"{program}: 6 probes",
            *table(dict.fromkeys(signatures, "none"), sources, signatures, dict.fromkeys(signatures, 1)),
            f"  warning: broken:count: its .note.usdt record has 1 argument and its stapsdt notes 2; {NOTES_FALLBACK}",
            f"  warning: broken:torn: its .note.usdt record is malformed; {NOTES_FALLBACK}",
            f"  warning: broken:unknown__kind: its .note.usdt record is malformed; {NOTES_FALLBACK}"])
        module = json.loads(usdt("list", "--json", program).stdout)["modules"][0]
        self.assertEqual(len(module["warnings"]), 3)

    def test_sites_whose_records_differ_are_set_aside(self):
        # kvcache:fill's two sites, one of them with another type name for `op`.
        copy = self.work_directory() / "tool_kvserver"
        data = Path(PROGRAMS["kvserver"]).read_bytes()
        record_part = b"\0op\0kv_op_t\0integer\0"
        self.assertEqual(data.count(record_part), 2)
        copy.write_bytes(data.replace(record_part, b"\0op\0kv_op_X\0integer\0", 1))
        result = usdt("list", copy)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertIn("  2      0x", result.stdout)
        self.assertIn("stapsdt notes  kvcache:fill(uint64_t arg0, uint64_t arg1, int32_t arg2)\n", result.stdout)
        self.assertIn(f"  warning: kvcache:fill: its .note.usdt records disagree; {NOTES_FALLBACK}\n",
                      result.stdout)

    def test_a_file_without_probes(self):
        program = PROGRAMS["plain"]
        self.assert_lists(usdt("list", program), [f"{program}: no probes"])
        listing = json.loads(usdt("list", "--json", program).stdout)
        self.assertEqual(listing["modules"], [{"path": program, "probes": [], "warnings": []}])

    def test_libraries_found_through_runpath_origin(self):
        kvserver, kvstore = PROGRAMS["kvserver"], PROGRAMS["kvstore"]
        self.assertEqual(elf_dynamic(kvserver, "RUNPATH"), "$ORIGIN")
        result = usdt("list", "--libraries", kvserver)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        lines = result.stdout.splitlines()
        self.assertEqual(lines[:len(KVSERVER_SIGNATURES) + 2], [f"{kvserver}: {KVSERVER_HEADING}", *kvserver_table(kvserver)])
        start = lines.index(f"{kvstore}: 1 probe")
        self.assertEqual(lines[start + 1:start + 3], kvstore_table(kvstore))
        listing = json.loads(usdt("list", "--libraries", "--json", kvserver).stdout)
        paths = [module["path"] for module in listing["modules"]]
        self.assertEqual(paths[0], kvserver)
        self.assertIn(kvstore, paths)
        # The C library and the dynamic linker, as ldd finds them.
        self.assertEqual({os.path.realpath(path) for path in paths[1:]}, set(ldd(kvserver)))
        self.assertEqual(listing["warnings"], [])

    def test_libraries_through_ld_library_path_and_missing_ones(self):
        directory = self.work_directory()
        (directory / "bin").mkdir()
        (directory / "lib").mkdir()
        program = shutil.copy(PROGRAMS["kvserver"], directory / "bin")
        result = usdt("list", "--libraries", program)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertEqual(result.stdout.splitlines()[-1],
                         f"warning: libtool_kvstore.so, needed by {program}: not found")
        library = shutil.copy(PROGRAMS["kvstore"], directory / "lib")
        result = usdt("list", "--libraries", "--json", program, environment={"LD_LIBRARY_PATH": str(directory / "lib")})
        listing = json.loads(result.stdout)
        self.assertIn(library, [module["path"] for module in listing["modules"]])
        self.assertEqual(listing["warnings"], [])


class ErrorTest(ListTestCase):
    def test_files_that_cannot_be_listed(self):
        directory = self.work_directory()
        (directory / "notes.txt").write_text("not a program\n")
        (directory / "truncated").write_bytes(Path(PROGRAMS["plain"]).read_bytes()[:64])
        for path, message in ((directory / "missing", "no such file"), (directory, "is a directory"),
                              (directory / "notes.txt", "not an ELF file")):
            with self.subTest(path=path):
                self.assert_error(usdt("list", path), f"{path}: {message}")
        result = usdt("list", directory / "truncated")
        self.assertEqual((result.returncode, result.stdout), (1, ""))
        self.assertRegex(result.stderr, rf"^usdt: error: {directory}/truncated: malformed ELF file \(.+\)\n\Z")

    def test_names_without_a_slash_that_name_no_program(self):
        directory = self.work_directory()
        (directory / "wrapper").write_text("#!/bin/sh\nexec true\n")
        (directory / "wrapper").chmod(0o755)
        environment = {"PATH": f"{directory}:{os.environ['PATH']}"}
        self.assert_error(usdt("list", "wrapper", environment=environment),
                          f"wrapper on PATH is {directory}/wrapper, a script (#!/bin/sh), not an ELF file: "
                          f"name the program it runs")
        self.assert_error(usdt("list", "no-such-program-here", cwd=directory),
                          "no-such-program-here: no such file here, and no program of that name on PATH")

    def test_no_such_process(self):
        pid = no_such_pid()
        self.assert_error(usdt("list", pid), f"no process {pid}")
        self.assert_error(usdt("list", "-p", pid), f"no process {pid}")
        # A file whose name is a number is a file.
        directory = self.work_directory()
        shutil.copy(PROGRAMS["plain"], directory / str(pid))
        self.assert_lists(usdt("list", pid, cwd=directory), [f"{pid}: no probes"])

    def test_command_lines_that_cannot_be_run(self):
        self.assert_error(usdt("list"), "nothing to list: give a file, a process id or -p PID")
        self.assert_error(usdt("list", "-p", "1", PROGRAMS["plain"]), "give a file or a process (-p PID), not both")
        self.assert_error(usdt("list", "-p", "x"), "argument -p/--pid: invalid int value: 'x' "
                          "(see 'usdt list --help')", status=2)
        self.assert_error(usdt("list", "--no-such-option", PROGRAMS["plain"]),
                          "unrecognized arguments: --no-such-option (see 'usdt --help')", status=2)
        self.assert_error(usdt(), "the following arguments are required: COMMAND (see 'usdt --help')", status=2)

    def test_version(self):
        self.assert_lists(usdt("--version"), [f"usdt {VERSION}"])

    def test_a_python_without_jinja2(self):
        # What a python3 on PATH and a /usr/bin/python3 both without Jinja2 give, which `usdt
        # list` never imports but the launcher looks for (usdttool/main.py's LATER_IMPORTS): a
        # sitecustomize that hides it from both.
        fake = self.work_directory() / "fake-modules"
        fake.mkdir(parents=True)
        (fake / "sitecustomize.py").write_text('import sys\nsys.modules["jinja2"] = None\n')
        result = usdt("list", PROGRAMS["plain"], environment={"PYTHONPATH": str(fake)})
        self.assertEqual((result.returncode, result.stdout), (1, ""))
        self.assertRegex(result.stderr, r"^usdt: error: \S+ cannot import jinja2 "
                         r"\(Debian/Ubuntu: apt-get install python3-jinja2\)\n\Z")

    def test_listing_never_imports_jinja2(self):
        # Jinja2, a good part of usdt's start-up, renders `usdt trace`'s program alone: a Jinja2
        # that fails to import changes nothing here.
        fake = self.work_directory() / "unimportable-modules"
        (fake / "jinja2").mkdir(parents=True)
        (fake / "jinja2" / "__init__.py").write_text(
            'raise ImportError("usdt list imported jinja2", name="jinja2")\n')
        kvserver = PROGRAMS["kvserver"]
        self.assert_lists(usdt("list", kvserver, environment={"PYTHONPATH": str(fake)}),
                          [f"{kvserver}: {KVSERVER_HEADING}", *kvserver_table(kvserver)])
        result = usdt("list", "--json", "--libraries", kvserver, environment={"PYTHONPATH": str(fake)})
        self.assertEqual((result.returncode, result.stderr), (0, ""))

    def test_a_python3_shim_on_path_is_not_started(self):
        # A version manager's shim first on PATH cost each start a second: the launcher starts the
        # interpreter configure found, by its own path.
        directory = self.work_directory() / "shim"
        directory.mkdir(parents=True)
        started = directory / "started"
        (directory / "python3").write_text(f'#!/bin/sh\ntouch "{started}"\nexec /usr/bin/python3 "$@"\n')
        (directory / "python3").chmod(0o755)
        program = PROGRAMS["plain"]
        result = usdt("list", program, environment={"PATH": f"{directory}:{os.environ['PATH']}"})
        self.assert_lists(result, [f"{program}: no probes"])
        self.assertFalse(started.exists(), "the launcher started the python3 on PATH")

    def test_the_launcher_starts_the_generators_interpreter(self):
        # One choice at configure time (usdtAddProvider.cmake's _usdt_find_python) for the
        # generator, the launchers and the tests, which CTest runs under it.
        configured = re.search(r'^for python in "([^"]*)" /usr/bin/python3; do$', Path(OPTIONS.usdt).read_text(),
                               re.MULTILINE)
        self.assertIsNotNone(configured, "bin/launcher.in's loop over interpreters")
        self.assertEqual(configured[1], sys.executable)

    def test_without_the_interpreter_configure_found(self):
        # It was uninstalled, or the prefix went to another machine: Debian's, else python3 on PATH.
        text = Path(OPTIONS.usdt).read_text()
        configured = re.search(r'^for python in "([^"]*)" /usr/bin/python3; do$', text, re.MULTILINE)
        self.assertIsNotNone(configured, "bin/launcher.in's loop over interpreters")
        copy = self.work_directory() / "usdt-without-its-interpreter"
        copy.write_text(text.replace(configured[0], 'for python in "/nonexistent/python3" /usr/bin/python3; do'))
        copy.chmod(0o755)
        program = PROGRAMS["plain"]
        result = subprocess.run([copy, "list", program], capture_output=True, text=True, check=False, timeout=120)
        self.assert_lists(result, [f"{program}: no probes"])

    def test_a_python3_on_path_without_jinja2_runs_debians(self):
        # A venv's python3 is a symlink to /usr/bin/python3 without its dist-packages: the
        # launcher must run itself under /usr/bin/python3, where apt put Jinja2.
        if subprocess.run(["/usr/bin/python3", "-c", "import jinja2"], check=False).returncode != 0:
            self.skipTest("/usr/bin/python3 cannot import jinja2 (Debian: apt-get install python3-jinja2)")
        venv = self.work_directory() / "venv"
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", venv], check=True)
        self.assertNotEqual(subprocess.run([venv / "bin" / "python3", "-c", "import jinja2"],
                                           capture_output=True, check=False).returncode, 0)
        path = f"{venv / 'bin'}:{os.environ['PATH']}"
        program = PROGRAMS["plain"]
        self.assert_lists(usdt("list", program, environment={"PATH": path}), [f"{program}: no probes"])


class ProcessTest(ListTestCase):
    def test_lists_every_mapped_file_with_probes_and_its_semaphores(self):
        kvserver, kvstore = PROGRAMS["kvserver"], PROGRAMS["kvstore"]
        with waiting_kvserver() as server:
            expected = [f"process {server.pid}: 2 files with probes",
                        f"{kvserver}: {KVSERVER_HEADING}", *kvserver_table(kvserver, dict.fromkeys(KVSERVER_SIGNATURES, " inactive")),
                        f"{kvstore}: 1 probe", *kvstore_table(kvstore, " inactive")]
            self.assert_process_lists(usdt("list", server.pid), expected)
            self.assert_process_lists(usdt("list", "-p", server.pid), expected)
            listing = json.loads(usdt("list", "--json", server.pid).stdout)
            self.assertEqual(listing["pid"], server.pid)
            self.assertEqual([module["path"] for module in listing["modules"]
                              if not elf_notes.GLIBC_FILE.search(module["path"])],
                             [kvserver, kvstore])
            semaphores = [probe["semaphore"] for module in listing["modules"] for probe in module["probes"]]
            self.assertEqual([(semaphore["value"], semaphore["active"], semaphore["error"])
                              for semaphore in semaphores if semaphore], [(0, False, None)] * 5)

    def test_as_nobody(self):
        require_tracer(self, "setpriv", package="util-linux")   # root, to become nobody
        as_nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        readable = subprocess.run([*as_nobody, "test", "-r", OPTIONS.usdt, "-a", "-r",
                                   str(OPTIONS.source_dir / "usdttool" / "main.py")], check=False)
        if readable.returncode != 0:
            self.skipTest("nobody cannot read the build tree's bin/usdt or the source tree's usdttool/")
        with tempfile.TemporaryDirectory(prefix="usdt-list-nobody-") as scratch:
            os.chmod(scratch, 0o755)
            kvserver = shutil.copy(PROGRAMS["kvserver"], scratch)
            kvstore = shutil.copy(PROGRAMS["kvstore"], scratch)
            self.assert_lists(usdt("list", kvserver, command=as_nobody),
                              [f"{kvserver}: {KVSERVER_HEADING}", *kvserver_table(kvserver)])
            # Its own process: the mappings, and the semaphores unless Yama keeps even the same user out.
            with waiting_kvserver(kvserver, as_nobody) as server:
                result = usdt("list", server.pid, command=as_nobody)
                if yama_ptrace_scope() == 0:
                    state = " inactive"
                    warnings = []
                else:
                    state = " unknown"
                    warnings = ["  warning: semaphore values unknown: permission denied reading the process's "
                                "memory (needs ptrace access)"]
                self.assert_process_lists(result, [
                    f"process {server.pid}: 2 files with probes",
                    f"{kvserver}: {KVSERVER_HEADING}", *kvserver_table(kvserver, dict.fromkeys(KVSERVER_SIGNATURES, state)),
                    *warnings, f"{kvstore}: 1 probe", *kvstore_table(kvstore, state), *warnings])
            # Root's process: not even its mappings.
            with waiting_kvserver() as server:
                self.assert_error(usdt("list", server.pid, command=as_nobody),
                                  f"process {server.pid}: permission denied reading its memory map "
                                  "(it belongs to another user: run as that user or as root)")


class TracedProcessTest(ListTestCase):
    def test_a_semaphore_is_active_while_bpftrace_is_attached(self):
        require_tracer(self, "bpftrace")
        kvserver = PROGRAMS["kvserver"]
        with waiting_kvserver() as server:
            script = (bpftrace_attach.BEGIN_READY
                      + f'usdt:{kvserver}:kvcache:fill {{ printf("HIT %llu\\n", arg0); }}\n')
            output, attached = bpftrace_attach.trace(script, lambda: usdt("list", server.pid), 0)
            detached = usdt("list", server.pid)
        # The kernel counts armed sites: kvcache:fill has two.
        state = dict(dict.fromkeys(KVSERVER_SIGNATURES, " inactive"), **{"kvcache:fill": " active (2)"})
        self.assertEqual((attached.returncode, attached.stderr), (0, ""), output)
        self.assertEqual(attached.stdout.splitlines()[1:len(KVSERVER_SIGNATURES) + 3], [f"{kvserver}: {KVSERVER_HEADING}", *kvserver_table(kvserver, state)])
        state["kvcache:fill"] = " inactive"
        self.assertEqual(detached.stdout.splitlines()[1:len(KVSERVER_SIGNATURES) + 3], [f"{kvserver}: {KVSERVER_HEADING}", *kvserver_table(kvserver, state)])


class InstalledTest(ListTestCase):
    def test_the_installed_command_works_from_a_moved_prefix(self):
        # The fixture usdt_installed moved the prefix after installing it.
        self.assertIsNotNone(OPTIONS.installed_prefix, "add tool.list with INSTALLED (tests/CMakeLists.txt)")
        moved = OPTIONS.installed_prefix
        installed = files_in(moved)
        kvserver = PROGRAMS["kvserver"]
        # CTest's PYTHONPATH names the source tree: the installed command must do without.
        result = subprocess.run([moved / "bin" / "usdt", "list", kvserver], capture_output=True, text=True,
                                env=dict(os.environ, PYTHONPATH="", PYTHONDONTWRITEBYTECODE=""), check=False)
        self.assert_lists(result, [f"{kvserver}: {KVSERVER_HEADING}", *kvserver_table(kvserver)])
        self.assertEqual(files_in(moved), installed, "the command wrote into the prefix")


if __name__ == "__main__":
    parse_arguments()
    usdt_testing.main()
