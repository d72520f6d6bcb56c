/*
 * sched_backfill.c: the scheduler core's backfill cycle (sched/backfill,
 * run by sched_pass when the caller says one is due).
 *
 * A timeline per node of the resources coming back (running jobs end at
 * start + time limit) and taken by reservations. In priority order, up to
 * bf_max_job_test jobs (bf_max_job_user per user) get their earliest start
 * within bf_window: a job whose start is now and whose whole run fits
 * around every reservation made so far starts (Scheduler=Backfill); any
 * other gets a reservation (StartTime, SchedNodeList, nodes planned) that
 * later jobs cannot touch. So a lower-priority job never delays a higher
 * one's planned start (the conservative backfill Slurm does, limited by
 * bf_max_job_test). Advance reservations are per job, not in the shared
 * timeline: a start on a node is moved past every reservation of others
 * the run would overlap, and a job in a reservation starts on its nodes
 * within its window (sched_resv_next_start).
 *
 * Performance: backfill scans each node's short event list once per
 * tested job and sorts candidates only when the earliest-ready nodes are
 * not enough (bench/sched_pass.c, docs/benchmarks.md).
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"
#include "sched_int.h"

#include "hostlist.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"
/* ---- backfill: a per-node timeline of future changes ---- */

/* One change of a node's free resources at time t: sign +1 gives back
 * (a running job ends, a reservation ends), -1 takes (a reservation
 * starts). */
typedef struct tl_ev {
	int64_t t;
	int32_t sign;
	uint32_t cpus;
	uint64_t mem;
	uint64_t gpus;           /* mask */
} tl_ev_t;

typedef struct tl_node {
	tl_ev_t *ev;
	uint32_t n, cap;
} tl_node_t;

typedef struct bf {
	tl_node_t *tl;           /* per node */
	uint32_t nev;            /* total events (sdiag table size) */
	int64_t horizon;         /* now + bf_window */
	int64_t res;             /* bf_resolution, seconds (>= 1) */
} bf_t;

/* bf_resolution, as Slurm's: a reservation ends on its grid (rounded
 * down, but at least one slot after its start), so jobs planned behind
 * another planned job start on a boundary and the timeline has fewer
 * distinct times. Running jobs' ends and reservation starts stay exact
 * (a job planned right behind a running one starts at its EndTime, as
 * in Slurm), and so does the window a candidate needs: a job backfilled
 * now never runs into a reservation. */
static int64_t bf_floor(const bf_t *b, int64_t t)
{
	return b->res > 1 ? t - ((t % b->res) + b->res) % b->res : t;
}

static int64_t bf_resv_end(const bf_t *b, int64_t start, int64_t end)
{
	int64_t e = bf_floor(b, end), min = bf_floor(b, start) + b->res;
	if (e < min)
		e = min;
	return e > start ? e : start + 1;
}

static void tl_add(bf_t *b, uint32_t x, int64_t t, int32_t sign, uint32_t cpus,
		   uint64_t mem, uint64_t gpus)
{
	tl_node_t *tn = &b->tl[x];
	if (tn->n == tn->cap) {
		tn->cap = tn->cap ? tn->cap * 2 : 4;
		tn->ev = xrealloc(tn->ev, tn->cap * sizeof(tl_ev_t));
	}
	/* Keep sorted by time; at equal times give back before taking. */
	uint32_t i = tn->n;
	while (i > 0 && (tn->ev[i - 1].t > t || (tn->ev[i - 1].t == t && tn->ev[i - 1].sign < sign))) {
		tn->ev[i] = tn->ev[i - 1];
		i--;
	}
	tn->ev[i] = (tl_ev_t){ t, sign, cpus, mem, gpus };
	tn->n++;
	b->nev++;
}

typedef struct nfree {
	uint32_t cpus;
	uint64_t mem;
	uint64_t gpus;
} nfree_t;

static void nfree_apply(nfree_t *f, const tl_ev_t *e)
{
	if (e->sign > 0) {
		f->cpus += e->cpus;
		f->mem += e->mem;
		f->gpus |= e->gpus;
	} else {
		f->cpus = f->cpus > e->cpus ? f->cpus - e->cpus : 0;
		f->mem = f->mem > e->mem ? f->mem - e->mem : 0;
		f->gpus &= ~e->gpus;
	}
}

static void nfree_min(nfree_t *m, const nfree_t *f)
{
	if (f->cpus < m->cpus)
		m->cpus = f->cpus;
	if (f->mem < m->mem)
		m->mem = f->mem;
	m->gpus &= f->gpus;
}

/* Earliest start >= now (among now and the times resources come back)
 * at which node x can hold the job for dur seconds, with the resources
 * free over the whole window in *win; INT64_MAX if none before the
 * horizon. Only starts >= not_before are considered (the caller checks
 * a given time T by passing not_before = T and comparing). A node of a
 * multi-node job fits when it holds one task, or, with full, when it
 * offers all the job could take there (full_cap tasks, full_gf GPUs). */
static int64_t node_earliest_of(const ctx_t *c, const bf_t *b, uint32_t x, const sched_job_t *j,
				const req_t *r, int64_t dur, int64_t not_before, nfree_t *win,
				uint32_t *cap, uint32_t *gfree, int full, uint32_t full_cap,
				uint32_t full_gf)
{
	const sched_node_t *n = &c->s->nodes[x];
	const tl_node_t *tn = &b->tl[x];
	nfree_t f = {
		sched_node_cpus_avail(n, r),
		sched_node_mem_avail(n, r),
		sched_gpu_mask(n, r->gtype) & ~n->gpus_used,
	};
	uint32_t k = 0;
	int64_t t = not_before > c->now ? not_before : c->now;
	/* any reservation to honour here (most nodes have none) */
	int resv = j->resv || (c->rv_off && c->rv_off[x] != c->rv_off[x + 1]);
	for (;;) {
		/* state at t: apply events <= t */
		while (k < tn->n && tn->ev[k].t <= t)
			nfree_apply(&f, &tn->ev[k++]);
		if (t > b->horizon)
			return INT64_MAX;
		/* Advance reservations: not before its own starts, past the
		 * others its run would overlap (sched_resv.c). */
		int64_t rt = resv ? sched_resv_next_start(c, j, x, t, r->rv_dur) : t;
		if (rt != t) {
			if (rt == INT64_MAX)
				return INT64_MAX;
			t = rt;
			continue;
		}
		{
			nfree_t m = f;
			uint32_t q = k;
			int64_t end = t + dur;
			nfree_t g = f;
			while (q < tn->n && tn->ev[q].t < end) {
				nfree_apply(&g, &tn->ev[q]);
				if (tn->ev[q].sign < 0)
					nfree_min(&m, &g);
				q++;
			}
			m.gpus &= sched_gpu_mask(n, r->gtype);
			if (r->mem_free_all)
				m.mem = n->mem;
			uint32_t gf = 0;
			uint32_t cp = sched_cap_free(n, j, r, m.cpus, m.mem, m.gpus, &gf);
			/* A one-node job needs all of it here. */
			int fits = r->max_nodes == 1 ? cp >= r->ntasks && gf >= r->gpj
				   : full ? cp >= full_cap && gf >= full_gf : cp > 0;
			if (fits) {
				*win = m;
				*cap = cp;
				*gfree = gf;
				return t;
			}
		}
		/* next time something comes back */
		while (k < tn->n && tn->ev[k].sign < 0)
			nfree_apply(&f, &tn->ev[k++]);
		if (k >= tn->n)
			return INT64_MAX;
		t = tn->ev[k].t;
	}
}

static int64_t node_earliest(const ctx_t *c, const bf_t *b, uint32_t x, const sched_job_t *j,
			     const req_t *r, int64_t dur, int64_t not_before, nfree_t *win,
			     uint32_t *cap, uint32_t *gfree)
{
	return node_earliest_of(c, b, x, j, r, dur, not_before, win, cap, gfree, 0, 0, 0);
}

/* Later start times bf_plan keeps to try, at most: where a node a
 * reservation takes is free again, where a partly used node offers a
 * multi-node job all it could take. */
#define BF_EXTRA_TIMES 16

/* Add t to the extra times xt (n of them), keeping the earliest. */
static void xt_add(int64_t *xt, uint32_t *n, int64_t t)
{
	uint32_t hi = 0;
	for (uint32_t e = 0; e < *n; e++) {
		if (xt[e] == t)
			return;
		if (xt[e] > xt[hi])
			hi = e;
	}
	if (*n < BF_EXTRA_TIMES)
		xt[(*n)++] = t;
	else if (t < xt[hi])
		xt[hi] = t;
}

typedef struct bcand {
	int64_t t;
	uint32_t node;
} bcand_t;

static int bcand_cmp(const void *a, const void *b)
{
	const bcand_t *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int64_t job_duration(const sched_job_t *j, const sched_part_t *p)
{
	uint32_t tl = j->time_limit;
	if (tl == TIME_NO_VAL || !tl)
		tl = p->max_time ? p->max_time : TIME_INFINITE;
	if (tl == TIME_INFINITE || tl == TIME_NO_VAL)
		return (int64_t)365 * 86400;
	return (int64_t)tl * 60;
}

/* Plan job j: earliest start T and nodes (an allocation built against
 * the resources free over [T, T+dur)). Returns T or INT64_MAX. */
static int64_t bf_plan(ctx_t *c, bf_t *b, const sched_job_t *j, const req_t *r,
		       bcand_t *bc, nfree_t *wins, sched_alloc_t *a)
{
	sched_t *s = c->s;
	part_ctx_t *pc = &c->parts[j->part];
	const sched_part_t *p = &s->parts[j->part];
	int64_t dur = job_duration(j, p);
	for (uint32_t i = 0; i < j->nexc_nodes; i++)
		if (j->exc_nodes[i] < s->nnodes)
			c->mark[j->exc_nodes[i]] = 1;
	for (uint32_t i = 0; i < j->nreq_nodes; i++)
		if (j->req_nodes[i] < s->nnodes)
			c->mark[j->req_nodes[i]] |= 2;
	uint32_t nb = 0, nxt = 0;
	int64_t res = INT64_MAX, tmin = INT64_MAX, xt[BF_EXTRA_TIMES];
	/* A one-node job that fits now on a node takes the first such node
	 * (first fit, as the main pass): no need to look further. */
	int one = r->max_nodes == 1 && !j->nreq_nodes;
	/* A multi-node job's share of a node: its tasks per node, or its
	 * tasks and GPUs spread evenly over its nodes. */
	int multi = r->max_nodes != 1 && r->min_nodes;
	uint32_t even = 0, geven = 0;
	if (multi) {
		even = r->tpn ? r->tpn : (r->ntasks + r->min_nodes - 1) / r->min_nodes;
		geven = (r->gpj + r->min_nodes - 1) / r->min_nodes;
	}
	/* A job in a reservation looks at its nodes only. */
	uint32_t nown = 0;
	uint32_t *own = sched_resv_part_order(c, j, &nown);
	const uint32_t *order = own ? own : pc->order;
	uint32_t norder = own ? nown : pc->n;
	for (uint32_t i = 0; i < norder; i++) {
		uint32_t x = order[i];
		const sched_node_t *nd = &s->nodes[x];
		if ((c->mark[x] & 1) || !nd->usable)
			continue;
		/* The plan does not follow users: a node this job may not
		 * share now is left out of it. */
		if (sched_user_blocked(nd, j, r))
			continue;
		if (j->nreq_nodes && !(c->mark[x] & 2) && j->nreq_nodes >= r->max_nodes)
			continue;
		if (j->features && !sched_features_match(nd->features, j->features))
			continue;
		nfree_t w;
		uint32_t cap, gf;
		int64_t t = node_earliest(c, b, x, j, r, dur, c->now, &w, &cap, &gf);
		if (t == INT64_MAX) {
			if (c->mark[x] & 2)
				goto out;    /* a required node never fits */
			continue;
		}
		bc[nb++] = (bcand_t){ t, x };
		if (t < tmin)
			tmin = t;
		if (one && t == c->now)
			break;
		/* A multi-node job may need more of this node than it has
		 * at t (its tasks per node, or its tasks spread evenly over
		 * its nodes): the time the node offers that much (or all it
		 * can) is a start to try as well, though no node becomes
		 * ready then. */
		if (!multi || (cap >= even && gf >= geven))
			continue;
		uint32_t fgf = 0;
		uint32_t fcap = sched_cap_empty(nd, j, r, &fgf);
		fcap = even < fcap ? even : fcap;
		fgf = geven < fgf ? geven : fgf;
		if (fcap && (cap < fcap || gf < fgf)) {
			int64_t tf = node_earliest_of(c, b, x, j, r, dur, t, &w, &cap, &gf, 1, fcap, fgf);
			if (tf != INT64_MAX && tf > t)
				xt_add(xt, &nxt, tf);
		}
	}
	if (!nb)
		goto out;
	/* Sorting every candidate is the costly part: when the nodes ready
	 * at the earliest time are enough, they come first and the rest
	 * stays unsorted (only tried if those fail). */
	uint32_t at_min = 0;
	for (uint32_t i = 0; i < nb; i++)
		if (bc[i].t == tmin) {
			bcand_t t = bc[at_min];
			bc[at_min++] = bc[i];
			bc[i] = t;
		}
	if (at_min < r->min_nodes || j->nreq_nodes)
		qsort(bc, nb, sizeof(*bc), bcand_cmp);
	else
		qsort(bc, at_min, sizeof(*bc), bcand_cmp);
	int sorted = at_min < r->min_nodes || j->nreq_nodes;
	/* Try the distinct candidate times in order (a bounded number).
	 * With advance reservations a node free now may be taken later
	 * and free again after: the later times it could start at (seen
	 * while checking an earlier T) are candidates too (xt). */
	uint32_t tries = 0;
	int64_t prev = INT64_MIN;
	for (uint32_t i = 0; (i < nb || nxt) && tries < 32; ) {
		if (!sorted && (i >= at_min || nxt)) {
			qsort(bc + at_min, nb - at_min, sizeof(*bc), bcand_cmp);
			sorted = 1;
		}
		int64_t T = i < nb ? bc[i].t : INT64_MAX;
		for (uint32_t e = 0; e < nxt; ) {
			if (xt[e] <= prev) {
				xt[e] = xt[--nxt];
				continue;
			}
			if (xt[e] < T)
				T = xt[e];
			e++;
		}
		if (T == INT64_MAX)
			break;
		prev = T;
		while (i < nb && bc[i].t <= T)
			i++;
		/* Not enough nodes become ready by T: no need to check. */
		if (i < r->min_nodes)
			continue;
		tries++;
		uint32_t n = 0, nreq = 0;
		uint64_t tasks = 0, gpus = 0;
		/* required nodes first */
		for (int pass = 0; pass < 2; pass++)
			for (uint32_t q = 0; q < i; q++) {
				uint32_t x = bc[q].node;
				int req = (c->mark[x] & 2) != 0;
				if (req != (pass == 0))
					continue;
				nfree_t w;
				uint32_t cap, gf;
				int64_t t = node_earliest(c, b, x, j, r, dur, T, &w, &cap, &gf);
				if (t != T) {
					if (c->rv_off && t != INT64_MAX)
						xt_add(xt, &nxt, t);
					continue;
				}
				wins[n] = w;
				c->cands[n++] = (cand_t){ x, cap, gf, w.gpus };
				tasks += cap;
				gpus += gf;
				nreq += req;
			}
		if (nreq < j->nreq_nodes && j->nreq_nodes)
			continue;
		if (n < r->min_nodes || !sched_enough(r, n, tasks, gpus))
			continue;
		uint32_t got = sched_place(c, j, r, c->cands, n, nreq);
		if (!got)
			continue;
		if (sched_switches_refused(c, j, c->cands, got))
			continue;
		sched_build_alloc(s, j, r, c->cands, got, a);
		res = T;
		break;
	}
out:
	free(own);
	for (uint32_t i = 0; i < j->nexc_nodes; i++)
		if (j->exc_nodes[i] < s->nnodes)
			c->mark[j->exc_nodes[i]] = 0;
	for (uint32_t i = 0; i < j->nreq_nodes; i++)
		if (j->req_nodes[i] < s->nnodes)
			c->mark[j->req_nodes[i]] = 0;
	return res;
}

static void bf_add_alloc(bf_t *b, const sched_alloc_t *a, int64_t from, int64_t to)
{
	for (uint32_t i = 0; i < a->nnodes; i++) {
		uint32_t ids = sched_alloc_node_ids(a, i);
		if (from != INT64_MIN)
			tl_add(b, a->nodes[i], from, -1, ids, a->mem[i], a->gpus[i]);
		tl_add(b, a->nodes[i], to, +1, ids, a->mem[i], a->gpus[i]);
	}
}

/* When a running job's resources come back in the plan: its expected
 * end, but after now (an overdue job ends any moment; its resources are
 * not free now). */
static int64_t bf_running_end(int64_t now, int64_t end)
{
	return end > now ? end : now + 1;
}

/* The backfill cycle: in priority order, each job that could not start
 * gets the earliest start the timeline allows (running jobs end at their
 * time limit, earlier jobs' reservations are respected); it starts now if
 * that start is now, otherwise it reserves the nodes (conservative
 * backfill within bf_window and bf_max_job_test, as sched/backfill). */
void sched_backfill(ctx_t *c, sched_job_t *jobs, const uint32_t *idx, uint32_t n,
		    sched_decision_t *d, const uint8_t *cand)
{
	sched_t *s = c->s;
	const sched_params_t *pp = &s->params;
	bf_t b = { 0 };
	b.tl = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(tl_node_t));
	b.horizon = c->now + (int64_t)pp->bf_window * 60;
	b.res = pp->bf_resolution ? pp->bf_resolution : 1;
	for (uint32_t i = 0; i < s->nrunning; i++) {
		const sched_running_t *rj = &s->running[i];
		if (!rj->alloc)
			continue;
		bf_add_alloc(&b, rj->alloc, INT64_MIN, bf_running_end(c->now, rj->end_time));
	}
	/* Jobs the main pass just started. */
	for (uint32_t k = 0; k < n; k++)
		if (d[k].start)
			bf_add_alloc(&b, &d[k].alloc, INT64_MIN, bf_running_end(c->now,
				     c->now + job_duration(&jobs[idx[k]], &s->parts[jobs[idx[k]].part])));
	for (uint32_t x = 0; x < s->nnodes; x++)
		s->nodes[x].planned = 0;
	bcand_t *bc = xmalloc((s->nnodes ? s->nnodes : 1) * sizeof(*bc));
	nfree_t *wins = xmalloc((s->nnodes ? s->nnodes : 1) * sizeof(*wins));
	/* bf_max_job_user: jobs tested per user (small open hash). */
	uint32_t usz = 1024, *uid = NULL, *ucnt = NULL;
	if (pp->bf_max_job_user) {
		uid = xmalloc(usz * sizeof(uint32_t));
		ucnt = xcalloc(usz, sizeof(uint32_t));
		memset(uid, 0xff, usz * sizeof(uint32_t));
	}
	uint32_t tested = 0;
	for (uint32_t k = 0; k < n && tested < pp->bf_max_job_test; k++) {
		sched_decision_t *dd = &d[k];
		if (dd->start || !cand[k])
			continue;
		sched_job_t *j = &jobs[idx[k]];
		if (cand[k] == 2) {
			/* Over a limit in the main pass: Slurm's backfill
			 * evaluates it (LastSchedEval, Scheduler=Backfill:*)
			 * before its limit check stops it. */
			dd->bf_examined = 1;
			continue;
		}
		if (uid) {
			uint32_t h = (j->user_id * 2654435761u) & (usz - 1), probes = 0;
			while (uid[h] != UINT32_MAX && uid[h] != j->user_id && probes++ < usz)
				h = (h + 1) & (usz - 1);
			if (uid[h] == UINT32_MAX)
				uid[h] = j->user_id;
			if (uid[h] == j->user_id && ucnt[h]++ >= pp->bf_max_job_user)
				continue;
		}
		uint32_t why = lim_job_check(c->lim, j);
		if (why) {
			/* Over a limit since the main pass started others. */
			dd->reason = why;
			dd->bf_examined = 1;
			continue;
		}
		tested++;
		dd->bf_examined = 1;
		s->last.bf_depth++;
		req_t r;
		sched_req_init(s, j, &r);
		s->last.bf_depth_try++;
		sched_alloc_t a;
		memset(&a, 0, sizeof(a));
		int64_t T = bf_plan(c, &b, j, &r, bc, wins, &a);
		if (T == INT64_MAX)
			continue;
		int64_t dur = job_duration(j, &s->parts[j->part]);
		if (T <= c->now) {
			sched_alloc_free(&dd->alloc);
			dd->alloc = a;
			sched_commit_start(c, dd);
			lim_job_start(c->lim, j, &dd->alloc);
			dd->backfilled = 1;
			free(dd->reason_detail);
			dd->reason_detail = NULL;
			s->last.bf_started++;
			bf_add_alloc(&b, &dd->alloc, INT64_MIN, bf_running_end(c->now, c->now + dur));
			continue;
		}
		dd->start_time = T;
		const char **names = xmalloc((a.nnodes ? a.nnodes : 1) * sizeof(char *));
		for (uint32_t i = 0; i < a.nnodes; i++) {
			names[i] = s->nodes[a.nodes[i]].name;
			s->nodes[a.nodes[i]].planned = 1;
		}
		free(dd->sched_nodes);
		dd->sched_nodes = hostlist_compress(names, a.nnodes);
		free(names);
		bf_add_alloc(&b, &a, T, bf_resv_end(&b, T, T + dur));
		sched_alloc_free(&a);
	}
	s->last.bf_ran = 1;
	s->last.bf_table_size = b.nev;
	for (uint32_t x = 0; x < s->nnodes; x++)
		free(b.tl[x].ev);
	free(b.tl);
	free(bc);
	free(wins);
	free(uid);
	free(ucnt);
}

/* ---- --test-only: one job's start by the plan, nothing changed ---- */

static const sched_job_t *plan_base;
static int plan_idx_cmp(const void *a, const void *b)
{
	return sched_job_cmp(&plan_base[*(const uint32_t *)a], &plan_base[*(const uint32_t *)b]);
}

static void sort_jobs_for_plan(const sched_job_t *jobs, uint32_t *idx, uint32_t n)
{
	plan_base = jobs;
	qsort(idx, n, sizeof(uint32_t), plan_idx_cmp);
}

int64_t sched_will_run(sched_t *s, const sched_job_t *jobs, uint32_t n,
		       const sched_job_t *probe, int64_t now, sched_alloc_t *out)
{
	memset(out, 0, sizeof(*out));
	if (probe->part >= s->nparts)
		return INT64_MAX;
	const sched_params_t *pp = &s->params;
	ctx_t c;
	sched_ctx_init(&c, s);
	c.now = now;
	bf_t b = { 0 };
	b.tl = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(tl_node_t));
	b.res = pp->bf_resolution ? pp->bf_resolution : 1;
	int64_t from = probe->begin_time > now ? probe->begin_time : now;
	/* Past bf_window: an answer is wanted even behind jobs without a
	 * time limit (they end a year from now in the plan). */
	b.horizon = from + (int64_t)366 * 86400 + (int64_t)pp->bf_window * 60;
	for (uint32_t i = 0; i < s->nrunning; i++) {
		const sched_running_t *rj = &s->running[i];
		if (rj->alloc)
			bf_add_alloc(&b, rj->alloc, INT64_MIN, bf_running_end(now, rj->end_time));
	}
	/* The jobs ahead of it, in priority order, reserve first (what the
	 * backfill cycle would give them: a start now is a reservation from
	 * now). Cost: O(ahead x log) to order them plus one plan each, at
	 * most bf_max_job_test of them, as a backfill cycle. */
	uint32_t *idx = xmalloc((n ? n : 1) * sizeof(uint32_t));
	uint32_t na = 0;
	for (uint32_t i = 0; i < n; i++) {
		const sched_job_t *j = &jobs[i];
		if (j->held || j->dependency_wait || j->begin_time > now || j->part >= s->nparts ||
		    sched_job_cmp(j, probe) >= 0)
			continue;
		idx[na++] = i;
	}
	sort_jobs_for_plan(jobs, idx, na);
	bcand_t *bc = xmalloc((s->nnodes ? s->nnodes : 1) * sizeof(*bc));
	nfree_t *wins = xmalloc((s->nnodes ? s->nnodes : 1) * sizeof(*wins));
	uint32_t limit = pp->bf_max_job_test ? pp->bf_max_job_test : 500;
	for (uint32_t k = 0; k < na && k < limit; k++) {
		const sched_job_t *j = &jobs[idx[k]];
		req_t r;
		sched_req_init(s, j, &r);
		sched_alloc_t a;
		memset(&a, 0, sizeof(a));
		int64_t T = bf_plan(&c, &b, j, &r, bc, wins, &a);
		if (T == INT64_MAX)
			continue;
		int64_t dur = job_duration(j, &s->parts[j->part]);
		bf_add_alloc(&b, &a, T, bf_resv_end(&b, T, T + dur));
		sched_alloc_free(&a);
	}
	req_t r;
	sched_req_init(s, probe, &r);
	c.now = from;
	int64_t T = bf_plan(&c, &b, probe, &r, bc, wins, out);
	if (T == INT64_MAX)
		sched_alloc_free(out);
	for (uint32_t x = 0; x < s->nnodes; x++)
		free(b.tl[x].ev);
	free(b.tl);
	free(bc);
	free(wins);
	free(idx);
	sched_ctx_release(&c);
	return T;
}
