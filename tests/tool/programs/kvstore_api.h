#ifndef TOOL_KVSTORE_API_H
#define TOOL_KVSTORE_API_H
#include <stddef.h>

size_t kvstore_lookup(const char *key);

#endif
