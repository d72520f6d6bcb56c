/*
 * sched_pass: times one full scheduling pass of the pure scheduler core
 * (multifactor priority of every pending job, the main pass, a backfill
 * cycle and topology-aware placement) on a synthetic GPU cluster, and
 * measures placement quality (leaf switches spanned per multi-node job
 * against the minimum possible).
 *
 * Cluster: N nodes of 64 CPUs, 512 GB and 8 h100 GPUs, 32 nodes per leaf
 * switch, one partition. Before the timed pass about 85% of the GPUs are
 * held by running jobs with staggered end times, so that the main pass
 * blocks and backfill has a timeline to plan in. Queue: a mix of 1-GPU,
 * 8-GPU (whole node), 2-16 node x 8-GPU jobs and CPU-only jobs with time
 * limits from 10 minutes to 2 days, priorities from sched_priority().
 *
 * -L: with accounting limits (AccountingStorageEnforce=limits): 200 users
 * in 20 accounts under the root, every running and pending job in one of
 * two QOS; MaxJobs=160 on the accounts (inherited by their users),
 * GrpTRES=gres/gpu=<4.5% of the GPUs> on each account and QOS
 * MaxTRESPerUser=gres/gpu=360: near what the running jobs hold (about
 * 4.25% of the GPUs per account, 340 per user), so that some jobs stop at
 * a limit and the others are placed.
 *
 * -R: with 20 advance reservations of 1% of the nodes each (consecutive
 * nodes spread over the cluster): 10 active now (ending in 2-6 hours),
 * 10 starting in 1-20 hours (lasting 2-6 hours), two of them MAINT; 5% of
 * the pending jobs are in one of them (the running load is placed first,
 * as running jobs are never touched by a reservation).
 *
 * Usage: sched_pass [-n jobs] [-N nodes] [-t bf_max_job_test] [-q] [-L] [-R]
 * Without -n/-N it runs the grid (10k/100k/1M jobs x 1k/10k nodes) and the
 * quality run. The clock is read here only: the core never sees it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sched/sched.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

#define NOW 2000000000LL

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* CPU seconds of this process (wall time means little on a loaded
 * machine). */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct cluster {
	sched_t s;
	char (*names)[16];
	sched_alloc_t *run;
	sched_running_t *rr;
	uint32_t nrun;
} cluster_t;

static void cluster_init(cluster_t *c, uint32_t nn, uint32_t leaf_size)
{
	memset(c, 0, sizeof(*c));
	sched_t *s = &c->s;
	s->nnodes = nn;
	s->nodes = xcalloc(nn, sizeof(sched_node_t));
	c->names = xmalloc(nn * sizeof(*c->names));
	for (uint32_t i = 0; i < nn; i++) {
		sched_node_t *n = &s->nodes[i];
		snprintf(c->names[i], 16, "gpu%05u", i);
		n->name = c->names[i];
		n->cpus = 64;
		n->mem = 512000;
		n->weight = 1;
		n->ngpus = 8;
		n->ngpu_types = 1;
		strcpy(n->gpu_types[0].type, "h100");
		n->gpu_types[0].count = 8;
		n->leaf = (int)(i / leaf_size);
		n->usable = 1;
	}
	s->nparts = 1;
	s->parts = xcalloc(1, sizeof(sched_part_t));
	s->parts[0].name = "gpu";
	s->parts[0].nodes = xmalloc(nn * sizeof(uint32_t));
	for (uint32_t i = 0; i < nn; i++)
		s->parts[0].nodes[i] = i;
	s->parts[0].nnodes = nn;
	s->parts[0].up = 1;
	s->parts[0].max_time = TIME_INFINITE;
	s->parts[0].max_nodes = UINT32_MAX;
	s->parts[0].priority_job_factor = 1;
	sched_totals(s);
	sched_params_init(&s->params);
	s->run_backfill = 1;
	s->prio.multifactor = 1;
	s->prio.w_age = 1000;
	s->prio.w_jobsize = 100;
	s->prio.w_partition = 1000;
	s->prio.w_fairshare = 10000;
	s->prio.max_age = 7 * 86400;
	s->prio.cluster_nodes = nn;
	s->prio.cluster_cpus = nn * 64;
	s->prio.max_part_job_factor = 1;
	s->prio.parts = s->parts;
	s->prio.nparts = 1;
	sched_prio_parse_tres(&s->prio, "GRES/gpu=100");
}

static void cluster_free(cluster_t *c)
{
	for (uint32_t i = 0; i < c->nrun; i++)
		sched_alloc_free(&c->run[i]);
	free(c->run);
	free(c->rr);
	free(c->s.parts[0].nodes);
	free(c->s.parts);
	free(c->s.nodes);
	free(c->names);
}

/* Hold about 85% of the GPUs with running jobs (1, 2, 4 or 8 GPUs on a
 * node) that end within the next 1-48 hours. */
static void cluster_load(cluster_t *c)
{
	sched_t *s = &c->s;
	uint32_t cap = s->nnodes * 8;
	c->run = xcalloc(cap, sizeof(sched_alloc_t));
	c->rr = xcalloc(cap, sizeof(sched_running_t));
	for (uint32_t x = 0; x < s->nnodes; x++) {
		uint32_t used = 0;
		while (used < 8) {
			uint32_t g = 1u << rnd(4);
			if (used + g > 8)
				g = 8 - used;
			if (rnd(100) < 15 && used)
				break;
			sched_alloc_t *a = &c->run[c->nrun];
			a->nnodes = 1;
			a->nodes = xmalloc(sizeof(uint32_t));
			a->cpus = xmalloc(sizeof(uint32_t));
			a->mem = xmalloc(sizeof(uint64_t));
			a->gpus = xmalloc(sizeof(uint64_t));
			a->tasks = xmalloc(sizeof(uint32_t));
			a->nodes[0] = x;
			a->cpus[0] = 8 * g;
			a->mem[0] = 64000ull * g;
			a->gpus[0] = ((1ull << g) - 1) << used;
			a->tasks[0] = 1;
			sched_alloc_commit(s, a);
			c->rr[c->nrun].alloc = a;
			c->rr[c->nrun].end_time = NOW + 3600 * (1 + (int64_t)rnd(48));
			c->nrun++;
			used += g;
		}
	}
	s->running = c->rr;
	s->nrunning = c->nrun;
}

static sched_job_t *mk_queue(uint32_t nj)
{
	sched_job_t *jobs = xcalloc(nj, sizeof(*jobs));
	static const uint32_t limits[] = { 10, 30, 60, 240, 720, 1440, 2880 };
	for (uint32_t i = 0; i < nj; i++) {
		sched_job_t *j = &jobs[i];
		j->job_id = i + 1;
		j->submit_time = j->eligible_time = NOW - rnd(7 * 86400);
		j->part = 0;
		j->part_job_factor = 1;
		j->user_id = 1000 + rnd(200);
		j->cpus_per_task = 1;
		j->time_limit = limits[rnd(7)];
		uint32_t kind = rnd(100);
		if (kind < 40) {           /* 1 GPU */
			j->min_nodes = j->max_nodes = 1;
			j->ntasks = 8;
			j->gpus_per_node = 1;
			j->mem_per_cpu = 4000;
		} else if (kind < 70) {    /* whole node */
			j->min_nodes = j->max_nodes = 1;
			j->ntasks = 64;
			j->gpus_per_node = 8;
		} else if (kind < 90) {    /* multi-node */
			uint32_t nn = 2u << rnd(4);
			j->min_nodes = j->max_nodes = nn;
			j->ntasks = nn * 8;
			j->ntasks_per_node = 8;
			j->gpus_per_node = 8;
		} else {                   /* CPU only */
			j->min_nodes = j->max_nodes = 1;
			j->ntasks = 1 + rnd(16);
			j->mem_per_cpu = 2000;
		}
	}
	return jobs;
}

/* ---- accounting limits (-L) ---- */

enum { L_ACCTS = 20, L_USERS = 200, L_NA = 1 + L_ACCTS + L_USERS };
static int with_limits;
static int with_resvs;

enum { R_NRESV = 20 };
static sched_resv_t r_resv[R_NRESV];

/* -R: the reservations over s's nodes (node lists malloc'd, r_free). */
static void resvs_init(sched_t *s, sched_job_t *jobs, uint32_t nj)
{
	uint32_t per = s->nnodes / 100 ? s->nnodes / 100 : 1;
	for (uint32_t v = 0; v < R_NRESV; v++) {
		sched_resv_t *rv = &r_resv[v];
		memset(rv, 0, sizeof(*rv));
		rv->name = "rs_bench";
		uint32_t first = (uint32_t)((uint64_t)v * s->nnodes / R_NRESV);
		uint32_t *nodes = xmalloc(per * sizeof(uint32_t));
		rv->nnodes = 0;
		for (uint32_t i = 0; i < per && first + i < s->nnodes; i++)
			nodes[rv->nnodes++] = first + i;
		rv->nodes = nodes;
		if (v < R_NRESV / 2)
			rv->start = NOW - 3600;
		else
			rv->start = NOW + 3600 * (1 + (int64_t)rnd(20));
		rv->end = (v < R_NRESV / 2 ? NOW : rv->start) + 3600 * (2 + (int64_t)rnd(5));
		rv->flags = v % 10 == 9 ? SCHED_RESV_F_MAINT : 0;
	}
	s->resvs = r_resv;
	s->nresvs = R_NRESV;
	for (uint32_t i = 0; i < nj; i++)
		if (rnd(100) < 5)
			jobs[i].resv = 1 + rnd(R_NRESV);
}

static void resvs_free(sched_t *s)
{
	for (uint32_t v = 0; v < s->nresvs; v++)
		free((void *)r_resv[v].nodes);
	s->resvs = NULL;
	s->nresvs = 0;
}
static sched_assoc_t l_assocs[L_NA];
static sched_qos_t l_qos[2];

/* Association of user u (0..L_USERS-1): after the root and accounts. */
static int32_t user_assoc(uint32_t u)
{
	return (int32_t)(1 + L_ACCTS + u);
}

static void limits_init(sched_t *s)
{
	memset(l_assocs, 0, sizeof(l_assocs));
	for (uint32_t a = 0; a < L_NA; a++) {
		sched_assoc_t *as = &l_assocs[a];
		as->id = a + 1;
		lim_set_clear(&as->lim);
		as->uid = UINT32_MAX;
		if (a == 0) {
			as->parent = -1;
		} else if (a <= L_ACCTS) {
			as->parent = 0;
			as->lim.max_jobs = 160;
			as->lim.grp_tres.v[LIM_TRES_GPU] = s->nnodes * 8 / 20 * 18 / 20;
		} else {
			as->parent = (int32_t)(1 + (a - 1 - L_ACCTS) % L_ACCTS);
			as->uid = 1000 + (a - 1 - L_ACCTS);
		}
	}
	memset(l_qos, 0, sizeof(l_qos));
	for (int q = 0; q < 2; q++) {
		lim_set_clear(&l_qos[q].lim);
		l_qos[q].usage_factor = 1.0;
	}
	l_qos[1].lim.max_tres_pu.v[LIM_TRES_GPU] = 360;
	s->assocs = l_assocs;
	s->nassocs = L_NA;
	s->qos = l_qos;
	s->nqos = 2;
	s->lim_enforce = SCHED_LIM_ENFORCE;
}

typedef struct result {
	double prio_s, pass_s;
	uint32_t started, bf_started, reserved, main_depth, bf_depth;
} result_t;

static result_t run_pass(uint32_t nn, uint32_t nj, uint32_t bf_test)
{
	cluster_t c;
	cluster_init(&c, nn, 32);
	cluster_load(&c);
	if (bf_test)
		c.s.params.bf_max_job_test = bf_test;
	sched_job_t *jobs = mk_queue(nj);
	if (with_limits) {
		limits_init(&c.s);
		for (uint32_t i = 0; i < c.nrun; i++) {
			c.rr[i].uid = 1000 + rnd(L_USERS);
			c.rr[i].assoc = user_assoc(c.rr[i].uid - 1000);
			c.rr[i].qos = (int32_t)rnd(2);
		}
		for (uint32_t i = 0; i < nj; i++) {
			jobs[i].assoc = user_assoc(jobs[i].user_id - 1000);
			jobs[i].qos = (int32_t)rnd(2);
		}
		/* The limits' own share of a pass: counting the running jobs
		 * and one check of every pending job. */
		double l0 = cpu_s();
		lim_ctx_t *lc = lim_ctx_new(&c.s, jobs, nj, NOW);
		double l1 = cpu_s();
		uint32_t blocked = 0;
		for (uint32_t i = 0; i < nj; i++)
			blocked += lim_job_check(lc, &jobs[i]) != 0;
		double l2 = cpu_s();
		lim_ctx_free(lc);
		fprintf(stderr, "limits: %u running counted in %.3f CPU s; %u pending checked in "
			"%.3f CPU s (%.0f ns each), %u over a limit\n", c.nrun, l1 - l0, nj, l2 - l1,
			(l2 - l1) * 1e9 / (nj ? nj : 1), blocked);
	}
	if (with_resvs)
		resvs_init(&c.s, jobs, nj);
	result_t r = { 0 };
	double t0 = now_s();
	for (uint32_t i = 0; i < nj; i++)
		jobs[i].priority = sched_priority(&c.s.prio, &jobs[i], NOW, NULL);
	double t1 = now_s();
	sched_decision_t *d;
	double c1 = cpu_s();
	sched_pass(&c.s, jobs, nj, NOW, &d);
	double t2 = now_s();
	/* CPU time too: wall time on a loaded machine says little. */
	fprintf(stderr, "pass: %.3f CPU s%s\n", cpu_s() - c1, with_resvs ? " (20 reservations)" : "");
	r.prio_s = t1 - t0;
	r.pass_s = t2 - t1;
	for (uint32_t i = 0; i < nj; i++) {
		r.started += d[i].start;
		r.reserved += d[i].sched_nodes != NULL;
	}
	r.bf_started = c.s.last.bf_started;
	r.main_depth = c.s.last.main_depth;
	r.bf_depth = c.s.last.bf_depth;
	sched_decisions_free(d, nj);
	free(jobs);
	if (with_resvs)
		resvs_free(&c.s);
	cluster_free(&c);
	return r;
}

/* ---- placement quality ---- */

static uint32_t leaves_of(const sched_t *s, const sched_alloc_t *a, uint8_t *seen, uint32_t nl)
{
	uint32_t cnt = 0;
	memset(seen, 0, nl);
	for (uint32_t i = 0; i < a->nnodes; i++) {
		int l = s->nodes[a->nodes[i]].leaf;
		if (l >= 0 && !seen[l]) {
			seen[l] = 1;
			cnt++;
		}
	}
	return cnt;
}

static int u32_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* Fewest leaves whose idle nodes can hold k whole nodes. */
static uint32_t min_leaves(const sched_t *s, uint32_t k, uint32_t *freecnt, uint32_t nl)
{
	memset(freecnt, 0, nl * sizeof(uint32_t));
	for (uint32_t x = 0; x < s->nnodes; x++)
		if (!s->nodes[x].njobs)
			freecnt[s->nodes[x].leaf]++;
	qsort(freecnt, nl, sizeof(uint32_t), u32_desc);
	uint32_t got = 0, l = 0;
	while (got < k && l < nl)
		got += freecnt[l++];
	return got >= k ? l : 0;
}

/* A stream of whole-node multi-node jobs placed one at a time on a
 * cluster with churn; topo: topology-aware (else first fit). */
static void quality(uint32_t nn, int topo, double *avg, double *avg_min, double *pct_opt,
		    uint32_t *placed)
{
	cluster_t c;
	cluster_init(&c, nn, 32);
	c.s.params.topo_optional = !topo;
	c.s.run_backfill = 0;
	uint32_t nl = (nn + 31) / 32;
	uint8_t *seen = xmalloc(nl);
	uint32_t *fc = xmalloc(nl * sizeof(uint32_t));
	uint32_t live_cap = 4096, nlive = 0;
	sched_alloc_t *live = xcalloc(live_cap, sizeof(*live));
	uint64_t sum = 0, sum_min = 0, opt = 0, n = 0;
	rng = 12345;
	for (uint32_t step = 0; step < 4000; step++) {
		/* churn: end random running jobs while more than 85% of the
		 * nodes are busy (a fragmented, mostly full cluster) */
		uint32_t busy = 0;
		for (uint32_t x = 0; x < nn; x++)
			busy += c.s.nodes[x].njobs != 0;
		while (nlive && (busy * 100 > nn * 85 || nlive >= live_cap)) {
			/* whole-node jobs: one job per node */
			uint32_t w = rnd(nlive);
			busy -= live[w].nnodes;
			sched_alloc_release(&c.s, &live[w]);
			sched_alloc_free(&live[w]);
			live[w] = live[--nlive];
		}
		sched_job_t j;
		memset(&j, 0, sizeof(j));
		j.job_id = step + 1;
		j.submit_time = NOW;
		uint32_t k = rnd(2) ? 1 + rnd(4) : 2 + rnd(40);
		j.min_nodes = j.max_nodes = k;
		j.ntasks = 64 * k;
		j.cpus_per_task = 1;
		j.gpus_per_node = 8;
		j.time_limit = 60;
		uint32_t mn = min_leaves(&c.s, k, fc, nl);
		sched_decision_t *d;
		sched_pass(&c.s, &j, 1, NOW, &d);
		if (d[0].start) {
			if (k > 1) {
				sum += leaves_of(&c.s, &d[0].alloc, seen, nl);
				sum_min += mn;
				opt += leaves_of(&c.s, &d[0].alloc, seen, nl) == mn;
				n++;
			}
			live[nlive++] = d[0].alloc;
			memset(&d[0].alloc, 0, sizeof(d[0].alloc));
		}
		sched_decisions_free(d, 1);
	}
	*avg = n ? (double)sum / n : 0;
	*avg_min = n ? (double)sum_min / n : 0;
	*pct_opt = n ? 100.0 * opt / n : 0;
	*placed = (uint32_t)n;
	for (uint32_t i = 0; i < nlive; i++)
		sched_alloc_free(&live[i]);
	free(live);
	free(seen);
	free(fc);
	cluster_free(&c);
}

static void print_row(uint32_t nn, uint32_t nj, uint32_t bf_test, result_t r)
{
	printf("| %7u | %9u | %6u | %8.3f | %8.3f | %8.3f | %7u | %7u | %8u |\n", nn, nj,
	       bf_test ? bf_test : 500, r.prio_s, r.pass_s, r.prio_s + r.pass_s, r.started,
	       r.bf_started, r.reserved);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	uint32_t nj = 0, nn = 0, bf_test = 0;
	int quality_only = 0, no_quality = 0;
	int opt;
	while ((opt = getopt(argc, argv, "n:N:t:qQLR")) != -1) {
		switch (opt) {
		case 'n': nj = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'N': nn = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 't': bf_test = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'q': quality_only = 1; break;
		case 'Q': no_quality = 1; break;
		case 'L': with_limits = 1; break;
		case 'R': with_resvs = 1; break;
		default:
			fprintf(stderr, "usage: sched_pass [-n jobs] [-N nodes] [-t bf_max_job_test] [-q|-Q] [-L] [-R]\n");
			return 2;
		}
	}
	if (!quality_only) {
		printf("| nodes   | jobs      | bf_max_job_test | priority s | pass s | total s | started | backfilled | reserved |\n");
		printf("|---------|-----------|--------|----------|----------|----------|---------|---------|----------|\n");
		if (nj || nn) {
			print_row(nn ? nn : 10000, nj ? nj : 100000, bf_test,
				  run_pass(nn ? nn : 10000, nj ? nj : 100000, bf_test));
		} else {
			static const uint32_t nodes[] = { 1000, 10000 };
			static const uint32_t queue[] = { 10000, 100000, 1000000 };
			for (int a = 0; a < 2; a++)
				for (int b = 0; b < 3; b++)
					print_row(nodes[a], queue[b], bf_test,
						  run_pass(nodes[a], queue[b], bf_test));
			print_row(10000, 100000, 5000, run_pass(10000, 100000, 5000));
		}
	}
	if (!no_quality && !(nj || nn)) {
		printf("\n| placement | multi-node jobs | leaves per job | minimum possible | at minimum |\n");
		printf("|-----------|-----------------|----------------|------------------|------------|\n");
		for (int topo = 1; topo >= 0; topo--) {
			double avg, mn, pct;
			uint32_t placed;
			quality(1024, topo, &avg, &mn, &pct, &placed);
			printf("| %-9s | %15u | %14.2f | %16.2f | %9.1f%% |\n",
			       topo ? "topology" : "first fit", placed, avg, mn, pct);
		}
	}
	return 0;
}
