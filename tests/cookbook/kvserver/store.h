/* libkvstore: a fixed-size in-memory table of string keys and values. */
#ifndef COOKBOOK_STORE_H
#define COOKBOOK_STORE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether `key` is new. */
bool store_set(const char *key, const char *value);
/* The value of `key`, or NULL. */
const char *store_get(const char *key);
bool store_delete(const char *key);
/* How many keys the store holds. */
size_t store_size(void);

#endif
