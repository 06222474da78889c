/* usdt verify's and usdt diff's program (probes/verify.d): built as is, with the done probe
   left out (VERIFY_LEAVE_OUT_DONE), with --gc-sections and with LTO (rarely_used dropped), and
   against verify_changed/verify.d. */
#include <stdint.h>

#include "verify.h"

void rarely_used(uint64_t id);

/* Nobody calls it: only a linker that keeps what is not referenced keeps its site. */
void rarely_used(uint64_t id) {
    VERIFY_RARE(id);
}

int main(int argc, char **argv) {
    VERIFY_REQUEST(argc, argv[0]);
#ifndef VERIFY_LEAVE_OUT_DONE
    VERIFY_DONE(0);
#endif
    return 0;
}
