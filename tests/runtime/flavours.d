/*
 * Probe flavours. The runtime tests add this file as it is, where every probe has a
 * semaphore unless a pragma says otherwise, and unguarded.d with NO_SEMAPHORES.
 */
#pragma usdt no_semaphore flavours:bare
provider flavours {
    probe guarded(uint64_t value, const char *label);
    probe bare(uint64_t value, const char *label);
};
