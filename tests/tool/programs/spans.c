/*
 * Spans whose durations the tests know within bounds: this program measures each around its
 * probes (the same clock as BPF's nsecs, CLOCK_MONOTONIC) and knows how long it slept between
 * them, and prints, one line per span, `KIND NUMBER MEASURED SLEPT` (ns):
 *   request ID ...   spans:request__start(id) ... request__done(id), started on the main
 *                    thread and done on a worker; ids 1-4 overlap
 *   step ROUND ...   spans:step__start(round) ... step__done(round) on each of two threads
 * and what no pairing may count as a span: a done without a start (id 99), a start restarted
 * (id 5: counted once, from its second start), a start never done (id 6). spans:value fires
 * with -5, -1, 0, 3, 1000 and 2^40. With `--flood N`, it only fires spans:flood N times, as
 * fast as it can, and prints N. With `--serve`, it prints "ready", then serves requests one
 * after the other until killed: request__start(id), 1 ms, request__done(id). With `--together`,
 * a thread per CPU (2 to 8), at the same moment as the others, for each v of TOGETHER_VALUES in
 * turn (the Nth): step__start(N), value(v), step__done(N); then it prints `together THREADS VALUES`.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spans.h"

static uint64_t now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (uint64_t)time.tv_sec * 1000000000u + (uint64_t)time.tv_nsec;
}

static void sleep_us(long microseconds) {
    struct timespec time = {microseconds / 1000000, (microseconds % 1000000) * 1000};
    nanosleep(&time, NULL);
}

static uint64_t started[8];
static pthread_mutex_t output = PTHREAD_MUTEX_INITIALIZER;

static void *finish_requests(void *unused) {
    (void)unused;
    /* Done in reverse order, 2.5 ms apart: request 4 is the shortest. */
    for (uint64_t id = 4; id >= 1; --id) {
        sleep_us(2500);
        SPANS_REQUEST_DONE(id, 200);
        uint64_t took = now() - started[id];
        pthread_mutex_lock(&output);
        printf("request %llu %llu %llu\n", (unsigned long long)id, (unsigned long long)took,
               (unsigned long long)(5 - id) * 2500000u);
        pthread_mutex_unlock(&output);
    }
    return NULL;
}

static void *steps(void *unused) {
    (void)unused;
    for (int round = 1; round <= 3; ++round) {
        uint64_t start = now();
        SPANS_STEP_START(round);
        sleep_us(1000L * round);
        SPANS_STEP_DONE(round);
        uint64_t took = now() - start;
        pthread_mutex_lock(&output);
        printf("step %d %llu %llu\n", round, (unsigned long long)took, 1000000ull * (unsigned long long)round);
        pthread_mutex_unlock(&output);
    }
    return NULL;
}

/* One value in each bucket of a histogram of values from 0 to 2^63 - 1: 0 to 7, then 8 per power
   of two (usdttool/answers/distribution.py). Each is a key that no map holds yet when every thread
   counts it at once. */
#define TOGETHER_VALUES (8 + 60 * 8)
static int64_t together_value(int index) {
    if (index < 8) {
        return index;
    }
    int exponent = 3 + (index - 8) / 8, eighth = (index - 8) % 8;
    return (int64_t)((UINT64_C(1) << exponent) + ((uint64_t)eighth << (exponent - 3)));
}

static int together_threads;
static atomic_int together_arrived;
static atomic_int together_round;

/* Spins (rather than sleeping in a futex, whose wake-ups come one after the other) until every
   thread has arrived: they leave within moments of each other. */
static void wait_for_the_others(void) {
    int round = atomic_load(&together_round);
    if (atomic_fetch_add(&together_arrived, 1) == together_threads - 1) {
        atomic_store(&together_arrived, 0);
        atomic_fetch_add(&together_round, 1);
    } else {
        while (atomic_load(&together_round) == round) {
        }
    }
}

static void *fire_together(void *unused) {
    (void)unused;
    for (int index = 0; index < TOGETHER_VALUES; ++index) {
        wait_for_the_others();
        SPANS_STEP_START(index);
        SPANS_VALUE(together_value(index));
        SPANS_STEP_DONE(index);
    }
    return NULL;
}

static int together(void) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    together_threads = cpus < 2 ? 2 : cpus > 8 ? 8 : (int)cpus;
    pthread_t threads[8];
    for (int thread = 0; thread < together_threads; ++thread) {
        pthread_create(&threads[thread], NULL, fire_together, NULL);
    }
    for (int thread = 0; thread < together_threads; ++thread) {
        pthread_join(threads[thread], NULL);
    }
    printf("together %d %d\n", together_threads, TOGETHER_VALUES);
    return 0;
}

int main(int argc, char **argv) {
    char get[] = "GET";
    if (argc == 3 && strcmp(argv[1], "--flood") == 0) {
        uint64_t count = strtoull(argv[2], NULL, 10);
        for (uint64_t n = 0; n < count; ++n) {
            SPANS_FLOOD(n);
        }
        printf("%llu\n", (unsigned long long)count);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--together") == 0) {
        return together();
    }
    if (argc == 2 && strcmp(argv[1], "--serve") == 0) {
        puts("ready");
        fflush(stdout);
        for (uint64_t id = 1;; ++id) {
            SPANS_REQUEST_START(id, get);
            sleep_us(1000);
            SPANS_REQUEST_DONE(id, 200);
        }
    }
    pthread_t finisher, stepper[2];
    for (uint64_t id = 1; id <= 4; ++id) {
        started[id] = now();
        SPANS_REQUEST_START(id, get);
    }
    pthread_create(&finisher, NULL, finish_requests, NULL);
    for (int thread = 0; thread < 2; ++thread) {
        pthread_create(&stepper[thread], NULL, steps, NULL);
    }
    pthread_join(finisher, NULL);
    for (int thread = 0; thread < 2; ++thread) {
        pthread_join(stepper[thread], NULL);
    }
    SPANS_REQUEST_DONE(99, 404);
    SPANS_REQUEST_START(5, get);
    sleep_us(500);
    started[5] = now();
    SPANS_REQUEST_START(5, get);
    sleep_us(2000);
    SPANS_REQUEST_DONE(5, 200);
    printf("request 5 %llu 2000000\n", (unsigned long long)(now() - started[5]));
    SPANS_REQUEST_START(6, get);
    static const int64_t values[] = {-5, -1, 0, 3, 1000, (int64_t)1 << 40};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; ++i) {
        SPANS_VALUE(values[i]);
    }
    return 0;
}
