/*
 * job_control: the job-control actions of scontrol (MSG_UPDATE_JOB with an
 * action): hold, uhold, release, requeue, requeuehold, top, suspend and
 * resume, with Slurm 22.05's permission rules and errors:
 *
 * - hold/uhold/release act on pending jobs; on a running job they succeed
 *   and change nothing (as Slurm); another user's job: "Invalid user id";
 *   an admin hold is released by an operator only.
 * - requeue/requeuehold return a started or finished batch job to PENDING
 *   (a pending one: "Job is pending execution"; --no-requeue / Requeue=0:
 *   "Requested operation is presently disabled"); requeuehold leaves it
 *   held (Reason "job requeued in held state").
 * - top moves a pending job ahead of its owner's other pending jobs of the
 *   same partition, account and QOS by raising their nice (operators, or
 *   anyone with SchedulerParameters=enable_user_top).
 * - suspend/resume stop and continue every process of a running job on its
 *   nodes (SIGSTOP/SIGCONT through the supervisors); operators only. The
 *   time limit does not run while suspended: on resume the end moves by
 *   the time spent suspended and the supervisor is told.
 * - notify writes a line to a running batch job's stderr through its
 *   supervisor ("slurmstepd-NODE: error: TEXT", as slurmstepd's).
 * - write batch_script hands the script (from the state DB) to its owner.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/ctld.h"
#include "errors.h"
#include "log.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

static int hold_action(ctld_t *cd, job_t *j, const char *action, uint32_t uid, int admin)
{
	uint32_t base = j->state & JOB_STATE_BASE;
	int release = !strcasecmp(action, "release");
	if (JOB_IS_FINISHED(j->state))
		return ESLURM_ALREADY_DONE;
	if (base != JOB_PENDING)
		return 0;                 /* Slurm: accepted, nothing to do */
	/* else a user could turn an admin hold into her own and release it;
	 * her hold/uhold of it is accepted and changes nothing (Slurm: 0) */
	if (j->hold == WAIT_HELD && !admin)
		return release ? ESLURM_ACCESS_DENIED : 0;
	if (release) {
		if (!j->hold)
			return 0;
		j->hold = 0;
		j->reason = WAIT_NO_REASON;
		xfree(j->reason_detail);   /* "launch failed requeued held" */
		j->priority = job_priority(cd, j, ctld_now());
		info("job %u released by uid %u", j->job_id, uid);
	} else {
		j->hold = admin && !strcasecmp(action, "hold") ? WAIT_HELD : WAIT_HELD_USER;
		j->reason = j->hold;
		j->priority = 0;
		info("job %u held (%s) by uid %u", j->job_id, job_reason_string(j->hold), uid);
	}
	return 0;
}

static int requeue_action(ctld_t *cd, job_t *j, int hold, uint32_t uid, int admin)
{
	uint32_t base = j->state & JOB_STATE_BASE;
	if (base == JOB_PENDING)
		return ESLURM_JOB_PENDING;
	if (j->desc->flags & JOB_F_INTERACTIVE)
		return ESLURM_BATCH_ONLY;
	if (j->desc->flags & JOB_F_NO_REQUEUE)
		return ESLURM_DISABLED;
	int64_t now = ctld_now();
	if (JOB_IS_FINISHED(j->state)) {
		/* still completing on its nodes: not yet */
		if (j->alloc_held)
			return ESLURM_TRANSITION_STATE_NO_UPDATE;
		j->exit_code = 0;
		job_requeue_restart(cd, j, now);
	} else {
		if (base == JOB_SUSPENDED)
			job_signal_nodes(cd, j, SIGCONT, 0, 0);
		job_signal_nodes(cd, j, SIGKILL, SIGNAL_F_KILL_JOB, JOB_CANCELLED);
		j->launch_seq++;      /* the old supervisor's report is stale */
		job_requeue_restart(cd, j, now);
	}
	if (hold) {
		j->hold = admin ? WAIT_HELD : WAIT_HELD_USER;
		j->reason = WAIT_HELD_REQUEUE;
		j->priority = 0;
	}
	info("job %u requeued%s by uid %u", j->job_id, hold ? " held" : "", uid);
	return 0;
}

static int user_top_enabled(const ctld_t *cd)
{
	const char *p = cd->conf->scheduler_parameters;
	size_t len = strlen("enable_user_top");
	for (const char *s = p; s && (s = strcasestr(s, "enable_user_top")); s += len)
		if ((s == p || s[-1] == ',') && (s[len] == 0 || s[len] == ','))
			return 1;
	return 0;
}

static int same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* The jobs top weighs j against: its owner's other pending, unheld jobs
 * of the same partition, account and QOS. */
static int top_peer(const job_t *j, const job_t *o)
{
	return o != j && o->user_id == j->user_id && o->part == j->part && !o->hold &&
	       (o->state & JOB_STATE_BASE) == JOB_PENDING &&
	       same_str(o->desc->account, j->desc->account) && same_str(o->desc->qos, j->desc->qos);
}

/* Slurm's top: the peers that would go first all get the same extra nice,
 * enough to put the first of them just behind j (their own order stays).
 * Two passes over the jobs: an RPC, not a turn. */
static int top_action(ctld_t *cd, job_t *j, uint32_t uid)
{
	if (!is_operator(cd, uid) && !user_top_enabled(cd))
		return ESLURM_ACCESS_DENIED;
	if ((j->state & JOB_STATE_BASE) != JOB_PENDING)
		return ESLURM_JOB_NOT_PENDING;
	if (j->hold)
		return ESLURM_JOB_HELD;
	int64_t now = ctld_now();
	uint32_t prio = job_priority(cd, j, now), top = 0;
	j->priority = prio;
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *o = cd->jobs[i];
		if (top_peer(j, o)) {
			uint32_t op = job_priority(cd, o, now);
			if (op >= prio && op > top)
				top = op;
		}
	}
	if (!top)
		return 0;                 /* already first */
	int64_t delta = (int64_t)top - (int64_t)prio + 1;
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *o = cd->jobs[i];
		if (!top_peer(j, o) || job_priority(cd, o, now) < prio)
			continue;
		int64_t nice = (int64_t)o->desc->nice + delta;
		o->desc->nice = (int32_t)(nice > INT32_MAX / 2 ? INT32_MAX / 2 : nice);
		o->priority = job_priority(cd, o, now);
		db_job_update_desc(cd, o);      /* nice lives in the description */
		job_dirty(cd, o);
	}
	info("job %u moved to the top of uid %u's queue by uid %u", j->job_id, j->user_id, uid);
	return 0;
}

/* Tell the supervisor a limit of end (the job keeps its own end_time). */
static void send_limit(ctld_t *cd, job_t *j, int64_t end)
{
	int64_t keep = j->end_time;
	j->end_time = end;
	job_send_time_limit(cd, j);
	j->end_time = keep;
}

/* As Slurm: SuspendTime is the last suspend or resume, SecsPreSuspend the
 * run time before the last suspend; EndTime moves on resume by the time
 * spent suspended. */
static int suspend_action(ctld_t *cd, job_t *j, int resume, uint32_t uid)
{
	if (!is_operator(cd, uid))
		return ESLURM_ACCESS_DENIED;
	uint32_t base = j->state & JOB_STATE_BASE;
	if (JOB_IS_FINISHED(j->state))
		return ESLURM_ALREADY_DONE;
	if (base == JOB_PENDING)
		return ESLURM_JOB_PENDING;
	int64_t now = ctld_now();
	if (!resume) {
		if (base == JOB_SUSPENDED)
			return 0;
		job_signal_nodes(cd, j, SIGSTOP, 0, 0);
		int64_t from = j->suspend_time ? j->suspend_time : j->start_time;
		j->pre_sus_secs += (uint32_t)(now > from ? now - from : 0);
		j->state = (j->state & ~JOB_STATE_BASE) | JOB_SUSPENDED;
		j->suspend_time = now;
		/* the supervisor must not end it while it is stopped */
		send_limit(cd, j, now + 365 * 86400);
		info("job %u suspended by uid %u", j->job_id, uid);
	} else {
		if (base != JOB_SUSPENDED)
			return ESLURM_JOB_NOT_SUSPENDED;
		/* suspend_time is not kept across a restart of the
		 * controller: then the whole limit from now */
		if (j->suspend_time)
			j->end_time += now - j->suspend_time;
		else if (j->time_limit != TIME_INFINITE)
			j->end_time = now + (int64_t)j->time_limit * 60;
		j->suspend_time = now;
		j->state = (j->state & ~JOB_STATE_BASE) | JOB_RUNNING;
		job_send_time_limit(cd, j);
		job_signal_nodes(cd, j, SIGCONT, 0, 0);
		info("job %u resumed by uid %u", j->job_id, uid);
	}
	return 0;
}

int job_control(ctld_t *cd, job_t *j, const char *action, uint32_t uid, int admin)
{
	int rc;
	if (!strcasecmp(action, "hold") || !strcasecmp(action, "uhold") ||
	    !strcasecmp(action, "release"))
		rc = hold_action(cd, j, action, uid, admin);
	else if (!strcasecmp(action, "requeue"))
		rc = requeue_action(cd, j, 0, uid, admin);
	else if (!strcasecmp(action, "requeuehold"))
		rc = requeue_action(cd, j, 1, uid, admin);
	else if (!strcasecmp(action, "top"))
		rc = top_action(cd, j, uid);
	else if (!strcasecmp(action, "suspend"))
		rc = suspend_action(cd, j, 0, uid);
	else if (!strcasecmp(action, "resume"))
		rc = suspend_action(cd, j, 1, uid);
	else
		return ESLURM_NOT_SUPPORTED;
	if (!rc) {
		job_dirty(cd, j);
		ctld_sched_request(cd);
	}
	return rc;
}

int job_batch_script(ctld_t *cd, uint32_t job_id, uint32_t uid, char **script)
{
	*script = NULL;
	job_t *j = job_find(cd, job_id);
	if (!j)
		return ESLURM_INVALID_JOB_ID;
	if (j->user_id != uid && !job_manager_ok(cd, j, uid))
		return ESLURM_USER_ID_MISSING;
	if (j->desc->flags & JOB_F_INTERACTIVE)
		return ESLURM_BATCH_ONLY;
	job_desc_t full;
	if (db_job_fetch_desc(cd, job_id, &full))
		return ESLURM_INVALID_JOB_ID;    /* purged meanwhile */
	*script = full.script ? full.script : xstrdup("");
	full.script = NULL;
	proto_free(MSG_SUBMIT, &full);
	return 0;
}

int job_notify(ctld_t *cd, job_t *j, const char *text)
{
	if (!text || !*text)
		return ESLURM_NOT_SUPPORTED;
	if ((j->state & JOB_STATE_BASE) != JOB_RUNNING)
		return ESLURM_DISABLED;
	/* An srun allocation's messages go to its srun in Slurm: there is no
	 * channel to it here. */
	if ((j->desc->flags & JOB_F_INTERACTIVE) || !j->alloc.nnodes)
		return ESLURM_NOT_SUPPORTED;
	node_t *n = &cd->nodes[j->alloc.nodes[0]];
	if (!n->conn)
		return ESLURM_DISABLED;
	msg_signal_job_t m = { .job_id = j->job_id, .flags = SIGNAL_F_NOTIFY,
			       .message = (char *)text };
	outbox_send(cd, n, MSG_SIGNAL_JOB, &m);
	info("job %u: notify \"%s\"", j->job_id, text);
	return 0;
}
