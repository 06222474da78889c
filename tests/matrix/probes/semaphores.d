/*
 * One probe behind its ENABLED() guard: whether the kernel raised its semaphore, under every
 * linker and start order (../test_semaphores.py, programs/semaphores_probe.c).
 */
provider semaphores {
    probe guarded(int value);
};
