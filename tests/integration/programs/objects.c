/* The object library `objects`, linked into the program `linked`. */
#include "libraries.h"
#include "objects.h"

void objects_build(uint16_t count) {
    OBJECTS_BUILT(count);
}
