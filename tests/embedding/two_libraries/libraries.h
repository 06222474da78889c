/* What liba.so and libb.so export: each fires core:enter and core:hit and returns
   CORE_HIT_ENABLED() != 0 as its copy of core sees it. */
#ifndef LIBRARIES_H
#define LIBRARIES_H

int a_scramble(int count);   /* code and data only liba.so has */
int a_work(int count);   /* core:enter(1), core:hit(1, count, "a") */
int b_work(int count);   /* core:enter(2), core:hit(2, 100 + count, "b") */

#endif
