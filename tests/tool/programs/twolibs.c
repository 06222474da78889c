/*
 * Has no probe of its own: links libtool_core_a.so and loads libtool_core_b.so with dlopen(),
 * both of which hold the probe core:hit of the static library core. Fires it three times from
 * each (who=1 value=100+round, who=2 value=200+round), then exits 0. With `--wait` it first
 * prints "ready" and waits for standard input to close.
 * With `--load-late`, a process that loads a library after a tracer attached: it prints "ready"
 * and waits for a line before it loads libtool_core_b.so, fires its probe at once, five times
 * (who=2 value=209), prints "loaded", and waits for standard input to close before the three
 * rounds.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core_api.h"

static void wait_for_end_of_input(void) {
    char line[64];
    while (fgets(line, sizeof line, stdin) != NULL) {
    }
}

static void (*load_b(void))(long) {
    void *library = dlopen("libtool_core_b.so", RTLD_NOW);
    void (*b_run)(long);
    if (library == NULL) {
        fprintf(stderr, "twolibs: %s\n", dlerror());
        return NULL;
    }
    *(void **)&b_run = dlsym(library, "core_b_run");
    if (b_run == NULL) {
        fprintf(stderr, "twolibs: %s\n", dlerror());
    }
    return b_run;
}

int main(int argc, char **argv) {
    int load_late = argc > 1 && strcmp(argv[1], "--load-late") == 0;
    void (*b_run)(long) = NULL;
    if (!load_late && (b_run = load_b()) == NULL) {
        return 1;
    }
    if (argc > 1 && (load_late || strcmp(argv[1], "--wait") == 0)) {
        puts("ready");
        fflush(stdout);
    }
    if (load_late) {
        char line[64];
        if (fgets(line, sizeof line, stdin) == NULL || (b_run = load_b()) == NULL) {
            return 1;
        }
        for (int fired = 0; fired < 5; fired++) {
            b_run(9);
        }
        puts("loaded");
        fflush(stdout);
    }
    if (argc > 1) {
        wait_for_end_of_input();
    }
    for (long round = 0; round < 3; round++) {
        core_a_run(round);
        b_run(round);
    }
    return 0;
}
