/*
 * Fires every probe of declarations.d once, with values of the types its typedefs name.
 * Builds as C and as C++.
 */
#include "declarations.h"

#include <stdint.h>

typedef unsigned int worker_id_t;
typedef long long job_cost_t;

struct job {
    uint64_t id;
};
typedef struct job job_t;

int main(void) {
    job_t job = {77};
    worker_id_t worker = 3;
    job_cost_t estimate = 1500, cost = 1720;
    int status = 0;

    JOBS_JOB_QUEUED(&job, worker, job.id);
    if (JOBS_JOB_STARTED_ENABLED()) {
        JOBS_JOB_STARTED(worker, job.id, estimate);
    }
    JOBS_JOB_FINISHED(worker, job.id, cost, status);
    return 0;
}
