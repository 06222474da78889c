/*
 * Argument layouts declared as typedef'd structs before the provider, probes with a second,
 * translated argument list, and #pragma D attributes after the provider, in the way a
 * JavaScript runtime's provider file is written. The first argument list is the one the
 * program passes, so it alone decides the note; the translated list is for DTrace's
 * translators and changes nothing (socket__read's second list even names a narrower type).
 */
typedef struct {
	int32_t fd;
	int32_t port;
	uint32_t remote;
	uint32_t buffered;
} netrt_conn_t;

typedef struct {
	int32_t fd;
	int32_t port;
	uint64_t remote;
	uint32_t buffered;
} netrt_conn64_t;

typedef struct {
	int fd;
	string remote_address;
	int remote_port;
	int buffer_size;
} netrt_connection_t;

typedef struct {
	uintptr_t url;
	uintptr_t method;
	uintptr_t forwarded_for;
} netrt_raw_request_t;

typedef struct {
	string url;
	string method;
	string forwarded_for;
} netrt_request_t;

provider netrt {
	probe net__server__connection(netrt_conn_t *c, const char *a, int p, int fd) :
	    (netrt_connection_t *c, string a, int p, int fd);
	probe net__stream__end(netrt_conn64_t *c, const char *a, int p, int fd) :
	    (netrt_connection_t *c, string a, int p, int fd);
	probe http__server__request(netrt_raw_request_t *h, netrt_conn_t *c, const char *a,
	    int p, const char *m, const char *u, int fd) :
	    (netrt_request_t *h, netrt_connection_t *c, string a, int p, string m, string u, int fd);
	probe socket__read(int fd, uint64_t bytes) : (int fd, int bytes);
	probe gc__start(int t, int f, void *isolate);
	probe gc__done(int t, int f, void *isolate);
};

#pragma D attributes Evolving/Evolving/ISA provider netrt provider
#pragma D attributes Private/Private/Unknown provider netrt module
#pragma D attributes Private/Private/Unknown provider netrt function
#pragma D attributes Private/Private/ISA provider netrt name
#pragma D attributes Evolving/Evolving/ISA provider netrt args
