/*
 * main() of test_semaphores.py's programs. It prints "waiting", then waits for a line (or the
 * end) of its input, so that a tracer can attach to it while it runs, then calls
 * semaphores_fire() and exits 0 if the semaphore was raised, 1 if not.
 *
 * Built with SEMAPHORES_DLOPEN defined to a shared library's path, it loads the probe code
 * with dlopen() first: a library mapped after a tracer that was started first attached to it.
 */
#include <stdio.h>

#ifdef SEMAPHORES_DLOPEN
#include <dlfcn.h>

static int (*semaphores_fire)(void);

static int load(void) {
    void *library = dlopen(SEMAPHORES_DLOPEN, RTLD_NOW | RTLD_LOCAL);
    if (library != NULL) {
        /* POSIX's way to turn dlsym's object pointer into a function pointer. */
        *(void **)&semaphores_fire = dlsym(library, "semaphores_fire");
    }
    if (semaphores_fire == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 0;
    }
    return 1;
}
#else
int semaphores_fire(void);

static int load(void) {
    return 1;
}
#endif

int main(void) {
    char line[16];
    if (!load()) {
        return 3;
    }
    printf("waiting\n");
    fflush(stdout);
    (void)fgets(line, sizeof line, stdin);
    if (!semaphores_fire()) {
        printf("semaphores:guarded is not enabled\n");
        return 1;
    }
    printf("semaphores:guarded fired\n");
    return 0;
}
