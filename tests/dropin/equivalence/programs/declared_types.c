/*
 * declared_types.d's two probes, declared alike, fired with different expressions:
 * `narrowed` with int expressions, which sys/sdt.h records as 4-byte signed values and
 * usdt converts to the declared char, unsigned short and long; `matching` with values of
 * the declared types, which both record alike. Builds as C and as C++.
 */
#include "declared_types.h"

int main(void) {
    int level_number = 3, port_number = 8080, total_number = 42;
    char level = 3;
    unsigned short port = 8080;
    long total = 42;

    TYPED_NARROWED(level_number, port_number, total_number);
    TYPED_MATCHING(level, port, total);
    return 0;
}
