#include "kvstore_api.h"

#include <string.h>

#include "kvstore.h"

size_t kvstore_lookup(const char *key) {
    size_t length = strlen(key);
    KVSTORE_LOOKUP(key, length);
    return length;
}
