/* The shared library the tool tests' program loads (programs/kvstore.c): kvstore:lookup as the
   cookbook's library declares it (tests/cookbook/kvserver/kvstore.d), one signature for both. */
provider kvstore {
    probe lookup(const char *key, bool found);
};
