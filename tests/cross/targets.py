"""The targets the cross tests build for: Debian's cross compilers (gcc-TRIPLE, g++-TRIPLE,
their sysroot /usr/TRIPLE), run under qemu-user and read by gdb-multiarch. Each entry says what
its notes must hold, written from the target's ABI and the operand forms its tracers parse
(docs/internals.md, "Targets"), not from what usdt happens to emit.
"""

from dataclasses import dataclass
from typing import Dict, Optional


@dataclass(frozen=True)
class Target:
    name: str                  # cross.NAME in CTest
    triple: str                # Debian's GNU triple: gcc-TRIPLE, /usr/TRIPLE
    qemu: str                  # the qemu-user program that runs it
    machine: str               # readelf -h's "Machine:"
    elf_class: str             # ELF32 or ELF64: the note's address words are 4 or 8 bytes
    byte_order: str            # little or big
    # One argument in a register, as the note must name it (a regular expression).
    register: str
    # One argument in the 32-bit targets' argument block: the block's register (group `base`)
    # and the argument's offset in it (group `offset`, 8 bytes per argument).
    block: Optional[str] = None
    # Whether the block is used without optimization only (s390x); else always, if `block`.
    block_unoptimized_only: bool = False
    # gdb 13 reads arguments ($_probe_argN) here; elsewhere the tests read the registers and
    # memory each spec names at a `break -probe-stap` stop.
    gdb_reads_arguments: bool = True
    # gdb follows the program's shared libraries over qemu's stub (not on i386).
    gdb_follows_libraries: bool = True
    has_probes: bool = True

    @property
    def pointer_size(self) -> int:
        return 4 if self.elf_class == "ELF32" else 8

    @property
    def sysroot(self) -> str:
        return f"/usr/{self.triple}"


TARGETS: Dict[str, Target] = {target.name: target for target in (
    Target("i686", "i686-linux-gnu", "qemu-i386", "Intel 80386", "ELF32", "little",
           register=r"%e(?:ax|bx|cx|dx|si|di|bp)",
           block=r"(?P<offset>\d+)\((?P<base>%e(?:ax|bx|cx|dx|si|di|bp))\)", gdb_follows_libraries=False),
    # r0 always: gdb reads `fp` as its frame base, and no bare `ip` or `lr`.
    Target("armhf", "arm-linux-gnueabihf", "qemu-arm", "ARM", "ELF32", "little",
           register=r"r(?:[0-9]|1[0-2])", block=r"\[(?P<base>r0), #(?P<offset>\d+)\]"),
    Target("armel", "arm-linux-gnueabi", "qemu-arm", "ARM", "ELF32", "little",
           register=r"r(?:[0-9]|1[0-2])", block=r"\[(?P<base>r0), #(?P<offset>\d+)\]"),
    # x0..x30, never the `w` half: libbpf and perf parse only x registers.
    Target("aarch64", "aarch64-linux-gnu", "qemu-aarch64", "AArch64", "ELF64", "little",
           register=r"x(?:[0-9]|[12][0-9]|30)"),
    # ABI names, the ones libbpf parses (`s0`, never `fp` or `x8`).
    Target("riscv64", "riscv64-linux-gnu", "qemu-riscv64", "RISC-V", "ELF64", "little",
           register=r"(?:ra|sp|gp|tp|t[0-6]|s[0-9]|s1[01]|a[0-7])", gdb_reads_arguments=False),
    # A bare register number, as gdb and perf parse it (not `%r9`, which -mregnames gives).
    Target("ppc64el", "powerpc64le-linux-gnu", "qemu-ppc64le", "PowerPC64", "ELF64", "little",
           register=r"(?:[0-9]|[12][0-9]|3[01])"),
    Target("ppc64", "powerpc64-linux-gnu", "qemu-ppc64", "PowerPC64", "ELF64", "big",
           register=r"(?:[0-9]|[12][0-9]|3[01])"),
    # The block's register is an address register, never %r0 (which means "no base" there).
    Target("s390x", "s390x-linux-gnu", "qemu-s390x", "IBM S/390", "ELF64", "big",
           register=r"%r(?:[0-9]|1[0-5])", block=r"(?P<offset>\d+)\((?P<base>%r(?:[1-9]|1[0-5]))\)",
           block_unoptimized_only=True),
    # `$N`, and the stack pointer by name when the value is its address.
    Target("mips64el", "mips64el-linux-gnuabi64", "qemu-mips64el", "MIPS R3000", "ELF64", "little",
           register=r"\$(?:[0-9]|[12][0-9]|3[01]|sp|fp)", gdb_reads_arguments=False),
    # 32-bit MIPS (o32) has no probes: usdt/usdt.h compiles them away there.
    Target("mipsel", "mipsel-linux-gnu", "qemu-mipsel", "MIPS R3000", "ELF32", "little",
           register="", has_probes=False),
)}
