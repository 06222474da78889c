/* The static library `archive`; the program linking it fires archive:fire too. */
#include "archive.h"
#include "libraries.h"

void archive_fire(const char *where) {
    ARCHIVE_FIRE(1, where);
}
