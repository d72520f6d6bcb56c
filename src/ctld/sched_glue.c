/*
 * sched_glue.c: between the controller's records and the pure scheduler
 * core. Builds the sched_t mirror of nodes and partitions at start, turns
 * pending jobs into sched_job_t for a pass, applies the decisions (start:
 * RUNNING + launch; pending: reason), and launches batch jobs on their
 * batch host's registered connection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/ctld.h"

#include "errors.h"
#include "log.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

void sched_glue_build(ctld_t *cd)
{
	conf_t *conf = cd->conf;
	sched_t *s = &cd->sched;
	s->nnodes = cd->nnodes;
	s->nodes = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(sched_node_t));
	/* leaf switch index per node */
	int *leaf = xmalloc((s->nnodes ? s->nnodes : 1) * sizeof(int));
	for (uint32_t i = 0; i < s->nnodes; i++)
		leaf[i] = -1;
	int nleaf = 0;
	for (size_t w = 0; w < conf->nswitches; w++) {
		const conf_switch_t *sw = &conf->switches[w];
		if (sw->level != 0)
			continue;
		for (size_t k = 0; k < sw->nnodes; k++)
			if (sw->node_idx[k] < s->nnodes && leaf[sw->node_idx[k]] < 0)
				leaf[sw->node_idx[k]] = nleaf;
		nleaf++;
	}
	for (uint32_t i = 0; i < s->nnodes; i++) {
		const conf_node_t *cf = &conf->nodes[i];
		sched_node_t *sn = &s->nodes[i];
		sn->name = cf->name;
		sn->cpus = cf->cpus;
		sn->mem = cf->real_memory;
		sn->weight = cf->weight;
		sn->features = cf->features;
		sn->leaf = leaf[i];
		uint32_t first = 0;
		for (size_t g = 0; g < cf->ngres && sn->ngpu_types < SCHED_MAX_GRES_TYPES; g++) {
			if (strcmp(cf->gres[g].name, "gpu"))
				continue;
			sched_gpu_type_t *t = &sn->gpu_types[sn->ngpu_types++];
			snprintf(t->type, sizeof(t->type), "%s", cf->gres[g].type ? cf->gres[g].type : "");
			t->first = first;
			t->count = cf->gres[g].count;
			first += t->count;
		}
		sn->ngpus = first > SCHED_MAX_GPUS ? SCHED_MAX_GPUS : first;
	}
	free(leaf);
	s->nparts = cd->nparts;
	s->parts = xcalloc(s->nparts ? s->nparts : 1, sizeof(sched_part_t));
	for (uint32_t p = 0; p < s->nparts; p++) {
		const conf_part_t *cf = &conf->parts[p];
		sched_part_t *sp = &s->parts[p];
		sp->name = cf->name;
		sp->nnodes = (uint32_t)cf->nnodes;
		sp->nodes = xmalloc((cf->nnodes ? cf->nnodes : 1) * sizeof(uint32_t));
		for (size_t k = 0; k < cf->nnodes; k++)
			sp->nodes[k] = (uint32_t)cf->node_idx[k];
		sp->priority_tier = cf->priority_tier;
		sp->def_mem_per_cpu = cf->def_mem_per_cpu ? cf->def_mem_per_cpu : conf->def_mem_per_cpu;
	}
}

/* Partition state (possibly recovered from the DB) into the mirror. */
static void sync_parts(ctld_t *cd)
{
	for (uint32_t p = 0; p < cd->nparts; p++) {
		part_t *pt = &cd->parts[p];
		sched_part_t *sp = &cd->sched.parts[p];
		sp->up = pt->state == CONF_PART_UP || pt->state == CONF_PART_DRAIN;
		sp->inactive = pt->state == CONF_PART_INACTIVE;
		sp->max_time = pt->max_time;
		sp->max_nodes = pt->max_nodes;
		sp->min_nodes = pt->min_nodes;
	}
}

void sched_glue_free(ctld_t *cd)
{
	for (uint32_t p = 0; p < cd->sched.nparts; p++)
		free(cd->sched.parts[p].nodes);
	free(cd->sched.parts);
	free(cd->sched.nodes);
	memset(&cd->sched, 0, sizeof(cd->sched));
}

static void job_to_sched(ctld_t *cd, const job_t *j, sched_job_t *sj)
{
	const job_desc_t *d = j->desc;
	memset(sj, 0, sizeof(*sj));
	sj->job_id = j->job_id;
	sj->priority = j->priority;
	sj->submit_time = j->submit_time;
	sj->begin_time = d->begin_time;
	sj->part = j->part;
	if (d->min_nodes) {
		sj->min_nodes = d->min_nodes;
		sj->max_nodes = d->max_nodes ? d->max_nodes : d->min_nodes;
	} else {
		/* No -N: as many nodes as the tasks need. */
		sj->min_nodes = 1;
		sj->max_nodes = d->max_nodes ? d->max_nodes : UINT32_MAX;
	}
	sj->ntasks = d->ntasks;
	sj->cpus_per_task = d->cpus_per_task ? d->cpus_per_task : 1;
	sj->ntasks_per_node = d->ntasks_per_node;
	sj->mem_per_node = d->mem_per_node;
	sj->mem_per_cpu = d->mem_per_cpu;
	sj->gpus_per_node = j->gpus_per_node;
	sj->gpus_per_job = j->gpus_per_job;
	memcpy(sj->gpu_type, j->gpu_type, sizeof(sj->gpu_type));
	sj->time_limit = j->time_limit;
	sj->exclusive = (d->flags & JOB_F_EXCLUSIVE) != 0;
	sj->held = j->hold != 0;
	sj->held_reason = j->hold;
	sj->dependency_wait = j->dep_state;
	sj->req_nodes = j->req_idx;
	sj->nreq_nodes = j->nreq;
	sj->exc_nodes = j->exc_idx;
	sj->nexc_nodes = j->nexc;
	sj->features = d->features;
	(void)cd;
}

int job_sched_validate(ctld_t *cd, const job_t *j)
{
	sched_job_t sj;
	job_to_sched(cd, j, &sj);
	return sched_job_validate(&cd->sched, &sj);
}

int job_launch(ctld_t *cd, job_t *j)
{
	node_t *bh = &cd->nodes[j->alloc.nodes[0]];
	if (!bh->conn)
		return -1;
	job_desc_t full;
	if (db_job_fetch_desc(cd, j->job_id, &full))
		return -1;
	j->launch_seq++;
	job_dirty(cd, j);
	uint32_t nenv = 0;
	char **env = job_build_env(cd, j, &full, &nenv);
	const job_desc_t *d = j->desc;
	msg_launch_job_t m = {
		.job_id = j->job_id,
		.launch_seq = j->launch_seq,
		.user_id = j->user_id,
		.group_id = j->group_id,
		.user_name = d->user_name,
		.name = d->name,
		.script = full.script,
		.work_dir = d->work_dir,
		.std_in = d->std_in,
		.std_out = d->std_out,
		.std_err = d->std_err,
		/* sbatch sends [script path, args...]; the script gets the args. */
		.argv = { d->argv.n ? d->argv.v + 1 : NULL, d->argv.n ? d->argv.n - 1 : 0 },
		.env = { env, nenv },
		.flags = d->flags,
		.time_limit = j->time_limit,
		.kill_wait = cd->conf->kill_wait,
		.start_time = j->start_time,
		.ctld_addr = cd->conf->nctld_hosts ? cd->conf->ctld_addrs[0] : NULL,
		.ctld_port = cd->conf->ctld_port,
	};
	conn_send(bh->conn, MSG_LAUNCH_JOB, &m);
	strv_t e = { env, nenv };
	strv_free(&e);
	proto_free(MSG_SUBMIT, &full);
	verbose("job %u launched on %s (launch %u)", j->job_id, bh->cf->name, j->launch_seq);
	return 0;
}

void ctld_schedule(ctld_t *cd)
{
	int64_t now = ctld_now();
	sync_parts(cd);
	size_t np = 0;
	for (size_t i = 0; i < cd->njobs; i++)
		np += (cd->jobs[i]->state & JOB_STATE_BASE) == JOB_PENDING;
	if (!np)
		return;
	sched_job_t *sj = xmalloc(np * sizeof(*sj));
	job_t **map = xmalloc(np * sizeof(*map));
	size_t k = 0;
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		if ((j->state & JOB_STATE_BASE) != JOB_PENDING)
			continue;
		if (j->ndeps) {
			uint8_t was = j->dep_state;
			job_resolve_deps(cd, j);
			if (j->dep_state == 2 && j->desc->kill_on_invalid_dep) {
				job_end(cd, j, JOB_CANCELLED, 0, now);
				continue;
			}
			if (was != j->dep_state)
				job_dirty(cd, j);
		}
		if (cd->multifactor && !j->hold)
			j->priority = job_priority(cd, j, now);
		job_to_sched(cd, j, &sj[k]);
		map[k++] = j;
	}
	sched_decision_t *d = NULL;
	sched_pass(&cd->sched, sj, (uint32_t)k, now, &d);
	for (size_t i = 0; i < k; i++) {
		job_t *j = map[d[i].job_index];
		j->last_eval = now;
		if (d[i].start) {
			job_start(cd, j, &d[i].alloc, now);
			info("job %u started on %s", j->job_id, j->nodes);
			if (j->desc->flags & JOB_F_INTERACTIVE) {
				jobs_wake_waiters(cd, j);
			} else if (job_launch(cd, j)) {
				info("job %u: batch host %s not connected; requeued", j->job_id,
				     cd->nodes[j->alloc.nodes[0]].cf->name);
				job_requeue(cd, j);
			}
			continue;
		}
		int changed = j->reason != d[i].reason ||
			      (d[i].reason_detail == NULL) != (j->reason_detail == NULL) ||
			      (d[i].reason_detail && strcmp(d[i].reason_detail, j->reason_detail));
		if (changed) {
			j->reason = d[i].reason;
			free(j->reason_detail);
			j->reason_detail = d[i].reason_detail;
			d[i].reason_detail = NULL;
			job_dirty(cd, j);
		}
	}
	sched_decisions_free(d, (uint32_t)k);
	free(sj);
	free(map);
}
