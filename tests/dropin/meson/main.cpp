// Serves two requests, firing the probes through the generated C++ API.
#include <cstdio>

#include "probes.h"

int main() {
    static const char *const methods[] = {"GET", "PUT"};
    int traced = 0;
    std::printf("app: serving 2 requests\n");
    for (int id = 1; id <= 2; id++) {
        myapp::request_start(id, methods[id - 1]);
        if (MYAPP_REQUEST_DONE_ENABLED()) {
            traced++;
            myapp::request_done(id, 100L * id, "ok");
        }
    }
    std::printf("app: 2 requests, %d traced\n", traced);
    return 0;
}
