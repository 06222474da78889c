/* libtool_core_b.so: the static library's probe with who=2. Padded so that its probe site is at
 * another offset than libtool_core_a.so's: a tracer that attached one library's site to the
 * other library would break an instruction of core_b_pad, which core_b_run calls. */
#include "core_api.h"

volatile long core_b_sink;

void core_b_pad(long count);
void core_b_pad(long count) {
    for (long i = 0; i < count; i++) {
        core_b_sink += i * 3;
        core_b_sink ^= i;
        core_b_sink -= 7;
        core_b_sink *= 5;
    }
}

void core_b_run(long round) {
    core_b_pad(3);
    core_hit(2, 200 + round, "from-b");
}
