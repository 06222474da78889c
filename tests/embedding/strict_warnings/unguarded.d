/* Semaphores chosen in the file, per probe: `plain` has none, so each of its sites is only
   the nop and its _ENABLED() is always true; `guarded` keeps its semaphore. */
#pragma usdt no_semaphore unguarded:plain
provider unguarded {
    probe plain(int value);
    probe guarded(long value);
};
