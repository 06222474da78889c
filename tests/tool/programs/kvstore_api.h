#ifndef TOOL_KVSTORE_API_H
#define TOOL_KVSTORE_API_H
#include <stdbool.h>

bool kvstore_lookup(const char *key);

#endif
