/* Greets each name on its command line, firing a probe per greeting. */
#include "greeter.h"

#include <stdio.h>

int main(int argc, char **argv) {
    int number;
    for (number = 1; number < argc; ++number) {
        GREETER_GREETING(number, argv[number]);
        printf("hello, %s\n", argv[number]);
    }
    GREETER_DONE((unsigned)(argc - 1));
    return 0;
}
