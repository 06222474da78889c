/*
 * .note.usdt records that disagree with their stapsdt notes, written with the runtime
 * header's site macro directly (generated headers cannot produce them): `usdt list` must
 * fall back to the notes for these probes, and say so, and still describe the good one.
 */
#include <usdt/usdt_site.h>

/* Two int arguments' specs, as a generated header spells them for x86-64 (this program's target). */
#define TWO_INTS "-4@{|%%}%k0 -4@{|%%}%k1"

int main(int argc, char **argv) {
    (void)argv;
    /* The record names one argument, the note has two. */
    _USDT_SITE("broken", "count", "0", "0", "i"(0), TWO_INTS, (_USDT_ARG(i32, int, argc) _USDT_ARG(i32, int, argc)),
              "\"broken.d\", \"n\", \"int\", \"integer\"");
    /* The record's second argument lacks its kind. */
    _USDT_SITE("broken", "torn", "0", "0", "i"(0), TWO_INTS, (_USDT_ARG(i32, int, argc) _USDT_ARG(i32, int, argc)),
              "\"broken.d\", \"a\", \"int\", \"integer\", \"b\", \"int\"");
    /* A kind nobody defined. */
    _USDT_SITE("broken", "unknown__kind", "0", "0", "i"(0), TWO_INTS, (_USDT_ARG(i32, int, argc) _USDT_ARG(i32, int, argc)),
              "\"broken.d\", \"a\", \"int\", \"integer\", \"b\", \"float\", \"real\"");
    /* An argument name that would rewrite a bpftrace program: `x"%` (octal, as the generator
       escapes a file name). usdt list shows it; usdt trace calls the argument arg0. */
    _USDT_SITE("broken", "injected", "0", "0", "i"(0), TWO_INTS, (_USDT_ARG(i32, int, argc) _USDT_ARG(i32, int, argc)),
              "\"broken.d\", \"x\\042\\045\", \"int\", \"integer\", \"y\", \"int\", \"integer\"");
    /* A record as headers of usdt's ABI 6 and before wrote them: note type 3, the argument
       named as the C++ API names it (`class_`). usdt list reads it as it reads type 4. */
    __asm__ __volatile__(
        "990: nop\n"
        ".pushsection .note.stapsdt, \"\", \"note\"\n.balign 4\n.4byte 2f-1f, 4f-3f, 3\n"
        "1: .asciz \"stapsdt\"\n2: .balign 4\n"
        "3: .8byte 990b, _.stapsdt.base, 0\n.asciz \"broken\", \"legacy\", \"-4@%k0\"\n4: .balign 4\n.popsection\n"
        ".pushsection .note.usdt, \"\", \"note\"\n.balign 4\n.4byte 6f-5f, 8f-7f, 3\n"
        "5: .asciz \"usdt\"\n6: .balign 4\n"
        "7: .asciz \"broken\", \"legacy\", \"broken.d\", \"class_\", \"int\", \"integer\"\n8: .balign 4\n.popsection\n"
        : : "r"(argc));
    /* A correct record. */
    _USDT_SITE("broken", "fine", "0", "0", "i"(0), TWO_INTS, (_USDT_ARG(i32, int, argc) _USDT_ARG(i32, int, argc)),
              "\"broken.d\", \"a\", \"int\", \"integer\", \"b\", \"unsigned\", \"integer\"");
    return 0;
}
