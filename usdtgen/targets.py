"""The targets a probe's argument specs are spelled for, in one table: how each target passes an
argument to the probe site and how a spec names it there, in the form that target's tracers parse
(docs/internals.md, "Argument specs" and "Targets"). The generated header defines each probe's
finished specs once per row, in one #if chain with these conditions in this order
(header_view.spec_chain); usdt/usdt_site.h passes the arguments as the rows say: a register per
argument, or, on the rows with a `block_slot`, an argument block (_USDT_BLOCK_CONSTRAINT).

A spec's operand is asm template text: `%N` prints the register of the site's operand N as the
compiler prints it for the target (`x5`, `%r2`, `9`, `$4`), `%kN` its 32-bit name on x86; `%%`
is a literal `%`; `{att|intel}` takes the half of the assembler dialect the compiler writes (x86).
"""

from dataclasses import dataclass
from typing import Optional

from .model import Argument, Probe
from .notes import spec_size

# x86: nothing in AT&T syntax, where the compiler prints a register with its `%` (`%eax`), and a
# literal `%` under -masm=intel, where it prints `eax`: the note reads `%eax` in both.
PERCENT_IN_INTEL_SYNTAX = "{|%%}"

# Each argument's slot in an argument block: 8 bytes, the value at its start.
SLOT_SIZE = 8


@dataclass(frozen=True)
class Target:
    name: str                  # what the header's chain says beside the condition
    condition: Optional[str]   # the preprocessor's; None for the last row, every other target
    word_size: int             # bytes of pointers, `long` and `size_t`: Linux is ILP32 or LP64
    # The asm template text before an operand's number that prints its register as tracers read
    # it, for an argument of 8 bytes (`%`: `x5`), and for one under 8 bytes (x86-64: `%k`, the
    # 32-bit name, `%r8d`: gdb cannot parse `%r8b`); None: the same as for 8 bytes.
    register: str = "%"
    narrow_register: Optional[str] = None
    # Where the site passes an argument block: its slot as a spec names it, with `{offset}`, the
    # slot's byte offset, and `{register}`, the block's register (the site's operand 0).
    block_slot: Optional[str] = None

    def operand(self, argument: Argument) -> str:
        """Where the argument is, as asm template text: `{|%%}%k1`, `[%0, #8]`."""
        if self.block_slot is not None:
            return self.block_slot.format(offset=SLOT_SIZE * argument.index, register=f"{self.register}0")
        narrow = self.note_size(argument) < 8 and self.narrow_register is not None
        return f"{self.narrow_register if narrow else self.register}{argument.index}"

    def note_size(self, argument: Argument) -> int:
        return argument.type.note_size(self.word_size)

    def spec(self, argument: Argument) -> str:
        """`[-]SIZE@OPERAND`, the operand as asm template text: `-4@{|%%}%k1`."""
        return f"{spec_size(self.note_size(argument), argument.type.signed)}@{self.operand(argument)}"

    def probe_spec(self, probe: Probe) -> str:
        """All the probe's argument specs, space separated: the asm template text of the note's
        argument string."""
        return " ".join(self.spec(argument) for argument in probe.arguments)


# In the order the chain tests them; the last applies where no other does.
TARGETS = (
    Target("x86-64", "defined(__x86_64__) && !defined(_USDT_ATT_ONLY)", 8,
           register=PERCENT_IN_INTEL_SYNTAX + "%", narrow_register=PERCENT_IN_INTEL_SYNTAX + "%k"),
    # Clang before 14 reads x86 inline asm as AT&T whatever -masm says, yet takes the Intel half of
    # a dialect alternative (usdt/usdt.h defines _USDT_ATT_ONLY for it): AT&T only.
    Target("x86-64, inline asm in AT&T syntax only", "defined(__x86_64__) && defined(_USDT_ATT_ONLY)", 8,
           register="%", narrow_register="%k"),
    # 32-bit targets: an 8-byte value fits no register, and no tracer reads a register pair; i386
    # has too few registers for 12 arguments. The block's address, in a 32-bit register.
    Target("i386", "defined(__i386__) && !defined(_USDT_ATT_ONLY)", 4,
           register=PERCENT_IN_INTEL_SYNTAX + "%k", block_slot="{offset}({register})"),
    Target("i386, inline asm in AT&T syntax only", "defined(__i386__) && defined(_USDT_ATT_ONLY)", 4,
           register="%k", block_slot="{offset}({register})"),
    # The block in r0 (usdt/usdt_site.h): gdb parses only r0..r12 and reads `fp` as its frame base.
    Target("32-bit ARM", "defined(__arm__)", 4, block_slot="[{register}, #{offset}]"),
    # GCC keeps too few registers free for 12 arguments without optimization; the block in an
    # address register.
    Target("s390x without optimization", "defined(__s390x__) && !defined(__OPTIMIZE__)", 8,
           block_slot="{offset}({register})"),
    # A 64-bit register, by the compiler's name for it: `x5`, `a5`, `9`, `%r2`, `$4`.
    Target("aarch64, riscv64, ppc64, optimized s390x, mips64", None, 8),
)
