/*
 * Calls into a shared, a static and an object library with probes, and fires the static
 * library's probe itself: archive.d is added to both. usage: linked NAME
 * Fires, in order: archive:fire(1, NAME), archive:fire(2, NAME), objects:built(100 * argc),
 * solib:work(-5 * argc, NAME), then solib:guarded(strlen(NAME)) if traced.
 */
#include <stdio.h>

#include "archive.h"
#include "libraries.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s NAME\n", argv[0]);
        return 2;
    }
    const char *name = argv[1];
    archive_fire(name);
    ARCHIVE_FIRE(2, name);
    objects_build((uint16_t)(100 * argc));
    int length = solib_work(-5 * argc, name);
    printf("%s has %d characters\n", name, length);
    return 0;
}
