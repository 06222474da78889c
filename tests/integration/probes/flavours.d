/*
 * Probe flavours, added with usdt_add_provider(... NO_SEMAPHORES): lazy:plain has no
 * semaphore, lazy:guarded keeps one through the pragma. Expected: ../expected.py.
 */
#pragma usdt semaphore lazy:guarded
provider lazy {
    probe guarded(int64_t value, const char *label);
    probe plain(uint32_t count);
};
