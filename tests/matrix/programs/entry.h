/*
 * The entry points of a matrix program's probe code, force-included (-include) into every
 * source of a cell. types.c and types.cpp (tests/integration) are compiled with
 * -Dmain=usdt_matrix_types, so that the same code can live in a library; declared here
 * first, the C++ definition gets C linkage, and the entry points stay exported when the
 * library is built with -fvisibility=hidden (the driver may dlsym them).
 */
#ifndef USDT_MATRIX_ENTRY_H
#define USDT_MATRIX_ENTRY_H

#ifdef __cplusplus
extern "C" {
#endif
__attribute__((visibility("default"))) int usdt_matrix_types(int argc, char **argv);
__attribute__((visibility("default"))) int usdt_matrix_edges(int argc, char **argv);
#ifdef __cplusplus
}
#endif

#endif /* USDT_MATRIX_ENTRY_H */
