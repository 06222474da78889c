/* The translation unit whose compile time bench/measure.py measures, as C and as C++: alone,
   and with PROBES_HEADER (<usdt/usdt.h>, or a generated 1,000-probe header) included. */
#ifdef PROBES_HEADER
#include PROBES_HEADER
#endif

int compile_cost(int x);

int compile_cost(int x) {
    return x + 1;
}
