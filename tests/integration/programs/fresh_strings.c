/*
 * Strings written just before a probe and read by nothing else: a stack buffer filled byte by
 * byte and one filled by a loop. At -O2 a compiler that believes the probe only takes the
 * address drops those stores as dead, and the tracer reads whatever was there before.
 */
#include <stdio.h>

#include "myapp.h"

static void fire_spelled(int seed) {
    char word[4];
    word[0] = (char)('a' + seed);
    word[1] = 'b';
    word[2] = 'c';
    word[3] = '\0';
    MYAPP_REQUEST_START(1, word);
}

static void fire_counted(int count) {
    char digits[16];
    int length = 0;
    for (int digit = 0; digit < count && length < 15; ++digit) {
        digits[length++] = (char)('0' + digit);
    }
    digits[length] = '\0';
    MYAPP_REQUEST_START(2, digits);
}

int main(int argc, char **argv) {
    (void)argv;
    fire_spelled(argc - 1);   /* "abc" */
    fire_counted(argc + 4);   /* "01234" */
    puts("fired");
    return 0;
}
