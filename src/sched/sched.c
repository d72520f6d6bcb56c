/*
 * sched.c: the pure scheduler core (see sched.h for the contract).
 *
 * A pass orders the pending jobs (sched_job_cmp), then walks them once:
 * cheap checks first (held, dependency, begin time, partition state and
 * limits), then a node search. Node search walks the partition's nodes in
 * (Weight, index) order and takes the first ones that fit; multi-node jobs
 * on a cluster with a leaf-switch topology prefer the leaf with the fewest
 * candidate nodes that can hold the whole job (best fit, keeps big leaves
 * whole for big jobs). Once a job of a partition is blocked on Resources,
 * the later jobs of that partition get Reason=Priority without a search:
 * strict priority order, no backfill yet. A backfill stage would slot in
 * where a blocked partition is marked (plan the blocked job's start, then
 * let later jobs run if they end before it).
 *
 * Performance: each partition keeps a segment tree (max free CPUs) over
 * its ordered nodes, so the search jumps straight to the next node with
 * room for one task instead of walking full nodes; best fit by leaf looks
 * at a bounded number of fitting leaves.
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"

#include "errors.h"
#include "hostlist.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

int sched_job_cmp(const sched_job_t *a, const sched_job_t *b)
{
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	if (a->submit_time != b->submit_time)
		return a->submit_time < b->submit_time ? -1 : 1;
	if (a->job_id != b->job_id)
		return a->job_id < b->job_id ? -1 : 1;
	return 0;
}

/* ---- features ---- */

/* Is the feature f (length flen) in the comma-separated list? */
static int has_feature(const char *list, const char *f, size_t flen)
{
	if (!list || !flen)
		return 0;
	const char *p = list;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == flen && !strncmp(p, f, flen))
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

/* --constraint: terms joined by '|', each a list of features joined by
 * '&' (or ','); '&' binds tighter, as in Slurm. Brackets and counts
 * ("[a|b]", "a*2") are read as plain and/or. */
static int features_match(const char *node_features, const char *expr)
{
	if (!expr || !*expr)
		return 1;
	const char *p = expr;
	int term_ok = 1;
	for (;;) {
		while (*p == '[' || *p == ']' || *p == '(' || *p == ')' || *p == ' ')
			p++;
		const char *s = p;
		while (*p && !strchr("&,|[]() *", *p))
			p++;
		size_t l = (size_t)(p - s);
		if (l && !has_feature(node_features, s, l))
			term_ok = 0;
		if (*p == '*')          /* count: skip digits */
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
		while (*p == ']' || *p == ')' || *p == ' ')
			p++;
		if (*p == '|') {
			if (term_ok)
				return 1;
			term_ok = 1;
			p++;
		} else if (*p == '&' || *p == ',') {
			p++;
		} else if (!*p) {
			return term_ok;
		} else {
			p++;
		}
	}
}

/* ---- GPUs ---- */

static int gpu_type_ok(const sched_gpu_type_t *t, const char *want)
{
	return !want[0] || !strcmp(t->type, want);
}

/* Mask of the node's gpu indices of the wanted type ("" any). */
static uint64_t gpu_mask(const sched_node_t *n, const char *want)
{
	uint64_t m = 0;
	if (!n->ngpu_types) {
		if (want[0] || !n->ngpus)
			return 0;
		uint32_t c = n->ngpus < SCHED_MAX_GPUS ? n->ngpus : SCHED_MAX_GPUS;
		return c >= 64 ? ~0ull : ((1ull << c) - 1);
	}
	for (uint32_t i = 0; i < n->ngpu_types && i < SCHED_MAX_GRES_TYPES; i++) {
		const sched_gpu_type_t *t = &n->gpu_types[i];
		if (!gpu_type_ok(t, want))
			continue;
		for (uint32_t g = t->first; g < t->first + t->count && g < SCHED_MAX_GPUS; g++)
			m |= 1ull << g;
	}
	return m;
}

/* Take the lowest `count` indices of mask; 0 if fewer available. */
static uint64_t gpu_take(uint64_t avail, uint32_t count)
{
	uint64_t out = 0;
	while (count && avail) {
		uint64_t low = avail & -avail;
		out |= low;
		avail &= ~low;
		count--;
	}
	return count ? 0 : out;
}

/* ---- per job derived request ---- */

typedef struct req {
	uint32_t min_nodes, max_nodes;
	uint32_t ntasks, cpt, tpn;
	uint64_t mem_node;       /* MB per node, 0 = use mem_per_task */
	uint64_t mem_per_cpu;
	uint32_t gpn, gpj;
	const char *gtype;
} req_t;

static void req_init(const sched_t *s, const sched_job_t *j, req_t *r)
{
	memset(r, 0, sizeof(*r));
	r->min_nodes = j->min_nodes ? j->min_nodes : 1;
	if (j->nreq_nodes > r->min_nodes)
		r->min_nodes = j->nreq_nodes;
	r->max_nodes = j->max_nodes ? j->max_nodes : r->min_nodes;
	if (r->max_nodes < r->min_nodes)
		r->max_nodes = r->min_nodes;
	r->cpt = j->cpus_per_task ? j->cpus_per_task : 1;
	r->tpn = j->ntasks_per_node;
	r->ntasks = j->ntasks ? j->ntasks : 1;
	if (r->tpn && !j->ntasks)
		r->ntasks = r->tpn * r->min_nodes;
	if (r->ntasks < r->min_nodes)
		r->ntasks = r->min_nodes;
	r->mem_node = j->mem_per_node;
	r->mem_per_cpu = j->mem_per_cpu;
	if (!r->mem_node && !r->mem_per_cpu && j->part < s->nparts)
		r->mem_per_cpu = s->parts[j->part].def_mem_per_cpu;
	r->gpn = j->gpus_per_node;
	r->gpj = r->gpn ? 0 : j->gpus_per_job;
	if (r->gpj && r->max_nodes == 1) {   /* one node: same as per node */
		r->gpn = r->gpj;
		r->gpj = 0;
	}
	r->gtype = j->gpu_type;
}

/* Tasks node n can take for the job (0: none). empty: judge the node as
 * if nothing ran on it (submit-time validation). *gfree gets the free
 * GPUs of the wanted type. */
static uint32_t node_cap(const sched_node_t *n, const sched_job_t *j, const req_t *r,
			 int empty, uint32_t *gfree)
{
	uint32_t cpus_free = n->cpus;
	uint64_t mem_free = n->mem;
	uint64_t gavail = gpu_mask(n, r->gtype);
	if (!empty) {
		if (n->exclusive || (j->exclusive && n->njobs))
			return 0;
		cpus_free = n->cpus > n->cpus_used ? n->cpus - n->cpus_used : 0;
		mem_free = n->mem > n->mem_used ? n->mem - n->mem_used : 0;
		gavail &= ~n->gpus_used;
	}
	uint32_t cap = cpus_free / r->cpt;
	if (r->tpn && cap > r->tpn)
		cap = r->tpn;
	if (!cap)
		return 0;
	/* Memory: a node with RealMemory 0 is not accounted. */
	if (n->mem) {
		if (r->mem_node) {
			if (r->mem_node > mem_free)
				return 0;
		} else if (r->mem_per_cpu && !j->exclusive) {
			uint64_t c = mem_free / (r->mem_per_cpu * r->cpt);
			if (c < cap)
				cap = (uint32_t)c;
		}
	}
	uint32_t gf = (uint32_t)__builtin_popcountll(gavail);
	if (r->gpn && gf < r->gpn)
		return 0;
	if (gfree)
		*gfree = gf;
	return cap;
}

/* ---- the pass context ---- */

typedef struct cand {
	uint32_t node, cap, gfree;
} cand_t;

typedef struct part_ctx {
	uint32_t *order;         /* partition nodes by (weight, index) */
	uint32_t n;
	uint32_t size;           /* leaves of the segment tree (power of 2) */
	uint32_t *tree;          /* max free cpus per subtree, over order */
	uint32_t *gtree;         /* max free gpus (any type) per subtree */
	int blocked;
} part_ctx_t;

typedef struct ctx {
	sched_t *s;
	part_ctx_t *parts;
	uint32_t *pos;           /* [part * nnodes + node]: index in order or -1 */
	uint8_t *mark;           /* per node: 1 excluded, 2 required */
	cand_t *cands;
	uint32_t *leaf_cnt, *leaf_cap, *leaf_gpu;
	int nleaves;             /* max leaf index + 1, 0 without topology */
} ctx_t;

static const sched_t *cmp_sched;
static int node_order_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const sched_node_t *nx = &cmp_sched->nodes[x], *ny = &cmp_sched->nodes[y];
	if (nx->weight != ny->weight)
		return nx->weight < ny->weight ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int node_dead(const sched_node_t *n)
{
	return !n->usable || n->exclusive || n->cpus_used >= n->cpus;
}

static uint32_t node_free_cpus(const sched_node_t *n)
{
	return node_dead(n) ? 0 : n->cpus - n->cpus_used;
}

static uint32_t node_free_gpus(const sched_node_t *n)
{
	if (node_dead(n))
		return 0;
	uint64_t all = n->ngpus >= 64 ? ~0ull : ((1ull << n->ngpus) - 1);
	return (uint32_t)__builtin_popcountll(all & ~n->gpus_used);
}

static void seg_pull(part_ctx_t *pc, uint32_t k)
{
	uint32_t a = pc->tree[2 * k], b = pc->tree[2 * k + 1];
	pc->tree[k] = a > b ? a : b;
	a = pc->gtree[2 * k];
	b = pc->gtree[2 * k + 1];
	pc->gtree[k] = a > b ? a : b;
}

static void seg_set(part_ctx_t *pc, uint32_t i, uint32_t cpus, uint32_t gpus)
{
	uint32_t k = pc->size + i;
	pc->tree[k] = cpus;
	pc->gtree[k] = gpus;
	for (k >>= 1; k; k >>= 1)
		seg_pull(pc, k);
}

static uint32_t seg_find_rec(const part_ctx_t *pc, uint32_t k, uint32_t lo, uint32_t hi,
			     uint32_t from, uint32_t needc, uint32_t needg)
{
	if (hi <= from || pc->tree[k] < needc || pc->gtree[k] < needg)
		return UINT32_MAX;
	if (k >= pc->size)
		return lo;
	uint32_t mid = lo + (hi - lo) / 2;
	uint32_t r = seg_find_rec(pc, 2 * k, lo, mid, from, needc, needg);
	if (r != UINT32_MAX)
		return r;
	return seg_find_rec(pc, 2 * k + 1, mid, hi, from, needc, needg);
}

/* First index >= from in the partition order whose node has at least
 * needc free cpus and needg free gpus (of any type), or pc->n. */
static uint32_t seg_find(const part_ctx_t *pc, uint32_t from, uint32_t needc, uint32_t needg)
{
	if (from >= pc->n)
		return pc->n;
	uint32_t r = seg_find_rec(pc, 1, 0, pc->size, from, needc, needg);
	return r < pc->n ? r : pc->n;
}

/* Node x changed (an allocation): refresh it in every partition tree. */
static void ctx_node_changed(ctx_t *c, uint32_t x)
{
	uint32_t v = node_free_cpus(&c->s->nodes[x]);
	uint32_t g = node_free_gpus(&c->s->nodes[x]);
	for (uint32_t p = 0; p < c->s->nparts; p++) {
		uint32_t i = c->pos[(size_t)p * c->s->nnodes + x];
		if (i != UINT32_MAX)
			seg_set(&c->parts[p], i, v, g);
	}
}

static void ctx_init(ctx_t *c, sched_t *s)
{
	memset(c, 0, sizeof(*c));
	c->s = s;
	c->parts = xcalloc(s->nparts ? s->nparts : 1, sizeof(*c->parts));
	cmp_sched = s;
	for (uint32_t p = 0; p < s->nparts; p++) {
		part_ctx_t *pc = &c->parts[p];
		pc->n = s->parts[p].nnodes;
		pc->order = xmalloc((pc->n ? pc->n : 1) * sizeof(uint32_t));
		uint32_t k = 0;
		for (uint32_t i = 0; i < pc->n; i++)
			if (s->parts[p].nodes[i] < s->nnodes)
				pc->order[k++] = s->parts[p].nodes[i];
		pc->n = k;
		qsort(pc->order, pc->n, sizeof(uint32_t), node_order_cmp);
		pc->size = 1;
		while (pc->size < pc->n)
			pc->size <<= 1;
		pc->tree = xcalloc(2 * (size_t)pc->size, sizeof(uint32_t));
		pc->gtree = xcalloc(2 * (size_t)pc->size, sizeof(uint32_t));
		for (uint32_t i = 0; i < pc->n; i++) {
			pc->tree[pc->size + i] = node_free_cpus(&s->nodes[pc->order[i]]);
			pc->gtree[pc->size + i] = node_free_gpus(&s->nodes[pc->order[i]]);
		}
		for (uint32_t k = pc->size - 1; k >= 1; k--)
			seg_pull(pc, k);
	}
	c->pos = xmalloc(((size_t)s->nparts * s->nnodes + 1) * sizeof(uint32_t));
	memset(c->pos, 0xff, ((size_t)s->nparts * s->nnodes + 1) * sizeof(uint32_t));
	for (uint32_t p = 0; p < s->nparts; p++)
		for (uint32_t i = 0; i < c->parts[p].n; i++)
			c->pos[(size_t)p * s->nnodes + c->parts[p].order[i]] = i;
	c->mark = xcalloc(s->nnodes ? s->nnodes : 1, 1);
	c->cands = xmalloc((s->nnodes ? s->nnodes : 1) * sizeof(cand_t));
	int maxleaf = -1;
	for (uint32_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i].leaf > maxleaf)
			maxleaf = s->nodes[i].leaf;
	c->nleaves = maxleaf + 1;
	if (c->nleaves) {
		c->leaf_cnt = xcalloc((size_t)c->nleaves, sizeof(uint32_t));
		c->leaf_cap = xcalloc((size_t)c->nleaves, sizeof(uint32_t));
		c->leaf_gpu = xcalloc((size_t)c->nleaves, sizeof(uint32_t));
	}
}

static void ctx_release(ctx_t *c)
{
	for (uint32_t p = 0; p < c->s->nparts; p++) {
		free(c->parts[p].order);
		free(c->parts[p].tree);
		free(c->parts[p].gtree);
	}
	free(c->parts);
	free(c->pos);
	free(c->mark);
	free(c->cands);
	free(c->leaf_cnt);
	free(c->leaf_cap);
	free(c->leaf_gpu);
}

/* Is the candidate set enough? (count, tasks, gpus) */
static int enough(const req_t *r, uint32_t cnt, uint64_t tasks, uint64_t gpus)
{
	return cnt >= r->min_nodes && tasks >= r->ntasks && gpus >= r->gpj;
}

static int cand_cap_cmp(const void *a, const void *b)
{
	const cand_t *x = a, *y = b;
	if (x->cap != y->cap)
		return x->cap > y->cap ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int cand_node_cmp(const void *a, const void *b)
{
	const cand_t *x = a, *y = b;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* Choose nodes among the candidates c[0..n) (in preference order, required
 * nodes first): the shortest prefix that is enough, else (when max_nodes
 * limits the count) the max_nodes with the largest capacity. Returns the
 * count chosen (moved to the front of c), 0 if it cannot fit. */
static uint32_t choose(const req_t *r, cand_t *c, uint32_t n, uint32_t nreq)
{
	uint64_t tasks = 0, gpus = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i >= r->max_nodes)
			break;
		tasks += c[i].cap;
		gpus += c[i].gfree;
		if (i + 1 >= nreq && enough(r, i + 1, tasks, gpus))
			return i + 1;
	}
	if (n <= r->max_nodes)
		return 0;
	/* Largest capacities first (required nodes stay in front). */
	qsort(c + nreq, n - nreq, sizeof(*c), cand_cap_cmp);
	tasks = gpus = 0;
	for (uint32_t i = 0; i < r->max_nodes; i++) {
		tasks += c[i].cap;
		gpus += c[i].gfree;
	}
	if (!enough(r, r->max_nodes, tasks, gpus))
		return 0;
	qsort(c + nreq, r->max_nodes - nreq, sizeof(*c), cand_node_cmp);
	return r->max_nodes;
}

/* Build the allocation from the chosen candidates. */
static void build_alloc(const sched_t *s, const sched_job_t *j, const req_t *r,
			const cand_t *c, uint32_t k, sched_alloc_t *a)
{
	memset(a, 0, sizeof(*a));
	a->nnodes = k;
	a->nodes = xmalloc(k * sizeof(uint32_t));
	a->cpus = xmalloc(k * sizeof(uint32_t));
	a->mem = xcalloc(k, sizeof(uint64_t));
	a->gpus = xcalloc(k, sizeof(uint64_t));
	a->tasks = xmalloc(k * sizeof(uint32_t));
	a->exclusive = j->exclusive;
	/* Keep the node order ascending (required nodes may be anywhere). */
	cand_t *sorted = xmalloc(k * sizeof(cand_t));
	memcpy(sorted, c, k * sizeof(cand_t));
	qsort(sorted, k, sizeof(cand_t), cand_node_cmp);
	uint32_t left = r->ntasks;
	for (uint32_t i = 0; i < k; i++) {
		a->nodes[i] = sorted[i].node;
		a->tasks[i] = 1;
		left--;
	}
	for (uint32_t i = 0; i < k && left; i++) {
		uint32_t more = sorted[i].cap - 1;
		if (more > left)
			more = left;
		a->tasks[i] += more;
		left -= more;
	}
	uint32_t gleft = r->gpj;
	for (uint32_t i = 0; i < k; i++) {
		const sched_node_t *n = &s->nodes[a->nodes[i]];
		a->cpus[i] = j->exclusive ? n->cpus : a->tasks[i] * r->cpt;
		if (r->mem_node)
			a->mem[i] = r->mem_node;
		else if (r->mem_per_cpu)
			a->mem[i] = r->mem_per_cpu * a->cpus[i];
		if (n->mem && a->mem[i] > n->mem)
			a->mem[i] = n->mem;
		uint64_t avail = gpu_mask(n, r->gtype) & ~n->gpus_used;
		uint32_t want = r->gpn;
		if (gleft) {
			uint32_t f = (uint32_t)__builtin_popcountll(avail);
			want = f < gleft ? f : gleft;
			gleft -= want;
		}
		a->gpus[i] = want ? gpu_take(avail, want) : 0;
	}
	free(sorted);
}

enum { SEL_OK = 0, SEL_BUSY, SEL_NOT_AVAIL };

/* Best fit by leaf compares this many leaves that could hold the job (the
 * first ones in node order) instead of every leaf of the cluster. */
#define SCHED_LEAF_LOOKAHEAD 8

/* Find an allocation for job j. SEL_NOT_AVAIL sets *detail to the
 * required nodes that are not usable. */
static int select_nodes(ctx_t *c, const sched_job_t *j, const req_t *r,
			sched_alloc_t *a, char **detail)
{
	sched_t *s = c->s;
	part_ctx_t *pc = &c->parts[j->part];
	uint32_t n = 0, nreq = 0;
	int rc = SEL_OK;

	/* Required nodes first: each must be usable and fit. */
	for (uint32_t i = 0; i < j->nreq_nodes; i++) {
		uint32_t x = j->req_nodes[i];
		if (x >= s->nnodes || c->mark[x])
			continue;
		const sched_node_t *nd = &s->nodes[x];
		if (!nd->usable) {
			if (rc != SEL_NOT_AVAIL) {
				rc = SEL_NOT_AVAIL;
				/* collect all unavailable ones */
			}
			c->mark[x] = 3;
			continue;
		}
		uint32_t gf = 0, cap = node_cap(nd, j, r, 0, &gf);
		c->mark[x] = 2;
		if (!cap) {
			if (rc == SEL_OK)
				rc = SEL_BUSY;
			continue;
		}
		c->cands[n++] = (cand_t){ x, cap, gf };
	}
	if (rc == SEL_NOT_AVAIL) {
		const char **names = xmalloc(j->nreq_nodes * sizeof(char *));
		size_t k = 0;
		for (uint32_t i = 0; i < j->nreq_nodes; i++)
			if (j->req_nodes[i] < s->nnodes && c->mark[j->req_nodes[i]] == 3)
				names[k++] = s->nodes[j->req_nodes[i]].name;
		char *hl = hostlist_compress(names, k);
		*detail = xasprintf("UnavailableNodes:%s", hl);
		free(hl);
		free(names);
	}
	nreq = n;
	if (rc != SEL_OK || nreq >= r->max_nodes)
		goto pick;
	for (uint32_t i = 0; i < j->nexc_nodes; i++)
		if (j->exc_nodes[i] < s->nnodes && !c->mark[j->exc_nodes[i]])
			c->mark[j->exc_nodes[i]] = 1;

	/* Best fit by leaf looks at more candidates (until a few leaves
	 * could hold the job); otherwise stop at the first fit. */
	int by_leaf = c->nleaves && !nreq && (r->min_nodes > 1 || r->gpj);
	int leaves_fit = 0;
	if (by_leaf) {
		memset(c->leaf_cnt, 0, (size_t)c->nleaves * sizeof(uint32_t));
		memset(c->leaf_cap, 0, (size_t)c->nleaves * sizeof(uint32_t));
		memset(c->leaf_gpu, 0, (size_t)c->nleaves * sizeof(uint32_t));
	}
	uint64_t tasks = 0, gpus = 0;
	for (uint32_t i = 0; i < nreq; i++) {
		tasks += c->cands[i].cap;
		gpus += c->cands[i].gfree;
	}
	/* A one-node job needs all of it on one node: let the tree skip the
	 * nodes that are too small. */
	int one = r->max_nodes == 1;
	uint32_t needc = j->exclusive ? 1 : r->cpt, needg = r->gpn;
	if (one && !j->exclusive)
		needc = r->ntasks * r->cpt;
	if (one && r->gpj > needg)
		needg = r->gpj;
	for (uint32_t i = seg_find(pc, 0, needc, needg); i < pc->n;
	     i = seg_find(pc, i + 1, needc, needg)) {
		uint32_t x = pc->order[i];
		if (c->mark[x])
			continue;
		const sched_node_t *nd = &s->nodes[x];
		if (node_dead(nd))
			continue;
		if (j->features && !features_match(nd->features, j->features))
			continue;
		uint32_t gf = 0, cap = node_cap(nd, j, r, 0, &gf);
		if (!cap || (one && !nreq && (cap < r->ntasks || gf < r->gpj)))
			continue;
		c->cands[n++] = (cand_t){ x, cap, gf };
		tasks += cap;
		gpus += gf;
		if (by_leaf && nd->leaf >= 0) {
			int l = nd->leaf;
			int was = c->leaf_cnt[l] && enough(r, c->leaf_cnt[l], c->leaf_cap[l], c->leaf_gpu[l]);
			c->leaf_cnt[l]++;
			c->leaf_cap[l] += cap;
			c->leaf_gpu[l] += gf;
			if (!was && enough(r, c->leaf_cnt[l], c->leaf_cap[l], c->leaf_gpu[l]) &&
			    ++leaves_fit >= SCHED_LEAF_LOOKAHEAD)
				break;
		}
		if (!by_leaf && n <= r->max_nodes && enough(r, n, tasks, gpus))
			break;
	}
	if (by_leaf && n > 1) {
		int best = -1;
		for (int l = 0; l < c->nleaves; l++) {
			if (!c->leaf_cnt[l] || !enough(r, c->leaf_cnt[l], c->leaf_cap[l], c->leaf_gpu[l]))
				continue;
			if (best < 0 || c->leaf_cnt[l] < c->leaf_cnt[best])
				best = l;
		}
		if (best >= 0) {
			uint32_t k = 0;
			for (uint32_t i = 0; i < n; i++)
				if (s->nodes[c->cands[i].node].leaf == best)
					c->cands[k++] = c->cands[i];
			uint32_t got = choose(r, c->cands, k, 0);
			if (got) {
				build_alloc(s, j, r, c->cands, got, a);
				goto done;
			}
		}
	}
pick:
	if (rc == SEL_OK) {
		uint32_t got = choose(r, c->cands, n, nreq);
		if (got)
			build_alloc(s, j, r, c->cands, got, a);
		else
			rc = SEL_BUSY;
	}
done:
	for (uint32_t i = 0; i < j->nreq_nodes; i++)
		if (j->req_nodes[i] < s->nnodes)
			c->mark[j->req_nodes[i]] = 0;
	for (uint32_t i = 0; i < j->nexc_nodes; i++)
		if (j->exc_nodes[i] < s->nnodes)
			c->mark[j->exc_nodes[i]] = 0;
	return rc;
}

/* ---- validation ---- */

int sched_job_validate(const sched_t *s, const sched_job_t *j)
{
	if (j->part >= s->nparts)
		return ESLURM_INVALID_PARTITION_NAME;
	const sched_part_t *p = &s->parts[j->part];
	req_t r;
	req_init(s, j, &r);
	uint8_t *in_part = xcalloc(s->nnodes ? s->nnodes : 1, 1);
	for (uint32_t i = 0; i < p->nnodes; i++)
		if (p->nodes[i] < s->nnodes)
			in_part[p->nodes[i]] = 1;
	int rc = 0;
	for (uint32_t i = 0; i < j->nreq_nodes; i++)
		if (j->req_nodes[i] >= s->nnodes || !in_part[j->req_nodes[i]]) {
			rc = ESLURM_REQUESTED_NODES_NOT_IN_PARTITION;
			goto out;
		}
	for (uint32_t i = 0; i < j->nexc_nodes; i++)
		if (j->exc_nodes[i] < s->nnodes)
			in_part[j->exc_nodes[i]] = 0;
	if (j->features) {
		int anywhere = 0;
		for (uint32_t i = 0; i < s->nnodes && !anywhere; i++)
			anywhere = features_match(s->nodes[i].features, j->features);
		if (!anywhere) {
			rc = ESLURM_INVALID_FEATURE;
			goto out;
		}
	}
	/* Sum what the usable-shaped nodes could hold if all were empty. The
	 * node count itself is not checked here: Slurm (EnforcePartLimits=NO)
	 * accepts it and the job pends with PartitionConfig. */
	uint64_t tasks = 0, gpus = 0;
	uint32_t cnt = 0;
	for (uint32_t i = 0; i < s->nnodes; i++) {
		if (!in_part[i])
			continue;
		const sched_node_t *nd = &s->nodes[i];
		if (j->features && !features_match(nd->features, j->features))
			continue;
		uint32_t gf = 0, cap = node_cap(nd, j, &r, 1, &gf);
		if (!cap)
			continue;
		cnt++;
		tasks += cap;
		gpus += gf;
	}
	if (!cnt) {
		rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		goto out;
	}
	if (cnt >= r.min_nodes && r.min_nodes <= p->nnodes) {
		/* Enough nodes exist: the total must fit (within max_nodes). */
		if (tasks < r.ntasks && r.max_nodes >= cnt)
			rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		else if (gpus < r.gpj)
			rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
out:
	free(in_part);
	return rc;
}

/* ---- the pass ---- */

static sched_job_t *sort_base;
static int job_idx_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return sched_job_cmp(&sort_base[x], &sort_base[y]);
}

static uint32_t part_max_time(const sched_part_t *p)
{
	return p->max_time ? p->max_time : TIME_INFINITE;
}

void sched_pass(sched_t *s, sched_job_t *jobs, uint32_t n, int64_t now,
		sched_decision_t **out)
{
	sched_decision_t *d = xcalloc(n ? n : 1, sizeof(*d));
	uint32_t *idx = xmalloc((n ? n : 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++)
		idx[i] = i;
	sort_base = jobs;
	qsort(idx, n, sizeof(uint32_t), job_idx_cmp);
	ctx_t c;
	ctx_init(&c, s);

	for (uint32_t k = 0; k < n; k++) {
		sched_job_t *j = &jobs[idx[k]];
		sched_decision_t *dd = &d[k];
		dd->job_index = idx[k];
		if (j->held) {
			dd->reason = j->held_reason ? j->held_reason : WAIT_HELD_USER;
			continue;
		}
		if (j->dependency_wait) {
			dd->reason = j->dependency_wait == 2 ? WAIT_DEP_INVALID : WAIT_DEPENDENCY;
			continue;
		}
		if (j->begin_time > now) {
			dd->reason = WAIT_TIME;
			continue;
		}
		if (j->part >= s->nparts) {
			dd->reason = WAIT_PART_CONFIG;
			continue;
		}
		const sched_part_t *p = &s->parts[j->part];
		part_ctx_t *pc = &c.parts[j->part];
		if (!p->up) {
			dd->reason = p->inactive ? WAIT_PART_INACTIVE : WAIT_PART_DOWN;
			continue;
		}
		if (j->time_limit != TIME_NO_VAL && j->time_limit != TIME_INFINITE &&
		    part_max_time(p) != TIME_INFINITE && j->time_limit > part_max_time(p)) {
			dd->reason = WAIT_PART_TIME_LIMIT;
			continue;
		}
		if (j->time_limit == TIME_INFINITE && part_max_time(p) != TIME_INFINITE) {
			dd->reason = WAIT_PART_TIME_LIMIT;
			continue;
		}
		req_t r;
		req_init(s, j, &r);
		if (r.min_nodes > pc->n) {
			dd->reason = WAIT_PART_CONFIG;
			continue;
		}
		if ((p->max_nodes && p->max_nodes != UINT32_MAX && r.min_nodes > p->max_nodes) ||
		    (p->min_nodes && r.max_nodes < p->min_nodes)) {
			dd->reason = WAIT_PART_NODE_LIMIT;
			continue;
		}
		if (pc->blocked) {
			dd->reason = WAIT_PRIORITY;
			continue;
		}
		char *detail = NULL;
		int rc = select_nodes(&c, j, &r, &dd->alloc, &detail);
		if (rc == SEL_OK) {
			dd->start = 1;
			dd->reason = WAIT_NO_REASON;
			sched_alloc_commit(s, &dd->alloc);
			for (uint32_t i = 0; i < dd->alloc.nnodes; i++)
				ctx_node_changed(&c, dd->alloc.nodes[i]);
		} else if (rc == SEL_NOT_AVAIL) {
			dd->reason = WAIT_NODE_NOT_AVAIL;
			dd->reason_detail = detail;
		} else {
			dd->reason = WAIT_RESOURCES;
			pc->blocked = 1;
		}
	}
	ctx_release(&c);
	free(idx);
	*out = d;
}

void sched_decisions_free(sched_decision_t *d, uint32_t n)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < n; i++) {
		free(d[i].reason_detail);
		sched_alloc_free(&d[i].alloc);
	}
	free(d);
}

/* ---- allocations ---- */

void sched_alloc_commit(sched_t *s, const sched_alloc_t *a)
{
	for (uint32_t i = 0; i < a->nnodes; i++) {
		if (a->nodes[i] >= s->nnodes)
			continue;
		sched_node_t *n = &s->nodes[a->nodes[i]];
		n->cpus_used += a->cpus[i];
		n->mem_used += a->mem[i];
		n->gpus_used |= a->gpus[i];
		n->njobs++;
		if (a->exclusive)
			n->exclusive = 1;
	}
}

void sched_alloc_release(sched_t *s, const sched_alloc_t *a)
{
	for (uint32_t i = 0; i < a->nnodes; i++) {
		if (a->nodes[i] >= s->nnodes)
			continue;
		sched_node_t *n = &s->nodes[a->nodes[i]];
		n->cpus_used = n->cpus_used > a->cpus[i] ? n->cpus_used - a->cpus[i] : 0;
		n->mem_used = n->mem_used > a->mem[i] ? n->mem_used - a->mem[i] : 0;
		n->gpus_used &= ~a->gpus[i];
		if (n->njobs)
			n->njobs--;
		if (a->exclusive)
			n->exclusive = 0;
	}
}

void sched_alloc_free(sched_alloc_t *a)
{
	if (!a)
		return;
	free(a->nodes);
	free(a->cpus);
	free(a->mem);
	free(a->gpus);
	free(a->tasks);
	memset(a, 0, sizeof(*a));
}

void sched_alloc_copy(sched_alloc_t *dst, const sched_alloc_t *src)
{
	uint32_t k = src->nnodes;
	memset(dst, 0, sizeof(*dst));
	dst->nnodes = k;
	dst->exclusive = src->exclusive;
	if (!k)
		return;
	dst->nodes = xmalloc(k * sizeof(uint32_t));
	dst->cpus = xmalloc(k * sizeof(uint32_t));
	dst->mem = xmalloc(k * sizeof(uint64_t));
	dst->gpus = xmalloc(k * sizeof(uint64_t));
	dst->tasks = xmalloc(k * sizeof(uint32_t));
	memcpy(dst->nodes, src->nodes, k * sizeof(uint32_t));
	memcpy(dst->cpus, src->cpus, k * sizeof(uint32_t));
	memcpy(dst->mem, src->mem, k * sizeof(uint64_t));
	memcpy(dst->gpus, src->gpus, k * sizeof(uint64_t));
	memcpy(dst->tasks, src->tasks, k * sizeof(uint32_t));
}
