"""gdb_probes.run for a program that runs under an emulator: qemu-user starts it stopped
behind its gdb stub (`qemu-aarch64 -g PORT`), and gdb-multiarch attaches with
`target remote`. tests/support/gdb_probes.py starts the program itself (`gdb --args`,
`run`), which a remote target cannot do, so this module writes the gdb script for the
remote case around that module's reporter, probe commands and result parser.

Where gdb has no argument support for the target (riscv64 and mips64 in gdb 13), `notes`
hands the script every module's stapsdt notes, and SPEC_REPORTER reads each argument where
its spec says, from the registers and memory of the stopped program, as a tracer would.
"""

import json
import os
import socket
import subprocess
import tempfile
from typing import Dict, List, Optional, Sequence, Tuple

import gdb_probes

TIMEOUT = 60
QUIT_TIMEOUT = 10   # gdb kills the program when it quits; qemu exits right after

# Defined inside gdb, after usdt_notes (module file name -> probe -> [(location, specs)]).
# Prints what gdb_probes.REPORTER prints. A site's run-time address is its note's location
# moved by its module's load address: `info probes` lists both modules' sites in address order.
SPEC_REPORTER = r'''python
import os, re
usdt_sites = {}
usdt_byte_order = "big" if "big endian" in gdb.execute("show endian", to_string=True) else "little"
# mips64's `$N` is register N, which gdb names (n64 names); `$sp` is named already, and `$fp`
# is register 30 (GCC's name for s8 when it holds a value), which to gdb is the frame base.
USDT_MIPS_NAMES = ("zero at v0 v1 a0 a1 a2 a3 a4 a5 a6 a7 t0 t1 t2 t3 s0 s1 s2 s3 s4 s5 s6 s7 "
                   "t8 t9 k0 k1 gp sp s8 ra").split()
def usdt_locate_sites():
    listed = {}
    for line in gdb.execute("info probes", to_string=True).splitlines():
        words = line.split()
        if len(words) >= 5 and words[0] == "stap":
            key = (os.path.basename(words[-1]), words[1] + ":" + words[2])
            listed.setdefault(key, []).append(int(words[3], 16))
    for (module, probe), addresses in listed.items():
        noted = sorted(usdt_notes.get(module, {}).get(probe, []))
        for address, (location, specs) in zip(sorted(addresses), noted):
            usdt_sites[address] = specs
def usdt_register(name):
    name = name.lstrip("$%")
    if name.isdigit():
        name = USDT_MIPS_NAMES[int(name)]
    elif name == "fp" and "mips" in gdb.execute("show architecture", to_string=True):
        name = "s8"
    # Cast: gdb types the stack pointer as a pointer.
    return int(gdb.parse_and_eval("(long)$" + name))
def usdt_argument(spec):
    size, operand = spec.split("@", 1)
    signed, size = size.startswith("-"), abs(int(size))
    memory = re.fullmatch(r"(-?\d+)\((.+)\)", operand)
    if memory:
        address = usdt_register(memory.group(2)) + int(memory.group(1))
        raw = bytes(gdb.selected_inferior().read_memory(address, size))
        return int.from_bytes(raw, usdt_byte_order, signed=signed)
    value = usdt_register(operand) & ((1 << 8 * size) - 1)
    return value - (1 << 8 * size) if signed and value >> (8 * size - 1) else value
def usdt_spec_report(probe, string_indices):
    try:
        pc = int(gdb.parse_and_eval("$pc"))
        if pc not in usdt_sites:
            usdt_locate_sites()
        values = []
        for index, spec in enumerate(usdt_sites[pc]):
            value = usdt_argument(spec)
            if index in string_indices:
                value = gdb.parse_and_eval("(char *)%d" % value).string()
            values.append(value)
        print("HIT %s %s" % (probe, json.dumps(values)))
    except (gdb.error, KeyError, ValueError, IndexError) as error:
        print("HIT %s error: %r" % (probe, error))
end
'''

# Defined inside gdb, for a target whose shared libraries gdb does not follow over qemu's
# stub (i386: gdb reads qemu's auxv, then never the dynamic linker's list). Walks that list
# as gdb would (the program's DT_DEBUG -> r_debug -> link_map) and adds each library's symbols,
# and so its probes, at its load address. `dynamic` is the address of the program's .dynamic.
LIBRARY_LOADER = r'''python
def usdt_add_libraries(dynamic, word):
    memory = gdb.selected_inferior()
    def read(address):
        return int.from_bytes(bytes(memory.read_memory(address, word)), "little")
    tag = None
    while tag != 0:
        tag, value, dynamic = read(dynamic), read(dynamic + word), dynamic + 2 * word
        if tag == 21:   # DT_DEBUG: the dynamic linker's r_debug
            link_map = read(value + word)   # r_map, after an int padded to a word
            while link_map:
                base, name = read(link_map), read(link_map + word)
                path = gdb.parse_and_eval("(char *)%d" % name).string() if name else ""
                if path.startswith("/") and "/lib/" not in path and "/lib64/" not in path:
                    gdb.execute("add-symbol-file %s -o %d" % (path, base), to_string=True)
                link_map = read(link_map + 3 * word)   # l_next
            return
end
'''

# Module file name -> probe -> [(location, argument specs)], from readelf.
Notes = Dict[str, Dict[str, List[Tuple[int, Sequence[str]]]]]


def _free_port() -> int:
    # qemu-user takes only a TCP port; ask the kernel for one that is free now.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def run(emulator: Sequence[str], sysroot: str, program: str, arguments: Sequence[str],
        string_indices: Dict[str, Sequence[int]], start_first: bool = False,
        notes: Optional[Notes] = None, dynamic: Optional[Tuple[int, int]] = None) -> gdb_probes.GdbRun:
    """Like gdb_probes.run. `emulator` is the qemu-user command without `-g`; `sysroot` the
    target's root, where gdb finds the dynamic loader and libc. gdb looks for the program's
    own shared libraries under the sysroot first, then in the program's directory. With
    `notes`, arguments are read as their specs say (SPEC_REPORTER), not by gdb. With
    `dynamic`, (the address of the program's .dynamic, the size of a pointer), the libraries
    loaded when main starts are added by hand (LIBRARY_LOADER; needs start_first). The
    result's output holds the program's output (stdout and stderr), then gdb's."""
    port = _free_port()
    lines = ["set pagination off", "set confirm off", f"set sysroot {sysroot}",
             f"set solib-search-path {os.path.dirname(os.path.abspath(program))}",
             # qemu may not listen yet when gdb connects: retry for a while.
             "set tcp auto-retry on", "set tcp connect-timeout 20", gdb_probes.REPORTER]
    if notes is not None:
        lines += [f"python usdt_notes = {json.dumps(notes)}", SPEC_REPORTER]
    lines.append(f"target remote 127.0.0.1:{port}")
    if start_first:
        # The program stops in the dynamic loader; at main its shared libraries are loaded.
        lines += ["tbreak main", "continue"]
    if dynamic is not None:
        lines += [LIBRARY_LOADER, f"python usdt_add_libraries({dynamic[0]}, {dynamic[1]})"]
    lines += gdb_probes.probe_commands(string_indices, "usdt_report" if notes is None else "usdt_spec_report")
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
