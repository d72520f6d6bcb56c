/*
 * sched_fixture.h: the parts every scheduler-core unit test builds the
 * same way: n plain nodes, one partition "all" holding them (up, without
 * limits), freeing it all, and running one job through a pass.
 */
#ifndef SLUICE_SCHED_FIXTURE_H
#define SLUICE_SCHED_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"
#include "timefmt.h"
#include "xalloc.h"

/* nalloc partitions are allocated (zeroed); the first is set up. */
static inline void fixture_one_part(sched_t *s, uint32_t n, uint32_t nalloc)
{
	s->nparts = 1;
	s->parts = xcalloc(nalloc, sizeof(sched_part_t));
	s->parts[0].name = "all";
	s->parts[0].nodes = xmalloc(n * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++)
		s->parts[0].nodes[i] = i;
	s->parts[0].nnodes = n;
	s->parts[0].up = 1;
	s->parts[0].max_time = TIME_INFINITE;
	s->parts[0].max_nodes = UINT32_MAX;
}

/* A sched_t with n nodes of cpus/mem (weight 1, no leaf switch, usable),
 * named by fmt ("n%02u") into names (the test's, 16 bytes each, n of
 * them); no partition yet. */
static inline sched_t *fixture_nodes(uint32_t n, char (*names)[16], const char *fmt,
				     uint32_t cpus, uint64_t mem)
{
	sched_t *s = xcalloc(1, sizeof(*s));
	s->nnodes = n;
	s->nodes = xcalloc(n, sizeof(sched_node_t));
	for (uint32_t i = 0; i < n; i++) {
		sched_node_t *nd = &s->nodes[i];
		snprintf(names[i], 16, fmt, i);
		nd->name = names[i];
		nd->cpus = cpus;
		nd->mem = mem;
		nd->weight = 1;
		nd->leaf = -1;
		nd->usable = 1;
	}
	return s;
}

/* Free what fixture_nodes/fixture_one_part and the test allocated (CPU id
 * and sharing tracking included; gpu_cores is the test's). */
static inline void fixture_destroy(sched_t *s)
{
	for (uint32_t i = 0; i < s->nnodes; i++) {
		free(s->nodes[i].cores_used);
		free(s->nodes[i].cpu_share);
	}
	for (uint32_t p = 0; p < s->nparts; p++)
		free(s->parts[p].nodes);
	free(s->parts);
	free(s->nodes);
	free(s);
}

/* A one-node job of ntasks x cpt CPUs and 1024 MB, 60 minutes,
 * priority 100, submitted at 1000 + id. */
static inline sched_job_t fixture_job(uint32_t id, uint32_t ntasks, uint32_t cpt)
{
	sched_job_t j;
	memset(&j, 0, sizeof(j));
	j.job_id = id;
	j.priority = 100;
	j.submit_time = 1000 + id;
	j.min_nodes = 1;
	j.ntasks = ntasks;
	j.cpus_per_task = cpt;
	j.mem_per_node = 1024;
	j.time_limit = 60;
	return j;
}

/* One pass over job j alone: its allocation (caller frees; nnodes 0 if
 * it did not start) and, if reason is set, its reason. */
static inline sched_alloc_t fixture_run1(sched_t *s, sched_job_t j, uint32_t *reason)
{
	sched_decision_t *d = NULL;
	sched_alloc_t a;
	memset(&a, 0, sizeof(a));
	sched_pass(s, &j, 1, 5000, &d);
	if (d[0].start)
		sched_alloc_copy(&a, &d[0].alloc);
	if (reason)
		*reason = d[0].reason;
	sched_decisions_free(d, 1);
	return a;
}

/* For backfill tests: n nodes of cpus CPUs (no memory) in one partition,
 * exact times (bf_resolution 1), a backfill cycle in every pass. */
static inline sched_t *fixture_bf(uint32_t n, char names[][16], uint32_t cpus)
{
	sched_t *s = fixture_nodes(n, names, "n%02u", cpus, 0);
	fixture_one_part(s, n, 2);
	sched_params_init(&s->params);
	s->params.bf_resolution = 1;
	s->run_backfill = 1;
	return s;
}

/* A job of nodes whole nodes' worth of cpus tasks, mins minutes, by
 * user 1000, submitted at submit. */
static inline sched_job_t fixture_bf_job(uint32_t id, uint32_t prio, uint32_t nodes, uint32_t cpus,
					 uint32_t mins, int64_t submit)
{
	sched_job_t j;
	memset(&j, 0, sizeof(j));
	j.job_id = id;
	j.priority = prio;
	j.submit_time = submit;
	j.min_nodes = j.max_nodes = nodes;
	j.ntasks = cpus;
	j.cpus_per_task = 1;
	j.time_limit = mins;
	j.user_id = 1000;
	return j;
}

/* A running job holding whole nodes [first, first+cnt) of s until end
 * (committed to s's node state), for backfill's plan: pass &rj->r in
 * sched_t.running. */
typedef struct fixture_run {
	sched_alloc_t a;
	sched_running_t r;
} run_t;

/* As run_on, holding cpus CPUs of each node (0: all of them). */
static inline void run_on_cpus(sched_t *s, run_t *rj, uint32_t first, uint32_t cnt, uint32_t cpus,
			       int64_t end)
{
	memset(rj, 0, sizeof(*rj));
	rj->a.nnodes = cnt;
	rj->a.nodes = xmalloc(cnt * sizeof(uint32_t));
	rj->a.cpus = xmalloc(cnt * sizeof(uint32_t));
	rj->a.mem = xcalloc(cnt, sizeof(uint64_t));
	rj->a.gpus = xcalloc(cnt, sizeof(uint64_t));
	rj->a.tasks = xmalloc(cnt * sizeof(uint32_t));
	for (uint32_t i = 0; i < cnt; i++) {
		rj->a.nodes[i] = first + i;
		rj->a.cpus[i] = cpus ? cpus : s->nodes[first + i].cpus;
		rj->a.tasks[i] = 1;
	}
	sched_alloc_commit(s, &rj->a);
	rj->r.alloc = &rj->a;
	rj->r.end_time = end;
	rj->r.assoc = rj->r.qos = -1;
}

static inline void run_on(sched_t *s, run_t *rj, uint32_t first, uint32_t cnt, int64_t end)
{
	run_on_cpus(s, rj, first, cnt, 0, end);
}

#endif
