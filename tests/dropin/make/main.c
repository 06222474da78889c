/* Serves two requests: request__start fires here, request__done in worker.cpp. */
#include <stdio.h>

#include "probes.h"
#include "worker.h"

int main(void) {
    static const char *const methods[] = {"GET", "PUT"};
    int traced = 0;
    int id;
    printf("app: serving 2 requests\n");
    for (id = 1; id <= 2; id++) {
        TRACE_MYAPP_REQUEST_START(id, methods[id - 1]);
        traced += finish_request(id);
    }
    printf("app: 2 requests, %d traced\n", traced);
    return 0;
}
