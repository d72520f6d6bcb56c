/* Unit tests for the controller's job arrays (src/ctld/job_array.c): one
 * record per pending array, the split of a task when it starts (the last
 * keeps the array's id), the throttle, cancel of pending tasks, the state
 * DB columns, and dependencies on an array. */
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "array_range.h"
#include "ctld/job_array.h"
#include "ctld_fixture.h"
#include "errors.h"
#include "tap.h"
#include "timefmt.h"

static char dir[] = "/tmp/test_job_array.XXXXXX";

static job_desc_t *desc(const char *array)
{
	job_desc_t *d = xcalloc(1, sizeof(*d));
	d->script = xstrdup("#!/bin/sh\ntrue\n");
	d->work_dir = xstrdup("/tmp");
	d->time_limit = TIME_NO_VAL;
	d->array_inx = array ? xstrdup(array) : NULL;
	return d;
}

static uint32_t submit(ctld_t *cd, const char *array, int *rc)
{
	job_desc_t *d = desc(array);
	uint32_t id = 0;
	char *msg = NULL;
	*rc = job_submit(cd, d, 0, 0, &id, &msg);
	free(msg);
	if (*rc)
		proto_free(MSG_SUBMIT, d), free(d);
	return id;
}

static char *info_str(ctld_t *cd, job_t *j, uint32_t *task)
{
	job_info_t ji;
	job_fill_info(cd, j, &ji);
	*task = ji.array_task_id;
	return xstrdup(ji.array_task_str ? ji.array_task_str : "");
}

static char *db_text(ctld_t *cd, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *r = NULL;
	if (sqlite3_prepare_v2(cd->db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		r = xstrdup(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "NULL");
	sqlite3_finalize(st);
	return r ? r : xstrdup("(no row)");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	(void)fixture_job;
	ctld_t *cd = fixture_ctld(dir, 4, "MaxArraySize=101\n");
	char *err = NULL;
	char *dbp = xasprintf("%s/sluice.db", dir);
	if (db_open(cd, dbp, &err)) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	int rc;

	/* submission: one record, the set and throttle, the default output */
	uint32_t a = submit(cd, "1-5%2", &rc);
	is_int(rc, 0, "array submitted");
	job_t *m = job_find(cd, a);
	ok(m && m->array_pending && m->array_pending->count == 5, "one record holds the 5 tasks");
	is_int(cd->njobs, 1, "one job record");
	is_int(m->array_job_id, a, "ArrayJobId is its own id");
	is_int(m->array_throttle, 2, "throttle %%2");
	is_str(m->desc->std_out, "/tmp/slurm-%A_%a.out", "default output slurm-%%A_%%a.out");
	uint32_t task;
	char *s = info_str(cd, m, &task);
	is_str(s, "1-5%2", "info: pending tasks with the throttle");
	is_int(task, NO_VAL32, "info: no task id on the pending record");
	free(s);

	uint32_t next = cd->next_job_id;
	submit(cd, "0-101", &rc);
	is_int(rc, ESLURM_INVALID_ARRAY, "an id at MaxArraySize is refused");
	submit(cd, "3-1", &rc);
	is_int(rc, ESLURM_INVALID_ARRAY, "a reversed range is refused");
	is_int(cd->next_job_id, next, "refusals take no job id");
	is_int(db_commit(cd), 0, "committed");
	s = db_text(cd, "SELECT array_pending || '|' || array_throttle FROM jobs WHERE job_id = 1");
	is_str(s, "1-5|2", "the DB row holds the pending set and throttle");
	free(s);

	/* the split: task 1 gets the next id; the record keeps the rest */
	job_t *t1 = job_array_split(cd, m, ctld_now());
	ok(t1 && t1 != m, "a task is split off");
	is_int(t1->job_id, next, "it takes the next id of the sequence");
	is_int(t1->array_job_id, a, "its ArrayJobId");
	is_int(t1->array_task_id, 1, "the lowest task first");
	ok(t1->desc && t1->desc->array_inx && !strcmp(t1->desc->array_inx, "1-5%2"),
	   "it carries the array spec (SLURM_ARRAY_TASK_COUNT...)");
	is_int(m->array_pending->count, 4, "4 left pending");
	is_int(db_commit(cd), 0, "committed");
	s = db_text(cd, "SELECT array_job_id || '|' || array_task_id FROM jobs WHERE job_id = 2");
	is_str(s, "1|1", "the task's own row");
	free(s);
	s = db_text(cd, "SELECT array_pending FROM jobs WHERE job_id = 1");
	is_str(s, "2-5", "the array's row lost the task");
	free(s);

	/* throttle: 2 running tasks stop the array */
	t1->state = JOB_RUNNING;
	job_array_count_running(cd);
	ok(!job_array_throttled(m), "1 running of %%2: not throttled");
	job_t *t2 = job_array_split(cd, m, ctld_now());
	t2->state = JOB_RUNNING;
	job_array_count_running(cd);
	is_int(m->array_nrun, 2, "2 running tasks counted");
	ok(job_array_throttled(m), "2 running of %%2: throttled");

	/* dependencies on the array: all its tasks */
	is_int(job_array_dep(cd, a, DEP_AFTEROK, NO_VAL32), 1, "afterok waits while tasks run");
	is_int(job_array_dep(cd, a, DEP_AFTER, NO_VAL32), 1, "after waits while tasks are pending");
	is_int(job_array_dep(cd, a, DEP_AFTEROK, 1), 1, "task 1 (aftercorr) still running");
	t1->state = JOB_COMPLETE;
	is_int(job_array_dep(cd, a, DEP_AFTEROK, 1), 0, "task 1 (aftercorr) done");

	/* cancel of pending tasks: they leave the set; one left: the record
	 * becomes that task */
	is_int(job_array_cancel_task(cd, a, 4, 0, 0, 0), 0, "cancel pending task 4");
	s = info_str(cd, m, &task);
	is_str(s, "3,5%2", "task 4 left the set");
	free(s);
	is_int(job_array_cancel_task(cd, a, 9, 0, 0, 0), ESLURM_INVALID_JOB_ID, "task 9: no such task");
	is_int(job_array_cancel_task(cd, a, 3, 0, 0, 0), 0, "cancel pending task 3");
	ok(!m->array_pending, "one task left: no set any more");
	is_int(m->array_task_id, 5, "the array's record is task 5");
	s = info_str(cd, m, &task);
	is_str(s, "", "no task string");
	is_int(task, 5, "info shows ArrayTaskId=5");
	free(s);
	ok(job_array_split(cd, m, ctld_now()) == m, "the last task keeps the array's record");
	is_int(db_commit(cd), 0, "committed");
	s = db_text(cd, "SELECT ifnull(array_pending, 'NULL') || '|' || array_task_id FROM jobs WHERE job_id = 1");
	is_str(s, "NULL|5", "its row says so");
	free(s);

	/* scancel of the array's id: every record of it */
	is_int(job_cancel(cd, a, 0, 0, 0), 0, "scancel of the array's id");
	ok(JOB_IS_FINISHED(m->state) && JOB_IS_FINISHED(t2->state), "its running task and last task ended");
	is_int(job_array_dep(cd, a, DEP_AFTERANY, NO_VAL32), 0, "afterany met once all ended");
	is_int(job_array_dep(cd, a, DEP_AFTEROK, NO_VAL32), 2, "afterok never after a cancel");

	/* restore from the DB's text */
	job_t r = { 0 };
	is_int(job_array_restore(&r, "3,6,9", 2), 0, "restore a pending set");
	ok(r.array_pending && r.array_pending->count == 3 && r.array_throttle == 2, "restored");
	job_array_free(&r);
	is_int(job_array_restore(&r, "x", 0), -1, "a bad stored set is reported");

	/* SchedulerParameters=max_array_tasks: the most tasks an array may
	 * have, whatever its ids (Slurm refuses it as an invalid spec) */
	char *keep_sp = cd->conf->scheduler_parameters;
	cd->conf->scheduler_parameters = xstrdup("bf_interval=30,max_array_tasks=3");
	submit(cd, "1-4", &rc);
	is_int(rc, ESLURM_INVALID_ARRAY, "4 tasks over max_array_tasks=3: refused");
	submit(cd, "0-100:25", &rc);
	is_int(rc, ESLURM_INVALID_ARRAY, "5 tasks with ids up to 100: refused");
	a = submit(cd, "0-100:50", &rc);
	is_int(rc, 0, "3 tasks (0,50,100): accepted");
	m = job_find(cd, a);
	ok(m && m->array_pending && job_array_ntasks(m) == 3, "the record counts its 3 tasks");
	free(cd->conf->scheduler_parameters);
	cd->conf->scheduler_parameters = xstrdup("max_array_tasks=500");
	submit(cd, "0-101", &rc);
	is_int(rc, ESLURM_INVALID_ARRAY, "a larger max_array_tasks leaves MaxArraySize=101 the bound");
	free(cd->conf->scheduler_parameters);
	cd->conf->scheduler_parameters = keep_sp;
	db_close(cd);
	free(dbp);
	free(err);
	return done_testing();
}
