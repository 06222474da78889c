/*
 * A program using a `usdt-dtrace -h` header as code written for systemtap's does; built as
 * C99 and as C++11 with -pedantic -Wall -Wextra -Werror, linked with the `-G` object.
 * Prints `evaluations=E else=B enabled=N semaphores=S`: test_semantics.py compares it with
 * and without gdb attached to the probes.
 */
#include "semantics.h"
#include "semantics.h" /* twice: the header has an include guard */

#include <stdio.h>

/* semantics.d #defines request_id_t and typedefs txn_t: if its header leaked either, these
   would not compile. */
static const char *const request_id_t = "the program's own request_id_t";
static const int txn_t = 7;

#ifdef MYAPP_HIDDEN
#error "MYAPP_HIDDEN is defined: semantics.d declares that probe inside #if 0"
#endif
#ifndef MYAPP_DONE_ENABLED
#error "MYAPP_DONE_ENABLED is not defined"
#endif

static int evaluations;

static unsigned long long counted(unsigned long long value) {
    ++evaluations;
    return value;
}

static const char *counted_string(const char *text) {
    ++evaluations;
    return text;
}

int main(int argc, char **argv) {
    const char *branch = "none";
    int enabled = 0;
    (void)argv;

    MYAPP_REQUEST_START(counted(42), counted_string("/index.html"));
    /* One statement: an unbraced if/else around a probe compiles and takes the right branch.
       argc is 1, which the compiler cannot know. */
    if (argc == 1)
        MYAPP_DONE(txn_t + counted(193));
    else
        MYAPP_DONE(counted(500));
    if (argc != 1)
        MYAPP_DONE(counted(404));
    else
        branch = "else";
    if (argc == 1)
        MYAPP_NOTHING();

    if (MYAPP_REQUEST_START_ENABLED())
        ++enabled;
    if (MYAPP_DONE_ENABLED())
        ++enabled;
    if (MYAPP_NOTHING_ENABLED())
        ++enabled;
    /* The semaphores, by the names systemtap's header gives them. */
    printf("evaluations=%d else=%s enabled=%d semaphores=%d,%d,%d %s\n", evaluations, branch, enabled,
           myapp_request__start_semaphore != 0, myapp_done_semaphore != 0, myapp_nothing_semaphore != 0,
           request_id_t);
    return 0;
}
