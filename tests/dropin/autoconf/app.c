/* Serves two requests; with WITH_DTRACE (configure's default) each fires its probes. */
#include <stdio.h>

#ifdef WITH_DTRACE
#include "probes.h"
#else
#define MYAPP_REQUEST_START(id, method) ((void)0)
#define MYAPP_REQUEST_DONE_ENABLED() 0
#define MYAPP_REQUEST_DONE(id, bytes, status) ((void)0)
#endif

int main(void) {
    static const char *const methods[] = {"GET", "PUT"};
    int traced = 0;
    int id;
    printf("app: serving 2 requests\n");
    for (id = 1; id <= 2; id++) {
        MYAPP_REQUEST_START(id, methods[id - 1]);
        if (MYAPP_REQUEST_DONE_ENABLED()) {
            traced++;
            MYAPP_REQUEST_DONE(id, 100L * id, "ok");
        }
    }
    printf("app: 2 requests, %d traced\n", traced);
    return 0;
}
