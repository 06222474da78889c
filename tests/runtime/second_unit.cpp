/*
 * A second translation unit of runtime_probes: including the generated header here too must
 * link (the semaphores are defined once, in the generated source) and name the same semaphore.
 */
#include "runtime_probes.h"

volatile unsigned short *second_unit_request_done_semaphore() {
    return &myapp_request__done_semaphore;
}

void second_unit_request_done(int status) {
    myapp::request_done(status);
    MYAPP_REQUEST_DONE(status);
}
