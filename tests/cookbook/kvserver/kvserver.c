/*
 * kvserver, the program docs/cookbook.md traces: a toy key-value server that answers the
 * fixed requests of REQUESTS through libkvstore, with the kvserver:* probes of the example
 * project's kvserver.d (example-project/kvserver.d) around each one. What it fires is
 * written out in ../test_cookbook.py.
 *
 * usage: kvserver           answer the requests once, as one batch, then exit
 *        kvserver --serve   answer them again every 100 ms until killed (a long-running
 *                           server to attach to by pid); request ids keep counting up
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kvserver.h"
#include "store.h"

/* What a client sends, one line per request. */
static const char *const REQUESTS[] = {
    "PUT user:1 alice",
    "PUT user:2 bob",
    "GET user:1",
    "GET user:3",
    "DEL user:2",
    "GET user:2",
    "DEL user:1", /* the store is empty again: every batch is answered alike */
};
enum { REQUEST_COUNT = sizeof REQUESTS / sizeof REQUESTS[0] };

/* A parsed request: op, key and value point into the caller's copy of the request line. */
struct request {
    uint64_t id;
    const char *op;
    const char *key;
    const char *value;
};

struct batch_stats {
    unsigned puts, gets, deletes, misses;
};

static void parse(struct request *request, uint64_t id, char *line) {
    request->id = id;
    request->op = strtok(line, " ");
    request->key = strtok(NULL, " ");
    request->value = strtok(NULL, " ");
}

/* An HTTP-like status, as kvserver.d says: 200 found, 201 created, 204 deleted, 404 missing. */
static int answer(const struct request *request, struct batch_stats *stats) {
    if (strcmp(request->op, "PUT") == 0) {
        stats->puts++;
        return store_set(request->key, request->value) ? 201 : 200;
    }
    int found;
    if (strcmp(request->op, "GET") == 0) {
        stats->gets++;
        found = store_get(request->key) != NULL;
    } else {
        stats->deletes++;
        found = store_delete(request->key);
    }
    if (!found) {
        stats->misses++;
        KVSERVER_KEY_MISS(request->id, request->key);
        return 404;
    }
    return strcmp(request->op, "DEL") == 0 ? 204 : 200;
}

static uint64_t nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static uint64_t serve_requests(uint32_t batch, uint64_t next_id) {
    struct batch_stats stats = {0, 0, 0, 0};
    for (int index = 0; index < REQUEST_COUNT; index++) {
        char line[64];
        struct request request;
        strncpy(line, REQUESTS[index], sizeof line - 1);
        line[sizeof line - 1] = '\0';
        parse(&request, next_id++, line);
        KVSERVER_REQUEST_START(request.id, request.op, request.key);
        uint64_t started = nanoseconds();
        int status = answer(&request, &stats);
        KVSERVER_REQUEST_DONE(request.id, status, nanoseconds() - started);
    }
    /* The summary is only worth formatting while someone traces batch__done. */
    if (KVSERVER_BATCH_DONE_ENABLED()) {
        char summary[64];
        snprintf(summary, sizeof summary, "%u PUT %u GET %u DEL, %u misses", stats.puts, stats.gets,
                 stats.deletes, stats.misses);
        KVSERVER_BATCH_DONE(batch, REQUEST_COUNT, store_size(), summary);
    }
    return next_id;
}

int main(int argc, char **argv) {
    int serve = argc == 2 && strcmp(argv[1], "--serve") == 0;
    if (argc > 1 && !serve) {
        fprintf(stderr, "usage: %s [--serve]\n", argv[0]);
        return 2;
    }
    uint32_t batch = 1;
    uint64_t next_id = serve_requests(batch, 1);
    while (serve) {
        const struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
        next_id = serve_requests(++batch, next_id);
    }
    return 0;
}
