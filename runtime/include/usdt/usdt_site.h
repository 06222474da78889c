/*
 * usdt/usdt_site.h: the probe site, as C and C++ code share it: how a probe macro's arguments
 * are checked and converted in C, how they reach the site (registers, or an argument block on
 * 32-bit targets), and the site itself, the nop and its notes, whose argument specs the
 * generated header finishes. It builds on usdt/usdt.h, whose comment says what a site is and
 * what the names and spelling rules of the runtime are; a generated header carries it right
 * after that file.
 */
#ifndef USDT_USDT_SITE_H
#define USDT_USDT_SITE_H

#if !defined(USDT_USDT_H) /* a generated header carries usdt/usdt.h before this file */
#include "usdt.h"
#endif

#define _USDT_UNPARENTHESIZE(...) __VA_ARGS__

/* A probe macro's argument: first checked, at the top of the probe's macro (_USDT_CHECK_INTEGER
   and its siblings, one per kind of declared type), so that a mistake draws one diagnostic at
   the caller's line with a short macro backtrace; then converted to its declared type, in the
   site or, for a string or pointer, in a local before it (_USDT_CONVERTED, _USDT_ADDRESS_ARG),
   by a cast, as dtrace -h's macros convert, which says nothing more. Each argument is
   evaluated once, by the conversion: the check is unevaluated.
    - In C, the check initializes an unevaluated compound literal of the declared type from the
      value, so that a string passed for an integer draws the diagnostic a call to a function
      with a prototype draws (-Wint-conversion), where the cast alone would silence it;
      narrowing, inside sizeof, draws no -Wconversion, as with the cast. The conversion goes
      through an integer of pointer width, so that a mistake the check reported draws no second
      warning (-Wpointer-to-int-cast), and after a comma, so that a call's result draws no
      -Wbad-function-cast. `int64_t`-wide integers are cast directly: narrowing through
      `intptr_t` would lose half of them on 32-bit targets. A string or pointer is checked and
      converted at once, by the initialization of its local.
    - In C++: usdt/usdt_cxx.h.
   _USDT_CAST is the cast alone, for the header's own conversions. */
#if !defined(__cplusplus) /* C++: usdt/usdt_cxx.h */
#define _USDT_CAST(type, value) ((type)(value))
#define _USDT_CONVERTED(member, type, value) _USDT_CONVERTED_##member(type, value)
#define _USDT_THROUGH(integer, type, value) ((type)(integer)((void)0, (value)))
#if defined(__INTPTR_TYPE__) /* as the compiler names it: <stdint.h> may not be included */
#define _USDT_INTPTR __INTPTR_TYPE__
#else
#define _USDT_INTPTR intptr_t
#endif
#define _USDT_CONVERTED_i8(type, value) _USDT_THROUGH(_USDT_INTPTR, type, value)
#define _USDT_CONVERTED_u8(type, value) _USDT_THROUGH(_USDT_INTPTR, type, value)
#define _USDT_CONVERTED_i16(type, value) _USDT_THROUGH(_USDT_INTPTR, type, value)
#define _USDT_CONVERTED_u16(type, value) _USDT_THROUGH(_USDT_INTPTR, type, value)
#define _USDT_CONVERTED_i32(type, value) _USDT_THROUGH(_USDT_INTPTR, type, value)
#define _USDT_CONVERTED_u32(type, value) _USDT_THROUGH(_USDT_INTPTR, type, value)
#define _USDT_CONVERTED_word(type, value) _USDT_THROUGH(_USDT_INTPTR, type, value)
#define _USDT_CONVERTED_uword(type, value) _USDT_THROUGH(_USDT_INTPTR, type, value)
#define _USDT_CONVERTED_i64(type, value) _USDT_CAST(type, value)
#define _USDT_CONVERTED_u64(type, value) _USDT_CAST(type, value)
#define _USDT_CONVERTED_flag(type, value) _USDT_CAST(type, value)
/* Spelled out in each: a macro in between would be one more note in every diagnostic. */
#define _USDT_CHECK_INTEGER(index, type, value) (void)sizeof((type){value});
#define _USDT_CHECK_BOOL(index, type, value) (void)sizeof((type){value});
/* A string or pointer is checked where _USDT_ADDRESS_ARG initializes its local from it. */
#define _USDT_CHECK_STRING(index, type, value)
#define _USDT_CHECK_POINTER(index, type, value)
/* A string or pointer argument of a probe macro, converted and held in a local first, as its
   site names it twice: as a value and in _USDT_POINTED_TO().
   In C, the local's initialization is the check, as a call to a function with a prototype
   converts: an integer for a string draws -Wint-conversion, once; no cast of an integer to a
   pointer is left to warn again, or to cost the compiler what it knows about the pointer. */
#define _USDT_ADDRESS_ARG(name, type, value) type const name = (value);
#endif

/* How a probe passes its arguments to its site, and where each one is, as its spec in the note
   names it (_USDT_ARGSPEC below). SIZE in a spec says how many bytes tracers read.
    - 64-bit targets pass each argument in a register ("r"), which a spec names as the compiler
      prints the operand: on x86-64, an argument under 8 bytes by the register's 32-bit name
      (`%r8d`: gdb cannot parse `%r8b`..`%r15b`); elsewhere by the whole register (`x8`: libbpf
      and perf read no `w8`).
    - 32-bit targets (i386, ARM) pass an argument block: an array of 8-byte slots
      (union _usdt_slot), each holding one argument at its start, whose address is the one
      register operand (_USDT_BLOCK_CONSTRAINT, in _USDT_BLOCK_VARIABLE), so that a spec reads
      `-4@16(%eax)` or `-4@[r0, #16]`. An 8-byte value does not fit one register, and no tracer
      reads a register pair (sys/sdt.h records the first half only); i386 has too few registers
      for 12 arguments; and memory operands of their own would each take a register to address
      at -O0. On ARM the block's register is r0: gdb parses ARM registers only as `r0`..`r12`,
      where compilers print `ip` and `lr`, and reads `fp` as its own frame-base register.
      s390x without optimization passes a block too (in an address register, as its addressing
      needs): GCC then keeps too few registers free for 12 arguments.
   On x86, a spec puts a dialect alternative before a register, `{|%%}`: nothing in AT&T syntax,
   where registers print as `%eax`, and a literal `%` under -masm=intel, where they print as
   `eax`, so that the note reads `-4@%eax` in both (not for the compilers of _USDT_ATT_ONLY). */
#if defined(__i386__)
#define _USDT_BLOCK_CONSTRAINT "r"
#define _USDT_BLOCK_VARIABLE const union _usdt_slot *_usdt_block_address
#elif defined(__arm__)
#define _USDT_BLOCK_CONSTRAINT "r"
#define _USDT_BLOCK_VARIABLE register const union _usdt_slot *_usdt_block_address __asm__("r0")
#elif defined(__s390x__) && !defined(__OPTIMIZE__)
#define _USDT_BLOCK_CONSTRAINT "a"
#define _USDT_BLOCK_VARIABLE const union _usdt_slot *_usdt_block_address
#endif

/* An address in the note: 4 or 8 bytes, as Linux is ILP32 or LP64 everywhere. */
#if defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 4
#define _USDT_ASM_WORD ".4byte"
#else
#define _USDT_ASM_WORD ".8byte"
#endif

/* The spec of argument `index` (a number, 0 to 11) in the note, `[-]SIZE@OPERAND`, by the
   member of union _usdt_slot that holds it: a generated header's _USDT_SPEC_ macro of a probe is
   its arguments' specs, `_USDT_ARGSPEC(i32, 0) " " _USDT_ARGSPEC(address, 1)`. The operand is asm
   template text that the site's asm prints as this target's tracers read it: `%N` the register
   of the site's operand N (argument N's), `%kN` its 32-bit name on x86; in a block, the
   argument's slot, at byte 8 * N from the block's register (operand 0). */
#define _USDT_ARGSPEC(member, index) _USDT_ARGSPEC_##member(index)
#define _USDT_ARGSPEC_i8(index) "-1@" _USDT_NARROW_OPERAND(index)
#define _USDT_ARGSPEC_u8(index) "1@" _USDT_NARROW_OPERAND(index)
#define _USDT_ARGSPEC_flag(index) "1@" _USDT_NARROW_OPERAND(index)
#define _USDT_ARGSPEC_i16(index) "-2@" _USDT_NARROW_OPERAND(index)
#define _USDT_ARGSPEC_u16(index) "2@" _USDT_NARROW_OPERAND(index)
#define _USDT_ARGSPEC_i32(index) "-4@" _USDT_NARROW_OPERAND(index)
#define _USDT_ARGSPEC_u32(index) "4@" _USDT_NARROW_OPERAND(index)
#define _USDT_ARGSPEC_i64(index) "-8@" _USDT_OPERAND(index)
#define _USDT_ARGSPEC_u64(index) "8@" _USDT_OPERAND(index)
#if defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 4
#define _USDT_ARGSPEC_word(index) "-4@" _USDT_NARROW_OPERAND(index)
#define _USDT_ARGSPEC_uword(index) "4@" _USDT_NARROW_OPERAND(index)
#define _USDT_ARGSPEC_address(index) "4@" _USDT_NARROW_OPERAND(index)
#else
#define _USDT_ARGSPEC_word(index) "-8@" _USDT_OPERAND(index)
#define _USDT_ARGSPEC_uword(index) "8@" _USDT_OPERAND(index)
#define _USDT_ARGSPEC_address(index) "8@" _USDT_OPERAND(index)
#endif
#if defined(_USDT_BLOCK_CONSTRAINT)
#if defined(__i386__)
#define _USDT_OPERAND(index) _USDT_SLOT_OFFSET_##index "(" _USDT_DIALECTS("", "%%") "%k0)"
#elif defined(__arm__)
#define _USDT_OPERAND(index) "[%0, #" _USDT_SLOT_OFFSET_##index "]"
#else
#define _USDT_OPERAND(index) _USDT_SLOT_OFFSET_##index "(%0)"
#endif
#define _USDT_NARROW_OPERAND(index) _USDT_OPERAND(index)
#define _USDT_SLOT_OFFSET_0 "0"
#define _USDT_SLOT_OFFSET_1 "8"
#define _USDT_SLOT_OFFSET_2 "16"
#define _USDT_SLOT_OFFSET_3 "24"
#define _USDT_SLOT_OFFSET_4 "32"
#define _USDT_SLOT_OFFSET_5 "40"
#define _USDT_SLOT_OFFSET_6 "48"
#define _USDT_SLOT_OFFSET_7 "56"
#define _USDT_SLOT_OFFSET_8 "64"
#define _USDT_SLOT_OFFSET_9 "72"
#define _USDT_SLOT_OFFSET_10 "80"
#define _USDT_SLOT_OFFSET_11 "88"
#elif defined(__x86_64__)
#define _USDT_OPERAND(index) _USDT_DIALECTS("", "%%") "%" #index
#define _USDT_NARROW_OPERAND(index) _USDT_DIALECTS("", "%%") "%k" #index
#else /* aarch64, riscv64, ppc64, optimized s390x, mips64: the compiler's name, `x5`, `a5`, `9`, `%r2`, `$4` */
#define _USDT_OPERAND(index) "%" #index
#define _USDT_NARROW_OPERAND(index) "%" #index
#endif

#if USDT_HAVE_PROBES

/* One argument of a probe, converted to its declared type: an asm operand in a register,
   or a slot of the argument block (see _USDT_BLOCK_CONSTRAINT), named by the member of
   union _usdt_slot its type fits (C designates it; C++ picks the constructor). The trailing
   comma separates it from the next. */
#if defined(_USDT_BLOCK_CONSTRAINT)
union _usdt_slot {
    /* The <stdint.h> types, as the compiler names them (it is not included yet): a C
       initializer of another type of the same size draws -Wsign-conversion. */
    __INT8_TYPE__ i8;
    __UINT8_TYPE__ u8;
    __INT16_TYPE__ i16;
    __UINT16_TYPE__ u16;
    __INT32_TYPE__ i32;
    __UINT32_TYPE__ u32;
    __INT64_TYPE__ i64;
    __UINT64_TYPE__ u64;
    long word;
    unsigned long uword;
#if defined(__cplusplus)
    bool flag;
#else
    _Bool flag; /* <stdbool.h> comes later */
#endif
    void const volatile *address;
#if defined(__cplusplus)
#define _USDT_SLOT_CONSTRUCTOR(type, member) \
    __attribute__((always_inline)) _usdt_slot(type value) noexcept : member(value) {}
    _USDT_SLOT_CONSTRUCTOR(signed char, i8)
    _USDT_SLOT_CONSTRUCTOR(unsigned char, u8)
    _USDT_SLOT_CONSTRUCTOR(short, i16)
    _USDT_SLOT_CONSTRUCTOR(unsigned short, u16)
    _USDT_SLOT_CONSTRUCTOR(int, i32)
    _USDT_SLOT_CONSTRUCTOR(unsigned int, u32)
    _USDT_SLOT_CONSTRUCTOR(long long, i64)
    _USDT_SLOT_CONSTRUCTOR(unsigned long long, u64)
    _USDT_SLOT_CONSTRUCTOR(long, word)
    _USDT_SLOT_CONSTRUCTOR(unsigned long, uword)
    _USDT_SLOT_CONSTRUCTOR(bool, flag)
    _USDT_SLOT_CONSTRUCTOR(void const volatile *, address)
#undef _USDT_SLOT_CONSTRUCTOR
#endif
};
/* The block: the slots, then one more (C has no empty initializer), in an array that lives
   until the end of the probe's statement. The probe clobbers "memory" (_USDT_CLOBBERS), so the
   compiler stores the slots before the site, where it sees only their address taken. */
#if defined(__cplusplus)
#define _USDT_SLOT(member, value) ::_usdt_slot(value)
#define _USDT_LAST_SLOT ::_usdt_slot(false)
#else
#define _USDT_SLOT(member, value) {.member = (value)}
#define _USDT_LAST_SLOT {.flag = 0}
#endif
#define _USDT_VALUE(member, value) _USDT_SLOT(member, value),
/* What a probe site declares before its asm, and the asm's operands before the semaphore's. */
#define _USDT_DECLARATIONS(operands) \
    const union _usdt_slot _usdt_block[] = {_USDT_UNPARENTHESIZE operands _USDT_LAST_SLOT}; \
    _USDT_BLOCK_VARIABLE = _usdt_block;
#define _USDT_OPERANDS(operands) _USDT_BLOCK_CONSTRAINT(_usdt_block_address),
#else
#if defined(__aarch64__) || defined(__riscv)
/* Widened to the whole register, which the spec names (aarch64's `x8`: libbpf and perf read no
   `w8`, and Clang warns of a narrower value in an x register), through an empty asm's output,
   which is never a zero register (Clang passes a constant 0 in riscv's `zero`, which libbpf
   does not parse). Tracers read the spec's size of it. It costs a move for a constant only. */
static __inline__ __attribute__((always_inline)) unsigned long long _usdt_in_register(unsigned long long value) {
    __asm__("" : "+r"(value));
    return value;
}
#define _USDT_IN_REGISTER(member, value) _usdt_in_register(_USDT_CAST(unsigned long long, value))
#elif defined(__x86_64__)
/* An argument under 4 bytes, extended as its type says to the 32-bit register the spec names
   (`%k1`, `%r8d`). Tracers read only the spec's size of it, but gdb 16 misreads a 1-byte
   argument whose register holds a negative 32-bit value (Clang 19 at -O0 leaves a pointer's
   bytes above it: 201 read as 55). Compilers mostly have the value extended already.
   The value is of its declared type already, so C++ casts it with static_cast: _USDT_CAST's
   template, instantiated at every site, was a good part of the typed C++ API's compile time. */
#if defined(__cplusplus)
#define _USDT_WIDENED_TO(type, value) static_cast<type>(value)
#else
#define _USDT_WIDENED_TO(type, value) ((type)(value))
#endif
#define _USDT_IN_REGISTER(member, value) _USDT_WIDENED_##member(value)
#define _USDT_WIDENED_i8(value) _USDT_WIDENED_TO(int, value)
#define _USDT_WIDENED_i16(value) _USDT_WIDENED_TO(int, value)
#define _USDT_WIDENED_u8(value) _USDT_WIDENED_TO(unsigned int, value)
#define _USDT_WIDENED_u16(value) _USDT_WIDENED_TO(unsigned int, value)
#define _USDT_WIDENED_flag(value) _USDT_WIDENED_TO(unsigned int, value)
#define _USDT_WIDENED_i32(value) value
#define _USDT_WIDENED_u32(value) value
#define _USDT_WIDENED_i64(value) value
#define _USDT_WIDENED_u64(value) value
#define _USDT_WIDENED_word(value) value
#define _USDT_WIDENED_uword(value) value
#define _USDT_WIDENED_address(value) value
#else
#define _USDT_IN_REGISTER(member, value) value
#endif
#define _USDT_VALUE(member, value) "r"(_USDT_IN_REGISTER(member, value)),
#define _USDT_DECLARATIONS(operands)
#define _USDT_OPERANDS(operands) _USDT_UNPARENTHESIZE operands
#endif
/* An argument of a probe macro, converted to its declared type first; the C++ API passes
   values that are of it already. */
#define _USDT_ARG(member, type, value) _USDT_VALUE(member, _USDT_CONVERTED(member, type, value))

/* What a string or pointer argument points to, as an input of the site: a tracer reads it
   there, so the compiler must have written it before the site, yet need not reload anything
   after it (a "memory" clobber would make it reload every value it keeps in memory around
   the site). For GCC it is an array of unknown size at the address: any bytes from there on.
   Clang takes no incomplete type as an operand, and treats a volatile asm as reading any
   memory anyway; a byte is enough to name it. The site itself never reads the memory, so no
   address a program passes (NULL, freed, unmapped, `PROT_NONE`, unterminated) can crash it:
   only the tracer reads, with reads that fail safely. The operands follow the values, which
   the spec numbers %0, %1...; nothing is emitted for them. Without optimization there are
   none: a compiler then keeps every value in memory and stores it where the code does, and
   it would give each operand a register of its own, which 12 arguments and their memory
   exceed. */
#if defined(__clang__)
typedef const volatile char _usdt_pointee;
#else
typedef const volatile char _usdt_pointee[];
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual" /* GCC: an array of qualified chars is not qualified */
#if defined(__cplusplus)
#pragma GCC diagnostic ignored "-Wold-style-cast"
#endif
static __inline__ __attribute__((always_inline)) _usdt_pointee *_usdt_pointed_to(void const volatile *address) {
    return (_usdt_pointee *)address;
}
#pragma GCC diagnostic pop
#if defined(_USDT_BLOCK_CONSTRAINT)
#define _USDT_POINTED_TO(address) /* the argument block's sites clobber "memory" */
#elif !defined(__OPTIMIZE__)
#define _USDT_POINTED_TO(address)
#else
#define _USDT_POINTED_TO(address) "m"(*_usdt_pointed_to(address)),
#endif

/*
 * The probe site: the nop and its notes. `semaphore` is the semaphore variable's name as a
 * string literal and `semaphore_operand` the variable as an operand, `"m"(name)`, or, for a
 * probe without one, "0" and `"i"(0)`; `kept` is what the site's `.init_usdt_keep` entry keeps
 * beside the site and `.stapsdt.base` (below): the semaphore for a generated header's probes,
 * whose header defines it, and `_usdt_probes_page` or "0" for sys/sdt.h's (sdt/sys/sdt.h), whose
 * semaphores are the program's own, which may be preemptible in a shared library, where a
 * PC-relative reference to one does not link; `spec` is the note's argument specs, finished by the
 * generator as one string literal of asm template text for the target (a generated header's
 * _USDT_SPEC_ macro), which refers to the operands as %0, %1...;
 * `operands` is a parenthesized, possibly empty, sequence of _USDT_ARG() (_USDT_VALUE() in the
 * C++ API), one per argument, then a _USDT_POINTED_TO() per string or pointer argument;
 * `description` is the `.note.usdt` strings after provider and name, finished by the
 * generator as one string literal, the operands of an `.asciz`: `"\"t.d\", \"id\", ..."`, with
 * characters other than those of names octal-escaped for the assembler (`\173`, spelled `\\173`
 * in the literal), as `%`, `{`, `|` and `}` mean something in an asm template; an empty one
 * ("") writes no `.note.usdt` record (sys/sdt.h's probes declare no types). `?` puts the
 * notes in the code's COMDAT group (inline functions), `o` links them to the code's section,
 * so that --gc-sections drops them with dead code (GNU ld, lld). binutils 2.35 takes `o` but
 * its GNU as warns about it on a `.note` section and its GNU ld refuses such notes beside
 * unlinked ones (sys/sdt.h's): there USDT_UNLINKED_NOTES, which usdt_add_provider defines
 * after trying the toolchain, leaves it out, and then GNU ld keeps dead probed code for its
 * notes and lld leaves their address 0.
 *
 * The semaphore is also an (unused) memory operand: with -flto, a symbol named only inside
 * asm text is invisible to the linker's archive search, and the library member defining it
 * was never pulled in. A probe without a semaphore records address 0 and ends its operand
 * list with an unused immediate instead, which emits nothing. `.init_usdt_keep` holds 4-byte
 * references from each site: to the site, since gold and mold keep `.init*` sections and
 * ignore SHF_LINK_ORDER, so instead of refusing to link (gold) or leaving notes at address 0
 * (mold) they keep the probed code, while GNU ld and lld drop it with its note and this
 * entry; and to what the notes need and nothing else refers to, which --gc-sections would
 * otherwise drop: `.stapsdt.base`, the semaphore and `.probes`'s page alignment. (SHF_GNU_RETAIN
 * would keep those without the bytes, but GNU as knows it only since 2.36, and keeps them
 * also where no probe is left.)
 */
#if defined(_USDT_BLOCK_CONSTRAINT)
#define _USDT_CLOBBERS "memory"
#else
#define _USDT_CLOBBERS
#endif
/* The instruction a tracer replaces, labelled for the note: a 1-byte nop, which uprobes trap
   with an int3. Defining USDT_X86_NOP5 makes it, on x86-64 only, the 5-byte nop that Linux
   6.18 rewrites after the first hit into a call to its [uprobes-trampoline] page. That call
   pushes below the stack pointer, over the red zone where a leaf function may keep locals
   (the call would overwrite them), so the stack pointer steps past the red zone around the
   nop; lea, unlike sub and add, leaves the flags alone.
   The nop is spelled as bytes: assemblers encode `nopl 0(%rax,%rax,1)` in 4 bytes, which the
   kernel does not optimize. The leas are spelled in both assembler dialects (-masm=intel).
   Cost and benefit: docs/api.md. */
#if defined(__x86_64__) && defined(USDT_X86_NOP5)
#define _USDT_NOP \
    _USDT_DIALECTS("lea -128(%%rsp), %%rsp", "lea rsp, [rsp - 128]") "\n" \
    ".L_usdt_site%=: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n" \
    _USDT_DIALECTS("lea 128(%%rsp), %%rsp", "lea rsp, [rsp + 128]") "\n"
#else
#define _USDT_NOP ".L_usdt_site%=: nop\n"
#endif
#if defined(USDT_UNLINKED_NOTES)
#define _USDT_NOTE_FLAGS "\"?\", \"note\""
#else
#define _USDT_NOTE_FLAGS "\"?o\", \"note\", .L_usdt_site%="
#endif
#define _USDT_SITE(provider, name, semaphore, kept, semaphore_operand, spec, operands, description) \
    do { \
        _USDT_DECLARATIONS(operands) \
        __asm__ __volatile__( \
            _USDT_NOP \
            ".pushsection .note.stapsdt, " _USDT_NOTE_FLAGS "\n" \
            ".balign 4\n" \
            ".4byte 992f-991f, 994f-993f, 3\n" \
            "991: .asciz \"stapsdt\"\n" \
            "992: .balign 4\n" \
            "993: " _USDT_ASM_WORD " .L_usdt_site%=, _.stapsdt.base, " semaphore "\n" \
            ".asciz \"" provider "\", \"" name "\", \"" spec "\"\n" \
            "994: .balign 4\n" \
            ".popsection\n" \
            ".ifnb " description "\n" \
            ".pushsection .note.usdt, " _USDT_NOTE_FLAGS "\n" \
            ".balign 4\n" \
            ".4byte 996f-995f, 998f-997f, 4\n" \
            "995: .asciz \"usdt\"\n" \
            "996: .balign 4\n" \
            "997: .asciz \"" provider "\", \"" name "\", " description "\n" \
            "998: .balign 4\n" \
            ".popsection\n" \
            ".endif\n" \
            ".pushsection .init_usdt_keep, \"?ao\", \"progbits\", .L_usdt_site%=\n" \
            ".balign 4\n" \
            ".4byte .L_usdt_site%= - ., _.stapsdt.base - .\n" \
            ".ifnc " kept ",0\n" \
            ".4byte " kept " - ., _usdt_probes_page - .\n" \
            ".endif\n" \
            ".popsection\n" \
            : : _USDT_OPERANDS(operands) semaphore_operand : _USDT_CLOBBERS); \
    } while (0)

#else /* !USDT_HAVE_PROBES: arguments are still evaluated exactly once. */

#define _USDT_VALUE(member, value) (void)(value);
#define _USDT_ARG(member, type, value) (void)_USDT_CONVERTED(member, type, value);
#define _USDT_POINTED_TO(address)
#define _USDT_SITE(provider, name, semaphore, kept, semaphore_operand, spec, operands, description) \
    do { _USDT_UNPARENTHESIZE operands } while (0)

#endif /* USDT_HAVE_PROBES */

#endif /* USDT_USDT_SITE_H */
