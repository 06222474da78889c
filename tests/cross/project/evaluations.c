/*
 * Counts how often a probe evaluates its arguments: exactly once each, on a target with probes
 * and on one where they compile away. Prints `evaluated=N`, N the number of arguments below
 * (19); tests/cross checks it under qemu-user, untraced. Built with -ffunction-sections and
 * linked with --gc-sections.
 */
#include <stdio.h>

#include "myapp.h"

static int evaluated;

static int counted(int value) {
    ++evaluated;
    return value;
}

/* Called by nothing, and linked with --gc-sections: its probe's note, linked to its code
   (SHF_LINK_ORDER), goes with it, so the module has no note for myapp:nothing. */
void unused_probed_function(void);
void unused_probed_function(void) {
    MYAPP_NOTHING();
}

int main(int argc, char **argv) {
    (void)argc;
    const char *name = argv[0];
    MYAPP_SIGNED_INTS(counted(-1), counted(-2), counted(-3), counted(-4));
    MYAPP_STRINGS((counted(0), name), (counted(0), name), (counted(0), name));
    MYAPP_TWELVE(counted(1), counted(2), counted(3), counted(4), counted(5), counted(6),
                 counted(7), counted(8), counted(9), counted(1), (counted(0), name), counted(12));
    printf("evaluated=%d\n", evaluated);
    return 0;
}
