/*
 * sys/sdt.h: usdt's drop-in for systemtap's <sys/sdt.h>, for code that writes its probes with
 * the macros of that header rather than in a .d file: STAP_PROBE(provider, name),
 * STAP_PROBE1 .. STAP_PROBE12, DTRACE_PROBE .. DTRACE_PROBE12, STAP_PROBEV (with
 * SDT_USE_VARIADIC defined first), _SDT_PROBE(provider, name, n, (args)), STAP_PROBE_ASM,
 * STAP_PROBE_ASM_TEMPLATE and STAP_PROBE_ASM_OPERANDS for probes inside asm statements, the
 * same macros in assembler source (.S: each argument an operand spec, `-4@%edi`), and the
 * names code tests: _SDT_NOTE_NAME, _SDT_NOTE_TYPE, sys/sdt-config.h. docs/sdt.md says how to
 * switch to it.
 *
 * A probe is usdt's probe site (usdt/usdt_site.h: the nop, its SystemTap SDT v3 note,
 * `.stapsdt.base`), with the note systemtap's header writes: provider, name, and for each
 * argument `[-]SIZE@OPERAND`, SIZE and sign from the type of the argument's expression, as
 * there: an integer, enum or bool is its own size, signed or not as its type is; a pointer,
 * array or string literal is an unsigned address. Where it differs, on purpose:
 *  - Each argument is in a register (the `r` constraint, or STAP_SDT_ARG_CONSTRAINT when
 *    defined), which every tracer reads; systemtap's default `nor` lets GCC name a global as
 *    `sym(%rip)` (gdb, libbpf and perf cannot read it) and makes Clang spill every argument to
 *    the stack. On x86-64 an argument under 8 bytes is extended as its type says to its 32-bit
 *    register (`-1@%r8d`); elsewhere the spec names the whole register, and on i386 and ARM the
 *    arguments go in the argument block (`-8@8(%eax)`): an 8-byte value is read whole there,
 *    where systemtap's header records one register of the pair.
 *  - A floating-point argument is its value converted to a signed 8-byte integer (systemtap
 *    records `8f@`, which gdb and bpftrace cannot read); an integer wider than 8 bytes, its low 8
 *    bytes; a struct or class argument does not compile (systemtap's header records `32@` for a
 *    std::string, which no tracer reads). In C++, a bit-field is its declared type and an enum
 *    its underlying type (systemtap's header rejects the first and records the second unsigned).
 *  - With _SDT_HAS_SEMAPHORES, each probe names the semaphore `PROVIDER_NAME_semaphore`, which
 *    the program declares (an `unsigned short` in section `.probes`), as with systemtap's header;
 *    here `.probes` also starts a page of its own (usdt/usdt.h's _USDT_PROBES_PAGE), without
 *    which lld and mold programs started by their tracer never see a semaphore raised.
 *  - The assembler is never left in `.altmacro` mode, and no probe macro needs a GNU extension
 *    of the preprocessor: STAP_PROBEV's arguments are counted without `, ##__VA_ARGS__`.
 * Code that includes both this header and systemtap's gets the first one found: they share the
 * include guard _SYS_SDT_H.
 */
#ifndef _SYS_SDT_H
#define _SYS_SDT_H 1

#include "sdt-config.h"

#define _SDT_NOTE_NAME "stapsdt"
#define _SDT_NOTE_TYPE 3

#define _USDT_SDT_STRING(text) _USDT_SDT_STRING_OF(text)
#define _USDT_SDT_STRING_OF(text) #text

#if defined(__ASSEMBLER__)

/* In assembler source, each argument is its spec, as the code writes it: `STAP_PROBE2(p, n,
   -4@%edi, 8@%rsi)`. The site is the one usdt/usdt_site.h writes, but for what only C can spell:
   its `.note.usdt` record and the links (SHF_LINK_ORDER) to the code, which need a label
   of the site's own. Statements are separated by `;`, which every supported assembler takes. */
#if defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 4
#define _USDT_SDT_ASM_WORD .4byte
#else
#define _USDT_SDT_ASM_WORD .8byte
#endif
#if defined(_SDT_HAS_SEMAPHORES)
#define _USDT_SDT_ASM_SEMAPHORE(provider, name) provider##_##name##_semaphore
#else
#define _USDT_SDT_ASM_SEMAPHORE(provider, name) 0
#endif
#if defined(__s390__) || defined(__s390x__)
#define _USDT_SDT_ASM_NOP nop 0
#else
#define _USDT_SDT_ASM_NOP nop
#endif
#define _SDT_PROBE(provider, name, n, arglist) \
    _USDT_SDT_ASM_SITE(provider, name, _USDT_SDT_ASM_SEMAPHORE(provider, name), _USDT_SDT_JOINED_##n arglist)
#define _USDT_SDT_ASM_SITE(provider, name, semaphore, specs) \
    990: _USDT_SDT_ASM_NOP; \
    .pushsection .note.stapsdt, "?", "note"; \
    .balign 4; \
    .4byte 992f-991f, 994f-993f, 3; \
    991: .asciz "stapsdt"; \
    992: .balign 4; \
    993: _USDT_SDT_ASM_WORD 990b, _.stapsdt.base, semaphore; \
    .asciz _USDT_SDT_STRING(provider), _USDT_SDT_STRING(name), specs; \
    994: .balign 4; \
    .popsection; \
    .ifndef _.stapsdt.base; \
    .pushsection .stapsdt.base, "axG", "progbits", .stapsdt.base, comdat; \
    .weak _.stapsdt.base; \
    .hidden _.stapsdt.base; \
    _.stapsdt.base: .space 1; \
    .size _.stapsdt.base, 1; \
    .popsection; \
    .endif
/* The specs, joined by spaces and spelled, after their macros are expanded. No macro here is
   variadic or takes an empty argument (C90's preprocessor has neither). */
#define _USDT_SDT_JOINED_0() ""
#define _USDT_SDT_JOINED_1(a1) _USDT_SDT_STRING(a1)
#define _USDT_SDT_JOINED_2(a1, a2) _USDT_SDT_STRING(a1 a2)
#define _USDT_SDT_JOINED_3(a1, a2, a3) _USDT_SDT_STRING(a1 a2 a3)
#define _USDT_SDT_JOINED_4(a1, a2, a3, a4) _USDT_SDT_STRING(a1 a2 a3 a4)
#define _USDT_SDT_JOINED_5(a1, a2, a3, a4, a5) _USDT_SDT_STRING(a1 a2 a3 a4 a5)
#define _USDT_SDT_JOINED_6(a1, a2, a3, a4, a5, a6) _USDT_SDT_STRING(a1 a2 a3 a4 a5 a6)
#define _USDT_SDT_JOINED_7(a1, a2, a3, a4, a5, a6, a7) _USDT_SDT_STRING(a1 a2 a3 a4 a5 a6 a7)
#define _USDT_SDT_JOINED_8(a1, a2, a3, a4, a5, a6, a7, a8) _USDT_SDT_STRING(a1 a2 a3 a4 a5 a6 a7 a8)
#define _USDT_SDT_JOINED_9(a1, a2, a3, a4, a5, a6, a7, a8, a9) _USDT_SDT_STRING(a1 a2 a3 a4 a5 a6 a7 a8 a9)
#define _USDT_SDT_JOINED_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _USDT_SDT_STRING(a1 a2 a3 a4 a5 a6 a7 a8 a9 a10)
#define _USDT_SDT_JOINED_11(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _USDT_SDT_STRING(a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11)
#define _USDT_SDT_JOINED_12(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _USDT_SDT_STRING(a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12)

#else /* C and C++ */

#include "../../usdt/usdt_site.h"
#if !defined(USDT_ABI_VERSION) || USDT_ABI_VERSION != 14
#error "sys/sdt.h: the usdt runtime included before it (a generated header's copy?) is of another usdt version; regenerate that header with this usdt"
#endif

/* Each argument's size and sign, `[-]BYTES` (_USDT_SDT_SIZE), an integer constant the site prints
   in its spec (`%c`, an immediate without its `$` or `#`); and its value as an integer of 8 bytes,
   signed or not as its type (_USDT_SDT_WIDE), or on x86-64, where the spec names the register as
   the compiler prints the operand, of 4 bytes when it has 4 or fewer (_USDT_SDT_NARROW), so that
   `%0` prints `%edi` for it and `%rdi` for an 8-byte one. */
#if defined(__cplusplus)
extern "C++" { /* templates, even inside an extern "C" block */
/* C++98 has no long long, which G++ then warns of even after __extension__. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wlong-long"
typedef __INT64_TYPE__ _usdt_sdt_i64;
typedef __UINT64_TYPE__ _usdt_sdt_u64;
typedef long long _usdt_sdt_llong;
typedef unsigned long long _usdt_sdt_ullong;
#pragma GCC diagnostic pop
#if defined(__SIZEOF_INT128__)
__extension__ typedef __int128 _usdt_sdt_i128;
__extension__ typedef unsigned __int128 _usdt_sdt_u128;
#endif
template <bool condition, class then_type, class else_type> struct _usdt_sdt_if {
    typedef then_type type;
};
template <class then_type, class else_type> struct _usdt_sdt_if<false, then_type, else_type> {
    typedef else_type type;
};
/* An argument of type T: what _USDT_SDT_SIZE and the conversions need, by kind (integer,
   address, floating-point), with T's qualifiers removed. Not defined for a class type. */
template <class T, bool is_signed, int bytes = (sizeof(T) < 8 ? int(sizeof(T)) : 8)> struct _usdt_sdt_integer {
    static const int size = is_signed ? -bytes : bytes;
    typedef typename _usdt_sdt_if<is_signed, _usdt_sdt_i64, _usdt_sdt_u64>::type wide_type;
    typedef typename _usdt_sdt_if<(bytes > 4), wide_type,
                                  typename _usdt_sdt_if<is_signed, int, unsigned int>::type>::type narrow_type;
    static __inline__ __attribute__((always_inline)) wide_type wide(T value) { return static_cast<wide_type>(value); }
    static __inline__ __attribute__((always_inline)) narrow_type narrow(T value) { return static_cast<narrow_type>(value); }
};
struct _usdt_sdt_address {
    static const int size = int(sizeof(void *));
    typedef _usdt_sdt_u64 wide_type;
    typedef _usdt_sdt_if<(sizeof(void *) > 4), _usdt_sdt_u64, unsigned int>::type narrow_type;
    template <class P> static __inline__ __attribute__((always_inline)) wide_type wide(P address) {
        return static_cast<wide_type>(reinterpret_cast<__UINTPTR_TYPE__>(address));
    }
    template <class P> static __inline__ __attribute__((always_inline)) narrow_type narrow(P address) {
        return static_cast<narrow_type>(reinterpret_cast<__UINTPTR_TYPE__>(address));
    }
};
template <class T> struct _usdt_sdt_floating {
    static const int size = -8;
    typedef _usdt_sdt_i64 wide_type;
    typedef _usdt_sdt_i64 narrow_type;
    static __inline__ __attribute__((always_inline)) wide_type wide(T value) { return static_cast<wide_type>(value); }
    static __inline__ __attribute__((always_inline)) narrow_type narrow(T value) { return static_cast<narrow_type>(value); }
};
/* Enums: their underlying type, which GCC and Clang choose as C does (unsigned without a
   negative value). Anything else is left undefined: a class type does not compile. */
template <class T, bool is_enum = __is_enum(T)> struct _usdt_sdt_argument;
template <class T> struct _usdt_sdt_argument<T, true>
    : _usdt_sdt_integer<T, (static_cast<__underlying_type(T)>(-1) < 1)> {};
template <class T> struct _usdt_sdt_argument<const T, false> : _usdt_sdt_argument<T> {};
template <class T> struct _usdt_sdt_argument<volatile T, false> : _usdt_sdt_argument<T> {};
template <class T> struct _usdt_sdt_argument<const volatile T, false> : _usdt_sdt_argument<T> {};
template <class T> struct _usdt_sdt_argument<T *, false> : _usdt_sdt_address {};
template <class T> struct _usdt_sdt_argument<T[], false> : _usdt_sdt_address {};
template <class T, __SIZE_TYPE__ n> struct _usdt_sdt_argument<T[n], false> : _usdt_sdt_address {};
template <class T> struct _usdt_sdt_argument<const T[], false> : _usdt_sdt_address {};
template <class T, __SIZE_TYPE__ n> struct _usdt_sdt_argument<const T[n], false> : _usdt_sdt_address {};
template <class T> struct _usdt_sdt_argument<volatile T[], false> : _usdt_sdt_address {};
template <class T, __SIZE_TYPE__ n> struct _usdt_sdt_argument<volatile T[n], false> : _usdt_sdt_address {};
template <class T> struct _usdt_sdt_argument<const volatile T[], false> : _usdt_sdt_address {};
template <class T, __SIZE_TYPE__ n> struct _usdt_sdt_argument<const volatile T[n], false> : _usdt_sdt_address {};
#define _USDT_SDT_INTEGER(type) \
    template <> struct _usdt_sdt_argument<type, false> : _usdt_sdt_integer<type, (static_cast<type>(-1) < 1)> {};
_USDT_SDT_INTEGER(bool)
_USDT_SDT_INTEGER(char)
_USDT_SDT_INTEGER(signed char)
_USDT_SDT_INTEGER(unsigned char)
_USDT_SDT_INTEGER(wchar_t)
_USDT_SDT_INTEGER(short)
_USDT_SDT_INTEGER(unsigned short)
_USDT_SDT_INTEGER(int)
_USDT_SDT_INTEGER(unsigned int)
_USDT_SDT_INTEGER(long)
_USDT_SDT_INTEGER(unsigned long)
_USDT_SDT_INTEGER(_usdt_sdt_llong)
_USDT_SDT_INTEGER(_usdt_sdt_ullong)
#if defined(__SIZEOF_INT128__)
_USDT_SDT_INTEGER(_usdt_sdt_i128)
_USDT_SDT_INTEGER(_usdt_sdt_u128)
#endif
#if __cplusplus >= 201103L
_USDT_SDT_INTEGER(char16_t)
_USDT_SDT_INTEGER(char32_t)
template <> struct _usdt_sdt_argument<decltype(nullptr), false> : _usdt_sdt_address {};
#endif
#if defined(__cpp_char8_t)
_USDT_SDT_INTEGER(char8_t)
#endif
#undef _USDT_SDT_INTEGER
template <> struct _usdt_sdt_argument<float, false> : _usdt_sdt_floating<float> {};
template <> struct _usdt_sdt_argument<double, false> : _usdt_sdt_floating<double> {};
template <> struct _usdt_sdt_argument<long double, false> : _usdt_sdt_floating<long double> {};
} /* extern "C++" */
#define _USDT_SDT_SIZE(x) (_usdt_sdt_argument<__typeof__(x)>::size)
#define _USDT_SDT_WIDE(x) (_usdt_sdt_argument<__typeof__(x)>::wide(x))
#define _USDT_SDT_NARROW(x) (_usdt_sdt_argument<__typeof__(x)>::narrow(x))
#define _USDT_SDT_U64(value) static_cast<_usdt_sdt_u64>(value)
#else
__extension__ typedef __INT64_TYPE__ _usdt_sdt_i64;
__extension__ typedef __UINT64_TYPE__ _usdt_sdt_u64;
/* GCC's type classes (typeclass.h), which Clang shares: 1 to 4 are integer, char, enum and
   bool; 8 is a floating-point type; pointers, arrays and functions are addresses. */
#define _USDT_SDT_IS_INTEGER(x) (((__builtin_classify_type(x) + 3) & -4) == 4)
#define _USDT_SDT_IS_FLOATING(x) (__builtin_classify_type(x) == 8)
/* The argument as an integer: itself, a floating-point value truncated, or an address. Each
   conversion is of what its kind can be, so that a branch not chosen (which is still compiled)
   draws no warning: a pointer cast to a 64-bit integer on a 32-bit target would. */
#define _USDT_SDT_AS_INTEGER(x) \
    __builtin_choose_expr(_USDT_SDT_IS_INTEGER(x), (x), \
                          __builtin_choose_expr(_USDT_SDT_IS_FLOATING(x), \
                                                (_usdt_sdt_i64)__builtin_choose_expr(_USDT_SDT_IS_FLOATING(x), (x), 0.0), \
                                                (__UINTPTR_TYPE__)(x)))
#define _USDT_SDT_SIGNED(x) ((__typeof__(_USDT_SDT_AS_INTEGER(x)))-1 < 1)
#define _USDT_SDT_BYTES(x) (sizeof(_USDT_SDT_AS_INTEGER(x)) < 8 ? (int)sizeof(_USDT_SDT_AS_INTEGER(x)) : 8)
#define _USDT_SDT_SIZE(x) (_USDT_SDT_SIGNED(x) ? -_USDT_SDT_BYTES(x) : _USDT_SDT_BYTES(x))
#define _USDT_SDT_WIDE(x) \
    __builtin_choose_expr(_USDT_SDT_SIGNED(x), (_usdt_sdt_i64)_USDT_SDT_AS_INTEGER(x), \
                          (_usdt_sdt_u64)_USDT_SDT_AS_INTEGER(x))
#define _USDT_SDT_NARROW(x) \
    __builtin_choose_expr(_USDT_SDT_BYTES(x) > 4, _USDT_SDT_WIDE(x), \
                          __builtin_choose_expr(_USDT_SDT_SIGNED(x), (int)_USDT_SDT_AS_INTEGER(x), \
                                                (unsigned int)_USDT_SDT_AS_INTEGER(x)))
#define _USDT_SDT_U64(value) ((_usdt_sdt_u64)(value))
#endif

/* An argument as an operand of the site (usdt/usdt_site.h's _USDT_VALUE: a register, or a slot of
   the argument block), and its size as an immediate after the values, named `_sdt_sN` for the
   spec. STAP_SDT_ARG_CONSTRAINT, systemtap's setting, replaces the register's constraint (not
   in an argument block). Without probes, arguments are still evaluated once, and checked. */
#if defined(STAP_SDT_ARG_CONSTRAINT)
#define _USDT_SDT_CONSTRAINT _USDT_SDT_STRING(STAP_SDT_ARG_CONSTRAINT)
#else
#define _USDT_SDT_CONSTRAINT "r"
#endif
/* _USDT_SDT_NO_OPERAND stands for the operands of a probe without arguments: an empty macro
   argument is undefined behaviour in C89 and C++98. */
#if !USDT_HAVE_PROBES
#define _USDT_SDT_OPERAND(x) (void)_USDT_SDT_WIDE(x);
#define _USDT_SDT_NO_OPERAND (void)0;
#elif defined(_USDT_BLOCK_CONSTRAINT)
/* Each value at the start of its 8-byte slot, which on big-endian s390x is its high end. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define _USDT_SDT_OPERAND(x) \
    _USDT_VALUE(u64, _USDT_SDT_U64(_USDT_SDT_WIDE(x)) << (64 - 8 * (_USDT_SDT_SIZE(x) < 0 ? -_USDT_SDT_SIZE(x) : _USDT_SDT_SIZE(x))))
#else
#define _USDT_SDT_OPERAND(x) _USDT_VALUE(u64, _USDT_SDT_U64(_USDT_SDT_WIDE(x)))
#endif
#define _USDT_SDT_NO_OPERAND _USDT_VALUE(u64, 0)
#elif defined(__x86_64__)
#define _USDT_SDT_OPERAND(x) _USDT_SDT_CONSTRAINT(_USDT_SDT_NARROW(x)),
#elif defined(__aarch64__) || defined(__riscv)
#define _USDT_SDT_OPERAND(x) _USDT_SDT_CONSTRAINT(_usdt_in_register(_USDT_SDT_U64(_USDT_SDT_WIDE(x)))),
#else
#define _USDT_SDT_OPERAND(x) _USDT_SDT_CONSTRAINT(_USDT_SDT_WIDE(x)),
#endif
#if USDT_HAVE_PROBES && !defined(_USDT_BLOCK_CONSTRAINT)
#define _USDT_SDT_NO_OPERAND "i"(0),
#endif
#define _USDT_SDT_SIZE_OPERAND(index, x) [_sdt_s##index] "n"(_USDT_SDT_SIZE(x)),
/* Argument `index`'s spec: its size, then where usdt/usdt_site.h puts it (_USDT_OPERAND). */
#define _USDT_SDT_ARGSPEC(index) "%c[_sdt_s" #index "]@" _USDT_OPERAND(index)

#if defined(_SDT_HAS_SEMAPHORES)
/* The program's semaphore, named as systemtap's dtrace -h declares it. The site keeps the page
   `.probes` starts, not the semaphore (see usdt/usdt_site.h's _USDT_SITE, `kept`). */
#if USDT_HAVE_PROBES
__asm__(_USDT_PROBES_PAGE);
#endif
#define _USDT_SDT_SEMAPHORE(provider, name) _USDT_SDT_STRING(provider##_##name##_semaphore)
#define _USDT_SDT_SEMAPHORE_OPERAND(provider, name) "m"(provider##_##name##_semaphore)
#define _USDT_SDT_KEPT "_usdt_probes_page"
#else
#define _USDT_SDT_SEMAPHORE(provider, name) "0"
#define _USDT_SDT_SEMAPHORE_OPERAND(provider, name) "i"(0)
#define _USDT_SDT_KEPT "0"
#endif

/* The probe: its operands, values first (%0, %1 ... or the block), then sizes, then the
   semaphore; no `.note.usdt` record (description ""). `provider` and `name` are expanded
   before they are spelled, as systemtap's header does (glibc passes a macro). */
#define _SDT_PROBE(provider, name, n, arglist) _USDT_SDT_PROBE(provider, name, n, arglist)
#define _USDT_SDT_PROBE(provider, name, n, arglist) \
    _USDT_SITE(_USDT_SDT_STRING(provider), _USDT_SDT_STRING(name), _USDT_SDT_SEMAPHORE(provider, name), \
                       _USDT_SDT_KEPT, _USDT_SDT_SIZES_##n arglist _USDT_SDT_SEMAPHORE_OPERAND(provider, name), \
                       _USDT_SDT_SPEC_##n, (_USDT_SDT_VALUES_##n arglist), "")

#define _USDT_SDT_VALUES_0() _USDT_SDT_NO_OPERAND
#define _USDT_SDT_VALUES_1(a1) _USDT_SDT_OPERAND(a1)
#define _USDT_SDT_VALUES_2(a1, a2) _USDT_SDT_VALUES_1(a1) _USDT_SDT_OPERAND(a2)
#define _USDT_SDT_VALUES_3(a1, a2, a3) _USDT_SDT_VALUES_2(a1, a2) _USDT_SDT_OPERAND(a3)
#define _USDT_SDT_VALUES_4(a1, a2, a3, a4) _USDT_SDT_VALUES_3(a1, a2, a3) _USDT_SDT_OPERAND(a4)
#define _USDT_SDT_VALUES_5(a1, a2, a3, a4, a5) _USDT_SDT_VALUES_4(a1, a2, a3, a4) _USDT_SDT_OPERAND(a5)
#define _USDT_SDT_VALUES_6(a1, a2, a3, a4, a5, a6) _USDT_SDT_VALUES_5(a1, a2, a3, a4, a5) _USDT_SDT_OPERAND(a6)
#define _USDT_SDT_VALUES_7(a1, a2, a3, a4, a5, a6, a7) \
    _USDT_SDT_VALUES_6(a1, a2, a3, a4, a5, a6) _USDT_SDT_OPERAND(a7)
#define _USDT_SDT_VALUES_8(a1, a2, a3, a4, a5, a6, a7, a8) \
    _USDT_SDT_VALUES_7(a1, a2, a3, a4, a5, a6, a7) _USDT_SDT_OPERAND(a8)
#define _USDT_SDT_VALUES_9(a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    _USDT_SDT_VALUES_8(a1, a2, a3, a4, a5, a6, a7, a8) _USDT_SDT_OPERAND(a9)
#define _USDT_SDT_VALUES_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _USDT_SDT_VALUES_9(a1, a2, a3, a4, a5, a6, a7, a8, a9) _USDT_SDT_OPERAND(a10)
#define _USDT_SDT_VALUES_11(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _USDT_SDT_VALUES_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) _USDT_SDT_OPERAND(a11)
#define _USDT_SDT_VALUES_12(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _USDT_SDT_VALUES_11(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) _USDT_SDT_OPERAND(a12)

#define _USDT_SDT_SIZES_0()
#define _USDT_SDT_SIZES_1(a1) _USDT_SDT_SIZE_OPERAND(0, a1)
#define _USDT_SDT_SIZES_2(a1, a2) _USDT_SDT_SIZES_1(a1) _USDT_SDT_SIZE_OPERAND(1, a2)
#define _USDT_SDT_SIZES_3(a1, a2, a3) _USDT_SDT_SIZES_2(a1, a2) _USDT_SDT_SIZE_OPERAND(2, a3)
#define _USDT_SDT_SIZES_4(a1, a2, a3, a4) _USDT_SDT_SIZES_3(a1, a2, a3) _USDT_SDT_SIZE_OPERAND(3, a4)
#define _USDT_SDT_SIZES_5(a1, a2, a3, a4, a5) _USDT_SDT_SIZES_4(a1, a2, a3, a4) _USDT_SDT_SIZE_OPERAND(4, a5)
#define _USDT_SDT_SIZES_6(a1, a2, a3, a4, a5, a6) _USDT_SDT_SIZES_5(a1, a2, a3, a4, a5) _USDT_SDT_SIZE_OPERAND(5, a6)
#define _USDT_SDT_SIZES_7(a1, a2, a3, a4, a5, a6, a7) \
    _USDT_SDT_SIZES_6(a1, a2, a3, a4, a5, a6) _USDT_SDT_SIZE_OPERAND(6, a7)
#define _USDT_SDT_SIZES_8(a1, a2, a3, a4, a5, a6, a7, a8) \
    _USDT_SDT_SIZES_7(a1, a2, a3, a4, a5, a6, a7) _USDT_SDT_SIZE_OPERAND(7, a8)
#define _USDT_SDT_SIZES_9(a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    _USDT_SDT_SIZES_8(a1, a2, a3, a4, a5, a6, a7, a8) _USDT_SDT_SIZE_OPERAND(8, a9)
#define _USDT_SDT_SIZES_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _USDT_SDT_SIZES_9(a1, a2, a3, a4, a5, a6, a7, a8, a9) _USDT_SDT_SIZE_OPERAND(9, a10)
#define _USDT_SDT_SIZES_11(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _USDT_SDT_SIZES_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) _USDT_SDT_SIZE_OPERAND(10, a11)
#define _USDT_SDT_SIZES_12(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _USDT_SDT_SIZES_11(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) _USDT_SDT_SIZE_OPERAND(11, a12)

#define _USDT_SDT_SPEC_0 ""
#define _USDT_SDT_SPEC_1 _USDT_SDT_ARGSPEC(0)
#define _USDT_SDT_SPEC_2 _USDT_SDT_SPEC_1 " " _USDT_SDT_ARGSPEC(1)
#define _USDT_SDT_SPEC_3 _USDT_SDT_SPEC_2 " " _USDT_SDT_ARGSPEC(2)
#define _USDT_SDT_SPEC_4 _USDT_SDT_SPEC_3 " " _USDT_SDT_ARGSPEC(3)
#define _USDT_SDT_SPEC_5 _USDT_SDT_SPEC_4 " " _USDT_SDT_ARGSPEC(4)
#define _USDT_SDT_SPEC_6 _USDT_SDT_SPEC_5 " " _USDT_SDT_ARGSPEC(5)
#define _USDT_SDT_SPEC_7 _USDT_SDT_SPEC_6 " " _USDT_SDT_ARGSPEC(6)
#define _USDT_SDT_SPEC_8 _USDT_SDT_SPEC_7 " " _USDT_SDT_ARGSPEC(7)
#define _USDT_SDT_SPEC_9 _USDT_SDT_SPEC_8 " " _USDT_SDT_ARGSPEC(8)
#define _USDT_SDT_SPEC_10 _USDT_SDT_SPEC_9 " " _USDT_SDT_ARGSPEC(9)
#define _USDT_SDT_SPEC_11 _USDT_SDT_SPEC_10 " " _USDT_SDT_ARGSPEC(10)
#define _USDT_SDT_SPEC_12 _USDT_SDT_SPEC_11 " " _USDT_SDT_ARGSPEC(11)

/* Probes inside an asm statement, as systemtap's header has them (glibc's lowlevellock):
   STAP_PROBE_ASM(provider, name, args) is asm template text to put where the probe goes, `args`
   either the specs written out (`-4@%eax`) or STAP_PROBE_ASM_TEMPLATE(n), whose operands
   STAP_PROBE_ASM_OPERANDS(n, a1, ..., an) adds to the statement's inputs. The text works in a
   basic asm too (no `%` of its own) and more than once in one statement (numbered labels), so
   it has no `.note.usdt` record and no link to its code's section. */
#define _USDT_SDT_ASM_BODY(provider, name, semaphore, specs) \
    "990: nop\n" \
    ".pushsection .note.stapsdt, \"?\", \"note\"\n" \
    ".balign 4\n" \
    ".4byte 992f-991f, 994f-993f, 3\n" \
    "991: .asciz \"stapsdt\"\n" \
    "992: .balign 4\n" \
    "993: " _USDT_ASM_WORD " 990b, _.stapsdt.base, " semaphore "\n" \
    ".asciz \"" provider "\", \"" name "\", \"" specs "\"\n" \
    "994: .balign 4\n" \
    ".popsection\n"
#if !USDT_HAVE_PROBES
#define _USDT_SDT_ASM(provider, name, specs) ""
#else
#define _USDT_SDT_ASM(provider, name, specs) \
    _USDT_SDT_ASM_BODY(_USDT_SDT_STRING(provider), _USDT_SDT_STRING(name), _USDT_SDT_SEMAPHORE(provider, name), specs)
#endif
/* The template's operands are named, as they go among the statement's own: `_SDT_S1` the
   size, `_SDT_A1` the value. On i386 and ARM, where the site's own probes use the argument
   block, which needs a statement of its own, an 8-byte value fits no register (i386 refuses it,
   ARM would name half of a pair): there each value is passed as systemtap's header passes it,
   unconverted and with its constraint, so that the compiler may put it in memory. */
#if defined(__i386__)
#define _USDT_SDT_ASM_ARGSPEC(number) "%c[_SDT_S" #number "]@%k[_SDT_A" #number "]"
#define _USDT_SDT_ASM_VALUE(x) (x)
#define _USDT_SDT_ASM_CONSTRAINT "nor"
#elif defined(__arm__)
#define _USDT_SDT_ASM_ARGSPEC(number) "%c[_SDT_S" #number "]@%[_SDT_A" #number "]"
#define _USDT_SDT_ASM_VALUE(x) (x)
#define _USDT_SDT_ASM_CONSTRAINT "g"
#else
#define _USDT_SDT_ASM_ARGSPEC(number) "%c[_SDT_S" #number "]@%[_SDT_A" #number "]"
#if defined(__x86_64__)
#define _USDT_SDT_ASM_VALUE(x) _USDT_SDT_NARROW(x)
#else
#define _USDT_SDT_ASM_VALUE(x) _USDT_SDT_WIDE(x)
#endif
#define _USDT_SDT_ASM_CONSTRAINT _USDT_SDT_CONSTRAINT
#endif
#define _USDT_SDT_ASM_OPERAND(number, x) \
    [_SDT_S##number] "n"(_USDT_SDT_SIZE(x)), [_SDT_A##number] _USDT_SDT_ASM_CONSTRAINT(_USDT_SDT_ASM_VALUE(x))
#define _USDT_SDT_ASM_TEMPLATE_0 ""
#define _USDT_SDT_ASM_TEMPLATE_1 _USDT_SDT_ASM_ARGSPEC(1)
#define _USDT_SDT_ASM_TEMPLATE_2 _USDT_SDT_ASM_TEMPLATE_1 " " _USDT_SDT_ASM_ARGSPEC(2)
#define _USDT_SDT_ASM_TEMPLATE_3 _USDT_SDT_ASM_TEMPLATE_2 " " _USDT_SDT_ASM_ARGSPEC(3)
#define _USDT_SDT_ASM_TEMPLATE_4 _USDT_SDT_ASM_TEMPLATE_3 " " _USDT_SDT_ASM_ARGSPEC(4)
#define _USDT_SDT_ASM_TEMPLATE_5 _USDT_SDT_ASM_TEMPLATE_4 " " _USDT_SDT_ASM_ARGSPEC(5)
#define _USDT_SDT_ASM_TEMPLATE_6 _USDT_SDT_ASM_TEMPLATE_5 " " _USDT_SDT_ASM_ARGSPEC(6)
#define _USDT_SDT_ASM_TEMPLATE_7 _USDT_SDT_ASM_TEMPLATE_6 " " _USDT_SDT_ASM_ARGSPEC(7)
#define _USDT_SDT_ASM_TEMPLATE_8 _USDT_SDT_ASM_TEMPLATE_7 " " _USDT_SDT_ASM_ARGSPEC(8)
#define _USDT_SDT_ASM_TEMPLATE_9 _USDT_SDT_ASM_TEMPLATE_8 " " _USDT_SDT_ASM_ARGSPEC(9)
#define _USDT_SDT_ASM_TEMPLATE_10 _USDT_SDT_ASM_TEMPLATE_9 " " _USDT_SDT_ASM_ARGSPEC(10)
#define _USDT_SDT_ASM_TEMPLATE_11 _USDT_SDT_ASM_TEMPLATE_10 " " _USDT_SDT_ASM_ARGSPEC(11)
#define _USDT_SDT_ASM_TEMPLATE_12 _USDT_SDT_ASM_TEMPLATE_11 " " _USDT_SDT_ASM_ARGSPEC(12)
#define _USDT_SDT_ASM_OPERANDS_1(a1) _USDT_SDT_ASM_OPERAND(1, a1)
#define _USDT_SDT_ASM_OPERANDS_2(a1, a2) _USDT_SDT_ASM_OPERANDS_1(a1), _USDT_SDT_ASM_OPERAND(2, a2)
#define _USDT_SDT_ASM_OPERANDS_3(a1, a2, a3) _USDT_SDT_ASM_OPERANDS_2(a1, a2), _USDT_SDT_ASM_OPERAND(3, a3)
#define _USDT_SDT_ASM_OPERANDS_4(a1, a2, a3, a4) _USDT_SDT_ASM_OPERANDS_3(a1, a2, a3), _USDT_SDT_ASM_OPERAND(4, a4)
#define _USDT_SDT_ASM_OPERANDS_5(a1, a2, a3, a4, a5) \
    _USDT_SDT_ASM_OPERANDS_4(a1, a2, a3, a4), _USDT_SDT_ASM_OPERAND(5, a5)
#define _USDT_SDT_ASM_OPERANDS_6(a1, a2, a3, a4, a5, a6) \
    _USDT_SDT_ASM_OPERANDS_5(a1, a2, a3, a4, a5), _USDT_SDT_ASM_OPERAND(6, a6)
#define _USDT_SDT_ASM_OPERANDS_7(a1, a2, a3, a4, a5, a6, a7) \
    _USDT_SDT_ASM_OPERANDS_6(a1, a2, a3, a4, a5, a6), _USDT_SDT_ASM_OPERAND(7, a7)
#define _USDT_SDT_ASM_OPERANDS_8(a1, a2, a3, a4, a5, a6, a7, a8) \
    _USDT_SDT_ASM_OPERANDS_7(a1, a2, a3, a4, a5, a6, a7), _USDT_SDT_ASM_OPERAND(8, a8)
#define _USDT_SDT_ASM_OPERANDS_9(a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    _USDT_SDT_ASM_OPERANDS_8(a1, a2, a3, a4, a5, a6, a7, a8), _USDT_SDT_ASM_OPERAND(9, a9)
#define _USDT_SDT_ASM_OPERANDS_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _USDT_SDT_ASM_OPERANDS_9(a1, a2, a3, a4, a5, a6, a7, a8, a9), _USDT_SDT_ASM_OPERAND(10, a10)
#define _USDT_SDT_ASM_OPERANDS_11(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _USDT_SDT_ASM_OPERANDS_10(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10), _USDT_SDT_ASM_OPERAND(11, a11)
#define _USDT_SDT_ASM_OPERANDS_12(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _USDT_SDT_ASM_OPERANDS_11(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11), _USDT_SDT_ASM_OPERAND(12, a12)

#if (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L) || (defined(__cplusplus) && __cplusplus >= 201103L)
/* A template is text already, and comes with a second argument that says so; specs written out
   are spelled as written. */
#define STAP_PROBE_ASM_TEMPLATE(n) _USDT_SDT_ASM_TEMPLATE_##n, _usdt_sdt_template
#define STAP_PROBE_ASM(provider, name, ...) \
    _USDT_SDT_ASM(provider, name, _USDT_SDT_ASM_SPECS(__VA_ARGS__, _USDT_SDT_ASM_TEXT, _USDT_SDT_ASM_SPELLED, _)(__VA_ARGS__))
#define _USDT_SDT_ASM_SPECS(a1, a2, chosen, ...) chosen
#define _USDT_SDT_ASM_TEXT(text, tag) text
#define _USDT_SDT_ASM_SPELLED(specs) #specs
#define STAP_PROBE_ASM_OPERANDS(n, ...) _USDT_SDT_ASM_OPERANDS_##n(__VA_ARGS__)
#else
/* Without variadic macros, `args` is asm text: a string literal, or STAP_PROBE_ASM_TEMPLATE(n). */
#define STAP_PROBE_ASM_TEMPLATE(n) _USDT_SDT_ASM_TEMPLATE_##n
#define STAP_PROBE_ASM(provider, name, args) _USDT_SDT_ASM(provider, name, args)
#endif

#endif /* __ASSEMBLER__ */

#define STAP_PROBE(provider, name) _SDT_PROBE(provider, name, 0, ())
#define STAP_PROBE1(provider, name, a1) _SDT_PROBE(provider, name, 1, (a1))
#define STAP_PROBE2(provider, name, a1, a2) _SDT_PROBE(provider, name, 2, (a1, a2))
#define STAP_PROBE3(provider, name, a1, a2, a3) _SDT_PROBE(provider, name, 3, (a1, a2, a3))
#define STAP_PROBE4(provider, name, a1, a2, a3, a4) _SDT_PROBE(provider, name, 4, (a1, a2, a3, a4))
#define STAP_PROBE5(provider, name, a1, a2, a3, a4, a5) _SDT_PROBE(provider, name, 5, (a1, a2, a3, a4, a5))
#define STAP_PROBE6(provider, name, a1, a2, a3, a4, a5, a6) _SDT_PROBE(provider, name, 6, (a1, a2, a3, a4, a5, a6))
#define STAP_PROBE7(provider, name, a1, a2, a3, a4, a5, a6, a7) \
    _SDT_PROBE(provider, name, 7, (a1, a2, a3, a4, a5, a6, a7))
#define STAP_PROBE8(provider, name, a1, a2, a3, a4, a5, a6, a7, a8) \
    _SDT_PROBE(provider, name, 8, (a1, a2, a3, a4, a5, a6, a7, a8))
#define STAP_PROBE9(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    _SDT_PROBE(provider, name, 9, (a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define STAP_PROBE10(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    _SDT_PROBE(provider, name, 10, (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define STAP_PROBE11(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    _SDT_PROBE(provider, name, 11, (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define STAP_PROBE12(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    _SDT_PROBE(provider, name, 12, (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))

#define DTRACE_PROBE(provider, name) STAP_PROBE(provider, name)
#define DTRACE_PROBE1(provider, name, a1) STAP_PROBE1(provider, name, a1)
#define DTRACE_PROBE2(provider, name, a1, a2) STAP_PROBE2(provider, name, a1, a2)
#define DTRACE_PROBE3(provider, name, a1, a2, a3) STAP_PROBE3(provider, name, a1, a2, a3)
#define DTRACE_PROBE4(provider, name, a1, a2, a3, a4) STAP_PROBE4(provider, name, a1, a2, a3, a4)
#define DTRACE_PROBE5(provider, name, a1, a2, a3, a4, a5) STAP_PROBE5(provider, name, a1, a2, a3, a4, a5)
#define DTRACE_PROBE6(provider, name, a1, a2, a3, a4, a5, a6) STAP_PROBE6(provider, name, a1, a2, a3, a4, a5, a6)
#define DTRACE_PROBE7(provider, name, a1, a2, a3, a4, a5, a6, a7) \
    STAP_PROBE7(provider, name, a1, a2, a3, a4, a5, a6, a7)
#define DTRACE_PROBE8(provider, name, a1, a2, a3, a4, a5, a6, a7, a8) \
    STAP_PROBE8(provider, name, a1, a2, a3, a4, a5, a6, a7, a8)
#define DTRACE_PROBE9(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
    STAP_PROBE9(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9)
#define DTRACE_PROBE10(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) \
    STAP_PROBE10(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)
#define DTRACE_PROBE11(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) \
    STAP_PROBE11(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)
#define DTRACE_PROBE12(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
    STAP_PROBE12(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12)

/* STAP_PROBEV(provider, name, a1, ...): 0 to 12 arguments, counted with provider and name among
   them, so that a probe without arguments still passes the `...` one (no pedantic warning,
   no `, ##__VA_ARGS__`). As in systemtap's header, only with SDT_USE_VARIADIC defined first. */
#if defined(SDT_USE_VARIADIC)
#define STAP_PROBEV(...) _USDT_SDT_PROBEV(_USDT_SDT_COUNT(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, x), __VA_ARGS__)
#define _USDT_SDT_COUNT(p, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, count, ...) count
#define _USDT_SDT_PROBEV(count, ...) _USDT_SDT_PROBEV_OF(count, __VA_ARGS__)
#define _USDT_SDT_PROBEV_OF(count, ...) _USDT_SDT_PROBEV_##count(__VA_ARGS__)
#define _USDT_SDT_PROBEV_0(provider, name) STAP_PROBE(provider, name)
#define _USDT_SDT_PROBEV_1 STAP_PROBE1
#define _USDT_SDT_PROBEV_2 STAP_PROBE2
#define _USDT_SDT_PROBEV_3 STAP_PROBE3
#define _USDT_SDT_PROBEV_4 STAP_PROBE4
#define _USDT_SDT_PROBEV_5 STAP_PROBE5
#define _USDT_SDT_PROBEV_6 STAP_PROBE6
#define _USDT_SDT_PROBEV_7 STAP_PROBE7
#define _USDT_SDT_PROBEV_8 STAP_PROBE8
#define _USDT_SDT_PROBEV_9 STAP_PROBE9
#define _USDT_SDT_PROBEV_10 STAP_PROBE10
#define _USDT_SDT_PROBEV_11 STAP_PROBE11
#define _USDT_SDT_PROBEV_12 STAP_PROBE12
#endif

#endif /* _SYS_SDT_H */
