/*
 * sched_glue.c: between the controller's records and the pure scheduler
 * core. Builds the sched_t mirror of nodes and partitions at start, turns
 * pending jobs into sched_job_t for a pass, applies the decisions (start:
 * RUNNING + launch; pending: reason, expected StartTime, SchedNodeList),
 * marks the nodes backfill holds for a reservation PLANNED, loads the
 * scheduler and priority parameters from slurm.conf into the core's
 * structs, computes priorities through the core (sched_priority), and
 * launches batch jobs on their batch host's registered connection.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/ctld.h"
#include "ctld/resv.h"
#include "ctld/job_array.h"

#include "errors.h"
#include "hostlist.h"
#include "log.h"
#include "states.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

int part_oversubscribe(const char *v, uint32_t *max)
{
	return sched_part_oversubscribe(v, max);
}

void sched_glue_build(ctld_t *cd)
{
	sched_build_conf(&cd->sched, cd->conf);
	cd->multifactor = cd->sched.prio.multifactor;
}

void ctld_load_sched_conf(ctld_t *cd)
{
	sched_load_conf(&cd->sched, cd->conf);
	cd->multifactor = cd->sched.prio.multifactor;
}

/* Partition factors can change at run time (scontrol update). */
static void prio_sync_parts(ctld_t *cd)
{
	sched_prio_conf_t *pc = &cd->sched.prio;
	pc->max_part_job_factor = 0;
	for (uint32_t p = 0; p < cd->nparts && p < cd->sched.nparts; p++) {
		cd->sched.parts[p].priority_job_factor = cd->parts[p].priority_job_factor;
		if (cd->parts[p].priority_job_factor > pc->max_part_job_factor)
			pc->max_part_job_factor = cd->parts[p].priority_job_factor;
	}
	pc->parts = cd->sched.parts;
	pc->nparts = cd->sched.nparts;
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
	sched_free_conf(&cd->sched);
	limits_free(cd);
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
	sj->gpus_per_task = j->gpus_per_task;
	sj->cpus_per_gpu = d->cpus_per_gpu;
	sj->mem_per_gpu = d->mem_per_gpu;
	memcpy(sj->gpu_type, j->gpu_type, sizeof(sj->gpu_type));
	sj->time_limit = j->time_limit;
	sj->exclusive = (d->flags & JOB_F_EXCLUSIVE) != 0;
	sj->oversubscribe = (d->flags & JOB_F_OVERSUBSCRIBE) != 0;
	sj->exclusive_user = (d->flags & JOB_F_EXCLUSIVE_USER) != 0;
	sj->contiguous = (d->flags & JOB_F_CONTIGUOUS) != 0;
	sj->held = j->hold != 0;
	sj->held_reason = j->hold;
	sj->dependency_wait = j->dep_state;
	sj->req_nodes = j->req_idx;
	sj->nreq_nodes = j->nreq;
	sj->exc_nodes = j->exc_idx;
	sj->nexc_nodes = j->nexc;
	sj->features = d->features;
	sj->user_id = j->user_id;
	sj->nice = d->nice;
	sj->eligible_time = j->eligible_time ? j->eligible_time
			  : d->begin_time > j->submit_time ? d->begin_time : j->submit_time;
	if (j->part < cd->nparts)
		sj->part_job_factor = cd->parts[j->part].priority_job_factor;
	sj->req_switch = d->req_switch;
	sj->wait4switch = d->wait4switch;
	sj->pn_min_cpus = d->pn_min_cpus;
	sj->pn_min_tmp = d->pn_min_tmp;
	sj->overcommit = (d->flags & JOB_F_OVERCOMMIT) != 0;
	limits_job_fill(cd, j, sj);   /* association, QOS, their priorities */
	sj->resv = resv_sched_index(cd, d->reservation);   /* --reservation (resv.c) */
	/* accounting: the fair-share factor of its association */
	sj->fairshare = acct_usage_fs_factor(cd, j->assoc_id);
}

void sched_glue_job(ctld_t *cd, const job_t *j, sched_job_t *sj)
{
	job_to_sched(cd, j, sj);
}

uint32_t sched_glue_priority(ctld_t *cd, const job_t *j, int64_t now, sched_prio_factors_t *f)
{
	if (f)
		memset(f, 0, sizeof(*f));
	if (j->hold)
		return 0;
	if (!cd->sched.prio.multifactor) {
		uint32_t p = sched_priority_basic(j->job_id, j->desc->nice);
		if (f) {
			f->priority = p;
			f->nice = j->desc->nice;
		}
		return p;
	}
	prio_sync_parts(cd);
	limits_sync(cd);
	sched_job_t sj;
	job_to_sched(cd, j, &sj);
	return sched_priority(&cd->sched.prio, &sj, now, f);
}

int job_sched_validate(ctld_t *cd, const job_t *j, char **msg)
{
	sched_job_t sj;
	job_to_sched(cd, j, &sj);
	int rc = sched_job_validate(&cd->sched, &sj);
	const char *why = rc == ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE ?
		sched_job_refusal_detail(&cd->sched, &sj) : NULL;
	if (why && msg && !*msg)
		*msg = xstrdup(why);
	return rc;
}

static void bits_ranges(strbuf_t *sb, const uint64_t *bits, uint32_t words);

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
		.warn_signal = d->warn_signal,
		.warn_time = d->warn_time,
		.warn_flags = d->warn_flags,
		.get_user_env = d->get_user_env,
	};
	/* the batch host's share, for its cgroup */
	strbuf_t cores = STRBUF_INIT;
	const sched_alloc_t *a = &j->alloc;
	if (a->cores && a->cwords)
		bits_ranges(&cores, a->cores, a->cwords);
	m.cores = cores.len ? cores.buf : NULL;
	m.mem_mb = a->mem ? a->mem[0] : 0;
	m.gpus = a->gpus ? a->gpus[0] : 0;
	/* ours alone (no submitted environment) for the node's Prolog */
	uint32_t npe = 0;
	char **pe = job_build_env(cd, j, NULL, &npe);
	m.prolog_env = (strv_t){ pe, npe };
	outbox_send(cd, bh, MSG_LAUNCH_JOB, &m);
	strv_free(&m.prolog_env);
	strbuf_release(&cores);
	strv_t e = { env, nenv };
	strv_free(&e);
	proto_free(MSG_SUBMIT, &full);
	verbose("job %u launched on %s (launch %u)", j->job_id, bh->cf->name, j->launch_seq);
	return 0;
}

/* When the last backfill cycle ran (sched_backfill_due says when the
 * next is). */
static int64_t last_backfill;

static void set_planned(ctld_t *cd)
{
	int changed = 0;
	for (uint32_t i = 0; i < cd->nnodes && i < cd->sched.nnodes; i++) {
		node_t *n = &cd->nodes[i];
		uint32_t want = cd->sched.nodes[i].planned ? NODE_FLAG_PLANNED : 0;
		if ((n->flags & NODE_FLAG_PLANNED) != want) {
			n->flags = (n->flags & ~NODE_FLAG_PLANNED) | want;
			changed = 1;
		}
	}
	if (changed)
		cd->last_node_update = ctld_now();
}

void ctld_schedule(ctld_t *cd)
{
	int64_t now = ctld_now();
	uint64_t t0 = ctld_stats_us();
	sync_parts(cd);
	prio_sync_parts(cd);
	limits_sync_usage(cd);
	size_t np = 0, nrun = 0;
	for (size_t i = 0; i < cd->njobs; i++) {
		uint32_t st = cd->jobs[i]->state & JOB_STATE_BASE;
		np += st == JOB_PENDING;
		nrun += cd->jobs[i]->alloc_held && cd->jobs[i]->alloc.nnodes;
	}
	if (!np)
		return;
	job_array_count_running(cd);   /* for the arrays' %N throttles */
	sched_job_t *sj = xmalloc(np * sizeof(*sj));
	job_t **map = xmalloc(np * sizeof(*map));
	sched_running_t *run = xcalloc(nrun ? nrun : 1, sizeof(*run));
	job_t **rmap = xmalloc((nrun ? nrun : 1) * sizeof(*rmap));
	size_t k = 0, r = 0;
	job_deps_turn(cd);
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		if (j->alloc_held && j->alloc.nnodes && r < nrun) {
			run[r].alloc = &j->alloc;
			run[r].end_time = j->end_time ? j->end_time : now + 365 * 86400;
			run[r].job_id = j->job_id;
			run[r].uid = j->user_id;
			run[r].start_time = j->start_time;
			run[r].part = j->part;
			/* Limits count and preemption picks running jobs only
			 * (one ending still holds its nodes, not its limits). */
			run[r].assoc = run[r].qos = -1;
			run[r].ending = (j->state & JOB_STATE_BASE) != JOB_RUNNING;
			if (!run[r].ending) {
				sched_job_t tmp;
				memset(&tmp, 0, sizeof(tmp));
				limits_job_fill(cd, j, &tmp);
				run[r].assoc = tmp.assoc;
				run[r].qos = tmp.qos;
			}
			rmap[r] = j;
			r++;
		}
		if ((j->state & JOB_STATE_BASE) != JOB_PENDING)
			continue;
		/* A held job's dependency waits for its release (as Slurm). */
		if (j->ndeps && !j->hold) {
			if (job_resolve_deps(cd, j))
				job_dirty(cd, j);
			if (j->dep_state == 2 && job_deps_kill_invalid(cd, j)) {
				info("job %u: dependency never satisfied (%s): cancelled",
				     j->job_id, j->dep_str ? j->dep_str : "");
				job_end(cd, j, JOB_CANCELLED, 0, now);
				j->reason = WAIT_DEP_INVALID;
				continue;
			}
		}
		if (j->hold) {
			/* What sched_pass would decide for a held job, without
			 * making it part of the pass: a queue of many held jobs
			 * then costs a pass almost nothing (no conversion, no
			 * sort), and submits stay O(1) however deep it is. */
			uint32_t rs = j->reason == WAIT_HELD_REQUEUE ? WAIT_HELD_REQUEUE : j->hold;
			/* a launch failure's hold keeps saying so (prolog_ctld.c) */
			int keep = j->reason_detail && !strcmp(j->reason_detail, job_launch_failed_desc);
			if (j->reason != rs || (j->reason_detail && !keep)) {
				j->reason = rs;
				free(j->reason_detail);
				j->reason_detail = NULL;
				job_dirty(cd, j);
			}
			j->last_eval = now;
			continue;
		}
		if (j->desc->deadline && job_deadline_check(cd, j, now))
			continue;
		if (job_array_throttled(j)) {
			/* an array at its %N running tasks: like a held job,
			 * not part of the pass */
			if (j->reason != WAIT_ARRAY_TASK_LIMIT || j->reason_detail) {
				j->reason = WAIT_ARRAY_TASK_LIMIT;
				xfree(j->reason_detail);
				job_dirty(cd, j);
			}
			j->last_eval = now;
			continue;
		}
		if (cd->sched.prio.multifactor) {
			uint32_t p = sched_glue_priority(cd, j, now, NULL);
			if (p != j->priority) {
				j->priority = p;
				job_dirty(cd, j);
			}
		}
		job_to_sched(cd, j, &sj[k]);
		map[k++] = j;
	}
	sched_t *s = &cd->sched;
	s->running = run;
	s->nrunning = (uint32_t)r;
	s->run_backfill = sched_backfill_due(&s->params, last_backfill, now, (uint32_t)k);
	sched_decision_t *d = NULL;
	resv_sched_fill(cd);
	sched_pass(s, sj, (uint32_t)k, now, &d);
	s->running = NULL;
	s->nrunning = 0;
	if (s->last.bf_ran) {
		last_backfill = now;
		set_planned(cd);
	}
	for (size_t i = 0; i < k; i++) {
		job_t *j = map[d[i].job_index];
		/* preempt/qos: end the victims; the job starts when their
		 * resources are back. */
		for (uint32_t v = 0; v < d[i].npreempt; v++)
			if (d[i].preempt[v] < r)
				limits_preempt(cd, j, rmap[d[i].preempt[v]]);
		if (d[i].reason != SCHED_REASON_KEEP)
			j->last_eval = now;
		/* Sticky while pending: Slurm keeps showing Backfill:* once
		 * its backfill cycle has looked at a job. */
		if (d[i].bf_examined)
			j->bf_examined = 1;
		if (d[i].start && j->array_pending) {
			/* an array: the task that starts becomes a job of its
			 * own; more of its tasks may start in the next pass,
			 * at once */
			job_t *t = job_array_split(cd, j, now);
			if (!t)
				continue;
			if (t != j) {
				xfree(j->sched_nodes);
				cd->sched_now = 1;
				ctld_sched_request(cd);
			}
			j = t;
		}
		if (d[i].start) {
			free(j->sched_nodes);
			j->sched_nodes = NULL;
			j->backfilled = (uint8_t)d[i].backfilled;
			j->bf_examined = 0;
			job_deadline_fit(j, now);
			job_start(cd, j, &d[i].alloc, now);
			info("job %u started on %s%s", j->job_id, j->nodes,
			     j->backfilled ? " (backfill)" : "");
			/* launched when PrologSlurmctld and, with
			 * PrologFlags=Alloc, the nodes' Prolog are done */
			int wait_ctld = prolog_ctld_start(cd, j);
			if (prolog_nodes_start(cd, j) || wait_ctld) {
				continue;
			} else if (j->desc->flags & JOB_F_INTERACTIVE) {
				jobs_wake_waiters(cd, j);
			} else if (job_launch(cd, j)) {
				info("job %u: batch host %s not connected; requeued", j->job_id,
				     cd->nodes[j->alloc.nodes[0]].cf->name);
				job_requeue(cd, j);
			}
			continue;
		}
		if (s->last.bf_ran) {
			/* Backfill's plan: expected start and planned nodes. */
			if (j->start_time != d[i].start_time) {
				j->start_time = d[i].start_time;
				cd->last_job_update = now;
			}
			free(j->sched_nodes);
			j->sched_nodes = d[i].sched_nodes;
			d[i].sched_nodes = NULL;
		}
		if (d[i].reason == SCHED_REASON_KEEP)
			continue;
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
	free(run);
	free(rmap);
	ctld_stats_pass(cd, t0);
}

/* ---- --test-only ---- */

int job_will_run(ctld_t *cd, const job_t *j, int64_t now, int64_t *start, uint32_t *cpus,
		 char **nodes)
{
	sync_parts(cd);
	prio_sync_parts(cd);
	size_t np = 0, nrun = 0;
	for (size_t i = 0; i < cd->njobs; i++) {
		np += (cd->jobs[i]->state & JOB_STATE_BASE) == JOB_PENDING;
		nrun += cd->jobs[i]->alloc_held && cd->jobs[i]->alloc.nnodes;
	}
	sched_job_t *sj = xmalloc((np ? np : 1) * sizeof(*sj));
	sched_running_t *run = xcalloc(nrun ? nrun : 1, sizeof(*run));
	size_t k = 0, r = 0;
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *o = cd->jobs[i];
		if (o->alloc_held && o->alloc.nnodes && r < nrun) {
			run[r].alloc = &o->alloc;
			run[r].end_time = o->end_time ? o->end_time : now + 365 * 86400;
			run[r].job_id = o->job_id;
			run[r].assoc = run[r].qos = -1;
			r++;
		}
		/* The queue ahead of it, as a pass sees it: held jobs and
		 * arrays at their throttle are not part of the plan. */
		if ((o->state & JOB_STATE_BASE) == JOB_PENDING && k < np && !o->hold &&
		    !job_array_throttled(o))
			job_to_sched(cd, o, &sj[k++]);
	}
	sched_job_t probe;
	job_to_sched(cd, j, &probe);
	/* --test-only answers for the job as if it were eligible: Slurm's
	 * will_run ignores holds and dependencies too. */
	probe.held = 0;
	probe.dependency_wait = 0;
	sched_t *s = &cd->sched;
	s->running = run;
	s->nrunning = (uint32_t)r;
	sched_alloc_t a;
	resv_sched_fill(cd);
	int64_t t = sched_will_run(s, sj, (uint32_t)k, &probe, now, &a);
	s->running = NULL;
	s->nrunning = 0;
	int rc = 0;
	if (t == INT64_MAX) {
		rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	} else {
		const char **names = xmalloc((a.nnodes ? a.nnodes : 1) * sizeof(char *));
		uint32_t n = 0;
		for (uint32_t i = 0; i < a.nnodes; i++) {
			names[i] = cd->nodes[a.nodes[i]].cf->name;
			n += a.cpus[i];
		}
		*nodes = hostlist_compress(names, a.nnodes);
		*cpus = n;
		*start = t;
		free(names);
	}
	sched_alloc_free(&a);
	free(sj);
	free(run);
	return rc;
}

/* ---- scontrol show job -d ---- */

/* "0-3,32-35" from a CPU bitmap. */
static void bits_ranges(strbuf_t *sb, const uint64_t *bits, uint32_t words)
{
	uint32_t nb = words * 64, i = 0;
	int first = 1;
	while (i < nb) {
		if (!(bits[i / 64] & (1ull << (i % 64)))) {
			i++;
			continue;
		}
		uint32_t e = i;
		while (e + 1 < nb && (bits[(e + 1) / 64] & (1ull << ((e + 1) % 64))))
			e++;
		strbuf_addf(sb, first ? "%u" : ",%u", i);
		if (e > i)
			strbuf_addf(sb, "-%u", e);
		first = 0;
		i = e + 1;
	}
}

void job_detail_build(ctld_t *cd, job_t *j)
{
	const sched_alloc_t *a = &j->alloc;
	if (j->cpu_ids || !a->nnodes)
		return;
	strbuf_t ids = STRBUF_INIT, mem = STRBUF_INIT;
	for (uint32_t i = 0; i < a->nnodes; i++) {
		strbuf_addf(&mem, "%s%" PRIu64, i ? " " : "", a->mem[i]);
		if (i)
			strbuf_addch(&ids, ' ');
		if (a->cores && a->cwords)
			bits_ranges(&ids, a->cores + (size_t)i * a->cwords, a->cwords);
		if (!a->cores || !a->cwords || ids.len == 0 || ids.buf[ids.len - 1] == ' ')
			strbuf_addf(&ids, "0-%u", a->cpus[i] ? a->cpus[i] - 1 : 0);
		/* GRES: one "gpu:type:n(IDX:...)" per GPU type held. */
		strbuf_t g = STRBUF_INIT;
		const sched_node_t *sn = a->nodes[i] < cd->sched.nnodes ? &cd->sched.nodes[a->nodes[i]] : NULL;
		uint64_t m = a->gpus[i];
		for (uint32_t t = 0; sn && m && t < (sn->ngpu_types ? sn->ngpu_types : 1); t++) {
			uint64_t tm = m;
			const char *ty = "";
			if (sn->ngpu_types) {
				const sched_gpu_type_t *gt = &sn->gpu_types[t];
				uint64_t all = gt->count >= 64 ? ~0ull : ((1ull << gt->count) - 1);
				tm = gt->first < 64 ? m & (all << gt->first) : 0;
				ty = gt->type;
			}
			if (!tm)
				continue;
			strbuf_addf(&g, "%sgpu%s%s:%d(IDX:", g.len ? "," : "", *ty ? ":" : "", ty,
				    __builtin_popcountll(tm));
			bits_ranges(&g, &tm, 1);
			strbuf_addch(&g, ')');
		}
		strv_push(&j->gres_detail, g.len ? g.buf : "");
		strbuf_release(&g);
	}
	j->cpu_ids = strbuf_detach(&ids);
	j->mem_alloc = strbuf_detach(&mem);
}
