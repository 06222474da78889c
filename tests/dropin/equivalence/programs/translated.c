/*
 * Fires every probe of translated.d once, each with values of its first argument list's
 * types: the structs the .d file's typedefs describe are the program's own. Builds as C
 * and as C++.
 */
#include "translated.h"

#include <stdint.h>

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
    uintptr_t url;
    uintptr_t method;
    uintptr_t forwarded_for;
} netrt_raw_request_t;

int main(void) {
    static const char address[] = "192.0.2.7", method[] = "GET", url[] = "/status";
    netrt_conn_t connection = {9, 8080, 0xc0000207u, 0};
    netrt_conn64_t wide_connection = {10, 8443, 0xc0000207u, 512};
    netrt_raw_request_t request = {(uintptr_t)url, (uintptr_t)method, 0};
    const char *remote = address;
    int port = 8080, fd = 9, type = 1, flags = 0;
    uint64_t bytes = 1u << 20;
    void *isolate = &request;

    NETRT_NET_SERVER_CONNECTION(&connection, remote, port, fd);
    NETRT_HTTP_SERVER_REQUEST(&request, &connection, remote, port, method, url, fd);
    NETRT_SOCKET_READ(fd, bytes);
    if (NETRT_GC_START_ENABLED()) {
        NETRT_GC_START(type, flags, isolate);
    }
    NETRT_GC_DONE(type, flags, isolate);
    NETRT_NET_STREAM_END(&wide_connection, remote, port, fd);
    return 0;
}
