/*
 * A program without probes. With `--load-late LIBRARY`, one that loads a library with probes
 * after a tracer attached: it prints "ready" and waits for a line before it loads LIBRARY
 * (libtool_core_b.so), fires its probe at once, five times (core_b_run(9): who=2 value=209),
 * prints "loaded", and waits for standard input to close.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    char line[64];
    void *library;
    void (*b_run)(long);
    if (argc != 3 || strcmp(argv[1], "--load-late") != 0) {
        return 0;
    }
    puts("ready");
    fflush(stdout);
    if (fgets(line, sizeof line, stdin) == NULL || (library = dlopen(argv[2], RTLD_NOW)) == NULL) {
        return 1;
    }
    *(void **)&b_run = dlsym(library, "core_b_run");
    if (b_run == NULL) {
        return 1;
    }
    for (int fired = 0; fired < 5; fired++) {
        b_run(9);
    }
    puts("loaded");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin) != NULL) {
    }
    return 0;
}
