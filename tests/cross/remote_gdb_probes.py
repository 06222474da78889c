"""gdb_probes.run for a program that runs under an emulator: qemu-user starts it stopped
behind its gdb stub (`qemu-aarch64 -g PORT`), and gdb-multiarch attaches with
`target remote`. tests/support/gdb_probes.py starts the program itself (`gdb --args`,
`run`), which a remote target cannot do, so this module writes the gdb script for the
remote case around that module's reporter, probe commands and result parser.
"""

import os
import socket
import subprocess
import tempfile
from typing import Dict, Sequence

import gdb_probes

TIMEOUT = 60
QUIT_TIMEOUT = 10   # gdb kills the program when it quits; qemu exits right after


def _free_port() -> int:
    # qemu-user takes only a TCP port; ask the kernel for one that is free now.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run(emulator: Sequence[str], sysroot: str, program: str, arguments: Sequence[str],
        string_indices: Dict[str, Sequence[int]], start_first: bool = False) -> gdb_probes.GdbRun:
    """Like gdb_probes.run. `emulator` is the qemu-user command without `-g`; `sysroot` the
    target's root, where gdb finds the dynamic loader and libc. gdb looks for the program's
    own shared libraries under the sysroot first, then in the program's directory. The
    result's output holds the program's output (stdout and stderr), then gdb's."""
    port = _free_port()
    lines = ["set pagination off", "set confirm off", f"set sysroot {sysroot}",
             f"set solib-search-path {os.path.dirname(os.path.abspath(program))}",
             # qemu may not listen yet when gdb connects: retry for a while.
             "set tcp auto-retry on", "set tcp connect-timeout 20", gdb_probes.REPORTER,
             f"target remote 127.0.0.1:{port}"]
    if start_first:
        # The program stops in the dynamic loader; at main its shared libraries are loaded.
        lines += ["tbreak main", "continue"]
    lines += gdb_probes.probe_commands(string_indices)
    lines.append("continue")
    script = "\n".join(lines) + "\n"

    target = subprocess.Popen([*emulator, "-g", str(port), program, *arguments],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        with tempfile.NamedTemporaryFile("w", prefix="usdt-", suffix=".gdb") as script_file:
            script_file.write(script)
            script_file.flush()
            debugger = subprocess.run(["gdb-multiarch", "-nx", "-batch", "-x", script_file.name, program],
                                      stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                      timeout=TIMEOUT)
        try:
            program_output = target.communicate(timeout=QUIT_TIMEOUT)[0]
        except subprocess.TimeoutExpired:
            target.kill()
            program_output = target.communicate()[0] + "(the program outlived gdb: killed)\n"
    finally:
        if target.poll() is None:   # gdb never connected or left it stopped
            target.kill()
            target.wait()
    return gdb_probes.result(debugger.stdout, program_output + debugger.stdout + debugger.stderr)
