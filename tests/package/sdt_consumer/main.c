/* Probes as code written for systemtap's sys/sdt.h has them. USDT_ABI_VERSION says the header
   found is usdt's, even where systemtap-sdt-dev is installed too. */
#include <sys/sdt.h>
#include <stdio.h>

#if !defined(USDT_ABI_VERSION)
#error "<sys/sdt.h> is not usdt's"
#endif

int main(int argc, char **argv) {
    long total = 0;
    int index;
    (void)argv;
    for (index = 0; index < argc + 2; index++) {
        total += index;
        STAP_PROBE2(counter, step, index, total);
    }
    DTRACE_PROBE1(counter, done, "done");
    printf("%ld\n", total);
    return 0;
}
