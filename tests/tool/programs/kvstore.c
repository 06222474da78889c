#include "kvstore_api.h"

#include <string.h>

#include "kvstore.h"

/* The store holds one key, "alpha". */
bool kvstore_lookup(const char *key) {
    bool found = strcmp(key, "alpha") == 0;
    KVSTORE_LOOKUP(key, found);
    return found;
}
