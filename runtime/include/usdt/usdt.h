/*
 * usdt/usdt.h: the runtime half of usdt. A header generated from a .d provider file includes
 * it, from the include directory usdt_add_provider() gives its target; one that must stand
 * alone (usdt-dtrace -h's, a PUBLIC one of usdt_add_provider()) carries a copy of it, under the
 * same include guard, and needs no include path or library. Application code includes the
 * generated header.
 *
 * What a probe site is (SystemTap SDT v3, the format bpftrace, perf, gdb, bcc, SystemTap
 * and libbpf read; see https://sourceware.org/systemtap/wiki/UserSpaceProbeImplementation):
 *
 *  - A one-byte `nop` in the code. A tracer that attaches replaces it with a breakpoint.
 *    (Opt-in on x86-64: a 5-byte nop the kernel can turn into a call, see _USDT_NOP.)
 *  - An ELF note in the non-allocated section `.note.stapsdt`: owner "stapsdt", type 3,
 *    then three address-sized words (the nop's address, the link-time address of `_.stapsdt.base`,
 *    the semaphore's address or 0) and three strings: provider, probe name, argument specs.
 *    Tracers find the run-time address of the nop as note.pc + (actual base - note.base),
 *    which is why every module needs a `.stapsdt.base` section: this header emits it in
 *    every translation unit (gdb shows no probes at all without it).
 *  - Argument specs, space separated, `[-]SIZE@OPERAND`: `-4@%edi` is a signed 4-byte value
 *    in register edi. SIZE and sign come from the type declared in the .d file. Every
 *    argument is in a register on 64-bit targets, and in an argument block whose address is
 *    in a register on 32-bit ones (`-8@16(%eax)`), in the forms each target's tracers parse
 *    (see _USDT_BLOCK_CONSTRAINT): memory operands such as `sym(%rip)`, index forms and
 *    immediates (`$5`) are each misread or skipped by at least one common tracer.
 *    usdt/usdt_site.h spells each argument's spec for the target (_USDT_ARGSPEC), which a
 *    generated header's _USDT_SPEC_ macro names, argument by argument.
 *  - A second note per site, in `.note.usdt`: owner "usdt", type 4, and NUL-terminated
 *    strings: provider, probe name, the .d file's name, then for each argument its name and
 *    type as declared in the .d file and its kind (integer, bool, string or pointer). Tracers
 *    ignore it; the `usdt` tool prints names and types from it. Format: docs/internals.md.
 *  - Each note lives in a section linked (SHF_LINK_ORDER) to the code it describes, so
 *    --gc-sections drops the note together with dead code instead of leaving a note that
 *    points at address 0 (but with binutils 2.35: see _USDT_SITE).
 *
 * Semaphores: a 2-byte counter per (provider, probe), defined by the generated header, hidden
 * (one per linked module), in the file-backed `.probes` section because the kernel only
 * maintains semaphores it can find in the file (uprobes' ref_ctr_offset); the section starts
 * a page of its own (see _USDT_SEMAPHORE_DEFINE). Tracers raise it while attached, so
 * PROVIDER_PROBE_ENABLED() guards expensive argument computation. Every check reads it from
 * memory again (on x86-64 an `asm goto` compares it in place, elsewhere a volatile read: see
 * _USDT_SEMAPHORE_ACTIVE), so that a loop notices a tracer that attaches later.
 * Its value counts armed probe sites, not tracers: test it only against zero. A probe can
 * also be declared without a semaphore (the site is then only the nop, and its note records
 * semaphore address 0); its PROVIDER_PROBE_ENABLED() is always 1.
 *
 * Targets: Linux on x86-64, i386, aarch64, 32-bit ARM, riscv64, ppc64 (either byte order),
 * s390x and mips64 (n64). Anywhere else, or with USDT_DISABLE defined, probes compile to
 * nothing but the evaluation of their arguments, and every PROVIDER_PROBE_ENABLED() is 0.
 *
 * The runtime is four files, each included by the next (and embedded in that order in a
 * generated header that stands alone): this one (the version, the targets, semaphores, `.stapsdt.base` and the
 * is-enabled check); usdt/usdt_site.h, the probe site as C and C++ code share it (how a
 * macro's arguments are converted in C and reach the site, the nop and its notes); for C++
 * only, usdt/usdt_cxx.h (the macros' argument checks and conversions in C++) and
 * usdt/usdt_cxx_api.h (the typed C++ API's argument types). A generated header includes or
 * carries the last two only for C++ (`#elif defined(__cplusplus)`). Code that writes a site itself
 * includes usdt/usdt_site.h; code that only tests USDT_HAVE_PROBES or the version, this file.
 *
 * Everything here is an implementation detail of generated headers, and its names carry a
 * `_USDT_` or `_usdt_` prefix, but for what a user may test or define: USDT_ABI_VERSION,
 * USDT_HAVE_PROBES, and the settings USDT_DISABLE, USDT_X86_NOP5, USDT_NO_CXX_API (C++) and
 * USDT_UNLINKED_NOTES (which usdt_add_provider sets where the toolchain needs it).
 *
 * Spelling: builds written for systemtap's dtrace edit the header it generates with sed, and
 * so this copy too: they make its `char \*` and `void \*` const (memcached, PostgreSQL, Ruby)
 * and rename its macro prefixes (docs/dtrace.md lists the edits). So a pointer's qualifiers
 * follow the type they qualify, `char const *`, `void const volatile *`: nothing here, comments
 * included, spells `char` or `void` then a `*`, to which an edit would add a second `const` (an
 * error under -Wall -Werror).
 */
#ifndef USDT_USDT_H
#define USDT_USDT_H

/* What a generated header and this runtime agree on: the macros, their arguments, the notes
   and semaphores they emit. A generated header checks it and refuses to compile against another
   version: a change to what the macros take is a new version even where the notes stay the
   same, as another version's header would expand this one's macros wrongly.
   One line per version, what changed:
    1  the site: a nop, its .note.stapsdt, semaphores
    2  probes without a semaphore (semaphore address 0, always enabled)
    3  a .note.usdt record per site: .d file, argument names, declared types and kinds
    4  embedded in generated headers: they define semaphores (COMDAT) and emit .stapsdt.base
    5  C++ macro conversions always inlined (no call per argument at -O0)
    6  string arguments of probes with a semaphore read by the site while traced (pages faulted in)
    7  i386, ARM, riscv64, ppc64, s390x, mips64: argument block on 32-bit targets, word-sized specs
    8  the C++ API's shared argument types (usdt::integer_argument<T, N> and siblings)
    9  sites never read string arguments: memory inputs instead of a memory clobber
   10  split into usdt.h and usdt_cxx.h (C++ only); internals _USDT_; one is-enabled check
   11  _USDT_SITE's description is one finished string literal, not a list for it to stringize
   12  _USDT_SITE's spec is finished by the generated header, one string literal per target
   13  each argument's spec spelled here (_USDT_ARGSPEC), named by the header's _USDT_SPEC_
   14  _USDT_SITE names what its .init_usdt_keep entry keeps; no .note.usdt without a description */
#define USDT_ABI_VERSION 14

/* The targets probes are emitted for: those whose tracers read the notes (the reference's
   per-target table says which read what). Linux's ILP32 variants of 64-bit targets (x32,
   aarch64's ILP32) and 32-bit MIPS, PowerPC and RISC-V are left out: no Debian release
   architecture and no test covers them. */
#if defined(__linux__) && !defined(USDT_DISABLE) \
    && ((defined(__x86_64__) && !defined(__ILP32__)) || defined(__i386__) \
        || (defined(__aarch64__) && !defined(__ILP32__)) || defined(__arm__) \
        || (defined(__riscv) && __riscv_xlen == 64) || defined(__powerpc64__) || defined(__s390x__) \
        || (defined(__mips__) && defined(_ABI64) && _MIPS_SIM == _ABI64))
#define USDT_HAVE_PROBES 1
#else
#define USDT_HAVE_PROBES 0
#endif

/* x86 asm templates in both assembler dialects: the is-enabled check here, the site's nop in
   usdt/usdt_site.h, and the argument specs of generated headers, which spell the alternative in
   their strings and test _USDT_ATT_ONLY. */
#if defined(__x86_64__) || defined(__i386__)
/* `{AT&T|Intel}`: an asm template in both assembler dialects, so that code built with
   -masm=intel assembles. Clang before 14 reads inline asm as AT&T whatever -masm says (LLVM's
   D113707 changed that), yet takes the Intel half of an alternative: it gets AT&T only
   (_USDT_ATT_ONLY). */
#if defined(__clang__) && __clang_major__ < 14
#define _USDT_ATT_ONLY 1
#define _USDT_DIALECTS(att, intel) att
#else
#define _USDT_DIALECTS(att, intel) "{" att "|" intel "}"
#endif
#endif

/* Semaphores: each generated header declares and defines its probes' semaphores, so that
   every module (executable or shared library) whose code fires a probe has its own copy
   without a separate object or library. Each is defined in assembly, in a COMDAT group of
   its own name, so the copies of all the translation units of a module fold into one (a
   weak C definition would leave every unit's bytes behind); hidden, so each module keeps
   its own; in the file-backed `.probes` section, where the kernel can find them; kept by
   --gc-sections through each site's `.init_usdt_keep` entry (_USDT_SITE), as only notes refer
   to them otherwise; `.ifndef`-guarded for link-time optimizers that join units' top-level
   asm. The definition is the same whether or not probes are compiled in, so translation
   units built with and without USDT_DISABLE agree on it. */
#if defined(__GNUC__) && defined(__ELF__)
/* `.probes` starts a page of its own, or the kernel may raise a semaphore the code never
   reads. For a tracer that attached before a module was mapped (`bpftrace -c`, `perf record
   -- CMD`, a library dlopen()ed later), Linux raises each semaphore when the module is mapped,
   through the first writable mapping of the semaphore's file page (uprobes' delayed ref_ctr
   increment). lld and mold put `.probes` on the file page where the GNU_RELRO part of the
   segment before it ends: that mapping comes first, the loader then makes it read-only, and
   the semaphore in the mapping the code reads stays 0. So each translation unit's first
   semaphore comes after an empty section aligned to a page, in a COMDAT group of its own
   (a module keeps one), kept as the semaphores are: the output section, aligned as
   its most aligned input, starts a page, with the padding (up to a page per module) before
   the semaphores rather than between them. The alignment is the largest page size the
   target's Linux kernels use, and GNU ld's maximum page size for it: 64 KiB on aarch64,
   ppc64 and MIPS (whose kernels are built with 4, 16 or 64 KiB pages), 4 KiB elsewhere. */
#if defined(__aarch64__) || defined(__powerpc64__) || defined(__mips__)
#define _USDT_PAGE_SIZE "65536"
#else
#define _USDT_PAGE_SIZE "4096"
#endif
#define _USDT_SEMAPHORE_DECLARE(name) \
    extern volatile unsigned short name __attribute__((visibility("hidden")))
/* The page `.probes` starts, as asm text: also what sdt/sys/sdt.h emits for the semaphores a
   program defines itself. */
#define _USDT_PROBES_PAGE \
    ".ifndef _usdt_probes_page\n" \
    ".pushsection .probes, \"awG\", \"progbits\", _usdt_probes_page, comdat\n" \
    ".weak _usdt_probes_page\n" \
    ".hidden _usdt_probes_page\n" \
    ".balign " _USDT_PAGE_SIZE "\n" \
    "_usdt_probes_page:\n" \
    ".popsection\n" \
    ".endif\n"
#define _USDT_SEMAPHORE_DEFINE(name) \
    __asm__(_USDT_PROBES_PAGE \
            ".ifndef " #name "\n" \
            ".pushsection .probes, \"awG\", \"progbits\", " #name ", comdat\n" \
            ".weak " #name "\n" \
            ".hidden " #name "\n" \
            ".type " #name ", %object\n" \
            ".size " #name ", 2\n" \
            ".balign 2\n" \
            #name ":\n" \
            ".2byte 0\n" \
            ".popsection\n" \
            ".endif\n")
#else
/* Not ELF, so never probes: the semaphores only let code that names them compile and link. */
#define _USDT_SEMAPHORE_DECLARE(name) extern volatile unsigned short name
#if defined(_MSC_VER)
#define _USDT_SEMAPHORE_DEFINE(name) __declspec(selectany) volatile unsigned short name = 0
#else
#define _USDT_SEMAPHORE_DEFINE(name) volatile unsigned short name __attribute__((weak)) = 0
#endif
#endif

#if USDT_HAVE_PROBES

/* The `.stapsdt.base` section every module with probes needs: tracers relocate each note's
   probe address by where this one byte ended up. Every translation unit that includes this
   header emits it in the COMDAT group systemtap's sys/sdt.h uses, so a module keeps one
   copy, even mixed with sys/sdt.h; `.ifndef` keeps one when a link-time optimizer joins
   several units' top-level asm. Each site's `.init_usdt_keep` entry (_USDT_SITE) keeps it:
   otherwise only non-allocated notes refer to it, and lld's --gc-sections drops it. It is
   executable (`x`, where sys/sdt.h has `a` only) so that linkers put it in the probes' own
   segment: perf (6.1 at least) takes a probe's file offset to be its address minus the
   base's address plus the base's file offset, which is wrong for a base in another segment,
   and lld and mold give the read-only data before the code another distance between address
   and file offset. */
__asm__(".ifndef _.stapsdt.base\n"
        ".pushsection .stapsdt.base, \"axG\", \"progbits\", .stapsdt.base, comdat\n"
        ".weak _.stapsdt.base\n"
        ".hidden _.stapsdt.base\n"
        "_.stapsdt.base:\n"
        ".space 1\n"
        ".size _.stapsdt.base, 1\n"
        ".popsection\n"
        ".endif\n");

/* The is-enabled check, re-read every time (a loop notices a tracer that attaches later).
   On x86-64 it is `cmpw $0, semaphore(%rip); jne`: a volatile read costs GCC a separate load
   and test, one instruction more. Clang compares a volatile read in place, but gets the asm
   goto too: no edge of an asm goto can be split, so the compiler does not move what the guarded
   code shares with the loop (its counter's next value) above the check, into every iteration
   (docs/PERFORMANCE.md, the guarded rows). It is spelled in both assembler dialects
   (_USDT_DIALECTS).
   No __builtin_expect: it makes the code behind the check cold, and a compiler may then keep
   what that code uses in memory for the whole loop around it rather than in registers. */
#if defined(__x86_64__)
/* A 2-byte memory operand in Intel syntax: GCC prints its size for the `w` modifier
   (`WORD PTR sym[rip]`), Clang never prints one (`[rip + sym]`). */
#if defined(__clang__)
#define _USDT_INTEL_WORD_OPERAND(number) "word ptr %" #number
#else
#define _USDT_INTEL_WORD_OPERAND(number) "%w" #number
#endif
/* __inline__, not inline, which C89 does not have: sdt/sys/sdt.h compiles in every C standard. */
static __inline__ __attribute__((always_inline)) int _usdt_semaphore_active(const volatile unsigned short *semaphore) {
    __asm__ goto(_USDT_DIALECTS("cmpw $0, %0", "cmp " _USDT_INTEL_WORD_OPERAND(0) ", 0") "\n\tjne %l[active]"
                 : : "m"(*semaphore) : "cc" : active);
    return 0;
active:
    return 1;
}
#define _USDT_SEMAPHORE_ACTIVE(name) _usdt_semaphore_active(&(name))
#else
#define _USDT_SEMAPHORE_ACTIVE(name) ((name) != 0)
#endif
/* The is-enabled value of a probe without a semaphore: nothing tells whether a tracer is
   attached, so code guarded by it always runs and the probe always has its arguments. */
#define _USDT_ALWAYS_ACTIVE 1

#else /* !USDT_HAVE_PROBES */

#define _USDT_SEMAPHORE_ACTIVE(name) 0
#define _USDT_ALWAYS_ACTIVE 0

#endif /* USDT_HAVE_PROBES */

#endif /* USDT_USDT_H */
