/*
 * sched_why: per node, why a pending job does not start there (see
 * sched_why.h). Reads the scheduler's node state; changes nothing.
 * O(job's -w/-x lists) per node, so a whole partition costs O(nodes).
 */
#include <string.h>

#include "sched_int.h"
#include "sched_why.h"

static int in_list(const uint32_t *v, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static int in_part(const sched_t *s, const sched_job_t *j, uint32_t x)
{
	if (j->part >= s->nparts)
		return 0;
	const sched_part_t *p = &s->parts[j->part];
	for (uint32_t i = 0; i < p->nnodes; i++)
		if (p->nodes[i] == x)
			return 1;
	return 0;
}

uint32_t sched_why_min_nodes(const sched_t *s, const sched_job_t *j)
{
	req_t r;
	sched_req_init(s, j, &r);
	return r.min_nodes;
}

/* The smallest share of the job a node must hold: one task's CPUs (or
 * the per-node GPU CPUs), the per-node memory (or one task's), the
 * per-node GPUs (or one task's). */
static void needs(const req_t *r, sched_why_node_t *o)
{
	o->cpus_need = r->cpt;
	if (r->gpn && r->cpg && o->cpus_need < r->gpn * r->cpg)
		o->cpus_need = r->gpn * r->cpg;
	o->gpus_need = r->gpn ? r->gpn : r->gpt ? r->gpt : 0;
	if (r->mem_node)
		o->mem_need = r->mem_node;
	else if (r->mem_per_cpu)
		o->mem_need = r->mem_per_cpu * r->cpt;
	else if (r->mpg)
		o->mem_need = r->mpg * (o->gpus_need ? o->gpus_need : 1);
}

void sched_why_node(const sched_t *s, const sched_job_t *j, uint32_t x, int member,
		    int64_t now, sched_why_node_t *o)
{
	memset(o, 0, sizeof(*o));
	if (x >= s->nnodes) {
		o->code = SCHED_WHY_NOT_IN_PART;
		return;
	}
	const sched_node_t *n = &s->nodes[x];
	req_t r;
	sched_req_init(s, j, &r);
	needs(&r, o);
	uint64_t gall = sched_gpu_mask(n, r.gtype);
	o->cpus_total = n->cpus;
	o->mem_total = n->mem;
	o->gpus_total = (uint32_t)__builtin_popcountll(gall);
	o->cpus_free = n->exclusive ? 0 : sched_node_cpus_avail(n, &r);
	o->mem_free = n->exclusive ? 0 : sched_node_mem_avail(n, &r);
	o->gpus_free = n->exclusive ? 0 : (uint32_t)__builtin_popcountll(gall & ~n->gpus_used);
	o->planned = n->planned;

	if (!member && !in_part(s, j, x))
		o->code = SCHED_WHY_NOT_IN_PART;
	else if (j->nexc_nodes && in_list(j->exc_nodes, j->nexc_nodes, x))
		o->code = SCHED_WHY_EXCLUDED;
	else if (j->nreq_nodes && !in_list(j->req_nodes, j->nreq_nodes, x) &&
		 j->nreq_nodes >= r.max_nodes)
		o->code = SCHED_WHY_NOT_LISTED;
	else if ((o->resv = sched_resv_of(s, j)) && !sched_resv_has_node(o->resv, x))
		o->code = SCHED_WHY_NOT_IN_RESV;
	else if (j->features && !sched_features_match(n->features, j->features))
		o->code = SCHED_WHY_FEATURES;
	else if (n->cpus < o->cpus_need || (r.whole && j->max_nodes == 1 &&
					     (uint64_t)r.ntasks * r.cpt > n->cpus))
		o->code = SCHED_WHY_CPUS;
	else if (n->mem && o->mem_need > n->mem && !r.mem_free_all)
		o->code = SCHED_WHY_MEMORY;
	else if (n->mem && r.mem_free_all && o->mem_need > n->mem)
		o->code = SCHED_WHY_MEMORY;
	else if (o->gpus_need > o->gpus_total)
		o->code = SCHED_WHY_GPUS;
	else if (!sched_cap_free(n, j, &r, n->cpus, n->mem, gall, NULL))
		o->code = SCHED_WHY_SHAPE;
	if (o->code)
		return;

	/* It could; can it now? */
	const sched_resv_t *own = sched_resv_of(s, j);
	if (!n->usable)
		o->code = SCHED_WHY_UNUSABLE;
	else if (own && (now < own->start || now >= own->end))
		o->code = SCHED_WHY_RESV_LATER;
	else if ((o->resv = sched_resv_node_block(s, j, x, now)))
		o->code = SCHED_WHY_RESERVED;
	else if (n->exclusive || (r.excl && n->njobs))
		o->code = SCHED_WHY_EXCLUSIVE;
	else if (sched_user_blocked(n, j, &r))
		o->code = SCHED_WHY_OTHER_USER;
	else {
		o->tasks_now = sched_cap_free(n, j, &r, o->cpus_free, o->mem_free,
					      gall & ~n->gpus_used, NULL);
		if (o->tasks_now)
			o->code = SCHED_WHY_FITS;
		else if (o->cpus_free < o->cpus_need || (r.whole && o->cpus_free < n->cpus))
			o->code = SCHED_WHY_BUSY_CPUS;
		else if (n->mem && !r.mem_free_all &&
			 (o->mem_free < o->mem_need || (r.excl && o->mem_free < n->mem)))
			o->code = SCHED_WHY_BUSY_MEMORY;
		else if (o->gpus_free < o->gpus_need || (r.whole && o->gpus_free < o->gpus_total))
			o->code = SCHED_WHY_BUSY_GPUS;
		else
			o->code = SCHED_WHY_BUSY;
	}
}

const char *sched_why_name(uint32_t code)
{
	static const char *const names[SCHED_WHY_NCODES] = {
		[SCHED_WHY_FITS] = "fits now",
		[SCHED_WHY_NOT_IN_PART] = "not in the partition",
		[SCHED_WHY_EXCLUDED] = "excluded (-x)",
		[SCHED_WHY_NOT_LISTED] = "not in -w",
		[SCHED_WHY_NOT_IN_RESV] = "not in its reservation",
		[SCHED_WHY_FEATURES] = "lacks the features",
		[SCHED_WHY_CPUS] = "too few CPUs",
		[SCHED_WHY_MEMORY] = "too little memory",
		[SCHED_WHY_GPUS] = "too few GPUs",
		[SCHED_WHY_SHAPE] = "cannot hold the request",
		[SCHED_WHY_UNUSABLE] = "not usable",
		[SCHED_WHY_RESV_LATER] = "its reservation has not started",
		[SCHED_WHY_RESERVED] = "reserved for others while it would run",
		[SCHED_WHY_EXCLUSIVE] = "held whole by a job",
		[SCHED_WHY_OTHER_USER] = "held by another user's exclusive job",
		[SCHED_WHY_BUSY_CPUS] = "busy: CPUs",
		[SCHED_WHY_BUSY_MEMORY] = "busy: memory",
		[SCHED_WHY_BUSY_GPUS] = "busy: GPUs",
		[SCHED_WHY_BUSY] = "busy",
	};
	return code < SCHED_WHY_NCODES ? names[code] : "?";
}
