/*
 * Whether Linux has mapped its [uprobes-trampoline] page into this process: the sign that
 * it turned a uprobe on a 5-byte nop into a call (Linux 6.18 and later, x86-64). Used by
 * tests/runtime/nop5 and bench/nop5.
 */
#ifndef USDT_TESTS_UPROBES_TRAMPOLINE_H
#define USDT_TESTS_UPROBES_TRAMPOLINE_H

#include <stdio.h>
#include <string.h>

static int trampoline_mapped(void) {
    char line[512];
    int found = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) {
        return 0;
    }
    while (fgets(line, sizeof line, maps) != NULL) {
        found |= strstr(line, "[uprobes-trampoline]") != NULL;
    }
    fclose(maps);
    return found;
}

#endif
