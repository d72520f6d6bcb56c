/*
 * sched_limits.c: accounting limits in the pure scheduler core
 * (sched_limits.h): what each association, QOS, (QOS, user) and
 * (QOS, account) has running, counted afresh from the jobs of each pass,
 * and whether a pending job may start under AccountingStorageEnforce=
 * limits[,safe], with Slurm's reason when it may not.
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"
#include "sched_limits.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

void lim_set_clear(lim_set_t *l)
{
	uint64_t *p = (uint64_t *)l;
	for (unsigned i = 0; i < sizeof(*l) / sizeof(uint64_t); i++)
		p[i] = LIM_UNSET;
}

/* TRES in the order Slurm checks them (its TRES ids: cpu 1, mem 2,
 * node 4, billing 5, gres/gpu 1001..). */
static const int tres_order[LIM_TRES_N] = {
	LIM_TRES_CPU, LIM_TRES_MEM, LIM_TRES_NODE, LIM_TRES_BILLING, LIM_TRES_GPU
};

/* Reasons by limit kind and TRES (0: Slurm has none, e.g. nodes per
 * node). Index [assoc 0 / qos 1][LIM_TRES_*]. */
enum { K_GRP, K_GRP_MIN, K_GRP_RUN_MIN, K_MAX_PJ, K_MAX_PN, K_MAX_MIN_PJ, K_MAX_PU,
       K_MAX_PA, K_MIN_PJ, K_N };
static const uint32_t tres_reason[K_N][2][LIM_TRES_N] = {
	[K_GRP] = {
		{ WAIT_ASSOC_GRP_CPU, WAIT_ASSOC_GRP_MEM, WAIT_ASSOC_GRP_NODE,
		  WAIT_ASSOC_GRP_GRES, WAIT_ASSOC_GRP_BILLING },
		{ WAIT_QOS_GRP_CPU, WAIT_QOS_GRP_MEM, WAIT_QOS_GRP_NODE,
		  WAIT_QOS_GRP_GRES, WAIT_QOS_GRP_BILLING } },
	[K_GRP_MIN] = {
		{ WAIT_ASSOC_GRP_CPU_MIN, WAIT_ASSOC_GRP_MEM_MIN, WAIT_ASSOC_GRP_NODE_MIN,
		  WAIT_ASSOC_GRP_GRES_MIN, WAIT_ASSOC_GRP_BILLING_MIN },
		{ WAIT_QOS_GRP_CPU_MIN, WAIT_QOS_GRP_MEM_MIN, WAIT_QOS_GRP_NODE_MIN,
		  WAIT_QOS_GRP_GRES_MIN, WAIT_QOS_GRP_BILLING_MIN } },
	[K_GRP_RUN_MIN] = {
		{ WAIT_ASSOC_GRP_CPU_RUN_MIN, WAIT_ASSOC_GRP_MEM_RUN_MIN,
		  WAIT_ASSOC_GRP_NODE_RUN_MIN, WAIT_ASSOC_GRP_GRES_RUN_MIN,
		  WAIT_ASSOC_GRP_BILLING_RUN_MIN },
		{ WAIT_QOS_GRP_CPU_RUN_MIN, WAIT_QOS_GRP_MEM_RUN_MIN, WAIT_QOS_GRP_NODE_RUN_MIN,
		  WAIT_QOS_GRP_GRES_RUN_MIN, WAIT_QOS_GRP_BILLING_RUN_MIN } },
	[K_MAX_PJ] = {
		{ WAIT_ASSOC_MAX_CPU_PER_JOB, WAIT_ASSOC_MAX_MEM_PER_JOB,
		  WAIT_ASSOC_MAX_NODE_PER_JOB, WAIT_ASSOC_MAX_GRES_PER_JOB,
		  WAIT_ASSOC_MAX_BILLING_PER_JOB },
		{ WAIT_QOS_MAX_CPU_PER_JOB, WAIT_QOS_MAX_MEM_PER_JOB, WAIT_QOS_MAX_NODE_PER_JOB,
		  WAIT_QOS_MAX_GRES_PER_JOB, WAIT_QOS_MAX_BILLING_PER_JOB } },
	[K_MAX_PN] = {
		{ WAIT_ASSOC_MAX_CPU_PER_NODE, WAIT_ASSOC_MAX_MEM_PER_NODE, 0,
		  WAIT_ASSOC_MAX_GRES_PER_NODE, WAIT_ASSOC_MAX_BILLING_PER_NODE },
		{ WAIT_QOS_MAX_CPU_PER_NODE, WAIT_QOS_MAX_MEM_PER_NODE, 0,
		  WAIT_QOS_MAX_GRES_PER_NODE, WAIT_QOS_MAX_BILLING_PER_NODE } },
	[K_MAX_MIN_PJ] = {
		{ WAIT_ASSOC_MAX_CPU_MINS_PER_JOB, WAIT_ASSOC_MAX_MEM_MINS_PER_JOB,
		  WAIT_ASSOC_MAX_NODE_MINS_PER_JOB, WAIT_ASSOC_MAX_GRES_MINS_PER_JOB,
		  WAIT_ASSOC_MAX_BILLING_MINS_PER_JOB },
		{ WAIT_QOS_MAX_CPU_MINS_PER_JOB, WAIT_QOS_MAX_MEM_MINS_PER_JOB,
		  WAIT_QOS_MAX_NODE_MINS_PER_JOB, WAIT_QOS_MAX_GRES_MINS_PER_JOB,
		  WAIT_QOS_MAX_BILLING_MINS_PER_JOB } },
	[K_MAX_PU] = {
		{ 0 },
		{ WAIT_QOS_MAX_CPU_PER_USER, WAIT_QOS_MAX_MEM_PER_USER, WAIT_QOS_MAX_NODE_PER_USER,
		  WAIT_QOS_MAX_GRES_PER_USER, WAIT_QOS_MAX_BILLING_PER_USER } },
	[K_MAX_PA] = {
		{ 0 },
		{ WAIT_QOS_MAX_CPU_PER_ACCT, WAIT_QOS_MAX_MEM_PER_ACCT, WAIT_QOS_MAX_NODE_PER_ACCT,
		  WAIT_QOS_MAX_GRES_PER_ACCT, WAIT_QOS_MAX_BILLING_PER_ACCT } },
	[K_MIN_PJ] = {
		{ 0 },
		{ WAIT_QOS_MIN_CPU, WAIT_QOS_MIN_MEM, WAIT_QOS_MIN_NODE, WAIT_QOS_MIN_GRES,
		  WAIT_QOS_MIN_BILLING } },
};

static int set(uint64_t v)
{
	return v != LIM_UNSET;
}

/* ---- a job's TRES ---- */

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : a;
}

void lim_job_tres(const sched_t *s, const sched_job_t *j, uint64_t tres[LIM_TRES_N],
		  uint64_t per_node[LIM_TRES_N])
{
	uint64_t nodes = j->min_nodes ? j->min_nodes : 1;
	uint64_t cpt = j->cpus_per_task ? j->cpus_per_task : 1;
	uint64_t tasks = j->ntasks ? j->ntasks : 1;
	if (j->ntasks_per_node && tasks < (uint64_t)j->ntasks_per_node * nodes)
		tasks = (uint64_t)j->ntasks_per_node * nodes;
	uint64_t gpus = j->gpus_per_job ? j->gpus_per_job
		      : j->gpus_per_task ? (uint64_t)j->gpus_per_task * tasks
		      : (uint64_t)j->gpus_per_node * nodes;
	uint64_t cpus = tasks * cpt;
	if (j->cpus_per_gpu && gpus * j->cpus_per_gpu > cpus)
		cpus = gpus * j->cpus_per_gpu;
	if (cpus < nodes)
		cpus = nodes;
	uint64_t mem = 0;
	if (j->mem_per_node)
		mem = j->mem_per_node * nodes;
	else if (j->mem_per_cpu)
		mem = j->mem_per_cpu * cpus;
	else if (j->mem_per_gpu)
		mem = j->mem_per_gpu * gpus;
	else if (s && j->part < s->nparts && s->parts[j->part].def_mem_per_cpu)
		mem = s->parts[j->part].def_mem_per_cpu * cpus;
	tres[LIM_TRES_CPU] = cpus;
	tres[LIM_TRES_MEM] = mem;
	tres[LIM_TRES_NODE] = nodes;
	tres[LIM_TRES_GPU] = gpus;
	tres[LIM_TRES_BILLING] = cpus;
	if (per_node) {
		per_node[LIM_TRES_CPU] = div_up(cpus, nodes);
		per_node[LIM_TRES_MEM] = j->mem_per_node ? j->mem_per_node : div_up(mem, nodes);
		per_node[LIM_TRES_NODE] = 1;
		per_node[LIM_TRES_GPU] = j->gpus_per_node ? j->gpus_per_node : div_up(gpus, nodes);
		per_node[LIM_TRES_BILLING] = per_node[LIM_TRES_CPU];
	}
}

void lim_alloc_tres(const sched_alloc_t *a, uint64_t tres[LIM_TRES_N])
{
	memset(tres, 0, LIM_TRES_N * sizeof(uint64_t));
	for (uint32_t i = 0; i < a->nnodes; i++) {
		tres[LIM_TRES_CPU] += a->cpus[i];
		tres[LIM_TRES_MEM] += a->mem[i];
		tres[LIM_TRES_GPU] += (uint64_t)__builtin_popcountll(a->gpus[i]);
	}
	tres[LIM_TRES_NODE] = a->nnodes;
	tres[LIM_TRES_BILLING] = tres[LIM_TRES_CPU];
}

/* A job's time limit in minutes for the limits (no limit: the
 * partition's MaxTime; none either: infinite). */
static uint64_t job_minutes(const sched_t *s, const sched_job_t *j)
{
	uint32_t t = j->time_limit;
	if ((t == TIME_NO_VAL || t == 0) && j->part < s->nparts && s->parts[j->part].max_time)
		t = s->parts[j->part].max_time;
	if (t == TIME_NO_VAL || t == 0)
		t = TIME_INFINITE;
	return t;
}

/* ---- the pass's counters ---- */

typedef struct use {
	uint64_t jobs;               /* running */
	uint64_t tres[LIM_TRES_N];
	double run_mins[LIM_TRES_N]; /* TRES-minutes left of running jobs */
} use_t;

/* (QOS, user) and (QOS, account) counters: an open hash. */
typedef struct pair {
	uint32_t qos, key, kind;     /* kind 0 free, 1 user, 2 account */
	use_t u;
} pair_t;

struct lim_ctx {
	const sched_t *s;
	int64_t now;
	uint32_t na, nq;
	use_t *self;                 /* per association, its own jobs */
	use_t *tree;                 /* per association, its subtree */
	use_t *qos;
	lim_set_t *eff;              /* per association, Max* inherited */
	pair_t *pairs;
	uint32_t psize;              /* power of two */
	uint32_t pcount;             /* used; grown past half full */
};

static uint32_t hash3(uint32_t a, uint32_t b, uint32_t c)
{
	uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ (uint64_t)b * 0xC2B2AE3D27D4EB4Full ^
		     (uint64_t)c * 0x165667B19E3779F9ull;
	return (uint32_t)(h ^ (h >> 29));
}

/* The slot of (qos, key, kind): its entry or the free slot for it. */
static pair_t *pair_slot(pair_t *pairs, uint32_t size, uint32_t qos, uint32_t key, uint32_t kind)
{
	uint32_t m = size - 1, h = hash3(qos, key, kind) & m;
	for (;; h = (h + 1) & m) {   /* never full: kept at most half */
		pair_t *p = &pairs[h];
		if (!p->kind || (p->qos == qos && p->key == key && p->kind == kind))
			return p;
	}
}

/* The counter of (qos, key, kind), or NULL if none. */
static const pair_t *pair_find(const lim_ctx_t *c, uint32_t qos, uint32_t key, uint32_t kind)
{
	const pair_t *p = pair_slot(c->pairs, c->psize, qos, key, kind);
	return p->kind ? p : NULL;
}

/* The counter of (qos, key, kind), made if none (the table doubles once
 * half full). */
static pair_t *pair_make(lim_ctx_t *c, uint32_t qos, uint32_t key, uint32_t kind)
{
	if (2 * (c->pcount + 1) > c->psize) {
		uint32_t nsize = c->psize * 2;
		pair_t *np = xcalloc(nsize, sizeof(pair_t));
		for (uint32_t i = 0; i < c->psize; i++)
			if (c->pairs[i].kind)
				*pair_slot(np, nsize, c->pairs[i].qos, c->pairs[i].key,
					   c->pairs[i].kind) = c->pairs[i];
		free(c->pairs);
		c->pairs = np;
		c->psize = nsize;
	}
	pair_t *p = pair_slot(c->pairs, c->psize, qos, key, kind);
	if (!p->kind) {
		p->qos = qos;
		p->key = key;
		p->kind = kind;
		c->pcount++;
	}
	return p;
}

/* The account association a job's association belongs to: itself for an
 * account association, its parent for a user's. */
static uint32_t acct_key(const sched_t *s, int32_t a)
{
	const sched_assoc_t *as = &s->assocs[a];
	if ((as->is_user || as->uid != UINT32_MAX) && as->parent >= 0 &&
	    (uint32_t)as->parent < s->nassocs)
		return (uint32_t)as->parent;
	return (uint32_t)a;
}

static int assoc_ok(const sched_t *s, int32_t a)
{
	return a >= 0 && (uint32_t)a < s->nassocs;
}

static int qos_ok(const sched_t *s, int32_t q)
{
	return q >= 0 && (uint32_t)q < s->nqos;
}

static void use_add(use_t *u, const uint64_t tres[LIM_TRES_N], double mins)
{
	u->jobs++;
	for (int t = 0; t < LIM_TRES_N; t++) {
		u->tres[t] += tres[t];
		u->run_mins[t] += (double)tres[t] * mins;
	}
}

/* Add one running (or just started) job everywhere it counts. */
static void count_job(lim_ctx_t *c, int32_t assoc, int32_t qos, uint32_t uid,
		      const uint64_t tres[LIM_TRES_N], double mins)
{
	const sched_t *s = c->s;
	if (assoc_ok(s, assoc)) {
		use_add(&c->self[assoc], tres, mins);
		/* Ancestors: depth is small; a cycle is cut at nassocs. */
		int32_t a = assoc;
		for (uint32_t d = 0; assoc_ok(s, a) && d <= c->na; d++, a = s->assocs[a].parent)
			use_add(&c->tree[a], tres, mins);
	}
	if (qos_ok(s, qos)) {
		use_add(&c->qos[qos], tres, mins);
		use_add(&pair_make(c, (uint32_t)qos, uid, 1)->u, tres, mins);
		if (assoc_ok(s, assoc))
			use_add(&pair_make(c, (uint32_t)qos, acct_key(s, assoc), 2)->u, tres, mins);
	}
}

static void inherit(uint64_t *dst, uint64_t src)
{
	if (!set(*dst))
		*dst = src;
}

static void inherit_tres(lim_tres_t *dst, const lim_tres_t *src)
{
	for (int t = 0; t < LIM_TRES_N; t++)
		inherit(&dst->v[t], src->v[t]);
}

/* eff[a]: a's Max* limits, each unset one taken from the nearest
 * ancestor that sets it (Slurm's inheritance down the tree). */
static void resolve_max(const sched_t *s, lim_set_t *e, uint32_t a)
{
	*e = s->assocs[a].lim;
	int32_t p = s->assocs[a].parent;
	for (uint32_t d = 0; assoc_ok(s, p) && d <= s->nassocs; d++, p = s->assocs[p].parent) {
		const lim_set_t *l = &s->assocs[p].lim;
		inherit(&e->max_jobs, l->max_jobs);
		inherit(&e->max_submit, l->max_submit);
		inherit(&e->max_wall, l->max_wall);
		inherit_tres(&e->max_tres_pj, &l->max_tres_pj);
		inherit_tres(&e->max_tres_pn, &l->max_tres_pn);
		inherit_tres(&e->max_tres_mins_pj, &l->max_tres_mins_pj);
	}
}

static double mins_left(int64_t now, int64_t end)
{
	return end > now ? (double)(end - now) / 60.0 : 0.0;
}

lim_ctx_t *lim_ctx_new(const sched_t *s, const sched_job_t *jobs, uint32_t n, int64_t now)
{
	(void)jobs;
	(void)n;
	if (!(s->lim_enforce & SCHED_LIM_ENFORCE) || (!s->nassocs && !s->nqos))
		return NULL;
	lim_ctx_t *c = xcalloc(1, sizeof(*c));
	c->s = s;
	c->now = now;
	c->na = s->nassocs;
	c->nq = s->nqos;
	c->self = xcalloc(c->na ? c->na : 1, sizeof(use_t));
	c->tree = xcalloc(c->na ? c->na : 1, sizeof(use_t));
	c->qos = xcalloc(c->nq ? c->nq : 1, sizeof(use_t));
	c->eff = xmalloc((c->na ? c->na : 1) * sizeof(lim_set_t));
	for (uint32_t a = 0; a < c->na; a++)
		resolve_max(s, &c->eff[a], a);
	/* Each running job makes at most two pairs; the jobs the pass starts
	 * grow the table. */
	uint64_t want = 4ull * s->nrunning + 16;
	c->psize = 16;
	while (c->psize < want && c->psize < (1u << 30))
		c->psize <<= 1;
	c->pairs = xcalloc(c->psize, sizeof(pair_t));
	for (uint32_t i = 0; i < s->nrunning; i++) {
		const sched_running_t *r = &s->running[i];
		if (!r->alloc)
			continue;
		uint64_t tres[LIM_TRES_N];
		lim_alloc_tres(r->alloc, tres);
		count_job(c, r->assoc, r->qos, r->uid, tres, mins_left(now, r->end_time));
	}
	return c;
}

void lim_ctx_free(lim_ctx_t *c)
{
	if (!c)
		return;
	free(c->self);
	free(c->tree);
	free(c->qos);
	free(c->eff);
	free(c->pairs);
	free(c);
}

void lim_job_start(lim_ctx_t *c, const sched_job_t *j, const sched_alloc_t *a)
{
	if (!c)
		return;
	uint64_t tres[LIM_TRES_N];
	lim_alloc_tres(a, tres);
	uint64_t mins = job_minutes(c->s, j);
	count_job(c, j->assoc, j->qos, j->user_id, tres,
		  mins == TIME_INFINITE ? 365.0 * 24 * 60 : (double)mins);
}

/* ---- the checks ---- */

/* What the checks of one job share. */
typedef struct jc {
	const sched_t *s;
	const sched_job_t *j;
	const sched_qos_t *q;        /* NULL: no QOS */
	const lim_set_t *ql;         /* q's limits or NULL */
	uint64_t tres[LIM_TRES_N], pn[LIM_TRES_N];
	uint64_t mins;               /* the job's time limit, TIME_INFINITE */
	int safe;
} jc_t;

/* The per-job TRES limits of one scope (0 association, 1 QOS); l the
 * limits, qover the QOS's same limits when scope is 0 (NULL: none). */
static uint32_t check_per_job(const jc_t *x, int scope, const lim_set_t *l, const lim_set_t *qo)
{
	/* MaxTRESMins per job */
	for (int k = 0; k < LIM_TRES_N; k++) {
		int t = tres_order[k];
		uint64_t lim = l->max_tres_mins_pj.v[t];
		if (!set(lim) || (qo && set(qo->max_tres_mins_pj.v[t])))
			continue;
		if (x->mins == TIME_INFINITE ? x->tres[t] > 0 : x->tres[t] * x->mins > lim)
			return tres_reason[K_MAX_MIN_PJ][scope][t];
	}
	/* MaxTRES per job */
	for (int k = 0; k < LIM_TRES_N; k++) {
		int t = tres_order[k];
		uint64_t lim = l->max_tres_pj.v[t];
		if (set(lim) && !(qo && set(qo->max_tres_pj.v[t])) && x->tres[t] > lim)
			return tres_reason[K_MAX_PJ][scope][t];
	}
	/* MaxTRESPerNode */
	for (int k = 0; k < LIM_TRES_N; k++) {
		int t = tres_order[k];
		uint64_t lim = l->max_tres_pn.v[t];
		if (set(lim) && tres_reason[K_MAX_PN][scope][t] &&
		    !(qo && set(qo->max_tres_pn.v[t])) && x->pn[t] > lim)
			return tres_reason[K_MAX_PN][scope][t];
	}
	if (scope == 1) {
		/* MinTRES per job (QOS only) */
		for (int k = 0; k < LIM_TRES_N; k++) {
			int t = tres_order[k];
			uint64_t lim = l->min_tres_pj.v[t];
			if (set(lim) && x->tres[t] < lim)
				return tres_reason[K_MIN_PJ][scope][t];
		}
	}
	return 0;
}

static uint32_t check_wall(const jc_t *x, int scope, const lim_set_t *l, const lim_set_t *qo)
{
	if (set(l->max_wall) && !(qo && set(qo->max_wall)) && x->mins > l->max_wall)
		return scope ? WAIT_QOS_MAX_WALL_PER_JOB : WAIT_ASSOC_MAX_WALL_PER_JOB;
	return 0;
}

static void jc_init(jc_t *x, const sched_t *s, const sched_job_t *j)
{
	memset(x, 0, sizeof(*x));
	x->s = s;
	x->j = j;
	if (qos_ok(s, j->qos)) {
		x->q = &s->qos[j->qos];
		x->ql = &x->q->lim;
	}
	lim_job_tres(s, j, x->tres, x->pn);
	x->mins = job_minutes(s, j);
	x->safe = (s->lim_enforce & SCHED_LIM_SAFE) != 0;
}

/* A group or per-user/account TRES limit the job alone is over (it
 * could never start under it). */
static uint32_t alone_over(const jc_t *x, int kind, int scope, const lim_tres_t *l,
			   const lim_tres_t *qo)
{
	for (int k = 0; k < LIM_TRES_N; k++) {
		int t = tres_order[k];
		if (set(l->v[t]) && !(qo && set(qo->v[t])) && x->tres[t] > l->v[t])
			return tres_reason[kind][scope][t];
	}
	return 0;
}

uint32_t lim_job_check_static(const sched_t *s, const sched_job_t *j)
{
	if (!(s->lim_enforce & SCHED_LIM_ENFORCE))
		return 0;
	jc_t x;
	jc_init(&x, s, j);
	uint32_t r;
	const lim_set_t *ql = x.ql;
	if (ql && ((r = check_wall(&x, 1, ql, NULL)) ||
		   (r = alone_over(&x, K_GRP, 1, &ql->grp_tres, NULL)) ||
		   (r = check_per_job(&x, 1, ql, NULL)) ||
		   (r = alone_over(&x, K_MAX_PU, 1, &ql->max_tres_pu, NULL)) ||
		   (r = alone_over(&x, K_MAX_PA, 1, &ql->max_tres_pa, NULL))))
		return r;
	if (!assoc_ok(s, j->assoc))
		return 0;
	/* The Max* its association inherits. */
	lim_set_t eff;
	resolve_max(s, &eff, (uint32_t)j->assoc);
	if ((r = check_wall(&x, 0, &eff, ql)))
		return r;
	int32_t a = j->assoc;
	for (uint32_t d = 0; assoc_ok(s, a) && d <= s->nassocs; d++, a = s->assocs[a].parent)
		if ((r = alone_over(&x, K_GRP, 0, &s->assocs[a].lim.grp_tres, ql ? &ql->grp_tres : NULL)))
			return r;
	return check_per_job(&x, 0, &eff, ql);
}

/* Usage-based group limits (GrpTRESMins, GrpWall): usage in TRES-seconds
 * / seconds. Without safe: blocked once the usage reached the limit; with
 * safe: also when the job could not finish within what is left. */
static int over_usage(const jc_t *x, double usage_secs, uint64_t lim, uint64_t job_mins)
{
	double used = usage_secs / 60.0;
	if (used >= (double)lim)
		return 1;
	if (!x->safe)
		return 0;
	if (x->mins == TIME_INFINITE)
		return job_mins > 0;
	return used + (double)job_mins > (double)lim;
}

/* The Grp* limits of one scope against the counts u (the QOS's or an
 * association subtree's); usage the decayed usage of the same. */
static uint32_t check_grp_tres(const jc_t *x, int scope, const lim_set_t *l, const use_t *u,
			       const double *usage_tres, const lim_set_t *qo)
{
	for (int k = 0; k < LIM_TRES_N; k++) {
		int t = tres_order[k];
		uint64_t lim = l->grp_tres_mins.v[t];
		if (set(lim) && !(qo && set(qo->grp_tres_mins.v[t])) &&
		    over_usage(x, usage_tres[t], lim, x->tres[t] * (x->mins == TIME_INFINITE ? 1 : x->mins)))
			return tres_reason[K_GRP_MIN][scope][t];
	}
	for (int k = 0; k < LIM_TRES_N; k++) {
		int t = tres_order[k];
		uint64_t lim = l->grp_tres.v[t];
		if (set(lim) && !(qo && set(qo->grp_tres.v[t])) && u->tres[t] + x->tres[t] > lim)
			return tres_reason[K_GRP][scope][t];
	}
	for (int k = 0; k < LIM_TRES_N; k++) {
		int t = tres_order[k];
		uint64_t lim = l->grp_tres_run_mins.v[t];
		if (!set(lim) || (qo && set(qo->grp_tres_run_mins.v[t])))
			continue;
		double need = x->mins == TIME_INFINITE ? (x->tres[t] ? 1e300 : 0)
			    : (double)x->tres[t] * (double)x->mins;
		if (u->run_mins[t] + need > (double)lim)
			return tres_reason[K_GRP_RUN_MIN][scope][t];
	}
	return 0;
}

static uint32_t check_pair_tres(const jc_t *x, int kind, const lim_tres_t *lim, const pair_t *p)
{
	for (int k = 0; k < LIM_TRES_N; k++) {
		int t = tres_order[k];
		uint64_t used = p ? p->u.tres[t] : 0;
		if (set(lim->v[t]) && used + x->tres[t] > lim->v[t])
			return tres_reason[kind][1][t];
	}
	return 0;
}

uint32_t lim_job_check(const lim_ctx_t *c, const sched_job_t *j)
{
	if (!c)
		return 0;
	const sched_t *s = c->s;
	jc_t x;
	jc_init(&x, s, j);
	const lim_set_t *ql = x.ql;
	const lim_set_t *al = assoc_ok(s, j->assoc) ? &c->eff[j->assoc] : NULL;
	uint32_t r;
	const pair_t *pu = NULL, *pa = NULL;
	/* Job counts and wall time: the QOS, then the associations. */
	if (ql) {
		const use_t *u = &c->qos[j->qos];
		if (set(ql->grp_jobs) && u->jobs + 1 > ql->grp_jobs)
			return WAIT_QOS_GRP_JOB;
		if (set(ql->grp_wall) && over_usage(&x, x.q->usage_wall, ql->grp_wall, x.mins))
			return WAIT_QOS_GRP_WALL;
		pu = pair_find(c, (uint32_t)j->qos, j->user_id, 1);
		if (set(ql->max_jobs_pu) && (pu ? pu->u.jobs : 0) + 1 > ql->max_jobs_pu)
			return WAIT_QOS_MAX_JOB_PER_USER;
		if (al)
			pa = pair_find(c, (uint32_t)j->qos, acct_key(s, j->assoc), 2);
		if (al && set(ql->max_jobs_pa) && (pa ? pa->u.jobs : 0) + 1 > ql->max_jobs_pa)
			return WAIT_QOS_MAX_JOB_PER_ACCT;
		if ((r = check_wall(&x, 1, ql, NULL)))
			return r;
	}
	if (al) {
		int32_t a = j->assoc;
		for (uint32_t d = 0; assoc_ok(s, a) && d <= c->na; d++, a = s->assocs[a].parent) {
			const sched_assoc_t *as = &s->assocs[a];
			if (set(as->lim.grp_jobs) && !(ql && set(ql->grp_jobs)) &&
			    c->tree[a].jobs + 1 > as->lim.grp_jobs)
				return WAIT_ASSOC_GRP_JOB;
			if (set(as->lim.grp_wall) && !(ql && set(ql->grp_wall)) &&
			    over_usage(&x, as->usage_wall, as->lim.grp_wall, x.mins))
				return WAIT_ASSOC_GRP_WALL;
			if (a == j->assoc) {
				/* a QOS MaxJobsPerUser or MaxJobsPerAccount
				 * replaces it (Slurm's rule) */
				if (set(al->max_jobs) &&
				    !(ql && (set(ql->max_jobs_pu) || set(ql->max_jobs_pa))) &&
				    c->self[a].jobs + 1 > al->max_jobs)
					return WAIT_ASSOC_MAX_JOBS;
				if ((r = check_wall(&x, 0, al, ql)))
					return r;
			}
		}
	}
	/* TRES: the QOS, then the associations. */
	if (ql) {
		if ((r = check_grp_tres(&x, 1, ql, &c->qos[j->qos], x.q->usage_tres, NULL)) ||
		    (r = check_per_job(&x, 1, ql, NULL)) ||
		    (r = check_pair_tres(&x, K_MAX_PU, &ql->max_tres_pu, pu)) ||
		    (al && (r = check_pair_tres(&x, K_MAX_PA, &ql->max_tres_pa, pa))))
			return r;
	}
	if (al) {
		int32_t a = j->assoc;
		for (uint32_t d = 0; assoc_ok(s, a) && d <= c->na; d++, a = s->assocs[a].parent) {
			const sched_assoc_t *as = &s->assocs[a];
			if ((r = check_grp_tres(&x, 0, &as->lim, &c->tree[a], as->usage_tres, ql)))
				return r;
			if (a == j->assoc && (r = check_per_job(&x, 0, al, ql)))
				return r;
		}
	}
	return 0;
}
