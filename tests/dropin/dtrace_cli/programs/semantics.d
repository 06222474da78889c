/* What code written for systemtap's `dtrace -h` header relies on (test_semantics.py). */
#define request_id_t uint64_t
typedef unsigned int txn_t;

provider myapp {
    probe request__start(request_id_t id, const char *path);
    probe done(txn_t status);
#if 0
    probe hidden(int value);
#endif
    probe nothing();
};
