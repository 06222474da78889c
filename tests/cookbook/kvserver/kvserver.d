/* The cookbook's example server (docs/cookbook.md): the start and the end of each request. */
provider kvserver {
    probe request__start(uint64_t id, const char *op, const char *key, struct request *request);
    probe request__done(uint64_t id, int status, size_t bytes);
};
