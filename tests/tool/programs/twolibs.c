/*
 * Has no probe of its own: links libtool_core_a.so and loads libtool_core_b.so with dlopen(),
 * both of which hold the probe core:hit of the static library core. Fires it three times from
 * each (who=1 value=100+round, who=2 value=200+round), then exits 0. With `--wait` it first
 * prints "ready" and waits for standard input to close.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core_api.h"

int main(int argc, char **argv) {
    void *library = dlopen("libtool_core_b.so", RTLD_NOW);
    void (*b_run)(long);
    if (library == NULL) {
        fprintf(stderr, "twolibs: %s\n", dlerror());
        return 1;
    }
    *(void **)&b_run = dlsym(library, "core_b_run");
    if (b_run == NULL) {
        fprintf(stderr, "twolibs: %s\n", dlerror());
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "--wait") == 0) {
        char line[64];
        puts("ready");
        fflush(stdout);
        while (fgets(line, sizeof line, stdin) != NULL) {
        }
    }
    for (long round = 0; round < 3; round++) {
        core_a_run(round);
        b_run(round);
    }
    return 0;
}
