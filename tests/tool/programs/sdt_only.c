/* Probes from systemtap's sys/sdt.h: stapsdt notes only, no .note.usdt. */
#include <stdint.h>
#include <sys/sdt.h>

int main(void) {
    volatile int32_t count = -3;
    volatile uint64_t total = 7;
    volatile char letter = 'x';
    DTRACE_PROBE3(sdtapp, hello, count, total, letter);
    DTRACE_PROBE(sdtapp, bye);
    return 0;
}
