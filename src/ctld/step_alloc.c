/*
 * step_alloc: the running srun steps of a job, in memory: the nodes of
 * the allocation each runs on, the CPUs and GPUs it holds there, so that
 * steps spread over the allocation and queue for it as Slurm 22.05's do,
 * and what squeue -s and scontrol show step show of it (step_info.c).
 *
 * Nodes: a step of fewer nodes than the job takes, for each of its task
 * counts in turn, the least used node of the allocation (fewest CPUs held,
 * then the first) that has room for it; only when no node has room is it
 * refused with ESLURM_NODES_BUSY, which srun retries ("step creation
 * temporarily disabled"). Its nodes are then in the allocation's order.
 *
 * CPUs: a step takes every CPU of the job on each of its nodes, or with
 * --exact (implied by -c) only its tasks' (tasks x cpus-per-task, at least
 * GPUs x cpus-per-gpu). GPUs: --gpus-per-node/--gres count per node,
 * --gpus-per-task per task there, --gpus spread over its nodes; without
 * any of them a step takes all of the job's GPUs on its nodes (man srun
 * --gres: "by default, a job step is allocated all of the generic
 * resources that have been requested by the job"), --gres=none none.
 * Concurrent steps never share a GPU: a step takes the lowest free ones
 * of the job's on the node. --overlap steps neither wait nor hold (their
 * record holds 0 CPUs and 0 GPUs, and their GPUs may be any step's).
 * Each node's supervisor reports the step's end on that node
 * (MSG_STEP_COMPLETE): its CPUs and GPUs there are free, and once every
 * node reported, the step is gone.
 *
 * A controller restart rebuilds the records of running steps from their
 * accounting rows (step_info.c, step_alloc_recover): those hold no CPUs
 * or GPUs (which steps used --exact or --overlap is not stored), so steps
 * created after a restart may share them with steps from before it. A
 * step whose node never reports (its launch failed, the node died) stays
 * until the job ends. Records are dropped when the job starts again (they
 * carry the start time they were made under) and when its record is
 * freed. Cost: a step create walks the job's records (its running steps)
 * once per node it places.
 */
#include <string.h>

#include "ctld/ctld.h"
#include "errors.h"
#include "xalloc.h"

static void hold_free(step_hold_t *h)
{
	free(h->node_idx);
	free(h->tasks);
	free(h->cpus);
	free(h->gpus);
	free(h->reported);
	free(h->name);
	free(h->nodes);
	free(h->tres);
	free(h->srun_host);
}

/* Drop holds from an earlier run of the job. */
static void drop_stale(job_t *j)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < j->nstep_holds; i++) {
		if (j->step_holds[i].job_start == j->start_time)
			j->step_holds[k++] = j->step_holds[i];
		else
			hold_free(&j->step_holds[i]);
	}
	j->nstep_holds = k;
}

void step_alloc_forget_from(job_t *j, uint32_t next_step)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < j->nstep_holds; i++) {
		if (j->step_holds[i].step_id < next_step)
			j->step_holds[k++] = j->step_holds[i];
		else
			hold_free(&j->step_holds[i]);
	}
	j->nstep_holds = k;
}

static void *dup_arr(const void *v, size_t len)
{
	void *d = xmalloc(len ? len : 1);
	memcpy(d, v, len);
	return d;
}

/* The lowest n bits of mask (all of them when it has fewer). */
static uint64_t lowest_bits(uint64_t mask, uint32_t n)
{
	uint64_t out = 0;
	for (uint32_t k = 0; k < n && mask; k++) {
		uint64_t b = mask & -mask;
		out |= b;
		mask &= ~b;
	}
	return out;
}

/* GPUs the step wants on a node where it runs tasks tasks (position p of
 * nn); NO_VAL32 = all of the job's there. */
static uint32_t gpus_wanted(const step_req_t *rq, uint32_t p, uint32_t nn, uint32_t tasks)
{
	if (rq->flags & STEP_CREATE_GRES_NONE)
		return 0;
	if (rq->gpus_per_task)
		return rq->gpus_per_task * tasks;
	if (rq->gpus_per_node)
		return rq->gpus_per_node;
	if (rq->gpus)
		return rq->gpus / nn + (p < rq->gpus % nn);
	return NO_VAL32;
}

/* What the step would take on job node x with tasks tasks: 0 and the
 * CPUs and GPUs, ESLURM_NODES_BUSY when other steps hold them now, or
 * ESLURM_INVALID_GRES when the job has too few there at all. */
static int fit_node(const job_t *j, const step_req_t *rq, uint32_t x, uint32_t p, uint32_t nn,
		    uint32_t tasks, uint32_t used, uint64_t gused, uint32_t *cpus, uint64_t *gpus)
{
	uint64_t jg = j->alloc.gpus ? j->alloc.gpus[x] : 0;
	if (rq->gpu_ok)
		jg &= rq->gpu_ok[x];
	uint32_t gw = gpus_wanted(rq, p, nn, tasks);
	uint32_t ng = gw == NO_VAL32 ? (uint32_t)__builtin_popcountll(jg) : gw;
	if (ng > (uint32_t)__builtin_popcountll(jg))
		return ESLURM_INVALID_GRES;
	uint32_t have = j->alloc.cpus[x], cpt = rq->cpus_per_task ? rq->cpus_per_task : 1;
	uint64_t want = have;
	if (rq->flags & STEP_CREATE_EXACT) {
		want = (uint64_t)tasks * cpt;
		if (rq->cpus_per_gpu && want < (uint64_t)ng * rq->cpus_per_gpu)
			want = (uint64_t)ng * rq->cpus_per_gpu;
	}
	*cpus = want > have ? have : (uint32_t)want;
	if (rq->flags & STEP_CREATE_OVERLAP) {
		/* shares: the free GPUs first, then any of the job's */
		uint64_t g = lowest_bits(jg & ~gused, ng);
		*gpus = g | lowest_bits(jg & ~g, ng - (uint32_t)__builtin_popcountll(g));
		return 0;
	}
	if (used + *cpus > have || (uint32_t)__builtin_popcountll(jg & ~gused) < ng)
		return ESLURM_NODES_BUSY;
	*gpus = lowest_bits(jg & ~gused, ng);
	return 0;
}

/* CPUs and GPUs the job's running steps hold on job node x. */
static void node_use(const job_t *j, uint32_t x, uint32_t *cpus, uint64_t *gpus)
{
	uint64_t c = 0, g = 0;
	for (uint32_t h = 0; h < j->nstep_holds; h++) {
		const step_hold_t *s = &j->step_holds[h];
		for (uint32_t i = 0; i < s->nnodes; i++)
			if (s->node_idx[i] == x) {
				c += s->cpus[i];
				g |= s->gpus[i];
			}
	}
	*cpus = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	*gpus = g;
}

int step_alloc_take(job_t *j, uint32_t step_id, const step_req_t *rq, step_pick_t *out)
{
	drop_stale(j);
	memset(out, 0, sizeof(*out));
	uint32_t nn = rq->nnodes, jn = j->alloc.nnodes;
	if (nn > jn)
		nn = jn;
	if (!nn)
		return ESLURM_BAD_TASK_COUNT;
	uint32_t *used = xcalloc(jn, sizeof(uint32_t));
	uint64_t *gused = xcalloc(jn, sizeof(uint64_t));
	uint8_t *taken = xcalloc(jn, 1);
	for (uint32_t x = 0; x < jn; x++)
		node_use(j, x, &used[x], &gused[x]);
	step_hold_t h = {
		.step_id = step_id, .job_start = j->start_time, .nnodes = nn,
		.node_idx = xcalloc(nn, sizeof(uint32_t)), .tasks = xcalloc(nn, sizeof(uint32_t)),
		.cpus = xcalloc(nn, sizeof(uint32_t)), .gpus = xcalloc(nn, sizeof(uint64_t)),
		.reported = xcalloc(nn + 1, 1), .start = j->start_time,
	};
	int rc = 0;
	for (uint32_t p = 0; p < nn && !rc; p++) {
		uint32_t tasks = rq->ntasks / nn + (p < rq->ntasks % nn);
		uint32_t best = UINT32_MAX, bcpus = 0;
		uint64_t bgpus = 0;
		int why = ESLURM_NODES_BUSY, any_ok = 0;
		for (uint32_t x = 0; x < jn; x++) {
			uint32_t c;
			uint64_t g;
			if (taken[x])
				continue;
			int r = fit_node(j, rq, x, p, nn, tasks, used[x], gused[x], &c, &g);
			if (r) {
				/* busy beats invalid: some node could take it later */
				if (r == ESLURM_NODES_BUSY)
					any_ok = 1;
				continue;
			}
			any_ok = 1;
			/* least used first; every node when the step takes them all */
			if (best == UINT32_MAX || used[x] < used[best]) {
				best = x;
				bcpus = c;
				bgpus = g;
			}
		}
		if (!any_ok)
			why = ESLURM_INVALID_GRES;
		if (best == UINT32_MAX) {
			rc = why;
			break;
		}
		taken[best] = 1;
		h.node_idx[p] = best;
		h.tasks[p] = tasks;
		h.cpus[p] = (rq->flags & STEP_CREATE_OVERLAP) ? 0 : bcpus;
		h.gpus[p] = bgpus;
	}
	free(used);
	free(gused);
	free(taken);
	if (rc) {
		hold_free(&h);
		return rc;
	}
	/* in the allocation's order (hostlist order, SLURM_NODEID) */
	for (uint32_t a = 1; a < nn; a++)
		for (uint32_t b = a; b > 0 && h.node_idx[b - 1] > h.node_idx[b]; b--) {
			uint32_t t = h.node_idx[b]; h.node_idx[b] = h.node_idx[b - 1]; h.node_idx[b - 1] = t;
			t = h.tasks[b]; h.tasks[b] = h.tasks[b - 1]; h.tasks[b - 1] = t;
			t = h.cpus[b]; h.cpus[b] = h.cpus[b - 1]; h.cpus[b - 1] = t;
			uint64_t g = h.gpus[b]; h.gpus[b] = h.gpus[b - 1]; h.gpus[b - 1] = g;
		}
	/* what it got, before --overlap's record drops its GPUs */
	out->nnodes = nn;
	out->node_idx = dup_arr(h.node_idx, nn * sizeof(uint32_t));
	out->tasks = dup_arr(h.tasks, nn * sizeof(uint32_t));
	out->gpus = dup_arr(h.gpus, nn * sizeof(uint64_t));
	if (rq->flags & STEP_CREATE_OVERLAP)
		memset(h.gpus, 0, nn * sizeof(uint64_t));
	j->step_holds = xrealloc(j->step_holds, (j->nstep_holds + 1) * sizeof(step_hold_t));
	j->step_holds[j->nstep_holds++] = h;
	return 0;
}

void step_pick_release(step_pick_t *p)
{
	free(p->node_idx);
	free(p->tasks);
	free(p->gpus);
	memset(p, 0, sizeof(*p));
}

static step_hold_t *hold_find(job_t *j, uint32_t step_id)
{
	for (uint32_t h = 0; h < j->nstep_holds; h++)
		if (j->step_holds[h].step_id == step_id)
			return &j->step_holds[h];
	return NULL;
}

void step_alloc_describe(job_t *j, uint32_t step_id, const step_desc_t *d)
{
	step_hold_t *s = hold_find(j, step_id);
	if (!s)
		return;
	free(s->name);
	free(s->nodes);
	free(s->tres);
	free(s->srun_host);
	s->name = xstrdup(d->name ? d->name : "");
	s->nodes = xstrdup(d->nodes ? d->nodes : "");
	s->tres = d->tres ? xstrdup(d->tres) : NULL;
	s->srun_host = d->srun_host && *d->srun_host ? xstrdup(d->srun_host) : NULL;
	s->ntasks = d->ntasks;
	s->ncpus = d->ncpus;
	s->time_limit = d->time_limit;
	s->srun_pid = d->srun_pid;
	s->start = d->start;
}

void step_alloc_recover(job_t *j, uint32_t step_id, uint32_t nnodes, const uint32_t *node_idx,
			const uint8_t *done, size_t done_len, const step_desc_t *d)
{
	if (!nnodes || nnodes > j->alloc.nnodes || hold_find(j, step_id))
		return;
	uint8_t *rep = xcalloc(nnodes + 1, 1);
	uint32_t left = 0;
	for (uint32_t i = 0; i < nnodes; i++) {
		rep[i] = done && i / 8 < done_len && (done[i / 8] & (1u << (i % 8)));
		left += !rep[i];
	}
	if (!left) {
		free(rep);
		return;
	}
	j->step_holds = xrealloc(j->step_holds, (j->nstep_holds + 1) * sizeof(step_hold_t));
	j->step_holds[j->nstep_holds++] = (step_hold_t){
		.step_id = step_id, .job_start = j->start_time, .nnodes = nnodes,
		.node_idx = dup_arr(node_idx, nnodes * sizeof(uint32_t)),
		.tasks = xcalloc(nnodes + 1, sizeof(uint32_t)),
		.cpus = xcalloc(nnodes + 1, sizeof(uint32_t)),
		.gpus = xcalloc(nnodes + 1, sizeof(uint64_t)), .reported = rep,
	};
	step_alloc_describe(j, step_id, d);
}

const step_hold_t *step_alloc_list(job_t *j, uint32_t *n)
{
	drop_stale(j);
	*n = j->nstep_holds;
	return j->step_holds;
}

void step_alloc_node_done(job_t *j, uint32_t step_id, uint32_t node_id)
{
	for (uint32_t h = 0; h < j->nstep_holds; h++) {
		step_hold_t *s = &j->step_holds[h];
		if (s->step_id != step_id)
			continue;
		if (node_id < s->nnodes) {
			s->cpus[node_id] = 0;
			s->gpus[node_id] = 0;
			s->reported[node_id] = 1;
		}
		uint32_t left = 0;
		for (uint32_t i = 0; i < s->nnodes; i++)
			left += !s->reported[i];
		if (!left) {
			hold_free(s);
			j->step_holds[h] = j->step_holds[--j->nstep_holds];
		}
		return;
	}
}

void step_alloc_free(job_t *j)
{
	for (uint32_t h = 0; h < j->nstep_holds; h++)
		hold_free(&j->step_holds[h]);
	free(j->step_holds);
	j->step_holds = NULL;
	j->nstep_holds = 0;
}
