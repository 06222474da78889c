/*
 * A probed function nothing calls. Linked with -ffunction-sections -Wl,--gc-sections, the
 * linker discards its code, and the probe's note has to go with it: a note left behind
 * points at address 0 (or at garbage), and libbpf then refuses every site of the probe.
 */
#include "edges.h"

void usdt_matrix_unused(int32_t value);

void usdt_matrix_unused(int32_t value) {
    EDGES_UNUSED(value);
}
