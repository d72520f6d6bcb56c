/*
 * limits.c: AccountingStorageEnforce=limits[,safe] in the controller.
 *
 * The scheduler core checks the limits (sched_limits.c); this file hands
 * it the data: a flat copy of the association tree and the QOS list
 * (sched_assoc_t, sched_qos_t) rebuilt from the model (acct_t) when it
 * changed, each job's association and QOS index, and the QOS priority
 * for the priority factor. It also makes the checks Slurm makes at
 * submission (MaxSubmitJobs*, GrpSubmitJobs, and the per-job limits of a
 * QOS with Flags=DenyOnLimit), gives a job without --time its MaxWall,
 * and carries out preemption by QOS (PreemptType=preempt/qos) once the
 * core has picked the victims.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld.h"
#include "ctld/job_array.h"

#include "errors.h"
#include "log.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

typedef struct id_idx {
	uint32_t id;
	int32_t idx;
} id_idx_t;

struct limits_state {
	uint64_t gen;                /* acct.gen the tables were built from */
	int built;
	sched_assoc_t *assocs;
	uint32_t nassocs;
	sched_qos_t *qos;
	uint32_t nqos;
	uint64_t *preempt_bits;      /* nqos x words */
	id_idx_t *assoc_ids, *qos_ids;   /* sorted by id */
	uint32_t max_qos_prio, max_assoc_prio;
};

static int id_cmp(const void *a, const void *b)
{
	uint32_t x = ((const id_idx_t *)a)->id, y = ((const id_idx_t *)b)->id;
	return x < y ? -1 : x > y;
}

static int32_t id_find(const id_idx_t *t, uint32_t n, uint32_t id)
{
	if (!id || !t)
		return -1;
	id_idx_t key = { id, 0 };
	const id_idx_t *f = bsearch(&key, t, n, sizeof(*t), id_cmp);
	return f ? f->idx : -1;
}

static void state_clear(struct limits_state *ls)
{
	free(ls->assocs);
	free(ls->qos);
	free(ls->preempt_bits);
	free(ls->assoc_ids);
	free(ls->qos_ids);
	ls->assocs = NULL;
	ls->qos = NULL;
	ls->preempt_bits = NULL;
	ls->assoc_ids = ls->qos_ids = NULL;
	ls->nassocs = ls->nqos = 0;
}

/* An unset Priority= (0 or Slurm's NO_VAL/INFINITE). */
static int prio_unset(uint32_t p)
{
	return p == 0 || p >= 0xfffffffeu;
}

static void rebuild(ctld_t *cd, struct limits_state *ls)
{
	acct_t *m = &cd->acct;
	state_clear(ls);
	ls->nassocs = m->nassocs;
	ls->nqos = m->nqos;
	ls->assocs = xcalloc(m->nassocs ? m->nassocs : 1, sizeof(sched_assoc_t));
	ls->qos = xcalloc(m->nqos ? m->nqos : 1, sizeof(sched_qos_t));
	ls->assoc_ids = xmalloc((m->nassocs ? m->nassocs : 1) * sizeof(id_idx_t));
	ls->qos_ids = xmalloc((m->nqos ? m->nqos : 1) * sizeof(id_idx_t));
	for (uint32_t i = 0; i < m->nassocs; i++)
		ls->assoc_ids[i] = (id_idx_t){ m->assocs[i].id, (int32_t)i };
	qsort(ls->assoc_ids, m->nassocs, sizeof(id_idx_t), id_cmp);
	for (uint32_t i = 0; i < m->nqos; i++)
		ls->qos_ids[i] = (id_idx_t){ m->qos[i].id, (int32_t)i };
	qsort(ls->qos_ids, m->nqos, sizeof(id_idx_t), id_cmp);
	for (uint32_t i = 0; i < m->nassocs; i++) {
		const acct_assoc_t *a = &m->assocs[i];
		sched_assoc_t *s = &ls->assocs[i];
		s->id = a->id;
		/* [0] is the root; a parent_id of 0 elsewhere means the root. */
		s->parent = i == 0 ? -1 : a->parent_id ? id_find(ls->assoc_ids, m->nassocs, a->parent_id) : 0;
		if (s->parent == (int32_t)i)
			s->parent = -1;
		s->uid = a->user ? a->uid : UINT32_MAX;
		s->is_user = a->user != NULL;
		s->account = a->account;
		s->partition = a->partition;
		s->lim = a->lim;
		s->shares_raw = a->shares_raw;
		s->priority = a->priority;
		s->usage_raw = a->usage_raw;
		memcpy(s->usage_tres, a->usage_tres, sizeof(s->usage_tres));
		s->usage_wall = a->usage_wall;
	}
	uint32_t words = (m->nqos + 63) / 64;
	ls->preempt_bits = xcalloc((size_t)(m->nqos ? m->nqos : 1) * (words ? words : 1),
				   sizeof(uint64_t));
	for (uint32_t i = 0; i < m->nqos; i++) {
		const acct_qos_t *q = &m->qos[i];
		sched_qos_t *s = &ls->qos[i];
		*s = q->s;
		s->id = q->id;
		s->name = q->name;
		s->preempt = NULL;
		uint64_t *bits = ls->preempt_bits + (size_t)i * words;
		for (uint32_t k = 0; k < q->npreempt; k++) {
			int32_t v = id_find(ls->qos_ids, m->nqos, q->preempt_ids[k]);
			if (v >= 0 && (uint32_t)v != i) {
				bits[(uint32_t)v / 64] |= 1ull << ((uint32_t)v % 64);
				s->preempt = bits;
			}
		}
	}
	ls->max_qos_prio = ls->max_assoc_prio = 0;
	for (uint32_t i = 0; i < ls->nqos; i++)
		if (ls->qos[i].priority > ls->max_qos_prio)
			ls->max_qos_prio = ls->qos[i].priority;
	for (uint32_t i = 0; i < ls->nassocs; i++)
		if (!prio_unset(ls->assocs[i].priority) && ls->assocs[i].priority > ls->max_assoc_prio)
			ls->max_assoc_prio = ls->assocs[i].priority;
	ls->gen = m->gen;
	ls->built = 1;
}

/* PreemptMode: the first mode word (",GANG" and "WITHIN" aside). */
static uint32_t preempt_mode_parse(const char *v)
{
	if (!v)
		return LIM_PREEMPT_OFF;
	if (!strncasecmp(v, "CANCEL", 6))
		return LIM_PREEMPT_CANCEL;
	if (!strncasecmp(v, "REQUEUE", 7))
		return LIM_PREEMPT_REQUEUE;
	if (!strncasecmp(v, "SUSPEND", 7))
		return LIM_PREEMPT_SUSPEND;
	return LIM_PREEMPT_OFF;
}

void limits_sync(ctld_t *cd)
{
	if (!cd->limits)
		cd->limits = xcalloc(1, sizeof(*cd->limits));
	struct limits_state *ls = cd->limits;
	if (!ls->built || ls->gen != cd->acct.gen || ls->nassocs != cd->acct.nassocs ||
	    ls->nqos != cd->acct.nqos)
		rebuild(cd, ls);
	sched_t *s = &cd->sched;
	s->assocs = ls->assocs;
	s->nassocs = ls->nassocs;
	s->qos = ls->qos;
	s->nqos = ls->nqos;
	uint32_t enf = cd->acct.enforce |
		acct_enforce_parse(conf_get(cd->conf, "AccountingStorageEnforce"));
	s->lim_enforce = (enf & ACCT_ENF_LIMITS ? SCHED_LIM_ENFORCE : 0) |
			 (enf & ACCT_ENF_SAFE ? SCHED_LIM_SAFE : 0);
	const char *pt = conf_get(cd->conf, "PreemptType");
	uint32_t mode = preempt_mode_parse(conf_get(cd->conf, "PreemptMode"));
	if (!pt || strcasecmp(pt, "preempt/qos"))
		mode = LIM_PREEMPT_OFF;
	/* SUSPEND needs gang scheduling: not supported, so no preemption
	 * rather than a kill the admin did not ask for. */
	s->preempt_mode = mode == LIM_PREEMPT_SUSPEND ? LIM_PREEMPT_OFF : mode;
	s->prio.max_qos_priority = ls->max_qos_prio;
	s->prio.max_assoc_priority = ls->max_assoc_prio;
}

void limits_sync_usage(ctld_t *cd)
{
	limits_sync(cd);
	struct limits_state *ls = cd->limits;
	/* Usage moves without a model change (acct_usage.c decays it). */
	for (uint32_t i = 0; i < ls->nassocs; i++) {
		const acct_assoc_t *a = &cd->acct.assocs[i];
		ls->assocs[i].usage_raw = a->usage_raw;
		memcpy(ls->assocs[i].usage_tres, a->usage_tres, sizeof(a->usage_tres));
		ls->assocs[i].usage_wall = a->usage_wall;
	}
	for (uint32_t i = 0; i < ls->nqos; i++) {
		const sched_qos_t *q = &cd->acct.qos[i].s;
		memcpy(ls->qos[i].usage_tres, q->usage_tres, sizeof(q->usage_tres));
		ls->qos[i].usage_wall = q->usage_wall;
	}
}

void limits_free(ctld_t *cd)
{
	if (!cd->limits)
		return;
	state_clear(cd->limits);
	free(cd->limits);
	cd->limits = NULL;
}

void limits_job_fill(ctld_t *cd, const job_t *j, sched_job_t *sj)
{
	sj->assoc = -1;
	sj->qos = -1;
	struct limits_state *ls = cd->limits;
	if (!ls || !ls->built)
		return;
	sj->assoc = id_find(ls->assoc_ids, ls->nassocs, j->assoc_id);
	sj->qos = id_find(ls->qos_ids, ls->nqos, j->qos_id);
	if (sj->qos >= 0)
		sj->qos_priority = ls->qos[sj->qos].priority;
	/* The association's Priority, inherited from its parents if unset. */
	int32_t a = sj->assoc;
	for (uint32_t d = 0; a >= 0 && (uint32_t)a < ls->nassocs && d <= ls->nassocs;
	     d++, a = ls->assocs[a].parent) {
		if (!prio_unset(ls->assocs[a].priority)) {
			sj->assoc_priority = ls->assocs[a].priority;
			break;
		}
	}
}

/* ---- at submission ---- */

/* The job's effective Max* value of one field, inherited up the tree
 * (off: the offset of a uint64_t in lim_set_t). */
static uint64_t assoc_max(const struct limits_state *ls, int32_t a, size_t off)
{
	for (uint32_t d = 0; a >= 0 && (uint32_t)a < ls->nassocs && d <= ls->nassocs;
	     d++, a = ls->assocs[a].parent) {
		uint64_t v;
		memcpy(&v, (const char *)&ls->assocs[a].lim + off, sizeof(v));
		if (v != LIM_UNSET)
			return v;
	}
	return LIM_UNSET;
}

/* The account association of a: its parent for a user's. */
static int32_t acct_of(const struct limits_state *ls, int32_t a)
{
	if (a >= 0 && (ls->assocs[a].is_user || ls->assocs[a].uid != UINT32_MAX) &&
	    ls->assocs[a].parent >= 0)
		return ls->assocs[a].parent;
	return a;
}

/* MaxSubmitJobs (inherited), GrpSubmitJobs up the tree, the QOS's
 * GrpSubmitJobs, MaxSubmitJobsPerUser and MaxSubmitJobsPerAccount,
 * counting the pending and running jobs (the new one included): 0 or
 * Slurm's reason. As Slurm, every task of an array counts as a job: a
 * pending array record counts its tasks not started yet, each split-off
 * task one, and a new array whose tasks would pass a limit is refused
 * whole. Only when one of the limits is set is the job list walked
 * (O(jobs)). */
static uint32_t submit_counts_reason(ctld_t *cd, const job_t *nj, int32_t ai, int32_t qi)
{
	const struct limits_state *ls = cd->limits;
	uint64_t max_submit = ai >= 0 ? assoc_max(ls, ai, offsetof(lim_set_t, max_submit)) : LIM_UNSET;
	int any_grp = 0;
	for (int32_t a = ai; a >= 0 && (uint32_t)a < ls->nassocs; a = ls->assocs[a].parent) {
		if (ls->assocs[a].lim.grp_submit != LIM_UNSET)
			any_grp = 1;
		if (a == ls->assocs[a].parent)
			break;
	}
	const lim_set_t *ql = qi >= 0 ? &ls->qos[qi].lim : NULL;
	int qany = ql && (ql->grp_submit != LIM_UNSET || ql->max_submit_pu != LIM_UNSET ||
			  ql->max_submit_pa != LIM_UNSET);
	if (max_submit == LIM_UNSET && !any_grp && !qany)
		return 0;
	/* A QOS limit overrides the association's of the same kind: its
	 * MaxSubmitJobsPerUser or MaxSubmitJobsPerAccount the MaxSubmitJobs,
	 * as Slurm. */
	if (ql && (ql->max_submit_pu != LIM_UNSET || ql->max_submit_pa != LIM_UNSET))
		max_submit = LIM_UNSET;
	uint64_t *grp = xcalloc(ls->nassocs ? ls->nassocs : 1, sizeof(uint64_t));
	uint64_t self = 0, q_all = 0, q_user = 0, q_acct = 0;
	int32_t my_acct = acct_of(ls, ai);
	for (size_t i = 0; i < cd->njobs; i++) {
		const job_t *j = cd->jobs[i];
		uint32_t base = j->state & JOB_STATE_BASE;
		if (j == nj || (base != JOB_PENDING && base != JOB_RUNNING))
			continue;
		uint64_t n = job_array_ntasks(j);
		int32_t ja = id_find(ls->assoc_ids, ls->nassocs, j->assoc_id);
		if (ja >= 0 && ja == ai)
			self += n;
		if (any_grp)
			for (int32_t a = ja; a >= 0 && (uint32_t)a < ls->nassocs; a = ls->assocs[a].parent) {
				grp[a] += n;
				if (a == ls->assocs[a].parent)
					break;
			}
		if (qany && j->qos_id == nj->qos_id) {
			q_all += n;
			q_user += j->user_id == nj->user_id ? n : 0;
			q_acct += ja >= 0 && acct_of(ls, ja) == my_acct ? n : 0;
		}
	}
	uint64_t want = job_array_ntasks(nj);
	uint32_t why = 0;
	/* Slurm's order: the QOS, then the association up the tree. */
	if (ql) {
		if (ql->grp_submit != LIM_UNSET && q_all + want > ql->grp_submit)
			why = WAIT_QOS_GRP_SUB_JOB;
		else if (ql->max_submit_pu != LIM_UNSET && q_user + want > ql->max_submit_pu)
			why = WAIT_QOS_MAX_SUB_JOB;
		else if (ql->max_submit_pa != LIM_UNSET && ai >= 0 && q_acct + want > ql->max_submit_pa)
			why = WAIT_QOS_MAX_SUB_JOB_PER_ACCT;
	}
	for (int32_t a = ai; !why && a >= 0 && (uint32_t)a < ls->nassocs; a = ls->assocs[a].parent) {
		uint64_t g = ls->assocs[a].lim.grp_submit;
		if (g != LIM_UNSET && !(ql && ql->grp_submit != LIM_UNSET) && grp[a] + want > g)
			why = WAIT_ASSOC_GRP_SUB_JOB;
		else if (a == ai && max_submit != LIM_UNSET && self + want > max_submit)
			why = WAIT_ASSOC_MAX_SUB_JOB;
		if (a == ls->assocs[a].parent)
			break;
	}
	free(grp);
	return why;
}

int limits_submit_check(ctld_t *cd, job_t *j, uint32_t asked_time, char **msg)
{
	limits_sync(cd);
	sched_t *s = &cd->sched;
	struct limits_state *ls = cd->limits;
	if (!(s->lim_enforce & SCHED_LIM_ENFORCE))
		return 0;
	int32_t ai = id_find(ls->assoc_ids, ls->nassocs, j->assoc_id);
	int32_t qi = id_find(ls->qos_ids, ls->nqos, j->qos_id);
	const lim_set_t *ql = qi >= 0 ? &ls->qos[qi].lim : NULL;
	int deny = qi >= 0 && (ls->qos[qi].flags & LIM_QOS_F_DENY_ON_LIMIT);
	/* No --time: MaxWall (the QOS's, else the association's), capped by
	 * the partition's MaxTime, rather than the partition default. */
	uint64_t wall = ql && ql->max_wall != LIM_UNSET ? ql->max_wall
		      : ai >= 0 ? assoc_max(ls, ai, offsetof(lim_set_t, max_wall)) : LIM_UNSET;
	if ((asked_time == TIME_NO_VAL || asked_time == 0) && wall != LIM_UNSET) {
		uint32_t t = wall >= TIME_NO_VAL ? TIME_NO_VAL - 1 : (uint32_t)wall;
		uint32_t pmax = j->part < cd->nparts ? cd->parts[j->part].max_time : TIME_INFINITE;
		if (pmax != TIME_INFINITE && pmax < t)
			t = pmax;
		j->time_limit = j->desc->time_limit = t;
	}
	uint32_t why = submit_counts_reason(cd, j, ai, qi);
	if (!why && deny) {
		sched_job_t sj;
		sched_glue_job(cd, j, &sj);
		why = lim_job_check_static(s, &sj);
	}
	if (!why)
		return 0;
	/* sbatch prints the reason as an error line before the failure. */
	verbose("job submit by uid %u refused: %s", j->user_id, job_reason_string(why));
	if (msg && !*msg)
		*msg = xstrdup(job_reason_string(why));
	return ESLURM_ACCOUNTING_POLICY;
}

/* ---- preemption ---- */

void limits_preempt(ctld_t *cd, const job_t *by, job_t *v)
{
	struct limits_state *ls = cd->limits;
	int64_t now = ctld_now();
	int32_t vq = ls ? id_find(ls->qos_ids, ls->nqos, v->qos_id) : -1;
	uint32_t mode = vq >= 0 && ls->qos[vq].preempt_mode != LIM_PREEMPT_OFF
		? ls->qos[vq].preempt_mode : cd->sched.preempt_mode;
	uint32_t grace = vq >= 0 ? ls->qos[vq].grace_time : 0;
	if ((v->state & JOB_STATE_BASE) != JOB_RUNNING)
		return;
	int requeue = mode == LIM_PREEMPT_REQUEUE &&
		!(v->desc->flags & (JOB_F_INTERACTIVE | JOB_F_NO_REQUEUE));
	info("job %u preempted by job %u (%s)", v->job_id, by->job_id,
	     requeue ? "requeue" : "cancel");
	if (requeue) {
		job_signal_nodes(cd, v, SIGKILL, SIGNAL_F_KILL_JOB, JOB_CANCELLED);
		v->launch_seq++;      /* the old supervisor's report is stale */
		job_requeue_restart(cd, v, now);
		return;
	}
	/* CANCEL: SIGTERM now, SIGKILL after GraceTime (else KillWait). */
	msg_signal_job_t m = { .job_id = v->job_id, .signal = SIGTERM,
			       .flags = SIGNAL_F_KILL_JOB,
			       .kill_wait = grace ? grace : cd->conf->kill_wait,
			       .end_state = JOB_PREEMPTED };
	int held = 0;
	for (uint32_t i = 0; i < v->alloc.nnodes; i++) {
		node_t *n = &cd->nodes[v->alloc.nodes[i]];
		if (n->conn) {
			outbox_send(cd, n, MSG_SIGNAL_JOB, &m);
			held |= i == 0 && !(v->desc->flags & JOB_F_INTERACTIVE);
		}
	}
	job_end(cd, v, JOB_PREEMPTED, SIGTERM, now);
	if (!held)
		job_release(cd, v);
}
