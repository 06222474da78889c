/* Added with usdt_add_provider(... NO_SEMAPHORES): only the probe named below keeps one. */
#pragma usdt semaphore unguarded:kept
provider unguarded {
    probe plain(int value);
    probe kept(int value);
};
