/* Serves two requests: request__start fires here, request__done in worker.cpp. */
#include <stddef.h>
#include <stdio.h>

#include "probes.h"
#include "worker.h"

struct request {
    int id;
    const char *method;
};

static const struct request requests[] = {{1, "GET"}, {2, "PUT"}};

int main(void) {
    size_t i;
    int traced = 0;
    printf("app: serving %d requests\n", (int)(sizeof requests / sizeof requests[0]));
    for (i = 0; i < sizeof requests / sizeof requests[0]; i++) {
        TRACE_MYAPP_REQUEST_START(requests[i].id, requests[i].method);
        traced += finish_request(requests[i].id);
    }
    printf("app: %d requests, %d traced\n", (int)i, traced);
    return 0;
}
