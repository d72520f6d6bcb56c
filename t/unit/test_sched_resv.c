/*
 * test_sched_resv: advance reservations in the scheduler core, driven
 * with no daemon: an active reservation's nodes kept from other jobs, a
 * future one kept from jobs whose time limit would overlap it (and from
 * jobs without a limit), jobs of a reservation confined to its nodes and
 * window (Reason=Reservation before it, a time limit past its end as
 * Slurm 22.05 allows), the reasons of jobs kept off ("May be reserved for
 * other job", "Reserved for maintenance"), backfill's plan around and
 * inside a reservation, --test-only, submit-time validation, preemption,
 * and a randomized check that no started or planned job of an outsider
 * overlaps a reservation on its nodes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "sched_fixture.h"

#include "errors.h"
#include "hostlist.h"
#include "sched/sched.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

#define NOW 1000000

static char names[512][16];

static sched_t *mk(uint32_t n, uint32_t cpus)
{
	return fixture_bf(n, names, cpus);
}

static sched_job_t job(uint32_t id, uint32_t prio, uint32_t nodes, uint32_t cpus, uint32_t mins)
{
	return fixture_bf_job(id, prio, nodes, cpus, mins, NOW - 100);
}

/* Reservation v over nodes [first, first+cnt) (into nodes, the test's). */
static void resv(sched_resv_t *rv, uint32_t *nodes, uint32_t first, uint32_t cnt,
		 int64_t start, int64_t end, uint32_t flags)
{
	for (uint32_t i = 0; i < cnt; i++)
		nodes[i] = first + i;
	memset(rv, 0, sizeof(*rv));
	rv->name = "rs_test";
	rv->nodes = nodes;
	rv->nnodes = cnt;
	rv->start = start;
	rv->end = end;
	rv->flags = flags;
}


/* Decisions indexed by job. */
static sched_decision_t *pass(sched_t *s, sched_job_t *jobs, uint32_t n)
{
	sched_decision_t *d, *byjob = xcalloc(n, sizeof(*byjob));
	sched_pass(s, jobs, n, NOW, &d);
	for (uint32_t i = 0; i < n; i++)
		byjob[d[i].job_index] = d[i];
	free(d);
	return byjob;
}

static void free_dec(sched_t *s, sched_decision_t *d, uint32_t n, int release)
{
	for (uint32_t i = 0; i < n; i++) {
		if (release && d[i].start)
			sched_alloc_release(s, &d[i].alloc);
		free(d[i].reason_detail);
		free(d[i].sched_nodes);
		free(d[i].preempt);
		sched_alloc_free(&d[i].alloc);
	}
	free(d);
}

static int alloc_has(const sched_alloc_t *a, uint32_t x)
{
	for (uint32_t i = 0; i < a->nnodes; i++)
		if (a->nodes[i] == x)
			return 1;
	return 0;
}

static void test_active(void)
{
	sched_t *s = mk(4, 4);
	uint32_t rn[2];
	sched_resv_t rv;
	resv(&rv, rn, 0, 2, NOW - 100, NOW + 3600, 0);
	s->resvs = &rv;
	s->nresvs = 1;
	sched_job_t jobs[3] = {
		job(1, 300, 4, 16, 10),   /* needs the reserved nodes too */
		job(2, 200, 1, 4, 10),    /* fits on a free node */
		job(3, 100, 1, 4, 10),
	};
	sched_decision_t *d = pass(s, jobs, 3);
	ok(!d[0].start && d[0].reason == WAIT_NODE_NOT_AVAIL, "active: a job only reserved nodes could complete pends (ReqNodeNotAvail)");
	is_str(d[0].reason_detail, "May be reserved for other job", "active: with Slurm's detail");
	is_int(d[0].start_time, NOW + 3600, "active: backfill plans it at the reservation's end");
	ok(d[1].start && !alloc_has(&d[1].alloc, 0) && !alloc_has(&d[1].alloc, 1), "active: an outsider starts off the reserved nodes");
	ok(d[2].start && !alloc_has(&d[2].alloc, 0) && !alloc_has(&d[2].alloc, 1), "active: and the next one too (the first does not block the partition)");
	free_dec(s, d, 3, 1);

	/* -w a reserved node */
	uint32_t req = 1;
	sched_job_t w = job(4, 100, 1, 1, 10);
	w.req_nodes = &req;
	w.nreq_nodes = 1;
	d = pass(s, &w, 1);
	ok(!d[0].start && d[0].reason == WAIT_NODE_NOT_AVAIL, "-w a reserved node: ReqNodeNotAvail");
	is_str(d[0].reason_detail, "May be reserved for other job", "-w a reserved node: Slurm's detail");
	free_dec(s, d, 1, 1);

	/* over: its nodes are free again */
	rv.start = NOW - 7200;
	rv.end = NOW;
	sched_job_t all = job(5, 100, 4, 16, 10);
	d = pass(s, &all, 1);
	ok(d[0].start, "a reservation that has ended holds nothing");
	free_dec(s, d, 1, 1);
	fixture_destroy(s);
}

static void test_future(void)
{
	sched_t *s = mk(2, 4);
	uint32_t rn[2];
	sched_resv_t rv;
	resv(&rv, rn, 0, 2, NOW + 1800, NOW + 3600, 0);
	s->resvs = &rv;
	s->nresvs = 1;
	sched_job_t j = job(1, 100, 1, 4, 31);
	sched_decision_t *d = pass(s, &j, 1);
	ok(!d[0].start && d[0].reason == WAIT_NODE_NOT_AVAIL, "future: a 31-minute job overlapping a reservation in 30 minutes pends");
	is_str(d[0].reason_detail, "May be reserved for other job", "future: with Slurm's detail");
	is_int(d[0].start_time, NOW + 3600, "future: planned at the reservation's end");
	free_dec(s, d, 1, 1);
	j.time_limit = 30;
	d = pass(s, &j, 1);
	ok(d[0].start, "future: a 30-minute job ends as it starts: runs");
	free_dec(s, d, 1, 1);

	/* no time limit: overlaps every reservation to come */
	j.time_limit = TIME_INFINITE;
	rv.start = NOW + 200LL * 86400;
	rv.end = NOW + 201LL * 86400;
	d = pass(s, &j, 1);
	ok(!d[0].start && d[0].reason == WAIT_NODE_NOT_AVAIL, "infinite time limit: kept off a reservation 200 days away");
	free_dec(s, d, 1, 1);
	/* the partition's MaxTime stands for a job without -t */
	j.time_limit = TIME_NO_VAL;
	s->parts[0].max_time = 60;
	rv.start = NOW + 1800;
	rv.end = NOW + 3600;
	d = pass(s, &j, 1);
	ok(!d[0].start, "no -t: the partition's MaxTime (60) overlaps a reservation in 30 minutes");
	free_dec(s, d, 1, 1);
	s->parts[0].max_time = 20;
	d = pass(s, &j, 1);
	ok(d[0].start, "no -t: MaxTime 20 ends before it: runs");
	free_dec(s, d, 1, 1);
	s->parts[0].max_time = TIME_INFINITE;
	/* on one of two nodes: the job takes the other */
	rv.nnodes = 1;
	j.time_limit = TIME_INFINITE;
	d = pass(s, &j, 1);
	ok(d[0].start && d[0].alloc.nodes[0] == 1, "infinite job: starts on the node without a reservation");
	free_dec(s, d, 1, 1);
	fixture_destroy(s);
}

static void test_confined(void)
{
	sched_t *s = mk(4, 4);
	uint32_t rn[2];
	sched_resv_t rv;
	resv(&rv, rn, 2, 2, NOW - 100, NOW + 3600, 0);
	s->resvs = &rv;
	s->nresvs = 1;
	sched_job_t jobs[4] = {
		job(1, 400, 1, 4, 10),
		job(2, 300, 2, 8, 10),
		job(3, 200, 1, 4, 60),    /* would delay job 2 */
		job(4, 100, 1, 4, 10),
	};
	jobs[0].resv = jobs[1].resv = jobs[2].resv = 1;
	sched_decision_t *d = pass(s, jobs, 4);
	ok(d[0].start && d[0].alloc.nodes[0] >= 2, "in a reservation: starts on its nodes only");
	ok(!d[1].start && d[1].reason == WAIT_RESOURCES, "a job of the reservation that does not fit in it now: Resources");
	ok(!d[2].start && d[2].reason == WAIT_PRIORITY, "the next job of the reservation: Priority");
	ok(d[3].start && d[3].alloc.nodes[0] < 2, "an outsider is not blocked by the reservation's queue");
	is_int(d[1].start_time, NOW + 600, "the reservation's job is planned when its nodes free");
	free_dec(s, d, 4, 1);

	/* a time limit past the reservation's end: Slurm 22.05 starts it */
	sched_job_t lj = job(5, 100, 2, 8, 600);
	lj.resv = 1;
	d = pass(s, &lj, 1);
	ok(d[0].start && alloc_has(&d[0].alloc, 2) && alloc_has(&d[0].alloc, 3), "a limit past the reservation's end still starts, on its nodes");
	free_dec(s, d, 1, 1);

	/* not started yet: Reason=Reservation, planned at its start */
	rv.start = NOW + 1200;
	rv.end = NOW + 4800;
	sched_job_t fj = job(6, 100, 2, 8, 10);
	fj.resv = 1;
	sched_job_t out = job(7, 50, 1, 4, 10);
	sched_job_t both[2] = { fj, out };
	d = pass(s, both, 2);
	ok(!d[0].start && d[0].reason == WAIT_RESERVATION, "before its start: pending");
	is_str(job_reason_string(d[0].reason), "Reservation", "Reason=Reservation, as Slurm");
	is_int(d[0].start_time, NOW + 1200, "expected start: the reservation's start");
	is_str(d[0].sched_nodes, "n[02-03]", "planned on the reservation's nodes");
	ok(d[1].start, "a short outsider still runs before the reservation");
	free_dec(s, d, 2, 1);
	/* over: never starts */
	rv.start = NOW - 7200;
	rv.end = NOW - 10;
	d = pass(s, &fj, 1);
	ok(!d[0].start && d[0].reason == WAIT_RESERVATION && !d[0].start_time, "after its end: never starts");
	free_dec(s, d, 1, 1);
	/* an index the core was not given */
	fj.resv = 7;
	d = pass(s, &fj, 1);
	ok(!d[0].start && d[0].reason == WAIT_RESERVATION, "an unknown reservation index: pending, never anywhere");
	free_dec(s, d, 1, 1);
	fixture_destroy(s);
}

static void test_maint(void)
{
	sched_t *s = mk(4, 4);
	uint32_t rn[4];
	sched_resv_t rv;
	resv(&rv, rn, 0, 4, NOW + 600, NOW + 3600, SCHED_RESV_F_MAINT);
	s->resvs = &rv;
	s->nresvs = 1;
	sched_job_t j = job(1, 100, 1, 1, 60);
	sched_decision_t *d = pass(s, &j, 1);
	ok(!d[0].start && d[0].reason == WAIT_NODE_NOT_AVAIL, "MAINT over the whole partition: pending");
	is_str(d[0].reason_detail, "Reserved for maintenance", "MAINT over the whole partition: Slurm's detail");
	free_dec(s, d, 1, 1);
	j.time_limit = 10;
	d = pass(s, &j, 1);
	ok(d[0].start, "MAINT: a job done before it starts runs");
	free_dec(s, d, 1, 1);
	/* on part of the partition: Slurm says "May be reserved" */
	rv.nnodes = 2;
	sched_job_t big = job(2, 100, 4, 4, 60);
	d = pass(s, &big, 1);
	ok(!d[0].start && d[0].reason == WAIT_NODE_NOT_AVAIL, "MAINT on part of it: pending");
	is_str(d[0].reason_detail, "May be reserved for other job", "MAINT on part of it: Slurm's words");
	free_dec(s, d, 1, 1);
	fixture_destroy(s);
}

static void test_backfill_plan(void)
{
	sched_t *s = mk(4, 4);
	run_t rj;
	run_on(s, &rj, 2, 2, NOW + 600);
	s->running = &rj.r;
	s->nrunning = 1;
	uint32_t rn[2];
	sched_resv_t rv;
	resv(&rv, rn, 0, 2, NOW + 1200, NOW + 4800, 0);
	s->resvs = &rv;
	s->nresvs = 1;
	sched_job_t jobs[3] = {
		job(1, 300, 4, 16, 10),   /* fits [600, 1200) */
		job(2, 200, 4, 16, 20),   /* does not: after 4800 */
		job(3, 100, 2, 8, 30),    /* two nodes for 30 min */
	};
	sched_decision_t *d = pass(s, jobs, 3);
	is_int(d[0].start_time, NOW + 600, "planned in the gap before the reservation");
	ok(d[1].start_time >= NOW + 4800, "planned after the reservation when the gap is too short");
	ok(d[2].start_time >= NOW + 600 && d[2].start_time != 0, "the 2-node job waits for a window that avoids it");
	free_dec(s, d, 3, 0);

	/* --test-only agrees with the plan */
	sched_alloc_t a;
	int64_t t = sched_will_run(s, NULL, 0, &jobs[0], NOW, &a);
	is_int(t, NOW + 600, "will_run: the gap before the reservation");
	sched_alloc_free(&a);
	t = sched_will_run(s, NULL, 0, &jobs[1], NOW, &a);
	is_int(t, NOW + 4800, "will_run: after the reservation");
	sched_alloc_free(&a);
	sched_job_t in = job(4, 100, 2, 8, 10);
	in.resv = 1;
	t = sched_will_run(s, NULL, 0, &in, NOW, &a);
	is_int(t, NOW + 1200, "will_run: a job of the reservation at its start");
	ok(a.nnodes == 2 && a.nodes[0] == 0 && a.nodes[1] == 1, "will_run: on its nodes");
	sched_alloc_free(&a);
	sched_job_t small = job(5, 100, 1, 4, 10);
	t = sched_will_run(s, NULL, 0, &small, NOW, &a);
	ok(t == NOW && a.nnodes == 1 && a.nodes[0] < 2, "will_run: a short job now, before the reservation");
	sched_alloc_free(&a);
	sched_alloc_release(s, &rj.a);
	sched_alloc_free(&rj.a);
	fixture_destroy(s);
}

static void test_validate(void)
{
	sched_t *s = mk(4, 4);
	uint32_t rn[2];
	sched_resv_t rv;
	resv(&rv, rn, 0, 2, NOW + 100, NOW + 3600, 0);
	s->resvs = &rv;
	s->nresvs = 1;
	sched_job_t j = job(1, 100, 3, 3, 10);
	j.resv = 1;
	is_int(sched_job_validate(s, &j), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, "validate: -N3 in a 2-node reservation is refused (as Slurm)");
	j.min_nodes = j.max_nodes = 2;
	j.ntasks = 8;
	is_int(sched_job_validate(s, &j), 0, "validate: -N2 -n8 fits it");
	j.ntasks = 9;
	is_int(sched_job_validate(s, &j), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, "validate: more CPUs than its nodes have");
	j.resv = 0;
	j.max_nodes = 3;
	is_int(sched_job_validate(s, &j), 0, "validate: -N2-3 -n9 outside it is fine");
	j.resv = 1;
	is_int(sched_job_validate(s, &j), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, "validate: not in it");
	uint32_t req = 3;
	sched_job_t w = job(2, 100, 1, 1, 10);
	w.resv = 1;
	w.req_nodes = &req;
	w.nreq_nodes = 1;
	is_int(sched_job_validate(s, &w), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, "validate: -w a node outside its reservation is refused (as Slurm)");
	req = 1;
	is_int(sched_job_validate(s, &w), 0, "validate: -w one of its nodes is fine");
	fixture_destroy(s);
}

static void test_preempt(void)
{
	/* 2 nodes: node 0 reserved, node 1 runs a preemptable job; a
	 * preemptor that needs 2 nodes may not have node 0 freed for it, and
	 * none is preempted for nothing. */
	sched_t *s = mk(2, 4);
	sched_qos_t q[2];
	memset(q, 0, sizeof(q));
	uint64_t pre = 1u << 1;
	q[0].name = "high";
	q[0].priority = 100;
	q[0].preempt = &pre;
	q[1].name = "low";
	s->qos = q;
	s->nqos = 2;
	s->preempt_mode = LIM_PREEMPT_CANCEL;
	run_t rj;
	run_on(s, &rj, 1, 1, NOW + 6000);
	rj.r.start_time = NOW - 60;
	rj.r.qos = 1;
	rj.r.job_id = 9;
	s->running = &rj.r;
	s->nrunning = 1;
	uint32_t rn[1];
	sched_resv_t rv;
	resv(&rv, rn, 0, 1, NOW - 10, NOW + 3600, 0);
	s->resvs = &rv;
	s->nresvs = 1;
	sched_job_t j = job(1, 100, 2, 8, 10);
	j.qos = 0;
	j.assoc = -1;
	sched_decision_t *d = pass(s, &j, 1);
	ok(!d[0].start && !d[0].npreempt, "preemption frees no reserved node for an outsider");
	free_dec(s, d, 1, 0);
	/* one node: the victim's node is enough, it goes */
	j.min_nodes = j.max_nodes = 1;
	j.ntasks = 4;
	d = pass(s, &j, 1);
	ok(!d[0].start && d[0].npreempt == 1, "a victim on an unreserved node is still preempted");
	free_dec(s, d, 1, 0);
	sched_alloc_release(s, &rj.a);
	sched_alloc_free(&rj.a);
	fixture_destroy(s);
}

/* Random clusters, reservations, running jobs and queues: no outsider
 * started or planned overlaps a reservation window on its nodes; jobs of
 * a reservation start or are planned only on its nodes inside it. */
static void test_random(void)
{
	srand(7);
	int bad = 0, started = 0, planned = 0, inresv = 0;
	for (int round = 0; round < 300; round++) {
		uint32_t nn = 6 + (uint32_t)(rand() % 10);
		sched_t *s = mk(nn, 4);
		s->params.bf_resolution = round % 2 ? 60 : 1;
		uint32_t nr = 1 + (uint32_t)(rand() % 3);
		sched_resv_t rv[3];
		uint32_t rn[3][16];
		for (uint32_t v = 0; v < nr; v++) {
			uint32_t first = (uint32_t)rand() % nn, cnt = 1 + (uint32_t)rand() % 4;
			if (first + cnt > nn)
				cnt = nn - first;
			int64_t st = NOW + 60 * (rand() % 240) - 3600 * (rand() % 2);
			int64_t en = st + 60 * (10 + rand() % 300);
			if (rand() % 10 == 0)
				en = INT64_MAX;
			resv(&rv[v], rn[v], first, cnt, st, en, rand() % 4 == 0 ? SCHED_RESV_F_MAINT : 0);
		}
		s->resvs = rv;
		s->nresvs = nr;
		run_t rj[4];
		sched_running_t rr[4];
		uint32_t nrun = 0;
		for (uint32_t x = 0; x + 1 < nn && nrun < 4; x += 3)
			if (rand() % 2) {
				run_on(s, &rj[nrun], x, 1, NOW + 60 * (1 + rand() % 200));
				rr[nrun] = rj[nrun].r;
				nrun++;
			}
		s->running = rr;
		s->nrunning = nrun;
		sched_job_t jobs[14];
		uint32_t nj = 14;
		for (uint32_t i = 0; i < nj; i++) {
			uint32_t nodes = 1 + (uint32_t)(rand() % 3);
			uint32_t mins = rand() % 8 == 0 ? TIME_INFINITE : 5 + (uint32_t)(rand() % 300);
			jobs[i] = job(i + 1, 1000 - i, nodes, nodes * (1 + rand() % 4), mins);
			if (rand() % 4 == 0)
				jobs[i].resv = 1 + (uint32_t)rand() % nr;
		}
		sched_decision_t *d = pass(s, jobs, nj);
		for (uint32_t i = 0; i < nj; i++) {
			const sched_job_t *j = &jobs[i];
			int64_t T;
			uint32_t *xs = NULL, nx = 0;
			hostlist_t *hl = NULL;
			if (d[i].start) {
				T = NOW;
				xs = d[i].alloc.nodes;
				nx = d[i].alloc.nnodes;
				started++;
			} else if (d[i].sched_nodes && d[i].start_time) {
				T = d[i].start_time;
				hl = hostlist_create(d[i].sched_nodes, NULL);
				planned++;
			} else {
				continue;
			}
			int64_t end = j->time_limit == TIME_INFINITE ? INT64_MAX
				: T + (int64_t)j->time_limit * 60;
			for (uint32_t x = 0; x < nn; x++) {
				int on = xs ? alloc_has(&d[i].alloc, x)
					: hostlist_find(hl, s->nodes[x].name) >= 0;
				if (!on)
					continue;
				for (uint32_t v = 0; v < nr; v++) {
					int in = x >= rv[v].nodes[0] && x < rv[v].nodes[0] + rv[v].nnodes;
					if (j->resv == v + 1) {
						inresv++;
						if (!in || T < rv[v].start || T >= rv[v].end)
							bad++;
						continue;
					}
					if (in && T < rv[v].end && end > rv[v].start && rv[v].end > NOW)
						bad++;
				}
			}
			(void)nx;
			if (hl)
				hostlist_destroy(hl);
		}
		free_dec(s, d, nj, 0);
		for (uint32_t i = 0; i < nrun; i++)
			sched_alloc_free(&rj[i].a);
		fixture_destroy(s);
	}
	printf("# %d started, %d planned, %d node checks of jobs in reservations\n", started, planned, inresv);
	ok(started > 300 && planned > 100 && inresv > 50, "random queues exercised starts, plans and reservations");
	is_int(bad, 0, "no outsider overlaps a reservation on its nodes; reservation jobs stay inside theirs");
}

int main(void)
{
	test_active();
	test_future();
	test_confined();
	test_maint();
	test_backfill_plan();
	test_validate();
	test_preempt();
	test_random();
	return done_testing();
}
