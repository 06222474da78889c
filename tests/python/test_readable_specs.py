"""Unit tests of usdttool.contract.readable_specs: the argument specs libbpf's parser for each
machine takes (its src/usdt.c), the ones it refuses and why, as `usdt verify` reports them;
and every spec usdt's runtime writes on each target (test_targets.py's expansion) is readable."""

import unittest

import test_targets
import usdt_testing

from usdttool.contract import readable_specs
from usdttool.files import probe_notes

READABLE = {
    "EM_X86_64": "-4@%edi 8@%rax -1@%r8d 2@%ax -1@%sil 4@$5 -8@$-536 -4@-20(%rbp) 8@(%rsp) 8@16(%rip)",
    "EM_386": "-4@16(%eax) -4@%eax 4@$5 1@%al",
    "EM_AARCH64": "-4@x3 8@x30 -8@sp -8@[sp, 40] 4@[x1] 4@0 -4@-7",
    "EM_ARM": "-8@[r0, #8] -4@[fp] 4@#-5 -4@r10 -4@lr",
    "EM_RISCV": "-8@a5 -8@s11 -8@-88(s0) 4@5 8@sp",
    "EM_S390": "-8@48(%r1) -4@%r2 -4@%r15 4@-536",
}
REFUSED = {
    "EM_X86_64": {"-4@global_count(%rip)": "symbol", "8@136+mp_(%rip)": "symbol", "8@$symbol": "symbol",
                  "-4@%r16": "operand", "8@%xmm0": "operand", "8f@%rax": "floating", "16@%rax": "size",
                  "3@%eax": "size", "nonsense": "spec"},
    "EM_386": {"-4@%r8d": "operand", "-8@g@GOTOFF(%edx)": "symbol"},
    "EM_AARCH64": {"-4@w3": "operand", "-8@x31": "operand", "-8@[x1, #:lo12:.LANCHOR0]": "symbol", "4@#5": "operand"},
    "EM_ARM": {"-4@r11": "operand", "-4@[r0, 8]": "operand", "4@5": "operand"},
    "EM_RISCV": {"4@zero": "operand", "-8@fp": "operand", "-8@x8": "operand"},
    "EM_S390": {"-4@%r16": "operand", "-4@r2": "operand"},
}
REASONS = {"symbol": "an operand at a symbol's address", "operand": "an operand libbpf's parser",
           "floating": "a floating-point spec", "size": "-byte value: tracers read values of 1, 2, 4 or 8 bytes",
           "spec": "not a [-]SIZE@OPERAND spec"}


class ReadableTest(unittest.TestCase):
    def test_what_libbpf_parses_is_readable(self):
        for machine, text in READABLE.items():
            for spec in probe_notes.parse_arguments(text):
                with self.subTest(machine=machine, spec=spec.text):
                    self.assertIsNone(readable_specs.unreadable(spec, machine))
                    self.assertFalse(readable_specs.scaled(spec, machine))

    def test_what_libbpf_refuses_says_why(self):
        for machine, specs in REFUSED.items():
            for text, reason in specs.items():
                with self.subTest(machine=machine, spec=text):
                    (spec,) = probe_notes.parse_arguments(text)
                    self.assertIn(REASONS[reason], readable_specs.unreadable(spec, machine))

    def test_the_base_index_scale_form_is_readable_by_newer_libbpf_only(self):
        for text in ("8@(%rax,%rbx,4)", "-4@-8(%rbp,%rcx,8)", "8@(%rax,%rbx)"):
            (spec,) = probe_notes.parse_arguments(text)
            self.assertIsNone(readable_specs.unreadable(spec, "EM_X86_64"), text)
            self.assertTrue(readable_specs.scaled(spec, "EM_X86_64"), text)

    def test_a_machine_without_a_libbpf_parser_is_not_checked(self):
        for machine, text in (("EM_PPC64", "-8@9 4@i-536"), ("EM_MIPS", "-8@$4 8@0($sp)")):
            for spec in probe_notes.parse_arguments(text):
                self.assertIsNone(readable_specs.unreadable(spec, machine))
        (floating,) = probe_notes.parse_arguments("8f@9")
        self.assertIn("floating-point", readable_specs.unreadable(floating, "EM_PPC64"))


    def test_every_spec_usdt_writes_is_readable_on_its_target(self):
        machines = {"x86-64": "EM_X86_64", "i386": "EM_386", "32-bit ARM": "EM_ARM", "aarch64": "EM_AARCH64",
                    "riscv64": "EM_RISCV", "ppc64": "EM_PPC64", "s390x": "EM_S390", "mips64": "EM_MIPS"}
        for compiler in test_targets.COMPILERS:
            machine = machines[compiler.name.split(",")[0]]
            text = compiler.printed(test_targets.expanded_spec(compiler, test_targets.PROBE))
            for spec in probe_notes.parse_arguments(text):
                with self.subTest(compiler=compiler.name, spec=spec.text):
                    self.assertIsNone(readable_specs.unreadable(spec, machine))


if __name__ == "__main__":
    usdt_testing.parse_options()
    usdt_testing.main()
