/*
 * step_alloc: the running srun steps of a job, in memory: the CPUs each
 * holds on its nodes, so that steps queue for them as Slurm 22.05's do,
 * and what squeue -s and scontrol show step show of it (step_info.c).
 *
 * CPUs: a step takes every CPU of the job on each of its nodes, or with
 * --exact (implied by -c) only its tasks' (tasks x cpus-per-task), and a
 * step that does not fit is refused with ESLURM_NODES_BUSY, which srun
 * retries ("step creation temporarily disabled"). --overlap steps neither
 * wait nor hold (their record holds 0 CPUs). Each node's supervisor
 * reports the step's end on that node (MSG_STEP_COMPLETE): its CPUs there
 * are free, and once every node reported, the step is gone.
 *
 * A controller restart rebuilds the records of running steps from their
 * accounting rows (step_info.c, step_alloc_recover): those hold no CPUs
 * (which steps used --exact or --overlap is not stored), so steps created
 * after a restart may share CPUs with steps from before it. A step whose
 * node never reports (its launch failed, the node died) stays until the
 * job ends. Records are dropped when the job starts again (they carry the
 * start time they were made under) and when its record is freed.
 * Cost: a step create walks the job's records (its running steps) once.
 */
#include <string.h>

#include "ctld/ctld.h"
#include "errors.h"
#include "xalloc.h"

static void hold_free(step_hold_t *h)
{
	free(h->cpus);
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

int step_alloc_take(job_t *j, uint32_t step_id, uint32_t nn, const uint32_t *tasks,
		    uint32_t cpus_per_task, uint32_t flags)
{
	drop_stale(j);
	if (nn > j->alloc.nnodes)
		nn = j->alloc.nnodes;
	uint32_t *need = xcalloc(nn + 1, sizeof(uint32_t));
	uint32_t cpt = cpus_per_task ? cpus_per_task : 1;
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t have = j->alloc.cpus[i];
		uint64_t want = (flags & STEP_CREATE_EXACT) ? (uint64_t)tasks[i] * cpt : have;
		need[i] = want > have ? have : (uint32_t)want;
	}
	if (flags & STEP_CREATE_OVERLAP)   /* shown, holds nothing */
		memset(need, 0, nn * sizeof(uint32_t));
	for (uint32_t i = 0; i < nn && !(flags & STEP_CREATE_OVERLAP); i++) {
		uint64_t used = 0;
		for (uint32_t h = 0; h < j->nstep_holds; h++)
			if (i < j->step_holds[h].nnodes)
				used += j->step_holds[h].cpus[i];
		if (used + need[i] > j->alloc.cpus[i]) {
			free(need);
			return ESLURM_NODES_BUSY;
		}
	}
	j->step_holds = xrealloc(j->step_holds, (j->nstep_holds + 1) * sizeof(step_hold_t));
	j->step_holds[j->nstep_holds++] = (step_hold_t){
		.step_id = step_id, .job_start = j->start_time, .nnodes = nn, .cpus = need,
		.reported = xcalloc(nn + 1, 1), .start = j->start_time,
	};
	return 0;
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

void step_alloc_recover(job_t *j, uint32_t step_id, uint32_t nnodes, const uint8_t *done,
			size_t done_len, const step_desc_t *d)
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
		.cpus = xcalloc(nnodes + 1, sizeof(uint32_t)), .reported = rep,
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
