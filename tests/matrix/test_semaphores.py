"""_ENABLED() through the kernel (root): a tracer's uprobe must raise semaphores:guarded's
semaphore (probes/semaphores.d) in the copy the program reads, whichever linker linked it
and whichever started first, the tracer or the program.

Programs (programs/semaphores_main.c, semaphores_probe.c), for each linker (bfd, gold, lld,
mold): the probe code in a PIE, a non-PIE and a static PIE (gold cannot link one: a static
non-PIE), and in a shared library the program links or dlopen()s. Each program says
"waiting", reads a line (or the end) of its input, fires the probe if ENABLED() says so,
and exits 0 only if it did (1 if not).

Start orders, each program, with one bpftrace attached to every program's probe module by path
(so that a few bpftrace runs cover them all):
  - the tracer first: attached, then the programs started; the kernel raises the semaphore
    when it maps the module (the dlopen programs map theirs after that too).
  - the program first: the programs started and waiting, then attached; then they go on.
And the ways users start or attach, on each linker's PIE: `bpftrace -c PROGRAM` (bpftrace does
not pass the program's status on: its exit_group prints it), `bpftrace -p PID`, `perf record
-e sdt_semaphores:guarded -- PROGRAM` and `perf record ... -p PID`; and, on each PIE and dlopen
program, `usdt trace PROGRAM -- PROGRAM` (`usdt trace PROGRAM LIBRARY -- PROGRAM`), whose
status is the program's.
"""

import contextlib
import os
import subprocess
import tempfile
import time
import unittest
from dataclasses import dataclass
from pathlib import Path

import bpftrace_attach
import build
from cells import LINKERS
from test_matrix import parse_arguments
from usdt_testing import fresh_directory, main, probe_flags, require_tracer

PROBE = "semaphores:guarded"
HIT = f"HIT {PROBE}|42"
# One compiler per linker, so that lld and mold, the linkers that broke, meet both.
COMPILERS = {"bfd": "gcc", "gold": "gcc", "lld": "clang", "mold": "gcc"}
LIBRARY_LINKS = ("shared", "dlopen")
TIMEOUT = 60


def executable_links(linker):
    # gold has no --no-dynamic-linker, which -static-pie needs.
    return ("pie", "nopie", "static" if linker == "gold" else "static-pie")


@dataclass(frozen=True)
class Program:
    linker: str
    link: str            # pie, nopie, static-pie, static, or one of LIBRARY_LINKS

    @property
    def name(self):
        return f"{self.linker}_{self.link.replace('-', '_')}"


PROGRAMS = tuple(Program(linker, link) for linker in LINKERS
                 for link in (*executable_links(linker), *LIBRARY_LINKS))


@dataclass(frozen=True)
class Built:
    program: Path
    probe_module: Path   # the program, or its library
    commands: str


def build_program(program: Program, inputs: build.Inputs, directory: Path) -> Built:
    directory = directory / program.name
    directory.mkdir(parents=True)
    commands = build._Commands(directory)
    compiler = COMPILERS[program.linker]
    flags = [*build.WARNINGS, "-O2", *probe_flags(), f"-I{inputs.generated}"]
    position = "-fno-pie" if program.link in ("nopie", "static") else "-fPIE"
    library = directory / "libsemaphores.so"
    probe_code = directory / "probe.o"
    commands.run([compiler, *flags, "-fPIC" if program.link in LIBRARY_LINKS else position,
                  "-c", inputs.matrix_programs / "semaphores_probe.c", "-o", probe_code])
    main_flags = [f'-DSEMAPHORES_DLOPEN="{library}"'] if program.link == "dlopen" else []
    main_code = directory / "main.o"
    commands.run([compiler, *flags, position, *main_flags,
                  "-c", inputs.matrix_programs / "semaphores_main.c", "-o", main_code])
    link = [compiler, f"-fuse-ld={program.linker}"]
    executable = directory / "program"
    if program.link in LIBRARY_LINKS:
        commands.run([*link, "-shared", probe_code, "-o", library])
        linked = [library, f"-Wl,-rpath,{directory}"] if program.link == "shared" else []
        commands.run([*link, "-pie", main_code, *linked, "-o", executable])
        return Built(executable, library, "\n".join(commands.log))
    mode = {"pie": "-pie", "nopie": "-no-pie", "static-pie": "-static-pie", "static": "-static"}[program.link]
    commands.run([*link, mode, main_code, probe_code, "-o", executable])
    return Built(executable, executable, "\n".join(commands.log))


def bpftrace_script(module: Path, with_exit: bool = False) -> str:
    return every_module_script({PROBE: module}, with_exit)


def every_module_script(modules, with_exit: bool = False) -> str:
    """Prints `HIT LABEL|value` for the probe of each module of `modules` (label -> path)."""
    lines = [bpftrace_attach.BEGIN_READY,
             *(f'usdt:{module}:{PROBE} {{ printf("HIT {label}|%d\\n", arg0); }}' for label, module in modules.items())]
    if with_exit:
        lines.append('tracepoint:syscalls:sys_enter_exit_group /pid == cpid/ '
                     '{ printf("EXIT %d\\n", args->error_code); }')
    return "\n".join(lines)


def run(command, **options) -> subprocess.CompletedProcess:
    return subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=TIMEOUT, **options)


class WaitingProgram:
    """A program started, once it said "waiting"; go() lets it fire and returns its result."""

    def __init__(self, command):
        self.process = subprocess.Popen([str(part) for part in command], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.first_line = self.process.stdout.readline()

    def go(self) -> subprocess.CompletedProcess:
        output, errors = self.process.communicate("go\n", timeout=TIMEOUT)
        return subprocess.CompletedProcess(self.process.args, self.process.returncode,
                                           self.first_line + output, errors)

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()


class SemaphoreTest(unittest.TestCase):
    maxDiff = None
    inputs: build.Inputs
    usdt: Path
    builds = {}

    @classmethod
    def setUpClass(cls):
        directory = fresh_directory(cls.inputs.work_dir)
        cls.builds = build.parallel_map(lambda program: build_program(program, cls.inputs, directory), PROGRAMS)

    def built(self, program: Program) -> Built:
        return build.result_or_raise(self.builds[program], program.name)

    def assertFired(self, tracer_output: str, program: subprocess.CompletedProcess):
        """The program saw ENABLED() true and exited 0; the tracer printed its one hit."""
        self.assertEqual((program.returncode, program.stderr), (0, ""), program.stdout)
        self.assertEqual(bpftrace_attach.hit_lines(tracer_output), [HIT], tracer_output)

    def tracer_first(self, built: Built):
        """`bpftrace -c` on a program whose probe is its own."""
        traced = run(["bpftrace", "-e", bpftrace_script(built.program, with_exit=True), "-c", built.program])
        self.assertEqual(traced.returncode, 0, traced.stdout + traced.stderr)
        exits = [line for line in traced.stdout.splitlines() if line.startswith("EXIT ")]
        status = int(exits[0].split()[1]) if len(exits) == 1 else f"unknown: {exits}"
        return traced.stdout, subprocess.CompletedProcess(built.program, status, traced.stdout, "")

    def program_first(self, built: Built):
        waiting = WaitingProgram([built.program])
        try:
            self.assertEqual(waiting.first_line, "waiting\n", f"{built.program} did not start")
            module = bpftrace_attach.attach_path(built.probe_module, waiting.process.pid)
            return bpftrace_attach.trace(bpftrace_script(module), waiting.go, 1,
                                         options=["-p", str(waiting.process.pid)])
        finally:
            waiting.stop()

    def assertEveryProgramFired(self, tracer_output: str, results):
        for program, result in results.items():
            with self.subTest(program=program.name):
                self.assertEqual((result.returncode, result.stderr), (0, ""), result.stdout)
                self.assertEqual([line for line in bpftrace_attach.hit_lines(tracer_output)
                                  if line.startswith(f"HIT {program.name}|")], [f"HIT {program.name}|42"],
                                 tracer_output)

    def every_module_script(self) -> str:
        return every_module_script({program.name: self.built(program).probe_module for program in PROGRAMS})

    def test_every_program_with_the_tracer_first(self):
        require_tracer(self, "bpftrace")
        script = self.every_module_script()
        output, results = bpftrace_attach.trace(
            script, lambda: {program: run([self.built(program).program]) for program in PROGRAMS}, len(PROGRAMS))
        self.assertEveryProgramFired(output, results)

    def test_every_program_with_the_program_first(self):
        require_tracer(self, "bpftrace")
        script = self.every_module_script()
        waiting = {program: WaitingProgram([self.built(program).program]) for program in PROGRAMS}
        try:
            for program, started in waiting.items():
                self.assertEqual(started.first_line, "waiting\n", f"{program.name} did not start")
            output, results = bpftrace_attach.trace(
                script, lambda: {program: started.go() for program, started in waiting.items()}, len(PROGRAMS))
        finally:
            for started in waiting.values():
                started.stop()
        self.assertEveryProgramFired(output, results)

    def test_bpftrace_starts_or_attaches_to_each_linkers_program(self):
        require_tracer(self, "bpftrace")
        for linker in LINKERS:
            built = self.built(Program(linker, "pie"))
            for order in (self.tracer_first, self.program_first):
                with self.subTest(linker=linker, order=order.__name__):
                    self.assertFired(*order(built))

    @contextlib.contextmanager
    def perf_session(self, linker: str):
        """(the linker's PIE, the probe's perf event added for it, where perf record writes),
        the event deleted at the end."""
        program = self.built(Program(linker, "pie")).program
        event = f"sdt_{PROBE}"
        run(["perf", "probe", "-q", "-d", event])   # one left by an interrupted run
        self.addCleanup(run, ["perf", "probe", "-q", "-d", event])
        # perf finds SDT events through its build-id cache, where an entry of an earlier build
        # makes the add fail: cached afresh, as the perf scripts do.
        run(["perf", "buildid-cache", "--purge", program])
        self.addCleanup(run, ["perf", "buildid-cache", "--remove", program])
        cached = run(["perf", "buildid-cache", "--add", program])
        self.assertEqual(cached.returncode, 0, cached.stderr)
        added = run(["perf", "probe", "-q", "-x", program, event])
        self.assertEqual(added.returncode, 0, added.stderr)
        with tempfile.TemporaryDirectory(prefix="usdt-perf-") as directory:
            yield program, event, Path(directory) / "perf.data"
        run(["perf", "probe", "-q", "-d", event])

    def assertRecordedOnce(self, event: str, data: Path):
        printed = run(["perf", "script", "-i", data])
        self.assertEqual(printed.stdout.count(f" {event}: "), 1, printed.stdout + printed.stderr)

    def test_perf_record_starts_the_program(self):
        require_tracer(self, "perf", package="linux-perf")
        for linker in LINKERS:
            with self.subTest(linker=linker), self.perf_session(linker) as (program, event, data):
                recorded = run(["perf", "record", "-q", "-o", data, "-e", event, "--", program])
                self.assertEqual(recorded.returncode, 0, recorded.stdout + recorded.stderr)
                self.assertRecordedOnce(event, data)

    def test_perf_record_attaches_to_the_running_program(self):
        # `usdt list PID` shows the semaphore raised once perf has opened the event, which is
        # what the test is about. Recording starts only when perf acknowledges `enable` on its
        # control FIFO (-D -1: events opened disabled): then the program goes on, and perf
        # stops at its end.
        require_tracer(self, "perf", package="linux-perf")
        for linker in LINKERS:
            with self.subTest(linker=linker), self.perf_session(linker) as (program, event, data):
                control, acknowledged = data.with_name("control"), data.with_name("acknowledged")
                os.mkfifo(control)
                os.mkfifo(acknowledged)
                waiting = WaitingProgram([program])
                try:
                    recorder = subprocess.Popen(["perf", "record", "-q", "-o", str(data), "-e", event, "-D", "-1",
                                                 "--control", f"fifo:{control},{acknowledged}",
                                                 "-p", str(waiting.process.pid)],
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                    deadline = time.monotonic() + TIMEOUT
                    while " active (" not in run([self.usdt, "list", str(waiting.process.pid)]).stdout:
                        self.assertLess(time.monotonic(), deadline, "perf never raised the semaphore")
                        if recorder.poll() is not None:     # (its stderr read only then: read() waits for its end)
                            self.fail(f"perf ended before attaching: {recorder.stderr.read()}")
                        time.sleep(0.1)
                    with open(control, "w") as commands, open(acknowledged) as answers:
                        commands.write("enable\n")
                        commands.flush()
                        self.assertEqual(answers.readline(), "ack\n")
                    result = waiting.go()
                    output, errors = recorder.communicate(timeout=TIMEOUT)
                finally:
                    waiting.stop()
                    if recorder.poll() is None:
                        recorder.kill()
                        recorder.wait()
                self.assertEqual((result.returncode, result.stderr), (0, ""), result.stdout)
                self.assertEqual(recorder.returncode, 0, output + errors)
                self.assertRecordedOnce(event, data)

    def test_usdt_trace_starts_the_program(self):
        require_tracer(self, "bpftrace")
        for program in (Program(linker, link) for linker in LINKERS for link in ("pie", "dlopen")):
            with self.subTest(program=program.name):
                built = self.built(program)
                files = [built.program] + ([built.probe_module] if built.probe_module != built.program else [])
                traced = run([self.usdt, "trace", *files, "--", built.program])
                self.assertEqual(traced.returncode, 0, traced.stdout + traced.stderr)
                self.assertRegex(traced.stdout, rf"(?m)^\d+ pid=\d+ tid=\d+ {PROBE} value=42$", traced.stdout)


if __name__ == "__main__":
    options = parse_arguments(lambda parser: parser.add_argument("--usdt", required=True, type=Path))
    SemaphoreTest.inputs = build.inputs_from(options)
    SemaphoreTest.usdt = options.usdt
    main()
