/* The cookbook's example library (docs/cookbook.md): what the store does for each request. */
provider kvstore {
    probe store(const char *key, size_t bytes, struct entry *entry);
    probe lookup(const char *key, bool found);
    probe erase(const char *key, bool found);
};
