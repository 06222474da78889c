/*
 * The tool tests' program (programs/kvserver.c): names and declared types that only
 * .note.usdt carries (a typedef, a struct pointer), a probe fired from two sites, and one
 * probe without a semaphore. Expected listing: ../test_list.py.
 */
#pragma usdt no_semaphore kvserver:tick
typedef int kv_op_t;

provider kvserver {
    probe request__start(uint64_t id, const char *key, kv_op_t op);
    probe request__done(uint64_t id, int status, bool hit, struct kv_entry *entry);
    probe tick();
};
