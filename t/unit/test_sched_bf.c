/*
 * test_sched_bf: backfill and topology placement driven through the core:
 * the top blocked job's reservation (StartTime, SchedNodeList, planned
 * nodes), lower-priority jobs started only when they delay no
 * reservation (checked exhaustively on random queues), bf_max_job_test,
 * bf_max_job_user, default_queue_depth, PriorityTier ordering, fewest-leaf
 * spanning, --switches with its wait and TopologyParam=TopoOptional.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "sched_fixture.h"

#include "hostlist.h"
#include "sched/sched.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

#define NOW 1000000

static char names[512][16];

static sched_t *mk(uint32_t n, uint32_t cpus)
{
	return fixture_bf(n, names, cpus);   /* exact times; test_resolution sets 60 */
}

static sched_job_t job(uint32_t id, uint32_t prio, uint32_t nodes, uint32_t cpus, uint32_t mins)
{
	return fixture_bf_job(id, prio, nodes, cpus, mins, NOW - 100);
}

static sched_decision_t *pass(sched_t *s, sched_job_t *jobs, uint32_t n)
{
	sched_decision_t *d, *byjob = xcalloc(n, sizeof(*byjob));
	sched_pass(s, jobs, n, NOW, &d);
	for (uint32_t i = 0; i < n; i++)
		byjob[d[i].job_index] = d[i];
	free(d);
	return byjob;
}

static void free_dec(sched_decision_t *d, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		free(d[i].reason_detail);
		free(d[i].sched_nodes);
		sched_alloc_free(&d[i].alloc);
	}
	free(d);
}

static void test_easy(void)
{
	/* 4 nodes x 4 cpus; nodes 0-1 busy for 100 minutes. */
	sched_t *s = mk(4, 4);
	run_t rj;
	run_on(s, &rj, 0, 2, NOW + 6000);
	s->running = &rj.r;
	s->nrunning = 1;
	sched_job_t jobs[4] = {
		job(1, 300, 4, 16, 60),   /* needs everything: waits for the running job */
		job(2, 200, 1, 4, 60),    /* ends before the reservation: backfills */
		job(3, 100, 1, 4, 200),   /* would delay job 1: must not start */
		job(4, 50, 1, 4, 100),    /* ends exactly at the reservation: starts */
	};
	sched_decision_t *d = pass(s, jobs, 4);
	ok(!d[0].start && d[0].reason == WAIT_RESOURCES, "top job pends on Resources");
	is_int(d[0].start_time, NOW + 6000, "its StartTime is the running job's end");
	is_str(d[0].sched_nodes, "n[00-03]", "SchedNodeList holds its nodes");
	ok(d[1].start && d[1].backfilled, "short job backfilled");
	ok(!d[2].start && d[2].reason == WAIT_PRIORITY, "long job would delay it: Priority");
	ok(d[2].start_time >= NOW + 6000 + 3600, "long job planned after the reservation");
	ok(d[3].start && d[3].backfilled, "job ending at the reservation start backfills");
	ok(s->nodes[2].planned && s->nodes[3].planned && s->nodes[0].planned, "reserved nodes planned");
	ok(s->last.bf_ran && s->last.bf_started == 2, "stats: backfill ran, 2 started");
	free_dec(d, 4);
	sched_alloc_release(s, &rj.a);
	sched_alloc_free(&rj.a);
	fixture_destroy(s);
}

/* A multi-node job that needs more of a partly used node than it has
 * free now: it is planned for when that node's CPUs come back (not left
 * without a plan because the node "fits" now with too few CPUs), so a
 * later job cannot take its nodes meanwhile. */
static void test_partly_used(void)
{
	sched_t *s = mk(2, 4);
	run_t rj;
	run_on_cpus(s, &rj, 0, 1, 2, NOW + 6000);   /* 2 of n00's 4 CPUs */
	s->running = &rj.r;
	s->nrunning = 1;
	sched_job_t jobs[3] = {
		job(1, 300, 2, 8, 60),    /* both nodes whole: at the running end */
		job(2, 200, 1, 4, 200),   /* n01 past that start: must wait */
		job(3, 100, 1, 4, 60),    /* n01 until before it: backfills */
	};
	jobs[0].ntasks_per_node = 4;
	sched_decision_t *d = pass(s, jobs, 3);
	ok(!d[0].start && d[0].reason == WAIT_RESOURCES, "the 2-node job pends on Resources");
	is_int(d[0].start_time, NOW + 6000, "planned when n00's CPUs come back");
	is_str(d[0].sched_nodes, "n[00-01]", "on both nodes");
	ok(!d[1].start, "a job that would hold n01 past that start waits");
	ok(d[2].start && d[2].backfilled, "one that ends before it backfills");
	free_dec(d, 3);
	sched_alloc_release(s, &rj.a);
	sched_alloc_free(&rj.a);
	fixture_destroy(s);

	/* -N2 -n8 without a per-node count: the same (8 tasks need all 8
	 * CPUs), and with 4 nodes the idle ones are taken now instead. */
	s = mk(2, 4);
	run_on_cpus(s, &rj, 0, 1, 2, NOW + 6000);
	s->running = &rj.r;
	s->nrunning = 1;
	sched_job_t j2[1] = { job(1, 300, 2, 8, 60) };
	d = pass(s, j2, 1);
	is_int(d[0].start_time, NOW + 6000, "-N2 -n8: planned when n00's CPUs come back");
	free_dec(d, 1);
	sched_alloc_release(s, &rj.a);
	sched_alloc_free(&rj.a);
	fixture_destroy(s);

	/* n00: 2 CPUs back at +3000, the last one at +6000; -N2 -n6 needs
	 * 3 per node: planned at +3000, not when n00 is whole. */
	s = mk(2, 4);
	run_t r1, r2;
	run_on_cpus(s, &r1, 0, 1, 2, NOW + 3000);
	run_on_cpus(s, &r2, 0, 1, 1, NOW + 6000);
	sched_running_t rr[2] = { r1.r, r2.r };
	s->running = rr;
	s->nrunning = 2;
	sched_job_t j3[1] = { job(1, 300, 2, 6, 60) };
	d = pass(s, j3, 1);
	is_int(d[0].start_time, NOW + 3000, "-N2 -n6: planned when n00 has 3 CPUs free");
	free_dec(d, 1);
	/* and -N2 -n2 starts now on the CPU n00 has free */
	sched_job_t j4[1] = { job(2, 300, 2, 2, 60) };
	d = pass(s, j4, 1);
	ok(d[0].start, "-N2 -n2 starts now");
	free_dec(d, 1);
	sched_alloc_release(s, &r1.a);
	sched_alloc_free(&r1.a);
	sched_alloc_release(s, &r2.a);
	sched_alloc_free(&r2.a);
	fixture_destroy(s);
}

/* bf_resolution=60 (Slurm's default), as measured on Slurm 22.05: a job
 * planned right behind a running job starts at its exact end; a job
 * planned behind a reservation starts where that reservation ends
 * rounded down to the resolution (and never less than one slot after
 * its start). */
static void test_resolution(void)
{
	const int64_t G = (NOW + 6000) / 60 * 60;    /* a minute boundary */
	sched_t *s = mk(4, 4);
	s->params.bf_resolution = 60;
	run_t rj;
	run_on(s, &rj, 0, 2, G + 59);     /* ends 59 s past the boundary */
	s->running = &rj.r;
	s->nrunning = 1;
	sched_job_t jobs[4] = {
		job(1, 300, 4, 16, 60),   /* all nodes, 60 min: planned at G+59 */
		job(2, 200, 4, 16, 3),    /* behind it: G+59+3600 rounded down */
		job(3, 100, 1, 4, 100),   /* ends at NOW+6000 = G+40: backfills */
		job(4, 50, 1, 4, 101),    /* ends at G+100: past it, must wait */
	};
	sched_decision_t *d = pass(s, jobs, 4);
	is_int(d[0].start_time, G + 59, "behind a running job: its exact end");
	is_int(d[1].start_time, G + 3600, "behind a reservation: its end rounded down");
	ok(d[2].start && d[2].backfilled, "a job ending before the reservation backfills");
	ok(!d[3].start, "one ending 41 s after it does not");
	free_dec(d, 4);
	sched_alloc_free(&rj.a);
	fixture_destroy(s);

	/* A 1-minute reservation starting at G+59 ends at G+119, rounded
	 * down G+60: Slurm's "at least one slot after its start rounded
	 * down" (G + 60) as well. */
	s = mk(2, 4);
	s->params.bf_resolution = 60;
	run_on(s, &rj, 0, 2, G + 59);
	s->running = &rj.r;
	s->nrunning = 1;
	sched_job_t j2[2] = { job(1, 300, 2, 8, 1), job(2, 200, 2, 8, 1) };
	d = pass(s, j2, 2);
	is_int(d[0].start_time, G + 59, "1-minute job planned at the running end");
	is_int(d[1].start_time, G + 60, "the next at its end rounded down (G+119 -> G+60)");
	free_dec(d, 2);
	sched_alloc_free(&rj.a);
	fixture_destroy(s);
}

static void test_limits(void)
{
	sched_t *s = mk(4, 4);
	run_t rj;
	run_on(s, &rj, 0, 2, NOW + 6000);
	s->running = &rj.r;
	s->nrunning = 1;
	sched_job_t jobs[3] = { job(1, 300, 4, 16, 60), job(2, 200, 1, 4, 60), job(3, 100, 1, 4, 60) };
	s->params.bf_max_job_test = 2;
	sched_decision_t *d = pass(s, jobs, 3);
	ok(d[1].start && !d[2].start, "bf_max_job_test=2: third job not looked at");
	free_dec(d, 3);
	/* fresh cluster state: release what the pass started */
	sched_alloc_release(s, &rj.a);
	sched_alloc_free(&rj.a);
	fixture_destroy(s);

	s = mk(4, 4);
	run_on(s, &rj, 0, 2, NOW + 6000);
	s->running = &rj.r;
	s->nrunning = 1;
	s->params.bf_max_job_user = 2;
	jobs[2].user_id = 1000;
	d = pass(s, jobs, 3);
	ok(d[1].start && !d[2].start, "bf_max_job_user=2: user's third job skipped");
	free_dec(d, 3);
	sched_alloc_release(s, &rj.a);
	sched_alloc_free(&rj.a);
	fixture_destroy(s);

	s = mk(4, 4);
	run_on(s, &rj, 0, 2, NOW + 6000);
	s->running = &rj.r;
	s->nrunning = 1;
	s->params.bf_max_job_user = 2;
	jobs[2].user_id = 1001;
	d = pass(s, jobs, 3);
	ok(d[1].start && d[2].start, "another user's job is tested");
	free_dec(d, 3);
	sched_alloc_release(s, &rj.a);
	sched_alloc_free(&rj.a);
	fixture_destroy(s);

	/* no backfill cycle due: lower jobs stay on Priority, depth limit */
	s = mk(4, 4);
	s->run_backfill = 0;
	s->params.default_queue_depth = 1;
	sched_job_t q[3] = { job(1, 300, 1, 4, 60), job(2, 200, 1, 4, 60), job(3, 100, 1, 4, 60) };
	d = pass(s, q, 3);
	ok(d[0].start && !d[1].start && d[1].reason == SCHED_REASON_KEEP,
	   "default_queue_depth=1: the second job is left for later");
	ok(!s->last.bf_ran, "no backfill cycle");
	free_dec(d, 3);
	fixture_destroy(s);
}

static void test_tier(void)
{
	sched_t *s = mk(1, 4);
	s->nparts = 2;
	s->parts[1] = s->parts[0];
	s->parts[1].name = "high";
	s->parts[1].nodes = xmalloc(sizeof(uint32_t));
	s->parts[1].nodes[0] = 0;
	s->parts[1].priority_tier = 2;
	sched_job_t jobs[2] = { job(1, 1000, 1, 4, 60), job(2, 1, 1, 4, 60) };
	jobs[1].part = 1;
	sched_decision_t *d = pass(s, jobs, 2);
	ok(d[1].start && !d[0].start, "higher PriorityTier partition goes first");
	free_dec(d, 2);
	fixture_destroy(s);
}

/* Random queues: no backfilled job may overlap in time and nodes with the
 * top blocked job's reservation. */
/* Random queues, with exact times and with bf_resolution=60 (running
 * jobs ending at any second): a backfilled job never holds a node of the
 * top job's reservation past its planned start. */
static void test_never_delays(uint32_t res)
{
	srand(42);
	int bad = 0, reservations = 0, backfilled = 0;
	for (int round = 0; round < 200; round++) {
		uint32_t nn = 8 + (uint32_t)(rand() % 8);
		sched_t *s = mk(nn, 4);
		s->params.bf_resolution = res;
		run_t rj[8];
		uint32_t nr = 0, at = 0;
		while (at < nn && nr < 8) {
			uint32_t cnt = 1 + (uint32_t)(rand() % 3);
			if (at + cnt > nn)
				cnt = nn - at;
			if (rand() % 3) {
				run_on(s, &rj[nr], at, cnt, NOW + 60 * (1 + rand() % 300) +
				       (res > 1 ? rand() % 60 : 0));
				nr++;
			}
			at += cnt;
		}
		sched_running_t rr[8];
		for (uint32_t i = 0; i < nr; i++)
			rr[i] = rj[i].r;
		s->running = rr;
		s->nrunning = nr;
		uint32_t nj = 12;
		sched_job_t jobs[12];
		for (uint32_t i = 0; i < nj; i++) {
			uint32_t nodes = 1 + (uint32_t)(rand() % (i == 0 ? nn : 4));
			jobs[i] = job(i + 1, 1000 - i, nodes, nodes * 4, 10 + (uint32_t)(rand() % 400));
		}
		sched_decision_t *d = pass(s, jobs, nj);
		/* the top blocked job */
		int top = -1;
		for (uint32_t i = 0; i < nj && top < 0; i++)
			if (!d[i].start)
				top = (int)i;
		if (top >= 0 && d[top].sched_nodes) {
			reservations++;
			hostlist_t *hl = hostlist_create(d[top].sched_nodes, NULL);
			int64_t T = d[top].start_time;
			for (uint32_t i = (uint32_t)top + 1; i < nj; i++) {
				if (!d[i].start || !d[i].backfilled)
					continue;
				backfilled++;
				int64_t end = NOW + (int64_t)jobs[i].time_limit * 60;
				if (end <= T)
					continue;
				for (uint32_t k = 0; k < d[i].alloc.nnodes; k++)
					if (hostlist_find(hl, s->nodes[d[i].alloc.nodes[k]].name) >= 0)
						bad++;
			}
			hostlist_destroy(hl);
		}
		free_dec(d, nj);
		for (uint32_t i = 0; i < nr; i++)
			sched_alloc_free(&rj[i].a);
		fixture_destroy(s);
	}
	printf("# bf_resolution=%u: %d reservations, %d backfilled jobs checked\n", res,
	       reservations, backfilled);
	ok(reservations > 50 && backfilled > 20, "random queues exercised backfill");
	is_int(bad, 0, "no backfilled job touches the top reservation before it ends");
}

static void test_topology(void)
{
	/* leaves: 0 = n00-n03 (2 free), 1 = n04-n11 (5 free), 2 = n12-n15 (3 free) */
	sched_t *s = mk(16, 4);
	for (uint32_t i = 0; i < 16; i++)
		s->nodes[i].leaf = i < 4 ? 0 : i < 12 ? 1 : 2;
	run_t rj[3];
	run_on(s, &rj[0], 0, 2, NOW + 600);
	run_on(s, &rj[1], 4, 3, NOW + 600);
	run_on(s, &rj[2], 12, 1, NOW + 600);
	sched_job_t j = job(1, 100, 7, 28, 60);
	sched_decision_t *d = pass(s, &j, 1);
	ok(d[0].start, "7-node job starts");
	int leaves[3] = { 0 };
	for (uint32_t i = 0; i < d[0].alloc.nnodes; i++)
		leaves[s->nodes[d[0].alloc.nodes[i]].leaf] = 1;
	ok(leaves[1] && leaves[0] && !leaves[2], "fewest leaves: the 5-node leaf plus the 2-node leaf");
	sched_alloc_release(s, &d[0].alloc);
	free_dec(d, 1);

	/* --switches=1@10min: wait (Resources) while in the wait, then relax */
	j.req_switch = 1;
	j.wait4switch = 600;
	j.eligible_time = NOW - 60;
	d = pass(s, &j, 1);
	ok(!d[0].start && d[0].reason == WAIT_RESOURCES, "--switches=1 within its wait: Resources");
	free_dec(d, 1);
	j.eligible_time = NOW - 601;
	d = pass(s, &j, 1);
	ok(d[0].start, "after the wait the job starts across leaves");
	sched_alloc_release(s, &d[0].alloc);
	free_dec(d, 1);
	j.min_nodes = j.max_nodes = 3;
	j.ntasks = 12;
	j.eligible_time = NOW;
	d = pass(s, &j, 1);
	ok(d[0].start && s->nodes[d[0].alloc.nodes[0]].leaf == 2, "--switches=1 fits a leaf: best fit leaf 2");
	sched_alloc_release(s, &d[0].alloc);
	free_dec(d, 1);

	/* TopoOptional: jobs without --switches ignore the topology */
	s->params.topo_optional = 1;
	j.req_switch = 0;
	d = pass(s, &j, 1);
	ok(d[0].start && d[0].alloc.nodes[0] == 2 && d[0].alloc.nodes[2] == 7,
	   "TopoOptional: first fit in node order");
	sched_alloc_release(s, &d[0].alloc);
	free_dec(d, 1);
	for (int i = 0; i < 3; i++)
		sched_alloc_free(&rj[i].a);
	fixture_destroy(s);
}

/* A tree deeper than the leaves: a job that no leaf holds goes under the
 * lowest switch that can hold it. 4 leaves of 4 nodes; mid switch 4 =
 * leaves 0,1; mid 5 = leaves 2,3; root 6. Free: leaf 0 2, leaf 1 1,
 * leaf 2 4, leaf 3 3. A 6-node job: largest leaves first over the whole
 * tree would take leaf 2 (4) + leaf 0 (2) across both mids; under mid 5
 * it takes leaves 2 and 3. */
static void test_topology_levels(void)
{
	static const int32_t parent[7] = { 4, 4, 5, 5, 6, 6, -1 };
	static const uint32_t level[7] = { 0, 0, 0, 0, 1, 1, 2 };
	sched_t *s = mk(16, 4);
	for (uint32_t i = 0; i < 16; i++)
		s->nodes[i].leaf = (int)(i / 4);
	s->nswitches = 7;
	s->sw_parent = parent;
	s->sw_level = level;
	run_t rj[3];
	run_on(s, &rj[0], 0, 2, NOW + 600);   /* leaf 0: 2 free */
	run_on(s, &rj[1], 4, 3, NOW + 600);   /* leaf 1: 1 free */
	run_on(s, &rj[2], 15, 1, NOW + 600);  /* leaf 3: 3 free */
	sched_job_t j = job(1, 100, 6, 24, 60);
	sched_decision_t *d = pass(s, &j, 1);
	int in_mid5 = d[0].start && d[0].alloc.nnodes == 6;
	for (uint32_t i = 0; in_mid5 && i < d[0].alloc.nnodes; i++)
		in_mid5 = d[0].alloc.nodes[i] >= 8;
	ok(in_mid5, "6-node job under one mid switch (leaves 2 and 3)");
	sched_alloc_release(s, &d[0].alloc);
	free_dec(d, 1);
	/* 8 nodes: no mid switch holds them (mid 4 has 3, mid 5 has 7): the
	 * root, fewest leaves there. */
	j = job(2, 100, 8, 32, 60);
	d = pass(s, &j, 1);
	ok(d[0].start && d[0].alloc.nnodes == 8, "8-node job spans the mids under the root");
	sched_alloc_release(s, &d[0].alloc);
	free_dec(d, 1);
	for (int i = 0; i < 3; i++)
		sched_alloc_free(&rj[i].a);
	fixture_destroy(s);
}

/* The compat scenario (../shared/compat/slurm-22.05/README.md): 32
 * nodes in leaves comp[001-016] and comp[017-032] under one spine, comp031
 * down and comp032 drained, comp001 holding small jobs. Slurm 22.05 put
 * pretrain (-N16 --exclusive) on comp[002-017] and then finetune (-N8
 * --exclusive) on comp[018-025]. */
static void test_topology_compat(void)
{
	static const int32_t parent[3] = { 2, 2, -1 };
	static const uint32_t level[3] = { 0, 0, 1 };
	sched_t *s = mk(32, 64);
	for (uint32_t i = 0; i < 32; i++)
		s->nodes[i].leaf = (int)(i / 16);
	s->nswitches = 3;
	s->sw_parent = parent;
	s->sw_level = level;
	s->nodes[30].usable = 0;          /* comp031 down */
	s->nodes[31].usable = 0;          /* comp032 drained */
	sched_alloc_t small = { 0 };
	small.nnodes = 1;
	small.nodes = xcalloc(1, sizeof(uint32_t));
	small.cpus = xcalloc(1, sizeof(uint32_t));
	small.mem = xcalloc(1, sizeof(uint64_t));
	small.gpus = xcalloc(1, sizeof(uint64_t));
	small.tasks = xcalloc(1, sizeof(uint32_t));
	small.cpus[0] = 1;
	small.tasks[0] = 1;
	sched_alloc_commit(s, &small);     /* comp001: a 1-CPU job */
	sched_job_t pre = job(4, 100, 16, 16, 60);
	pre.exclusive = 1;
	sched_decision_t *d = pass(s, &pre, 1);
	ok(d[0].start && d[0].alloc.nnodes == 16 && d[0].alloc.nodes[0] == 1 &&
	   d[0].alloc.nodes[15] == 16, "pretrain -N16: comp[002-017], as Slurm");
	sched_job_t ft = job(5, 100, 8, 64, 60);
	ft.exclusive = 1;
	sched_decision_t *e = pass(s, &ft, 1);
	ok(e[0].start && e[0].alloc.nnodes == 8 && e[0].alloc.nodes[0] == 17 &&
	   e[0].alloc.nodes[7] == 24, "finetune -N8: comp[018-025], as Slurm");
	free_dec(d, 1);
	free_dec(e, 1);
	sched_alloc_free(&small);
	fixture_destroy(s);
}

int main(void)
{
	test_topology_compat();
	test_easy();
	test_resolution();
	test_partly_used();
	test_limits();
	test_tier();
	test_never_delays(1);
	test_never_delays(60);
	test_topology();
	test_topology_levels();
	return done_testing();
}
