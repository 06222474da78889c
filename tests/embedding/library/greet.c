/* The library: fires greet:hello for each greeting. */
#include "greet.h"

#include "greet_probes.h"

#include <stdio.h>

static unsigned greeted;

unsigned greet(const char *name) {
    ++greeted;
    GREET_HELLO(name, greeted);
    printf("hello, %s\n", name);
    return greeted;
}
