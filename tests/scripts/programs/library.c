/* A shared library with a probe, for the scripts attached to a library's path. */
#include "library.h"

#include "scriptlib.h"

void library_work(int64_t id, const char *name) {
    SCRIPTLIB_WORK(id, name);
}
