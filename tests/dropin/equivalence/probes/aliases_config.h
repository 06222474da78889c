/*
 * Build settings that aliases.d reads, the way a server's provider file includes the
 * project's generated configuration header: only preprocessor lines, one choice made by #if.
 */
#ifndef EQUIVALENCE_ALIASES_CONFIG_H
#define EQUIVALENCE_ALIASES_CONFIG_H

#define STORE_LARGE_FILES 1

#if defined(__LP64__) && STORE_LARGE_FILES
#define STORE_TRACE_LOCK_DETAIL 1
#else
#define STORE_TRACE_LOCK_DETAIL 0
#endif

#endif
