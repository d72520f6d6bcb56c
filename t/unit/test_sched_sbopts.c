/*
 * test_sched_sbopts: the scheduler core's side of --tmp (TmpDisk filter),
 * --mincpus (CPUs per node at least), -O/--overcommit (one task's CPUs
 * per node, any number of tasks), their submit-time validation and
 * refusal details, -N1 with more tasks than a node holds, and
 * sched_will_run (--test-only): the plan's start behind running jobs and
 * higher-priority pending reservations, changing nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "sched_fixture.h"

#include "errors.h"
#include "sched/sched.h"
#include "timefmt.h"
#include "xalloc.h"

#define NOW 5000

static char names[64][16];

static sched_t *mk(uint32_t n, uint32_t cpus)
{
	sched_t *s = fixture_nodes(n, names, "n%02u", cpus, 0);
	fixture_one_part(s, n, 1);
	sched_params_init(&s->params);
	s->params.bf_resolution = 1;
	return s;
}

static void test_tmp(void)
{
	sched_t *s = mk(3, 8);
	s->nodes[2].tmp_disk = 4096;
	sched_job_t j = fixture_job(1, 1, 1);
	j.mem_per_node = 0;
	j.pn_min_tmp = 100;
	is_int(sched_job_validate(s, &j), 0, "tmp: one node has enough: valid");
	sched_alloc_t a = fixture_run1(s, j, NULL);
	is_int(a.nnodes, 1, "tmp: started");
	is_int(a.nnodes ? a.nodes[0] : 99, 2, "tmp: on the node with TmpDisk");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	j.pn_min_tmp = 8192;
	is_int(sched_job_validate(s, &j), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
	       "tmp: more than any node has: refused");
	is_str(sched_job_refusal_detail(s, &j), "Temporary disk specification can not be satisfied",
	       "tmp: Slurm's detail line");
	fixture_destroy(s);
}

static void test_mincpus(void)
{
	sched_t *s = mk(2, 8);
	sched_job_t j = fixture_job(1, 1, 1);
	j.mem_per_node = 0;
	j.pn_min_cpus = 5;
	sched_alloc_t a = fixture_run1(s, j, NULL);
	is_int(a.nnodes, 1, "mincpus: started");
	is_int(a.nnodes ? a.cpus[0] : 0, 5, "mincpus: 5 CPUs for one task");
	/* the next one cannot have 5 CPUs on n00 any more: n01 */
	sched_job_t k = fixture_job(2, 1, 1);
	k.mem_per_node = 0;
	k.pn_min_cpus = 5;
	sched_alloc_t b = fixture_run1(s, k, NULL);
	is_int(b.nnodes ? b.nodes[0] : 99, 1, "mincpus: a node with fewer free CPUs is skipped");
	sched_alloc_release(s, &a);
	sched_alloc_release(s, &b);
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	j.pn_min_cpus = 9;
	is_int(sched_job_validate(s, &j), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
	       "mincpus over the node's CPUs: refused");
	is_str(sched_job_refusal_detail(s, &j), "CPU count per node can not be satisfied",
	       "mincpus: Slurm's detail line");
	fixture_destroy(s);
}

static void test_overcommit(void)
{
	sched_t *s = mk(2, 8);
	sched_job_t j = fixture_job(1, 20, 1);
	j.mem_per_node = 0;
	j.max_nodes = 1;
	is_int(sched_job_validate(s, &j), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
	       "-N1 -n20 on 8-CPU nodes: refused (no node holds 20 tasks)");
	j.overcommit = 1;
	is_int(sched_job_validate(s, &j), 0, "-O -N1 -n20: valid");
	sched_alloc_t a = fixture_run1(s, j, NULL);
	is_int(a.nnodes, 1, "-O: one node");
	is_int(a.nnodes ? a.cpus[0] : 0, 1, "-O: one CPU");
	is_int(a.nnodes ? a.tasks[0] : 0, 20, "-O: all 20 tasks on it");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	/* two nodes: one CPU each (cpus-per-task 2: two each) */
	j.min_nodes = j.max_nodes = 2;
	j.cpus_per_task = 2;
	a = fixture_run1(s, j, NULL);
	is_int(a.nnodes, 2, "-O -N2: two nodes");
	ok(a.nnodes == 2 && a.cpus[0] == 2 && a.cpus[1] == 2, "-O -c2: two CPUs per node");
	ok(a.nnodes == 2 && a.tasks[0] + a.tasks[1] == 20, "-O: the 20 tasks spread");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	/* --exclusive: overcommit does not apply (whole nodes) */
	j.exclusive = 1;
	j.min_nodes = j.max_nodes = 1;
	j.cpus_per_task = 1;
	is_int(sched_job_validate(s, &j), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
	       "-O --exclusive -N1 -n20: refused as without -O");
	fixture_destroy(s);
}

static void test_will_run(void)
{
	sched_t *s = mk(2, 8);
	/* a running job on both nodes, whole, until NOW+600 */
	sched_alloc_t r;
	memset(&r, 0, sizeof(r));
	r.nnodes = 2;
	r.nodes = xmalloc(2 * sizeof(uint32_t));
	r.cpus = xmalloc(2 * sizeof(uint32_t));
	r.mem = xcalloc(2, sizeof(uint64_t));
	r.gpus = xcalloc(2, sizeof(uint64_t));
	r.tasks = xmalloc(2 * sizeof(uint32_t));
	for (uint32_t i = 0; i < 2; i++) {
		r.nodes[i] = i;
		r.cpus[i] = 8;
		r.tasks[i] = 1;
	}
	sched_alloc_commit(s, &r);
	sched_running_t run = { .alloc = &r, .end_time = NOW + 600, .assoc = -1, .qos = -1 };
	s->running = &run;
	s->nrunning = 1;

	sched_job_t probe = fixture_job(9, 4, 1);
	probe.mem_per_node = 0;
	probe.time_limit = 5;
	probe.submit_time = NOW;
	sched_alloc_t a;
	int64_t t = sched_will_run(s, NULL, 0, &probe, NOW, &a);
	ok(t == NOW + 600, "will_run: starts when the running job ends (%lld)", (long long)(t - NOW));
	is_int(a.nnodes, 1, "will_run: one node");
	is_int(a.nnodes ? a.cpus[0] : 0, 4, "will_run: 4 CPUs");
	sched_alloc_free(&a);
	is_int(s->nodes[0].cpus_used, 8, "will_run: node state untouched");

	/* a higher-priority pending job takes both nodes for 10 minutes
	 * after the running one: the probe (2 nodes) comes after it */
	sched_job_t q = fixture_job(3, 16, 1);
	q.mem_per_node = 0;
	q.min_nodes = q.max_nodes = 2;
	q.time_limit = 10;
	q.priority = 200;
	probe.min_nodes = probe.max_nodes = 2;
	probe.ntasks = 16;
	t = sched_will_run(s, &q, 1, &probe, NOW, &a);
	ok(t == NOW + 1200, "will_run: behind the pending reservation (%lld)", (long long)(t - NOW));
	is_int(a.nnodes, 2, "will_run: two nodes");
	sched_alloc_free(&a);
	/* a lower-priority pending job does not hold it back */
	q.priority = 50;
	t = sched_will_run(s, &q, 1, &probe, NOW, &a);
	ok(t == NOW + 600, "will_run: lower priority jobs do not delay it");
	sched_alloc_free(&a);
	/* a held one neither */
	q.priority = 200;
	q.held = 1;
	t = sched_will_run(s, &q, 1, &probe, NOW, &a);
	ok(t == NOW + 600, "will_run: held jobs do not delay it");
	sched_alloc_free(&a);
	/* --begin later than that: from then */
	probe.begin_time = NOW + 3600;
	t = sched_will_run(s, NULL, 0, &probe, NOW, &a);
	ok(t == NOW + 3600, "will_run: from its begin time");
	sched_alloc_free(&a);
	/* more than the partition has: none */
	probe.begin_time = 0;
	probe.min_nodes = probe.max_nodes = 3;
	t = sched_will_run(s, NULL, 0, &probe, NOW, &a);
	ok(t == INT64_MAX && a.nnodes == 0, "will_run: three nodes of two: no start");
	s->running = NULL;
	s->nrunning = 0;
	sched_alloc_release(s, &r);
	sched_alloc_free(&r);
	fixture_destroy(s);
}

int main(void)
{
	test_tmp();
	test_mincpus();
	test_overcommit();
	test_will_run();
	return done_testing();
}
