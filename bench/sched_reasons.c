/*
 * sched_reasons: the cost of telling pending reasons apart in the main
 * pass (src/sched/sched_fit.c) at 10,000 nodes, 10% drained, 10% busy:
 * (a) jobs that ask more nodes than are usable (ReqNodeNotAvail with the
 * partition's unavailable nodes: each one is judged, none blocks the
 * partition), (b) --nodelist jobs on busy nodes (Resources, the nodes
 * withheld; the next job naming them ReqNodeNotAvail). Prints one line per
 * case: jobs, ms for the pass, the reasons given.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../t/unit/sched_fixture.h"

#include "sched/sched.h"
#include "states.h"
#include "xalloc.h"

#define NODES 10000
static char names[NODES][16];

static double ms_since(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e3 + (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

static void run(uint32_t njobs, int nodelist)
{
	sched_t *s = fixture_nodes(NODES, names, "n%05u", 64, 0);
	fixture_one_part(s, NODES, 1);
	for (uint32_t i = 0; i < NODES; i += 10)
		s->nodes[i].usable = 0;                  /* drained */
	for (uint32_t i = 1; i < NODES; i += 10) {
		s->nodes[i].cpus_used = 64;              /* busy */
		s->nodes[i].njobs = 1;
	}
	sched_job_t *j = xcalloc(njobs, sizeof(*j));
	uint32_t *req = xmalloc(njobs * sizeof(uint32_t));
	for (uint32_t k = 0; k < njobs; k++) {
		j[k] = fixture_job(k + 1, 1, 1);
		j[k].mem_per_node = 0;
		if (!nodelist) {
			j[k].min_nodes = j[k].max_nodes = j[k].ntasks = 9500;
		} else {
			req[k] = 1 + 10 * (k % (NODES / 10));
			j[k].req_nodes = &req[k];
			j[k].nreq_nodes = 1;
		}
	}
	struct timespec a;
	sched_decision_t *d;
	clock_gettime(CLOCK_MONOTONIC, &a);
	sched_pass(s, j, njobs, 2000, &d);
	double ms = ms_since(&a);
	uint32_t cnt[WAIT_REASON_END] = { 0 };
	for (uint32_t k = 0; k < njobs; k++)
		if (d[k].reason < WAIT_REASON_END)
			cnt[d[k].reason]++;
	printf("%-34s %6u jobs %8.1f ms  ", nodelist ? "--nodelist on busy nodes" :
	       "-N 9500 of 9000 usable nodes", njobs, ms);
	for (int r = 0; r < WAIT_REASON_END; r++)
		if (cnt[r])
			printf(" %s=%u", job_reason_string((uint32_t)r), cnt[r]);
	printf("\n");
	sched_decisions_free(d, njobs);
	free(j);
	free(req);
	fixture_destroy(s);
}

int main(void)
{
	run(1000, 0);
	run(10000, 0);
	run(10000, 1);
	return 0;
}
