"""Unit tests of the argument specs of a generated header's probes on each target: a probe's
_USDT_SPEC_ macro (header_view.spec_definition), expanded by the preprocessor as usdt/usdt_site.h's
_USDT_ARGSPEC spells it for the target, and printed as that target's compiler prints the site's
asm template, is the note its tracers parse (docs/internals.md, "Targets"; the forms
tests/cross/targets.py checks in real builds), with each declared type's size and sign there
(types.py's), and names the argument the site passes as usdt/usdt_site.h passes it (a register
per argument, or a slot of the argument block)."""

import ast
import re
import shutil
import subprocess
import unittest
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Tuple

import usdt_testing
from usdtgen import header_view, model, notes
from usdtgen.parser import parse

RUNTIME_INCLUDE = Path(__file__).resolve().parents[2] / "runtime" / "include"
# What every target's compiler predefines that the runtime tests, besides its own macros.
LINUX_GCC = ("__linux__", "__ELF__", "__GNUC__=12")


def provider_file(text):
    return model.build(parse(text, "t.d"), "t.d", "t.d")


# Every kind of argument, 12 of them (the most tracers read), and its size and sign on LP64 and
# ILP32 targets: `long`, `size_t` and pointers are 4 bytes on the latter, bool 1, char signed.
EVERY_KIND = provider_file("provider p { probe x(int8_t a, uint8_t b, int16_t c, uint16_t d, int e, unsigned f, "
                           "int64_t g, uint64_t h, bool i, long j, size_t k, const char *l); probe none(); };")
PROBE, NO_ARGUMENTS = EVERY_KIND.probes
SIZES = {8: ["-1", "1", "-2", "2", "-4", "4", "-8", "8", "1", "-8", "8", "8"],
         4: ["-1", "1", "-2", "2", "-4", "4", "-8", "8", "1", "-4", "4", "4"]}

X86_64_REGISTERS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14")
X86_32_BIT_NAMES = ("eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d",
                    "r14d")


@dataclass(frozen=True)
class Compiler:
    """A compiler for one target, as far as a site's argument specs see it."""
    name: str
    macros: Tuple[str, ...]      # what it predefines that usdt/usdt.h tests (`-D` options), but LINUX_GCC
    word_size: int
    registers: Tuple[str, ...]   # what `%N` prints for operand N: registers it gives operands
    operand: str                 # one spec's operand, as the target's tracers parse it
    narrow_registers: Tuple[str, ...] = ()   # what `%kN` prints (x86)
    narrow_operand: Optional[str] = None     # for an argument under 8 bytes, where it differs
    intel_half: bool = False     # takes the Intel half of an x86 dialect alternative `{att|intel}`
    block: bool = False          # the operand names the argument's slot: `offset` is its byte

    def printed(self, template: str) -> str:
        """The asm template as the compiler writes it for the assembler."""
        text = re.sub(r"\{([^|{}]*)\|([^|{}]*)\}", lambda m: m[2] if self.intel_half else m[1], template)

        def operand(match):
            if match[0] == "%%":
                return "%"
            registers = self.narrow_registers if match[1] == "k" else self.registers
            self.assert_printable(match[0], registers)
            return registers[int(match[2])]
        return re.sub(r"%%|%(k?)(\d+)", operand, text)

    @staticmethod
    def assert_printable(operand, registers):
        if not registers:
            raise AssertionError(f"no such operand modifier on this target: {operand}")


def x86(name, macros, intel_syntax=False, intel_half=None, att_only=False):
    """An x86 compiler: registers print with their `%` in AT&T syntax, without under -masm=intel;
    Clang before 14 prints AT&T syntax whatever -masm says, yet takes the Intel half of an
    alternative (usdt/usdt.h then defines _USDT_ATT_ONLY)."""
    word_size = 8 if name.startswith("x86-64") else 4
    macros = (*macros, f"__SIZEOF_POINTER__={word_size}", *(("__clang__", "__clang_major__=13") if att_only else ()))
    percent = "" if intel_syntax else "%"
    if name.startswith("x86-64"):
        registers = tuple(percent + register for register in X86_64_REGISTERS)
        shape = dict(word_size=8, operand=r"%r(?:[a-d]x|si|di|bp|[89]|1[0-5])",
                     narrow_operand=r"%(?:e(?:[a-d]x|si|di|bp)|r(?:[89]|1[0-5])d)")
    else:
        registers = ()
        shape = dict(word_size=4, operand=r"(?P<offset>\d+)\(%e(?:[a-d]x|si|di|bp)\)", block=True)
    return Compiler(name, macros, registers=registers,
                    narrow_registers=tuple(percent + register for register in X86_32_BIT_NAMES),
                    intel_half=intel_syntax if intel_half is None else intel_half, **shape)


LP64 = "__SIZEOF_POINTER__=8"
COMPILERS = (
    x86("x86-64", ("__x86_64__",)),
    x86("x86-64, -masm=intel", ("__x86_64__",), intel_syntax=True),
    x86("x86-64, Clang 13", ("__x86_64__",), att_only=True),
    x86("x86-64, Clang 13, -masm=intel", ("__x86_64__",), intel_half=True, att_only=True),
    x86("i386", ("__i386__",)),
    x86("i386, -masm=intel", ("__i386__",), intel_syntax=True),
    x86("i386, Clang 13", ("__i386__",), att_only=True),
    x86("i386, Clang 13, -masm=intel", ("__i386__",), intel_half=True, att_only=True),
    # r0 always (usdt/usdt_site.h): gdb reads `fp` as its frame base, and no bare `ip` or `lr`.
    Compiler("32-bit ARM", ("__arm__", "__SIZEOF_POINTER__=4"), 4, ("r0",), r"\[r0, #(?P<offset>\d+)\]", block=True),
    # x registers, never their `w` half: libbpf and perf parse only x registers.
    Compiler("aarch64", ("__aarch64__", LP64), 8, tuple(f"x{n}" for n in range(14)), r"x(?:[0-9]|[12][0-9]|30)"),
    Compiler("riscv64", ("__riscv", "__riscv_xlen=64", LP64), 8, ("a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s1", "s2", "t0", "t1", "sp",
                                        "ra"), r"(?:ra|sp|gp|tp|t[0-6]|s[0-9]|s1[01]|a[0-7])"),
    # A bare register number, as gdb and perf parse it.
    Compiler("ppc64", ("__powerpc64__", LP64), 8, tuple(str(n) for n in range(3, 17)), r"(?:[0-9]|[12][0-9]|3[01])"),
    Compiler("s390x, optimized", ("__s390x__", "__OPTIMIZE__", LP64), 8, tuple(f"%r{n}" for n in range(1, 15)),
             r"%r(?:[0-9]|1[0-5])"),
    # The block's register is an address register: never %r0, which means "no base" there.
    Compiler("s390x, unoptimized", ("__s390x__", LP64), 8, ("%r1",), r"(?P<offset>\d+)\(%r(?:[1-9]|1[0-5])\)",
             block=True),
    Compiler("mips64", ("__mips__", "_ABI64=3", "_MIPS_SIM=3", LP64), 8, tuple(f"${n}" for n in range(2, 16)), r"\$(?:[0-9]|[12][0-9]|3[01]|sp|fp)"),
)


def preprocessed(compiler: Compiler, lines: str) -> str:
    """`lines` after usdt/usdt_site.h, as the compiler's preprocessor expands them."""
    command = [shutil.which("cpp") or "cpp", "-undef", "-P", f"-I{RUNTIME_INCLUDE}",
               *(f"-D{macro}" for macro in LINUX_GCC + compiler.macros)]
    return subprocess.run(command, input="#include <usdt/usdt_site.h>\n" + lines, capture_output=True, text=True,
                          check=True).stdout


def expanded_spec(compiler: Compiler, probe) -> str:
    """The probe's _USDT_SPEC_ macro, as the site's asm template gets it on the target."""
    output = preprocessed(compiler, f"{header_view.spec_definition(probe)}\nspec: {header_view.spec_macro_name(probe)}\n")
    literals = re.search(r"^spec: (.*)$", output, re.MULTILINE)[1]
    return ast.literal_eval(literals)     # adjacent string literals, joined as C joins them


class SpecTest(unittest.TestCase):
    def notes_argument_string(self, compiler, probe=PROBE):
        return compiler.printed(expanded_spec(compiler, probe))

    def test_each_argument_is_where_its_tracers_read_it_with_its_size_and_sign(self):
        for compiler in COMPILERS:
            with self.subTest(compiler=compiler.name):
                specs = notes.split_specs(self.notes_argument_string(compiler))
                self.assertEqual(len(specs), len(PROBE.arguments), specs)
                for index, spec in enumerate(specs):
                    size, signed, floating, operand = notes.parse_spec(spec)
                    self.assertEqual(spec.split("@")[0], SIZES[compiler.word_size][index], spec)
                    argument = PROBE.arguments[index]
                    self.assertEqual((size, signed), (argument.type.note_size(compiler.word_size), argument.type.signed))
                    self.assertFalse(floating)
                    narrow = size < 8 and compiler.narrow_operand is not None
                    form = compiler.narrow_operand if narrow else compiler.operand
                    match = re.fullmatch(form, operand)
                    self.assertIsNotNone(match, f"{spec}: not the form {form}")
                    if compiler.block:
                        self.assertEqual(int(match["offset"]), 8 * index, spec)
                    else:
                        # The register the compiler gave the argument, the site's operand `index`
                        # (in either syntax: Intel's prints no `%`).
                        registers = compiler.narrow_registers if narrow else compiler.registers
                        self.assertEqual(operand.lstrip("%"), registers[index].lstrip("%"), spec)

    def test_x86_notes_read_the_same_in_both_assembler_dialects(self):
        for name in ("x86-64", "i386", "x86-64, Clang 13", "i386, Clang 13"):
            with self.subTest(target=name):
                att, intel = (self.notes_argument_string(next(c for c in COMPILERS if c.name == spelled))
                              for spelled in (name, name + ", -masm=intel"))
                self.assertEqual(att, intel)
        self.assertEqual(self.notes_argument_string(COMPILERS[1]).split()[:2], ["-1@%eax", "1@%ebx"])

    def test_a_probe_without_arguments_has_an_empty_argument_string(self):
        for compiler in COMPILERS:
            with self.subTest(compiler=compiler.name):
                self.assertEqual(self.notes_argument_string(compiler, NO_ARGUMENTS), "")

    def test_the_argument_block_is_where_the_runtime_passes_one(self):
        for compiler in COMPILERS:
            with self.subTest(compiler=compiler.name):
                output = preprocessed(compiler, "block: _USDT_BLOCK_CONSTRAINT\n")
                self.assertEqual("block: _USDT_BLOCK_CONSTRAINT" not in output, compiler.block)

    def test_a_probe_has_one_spec_definition_for_every_target(self):
        x = provider_file("provider p { probe x(int8_t a, long b, const char *c); };").probes[0]
        self.assertEqual(header_view.spec_definition(x), '#define _USDT_SPEC_p_x _USDT_ARGSPEC(i8, 0) " " '
                                                         '_USDT_ARGSPEC(word, 1) " " _USDT_ARGSPEC(address, 2)')
        self.assertEqual(header_view.spec_definition(NO_ARGUMENTS), '#define _USDT_SPEC_p_none ""')


if __name__ == "__main__":
    usdt_testing.main()
