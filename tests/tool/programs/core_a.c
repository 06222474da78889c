/* libtool_core_a.so: the static library's probe with who=1; the string is a literal that nothing
 * but the probe's reader touches. */
#include "core_api.h"

void core_a_run(long round) {
    core_hit(1, 100 + round, "from-a");
}
