/*
 * sim_stats: the standard metrics of a simulated schedule.
 *
 * Wait = start - submit. Bounded slowdown (Feitelson's, tau = 10 s):
 * max(1, (wait + run) / max(run, tau)). Utilization: processor-seconds
 * used over processors x (last end - first submit). Percentiles are
 * nearest-rank (the smallest wait with at least p% of waits at or below
 * it); the median of an even count is the mean of the middle two.
 */
#ifndef SLUICE_SIM_STATS_H
#define SLUICE_SIM_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/sim.h"

#define SIM_BSLD_TAU 10

typedef struct sim_summary {
	size_t jobs;               /* started jobs counted */
	double utilization;        /* of total_procs over the span, [0,1] */
	double wait_mean, wait_median, wait_p95, wait_max;   /* seconds */
	double bsld_mean;
	int64_t first_submit, last_end;
} sim_summary_t;

/* The metrics of jobs[idx[0..n)] (idx NULL: jobs[0..n)); jobs that never
 * started are left out. */
void sim_summarize(const sim_job_t *jobs, const uint32_t *idx, size_t n,
		   uint64_t total_procs, sim_summary_t *out);

/* Size classes by processors: 1, 2-4, 5-16, 17-64, >64. */
#define SIM_NCLASSES 5
int sim_size_class(uint32_t procs);
const char *sim_size_class_name(int c);

#endif
