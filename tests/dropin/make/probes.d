/* Preprocessed (dtrace -C): the types come from a header, as PostgreSQL's probes.d takes its own. */
#include "types.h"

provider myapp {
    probe request__start(request_id id, char *method);
    probe request__done(request_id id, byte_count bytes, char *status);
};
