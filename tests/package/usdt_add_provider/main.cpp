// main.c as the C++-only project's (USDT_TEST_LANGUAGE=CXX) source.
#include "probes.h"

int main() {
    DEMO_TICK(1);
    return 0;
}
