/* libkvstore (see store.h), with the kvstore:* probes of kvstore.d. */
#include "store.h"

#include <string.h>

#include "kvstore.h"

enum { ENTRIES = 16, TEXT_SIZE = 32 };

struct entry {
    bool used;
    char key[TEXT_SIZE];
    char value[TEXT_SIZE];
};

static struct entry entries[ENTRIES];

static struct entry *find(const char *key) {
    for (int index = 0; index < ENTRIES; index++) {
        if (entries[index].used && strcmp(entries[index].key, key) == 0) {
            return &entries[index];
        }
    }
    return NULL;
}

static void copy_text(char *destination, const char *source) {
    strncpy(destination, source, TEXT_SIZE - 1);
    destination[TEXT_SIZE - 1] = '\0';
}

bool store_set(const char *key, const char *value) {
    struct entry *entry = find(key);
    bool created = entry == NULL;
    for (int index = 0; entry == NULL && index < ENTRIES; index++) {
        if (!entries[index].used) {
            entry = &entries[index];
        }
    }
    if (entry == NULL) {
        return false; /* full: the cookbook's requests never fill it */
    }
    entry->used = true;
    copy_text(entry->key, key);
    copy_text(entry->value, value);
    KVSTORE_STORE(key, strlen(entry->value), entry);
    return created;
}

const char *store_get(const char *key) {
    struct entry *entry = find(key);
    KVSTORE_LOOKUP(key, entry != NULL);
    return entry != NULL ? entry->value : NULL;
}

bool store_delete(const char *key) {
    struct entry *entry = find(key);
    KVSTORE_ERASE(key, entry != NULL);
    if (entry == NULL) {
        return false;
    }
    entry->used = false;
    return true;
}

size_t store_size(void) {
    size_t size = 0;
    for (int index = 0; index < ENTRIES; index++) {
        size += entries[index].used;
    }
    return size;
}
