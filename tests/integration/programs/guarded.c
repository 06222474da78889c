/*
 * Spins on MYAPP_GUARDED_ENABLED() until a tracer raises the semaphore, then fires
 * myapp:guarded(VALUE) once and exits 0; after SECONDS without a tracer it exits 1.
 * usage: guarded SECONDS VALUE
 *
 * Built with -O2. The loop has no other side effect, no call and no other memory access,
 * so only a volatile read of the semaphore notices a tracer that attaches while it spins:
 * a plain read would be hoisted out of the loop. SIGALRM bounds the wait.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "myapp.h"

static void timed_out(int signal_number) {
    static const char message[] = "enabled=false\n";
    (void)signal_number;
    if (write(STDOUT_FILENO, message, sizeof message - 1) < 0) {
        _exit(3);
    }
    _exit(1);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s SECONDS VALUE\n", argv[0]);
        return 2;
    }
    unsigned seconds = (unsigned)strtoul(argv[1], NULL, 10);
    int64_t value = strtoll(argv[2], NULL, 10);
    signal(SIGALRM, timed_out);
    alarm(seconds);
    printf("spinning\n");
    fflush(stdout);

    for (;;) {
        if (MYAPP_GUARDED_ENABLED()) {
            /* The kernel raises the semaphore while it registers the uprobe, a moment
               before the tracer attaches its handler: let that happen first. */
            struct timespec settle = {0, 200 * 1000 * 1000};
            nanosleep(&settle, NULL);
            MYAPP_GUARDED(value);
            printf("enabled=true\n");
            return 0;
        }
    }
}
