"""Which argument specs the tracers parse, per machine: the forms libbpf's USDT parsers take
(src/usdt.c, parse_usdt_arg(), one per architecture; bpftrace 0.25 and later read arguments with
them), which bcc's (bpftrace 0.17's) takes too. A spec one of them rejects fails the probe's
attach under libbpf; bcc reads some of them as wrong values (an operand at a symbol's address).
docs/internals.md ("Targets") has the table of what each tracer reads on each target.
"""

import re
from typing import Dict, Optional, Pattern

from ..files.probe_notes import ArgumentSpec

# libbpf's USDT_MAX_ARG_CNT, the most systemtap's sys/sdt.h writes too.
MOST_ARGUMENTS = 12
SIZES = (1, 2, 4, 8)

_NUMBER = r"[-+]?\d+"     # sscanf's %ld: decimal, an optional sign


def _x86_registers(wide: bool) -> str:
    names = ["rip", "eip"]
    for letter in "abcd":
        names += [f"r{letter}x", f"e{letter}x", f"{letter}x", f"{letter}l"]
    for pair in ("si", "di", "bp", "sp"):
        names += [f"r{pair}", f"e{pair}", pair, f"{pair}l"]
    if wide:
        names += [f"r{n}{suffix}" for n in range(8, 16) for suffix in ("", "d", "w", "b")]
    return "(?:" + "|".join(sorted(names, key=len, reverse=True)) + ")"


def _x86(wide: bool) -> Pattern:
    register = "%" + _x86_registers(wide)
    return re.compile(rf"{register}|\${_NUMBER}|(?:{_NUMBER})?\(\s*{register}\s*\)")


_AARCH64_REGISTER = r"(?:x(?:[12]?[0-9]|30)|sp)"
_ARM_REGISTER = r"(?:r(?:[0-9]|10)|fp|ip|sp|lr|pc)"
_RISCV_REGISTER = r"(?:ra|sp|gp|tp|a[0-7]|s(?:[0-9]|1[01])|t[0-6])"
_S390_REGISTER = r"%r(?:[0-9]|1[0-5])"

# e_machine -> the operands libbpf's parser for it takes (whitespace around the punctuation
# allowed, as sscanf skips it). Machines without a libbpf parser (PowerPC, MIPS, LoongArch)
# are left unchecked.
OPERANDS: Dict[str, Pattern] = {
    "EM_X86_64": _x86(wide=True),
    "EM_386": _x86(wide=False),
    "EM_AARCH64": re.compile(rf"{_AARCH64_REGISTER}|{_NUMBER}|\[\s*{_AARCH64_REGISTER}\s*(?:,\s*{_NUMBER}\s*)?\]"),
    "EM_ARM": re.compile(rf"{_ARM_REGISTER}|#{_NUMBER}|\[\s*{_ARM_REGISTER}\s*(?:,\s*#{_NUMBER}\s*)?\]"),
    "EM_RISCV": re.compile(rf"{_RISCV_REGISTER}|{_NUMBER}|{_NUMBER}\(\s*{_RISCV_REGISTER}\s*\)"),
    "EM_S390": re.compile(rf"{_S390_REGISTER}|{_NUMBER}|{_NUMBER}\(\s*{_S390_REGISTER}\s*\)"),
}
# x86's base-index-scale form, `8@(%rax,%rbx,4)`: libbpf parses it from 1.7 on, perf skips it.
_X86_SCALED = re.compile(rf"(?:{_NUMBER})?\(\s*%\w+\s*,\s*%\w+\s*(?:,\s*\d+\s*)?\)")
_HEX = re.compile(r"0[xX][0-9a-fA-F]+")
_LETTER = re.compile(r"[A-Za-z_]")


def unreadable(spec: ArgumentSpec, machine: str) -> Optional[str]:
    """Why the tracers cannot read `spec` in a file for `machine` (an e_machine name), or None
    when they can or usdt knows no parser for the machine."""
    if not spec.size:
        return "not a [-]SIZE@OPERAND spec"
    if spec.floating:
        return "a floating-point spec, which libbpf and bcc do not parse (gdb fails the whole probe)"
    if spec.size not in SIZES:
        return f"a {spec.size}-byte value: tracers read values of 1, 2, 4 or 8 bytes"
    operands = OPERANDS.get(machine)
    if operands is None or operands.fullmatch(spec.operand.strip()):
        return None
    if machine in ("EM_X86_64", "EM_386") and _X86_SCALED.fullmatch(spec.operand.strip()):
        return None     # scaled(): a warning of its own
    if names_a_symbol(spec.operand):
        return ("an operand at a symbol's address, which libbpf refuses (the attach fails) and bcc "
                "(bpftrace 0.17) reads as a wrong value")
    return "an operand libbpf's parser for this machine does not take (the attach fails)"


def scaled(spec: ArgumentSpec, machine: str) -> bool:
    """Whether `spec` is x86's base-index-scale form, which only libbpf 1.7 and later read."""
    return machine in ("EM_X86_64", "EM_386") and bool(spec.size) and \
        _X86_SCALED.fullmatch(spec.operand.strip()) is not None


def names_a_symbol(operand: str) -> bool:
    """Whether an operand is at a symbol's address, which no tracer reads right: x86's
    `global_count(%rip)`, `136+mp_(%rip)` (glibc's memory_* probes, from Debian 13's on) or
    `$symbol`, aarch64's `[x1, #:lo12:.LANCHOR0]`."""
    operand = _HEX.sub("0", operand.strip())
    if ":lo12:" in operand:
        return True
    if operand.startswith("$"):
        return _LETTER.search(operand[1:]) is not None
    if "(" in operand:
        return _LETTER.search(operand.split("(", 1)[0]) is not None
    return False
