/*
 * Fires each of its probes once, kvcache:fill from two sites: kvserver:request__start and
 * request__done (example-project/kvserver.d, as the example's server declares them), then
 * kvcache's (probes/kvcache.d) and libtool_kvstore.so's. With `--wait` it first prints
 * "ready" and waits for standard input to close, so that a test can list it by process id,
 * with and without a tracer attached.
 */
#include <stdio.h>
#include <string.h>

#include "kvcache.h"
#include "kvserver.h"
#include "kvstore_api.h"

struct kv_entry {
    int value;
};

int main(int argc, char **argv) {
    struct kv_entry entry = {42};
    /* On the stack, not string literals: bpftrace's str() reads nothing from a page of
       .rodata the process has not touched yet (BPF cannot fault it in). */
    char alpha[] = "alpha", beta[] = "beta", get[] = "GET";
    if (argc > 1 && strcmp(argv[1], "--wait") == 0) {
        char line[64];
        puts("ready");
        fflush(stdout);
        while (fgets(line, sizeof line, stdin) != NULL) {
        }
    }
    KVSERVER_REQUEST_START(1, get, alpha);
    KVCACHE_FILL(1, alpha, 2);
    KVCACHE_GET(1, 0, 1, &entry);
    KVCACHE_FILL(2, beta, 1);
    KVSERVER_REQUEST_DONE(1, 200, 1500);
    KVCACHE_TICK();
    printf("looked up alpha: %s\n", kvstore_lookup(alpha) ? "found" : "missing");
    return 0;
}
