/*
 * The golden outputs' provider file: every kind of argument, pointer-sized and fixed-size
 * integers, more arguments than bpftrace reads, an unnamed argument, a C++ keyword as a probe
 * and as an argument name, a probe without arguments and one without a semaphore.
 * test_render.py renders it and compares each output with its golden file here.
 */
#pragma usdt no_semaphore other:tick
provider myapp {
    probe request__start(uint64_t id, const char *path);
    probe kinds(int8_t small, uint32_t count, bool on, struct req *request, string name, long delta, size_t size);
    probe seven(int a, int b, int c, int d, int e, int f, unsigned short g);
    probe delete(int class);
    probe idle();
};
provider other { probe tick(short); };
