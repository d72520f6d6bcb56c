/*
 * step_alloc: the CPUs the steps of a running job hold on its nodes, so
 * that steps queue for them as Slurm 22.05's do: a step takes every CPU
 * of the job on each of its nodes, or with --exact (implied by -c) only
 * its tasks' (tasks x cpus-per-task), and a step that does not fit is
 * refused with ESLURM_NODES_BUSY, which srun retries ("step creation
 * temporarily disabled"). --overlap steps neither wait nor hold. Each
 * node's supervisor gives the step's CPUs on that node back when it
 * reports the step's end (MSG_STEP_COMPLETE).
 *
 * Kept in memory only: after a controller restart the running steps hold
 * nothing, and a step whose node never reports (its launch failed, the
 * node died) holds its CPUs until the job ends. Holds are dropped when
 * the job starts again (they carry the start time they were made under).
 * Cost: a step create walks the job's holds (its running steps) once.
 */
#include <string.h>

#include "ctld/ctld.h"
#include "errors.h"
#include "xalloc.h"

struct step_hold {
	uint32_t step_id;
	int64_t job_start;         /* j->start_time when it was made */
	uint32_t nnodes;           /* the job's first nnodes nodes */
	uint32_t *cpus;            /* per node; 0 once that node reported */
};

static void hold_free(step_hold_t *h)
{
	free(h->cpus);
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
	if (flags & STEP_CREATE_OVERLAP) {
		free(need);
		return 0;
	}
	for (uint32_t i = 0; i < nn; i++) {
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
	};
	return 0;
}

void step_alloc_node_done(job_t *j, uint32_t step_id, uint32_t node_id)
{
	for (uint32_t h = 0; h < j->nstep_holds; h++) {
		step_hold_t *s = &j->step_holds[h];
		if (s->step_id != step_id)
			continue;
		if (node_id < s->nnodes)
			s->cpus[node_id] = 0;
		uint32_t left = 0;
		for (uint32_t i = 0; i < s->nnodes; i++)
			left += s->cpus[i] != 0;
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
