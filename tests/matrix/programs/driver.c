/*
 * main() of every matrix program: runs types.c's probes, then edges.c's, passing its
 * arguments on (usage: PROGRAM FIRST_ROW PATH NAME; the tests pass 0).
 *
 * Built with MATRIX_DLOPEN defined to a shared library's path, it loads the probe code with
 * dlopen() instead of linking it. The library is loaded from a constructor, before main(),
 * so that a debugger stopped at main already sees the library's probes.
 */
#include <stdio.h>
#include <stdlib.h>

#ifdef MATRIX_DLOPEN
#include <dlfcn.h>

typedef int entry_point(int argc, char **argv);
static entry_point *types_entry;
static entry_point *edges_entry;

static void *symbol(void *library, const char *name) {
    void *address = dlsym(library, name);
    if (address == NULL) {
        fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
        exit(3);
    }
    return address;
}

__attribute__((constructor)) static void load_probe_library(void) {
    void *library = dlopen(MATRIX_DLOPEN, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        exit(3);
    }
    /* POSIX's way to turn dlsym's object pointer into a function pointer. */
    *(void **)&types_entry = symbol(library, "usdt_matrix_types");
    *(void **)&edges_entry = symbol(library, "usdt_matrix_edges");
}
#else
#define types_entry usdt_matrix_types
#define edges_entry usdt_matrix_edges
#endif

int main(int argc, char **argv) {
    int status = types_entry(argc, argv);
    if (status != 0) {
        return status;
    }
    return edges_entry(argc, argv);
}
