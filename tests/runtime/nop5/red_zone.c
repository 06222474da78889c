/*
 * Calls a leaf function that keeps its locals in the red zone across a probe site, COUNT
 * times, then prints how many calls returned a wrong sum and whether the kernel mapped its
 * uprobe trampoline into this process.
 * usage: red_zone opt-in|bare COUNT
 * output: `wrong=N trampoline=yes|no`; exit 0, or 2 on a usage error.
 *
 * Built at -O0 with USDT_X86_NOP5: a leaf function at -O0 keeps its locals below the stack
 * pointer (the red zone) without moving it. `opt-in` fires red_zone:nop5, usdt's site;
 * `bare` fires red_zone:bare_nop5, the same 5-byte nop without the stack pointer moves,
 * the control the tests expect to be corrupted once the kernel optimizes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../support/uprobes_trampoline.h"

#include "red_zone.h"

/* usdt.h must never emit this site, so the control writes its own note (see usdt.h for
   the format); usdt::runtime supplies `_.stapsdt.base`. */
#define BARE_NOP5_PROBE(seed) \
    __asm__ __volatile__( \
        "990: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n" \
        ".pushsection .note.stapsdt, \"\", \"note\"\n" \
        ".balign 4\n" \
        ".4byte 992f-991f, 994f-993f, 3\n" \
        "991: .asciz \"stapsdt\"\n" \
        "992: .balign 4\n" \
        "993: .8byte 990b, _.stapsdt.base, 0\n" \
        ".asciz \"red_zone\", \"bare_nop5\", \"-8@%0\"\n" \
        "994: .balign 4\n" \
        ".popsection\n" \
        : : "r"((int64_t)(seed)))

/* The two leaf functions differ only in their probe site. Their sums are 4 * seed + 6. */
static int64_t leaf_opt_in(int64_t seed) {
    int64_t words[4] = {seed, seed + 1, seed + 2, seed + 3};
    RED_ZONE_NOP5(seed);
    return words[0] + words[1] + words[2] + words[3];
}

static int64_t leaf_bare(int64_t seed) {
    int64_t words[4] = {seed, seed + 1, seed + 2, seed + 3};
    BARE_NOP5_PROBE(seed);
    return words[0] + words[1] + words[2] + words[3];
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "opt-in") != 0 && strcmp(argv[1], "bare") != 0)) {
        fprintf(stderr, "usage: %s opt-in|bare COUNT\n", argv[0]);
        return 2;
    }
    int64_t (*leaf)(int64_t) = strcmp(argv[1], "opt-in") == 0 ? leaf_opt_in : leaf_bare;
    int64_t count = strtoll(argv[2], NULL, 10);
    long wrong = 0;
    for (int64_t seed = 0; seed < count; ++seed) {
        wrong += leaf(seed) != 4 * seed + 6;
    }
    printf("wrong=%ld trampoline=%s\n", wrong, trampoline_mapped() ? "yes" : "no");
    return 0;
}
