/*
 * sim_stats.c: wait, bounded slowdown and utilization of a schedule
 * (sim_stats.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_stats.h"
#include "xalloc.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void sim_summarize(const sim_job_t *jobs, const uint32_t *idx, size_t n,
		   uint64_t total_procs, sim_summary_t *out)
{
	memset(out, 0, sizeof(*out));
	int64_t *w = xmalloc((n ? n : 1) * sizeof(int64_t));
	size_t m = 0;
	double wsum = 0, bsum = 0, used = 0;
	for (size_t k = 0; k < n; k++) {
		const sim_job_t *j = &jobs[idx ? idx[k] : k];
		if (!j->started)
			continue;
		int64_t wait = j->start - j->req.submit_time, run = j->end - j->start;
		if (!m || j->req.submit_time < out->first_submit)
			out->first_submit = j->req.submit_time;
		if (!m || j->end > out->last_end)
			out->last_end = j->end;
		w[m++] = wait;
		wsum += (double)wait;
		double b = (double)(wait + run) / (double)(run > SIM_BSLD_TAU ? run : SIM_BSLD_TAU);
		bsum += b < 1 ? 1 : b;
		used += (double)run * j->procs;
	}
	out->jobs = m;
	if (m) {
		qsort(w, m, sizeof(int64_t), cmp_i64);
		out->wait_mean = wsum / (double)m;
		out->wait_median = m % 2 ? (double)w[m / 2] : ((double)w[m / 2 - 1] + (double)w[m / 2]) / 2;
		size_t r = (95 * m + 99) / 100;      /* nearest rank, 1-based */
		out->wait_p95 = (double)w[(r ? r : 1) - 1];
		out->wait_max = (double)w[m - 1];
		out->bsld_mean = bsum / (double)m;
		int64_t span = out->last_end - out->first_submit;
		if (span > 0 && total_procs)
			out->utilization = used / ((double)total_procs * (double)span);
	}
	free(w);
}

int sim_size_class(uint32_t procs)
{
	return procs <= 1 ? 0 : procs <= 4 ? 1 : procs <= 16 ? 2 : procs <= 64 ? 3 : 4;
}

const char *sim_size_class_name(int c)
{
	static const char *names[SIM_NCLASSES] = { "1", "2-4", "5-16", "17-64", ">64" };
	return c >= 0 && c < SIM_NCLASSES ? names[c] : "?";
}
