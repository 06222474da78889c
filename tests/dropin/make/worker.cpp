// The C++ half: the renamed macros and the C++ API over them.
#include "worker.h"

#include <string>

#include "probes.h"

extern "C" int finish_request(int id) {
    const std::string status = "ok";
    if (!TRACE_MYAPP_REQUEST_DONE_ENABLED()) {
        return 0;
    }
    myapp::request_done(id, 100L * id, status);
    return TRACE_MYAPP_REQUEST_DONE_ENABLED() ? 1 : 0;
}
