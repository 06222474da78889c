/* greet: prints a greeting per name and counts them. */
#ifndef GREET_H
#define GREET_H

#ifdef __cplusplus
extern "C" {
#endif

/* Prints "hello, NAME"; returns how many names were greeted so far. */
unsigned greet(const char *name);

#ifdef __cplusplus
}
#endif

#endif
