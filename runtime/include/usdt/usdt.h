/*
 * usdt/usdt.h: the runtime half of usdt. Headers generated from .d provider files by
 * usdt_add_provider() include this file; application code includes the generated header.
 *
 * What a probe site is (SystemTap SDT v3, the format bpftrace, perf, gdb, bcc, SystemTap
 * and libbpf read; see https://sourceware.org/systemtap/wiki/UserSpaceProbeImplementation):
 *
 *  - A one-byte `nop` in the code. A tracer that attaches replaces it with a breakpoint.
 *  - An ELF note in the non-allocated section `.note.stapsdt`: owner "stapsdt", type 3,
 *    then three 8-byte words (the nop's address, the link-time address of `_.stapsdt.base`,
 *    the semaphore's address or 0) and three strings: provider, probe name, argument specs.
 *    Tracers find the run-time address of the nop as note.pc + (actual base - note.base),
 *    which is why every module needs a `.stapsdt.base` section: libusdt_runtime.a supplies
 *    it (gdb shows no probes at all without it).
 *  - Argument specs, space separated, `[-]SIZE@OPERAND`: `-4@%edi` is a signed 4-byte value
 *    in register edi. SIZE and sign come from the type declared in the .d file (values under
 *    8 bytes name the register by its 32-bit name, `-1@%r8d`, the one gdb parses), and every
 *    argument is passed in a register ("r" constraint): memory operands such as
 *    `sym(%rip)`, index forms and immediates (`$5`) are each misread or skipped by at least
 *    one common tracer.
 *  - Each note lives in a section linked (SHF_LINK_ORDER) to the code it describes, so
 *    --gc-sections drops the note together with dead code instead of leaving a note that
 *    points at address 0.
 *
 * Semaphores: a 2-byte counter per (provider, probe), hidden (one per linked module), in
 * the file-backed `.probes` section because the kernel only maintains semaphores it can
 * find in the file (uprobes' ref_ctr_offset). Tracers raise it while attached, so
 * PROVIDER_PROBE_ENABLED() guards expensive argument computation. It is read through a
 * volatile access so that a loop re-reads it and notices a tracer that attaches later.
 * Its value counts armed probe sites, not tracers: test it only against zero.
 *
 * Targets: Linux on x86-64 and aarch64 (LP64). Anywhere else, or with USDT_DISABLE defined,
 * probes compile to nothing but the evaluation of their arguments, and every
 * PROVIDER_PROBE_ENABLED() is 0.
 *
 * Everything here is an implementation detail of generated headers; names carry a `USDT_`
 * or `_usdt_` prefix.
 */
#ifndef USDT_USDT_H
#define USDT_USDT_H

/* Generated headers check this and refuse to compile against another version. */
#define USDT_ABI_VERSION 1

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__)) \
    && !defined(__ILP32__) && !defined(USDT_DISABLE)
#define USDT_HAVE_PROBES 1
#else
#define USDT_HAVE_PROBES 0
#endif

#define _USDT_UNPARENTHESIZE(...) __VA_ARGS__

/* The asm operand modifier printing a register's 32-bit name (`%r8d`, `w8`). Arguments under
   8 bytes use it: gdb cannot parse `%r8b`..`%r15b`, and aarch64 compilers print a plain
   operand as its 64-bit `x8`. Tracers read SIZE bytes of the register. */
#if defined(__x86_64__)
#define USDT_NARROW_REGISTER "k"
#elif defined(__aarch64__)
#define USDT_NARROW_REGISTER "w"
#else
#define USDT_NARROW_REGISTER ""
#endif

#if USDT_HAVE_PROBES

#define USDT_SEMAPHORE_DECLARE(name) \
    extern volatile unsigned short name __attribute__((visibility("hidden")))
/* Weak, so that a provider added to a static library and to the program linking it
   still ends up with one semaphore per module. */
#define USDT_SEMAPHORE_DEFINE(name) \
    volatile unsigned short name \
        __attribute__((weak, used, section(".probes"), visibility("hidden"))) = 0
#define USDT_SEMAPHORE_ACTIVE(name) __builtin_expect((name) != 0, 0)

/* One asm operand of a probe: the value converted to its declared type, in a register. */
#define USDT_ARG(type, value) "r"((type)(value))

/*
 * The probe site: the nop and its note. `semaphore` is the semaphore's symbol as a string
 * literal, or "0"; `spec` refers to the operands as %0, %1...; `operands` is a
 * parenthesized, possibly empty, list of USDT_ARG(). `?` puts the note in the code's
 * COMDAT group (inline functions), `o` links it to the code's section.
 */
#define USDT_PROBE(provider, name, semaphore, spec, operands) \
    do { \
        __asm__ __volatile__( \
            ".L_usdt_site%=: nop\n" \
            ".pushsection .note.stapsdt, \"?o\", \"note\", .L_usdt_site%=\n" \
            ".balign 4\n" \
            ".4byte 992f-991f, 994f-993f, 3\n" \
            "991: .asciz \"stapsdt\"\n" \
            "992: .balign 4\n" \
            "993: .8byte .L_usdt_site%=, _.stapsdt.base, " semaphore "\n" \
            ".asciz \"" provider "\", \"" name "\", \"" spec "\"\n" \
            "994: .balign 4\n" \
            ".popsection\n" \
            : : _USDT_UNPARENTHESIZE operands); \
    } while (0)

#else /* !USDT_HAVE_PROBES: arguments are still evaluated exactly once. */

/* Semaphores still exist, so code that names them (as systemtap's header allows) links. */
#define USDT_SEMAPHORE_DECLARE(name) extern volatile unsigned short name
#if defined(__GNUC__)
#define USDT_SEMAPHORE_DEFINE(name) volatile unsigned short name __attribute__((weak)) = 0
#else
#define USDT_SEMAPHORE_DEFINE(name) volatile unsigned short name = 0
#endif
#define USDT_SEMAPHORE_ACTIVE(name) 0
#define USDT_ARG(type, value) (void)(type)(value)
#define USDT_PROBE(provider, name, semaphore, spec, operands) \
    do { _USDT_UNPARENTHESIZE operands; } while (0)

#endif /* USDT_HAVE_PROBES */

#ifdef __cplusplus
#define USDT_INLINE inline __attribute__((always_inline))
#endif

#endif /* USDT_USDT_H */
