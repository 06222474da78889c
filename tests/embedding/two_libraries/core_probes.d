/* core's probes: core:hit fired by core's code, core:enter by core.h's inline function in the
   code that calls it; each library that links core has one site of each. */
provider core {
    probe enter(int library);
    probe hit(int library, int count, const char *name);
};
