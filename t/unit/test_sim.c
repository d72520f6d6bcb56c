/*
 * test_sim: the simulator's engine (src/sim/sim.c) on a 4-node machine of
 * one CPU each, with a trace small enough to schedule by hand:
 *
 *   job  submit  procs  run  limit       FCFS start   EASY start
 *   J1      0      2    100  2 min            0            0
 *   J2     10      4     60  1 min          100          100
 *   J3     20      1     50  1 min          160           20 (ends 70 < 120)
 *   J4     30      2    300  5 min          160          160
 *   J5     40      1     30  1 min          160           40 (ends 70 < 120)
 *
 * FCFS: J2 needs the whole machine and blocks everything behind it until
 * J1 ends at 100; J3-J5 start when J2 ends at 160. EASY: J2 holds the
 * machine from J1's expected end (0 + 2 min = 120); J3 and J5 fit on the
 * free nodes before it and start at once; J4 (5 min) would not, and
 * waits for J2. Plus the metrics of the FCFS schedule, and determinism.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "sim/sim.h"
#include "sim/sim_stats.h"
#include "sim/swf.h"

static const char trace[] =
	"; MaxNodes: 4\n"
	"1  0 -1 100 2 -1 -1 2 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"2 10 -1  60 4 -1 -1 4  60 -1 1 2 -1 -1 -1 -1 -1 -1\n"
	"3 20 -1  50 1 -1 -1 1  60 -1 1 1 -1 -1 -1 -1 -1 -1\n"
	"4 30 -1 300 2 -1 -1 2 300 -1 1 2 -1 -1 -1 -1 -1 -1\n"
	"5 40 -1  30 1 -1 -1 1  30 -1 1 1 -1 -1 -1 -1 -1 -1\n";

/* Simulate the trace text on nodes x 1 CPU; caller frees *jobs. */
static size_t simulate(const char *text, uint32_t nodes, int backfill, sim_job_t **jobs,
		       sim_counts_t *cnt)
{
	swf_t t;
	char err[256];
	if (swf_parse(text, strlen(text), &t, err, sizeof(err)))
		printf("# %s\n", err);
	sched_t s;
	sim_machine_bare(&s, nodes, 1, 0, backfill);
	size_t n;
	sim_skipped_t sk;
	sim_jobs_from_swf(&t, &s, 0, jobs, &n, &sk);
	sim_run(&s, *jobs, n, cnt, NULL, NULL);
	for (uint32_t i = 0; i < s.nnodes; i++)
		if (s.nodes[i].cpus_used || s.nodes[i].njobs)
			printf("# node %u still holds %u CPUs\n", i, s.nodes[i].cpus_used);
	sim_machine_free(&s);
	swf_free(&t);
	return n;
}

static void check_starts(const sim_job_t *jobs, size_t n, const int64_t *want, const char *what)
{
	is_int(n, 5, "%s: five jobs", what);
	for (size_t i = 0; i < n && i < 5; i++) {
		ok(jobs[i].started, "%s: J%zu started", what, i + 1);
		is_int(jobs[i].start, want[i], "%s: J%zu starts at %lld", what, i + 1, (long long)want[i]);
		is_int(jobs[i].end, jobs[i].start + jobs[i].run, "%s: J%zu ends after its run", what, i + 1);
	}
}

/* A larger pseudo-random trace (fixed seed) as SWF text. */
static char *random_trace(unsigned n)
{
	size_t cap = (size_t)n * 80 + 64, len = 0;
	char *b = malloc(cap);
	uint64_t x = 42;
	int64_t t = 0;
	for (unsigned i = 1; i <= n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		t += (int64_t)(x >> 59);
		unsigned procs = 1 + (unsigned)((x >> 20) % 16), run = 1 + (unsigned)((x >> 30) % 900);
		unsigned req = run + (unsigned)((x >> 40) % 600);
		len += (size_t)snprintf(b + len, cap - len,
					"%u %lld -1 %u %u -1 -1 %u %u -1 1 %u -1 -1 -1 -1 -1 -1\n", i,
					(long long)t, run, procs, procs, req, 1 + (unsigned)((x >> 50) % 5));
	}
	return b;
}

int main(void)
{
	sim_job_t *jobs;
	sim_counts_t cnt;
	size_t n = simulate(trace, 4, 0, &jobs, &cnt);
	static const int64_t fcfs[5] = { 0, 100, 160, 160, 160 };
	check_starts(jobs, n, fcfs, "FCFS");
	is_int(cnt.bf_cycles, 0, "FCFS: no backfill cycle");
	sim_summary_t m;
	sim_summarize(jobs, NULL, n, 4, &m);
	is_int(m.jobs, 5, "summary: 5 jobs");
	ok(fabs(m.wait_mean - 96.0) < 1e-9, "wait mean (0+90+140+130+120)/5 = 96 (%g)", m.wait_mean);
	ok(m.wait_median == 120.0, "wait median 120 (%g)", m.wait_median);
	ok(m.wait_p95 == 140.0, "wait p95 (nearest rank 5 of 5) 140 (%g)", m.wait_p95);
	ok(m.wait_max == 140.0, "wait max 140");
	/* bsld: 100/100=1, 150/60=2.5, 190/50=3.8, 430/300, 150/30=5 */
	ok(fabs(m.bsld_mean - (1 + 2.5 + 3.8 + 430.0 / 300 + 5) / 5) < 1e-9, "bounded slowdown mean (%g)",
	   m.bsld_mean);
	/* 2x100 + 4x60 + 1x50 + 2x300 + 1x30 = 1120 CPU-s over 4 CPUs x 460 s */
	ok(fabs(m.utilization - 1120.0 / (4 * 460)) < 1e-9, "utilization 1120/1840 (%g)", m.utilization);
	free(jobs);

	n = simulate(trace, 4, 1, &jobs, &cnt);
	static const int64_t easy[5] = { 0, 100, 20, 160, 40 };
	check_starts(jobs, n, easy, "EASY");
	ok(jobs[2].backfilled && jobs[4].backfilled, "EASY: J3 and J5 were started by backfill");
	ok(!jobs[0].backfilled && !jobs[1].backfilled, "EASY: J1 and J2 by the main pass");
	ok(cnt.bf_cycles > 0, "EASY: backfill cycles ran");
	free(jobs);

	/* bounded slowdown's tau: a 2 s job that waited 18 s counts 20/10 */
	{
		sim_job_t j;
		memset(&j, 0, sizeof(j));
		j.started = 1;
		j.req.submit_time = 0;
		j.start = 18;
		j.end = 20;
		j.procs = 1;
		sim_summarize(&j, NULL, 1, 1, &m);
		ok(m.bsld_mean == 2.0, "bsld of a short job is over tau = 10 s (%g)", m.bsld_mean);
	}

	/* Determinism: the same trace twice gives the same schedule. */
	char *big = random_trace(400);
	for (int bf = 0; bf <= 1; bf++) {
		sim_job_t *a, *b;
		sim_counts_t ca, cb;
		size_t na = simulate(big, 16, bf, &a, &ca), nb = simulate(big, 16, bf, &b, &cb);
		int same = na == nb && na == 400 && ca.passes == cb.passes && ca.bf_cycles == cb.bf_cycles;
		size_t started = 0;
		for (size_t i = 0; same && i < na; i++) {
			same = a[i].start == b[i].start && a[i].end == b[i].end &&
			       a[i].nnodes == b[i].nnodes && a[i].backfilled == b[i].backfilled;
			started += a[i].started;
		}
		ok(same, "%s: two runs of a 400-job trace give the same schedule", bf ? "EASY" : "FCFS");
		is_int(started, 400, "%s: every job of it ran", bf ? "EASY" : "FCFS");
		if (!bf) {
			/* FCFS never starts a job before one submitted earlier */
			int order = 1;
			for (size_t i = 1; i < na; i++)
				order &= a[i].start >= a[i - 1].start;
			ok(order, "FCFS: starts are in submit order");
		}
		free(a);
		free(b);
	}
	free(big);
	return done_testing();
}
