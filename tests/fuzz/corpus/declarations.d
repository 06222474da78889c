/* C declarations around providers, and typedefs that probe arguments use. */
typedef unsigned long long counter_t;
typedef counter_t total_t;
typedef const char *label_t;
typedef struct conn { int fd; char name[16]; } conn_t;
enum state { IDLE = 0, BUSY = 1 << 2 };
int lookup(const char *key, unsigned length);
provider store {
    probe put(label_t key, total_t size, conn_t *connection);
    probe get(string key, counter_t hits) : (string key, int hits);
};
union value { long number; void *pointer; };
