/* The shared library the tool tests' program loads (programs/kvstore.c). */
provider kvstore {
    probe lookup(string key, size_t length);
};
