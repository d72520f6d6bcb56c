/*
 * sched_select.c: node selection for the scheduler core: --constraint
 * features, GPU and core picking, the per-job request (req_t), what a
 * node can hold, the pass context with its per-partition search trees,
 * placement over the topology, and submit-time validation.
 *
 * Placement (select/cons_tres + topology/tree): nodes in (Weight, index)
 * order; multi-node jobs on a cluster with leaf switches go to the leaf
 * with the fewest candidate nodes that can hold the whole job (best fit),
 * else span as few leaves as possible (largest first, the last one the
 * smallest that completes the job). --switches=N@wait refuses placements
 * over N leaves until the wait has passed; TopologyParam=TopoOptional
 * limits topology-aware placement to jobs that asked for --switches.
 *
 * Performance: each partition keeps a segment tree (max free CPUs and
 * GPUs) over its ordered nodes, so the main search jumps straight to the
 * next node with room; best fit by leaf looks at a bounded number of
 * fitting leaves (bench/sched_pass.c, docs/benchmarks.md).
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"
#include "sched_int.h"

#include "errors.h"
#include "hostlist.h"
#include "states.h"
#include "xalloc.h"

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
 * '&' (or ','); '&' binds tighter, as in Slurm. Per node: brackets read
 * as plain and/or, and a counted feature ("a*2") is left to the node
 * choice (feat_req_t), as is which alternative of "[a|b]" the job gets. */
int sched_features_match(const char *node_features, const char *expr)
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
		if (*p == '*') {        /* counted: checked over the job's nodes */
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
		} else if (l && !has_feature(node_features, s, l)) {
			term_ok = 0;
		}
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

/* ---- feature counts and matching OR (--constraint) ----
 * "[a|b|c]": every node of the job has the same one of them (matching
 * OR); "a*2" / "[a*2&b*4]": at least that many of the job's nodes have
 * the feature (the others need not). Plain "a&b", "a|b" are per node
 * (features_match). */
static void feat_parse(const char *e, feat_req_t *f)
{
	memset(f, 0, sizeof(*f));
	if (!e || (!strchr(e, '*') && !strchr(e, '[')))
		return;
	int counts = strchr(e, '*') != NULL;
	const char *lb = strchr(e, '[');
	if (!counts && !(lb && strchr(lb, '|')))
		return;          /* "[a&b]": brackets only group */
	f->mor = !counts;
	const char *p = f->mor ? lb + 1 : e;
	while (*p && f->n < SCHED_FEAT_MAX) {
		while (*p && strchr("&,|[]() ", *p))
			p++;
		const char *s = p;
		while (*p && !strchr("&,|[]() *", *p))
			p++;
		uint32_t len = (uint32_t)(p - s), count = 0;
		if (*p == '*') {
			count = (uint32_t)strtoul(p + 1, NULL, 10);
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
		}
		if (f->mor && len) {
			f->t[f->n].name = s;
			f->t[f->n++].len = len;
			if (*p == ']')
				break;
		} else if (len && count) {
			f->t[f->n].name = s;
			f->t[f->n].len = len;
			f->t[f->n++].count = count;
			f->total += count;
		}
	}
}


/* ---- GPUs ---- */

static int gpu_type_ok(const sched_gpu_type_t *t, const char *want)
{
	return !want[0] || !strcmp(t->type, want);
}

/* Mask of the node's gpu indices of the wanted type ("" any). */
uint64_t sched_gpu_mask(const sched_node_t *n, const char *want)
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
		if (t->first >= SCHED_MAX_GPUS || !t->count)
			continue;
		uint32_t c = t->count;
		if (c > SCHED_MAX_GPUS - t->first)
			c = SCHED_MAX_GPUS - t->first;
		m |= (c >= 64 ? ~0ull : ((1ull << c) - 1)) << t->first;
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

/* ---- CPU units (SelectTypeParameters) and shared CPUs (OverSubscribe) ---- */

static uint32_t node_unit(const sched_node_t *n)
{
	return n->cpu_unit > 1 ? n->cpu_unit : 1;
}

static uint32_t round_unit(uint32_t cpus, uint32_t u)
{
	return u > 1 ? (cpus + u - 1) / u * u : cpus;
}

static int bit_get(const uint64_t *m, uint32_t i)
{
	return (m[i / 64] >> (i % 64)) & 1;
}

/* CPU ids of node n that are free or held by at most `level`
 * oversubscribing jobs (level 0: free only), into out (core_words). */
static void cores_level(const sched_node_t *n, uint32_t level, uint64_t *out)
{
	memset(out, 0, n->core_words * sizeof(uint64_t));
	for (uint32_t c = 0; c < n->cpus; c++) {
		int used = bit_get(n->cores_used, c);
		if (!used || (level && n->cpu_share && n->cpu_share[c] && n->cpu_share[c] <= level))
			out[c / 64] |= 1ull << (c % 64);
	}
}

/* CPUs an oversubscribing job (share > 1) can have on node n: whole
 * units whose CPUs are each free or shared by fewer than share jobs. */
uint32_t sched_shared_cpus_avail(const sched_node_t *n, uint32_t share)
{
	if (!n->cores_used || !n->cpu_share)
		return n->cpus > n->cpus_used ? n->cpus - n->cpus_used : 0;
	uint32_t u = node_unit(n), avail = 0;
	for (uint32_t c0 = 0; c0 < n->cpus; c0 += u) {
		uint32_t c1 = c0 + u < n->cpus ? c0 + u : n->cpus, ok = 1;
		for (uint32_t c = c0; c < c1 && ok; c++)
			ok = !bit_get(n->cores_used, c) ||
				(n->cpu_share[c] && n->cpu_share[c] < share);
		if (ok)
			avail += c1 - c0;
	}
	return avail;
}

/* CPU ids allocation a holds on its i-th node: its CPU count unless it
 * has ids (under CR_CPU a 1-CPU job holds a whole core). */
uint32_t sched_alloc_node_ids(const sched_alloc_t *a, uint32_t i)
{
	if (!a->cores || !a->cwords)
		return a->cpus[i];
	uint32_t c = 0;
	for (uint32_t w = 0; w < a->cwords; w++)
		c += (uint32_t)__builtin_popcountll(a->cores[(size_t)i * a->cwords + w]);
	return c;
}

/* ---- CPU ids and GPU affinity ---- */

/* Free CPU ids of a node with core tracking, into free (core_words). */
void sched_cores_free(const sched_node_t *n, uint64_t *free_)
{
	for (uint32_t w = 0; w < n->core_words; w++) {
		uint64_t valid = ~0ull;
		if ((uint64_t)(w + 1) * 64 > n->cpus)
			valid = n->cpus > w * 64u ? ((1ull << (n->cpus - w * 64u)) - 1) : 0;
		free_[w] = valid & ~n->cores_used[w];
	}
}

static uint32_t bits_and_count(const uint64_t *a, const uint64_t *b, uint32_t words)
{
	uint32_t c = 0;
	for (uint32_t w = 0; w < words; w++)
		c += (uint32_t)__builtin_popcountll(b ? a[w] & b[w] : a[w]);
	return c;
}

/* Take up to *left lowest bits of (avail & pref) into out, clearing them
 * from avail (pref NULL: any). */
void sched_bits_take(uint64_t *avail, const uint64_t *pref, uint64_t *out,
		     uint32_t words, uint32_t *left)
{
	for (uint32_t w = 0; w < words && *left; w++) {
		uint64_t m = pref ? avail[w] & pref[w] : avail[w];
		while (m && *left) {
			uint64_t low = m & -m;
			m &= ~low;
			avail[w] &= ~low;
			out[w] |= low;
			(*left)--;
		}
	}
}

/* Take whole CPU units of node n (aligned groups of cpu_unit ids) whose
 * ids are all in avail and, with pref, one of them in pref; lowest first
 * until *left CPUs are taken. */
static void units_take(uint64_t *avail, const uint64_t *pref, uint64_t *out,
		       const sched_node_t *n, uint32_t *left)
{
	uint32_t u = node_unit(n);
	if (u == 1) {
		sched_bits_take(avail, pref, out, n->core_words, left);
		return;
	}
	for (uint32_t c0 = 0; c0 < n->cpus && *left; c0 += u) {
		uint32_t c1 = c0 + u < n->cpus ? c0 + u : n->cpus;
		int ok = 1, near = !pref;
		for (uint32_t c = c0; c < c1 && ok; c++) {
			ok = bit_get(avail, c);
			if (pref && bit_get(pref, c))
				near = 1;
		}
		if (!ok || !near)
			continue;
		for (uint32_t c = c0; c < c1; c++) {
			avail[c / 64] &= ~(1ull << (c % 64));
			out[c / 64] |= 1ull << (c % 64);
		}
		*left = *left > c1 - c0 ? *left - (c1 - c0) : 0;
	}
}

/* Choose `want` GPUs out of avail and `ncpus` CPU ids for a job on node n
 * (cons_tres with gres.conf Cores=): GPUs whose close CPUs are free win
 * (capped at what the job needs, so ties go to the lowest index), then the
 * job's CPUs come first from those GPUs' close CPUs, then lowest free,
 * in whole units. An oversubscribing job (share > 1) takes free CPUs
 * first, then the least shared ones. Without core tracking only the GPUs
 * are chosen (lowest indices). */
static uint64_t gpus_cores_pick(const sched_node_t *n, uint64_t avail, uint32_t want,
				uint32_t ncpus, uint32_t share, uint64_t *cores_out)
{
	if (!n->cores_used || !n->core_words)
		return want ? gpu_take(avail, want) : 0;
	uint32_t W = n->core_words;
	uint64_t *fr = xcalloc(W, sizeof(uint64_t));
	sched_cores_free(n, fr);
	uint64_t gpus = 0;
	if (want && n->gpu_cores) {
		/* Greedy by score; GPUs number at most 64, wants are small. */
		uint64_t left = avail;
		for (uint32_t k = 0; k < want && left; k++) {
			int best = -1;
			uint32_t best_sc = 0;
			for (uint64_t m = left; m; m &= m - 1) {
				uint32_t g = (uint32_t)__builtin_ctzll(m);
				uint32_t sc = g < n->ngpus ?
					bits_and_count(fr, n->gpu_cores + (size_t)g * W, W) : 0;
				if (sc > ncpus)
					sc = ncpus;
				if (best < 0 || sc > best_sc) {
					best = (int)g;
					best_sc = sc;
				}
			}
			gpus |= 1ull << best;
			left &= ~(1ull << best);
		}
		if ((uint32_t)__builtin_popcountll(gpus) < want)
			gpus = 0;
	} else if (want) {
		gpus = gpu_take(avail, want);
	}
	uint32_t left = ncpus;
	uint64_t *near = NULL;
	if (gpus && n->gpu_cores) {
		near = xcalloc(W, sizeof(uint64_t));
		for (uint64_t m = gpus; m; m &= m - 1) {
			uint32_t g = (uint32_t)__builtin_ctzll(m);
			for (uint32_t w = 0; g < n->ngpus && w < W; w++)
				near[w] |= n->gpu_cores[(size_t)g * W + w];
		}
	}
	for (uint32_t level = 0; level < share && left; level++) {
		if (level) {
			cores_level(n, level, fr);
			for (uint32_t w = 0; w < W; w++)
				fr[w] &= ~cores_out[w];
		}
		if (near)
			units_take(fr, near, cores_out, n, &left);
		units_take(fr, NULL, cores_out, n, &left);
	}
	free(near);
	free(fr);
	return gpus;
}

/* ---- per job derived request ---- */

void sched_req_init(const sched_t *s, const sched_job_t *j, req_t *r)
{
	memset(r, 0, sizeof(*r));
	r->min_nodes = j->min_nodes ? j->min_nodes : 1;
	if (j->nreq_nodes > r->min_nodes)
		r->min_nodes = j->nreq_nodes;
	feat_parse(j->features, &r->feat);
	if (r->feat.total > r->min_nodes)   /* "[a*2&b*4]": at least 6 nodes */
		r->min_nodes = r->feat.total;
	r->max_nodes = j->max_nodes ? j->max_nodes : r->min_nodes;
	if (r->max_nodes < r->min_nodes)
		r->max_nodes = r->min_nodes;
	r->cpt = j->cpus_per_task ? j->cpus_per_task : 1;
	r->tpn = j->ntasks_per_node;
	r->ntasks = j->ntasks ? j->ntasks : 1;
	if (r->tpn && !j->ntasks)
		r->ntasks = sched_mul_sat(r->tpn, r->min_nodes);
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
	r->cpg = j->cpus_per_gpu;
	r->mpg = j->mem_per_gpu;
	if (j->gpus_per_task) {
		/* Per task wins over per node/job: GPUs follow the tasks. */
		r->gpt = j->gpus_per_task;
		r->gpn = r->gpj = 0;
		if (r->cpg && r->cpt < sched_mul_sat(r->gpt, r->cpg))
			r->cpt = sched_mul_sat(r->gpt, r->cpg);
	}
	if (r->mpg) {
		/* Memory follows the GPUs, not the CPUs. */
		r->mem_node = 0;
		r->mem_per_cpu = 0;
	}
	r->share = 1;
	r->whole = r->excl = j->exclusive;
	if (j->part < s->nparts) {
		const sched_part_t *p = &s->parts[j->part];
		if (p->max_share > 1 && (p->force_share || (j->oversubscribe && !j->exclusive))) {
			r->share = p->max_share > 255 ? 255 : p->max_share;
			/* FORCE: "without any means for users to disable it"
			 * (slurm.conf(5)): an --exclusive job gets every CPU and
			 * GPU, and others still share its CPUs. */
			r->excl = 0;
		}
	}
	r->otpc = s->params.one_task_per_core;
	r->mem_free_all = s->params.mem_not_consumed;
	r->contig = j->contiguous;
	r->excl_user = j->exclusive_user && !j->exclusive;
	r->count_ids = s->params.cr_unit == SCHED_CR_CPU;
	r->mincpus = j->pn_min_cpus;
	r->tmp = j->pn_min_tmp;
	/* man srun: overcommit does not apply to jobs that want whole nodes */
	r->overcommit = j->overcommit && !j->exclusive;
	r->rv_dur = sched_resv_dur(s, j);
}

/* CPUs one task needs on node n: whole cores each with
 * CR_ONE_TASK_PER_CORE. */
static uint32_t task_cpus(const sched_node_t *n, const req_t *r)
{
	return r->otpc ? round_unit(r->cpt, node_unit(n)) : r->cpt;
}

/* CPU ids a node gives for `tasks` tasks (plus GPU-bound CPUs): rounded
 * up to whole units, at most the node's. With ids 0 the job's CPU count
 * instead: not rounded under CR_CPU. */
static uint32_t node_cpus_for(const sched_node_t *n, const req_t *r, uint32_t tasks,
			      uint32_t gpus, int ids)
{
	/* -O: the CPUs of one task per node, whatever the tasks (man srun);
	 * else at least --mincpus (not with -O: Slurm 22.05 gives an
	 * overcommitting job one task's CPUs per node even then). */
	uint64_t c = (uint64_t)(r->overcommit && tasks ? 1 : tasks) * task_cpus(n, r);
	if (r->mincpus && !r->overcommit && c < r->mincpus)
		c = r->mincpus;
	if (r->cpg && c < (uint64_t)gpus * r->cpg)
		c = (uint64_t)gpus * r->cpg;
	if (c > UINT32_MAX)
		c = UINT32_MAX;
	if (ids || !r->count_ids)
		c = round_unit((uint32_t)c, node_unit(n));
	return c > n->cpus ? n->cpus : (uint32_t)c;
}

/* Tasks a node with the given free resources can take for the job (0:
 * none); *gfree gets the free GPUs of the wanted type. */
uint32_t sched_cap_free(const sched_node_t *n, const sched_job_t *j, const req_t *r,
			uint32_t cpus_free, uint64_t mem_free, uint64_t gavail, uint32_t *gfree)
{
	if (r->whole && cpus_free < n->cpus)
		return 0;
	if (r->excl && n->mem && mem_free < n->mem)
		return 0;
	if (r->whole && !r->gtype[0] && (uint32_t)__builtin_popcountll(gavail) < n->ngpus)
		return 0;
	/* --tmp and --mincpus: what the node has (TmpDisk is not consumed,
	 * as in Slurm) and what it has free now. */
	if (r->tmp && n->tmp_disk < r->tmp)
		return 0;
	if (r->mincpus && (n->cpus < r->mincpus || cpus_free < r->mincpus))
		return 0;
	uint32_t cap = cpus_free / task_cpus(n, r);
	/* -O: one task's CPUs hold any number of tasks */
	if (r->overcommit && cap)
		cap = r->ntasks;
	if (r->tpn && cap > r->tpn)
		cap = r->tpn;
	if (!cap)
		return 0;
	/* Memory: a node with RealMemory 0 is not accounted. */
	if (n->mem) {
		if (r->mem_node) {
			if (r->mem_node > mem_free)
				return 0;
		} else if (r->mem_per_cpu && !r->whole && r->overcommit) {
			if (r->mem_per_cpu * r->cpt > mem_free)
				return 0;
		} else if (r->mem_per_cpu && !r->whole) {
			uint64_t c = mem_free / (r->mem_per_cpu * r->cpt);
			if (c < cap)
				cap = (uint32_t)c;
		}
	}
	uint32_t gf = (uint32_t)__builtin_popcountll(gavail);
	if (r->gpn && gf < r->gpn)
		return 0;
	if (r->gpt) {
		uint64_t c = gf / r->gpt;
		if (r->mpg && n->mem)
			c = c < mem_free / (r->mpg * r->gpt) ? c : mem_free / (r->mpg * r->gpt);
		if (c < cap)
			cap = (uint32_t)c;
		if (!cap)
			return 0;
	}
	if (r->gpn && r->cpg && cpus_free < (uint64_t)r->gpn * r->cpg)
		return 0;
	if (r->gpn && r->mpg && n->mem && mem_free < r->gpn * r->mpg)
		return 0;
	if (r->gpj && r->cpg && gf > cpus_free / r->cpg)
		gf = cpus_free / r->cpg;      /* each GPU brings its CPUs */
	if (r->gpj && r->mpg && n->mem && gf > mem_free / r->mpg)
		gf = (uint32_t)(mem_free / r->mpg);
	if (gfree)
		*gfree = gf;
	return cap;
}

uint32_t sched_cap_empty(const sched_node_t *n, const sched_job_t *j, const req_t *r,
			 uint32_t *gfree)
{
	return sched_cap_free(n, j, r, n->cpus, n->mem, sched_gpu_mask(n, r->gtype), gfree);
}

/* Tasks node n can take for the job now (0: none). empty: judge the node
 * as if nothing ran on it (submit-time validation). */
static uint32_t node_cap(const sched_node_t *n, const sched_job_t *j, const req_t *r,
			 int empty, uint32_t *gfree)
{
	uint32_t cpus_free = n->cpus;
	uint64_t mem_free = n->mem;
	uint64_t gavail = sched_gpu_mask(n, r->gtype);
	if (!empty) {
		if (n->exclusive || (r->excl && n->njobs) || sched_user_blocked(n, j, r))
			return 0;
		cpus_free = sched_node_cpus_avail(n, r);
		mem_free = sched_node_mem_avail(n, r);
		gavail &= ~n->gpus_used;
	}
	return sched_cap_free(n, j, r, cpus_free, mem_free, gavail, gfree);
}

/* ---- the pass context ---- */

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
void sched_ctx_node_changed(ctx_t *c, uint32_t x)
{
	uint32_t v = node_free_cpus(&c->s->nodes[x]);
	uint32_t g = node_free_gpus(&c->s->nodes[x]);
	for (uint32_t p = 0; p < c->s->nparts; p++) {
		uint32_t i = c->pos[(size_t)p * c->s->nnodes + x];
		if (i != UINT32_MAX)
			seg_set(&c->parts[p], i, v, g);
	}
}

void sched_ctx_init(ctx_t *c, sched_t *s)
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
		c->leaf_tmp = xcalloc(3 * (size_t)c->nleaves, sizeof(uint32_t));
		c->leaf_seen = xcalloc((size_t)c->nleaves, 1);
		if (s->sw_parent && s->nswitches > (uint32_t)c->nleaves)
			c->sw_sum = xcalloc(3 * (size_t)s->nswitches, sizeof(uint32_t));
	}
	sched_resv_ctx_init(c);
}

void sched_ctx_release(ctx_t *c)
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
	free(c->leaf_tmp);
	free(c->sw_sum);
	free(c->leaf_seen);
	sched_resv_ctx_release(c);
}

/* Is the candidate set enough? (count, tasks, gpus) */
int sched_enough(const req_t *r, uint32_t cnt, uint64_t tasks, uint64_t gpus)
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

static uint32_t choose(const sched_t *s, const req_t *r, cand_t *c, uint32_t n, uint32_t nreq);

/* Does candidate node x have feature t of f? */
static int cand_has(const sched_t *s, uint32_t x, const feat_req_t *f, uint32_t t)
{
	return has_feature(s->nodes[x].features, f->t[t].name, f->t[t].len);
}

/* Counted features: for each term, its count of candidates with the
 * feature (required nodes count first), in preference order; then more
 * candidates until the job is satisfied, within max_nodes. */
static uint32_t choose_counts(const sched_t *s, const req_t *r, cand_t *c, uint32_t n,
			      uint32_t nreq)
{
	const feat_req_t *f = &r->feat;
	uint32_t k = nreq;
	for (uint32_t t = 0; t < f->n; t++) {
		uint32_t need = f->t[t].count;
		for (uint32_t i = 0; i < k && need; i++)
			need -= cand_has(s, c[i].node, f, t) && i < nreq;
		for (uint32_t i = k; i < n && need; i++)
			if (cand_has(s, c[i].node, f, t)) {
				/* to position k, keeping the others' order */
				cand_t tmp = c[i];
				memmove(c + k + 1, c + k, (i - k) * sizeof(*c));
				c[k++] = tmp;
				need--;
			}
		if (need)
			return 0;
	}
	uint64_t tasks = 0, gpus = 0;
	for (uint32_t i = 0; i < k; i++) {
		tasks += c[i].cap;
		gpus += c[i].gfree;
	}
	while (k < n && k < r->max_nodes && !sched_enough(r, k, tasks, gpus)) {
		tasks += c[k].cap;
		gpus += c[k].gfree;
		k++;
	}
	return k <= r->max_nodes && sched_enough(r, k, tasks, gpus) ? k : 0;
}

/* Matching OR: the first alternative whose candidates alone can hold
 * the job (every required node must have it too). */
static uint32_t choose_mor(const sched_t *s, const req_t *r, cand_t *c, uint32_t n,
			   uint32_t nreq)
{
	const feat_req_t *f = &r->feat;
	cand_t *tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
	req_t plain = *r;
	plain.feat.n = 0;
	uint32_t got = 0;
	for (uint32_t t = 0; t < f->n && !got; t++) {
		uint32_t m = 0, req_ok = 1;
		for (uint32_t i = 0; i < n; i++) {
			int has = cand_has(s, c[i].node, f, t);
			if (i < nreq && !has)
				req_ok = 0;
			if (has)
				tmp[m++] = c[i];
		}
		if (!req_ok)
			continue;
		got = choose(s, &plain, tmp, m, nreq);
		if (got)
			memcpy(c, tmp, got * sizeof(*c));
	}
	free(tmp);
	return got;
}

/* --contiguous: nodes with consecutive indexes (slurm.conf order). Among
 * the runs of consecutive candidates, the shortest run that can hold the
 * job (best fit, keeping long runs for larger jobs), and in it the first
 * shortest window that is enough and holds every required node (the
 * first nreq candidates). Returns the count (moved to the front of c). */
static uint32_t choose_contig(const req_t *r, cand_t *c, uint32_t n, uint32_t nreq)
{
	uint32_t lo_req = UINT32_MAX, hi_req = 0;
	for (uint32_t i = 0; i < nreq; i++) {
		lo_req = c[i].node < lo_req ? c[i].node : lo_req;
		hi_req = c[i].node > hi_req ? c[i].node : hi_req;
	}
	qsort(c, n, sizeof(*c), cand_node_cmp);
	uint32_t best = UINT32_MAX, best_k = 0, best_run = 0;
	for (uint32_t a = 0; a < n; ) {
		uint32_t b = a + 1;
		while (b < n && c[b].node == c[b - 1].node + 1)
			b++;
		/* Two pointers over the run [a, b): the shortest window from
		 * each start that is enough (sums only grow with the end). */
		uint64_t tasks = 0, gpus = 0;
		uint32_t e = a, found = UINT32_MAX, k = 0;
		for (uint32_t st = a; st < b && found == UINT32_MAX; st++) {
			while (e < b && !sched_enough(r, e - st, tasks, gpus)) {
				tasks += c[e].cap;
				gpus += c[e].gfree;
				e++;
			}
			if (sched_enough(r, e - st, tasks, gpus) && e - st <= r->max_nodes &&
			    (!nreq || (c[st].node <= lo_req && c[e - 1].node >= hi_req))) {
				found = st;
				k = e - st;
			}
			tasks -= c[st].cap;
			gpus -= c[st].gfree;
		}
		if (found != UINT32_MAX && (best == UINT32_MAX || b - a < best_run)) {
			best = found;
			best_k = k;
			best_run = b - a;
		}
		a = b;
	}
	if (best == UINT32_MAX)
		return 0;
	memmove(c, c + best, best_k * sizeof(*c));
	return best_k;
}

/* Choose nodes among the candidates c[0..n) (in preference order, required
 * nodes first): the shortest prefix that is enough, else (when max_nodes
 * limits the count) the max_nodes with the largest capacity. Returns the
 * count chosen (moved to the front of c), 0 if it cannot fit. */
static uint32_t choose(const sched_t *s, const req_t *r, cand_t *c, uint32_t n, uint32_t nreq)
{
	if (r->contig)
		return choose_contig(r, c, n, nreq);
	if (r->feat.n)
		return r->feat.mor ? choose_mor(s, r, c, n, nreq) : choose_counts(s, r, c, n, nreq);
	uint64_t tasks = 0, gpus = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i >= r->max_nodes)
			break;
		tasks += c[i].cap;
		gpus += c[i].gfree;
		if (i + 1 >= nreq && sched_enough(r, i + 1, tasks, gpus))
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
	if (!sched_enough(r, r->max_nodes, tasks, gpus))
		return 0;
	qsort(c + nreq, r->max_nodes - nreq, sizeof(*c), cand_node_cmp);
	return r->max_nodes;
}

/* Build the allocation from the chosen candidates. */
void sched_build_alloc(const sched_t *s, const sched_job_t *j, const req_t *r,
		       const cand_t *c, uint32_t k, sched_alloc_t *a)
{
	memset(a, 0, sizeof(*a));
	a->nnodes = k;
	a->nodes = xmalloc(k * sizeof(uint32_t));
	a->cpus = xmalloc(k * sizeof(uint32_t));
	a->mem = xcalloc(k, sizeof(uint64_t));
	a->gpus = xcalloc(k, sizeof(uint64_t));
	a->tasks = xmalloc(k * sizeof(uint32_t));
	a->exclusive = r->excl;
	a->shared = r->share > 1;
	a->uid = j->user_id;
	a->excl_user = r->excl_user;
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
		const sched_node_t *n = &s->nodes[sorted[i].node];
		if (n->cores_used && n->core_words > a->cwords)
			a->cwords = n->core_words;
	}
	if (a->cwords)
		a->cores = xcalloc((size_t)k * a->cwords, sizeof(uint64_t));
	for (uint32_t i = 0; i < k; i++) {
		const sched_node_t *n = &s->nodes[a->nodes[i]];
		uint64_t avail = sorted[i].gmask;
		uint32_t want = r->gpt ? a->tasks[i] * r->gpt : r->gpn;
		if (r->whole && !r->gpn && !r->gpj && !r->gpt) {
			/* As Slurm: a whole-node job holds every GPU too. */
			avail = sched_gpu_mask(n, "") & ~n->gpus_used;
			want = (uint32_t)__builtin_popcountll(avail);
		}
		if (gleft) {
			uint32_t f = (uint32_t)__builtin_popcountll(avail);
			if ((r->cpg || r->mpg) && sorted[i].gfree < f)
				f = sorted[i].gfree;
			want = f < gleft ? f : gleft;
			gleft -= want;
		}
		a->cpus[i] = r->whole ? n->cpus : node_cpus_for(n, r, a->tasks[i], want, 0);
		uint32_t ids = r->whole ? n->cpus : node_cpus_for(n, r, a->tasks[i], want, 1);
		/* Memory not consumed (CR_Core etc.): not recorded (Mem=0). */
		if (!r->mem_free_all) {
			if (r->mpg)
				a->mem[i] = want * r->mpg;
			else if (r->mem_node)
				a->mem[i] = r->mem_node;
			else if (r->mem_per_cpu)
				a->mem[i] = r->mem_per_cpu * a->cpus[i];
			if (n->mem && a->mem[i] > n->mem)
				a->mem[i] = n->mem;
		}
		a->gpus[i] = gpus_cores_pick(n, avail, want, ids, r->share,
					     a->cwords ? a->cores + (size_t)i * a->cwords : NULL);
	}
	free(sorted);
}

/* Best fit by leaf compares this many leaves that could hold the job (the
 * first ones in node order) instead of every leaf of the cluster. */
#define SCHED_LEAF_LOOKAHEAD 8

/* Does this job use topology-aware placement? (TopoOptional: only jobs
 * that asked for --switches.) */
static int job_by_leaf(const ctx_t *c, const sched_job_t *j, const req_t *r)
{
	if (!c->nleaves || j->nreq_nodes || r->contig || r->feat.n)
		return 0;
	if (c->s->params.topo_optional && !j->req_switch)
		return 0;
	/* Single-node jobs too, as Slurm's tree plugin: they go to the
	 * fullest leaf that fits, keeping emptier leaves whole for
	 * multi-node jobs. */
	return 1;
}

static uint32_t leaves_spanned(ctx_t *c, const cand_t *cd, uint32_t k)
{
	uint32_t cnt = 0;
	for (uint32_t i = 0; i < k; i++) {
		int l = c->s->nodes[cd[i].node].leaf;
		if (l >= 0 && !c->leaf_seen[l]) {
			c->leaf_seen[l] = 1;
			cnt++;
		}
	}
	for (uint32_t i = 0; i < k; i++) {
		int l = c->s->nodes[cd[i].node].leaf;
		if (l >= 0)
			c->leaf_seen[l] = 0;
	}
	return cnt;
}

static int leaf_cap_cmp(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;   /* {leaf, cap, cnt} triples */
	if (x[1] != y[1])
		return x[1] > y[1] ? -1 : 1;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Is switch `below` under (or equal to) switch `top`? */
static int sw_under(const sched_t *s, int32_t below, int32_t top)
{
	for (int32_t x = below; x >= 0 && (uint32_t)x < s->nswitches; x = s->sw_parent[x])
		if (x == top)
			return 1;
	return 0;
}

/* The lowest switch above the leaves whose candidates can hold the job,
 * the one with the fewest candidate nodes at that level (best fit); -1
 * if the tree has no level above the leaves or none can. Leaf sums are
 * in c->leaf_*. */
static int32_t best_upper_switch(ctx_t *c, const req_t *r)
{
	const sched_t *s = c->s;
	uint32_t nl = (uint32_t)c->nleaves, ns = s->nswitches;
	if (!c->sw_sum || ns <= nl)
		return -1;
	uint32_t *sum = c->sw_sum;
	memset(sum, 0, 3 * (size_t)ns * sizeof(uint32_t));
	for (uint32_t l = 0; l < nl; l++) {
		if (!c->leaf_cnt[l])
			continue;
		for (int32_t x = s->sw_parent[l]; x >= 0 && (uint32_t)x < ns; x = s->sw_parent[x]) {
			sum[3 * x] += c->leaf_cnt[l];
			sum[3 * x + 1] += c->leaf_cap[l];
			sum[3 * x + 2] += c->leaf_gpu[l];
		}
	}
	int32_t best = -1;
	for (uint32_t x = nl; x < ns; x++) {
		if (!sum[3 * x] || !sched_enough(r, sum[3 * x], sum[3 * x + 1], sum[3 * x + 2]))
			continue;
		if (best < 0 || s->sw_level[x] < s->sw_level[best] ||
		    (s->sw_level[x] == s->sw_level[best] && sum[3 * x] < sum[3 * best]))
			best = (int32_t)x;
	}
	return best;
}

/* Place the job on candidates cd[0..n) (preference order, the first nreq
 * required): topology-aware when the job uses it: the leaf with the fewest
 * candidate nodes that can hold the whole job (best fit); else under the
 * lowest switch that can hold it (best fit at that level), as few of its
 * leaves as possible (largest leaves first, the last one best fit).
 * Returns the count chosen (moved to the front of cd), 0 if none. */
uint32_t sched_place(ctx_t *c, const sched_job_t *j, const req_t *r, cand_t *cd,
		     uint32_t n, uint32_t nreq)
{
	sched_t *s = c->s;
	if (!job_by_leaf(c, j, r) || n < 2)
		return choose(s, r, cd, n, nreq);
	uint32_t nl = (uint32_t)c->nleaves;
	memset(c->leaf_cnt, 0, nl * sizeof(uint32_t));
	memset(c->leaf_cap, 0, nl * sizeof(uint32_t));
	memset(c->leaf_gpu, 0, nl * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++) {
		int l = s->nodes[cd[i].node].leaf;
		if (l < 0)
			continue;
		c->leaf_cnt[l]++;
		c->leaf_cap[l] += cd[i].cap;
		c->leaf_gpu[l] += cd[i].gfree;
	}
	int best = -1;
	for (uint32_t l = 0; l < nl; l++) {
		if (!c->leaf_cnt[l] || !sched_enough(r, c->leaf_cnt[l], c->leaf_cap[l], c->leaf_gpu[l]))
			continue;
		if (best < 0 || c->leaf_cnt[l] < c->leaf_cnt[best])
			best = (int)l;
	}
	if (best >= 0) {
		uint32_t k = 0;
		for (uint32_t i = 0; i < n; i++)
			if (s->nodes[cd[i].node].leaf == best) {
				cand_t t = cd[k];
				cd[k++] = cd[i];
				cd[i] = t;
			}
		uint32_t got = choose(s, r, cd, k, 0);
		if (got)
			return got;
	}
	/* Span leaves: the fewest leaves whose nodes are enough, largest
	 * first; the last leaf is the smallest one that completes the job;
	 * only leaves under the lowest switch that can hold the job. */
	int32_t top = best_upper_switch(c, r);
	uint32_t *lv = c->leaf_tmp, m = 0;
	for (uint32_t l = 0; l < nl; l++)
		if (c->leaf_cnt[l] && (top < 0 || sw_under(s, (int32_t)l, top))) {
			lv[3 * m] = l;
			lv[3 * m + 1] = c->leaf_cap[l];
			lv[3 * m + 2] = c->leaf_cnt[l];
			m++;
		}
	qsort(lv, m, 3 * sizeof(uint32_t), leaf_cap_cmp);
	uint64_t tasks = 0, gpus = 0;
	uint32_t cnt = 0, used = 0;
	for (; used < m; used++) {
		uint32_t l = lv[3 * used];
		/* Would a smaller leaf later in the list complete the job? */
		int last = -1;
		for (uint32_t q = used; q < m; q++) {
			uint32_t ll = lv[3 * q];
			if (sched_enough(r, cnt + c->leaf_cnt[ll], tasks + c->leaf_cap[ll], gpus + c->leaf_gpu[ll]))
				last = (int)q;
		}
		if (last >= 0) {
			uint32_t t[3];
			memcpy(t, &lv[3 * used], sizeof(t));
			memcpy(&lv[3 * used], &lv[3 * last], sizeof(t));
			memcpy(&lv[3 * last], t, sizeof(t));
			used++;
			break;
		}
		cnt += c->leaf_cnt[l];
		tasks += c->leaf_cap[l];
		gpus += c->leaf_gpu[l];
	}
	if (used <= m && used) {
		for (uint32_t q = 0; q < used; q++)
			c->leaf_seen[lv[3 * q]] = (uint8_t)(q + 1 < 255 ? q + 1 : 255);
		/* Order: nodes of the chosen leaves, in leaf order. */
		uint32_t k = 0;
		for (uint32_t q = 0; q < used; q++)
			for (uint32_t i = k; i < n; i++)
				if (s->nodes[cd[i].node].leaf == (int)lv[3 * q]) {
					cand_t t = cd[k];
					cd[k++] = cd[i];
					cd[i] = t;
				}
		for (uint32_t q = 0; q < used; q++)
			c->leaf_seen[lv[3 * q]] = 0;
		uint32_t got = choose(s, r, cd, k, 0);
		if (got)
			return got;
	}
	return choose(s, r, cd, n, nreq);
}

/* --switches=N@wait: too many leaves and still within the wait. */
int sched_switches_refused(ctx_t *c, const sched_job_t *j, const cand_t *cd, uint32_t k)
{
	if (!j->req_switch || !c->nleaves)
		return 0;
	int64_t since = j->eligible_time ? j->eligible_time : j->submit_time;
	if (c->now - since >= (int64_t)j->wait4switch)
		return 0;
	return leaves_spanned(c, cd, k) > j->req_switch;
}

/* Find an allocation for job j. SEL_NOT_AVAIL sets *detail to the
 * required nodes that are not usable. */
int sched_select_nodes(ctx_t *c, const sched_job_t *j, const req_t *r,
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
		if (!nd->usable || (c->withheld && c->withheld[x])) {
			rc = SEL_NOT_AVAIL;
			c->mark[x] = 3;
			continue;
		}
		if (sched_resv_blocks(c, j, r, x)) {
			/* reserved (for others, or outside its reservation) */
			if (rc != SEL_NOT_AVAIL)
				rc = SEL_RESV;
			c->mark[x] = 2;
			continue;
		}
		uint32_t gf = 0, cap = node_cap(nd, j, r, 0, &gf);
		c->mark[x] = 2;
		if (!cap) {
			if (rc == SEL_OK)
				rc = SEL_BUSY;
			continue;
		}
		c->cands[n++] = (cand_t){ x, cap, gf, sched_gpu_mask(nd, r->gtype) & ~nd->gpus_used };
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
	} else if (rc == SEL_RESV) {
		*detail = xstrdup(sched_resv_detail(c, j, c->now, r->rv_dur));
	}
	nreq = n;
	if (rc != SEL_OK || nreq >= r->max_nodes)
		goto pick;
	for (uint32_t i = 0; i < j->nexc_nodes; i++)
		if (j->exc_nodes[i] < s->nnodes && !c->mark[j->exc_nodes[i]])
			c->mark[j->exc_nodes[i]] = 1;

	/* Topology-aware placement looks at more candidates (until a few
	 * leaves could hold the job); otherwise stop at the first fit. */
	int by_leaf = job_by_leaf(c, j, r);
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
	uint32_t needc = r->whole ? 1 : r->cpt, needg = r->gpn;
	if (one && !r->whole)
		needc = sched_mul_sat(r->overcommit ? 1 : r->ntasks, r->cpt);
	if (r->mincpus > needc && !r->whole && !r->overcommit)
		needc = r->mincpus;
	if (r->share > 1)
		needc = 0;      /* shared CPUs are not in the tree's free counts */
	if (one && r->gpj > needg)
		needg = r->gpj;
	if (r->gpt)
		needg = one ? sched_mul_sat(r->ntasks, r->gpt) : r->gpt;
	int whole_fit = 0;   /* tasks/gpus enough: with topology, keep going
	                      * until a leaf could hold the job */
	for (uint32_t i = seg_find(pc, 0, needc, needg); i < pc->n;
	     i = seg_find(pc, i + 1, needc, needg)) {
		uint32_t x = pc->order[i];
		if (c->mark[x] || (c->withheld && c->withheld[x]))
			continue;
		if (sched_resv_blocks(c, j, r, x))
			continue;
		const sched_node_t *nd = &s->nodes[x];
		if (r->share > 1 ? !nd->usable || nd->exclusive : node_dead(nd))
			continue;
		if (j->features && !sched_features_match(nd->features, j->features))
			continue;
		uint32_t gf = 0, cap = node_cap(nd, j, r, 0, &gf);
		if (!cap || (one && !nreq && (cap < r->ntasks || gf < r->gpj)))
			continue;
		c->cands[n++] = (cand_t){ x, cap, gf, sched_gpu_mask(nd, r->gtype) & ~nd->gpus_used };
		tasks += cap;
		gpus += gf;
		if (by_leaf && nd->leaf >= 0) {
			int l = nd->leaf;
			int was = c->leaf_cnt[l] && sched_enough(r, c->leaf_cnt[l], c->leaf_cap[l], c->leaf_gpu[l]);
			c->leaf_cnt[l]++;
			c->leaf_cap[l] += cap;
			c->leaf_gpu[l] += gf;
			if (!was && sched_enough(r, c->leaf_cnt[l], c->leaf_cap[l], c->leaf_gpu[l]) &&
			    ++leaves_fit >= SCHED_LEAF_LOOKAHEAD)
				break;
		}
		if (!by_leaf && !r->contig && !r->feat.n && n <= r->max_nodes &&
		    sched_enough(r, n, tasks, gpus))
			break;
		if (by_leaf)
			whole_fit = sched_enough(r, n, tasks, gpus);
	}
	(void)whole_fit;
pick:
	if (rc == SEL_OK) {
		uint32_t got = sched_place(c, j, r, c->cands, n, nreq);
		if (got && sched_switches_refused(c, j, c->cands, got))
			got = 0;
		if (got)
			sched_build_alloc(s, j, r, c->cands, got, a);
		else
			rc = SEL_BUSY;
	}
	for (uint32_t i = 0; i < j->nreq_nodes; i++)
		if (j->req_nodes[i] < s->nnodes)
			c->mark[j->req_nodes[i]] = 0;
	for (uint32_t i = 0; i < j->nexc_nodes; i++)
		if (j->exc_nodes[i] < s->nnodes)
			c->mark[j->exc_nodes[i]] = 0;
	return rc;
}

/* ---- validation ---- */

static int cap_desc_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x > y ? -1 : x < y;
}

int sched_job_validate(const sched_t *s, const sched_job_t *j)
{
	if (j->part >= s->nparts)
		return ESLURM_INVALID_PARTITION_NAME;
	const sched_part_t *p = &s->parts[j->part];
	req_t r;
	sched_req_init(s, j, &r);
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
	/* --reservation: only its nodes count, and Slurm refuses at submit
	 * a job more nodes than it holds (in the partition) could never
	 * run, or one naming a node outside it ("Requested node
	 * configuration is not available"). */
	const sched_resv_t *rv = sched_resv_of(s, j);
	if (rv) {
		uint8_t *in_rv = xcalloc(s->nnodes ? s->nnodes : 1, 1);
		for (uint32_t i = 0; rv->nodes && i < rv->nnodes; i++)
			if (rv->nodes[i] < s->nnodes)
				in_rv[rv->nodes[i]] = 1;
		uint32_t have = 0;
		for (uint32_t i = 0; i < s->nnodes; i++) {
			in_part[i] &= in_rv[i];
			have += in_part[i];
		}
		free(in_rv);
		/* -w a node outside it: refused the same way (Slurm 22.05) */
		for (uint32_t i = 0; i < j->nreq_nodes; i++)
			if (!in_part[j->req_nodes[i]])
				have = 0;
		if (r.min_nodes > have) {
			rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
			goto out;
		}
	}
	if (j->features) {
		int anywhere = 0;
		for (uint32_t i = 0; i < s->nnodes && !anywhere; i++)
			anywhere = sched_features_match(s->nodes[i].features, j->features);
		if (!anywhere) {
			rc = ESLURM_INVALID_FEATURE;
			goto out;
		}
		/* Counts: enough nodes of the partition with each feature;
		 * matching OR: one alternative on enough nodes. */
		int fits = !r.feat.mor;
		for (uint32_t t = 0; t < r.feat.n; t++) {
			uint32_t have = 0;
			for (uint32_t i = 0; i < s->nnodes; i++)
				have += in_part[i] && has_feature(s->nodes[i].features, r.feat.t[t].name,
								 r.feat.t[t].len);
			if (r.feat.mor && have >= r.min_nodes)
				fits = 1;
			if (!r.feat.mor && have < r.feat.t[t].count)
				fits = 0;
		}
		if (r.feat.n && !fits) {
			rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
			goto out;
		}
	}
	/* Sum what the usable-shaped nodes could hold if all were empty. The
	 * node count itself is not checked here: Slurm (EnforcePartLimits=NO)
	 * accepts it and the job pends with PartitionConfig. */
	uint64_t tasks = 0, gpus = 0;
	uint32_t cnt = 0;
	/* the capacities, to check a maximum node count below */
	uint32_t *caps = xmalloc((p->nnodes ? p->nnodes : 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < s->nnodes; i++) {
		if (!in_part[i])
			continue;
		const sched_node_t *nd = &s->nodes[i];
		if (j->features && !sched_features_match(nd->features, j->features))
			continue;
		uint32_t gf = 0, cap = node_cap(nd, j, &r, 1, &gf);
		if (!cap)
			continue;
		if (cnt < p->nnodes)
			caps[cnt] = cap;
		cnt++;
		tasks += cap;
		gpus += gf;
	}
	if (!cnt) {
		free(caps);
		rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		goto out;
	}
	if (cnt >= r.min_nodes && r.min_nodes <= p->nnodes) {
		/* Enough nodes exist: the total must fit (within max_nodes). */
		if (tasks < r.ntasks && r.max_nodes >= cnt)
			rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		else if (gpus < r.gpj)
			rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		else if (r.max_nodes < cnt && cnt <= p->nnodes) {
			/* -N1 -n100 on 64-CPU nodes: the max_nodes largest
			 * nodes must hold the tasks (as Slurm refuses it). */
			qsort(caps, cnt, sizeof(uint32_t), cap_desc_cmp);
			uint64_t best = 0;
			for (uint32_t i = 0; i < r.max_nodes; i++)
				best += caps[i];
			if (best < r.ntasks)
				rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
		}
	}
	free(caps);
out:
	free(in_part);
	return rc;
}

const char *sched_job_refusal_detail(const sched_t *s, const sched_job_t *j)
{
	if (j->part >= s->nparts)
		return NULL;
	const sched_part_t *p = &s->parts[j->part];
	req_t r;
	sched_req_init(s, j, &r);
	uint64_t max_mem = 0, max_tmp = 0;
	uint32_t max_cpus = 0;
	for (uint32_t i = 0; i < p->nnodes; i++) {
		if (p->nodes[i] >= s->nnodes)
			continue;
		const sched_node_t *n = &s->nodes[p->nodes[i]];
		if (n->tmp_disk > max_tmp)
			max_tmp = n->tmp_disk;
		if (!n->mem)
			max_mem = UINT64_MAX;     /* memory not accounted there */
		else if (n->mem > max_mem)
			max_mem = n->mem;
		if (n->cpus > max_cpus)
			max_cpus = n->cpus;
	}
	if (max_cpus && (r.cpt > max_cpus || r.mincpus > max_cpus))
		return "CPU count per node can not be satisfied";
	if (r.tmp > max_tmp)
		return "Temporary disk specification can not be satisfied";
	uint64_t mem = r.mem_node ? r.mem_node : r.mem_per_cpu * r.cpt;
	if (r.mpg)
		mem = r.mpg * (r.gpt ? r.gpt : r.gpn ? r.gpn : 1);
	if (max_mem && mem > max_mem)
		return "Memory specification can not be satisfied";
	return NULL;
}
