/* Fires bad:text through the typed C++ API and bad:unguarded through the macro with each of
   bad_pointers.h's strings, numbered from 1, then exits 0. */
#include "bad_pointers.h"
#include "bad_strings.h"

int main() {
    const char *strings[BAD_POINTER_COUNT];
    if (bad_pointers(strings) != 0) {
        return 1;
    }
    for (int number = 1; number <= BAD_POINTER_COUNT; ++number) {
        bad::text(number, strings[number - 1]);
        BAD_UNGUARDED(number, strings[number - 1]);
    }
    return 0;
}
