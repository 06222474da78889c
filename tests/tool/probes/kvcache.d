/*
 * The tool tests' program (programs/kvserver.c), beside example-project/kvserver.d: names
 * and declared types that only .note.usdt carries (a typedef, a bool, a struct pointer), a
 * probe fired from two sites, and one probe without arguments or a semaphore. Expected
 * listing: ../test_list.py.
 */
#pragma usdt no_semaphore kvcache:tick
typedef int kv_op_t;

provider kvcache {
    probe fill(uint64_t id, const char *key, kv_op_t op);
    probe get(uint64_t id, int status, bool hit, struct kv_entry *entry);
    probe tick();
};
