// Greets each name on its command line, firing a probe per greeting through the C++ API
// and one at the end through the dtrace -h style macro.
#include "probes.h"

#include <cstdio>

int main(int argc, char **argv) {
    for (int number = 1; number < argc; ++number) {
        app::greeting(number, argv[number]);
        std::printf("hello, %s\n", argv[number]);
    }
    APP_DONE(static_cast<unsigned>(argc - 1));
    return 0;
}
