/* The stress program's probes: one with a semaphore, one without, and the forked child's. */
#pragma usdt no_semaphore stress:unguarded
provider stress {
    probe guarded(int thread, long iteration);
    probe unguarded(int thread, long iteration);
    probe child(int generation, long pid);
};
