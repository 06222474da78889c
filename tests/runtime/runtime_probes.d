/*
 * The providers the runtime tests probe. Each probe exercises one thing: several argument
 * types, the narrow integers, no arguments, probe names that are C++ keywords, and a provider
 * named like one.
 */
provider myapp {
    probe request__start(uint64_t id, const char *path);
    probe request__done(int status);
    probe tick();
    probe delete(void *object);
    probe class(char kind, bool flag, short level, long offset);
    probe tiny(uint8_t a, int8_t b, int16_t c, uint16_t d);
};

provider register {
    probe done(unsigned int count);
};
