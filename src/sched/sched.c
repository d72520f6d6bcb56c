/*
 * sched.c: the pure scheduler core's pass (see sched.h for the contract):
 * the queue order, the main pass, and the allocations' bookkeeping on
 * the node state. Node selection is in sched_select.c, the backfill
 * cycle in sched_backfill.c, preemption in sched_preempt.c (what they
 * share: sched_int.h).
 *
 * A pass orders the pending jobs (PriorityTier of their partition, then
 * sched_job_cmp) and walks them twice:
 *
 * Main pass (Slurm's schedule()): cheap checks first (held, dependency,
 * begin time, partition state and limits), then a node search. Once a job
 * of a partition is blocked on Resources, the later jobs of that partition
 * get Reason=Priority without a search, as in Slurm; with sched/backfill
 * at most default_queue_depth jobs are searched (the rest keep their
 * reason, SCHED_REASON_KEEP).
 *
 * Backfill cycle (sched/backfill, when the caller says one is due): see
 * sched_backfill.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"
#include "sched_int.h"

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

/* ---- the pass ---- */

static const sched_t *sort_sched;
static sched_job_t *sort_base;
static int job_idx_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const sched_job_t *jx = &sort_base[x], *jy = &sort_base[y];
	/* Higher PriorityTier partitions first, as Slurm's queue sort. */
	uint32_t tx = jx->part < sort_sched->nparts ? sort_sched->parts[jx->part].priority_tier : 0;
	uint32_t ty = jy->part < sort_sched->nparts ? sort_sched->parts[jy->part].priority_tier : 0;
	if (tx != ty)
		return tx > ty ? -1 : 1;
	return sched_job_cmp(jx, jy);
}

static uint32_t part_max_time(const sched_part_t *p)
{
	return p->max_time ? p->max_time : TIME_INFINITE;
}

/* The checks that do not need a node search: 0 or the reason the job
 * cannot start whatever the nodes. */
static uint32_t job_static_reason(const sched_t *s, const ctx_t *c, const sched_job_t *j,
				  int64_t now, req_t *r)
{
	if (j->held)
		return j->held_reason ? j->held_reason : WAIT_HELD_USER;
	if (j->dependency_wait)
		return j->dependency_wait == 2 ? WAIT_DEP_INVALID : WAIT_DEPENDENCY;
	if (j->begin_time > now)
		return WAIT_TIME;
	if (j->part >= s->nparts)
		return WAIT_PART_CONFIG;
	const sched_part_t *p = &s->parts[j->part];
	const part_ctx_t *pc = &c->parts[j->part];
	if (!p->up)
		return p->inactive ? WAIT_PART_INACTIVE : WAIT_PART_DOWN;
	if (j->time_limit != TIME_NO_VAL && j->time_limit != TIME_INFINITE &&
	    part_max_time(p) != TIME_INFINITE && j->time_limit > part_max_time(p))
		return WAIT_PART_TIME_LIMIT;
	if (j->time_limit == TIME_INFINITE && part_max_time(p) != TIME_INFINITE)
		return WAIT_PART_TIME_LIMIT;
	sched_req_init(s, j, r);
	/* Slurm caps a partition's MaxNodes at its node count. */
	if (r->min_nodes > pc->n)
		return WAIT_PART_NODE_LIMIT;
	if ((p->max_nodes && p->max_nodes != UINT32_MAX && r->min_nodes > p->max_nodes) ||
	    (p->min_nodes && r->max_nodes < p->min_nodes))
		return WAIT_PART_NODE_LIMIT;
	return 0;
}

void sched_commit_start(ctx_t *c, sched_decision_t *dd)
{
	dd->start = 1;
	dd->reason = WAIT_NO_REASON;
	sched_alloc_commit(c->s, &dd->alloc);
	for (uint32_t i = 0; i < dd->alloc.nnodes; i++)
		sched_ctx_node_changed(c, dd->alloc.nodes[i]);
}

int sched_backfill_due(const sched_params_t *p, int64_t last_backfill, int64_t now,
		       uint32_t npending)
{
	return p->backfill && (now - last_backfill >= (int64_t)p->bf_interval ||
			       npending <= p->default_queue_depth);
}

void sched_pass(sched_t *s, sched_job_t *jobs, uint32_t n, int64_t now,
		sched_decision_t **out)
{
	sched_decision_t *d = xcalloc(n ? n : 1, sizeof(*d));
	uint32_t *idx = xmalloc((n ? n : 1) * sizeof(uint32_t));
	uint8_t *cand = xcalloc(n ? n : 1, 1);   /* backfill may try it (sched_backfill) */
	for (uint32_t i = 0; i < n; i++)
		idx[i] = i;
	sort_base = jobs;
	sort_sched = s;
	qsort(idx, n, sizeof(uint32_t), job_idx_cmp);
	ctx_t c;
	sched_ctx_init(&c, s);
	c.now = now;
	c.lim = lim_ctx_new(s, jobs, n, now);
	memset(&s->last, 0, sizeof(s->last));
	s->last.queue_len = n;
	for (uint32_t p = 0; p < s->nparts; p++)
		for (uint32_t i = 0; i < c.parts[p].n; i++)
			c.parts[p].n_usable += s->nodes[c.parts[p].order[i]].usable != 0;
	uint32_t depth = s->params.default_queue_depth;
	int backfill_on = s->params.backfill && s->run_backfill;
	uint32_t searched = 0;

	for (uint32_t k = 0; k < n; k++) {
		sched_job_t *j = &jobs[idx[k]];
		sched_decision_t *dd = &d[k];
		dd->job_index = idx[k];
		req_t r;
		uint32_t why = job_static_reason(s, &c, j, now, &r);
		if (why) {
			dd->reason = why;
			continue;
		}
		if (c.lim && (why = lim_job_check(c.lim, j))) {
			/* Over a limit: pending with its reason; it blocks
			 * no one (Slurm skips it in the queue). */
			dd->reason = why;
			cand[k] = 2;   /* backfill looks at it, plans nothing */
			continue;
		}
		part_ctx_t *pc = &c.parts[j->part];
		cand[k] = 1;
		/* A job in a reservation waits for its start (backfill plans
		 * it there); jobs of a reservation block only each other. */
		if ((why = sched_resv_job_reason(&c, j, now))) {
			dd->reason = why;
			continue;
		}
		if (j->resv ? c.rv_blocked[j->resv - 1] : pc->blocked) {
			/* Behind a job that waits for resources: Priority,
			 * unless a node it names is down or drained (Slurm
			 * keeps ReqNodeNotAvail then; a reservation's queue
			 * gets Priority alone, as there). */
			char *na = j->resv ? NULL : sched_req_unavail_detail(&c, j);
			dd->reason = na ? WAIT_NODE_NOT_AVAIL : WAIT_PRIORITY;
			dd->reason_detail = na;
			continue;
		}
		/* default_queue_depth bounds the node searches of the main
		 * pass with sched/backfill (backfill looks further). */
		if (s->params.backfill && depth && searched >= depth) {
			dd->reason = SCHED_REASON_KEEP;
			continue;
		}
		searched++;
		s->last.main_depth++;
		char *detail = NULL;
		/* More nodes than are usable: no search can place it. */
		int rc = r.min_nodes > pc->n_usable ? SEL_BUSY
						    : sched_select_nodes(&c, j, &r, &dd->alloc, &detail);
		if (rc == SEL_OK) {
			sched_commit_start(&c, dd);
			lim_job_start(c.lim, j, &dd->alloc);
			s->last.main_started++;
		} else if (rc == SEL_NOT_AVAIL || rc == SEL_RESV) {
			dd->reason = WAIT_NODE_NOT_AVAIL;
			dd->reason_detail = detail;
			/* kept off by a reservation: backfill plans it after */
			cand[k] = rc == SEL_RESV;
		} else if ((rc = sched_fit_class(&c, j, &r, &detail)) != SEL_BUSY) {
			/* Only down/drained/withheld or reserved nodes, or no
			 * nodes at all, could hold it: it blocks no one. */
			dd->reason = rc == SEL_NEVER ? WAIT_PART_NODE_LIMIT : WAIT_NODE_NOT_AVAIL;
			dd->reason_detail = detail;
			cand[k] = rc == SEL_RESV;
		} else if (j->nreq_nodes && j->nreq_nodes >= r.min_nodes) {
			/* Busy on the nodes it names: later jobs may not take
			 * them this pass, but the partition is not blocked. */
			dd->reason = WAIT_RESOURCES;
			if (!c.withheld)
				c.withheld = xcalloc(s->nnodes ? s->nnodes : 1, 1);
			for (uint32_t i = 0; i < j->nreq_nodes; i++)
				if (j->req_nodes[i] < s->nnodes)
					c.withheld[j->req_nodes[i]] = 1;
			c.withheld_gen++;
		} else {
			dd->reason = WAIT_RESOURCES;
			if (j->resv)
				c.rv_blocked[j->resv - 1] = 1;
			else
				pc->blocked = 1;
			if (s->preempt_mode != LIM_PREEMPT_OFF)
				sched_try_preempt(&c, j, &r, dd);
		}
	}
	/* Backfill plans with every node, as Slurm's own cycle does. */
	free(c.withheld);
	c.withheld = NULL;
	for (uint32_t p = 0; p < s->nparts; p++) {
		free(c.parts[p].na_detail);
		c.parts[p].na_detail = NULL;
	}
	if (backfill_on)
		sched_backfill(&c, jobs, idx, n, d, cand);
	lim_ctx_free(c.lim);
	free(c.preempted);
	sched_ctx_release(&c);
	free(idx);
	free(cand);
	*out = d;
}

void sched_decisions_free(sched_decision_t *d, uint32_t n)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < n; i++) {
		free(d[i].reason_detail);
		free(d[i].sched_nodes);
		free(d[i].preempt);
		sched_alloc_free(&d[i].alloc);
	}
	free(d);
}

/* ---- allocations ---- */

/* An oversubscribed allocation on a node that counts sharing per CPU. */
static int share_tracked(const sched_node_t *n, const sched_alloc_t *a)
{
	return a->shared && n->cpu_share && n->cores_used && a->cores;
}

/* Add (dir 1) or remove (dir -1) one sharing job on the CPU ids in bits:
 * a CPU is used while any job holds it, and counts once in cpus_used. */
static void share_commit(sched_node_t *n, const uint64_t *bits, uint32_t words, int dir)
{
	for (uint32_t w = 0; w < words && w < n->core_words; w++)
		for (uint64_t m = bits[w]; m; m &= m - 1) {
			uint32_t c = w * 64 + (uint32_t)__builtin_ctzll(m);
			if (c >= n->cpus)
				break;
			uint64_t bit = 1ull << (c % 64);
			if (dir > 0) {
				if (!n->cpu_share[c] && !(n->cores_used[w] & bit)) {
					n->cores_used[w] |= bit;
					n->cpus_used++;
				}
				if (n->cpu_share[c] < 255)
					n->cpu_share[c]++;
			} else if (n->cpu_share[c]) {
				if (!--n->cpu_share[c]) {
					n->cores_used[w] &= ~bit;
					if (n->cpus_used)
						n->cpus_used--;
				}
			}
		}
}

void sched_alloc_commit(sched_t *s, const sched_alloc_t *a)
{
	for (uint32_t i = 0; i < a->nnodes; i++) {
		if (a->nodes[i] >= s->nnodes)
			continue;
		sched_node_t *n = &s->nodes[a->nodes[i]];
		n->mem_used += a->mem[i];
		n->gpus_used |= a->gpus[i];
		if (share_tracked(n, a)) {
			share_commit(n, a->cores + (size_t)i * a->cwords, a->cwords, 1);
		} else {
			n->cpus_used += sched_alloc_node_ids(a, i);
			for (uint32_t w = 0; n->cores_used && a->cores && w < a->cwords && w < n->core_words; w++)
				n->cores_used[w] |= a->cores[(size_t)i * a->cwords + w];
		}
		if (!n->njobs) {
			n->owner_uid = a->uid;
			n->owner_jobs = 0;
		} else if (!n->owner_jobs) {
			n->owner_uid = a->uid;   /* stale owner: the node stays mixed */
		}
		n->owner_jobs += a->uid == n->owner_uid;
		n->excl_user_jobs += a->excl_user != 0;
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
		n->mem_used = n->mem_used > a->mem[i] ? n->mem_used - a->mem[i] : 0;
		n->gpus_used &= ~a->gpus[i];
		if (share_tracked(n, a)) {
			share_commit(n, a->cores + (size_t)i * a->cwords, a->cwords, -1);
		} else {
			uint32_t ids = sched_alloc_node_ids(a, i);
			n->cpus_used = n->cpus_used > ids ? n->cpus_used - ids : 0;
			for (uint32_t w = 0; n->cores_used && a->cores && w < a->cwords && w < n->core_words; w++)
				n->cores_used[w] &= ~a->cores[(size_t)i * a->cwords + w];
		}
		if (n->njobs)
			n->njobs--;
		if (a->uid == n->owner_uid && n->owner_jobs)
			n->owner_jobs--;
		if (a->excl_user && n->excl_user_jobs)
			n->excl_user_jobs--;
		if (!n->njobs)
			n->owner_jobs = n->excl_user_jobs = 0;
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
	free(a->cores);
	memset(a, 0, sizeof(*a));
}

void sched_alloc_copy(sched_alloc_t *dst, const sched_alloc_t *src)
{
	uint32_t k = src->nnodes;
	memset(dst, 0, sizeof(*dst));
	dst->nnodes = k;
	dst->exclusive = src->exclusive;
	dst->shared = src->shared;
	dst->uid = src->uid;
	dst->excl_user = src->excl_user;
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
	if (src->cwords && src->cores) {
		dst->cwords = src->cwords;
		dst->cores = xmalloc((size_t)k * src->cwords * sizeof(uint64_t));
		memcpy(dst->cores, src->cores, (size_t)k * src->cwords * sizeof(uint64_t));
	}
}

void sched_alloc_fill_cores(const sched_t *s, sched_alloc_t *a)
{
	if (a->cores || !a->nnodes)
		return;
	uint32_t cw = 0;
	for (uint32_t i = 0; i < a->nnodes; i++)
		if (a->nodes[i] < s->nnodes && s->nodes[a->nodes[i]].cores_used &&
		    s->nodes[a->nodes[i]].core_words > cw)
			cw = s->nodes[a->nodes[i]].core_words;
	if (!cw)
		return;
	a->cwords = cw;
	a->cores = xcalloc((size_t)a->nnodes * cw, sizeof(uint64_t));
	for (uint32_t i = 0; i < a->nnodes; i++) {
		if (a->nodes[i] >= s->nnodes)
			continue;
		const sched_node_t *n = &s->nodes[a->nodes[i]];
		if (!n->cores_used)
			continue;
		/* GPUs are already fixed: only their close CPUs are preferred. */
		uint64_t *out = a->cores + (size_t)i * cw;
		uint32_t W = n->core_words, left = a->cpus[i];
		uint64_t *fr = xcalloc(W, sizeof(uint64_t));
		sched_cores_free(n, fr);
		if (n->gpu_cores && a->gpus[i]) {
			uint64_t *near = xcalloc(W, sizeof(uint64_t));
			for (uint64_t m = a->gpus[i]; m; m &= m - 1) {
				uint32_t g = (uint32_t)__builtin_ctzll(m);
				for (uint32_t w = 0; g < n->ngpus && w < W; w++)
					near[w] |= n->gpu_cores[(size_t)g * W + w];
			}
			sched_bits_take(fr, near, out, W, &left);
			free(near);
		}
		sched_bits_take(fr, NULL, out, W, &left);
		free(fr);
	}
}

void sched_totals(sched_t *s)
{
	for (uint32_t p = 0; p < s->nparts; p++) {
		sched_part_t *sp = &s->parts[p];
		sp->total_cpus = sp->total_nodes = sp->total_gpus = 0;
		sp->total_mem = 0;
		for (uint32_t i = 0; i < sp->nnodes; i++) {
			if (sp->nodes[i] >= s->nnodes)
				continue;
			const sched_node_t *n = &s->nodes[sp->nodes[i]];
			sp->total_nodes++;
			sp->total_cpus += n->cpus;
			sp->total_mem += n->mem;
			sp->total_gpus += n->ngpus;
		}
	}
}
