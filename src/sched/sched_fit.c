/*
 * sched_fit.c: why a job that found no nodes in the main pass waits, as
 * Slurm's select_nodes() tells it apart: the nodes it may use are busy
 * (Resources), only nodes that are down, drained or kept for another job
 * could hold it (ReqNodeNotAvail, UnavailableNodes:...), or not even every
 * node of its partition could (PartitionNodeLimit, "not runnable with
 * present config"). Nodes an advance reservation keeps from the job count
 * as available but reserved: a job only they could hold is SEL_RESV
 * (ReqNodeNotAvail, "May be reserved for other job" or "Reserved for
 * maintenance"). See sched_int.h for the contract.
 *
 * Cost: O(required nodes) for a --nodelist job, O(1) plus a list built
 * once per partition and pass for a job that asks more nodes than are
 * usable, else one walk over the partition's nodes that stops as soon as
 * the available ones are enough (the usual Resources case, once per
 * partition and pass since that job blocks the partition).
 */
#include <stdlib.h>

#include "sched.h"
#include "sched_int.h"

#include "hostlist.h"
#include "xalloc.h"


static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int node_unavail(const ctx_t *c, uint32_t x)
{
	return !c->s->nodes[x].usable || (c->withheld && c->withheld[x]);
}

/* "UnavailableNodes:<xs, in node order>" (or Slurm's words when none). */
static char *unavail_detail(const sched_t *s, uint32_t *xs, size_t k)
{
	if (!k)
		return xstrdup("May be reserved for other job");
	qsort(xs, k, sizeof(uint32_t), u32_cmp);
	const char **names = xmalloc(k * sizeof(char *));
	for (size_t i = 0; i < k; i++)
		names[i] = s->nodes[xs[i]].name;
	char *hl = hostlist_compress(names, k);
	char *d = xasprintf("UnavailableNodes:%s", hl);
	free(hl);
	free(names);
	return d;
}

/* The partition's unavailable nodes, as Slurm lists them for a job that
 * names none of them: the same for every such job until a node is
 * withheld, so built once per partition and withheld generation. */
static char *part_detail(ctx_t *c, part_ctx_t *pc)
{
	if (!pc->na_detail || pc->na_gen != c->withheld_gen) {
		free(pc->na_detail);
		uint32_t *xs = xmalloc(((size_t)pc->n + 1) * sizeof(uint32_t));
		size_t k = 0;
		for (uint32_t i = 0; i < pc->n; i++)
			if (node_unavail(c, pc->order[i]))
				xs[k++] = pc->order[i];
		pc->na_detail = unavail_detail(c->s, xs, k);
		pc->na_gen = c->withheld_gen;
		free(xs);
	}
	return xstrdup(pc->na_detail);
}

/* Detail for a job that names nodes: its unavailable required nodes, or
 * the partition's when none of those is unavailable. */
static char *job_detail(ctx_t *c, part_ctx_t *pc, const sched_job_t *j)
{
	uint32_t *xs = xmalloc(((size_t)j->nreq_nodes + 1) * sizeof(uint32_t));
	size_t k = 0;
	for (uint32_t i = 0; i < j->nreq_nodes; i++)
		if (j->req_nodes[i] < c->s->nnodes && node_unavail(c, j->req_nodes[i]))
			xs[k++] = j->req_nodes[i];
	char *d = k ? unavail_detail(c->s, xs, k) : part_detail(c, pc);
	free(xs);
	return d;
}

char *sched_req_unavail_detail(const ctx_t *c, const sched_job_t *j)
{
	if (!j->nreq_nodes)
		return NULL;
	uint32_t *xs = xmalloc((size_t)j->nreq_nodes * sizeof(uint32_t));
	size_t k = 0;
	for (uint32_t i = 0; i < j->nreq_nodes; i++)
		if (j->req_nodes[i] < c->s->nnodes && !c->s->nodes[j->req_nodes[i]].usable)
			xs[k++] = j->req_nodes[i];
	char *d = k ? unavail_detail(c->s, xs, k) : NULL;
	free(xs);
	return d;
}

int sched_fit_class(ctx_t *c, const sched_job_t *j, const req_t *r, char **detail)
{
	const sched_t *s = c->s;
	part_ctx_t *pc = &c->parts[j->part];

	*detail = NULL;
	/* Its own nodes, all usable, would hold it: busy (the common case of
	 * a --nodelist job, without a look at the whole partition). */
	if (j->nreq_nodes && j->nreq_nodes >= r->min_nodes) {
		uint32_t cnt = 0, gf;
		uint64_t tasks = 0, gpus = 0;
		int unavail = 0, reserved = 0;
		for (uint32_t i = 0; i < j->nreq_nodes; i++) {
			uint32_t x = j->req_nodes[i], cap;
			if (x >= s->nnodes || !(cap = sched_cap_empty(&s->nodes[x], j, r, &gf)))
				return SEL_NEVER;
			cnt++;
			tasks += cap;
			gpus += gf;
			unavail |= node_unavail(c, x);
			reserved |= sched_resv_blocks(c, j, r, x);
		}
		if (!unavail && sched_enough(r, cnt, tasks, gpus)) {
			if (!reserved)
				return SEL_BUSY;
			*detail = xstrdup(sched_resv_detail(c, j, c->now, r->rv_dur));
			return SEL_RESV;
		}
	}
	/* More nodes than are usable: the static checks and submit-time
	 * validation say the partition could hold it, so only unavailable
	 * nodes could complete it. */
	if (!j->nreq_nodes && r->min_nodes > pc->n_usable) {
		*detail = part_detail(c, pc);
		return SEL_NOT_AVAIL;
	}

	uint32_t ecnt = 0, acnt = 0, rcnt = 0;
	uint64_t etasks = 0, atasks = 0, egpus = 0, agpus = 0, rtasks = 0, rgpus = 0;
	int avail_ok = 0;
	for (uint32_t i = 0; i < j->nexc_nodes; i++)
		if (j->exc_nodes[i] < s->nnodes)
			c->mark[j->exc_nodes[i]] = 1;
	for (uint32_t i = 0; i < pc->n && !avail_ok; i++) {
		uint32_t x = pc->order[i];
		if (c->mark[x])
			continue;
		const sched_node_t *nd = &s->nodes[x];
		if (j->features && !sched_features_match(nd->features, j->features))
			continue;
		uint32_t gf = 0, cap = sched_cap_empty(nd, j, r, &gf);
		if (!cap)
			continue;
		ecnt++;
		etasks += cap;
		egpus += gf;
		if (node_unavail(c, x))
			continue;
		/* available, but maybe reserved: counted apart */
		rcnt++;
		rtasks += cap;
		rgpus += gf;
		if (!sched_resv_blocks(c, j, r, x)) {
			acnt++;
			atasks += cap;
			agpus += gf;
			avail_ok = sched_enough(r, acnt, atasks, agpus);
		}
	}
	for (uint32_t i = 0; i < j->nexc_nodes; i++)
		if (j->exc_nodes[i] < s->nnodes)
			c->mark[j->exc_nodes[i]] = 0;
	/* Required nodes count within the totals above: each must be in
	 * the partition (checked at submit) and hold some of the job. */
	for (uint32_t i = 0; i < j->nreq_nodes; i++) {
		uint32_t x = j->req_nodes[i], gf;
		if (x >= s->nnodes || !sched_cap_empty(&s->nodes[x], j, r, &gf))
			return SEL_NEVER;
	}
	if (avail_ok)
		return SEL_BUSY;
	if (sched_enough(r, rcnt, rtasks, rgpus)) {
		*detail = xstrdup(sched_resv_detail(c, j, c->now, r->rv_dur));
		return SEL_RESV;
	}
	if (!sched_enough(r, ecnt, etasks, egpus))
		return SEL_NEVER;
	*detail = job_detail(c, pc, j);
	return SEL_NOT_AVAIL;
}
