/* Fires target:aarch64 with its argument count and first argument. */
#include "target.h"

#include <stdio.h>
#include <target_word.h>

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "nobody";
    TARGET_AARCH64((TARGET_WORD)argc, name);
    printf("target:aarch64 fired for %s\n", name);
    return 0;
}
