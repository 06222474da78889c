#ifndef WORKER_H
#define WORKER_H
#ifdef __cplusplus
extern "C" {
#endif

/* Fires request__done when a tracer enabled it; returns whether it did. */
int finish_request(int id);

#ifdef __cplusplus
}
#endif
#endif
