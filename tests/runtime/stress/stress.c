/* Fires probes from many threads until standard input reaches end of file, while other
   threads fork (the child fires and exits), fork and exec this program (which fires and
   exits), and dlopen/dlclose a library with probes, calling into it each time.

   Usage: stress LIBRARY            (the test closes stdin to stop it)
          stress --exec-child       (what the exec'd copy runs)

   For each line read on standard input it prints `progress FORKS EXECS LIBRARY_LOADS`, the
   rounds done so far, so that the test can wait for work done instead of for time.

   Each argument goes through a counting function: an unguarded probe must evaluate its
   arguments exactly once per site reached, a guarded one at most once. At the end it prints
   one `name count` line per counter and exits 0 only if every check held. */
#define _POSIX_C_SOURCE 200809L
#include "stress.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

enum { FIRING_THREADS = 6, CHILD_FIRES = 10 };

static atomic_bool stopping;
static atomic_long failures;

struct firing {
    int thread;
    long iterations;
    long unguarded_evaluations;
    long guarded_evaluations;
};

static long counted(long *evaluations, long value) {
    ++*evaluations;
    return value;
}

static void fail(const char *what) {
    fprintf(stderr, "stress: %s\n", what);
    atomic_fetch_add(&failures, 1);
}

static void *fire_probes(void *argument) {
    struct firing *firing = argument;
    while (!atomic_load_explicit(&stopping, memory_order_relaxed)) {
        long iteration = firing->iterations++;
        STRESS_UNGUARDED(firing->thread, counted(&firing->unguarded_evaluations, iteration));
        if (STRESS_GUARDED_ENABLED()) {
            STRESS_GUARDED(firing->thread, counted(&firing->guarded_evaluations, iteration));
        }
    }
    if (firing->unguarded_evaluations != firing->iterations || firing->guarded_evaluations > firing->iterations) {
        fail("a thread's argument evaluations do not match its iterations");
    }
    return NULL;
}

/* Runs in a forked child of a multithreaded process: only async-signal-safe calls. */
static int fire_as_child(int generation) {
    long evaluations = 0;
    for (int fire = 0; fire < CHILD_FIRES; ++fire) {
        STRESS_CHILD(generation, counted(&evaluations, (long)getpid()));
    }
    return evaluations == CHILD_FIRES ? 0 : 1;
}

static atomic_long forks, execs;

static void *fork_and_exec(void *argument) {
    const char *self = argument;
    while (!atomic_load_explicit(&stopping, memory_order_relaxed)) {
        int exec_this_time = (atomic_load(&forks) + atomic_load(&execs)) % 4 == 3;
        pid_t child = fork();
        if (child < 0) {
            fail("fork failed");
            return NULL;
        }
        if (child == 0) {
            if (exec_this_time) {
                execl(self, self, "--exec-child", (char *)NULL);
                _exit(127);
            }
            _exit(fire_as_child(1));
        }
        int status;
        if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fail(exec_this_time ? "an exec'd child failed" : "a forked child failed");
        }
        atomic_fetch_add(exec_this_time ? &execs : &forks, 1);
    }
    return NULL;
}

static atomic_long library_loads;
static long library_calls;

static void *load_and_unload(void *argument) {
    const char *library_path = argument;
    while (!atomic_load_explicit(&stopping, memory_order_relaxed)) {
        void *library = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            fail(dlerror());
            return NULL;
        }
        long (*call)(long);
        void *symbol = dlsym(library, "stresslib_call");
        if (symbol == NULL) {
            fail("stresslib_call not found");
            dlclose(library);
            return NULL;
        }
        memcpy(&call, &symbol, sizeof call);   /* ISO C has no object-to-function pointer cast */
        for (long value = 0; value < 100; ++value) {
            if (call(value) != value + 1) {
                fail("stresslib_call returned a wrong value");
            }
            ++library_calls;
        }
        atomic_fetch_add(&library_loads, 1);
        if (dlclose(library) != 0) {
            fail("dlclose failed");
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--exec-child") == 0) {
        return fire_as_child(2);
    }
    if (argc != 2) {
        fprintf(stderr, "usage: stress LIBRARY | stress --exec-child\n");
        return 2;
    }
    /* The exec'd copy must be this very file, which the tracer attached to. */
    static char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) {
        perror("stress: /proc/self/exe");
        return 2;
    }
    self[length] = '\0';

    static struct firing firings[FIRING_THREADS];
    pthread_t firing_threads[FIRING_THREADS], forking_thread, loading_thread;
    for (int thread = 0; thread < FIRING_THREADS; ++thread) {
        firings[thread].thread = thread;
        pthread_create(&firing_threads[thread], NULL, fire_probes, &firings[thread]);
    }
    pthread_create(&forking_thread, NULL, fork_and_exec, self);
    pthread_create(&loading_thread, NULL, load_and_unload, argv[1]);
    printf("started\n");
    fflush(stdout);

    char line[256];
    while (fgets(line, sizeof line, stdin) != NULL) {
        printf("progress %ld %ld %ld\n", atomic_load(&forks), atomic_load(&execs), atomic_load(&library_loads));
        fflush(stdout);
    }
    atomic_store(&stopping, true);

    long iterations = 0, guarded = 0;
    for (int thread = 0; thread < FIRING_THREADS; ++thread) {
        pthread_join(firing_threads[thread], NULL);
        iterations += firings[thread].iterations;
        guarded += firings[thread].guarded_evaluations;
    }
    pthread_join(forking_thread, NULL);
    pthread_join(loading_thread, NULL);
    printf("unguarded %ld\nguarded %ld\nforks %ld\nexecs %ld\nchild %ld\nlibrary_loads %ld\nlibrary_calls %ld\n"
           "failures %ld\n",
           iterations, guarded, atomic_load(&forks), atomic_load(&execs),
           (atomic_load(&forks) + atomic_load(&execs)) * CHILD_FIRES, atomic_load(&library_loads), library_calls,
           atomic_load(&failures));
    return atomic_load(&failures) == 0 ? 0 : 1;
}
