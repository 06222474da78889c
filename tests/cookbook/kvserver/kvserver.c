/*
 * kvserver, the program docs/cookbook.md traces: a toy key-value server that answers the
 * fixed requests of REQUESTS through libkvstore, with the kvserver:* probes of kvserver.d
 * around each one. What it fires is written out in ../test_cookbook.py.
 *
 * usage: kvserver           answer the requests once, then exit
 *        kvserver --serve   answer them again every 100 ms until killed (a long-running
 *                           server to attach to by pid); request ids keep counting up
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kvserver.h"
#include "store.h"

/* What a client sends, one line per request. */
static const char *const REQUESTS[] = {
    "SET user:1 alice",
    "SET user:2 bob",
    "GET user:1",
    "GET user:3",
    "DEL user:2",
    "GET user:2",
};
enum { REQUEST_COUNT = sizeof REQUESTS / sizeof REQUESTS[0] };

/* A parsed request: op, key and value point into the caller's copy of the request line. */
struct request {
    uint64_t id;
    const char *op;
    const char *key;
    const char *value;
};

static void parse(struct request *request, uint64_t id, char *line) {
    request->id = id;
    request->op = strtok(line, " ");
    request->key = strtok(NULL, " ");
    request->value = strtok(NULL, " ");
}

/* 0 or -ENOENT; `*bytes` is the size of the value sent back. */
static int answer(const struct request *request, size_t *bytes) {
    *bytes = 0;
    if (strcmp(request->op, "SET") == 0) {
        store_set(request->key, request->value);
        return 0;
    }
    if (strcmp(request->op, "GET") == 0) {
        const char *value = store_get(request->key);
        if (value == NULL) {
            return -ENOENT;
        }
        *bytes = strlen(value);
        return 0;
    }
    return store_delete(request->key) ? 0 : -ENOENT;
}

static uint64_t serve_requests(uint64_t next_id) {
    for (int index = 0; index < REQUEST_COUNT; index++) {
        char line[64];
        struct request request;
        size_t bytes;
        strncpy(line, REQUESTS[index], sizeof line - 1);
        line[sizeof line - 1] = '\0';
        parse(&request, next_id++, line);
        KVSERVER_REQUEST_START(request.id, request.op, request.key, &request);
        int status = answer(&request, &bytes);
        KVSERVER_REQUEST_DONE(request.id, status, bytes);
    }
    return next_id;
}

int main(int argc, char **argv) {
    int serve = argc == 2 && strcmp(argv[1], "--serve") == 0;
    if (argc > 1 && !serve) {
        fprintf(stderr, "usage: %s [--serve]\n", argv[0]);
        return 2;
    }
    uint64_t next_id = serve_requests(1);
    while (serve) {
        const struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
        next_id = serve_requests(next_id);
    }
    return 0;
}
