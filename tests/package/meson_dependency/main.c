/* Compiles only where the dependency gave the include directory of usdt/usdt.h. */
#include <stdio.h>
#include <usdt/usdt.h>

int main(void) {
    printf("usdt ABI %d\n", USDT_ABI_VERSION);
    return 0;
}
