/* The static library core (core.c) and the two shared libraries linking it (core_a.c, core_b.c). */
#ifndef CORE_API_H
#define CORE_API_H

void core_hit(int who, long value, const char *from);
void core_a_run(long round);
void core_b_run(long round);

#endif
