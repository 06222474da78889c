"""`usdt trace`: runs bpftrace on the probes of a file or a process and prints one line per hit,
`NSECS pid=PID tid=TID provider:probe name=value...`, with each argument named and formatted
by its type: the line the bpftrace scripts usdtgen generates print.

Names and types come from a provider file given with --provider-file, else from the binary's
`.note.usdt` records, else from its stapsdt notes alone (`arg0=`, integers of the note's size).
The bpftrace program comes from the same template as the generated scripts.

What is traced: the files named and the shared libraries they load (found as `usdt list
--libraries` finds them; without patterns, only those whose probes usdt built), or every file
a process maps (-p). Each file's probes are attached by
its path; the bpftrace 0.17 workarounds that decide how are together below.
"""

import ctypes
import fnmatch
import os
import queue
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from usdtgen import cli as generator, model, render, types
from usdtgen.errors import GeneratorError, SourceLocation

from . import elf, libraries, process
from .errors import ToolError

# Printed by the program's BEGIN probe, which bpftrace runs once every probe is attached.
READY_LINE = "usdt-trace: attached"

# --- bpftrace 0.17 workarounds: each says why; delete them with 0.17. ---------------------------
#
# An attach point's path, unquoted, ends at the first character that is not in a plain set
# (`libstdc++.so.6` is a syntax error), so every path is quoted. Inside the quotes `"` is `\"` and
# a backslash is unescaped twice (`\\\\` in the program is one `\` in the path). The path
# is still split at ':' and an '*' in it is a wildcard (another file may match), so a path
# with either, or with a control character, cannot be attached to at all.
_UNATTACHABLE_PATH = re.compile(r"[:*\x00-\x1f\x7f]")


def _bpftrace_path(path: str) -> Optional[str]:
    """The path as a bpftrace 0.17 attach point takes it, quoted; None if it cannot take it."""
    if _UNATTACHABLE_PATH.search(path):
        return None
    return '"' + path.replace("\\", "\\\\\\\\").replace('"', '\\"') + '"'


# With -p, bpftrace 0.17 reads a process's probes through bcc's USDT context for the whole
# process, which merges the sites of one provider:probe from every file into one probe; it then
# attaches each merged site's address to the path in the attach point. With one provider:probe
# in two files (a static library linked into two shared libraries), the sites of one file land
# in the other, mid-instruction: garbage values, "couldn't get argument 0", SIGSEGV in the
# traced process. For such a process usdt attaches by path without -p (bcc then reads the one
# file) and keeps the hits of the process with a predicate on its pid.
def _needs_pid_predicate(modules: Sequence[elf.Module]) -> bool:
    """Whether some provider:probe has sites in more than one of the process's files."""
    seen: Dict[Tuple[str, str], str] = {}
    for module in modules:
        for probe in module.probes:
            other = seen.setdefault((probe.provider, probe.name), module.path)
            if other != module.path:
                return True
    return False
# --- end of the bpftrace 0.17 workarounds ----------------------------------------------------

# Names go into the bpftrace program: anything else in a binary's notes could rewrite it.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# How long bpftrace may take to stop after SIGINT before it is killed.
_STOP_TIMEOUT = 10.0


def add_arguments(parser) -> None:
    parser.description = (
        "Traces the probes of an executable or shared library and of the shared libraries it loads "
        "(in every process that runs them), or of a running process, with bpftrace: one line per "
        "hit, arguments by name and type. Needs root. Ctrl-C stops it.")
    parser.add_argument("binary", nargs="?", metavar="BINARY",
                        help="executable or shared library whose probes to trace, with its libraries'")
    parser.add_argument("-p", "--pid", type=int, metavar="PID",
                        help="trace the probes of every file process PID maps, in that process only")
    parser.add_argument("probes", nargs="*", metavar="FILE|PROVIDER:PROBE",
                        help="more files to trace (an operand with a '/': ./libplugin.so), and probes "
                             "to trace, as shell patterns (kvserver:request__*); PROVIDER alone means "
                             "all of its probes; default: every probe")
    parser.add_argument("-d", "--provider-file", metavar="FILE.d",
                        help="take argument names and types from this provider file")
    parser.add_argument("--script", action="store_true",
                        help="print the bpftrace program instead of running it (no root needed)")
    parser.epilog = ("After `--`, a command to run while tracing: tracing ends when it exits, "
                     "and usdt exits with its status.")


@dataclass(frozen=True)
class AttachTarget:
    """What trace.bt.j2 prints for a file: its path as an attach point takes it, and the
    predicate each of its probes gets ("" for none)."""
    path: str
    predicate: str


def run(args) -> int:
    command = args.traced_command
    if args.pid is not None and args.binary is not None:
        # With -p, every operand is a probe pattern.
        args.probes, args.binary = [args.binary, *args.probes], None
    if args.binary is None and args.pid is None:
        raise ToolError("give a BINARY or -p PID to trace")
    if args.pid is not None and command:
        raise ToolError("-p PID traces a running process; a command after `--` needs a BINARY instead")

    if args.pid is None:
        files = [args.binary] + [operand for operand in args.probes if "/" in operand]
        patterns = [operand for operand in args.probes if "/" not in operand]
        what = ", ".join(files)
        modules = _file_modules(files, every_library=bool(patterns))
    else:
        patterns, what = args.probes, f"process {args.pid}"
        running = process.read_process(args.pid)
        modules = [process_module.module for process_module in running.modules]
        if not modules:
            raise ToolError(f"process {args.pid} maps no file with USDT probes (no .note.stapsdt section)")
    described = _describe(modules, args.provider_file)
    selected = _select(described, patterns, what)
    # bpftrace -p, unless it would mix up one probe's sites in several files (see above).
    by_pid = args.pid is not None and not _needs_pid_predicate(modules)
    predicate = f"pid == {args.pid}" if args.pid is not None and not by_pid else ""
    program = render.render_trace_script(
        [(AttachTarget(_bpftrace_path(_attach_path(module)), predicate), [probe for probe, _ in probes])
         for module, probes in selected], READY_LINE)
    if args.script:
        sys.stdout.write(program)
        return 0

    bpftrace = _bpftrace()
    _check_privileges()
    if args.pid is not None:
        # BPF cannot fault a page in: a string literal on a page the process has not touched
        # yet reads as "". Read once through /proc, the traced files' pages are in.
        process.fault_in(running, {module.path for module, _ in selected})
    count = sum(len(probes) for _, probes in selected)
    sources = sorted({source for _, probes in selected for _, source in probes})
    in_files = f", in {len(selected)} files" if len(selected) > 1 else ""
    announcement = (f"usdt: tracing {count} probe{'s' if count != 1 else ''} of {what}{in_files} "
                    f"(names and types from {', '.join(sources)}); Ctrl-C to stop")
    return _trace(bpftrace, program, args.pid, by_pid, command, announcement)


def _file_modules(files: Sequence[str], every_library: bool) -> List[elf.Module]:
    """The files named and the shared libraries they load, each once, those with probes. A
    library is left out unless usdt built its probes (they have `.note.usdt` records) or
    `every_library`: without patterns, `usdt trace ./app` traces app's own probes, not, say,
    libstdc++'s, which a pattern (`libstdcxx:*`) or naming the library still reaches."""
    named = {os.path.realpath(path) for path in files}
    paths: List[str] = []
    for path in files:
        found = libraries.shared_libraries(path)
        for needer, name in found.missing:
            _warn(f"{name}, needed by {needer}: not found; its probes are left out")
        paths += [path, *found.paths]
    modules, seen = [], set()
    for path in paths:
        real_path = os.path.realpath(path)
        if real_path in seen:
            continue
        seen.add(real_path)
        module = elf.read_module(path)
        built_by_usdt = any(probe.source_name for probe in module.probes)
        if module.probes and (real_path in named or built_by_usdt or every_library):
            modules.append(module)
    if not modules:
        loads = "it loads" if len(files) == 1 else "they load"
        raise ToolError(f"{', '.join(files)} and the shared libraries {loads} have no USDT probes (no "
                        f".note.stapsdt section): were they built with usdt_add_provider(), and are their "
                        f"notes still there after strip? A library the program loads with dlopen() is "
                        f"traced when named too: usdt trace {files[0]} ./libplugin.so")
    return modules


# A probe to trace and where its names and types came from.
Described = Tuple[model.Probe, str]


def _describe(modules: Sequence[elf.Module],
              provider_file: Optional[str]) -> List[Tuple[elf.Module, List[Described]]]:
    """Each module bpftrace can attach to and its probes as the generator's model describes them,
    so that the trace prints exactly what the generated scripts print."""
    declared = _declared_probes(provider_file) if provider_file else {}
    attachable = [module for module in modules if _bpftrace_path(_attach_path(module)) is not None]
    problems = [f"{_attach_path(module)}: bpftrace cannot attach to a path with a colon, an asterisk or a "
                f"control character; trace it through a link (ln -s) with a plain name"
                for module in modules if module not in attachable]
    if not attachable:
        raise ToolError("; ".join(problems))
    for problem in problems:
        _warn(f"{problem}; its probes are left out")
    described = []
    for module in attachable:
        probes = []
        for probe in module.probes:
            if not (_NAME.fullmatch(probe.provider) and _NAME.fullmatch(probe.name)):
                _warn(f"{module.path}: the probe {probe.provider!r}:{probe.name!r} is left out: "
                      f"bpftrace takes names of letters, digits and '_'")
                continue
            declaration = declared.get((probe.provider, probe.name))
            if declaration is not None:
                _check_declaration_fits(declaration, probe, module)
                probes.append((declaration, os.path.basename(provider_file)))
            else:
                probes.append((_model_probe(probe, module.path), probe.source_name or "the stapsdt notes"))
        described.append((module, probes))
    return described


def _attach_path(module: elf.Module) -> str:
    # Not resolved: a link with a plain name stands for a path bpftrace cannot take.
    return os.path.abspath(module.path)


def _declared_probes(path: str) -> Dict[Tuple[str, str], model.Probe]:
    return {(probe.provider, probe.name): probe for probe in generator.build_model(path).probes}


def _check_declaration_fits(declaration: model.Probe, probe: elf.Probe, module: elf.Module) -> None:
    in_file = [(argument.type.note_size(module.pointer_size), argument.type.signed)
               for argument in declaration.arguments]
    in_notes = [(argument.size, argument.signed) for argument in probe.arguments]
    if in_file != in_notes:
        raise GeneratorError(declaration.location,
                             f"{probe.provider}:{probe.name} is declared here with arguments of "
                             f"{_sizes(in_file)}, but {module.path}'s notes say {_sizes(in_notes)}")


def _sizes(arguments: Sequence[Tuple[int, bool]]) -> str:
    return "(" + ", ".join(f"{'-' if signed else ''}{size}" for size, signed in arguments) + ")" \
        if arguments else "none"


def _model_probe(probe: elf.Probe, module: str) -> model.Probe:
    """The generator's model of a probe recovered from a binary: its line format is the model's."""
    location = SourceLocation(module, 0, 0)
    arguments = tuple(
        model.Argument(argument.index, argument.name if _NAME.fullmatch(argument.name) else f"arg{argument.index}",
                       types.ArgumentType(argument.declared_type, argument.declared_type, argument.kind,
                                          argument.size, argument.signed),
                       location, cxx_function="")
        for argument in probe.arguments)
    return model.Probe(probe.provider, probe.name, arguments, location, has_semaphore=probe.semaphore != 0,
                       source_name=probe.source_name or "")


def _select(described, patterns: Sequence[str], what: str):
    """The probes matching any of `patterns` (all without patterns), modules with none left out."""
    full_patterns = {pattern: pattern if ":" in pattern else f"{pattern}:*" for pattern in patterns}
    matched = set()

    def chosen(probe: model.Probe) -> bool:
        name = f"{probe.provider}:{probe.name}"
        hits = {pattern for pattern, full in full_patterns.items() if fnmatch.fnmatchcase(name, full)}
        matched.update(hits)
        return not patterns or bool(hits)

    selected = [(module, [(probe, source) for probe, source in probes if chosen(probe)])
                for module, probes in described]
    unmatched = [pattern for pattern in patterns if pattern not in matched]
    if unmatched:
        available = sorted({f"{probe.provider}:{probe.name}" for _, probes in described for probe, _ in probes})
        files = [pattern for pattern in unmatched if os.path.exists(pattern)]
        hint = f" (to trace the file {files[0]} too, write ./{files[0]})" if files else ""
        raise ToolError(f"no probe of {what} matches {', '.join(unmatched)}; "
                        f"its probes: {' '.join(available)}{hint}")
    return [(module, probes) for module, probes in selected if probes]


def _warn(message: str) -> None:
    sys.stderr.write(f"usdt: warning: {message}\n")


def _bpftrace() -> str:
    found = shutil.which("bpftrace")
    if found is None:
        raise ToolError("usdt trace runs bpftrace, which is not installed "
                        "(Debian/Ubuntu: apt-get install bpftrace); `usdt trace --script` prints "
                        "the program it would run")
    return found


def _check_privileges() -> None:
    # bpftrace 0.17 refuses anyone but root, whatever their capabilities.
    if os.geteuid() != 0:
        raise ToolError("usdt trace needs root to attach uprobes with bpftrace: run it with sudo; "
                        "`usdt list` needs no root")


def _trace(bpftrace: str, program: str, pid: Optional[int], by_pid: bool, command: Sequence[str],
           announcement: str) -> int:
    """Runs bpftrace until Ctrl-C, the traced process's end, or the command's end, printing its
    lines as they come. Returns the command's status, else 0. `by_pid`: bpftrace gets `-p PID`
    (else the program's predicates keep to the process, and usdt watches it end)."""
    arguments = [bpftrace, "-B", "line", "-e", program]
    if pid is not None and by_pid:
        arguments += ["-p", str(pid)]
    interrupted = threading.Event()      # Ctrl-C, SIGTERM, SIGHUP: stop now
    command_done = threading.Event()     # stop once every hit the command (or the process) fired is printed
    previous_handlers = {number: signal.signal(number, lambda *_: interrupted.set()) for number in _STOP_SIGNALS}
    # In a session of its own, out of reach of the terminal's Ctrl-C: usdt stops it, at once on
    # Ctrl-C, and after a command only once it has printed what the command fired (see _Output).
    # And it dies with usdt, which only SIGKILL stops without stopping it.
    tracer = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
                              errors="backslashreplace", start_new_session=True, preexec_fn=_die_with_parent)
    stopper = _Stopper(tracer)
    child = None
    try:
        messages = _start_thread(_copy_messages, tracer.stderr)
        output = _Output(tracer, stopper)
        if not output.wait_until_attached(interrupted):
            if interrupted.is_set():
                return 130
            messages.join(timeout=1)
            raise ToolError(f"bpftrace exited with status {tracer.wait()} before attaching (its message is above)")
        sys.stderr.write(announcement + "\n")
        sys.stderr.flush()
        child = _start(command, command_done) if command else None
        if pid is not None and not by_pid:
            _watch_process(pid, command_done)
        while output.print_lines():
            if interrupted.is_set():
                stopper.send()
            elif command_done.is_set():
                output.stop_when_quiet()
        if tracer.wait() != 0 and not (interrupted.is_set() or command_done.is_set()):
            messages.join(timeout=1)
            raise ToolError(f"bpftrace exited with status {tracer.returncode} (its message is above)")
        if child is None:
            return 0
        if interrupted.is_set():
            # A terminal's Ctrl-C reached the command too; a signal to usdt alone did not.
            try:
                child.wait(timeout=2)
            except subprocess.TimeoutExpired:
                child.terminate()
        status = child.wait()
        return 128 - status if status < 0 else status
    finally:
        stopper.wait()
        if child is not None and child.poll() is None:
            # Tracing failed under the command: it does not outlive usdt unseen.
            child.terminate()
            child.wait()
        for number, handler in previous_handlers.items():
            signal.signal(number, handler)


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In bpftrace's process before exec: SIGTERM when usdt dies, however it dies."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class _Output:
    """bpftrace's output, read by a thread: the main thread waits on a queue, where Ctrl-C
    interrupts it, and can tell when the output has gone quiet."""

    # bpftrace 0.17 does not print the events still in its buffers when it gets SIGINT (seen:
    # 12 of 3,000 hits lost on a loaded machine). A traced process's hits are all in those
    # buffers when it ends, so once the output has been quiet this long they have been printed.
    QUIET = 0.3
    # How long the wait for quiet may last when other processes keep firing the probes.
    MAX_STOP_DELAY = 2.0

    def __init__(self, tracer: subprocess.Popen, stopper: "_Stopper"):
        self.tracer = tracer
        self.stopper = stopper
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self.last_line_at = time.monotonic()
        self.stop_requested_at: Optional[float] = None
        _start_thread(self._read)

    def _read(self) -> None:
        try:
            for line in self.tracer.stdout:
                self.lines.put(line)
        finally:
            self.lines.put(None)

    def _next(self, timeout: float) -> Optional[str]:
        """The next line, "" when none came within `timeout`, None at the end."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return ""
        self.last_line_at = time.monotonic()
        return line

    def wait_until_attached(self, interrupted: threading.Event) -> bool:
        """Whether bpftrace attached; False when it ended first or `interrupted` was set."""
        while not interrupted.is_set():
            line = self._next(timeout=0.1)
            if line is None:
                return False
            if line.rstrip("\n") == READY_LINE:
                return True
            if line and not line.startswith("Attaching "):
                _print(line)
        return False

    def print_lines(self) -> bool:
        """Prints what came in the next moment; False once bpftrace has ended."""
        line = self._next(timeout=0.1)
        if line is None:
            return False
        # bpftrace ends with the (empty) maps it prints on exit.
        if line.strip():
            _print(line)
        return True

    def stop_when_quiet(self) -> None:
        now = time.monotonic()
        if self.stop_requested_at is None:
            self.stop_requested_at = now
        if now - self.last_line_at >= self.QUIET or now - self.stop_requested_at >= self.MAX_STOP_DELAY:
            self.stopper.send()


class _Stopper:
    """Stops bpftrace: on SIGINT it prints what it has read and exits; but now and then 0.17
    misses one (seen in about 1 run of 10), so it gets another each second, and SIGKILL when
    _STOP_TIMEOUT has passed."""

    INTERVAL = 1.0

    def __init__(self, tracer: subprocess.Popen):
        self.tracer = tracer
        self.first_signal_at: Optional[float] = None
        self.last_signal_at = float("-inf")

    def send(self) -> None:
        """The next signal, if one is due; returns at once."""
        now = time.monotonic()
        if self.tracer.poll() is not None or now - self.last_signal_at < self.INTERVAL:
            return
        if self.first_signal_at is None:
            self.first_signal_at = now
        if now - self.first_signal_at >= _STOP_TIMEOUT:
            self.tracer.kill()
        else:
            self.tracer.send_signal(signal.SIGINT)
        self.last_signal_at = now

    def wait(self) -> None:
        """Signals until bpftrace has exited."""
        while self.tracer.poll() is None:
            self.send()
            time.sleep(0.05)


def _start(command: Sequence[str], done: threading.Event) -> subprocess.Popen:
    """Runs the command; `done` is set when it ends."""
    try:
        child = subprocess.Popen(command)
    except OSError as error:
        raise ToolError(f"cannot run {command[0]}: {error.strerror}") from None

    def stop_when_done() -> None:
        child.wait()
        done.set()
    _start_thread(stop_when_done)
    return child


def _watch_process(pid: int, done: threading.Event) -> None:
    """`done` is set when process `pid` ends."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        done.set()
        return

    def wait() -> None:
        try:
            select.select([descriptor], [], [])
        finally:
            os.close(descriptor)
        done.set()
    _start_thread(wait)


def _print(line: str) -> None:
    # Line by line into a pipe too (`usdt trace ... | grep`), as it comes.
    sys.stdout.write(line)
    sys.stdout.flush()


def _start_thread(function, *arguments) -> threading.Thread:
    """A thread with the stop signals blocked from its first instruction, so that they reach
    the main thread, wherever it waits."""
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, set(_STOP_SIGNALS))
    try:
        thread = threading.Thread(target=function, args=arguments, daemon=True)
        thread.start()
        return thread
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)


def _copy_messages(messages) -> None:
    """bpftrace's messages, but for the one about RLIMIT_MEMLOCK, which it prints where it may not
    raise the limit (a container, a VM) and which says nothing when the programs load anyway."""
    for line in messages:
        if "RLIMIT_MEMLOCK" not in line:
            sys.stderr.write(line)
            sys.stderr.flush()

