"""Runs bpftrace attached to a file (a shared library) while a program runs, then stops it
only once it has printed every expected hit: bpftrace prints events asynchronously, and
stopping it as soon as the program exits loses the last ones on a loaded machine.
"""

import queue
import signal
import subprocess
import threading
from typing import Callable, List, Tuple, TypeVar

READY = "READY"
BEGIN_READY = 'BEGIN { printf("READY\\n"); }\n'   # BEGIN fires once every probe is attached

Result = TypeVar("Result")


def trace(script: str, action: Callable[[], Result], expected_hits: int,
          timeout: float = 30) -> Tuple[str, Result]:
    """Starts `bpftrace -e script` (which includes BEGIN_READY), calls `action()` once attached,
    then waits until `expected_hits` lines starting with "HIT " were printed (or `timeout`
    seconds), stops bpftrace and returns (its output, what action returned)."""
    tracer = subprocess.Popen(["bpftrace", "-e", script], stdout=subprocess.PIPE,
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
        tracer.send_signal(signal.SIGINT)
        tracer.wait(timeout=timeout)
        reader.join(timeout=timeout)
    while not lines.empty():
        output.append(lines.get())
    return "".join(output), result


def _read_until(lines, output, matches, count, timeout):
    seen = sum(1 for line in output if matches(line))
    while seen < count:
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            return
        output.append(line)
        seen += matches(line)
