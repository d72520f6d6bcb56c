/*
 * sim_swf.c: SWF trace records into the simulator's jobs (sim.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/swf.h"
#include "xalloc.h"

static int by_submit(const void *a, const void *b)
{
	const swf_job_t *x = *(const swf_job_t *const *)a, *y = *(const swf_job_t *const *)b;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

void sim_jobs_from_swf(const struct swf *t, const sched_t *s, uint32_t part, sim_job_t **out,
		       size_t *n, sim_skipped_t *skipped)
{
	memset(skipped, 0, sizeof(*skipped));
	const swf_job_t **order = xmalloc((t->n ? t->n : 1) * sizeof(*order));
	for (size_t i = 0; i < t->n; i++)
		order[i] = &t->jobs[i];
	qsort(order, t->n, sizeof(*order), by_submit);
	sim_job_t *jobs = xcalloc(t->n ? t->n : 1, sizeof(sim_job_t));
	size_t m = 0;
	for (size_t i = 0; i < t->n; i++) {
		const swf_job_t *w = order[i];
		int64_t procs = w->req_procs > 0 ? w->req_procs : w->alloc_procs;
		if (w->run < 0) {
			skipped->no_runtime++;
			continue;
		}
		if (procs <= 0 || procs > (int64_t)UINT32_MAX) {
			skipped->no_procs++;
			continue;
		}
		int64_t limit = w->req_time > 0 ? w->req_time : w->run;
		int64_t mins = (limit + 59) / 60;
		if (mins < 1)
			mins = 1;
		if (mins > (int64_t)UINT32_MAX - 1)
			mins = (int64_t)UINT32_MAX - 1;      /* below TIME_INFINITE */
		sim_job_t *j = &jobs[m];
		memset(j, 0, sizeof(*j));
		sched_job_t *r = &j->req;
		r->job_id = (uint32_t)(m + 1);
		r->priority = sched_priority_basic(r->job_id, 0);
		r->submit_time = w->submit;
		r->eligible_time = w->submit;
		r->part = part;
		r->min_nodes = 1;
		r->max_nodes = UINT32_MAX;
		r->ntasks = (uint32_t)procs;
		r->cpus_per_task = 1;
		r->time_limit = (uint32_t)mins;
		r->user_id = w->user >= 0 && w->user <= (int64_t)UINT32_MAX ? (uint32_t)w->user : 0;
		r->assoc = r->qos = -1;
		if (sched_job_validate(s, r)) {
			skipped->too_big++;
			continue;
		}
		j->run = w->run < mins * 60 ? w->run : mins * 60;
		j->user = w->user;
		j->queue = w->queue;
		j->procs = (uint32_t)procs;
		j->trace_id = w->id;
		m++;
	}
	free(order);
	*out = jobs;
	*n = m;
}
