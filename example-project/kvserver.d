/*
 * kvserver's probes. Each line becomes KVSERVER_<NAME>(...) and KVSERVER_<NAME>_ENABLED()
 * in kvserver.h, and kvserver::<name>(...) in its C++ API. Tracers see them as
 * kvserver:request__start and so on (see trace.bt).
 */
provider kvserver {
    /* A request arrived: its id, operation ("GET", "PUT" or "DEL") and key. */
    probe request__start(uint64_t id, string op, string key);
    /* A request finished: its id, HTTP-like status (200, 201, 204, 404) and how long it took. */
    probe request__done(uint64_t id, int status, uint64_t latency_ns);
    /* A GET or DEL named a key the store does not hold. */
    probe key__miss(uint64_t id, string key);
    /* A batch finished: its number, requests in it, keys now stored, and a readable
       summary that the server builds only while this probe is traced. */
    probe batch__done(uint32_t batch, uint32_t requests, size_t keys, string summary);
};
