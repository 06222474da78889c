/*
 * sys/sdt-config.h: what systemtap's configure found about the assembler, which code written
 * for systemtap's <sys/sdt.h> may test. usdt's sys/sdt.h needs neither: every assembler usdt
 * supports (binutils 2.35 and later, LLVM's) groups a section with its code's (`?`).
 */
#ifndef _SDT_ASM_SECTION_AUTOGROUP_SUPPORT
#define _SDT_ASM_SECTION_AUTOGROUP_SUPPORT 1
#endif
