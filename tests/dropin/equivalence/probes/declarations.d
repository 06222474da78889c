/*
 * C declarations around the provider: a typedef'd scalar and a struct used by probe
 * arguments before it, and after it the kind of declarations a project keeps next to its
 * probes (typedefs, a struct, a union, an enum, a function prototype). Only the provider
 * makes notes.
 */
typedef unsigned int worker_id_t;
typedef long long job_cost_t;
struct job;
typedef struct job job_t;

provider jobs {
	probe job__queued(job_t *job, worker_id_t worker, uint64_t id);
	probe job__started(worker_id_t worker, uint64_t id, job_cost_t estimate);
	probe job__finished(worker_id_t worker, uint64_t id, job_cost_t cost, int status);
};

typedef struct {
	uint64_t id;
	string name;
} jobinfo_t;

struct job_stats {
	uint32_t queued;
	uint32_t finished;
};

union job_tag {
	uint64_t id;
	void *pointer;
};

enum job_state { JOB_QUEUED, JOB_RUNNING, JOB_FINISHED };

int jobs_trace_level(const struct job_stats *stats);
