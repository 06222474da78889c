/* Semaphore flavours chosen per provider and per probe, pragmas before and after. */
#pragma usdt no_semaphore app:*
provider app {
    probe start(uint64_t id, const char *name);
    probe stop(uint64_t id, int status);
    probe tick();
};
provider lib {
    probe call(void *handle, size_t length, bool cached);
};
#pragma usdt semaphore app:stop lib:call
#pragma D attributes Evolving/Evolving/Common provider app provider
