/* sys/sdt.h's probes in assembler source: each argument its spec, as written. x86-64. */
#include <sys/sdt.h>

    .text
    .globl sdt_asm_probe
    .type sdt_asm_probe, @function
sdt_asm_probe:
    STAP_PROBE2(sdt, asm_file, -4@%edi, -8@%rsi)
    STAP_PROBE(sdt, asm_file0)
    ret
    .size sdt_asm_probe, .-sdt_asm_probe
    .section .note.GNU-stack, "", @progbits
