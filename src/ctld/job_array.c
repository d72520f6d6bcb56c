/*
 * job_array.c: job arrays in the controller (job_array.h).
 *
 * A pending array costs one job record: the tasks not started yet are a
 * bitmap (array_range.h) on the array's own record, whose id is the
 * ArrayJobId. The scheduler core sees that record as one candidate; when
 * it starts it, job_array_split takes the lowest pending task off the set
 * and makes it a job of its own (the next id of the sequence, a copy of
 * the stored description), or, for the last pending task, turns the
 * record itself into that task. The pending set and the throttle are
 * columns of the record's jobs row (state_db.c), so a restart finds them
 * as they were committed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/ctld.h"
#include "ctld/job_array.h"

#include "array_range.h"
#include "errors.h"
#include "log.h"
#include "states.h"
#include "strbuf.h"
#include "xalloc.h"

static uint32_t corr_first(ctld_t *cd, const job_t *j, uint32_t target, int *state);
static uint32_t corr_target(ctld_t *cd, const job_t *j);

/* MaxArraySize: task ids must be below it (Slurm's default 1001). */
static uint32_t max_array_size(const ctld_t *cd)
{
	const char *v = conf_get(cd->conf, "MaxArraySize");
	char *end = NULL;
	unsigned long n = v ? strtoul(v, &end, 10) : 1001;
	if (!v || end == v || *end)
		n = 1001;
	return n > 4000001 ? 4000001 : (uint32_t)n;
}

/* SchedulerParameters=max_array_tasks=N: the most tasks one array may
 * have (Slurm's default: MaxArraySize). */
static uint32_t max_array_tasks(const ctld_t *cd, uint32_t max_size)
{
	const char *sp = cd->conf->scheduler_parameters;
	const char *key = "max_array_tasks=";
	size_t len = strlen(key);
	for (const char *p = sp; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (strncasecmp(p, key, len))
			continue;
		char *end = NULL;
		unsigned long n = strtoul(p + len, &end, 10);
		if (end != p + len && (!*end || *end == ','))
			return n < max_size ? (uint32_t)n : max_size;
	}
	return max_size;
}

int job_array_submit(ctld_t *cd, job_t *j)
{
	const char *spec = j->desc->array_inx;
	array_set_t set;
	uint32_t thr = 0;
	uint32_t max = max_array_size(cd);
	/* MaxArraySize=0 turns arrays off, as in Slurm */
	if (!max || array_spec_parse(spec, max, &set, &thr))
		return ESLURM_INVALID_ARRAY;
	/* More tasks than max_array_tasks: refused as an invalid spec, as
	 * Slurm does (Batch job submission failed: Invalid job array
	 * specification). */
	if (set.count > max_array_tasks(cd, max)) {
		array_set_free(&set);
		return ESLURM_INVALID_ARRAY;
	}
	j->array_pending = xmalloc(sizeof(*j->array_pending));
	*j->array_pending = set;
	j->array_throttle = thr;
	j->array_task_id = NO_VAL32;
	/* array_job_id is the record's own id, set once the id is known */
	return 0;
}

int job_is_array(const job_t *j)
{
	return j->array_pending != NULL || j->array_job_id != 0;
}

uint32_t job_array_ntasks(const job_t *j)
{
	return j->array_pending && j->array_pending->count ? j->array_pending->count : 1;
}

void job_array_free(job_t *j)
{
	if (j->array_pending) {
		array_set_free(j->array_pending);
		free(j->array_pending);
		j->array_pending = NULL;
	}
}

char *job_array_pending_str(const job_t *j)
{
	return j->array_pending ? array_set_fmt(j->array_pending) : xstrdup("");
}

int job_array_restore(job_t *j, const char *pending, uint32_t throttle)
{
	j->array_throttle = throttle;
	if (!pending || !*pending)
		return 0;
	array_set_t set;
	uint32_t thr;
	if (array_spec_parse(pending, 0, &set, &thr))
		return -1;
	j->array_pending = xmalloc(sizeof(*j->array_pending));
	*j->array_pending = set;
	return 0;
}

/* When one task is left in the pending set, the record becomes that task
 * (as Slurm shows it: "11_7", ArrayTaskId=7). */
static void collapse(ctld_t *cd, job_t *j)
{
	if (!j->array_pending || j->array_pending->count != 1)
		return;
	uint32_t last = array_set_next(j->array_pending, 0);
	job_array_free(j);
	j->array_task_id = last;
	/* aftercorr was met for another task of the record: its own now */
	int corr = 0;
	for (uint32_t i = 0; i < j->ndeps; i++)
		if (j->deps[i].type == DEP_AFTERCORR) {
			j->deps[i].state = DEP_UNFULFILLED;
			corr = 1;
		}
	if (corr)
		job_resolve_deps(cd, j);
	job_dirty(cd, j);
}

/* Split task (in j's pending set) off as a job of its own: the next id of
 * the sequence, a copy of j's stored description. NULL when that copy
 * cannot be read. */
static job_t *split_one(ctld_t *cd, job_t *j, uint32_t task)
{
	array_set_t *set = j->array_pending;
	if (set->count <= 1) {
		/* The last task keeps the array's record and id. */
		job_array_free(j);
		j->array_task_id = task;
		job_dirty(cd, j);
		return j;
	}
	job_desc_t *full = xcalloc(1, sizeof(*full));
	if (db_job_fetch_desc(cd, j->job_id, full)) {
		error("job %u: array task %u: no stored description to copy", j->job_id, task);
		free(full);
		return NULL;
	}
	job_t *t = xcalloc(1, sizeof(*t));
	t->job_id = job_next_id(cd);
	t->array_job_id = j->job_id;
	t->array_task_id = task;
	t->array_throttle = j->array_throttle;
	t->state = JOB_PENDING;
	t->reason = j->reason;
	t->hold = j->hold;
	t->user_id = j->user_id;
	t->group_id = j->group_id;
	t->priority = j->priority;
	t->part = j->part;
	t->time_limit = j->time_limit;
	t->submit_time = j->submit_time;
	t->eligible_time = j->eligible_time;
	t->last_eval = j->last_eval;
	t->desc = full;
	/* The task's own copy of the description (script, environment) is
	 * what its launch and a restart read. */
	db_job_insert(cd, t, full);
	xfree(full->script);
	strv_free(&full->env);
	job_add_recovered(cd, t);    /* interning, links, indexes, TRES */
	job_resolve_deps(cd, t);     /* its own (aftercorr: its own task) */
	array_set_del(set, task);
	job_dirty(cd, j);
	job_dirty(cd, t);
	collapse(cd, j);
	return t;
}

job_t *job_array_split(ctld_t *cd, job_t *j, int64_t now)
{
	(void)now;
	if (!j->array_pending)
		return j;
	uint32_t task = array_set_next(j->array_pending, 0);
	if (task == ARRAY_NONE) {
		job_array_free(j);
		return j;
	}
	uint32_t target = j->ndeps ? corr_target(cd, j) : 0;
	if (target) {
		/* aftercorr: the first task whose partner is done */
		int state;
		uint32_t x = corr_first(cd, j, target, &state);
		if (x != ARRAY_NONE)
			task = x;
	}
	return split_one(cd, j, task);
}

/* The record of task `task` of array id: its own, or split off the
 * array's pending set for it. NULL: no such task. */
static job_t *task_record(ctld_t *cd, uint32_t id, uint32_t task, int *rc)
{
	*rc = 0;
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *t = cd->jobs[i];
		if (t->array_job_id == id && !t->array_pending && t->array_task_id == task)
			return t;
	}
	job_t *a = job_find(cd, id);
	if (!a || a->array_job_id != id || !a->array_pending ||
	    !array_set_has(a->array_pending, task)) {
		*rc = ESLURM_INVALID_JOB_ID;
		return NULL;
	}
	job_t *t = split_one(cd, a, task);
	if (!t)
		*rc = ESLURM_INVALID_JOB_ID;
	return t;
}

void job_array_count_running(ctld_t *cd)
{
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		if (j->array_job_id == j->job_id)
			j->array_nrun = 0;
	}
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *t = cd->jobs[i];
		if (!t->array_job_id || t->array_job_id == t->job_id ||
		    JOB_IS_FINISHED(t->state) || (t->state & JOB_STATE_BASE) == JOB_PENDING)
			continue;
		job_t *a = job_find(cd, t->array_job_id);
		if (a && (a->state & JOB_STATE_BASE) == JOB_PENDING)
			a->array_nrun++;
	}
}

int job_array_throttled(const job_t *j)
{
	/* the array's own record (its pending tasks, or its last task) */
	return j->array_job_id == j->job_id && j->array_throttle &&
	       j->array_nrun >= j->array_throttle;
}

void job_array_fill_info(ctld_t *cd, const job_t *j, job_info_t *ji)
{
	(void)cd;
	ji->array_job_id = j->array_job_id;
	ji->array_task_id = j->array_pending ? NO_VAL32 : j->array_task_id;
	ji->array_max_tasks = j->array_job_id ? j->array_throttle : 0;
}

/* Every record of array id: its pending record (if any) and its tasks. */
static size_t array_records(ctld_t *cd, uint32_t id, job_t ***out)
{
	size_t n = 0, a = 0;
	*out = NULL;
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		if (j->array_job_id != id)
			continue;
		*out = xgrow(*out, sizeof(**out), n + 1, &a);
		(*out)[n++] = j;
	}
	return n;
}

int job_array_cancel(ctld_t *cd, uint32_t id, uint32_t sig, uint32_t flags, uint32_t uid,
		     int *handled)
{
	*handled = 0;
	job_t *a = job_find(cd, id);
	/* id names an array when it is the array's own record; a task's
	 * own job id (ArrayJobId != id) names that task alone */
	if (!a || a->array_job_id != id)
		return 0;
	*handled = 1;
	job_t **recs;
	size_t n = array_records(cd, id, &recs);
	int rc = 0, any = 0;
	for (size_t i = 0; i < n; i++) {
		if (JOB_IS_FINISHED(recs[i]->state))
			continue;
		int r = job_cancel_record(cd, recs[i]->job_id, sig, flags, uid);
		if (r && !rc)
			rc = r;
		any |= !r;
	}
	free(recs);
	if (!any && !rc)
		rc = ESLURM_ALREADY_DONE;
	return any ? 0 : rc;
}

int job_array_cancel_task(ctld_t *cd, uint32_t id, uint32_t task, uint32_t sig, uint32_t flags,
			  uint32_t uid)
{
	job_t *a = job_find(cd, id);
	/* The task's record: split off, or the array's own once it ran. */
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *t = cd->jobs[i];
		if (t->array_job_id == id && !t->array_pending && t->array_task_id == task)
			return job_cancel_record(cd, t->job_id, sig, flags, uid);
	}
	if (!a || a->array_job_id != id || !a->array_pending ||
	    !array_set_has(a->array_pending, task))
		return ESLURM_INVALID_JOB_ID;
	if (a->user_id != uid && !job_manager_ok(cd, a, uid))
		return ESLURM_ACCESS_DENIED;
	if (sig && sig != SIGKILL && sig != SIGTERM)
		return ESLURM_JOB_PENDING;
	if (a->array_pending->count == 1) {
		/* the last pending task: the record becomes it, cancelled */
		job_array_free(a);
		a->array_task_id = task;
		return job_cancel_record(cd, a->job_id, sig, flags, uid);
	}
	/* As Slurm: the task just leaves the pending set (no record of its
	 * own; sacct keeps showing the array as submitted). */
	array_set_del(a->array_pending, task);
	job_dirty(cd, a);
	collapse(cd, a);
	info("array %u: pending task %u cancelled by uid %u", id, task, uid);
	return 0;
}

static int parse_u32(const char *v, uint32_t *out)
{
	char *end = NULL;
	long long x = strtoll(v, &end, 10);
	if (!v || end == v || *end || x < 0 || x > UINT32_MAX)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

int job_array_update(ctld_t *cd, const msg_update_job_t *m, uint32_t uid, int *handled)
{
	*handled = 0;
	if (m->array_task) {
		/* "11_3": that task's record, split off the pending set first
		 * if it is still there (as Slurm does to hold or change one) */
		*handled = 1;
		job_t *a = job_find(cd, m->job_id);
		if (a && a->array_job_id == m->job_id && a->user_id != uid &&
		    !job_manager_ok(cd, a, uid))
			return ESLURM_ACCESS_DENIED;
		int rc;
		job_t *t = task_record(cd, m->job_id, m->array_task - 1, &rc);
		if (!t)
			return rc;
		msg_update_job_t one = *m;
		one.job_id = t->job_id;
		one.array_task = 0;
		return job_update_record(cd, &one, uid);
	}
	job_t *a = job_find(cd, m->job_id);
	if (!a || a->array_job_id != m->job_id)
		return 0;
	int throttle_key = 0;
	for (uint32_t i = 0; i < m->keys.n && i < m->values.n; i++)
		if (!strcasecmp(m->keys.v[i], "ArrayTaskThrottle"))
			throttle_key = 1;
	int hold = m->action && (!strcasecmp(m->action, "hold") || !strcasecmp(m->action, "uhold") ||
				 !strcasecmp(m->action, "release"));
	if (!throttle_key && !hold)
		return 0;
	if (throttle_key && (m->action || m->keys.n != 1))
		return 0;   /* mixed with other keys: each record on its own */
	*handled = 1;
	if (a->user_id != uid && !job_manager_ok(cd, a, uid))
		return ESLURM_ACCESS_DENIED;
	job_t **recs;
	size_t n = array_records(cd, m->job_id, &recs);
	int rc = 0;
	if (throttle_key) {
		uint32_t thr;
		if (parse_u32(m->values.v[0], &thr)) {
			free(recs);
			return ESLURM_INVALID_ARRAY;
		}
		for (size_t i = 0; i < n; i++) {
			recs[i]->array_throttle = thr;
			job_dirty(cd, recs[i]);
		}
		info("array %u: ArrayTaskThrottle=%u by uid %u", m->job_id, thr, uid);
		ctld_sched_request(cd);
	} else {
		/* the pending records of the array, each as a job */
		int any = 0;
		for (size_t i = 0; i < n; i++) {
			if ((recs[i]->state & JOB_STATE_BASE) != JOB_PENDING)
				continue;
			msg_update_job_t one = *m;
			one.job_id = recs[i]->job_id;
			int r = job_update_record(cd, &one, uid);
			if (r && !rc)
				rc = r;
			any |= !r;
		}
		if (any)
			rc = 0;
		else if (!rc)
			rc = ESLURM_JOB_NOT_PENDING;
	}
	free(recs);
	return rc;
}

void job_array_env(const job_t *j, void (*set)(void *arg, const char *k, const char *v), void *arg)
{
	if (!j->array_job_id || j->array_pending)
		return;
	array_set_t all;
	uint32_t thr;
	const char *spec = j->desc->array_inx;
	char buf[32];
	snprintf(buf, sizeof(buf), "%u", j->array_job_id);
	set(arg, "SLURM_ARRAY_JOB_ID", buf);
	snprintf(buf, sizeof(buf), "%u", j->array_task_id);
	set(arg, "SLURM_ARRAY_TASK_ID", buf);
	if (!spec || array_spec_parse(spec, 0, &all, &thr))
		return;
	snprintf(buf, sizeof(buf), "%u", all.count);
	set(arg, "SLURM_ARRAY_TASK_COUNT", buf);
	snprintf(buf, sizeof(buf), "%u", array_set_last(&all));
	set(arg, "SLURM_ARRAY_TASK_MAX", buf);
	snprintf(buf, sizeof(buf), "%u", array_set_next(&all, 0));
	set(arg, "SLURM_ARRAY_TASK_MIN", buf);
	/* Slurm: the step of the spec's stepped range ("0-15:4"), else 1 */
	const char *colon = strchr(spec, ':');
	unsigned long step = colon ? strtoul(colon + 1, NULL, 10) : 1;
	snprintf(buf, sizeof(buf), "%lu", step ? step : 1);
	set(arg, "SLURM_ARRAY_TASK_STEP", buf);
	array_set_free(&all);
}

/* job_array_dep, and in *when the latest start (after) or end (the
 * others) of the tasks it looked at, for a "+MIN" delay. */
static int array_dep(ctld_t *cd, uint32_t id, uint32_t type, uint32_t task, int64_t *when)
{
	int pending = 0, unfinished = 0, bad = 0, good = 0, seen = 0;
	*when = 0;
	for (size_t i = 0; i < cd->njobs; i++) {
		const job_t *t = cd->jobs[i];
		if (t->array_job_id != id)
			continue;
		if (task != NO_VAL32) {
			if (t->array_pending ? !array_set_has(t->array_pending, task)
			    : t->array_task_id != task)
				continue;
		}
		seen = 1;
		uint32_t st = t->state & JOB_STATE_BASE;
		int64_t w = type == DEP_AFTER ? t->start_time : t->end_time;
		if (w > *when)
			*when = w;
		if (t->array_pending || st == JOB_PENDING)
			pending = 1;
		if (t->array_pending || !JOB_IS_FINISHED(t->state)) {
			unfinished = 1;
			continue;
		}
		if (st == JOB_COMPLETE && t->exit_code == 0)
			good = 1;
		else
			bad = 1;
	}
	if (!seen)
		return 0;      /* gone (purged): as a job that no longer exists */
	switch (type) {
	case DEP_AFTER: return pending;
	case DEP_AFTERANY: return unfinished;
	case DEP_AFTEROK: return unfinished ? 1 : bad ? 2 : 0;
	case DEP_AFTERNOTOK: return unfinished ? 1 : bad ? 0 : good ? 2 : 0;
	default: return 0;
	}
}

int job_array_dep(ctld_t *cd, uint32_t id, uint32_t type, uint32_t task)
{
	int64_t when;
	return array_dep(cd, id, type, task, &when);
}

int job_array_dep_target(ctld_t *cd, const job_t *j, const dep_t *d, int64_t now, uint8_t *state)
{
	const job_t *t = job_find(cd, d->job_id);
	int64_t when = 0;
	int ds;
	if (d->type == DEP_AFTERCORR) {
		if (!t)
			return 0;
		ds = job_array_dep_corr(cd, j, t);
		if (ds == 0 && t->array_job_id != t->job_id)
			when = t->end_time;
	} else if (d->task_id == DEP_TASK_ALL ||
		   (d->task_id == DEP_TASK_NONE && t && t->array_job_id == t->job_id)) {
		/* "afterok:11" (11 an array) or "afterok:11_*": every task */
		ds = array_dep(cd, d->job_id, d->type == DEP_AFTERBB ? DEP_AFTERANY : d->type,
			       NO_VAL32, &when);
	} else if (d->task_id != DEP_TASK_NONE) {
		/* "afterok:11_3": that task */
		ds = array_dep(cd, d->job_id, d->type == DEP_AFTERBB ? DEP_AFTERANY : d->type,
			       d->task_id, &when);
	} else {
		return 0;
	}
	if (ds == 1)
		*state = DEP_UNFULFILLED;
	else if (ds == 2)
		*state = DEP_FAILED;
	else
		*state = !d->time_min || now - when >= (int64_t)d->time_min * 60
			? DEP_FULFILLED : DEP_UNFULFILLED;
	return 1;
}

/* aftercorr of the array record j on array target: the first of j's
 * pending tasks that may start now (its partner in target completed with
 * 0, or target has no such task), or ARRAY_NONE with *state 1 (some
 * wait) or 2 (every partner ended otherwise). One walk of the jobs and of
 * j's pending set. */
static uint32_t corr_first(ctld_t *cd, const job_t *j, uint32_t target, int *state)
{
	array_set_t good, bad, busy;
	array_set_init(&good, 0);
	array_set_init(&bad, 0);
	array_set_init(&busy, 0);
	const array_set_t *tpend = NULL;
	for (size_t i = 0; i < cd->njobs; i++) {
		const job_t *r = cd->jobs[i];
		if (r->array_job_id != target)
			continue;
		if (r->array_pending) {
			tpend = r->array_pending;
			continue;
		}
		if (!JOB_IS_FINISHED(r->state))
			array_set_add(&busy, r->array_task_id);
		else if ((r->state & JOB_STATE_BASE) == JOB_COMPLETE && r->exit_code == 0)
			array_set_add(&good, r->array_task_id);
		else
			array_set_add(&bad, r->array_task_id);
	}
	uint32_t found = ARRAY_NONE;
	int wait = 0;
	for (uint32_t x = array_set_next(j->array_pending, 0); x != ARRAY_NONE;
	     x = array_set_next(j->array_pending, x + 1)) {
		if (array_set_has(&good, x) ||
		    (!array_set_has(&bad, x) && !array_set_has(&busy, x) &&
		     !(tpend && array_set_has(tpend, x)))) {
			found = x;
			break;
		}
		if (!array_set_has(&bad, x))
			wait = 1;
	}
	array_set_free(&good);
	array_set_free(&bad);
	array_set_free(&busy);
	*state = found != ARRAY_NONE ? 0 : wait ? 1 : 2;
	return found;
}

/* The aftercorr dependency of j on an array, if it has one: its target's
 * id, else 0. */
static uint32_t corr_target(ctld_t *cd, const job_t *j)
{
	for (uint32_t i = 0; i < j->ndeps; i++) {
		if (j->deps[i].type != DEP_AFTERCORR)
			continue;
		const job_t *t = job_find(cd, j->deps[i].job_id);
		if (t && t->array_job_id == t->job_id)
			return t->job_id;
	}
	return 0;
}

int job_array_dep_corr(ctld_t *cd, const job_t *j, const job_t *t)
{
	if (t->array_job_id != t->job_id) {
		/* not an array: as afterok on that job */
		if (!JOB_IS_FINISHED(t->state))
			return 1;
		return (t->state & JOB_STATE_BASE) == JOB_COMPLETE && t->exit_code == 0 ? 0 : 2;
	}
	if (j->array_pending) {
		/* met when one of its pending tasks may start (the split
		 * takes that one: job_array_split) */
		int state;
		corr_first(cd, j, t->job_id, &state);
		return state;
	}
	if (j->array_job_id)
		return job_array_dep(cd, t->job_id, DEP_AFTEROK, j->array_task_id);
	return job_array_dep(cd, t->job_id, DEP_AFTEROK, NO_VAL32);
}
