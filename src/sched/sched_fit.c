/*
 * sched_fit.c: why a job that found no nodes in the main pass waits, as
 * Slurm's select_nodes() tells it apart: the nodes it may use are busy
 * (Resources), only nodes that are down, drained or kept for another job
 * could hold it (ReqNodeNotAvail, UnavailableNodes:...), or not even every
 * node of its partition could (PartitionNodeLimit, "not runnable with
 * present config"). See sched_int.h for the contract.
 */
#include <stdlib.h>

#include "sched.h"
#include "sched_int.h"

#include "hostlist.h"
#include "xalloc.h"

/* Tasks node n could take for job j with nothing running on it. */
static uint32_t cap_empty(const sched_node_t *n, const sched_job_t *j, const req_t *r,
			  uint32_t *gfree)
{
	return sched_cap_free(n, j, r, n->cpus, n->mem, sched_gpu_mask(n, r->gtype), gfree);
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int node_unavail(const ctx_t *c, uint32_t x)
{
	return !c->s->nodes[x].usable || (c->withheld && c->withheld[x]);
}

int sched_fit_class(ctx_t *c, const sched_job_t *j, const req_t *r, char **detail)
{
	const sched_t *s = c->s;
	const part_ctx_t *pc = &c->parts[j->part];
	uint32_t ecnt = 0, acnt = 0;
	uint64_t etasks = 0, atasks = 0, egpus = 0, agpus = 0;

	*detail = NULL;
	/* Its own nodes, all usable, would hold it: busy (the common case of
	 * a --nodelist job, without a look at the whole partition). */
	if (j->nreq_nodes && j->nreq_nodes >= r->min_nodes) {
		uint32_t cnt = 0, gf;
		uint64_t tasks = 0, gpus = 0;
		int unavail = 0;
		for (uint32_t i = 0; i < j->nreq_nodes; i++) {
			uint32_t x = j->req_nodes[i], cap;
			if (x >= s->nnodes || !(cap = cap_empty(&s->nodes[x], j, r, &gf)))
				return SEL_NEVER;
			cnt++;
			tasks += cap;
			gpus += gf;
			unavail |= node_unavail(c, x);
		}
		if (!unavail && sched_enough(r, cnt, tasks, gpus))
			return SEL_BUSY;
	}
	for (uint32_t i = 0; i < j->nexc_nodes; i++)
		if (j->exc_nodes[i] < s->nnodes)
			c->mark[j->exc_nodes[i]] = 1;
	for (uint32_t i = 0; i < pc->n; i++) {
		uint32_t x = pc->order[i];
		if (c->mark[x])
			continue;
		const sched_node_t *nd = &s->nodes[x];
		if (j->features && !sched_features_match(nd->features, j->features))
			continue;
		uint32_t gf = 0, cap = cap_empty(nd, j, r, &gf);
		if (!cap)
			continue;
		ecnt++;
		etasks += cap;
		egpus += gf;
		if (!node_unavail(c, x)) {
			acnt++;
			atasks += cap;
			agpus += gf;
		}
	}
	for (uint32_t i = 0; i < j->nexc_nodes; i++)
		if (j->exc_nodes[i] < s->nnodes)
			c->mark[j->exc_nodes[i]] = 0;
	/* Required nodes count within the totals above: each must be in
	 * the partition (checked at submit) and hold some of the job. */
	for (uint32_t i = 0; i < j->nreq_nodes; i++) {
		uint32_t x = j->req_nodes[i], gf;
		if (x >= s->nnodes || !cap_empty(&s->nodes[x], j, r, &gf))
			return SEL_NEVER;
	}
	if (!sched_enough(r, ecnt, etasks, egpus))
		return SEL_NEVER;
	if (sched_enough(r, acnt, atasks, agpus))
		return SEL_BUSY;

	/* The partition's unavailable nodes, in node order as Slurm's
	 * bitmap prints them; only the required ones among them when the
	 * job names any of them. */
	uint32_t *xs = xmalloc(((size_t)pc->n + j->nreq_nodes + 1) * sizeof(uint32_t));
	size_t k = 0;
	for (uint32_t i = 0; i < j->nreq_nodes; i++)
		if (j->req_nodes[i] < s->nnodes && node_unavail(c, j->req_nodes[i]))
			xs[k++] = j->req_nodes[i];
	if (!k)
		for (uint32_t i = 0; i < pc->n; i++)
			if (node_unavail(c, pc->order[i]))
				xs[k++] = pc->order[i];
	qsort(xs, k, sizeof(uint32_t), u32_cmp);
	const char **names = xmalloc((k ? k : 1) * sizeof(char *));
	for (size_t i = 0; i < k; i++)
		names[i] = s->nodes[xs[i]].name;
	if (k) {
		char *hl = hostlist_compress(names, k);
		*detail = xasprintf("UnavailableNodes:%s", hl);
		free(hl);
	} else {
		*detail = xstrdup("May be reserved for other job");
	}
	free(names);
	free(xs);
	return SEL_NOT_AVAIL;
}
