/* A tiny key store, in C. */
#ifndef STORE_H
#define STORE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Records `key`; returns how many keys were stored so far. */
unsigned long store_put(const char *key);

#ifdef __cplusplus
}
#endif

#endif
