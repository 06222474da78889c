/*
 * The `.stapsdt.base` section every module with probes needs: tracers relocate each note's
 * probe address by where this one byte ended up. Every note refers to `_.stapsdt.base`, so
 * the linker pulls this object into each executable and shared library that has probes.
 *
 * It is in the COMDAT group systemtap's sys/sdt.h uses, so a module mixing both keeps one
 * copy, and retained (SHF_GNU_RETAIN, the `R` flag) because only non-allocated notes refer
 * to it and lld's --gc-sections would otherwise drop it.
 */
#include <usdt/usdt.h>

#if USDT_HAVE_PROBES
__asm__(
    ".pushsection .stapsdt.base, \"aGR\", \"progbits\", .stapsdt.base, comdat\n"
    ".weak _.stapsdt.base\n"
    ".hidden _.stapsdt.base\n"
    "_.stapsdt.base:\n"
    ".space 1\n"
    ".size _.stapsdt.base, 1\n"
    ".popsection\n");
#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int usdt_no_probes_on_this_target;
#endif
