/* sys/sdt.h probes that usdt verify reports problems of, linked by lld with --gc-sections
   (test_verify.py): an operand at a symbol's address (gcc's `global_count(%rip)` at -O2, which
   sys/sdt.h's "nor" constraint allows), and a probe in a function nobody calls, whose code lld
   discards while it keeps its note at address 0, and drops .stapsdt.base. */
#include <sys/sdt.h>

int global_count = 3;

void dead(int value);

void dead(int value) {
    STAP_PROBE1(sdtverify, dead, value);
}

int main(void) {
    STAP_PROBE1(sdtverify, global, global_count);
    return 0;
}
