"""bpftrace in the tests: the action that prints a probe's arguments, and a run attached to a
file (a shared library) while a program runs, stopped only once it has printed every
expected hit: bpftrace prints events asynchronously, and stopping it as soon as the program
exits loses the last ones on a loaded machine.
"""

import functools
import queue
import re
import signal
import subprocess
import threading
import time
from typing import Callable, List, Sequence, Tuple, TypeVar

# Up to 0.23, whose USDT arguments bcc's parser reads, bpftrace reads arg0..arg5 only ("x86_64
# doesn't support arg6"); from 0.25, libbpf's reads all twelve (arguments_read).
ARGUMENTS_READ_BEFORE_0_25 = 6
ARGUMENTS_READ = 12

READY = "READY"
BEGIN_READY = 'BEGIN { printf("READY\\n"); }\n'   # BEGIN fires once every probe is attached

Result = TypeVar("Result")


@functools.lru_cache(maxsize=None)
def release() -> Tuple[int, int]:
    """(major, minor) of the bpftrace on PATH; (1, 0), newer than any, when there is none."""
    try:
        answer = subprocess.run(["bpftrace", "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return (1, 0)
    version = re.search(r"(\d+)\.(\d+)", answer.stdout)
    return (int(version[1]), int(version[2])) if version else (1, 0)


def arguments_read() -> int:
    """How many of a probe's arguments the tests read: all of them (twelve at most) from 0.25
    (0.27 in the Debian unstable root: tests/support/suite_in_root.py), the first six before
    (0.17 here, 0.23 in the Debian 13 root)."""
    return ARGUMENTS_READ_BEFORE_0_25 if release() < (0, 25) else ARGUMENTS_READ


def string_bytes() -> int:
    """How many bytes of a string str() reads by default, the terminator left out: 63 up to
    0.17 (BPFTRACE_STRLEN 64), 1023 from 0.23 (max_strlen 1024)."""
    return 63 if release() < (0, 23) else 1023


def attach_path(path, pid: int) -> str:
    """How a `bpftrace -p PID` program names the file at `path` to attach to it once: from 0.27,
    -p attaches to the path given and again to the process's view of it, /proc/PID/root/PATH
    (every hit came twice), and once when given that view (as usdttool/bpftrace/releases.py)."""
    return f"/proc/{pid}/root{path}" if release() >= (0, 27) else str(path)


def printf_action(probe: str, specs: Sequence[str], values: Sequence, is_text: Callable) -> str:
    """`{ printf("HIT provider:name|v0|v1...\\n", ...); }` for the first arguments_read()
    arguments: %lld for signed specs, %llu for unsigned ones (a wrong sign shows as a wrong
    number), str() and %s for the values `is_text` says are strings."""
    formats, arguments = [f"HIT {probe}"], []
    for index, (spec, value) in enumerate(zip(specs, values[:arguments_read()])):
        if is_text(value):
            formats.append("%s")
            arguments.append(f"str(arg{index})")
        else:
            formats.append("%lld" if spec.startswith("-") else "%llu")
            arguments.append(f"arg{index}")
    return "{ printf(" + ", ".join([f'"{"|".join(formats)}\\n"', *arguments]) + "); }"


def hit_lines(output: str) -> List[str]:
    """The lines printf_action's actions printed, in `output`."""
    return [line for line in output.splitlines() if line.startswith("HIT ")]


def trace(script: str, action: Callable[[], Result], expected_hits: int,
          timeout: float = 30, options: Sequence[str] = ()) -> Tuple[str, Result]:
    """Starts `bpftrace options... -e script` (which includes BEGIN_READY), calls `action()` once
    attached, then waits until `expected_hits` lines starting with "HIT " were printed (or
    `timeout` seconds), stops bpftrace and returns (its output, what action returned)."""
    tracer = subprocess.Popen(["bpftrace", *options, "-e", script], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, encoding="utf-8", errors="replace")
    lines: "queue.Queue[str]" = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in tracer.stdout], daemon=True)
    reader.start()
    output: List[str] = []
    try:
        _read_until(lines, output, lambda line: line.strip() == READY, 1, timeout)
        result = action()
        _read_until(lines, output, lambda line: line.startswith("HIT "), expected_hits, timeout)
    finally:
        stop(tracer, timeout)
        reader.join(timeout=timeout)
        tracer.stdout.close()
    while not lines.empty():
        output.append(lines.get())
    return "".join(output), result


def stop(tracer: subprocess.Popen, timeout: float = 30) -> None:
    """SIGINT each second until the tracer exits, SIGKILL after `timeout` seconds: bpftrace 0.17
    now and then misses a SIGINT (as usdt trace's _Stopper knows), trace-bpfcc one that arrives
    while it prints a hit, and one left attached changes what later tests see (a uprobe on a
    site hides it from gdb, a raised semaphore)."""
    deadline = time.monotonic() + timeout
    while tracer.poll() is None:
        if time.monotonic() >= deadline:
            tracer.kill()
            tracer.wait()
            return
        tracer.send_signal(signal.SIGINT)
        try:
            tracer.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass


def _read_until(lines, output, matches, count, timeout):
    seen = sum(1 for line in output if matches(line))
    while seen < count:
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            return
        output.append(line)
        seen += matches(line)
