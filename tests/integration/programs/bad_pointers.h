/*
 * The string arguments bad_strings.c and bad_strings.cpp pass, by number: what a buggy program
 * may pass, then a good string, which shows that tracing went on. No probe may read them: each
 * program must exit 0 traced as untraced (the probes of commit 37a00c4 and before read strings
 * while traced, and died here with SIGSEGV).
 */
#ifndef BAD_POINTERS_H
#define BAD_POINTERS_H

#define _DEFAULT_SOURCE /* MAP_ANONYMOUS under -std=c99: this header comes first */

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { BAD_POINTER_COUNT = 6 };

/* Fills `strings`: NULL; (const char *)1; a page that was unmapped (freed); a PROT_NONE page;
   the last 3 bytes of a page, no terminator, before that PROT_NONE page; "good", at the start
   of that page (written, so mapped: a tracer reads it). Returns 0, or -1 when mmap() failed. */
static int bad_pointers(const char *strings[BAD_POINTER_COUNT]) {
    long page = sysconf(_SC_PAGESIZE);
    char *pages = (char *)mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) {
        return -1;
    }
    memcpy(pages, "good", 5);
    memcpy(pages + page - 3, "end", 3);
    memcpy(pages + 2 * page, "freed", 6);
    if (mprotect(pages + page, (size_t)page, PROT_NONE) != 0 || munmap(pages + 2 * page, (size_t)page) != 0) {
        return -1;
    }
    strings[0] = NULL;
    strings[1] = (const char *)1;
    strings[2] = pages + 2 * page;
    strings[3] = pages + page;
    strings[4] = pages + page - 3;
    strings[5] = pages;
    return 0;
}

#endif
