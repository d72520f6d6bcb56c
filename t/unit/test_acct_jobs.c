/* Unit tests for the job records of accounting (src/ctld/acct_jobs.c):
 * the row written at submission, at the start and at the end of a job,
 * and after a restart; each later write is an UPDATE that sets only the
 * indexed columns whose value changed (the others' index entries are not
 * rewritten), and the indexes still find every row by its new values. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "ctld_fixture.h"
#include "tap.h"
#include "timefmt.h"

static char dir[] = "/tmp/test_acct_jobs.XXXXXX";

static int64_t db_int(ctld_t *cd, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;
	if (sqlite3_prepare_v2(cd->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static char *db_text(ctld_t *cd, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *r = NULL;
	if (sqlite3_prepare_v2(cd->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		r = xstrdup(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "NULL");
	sqlite3_finalize(st);
	return r ? r : xstrdup("(no row)");
}

/* Has the connection prepared an UPDATE of acct_job that sets none of
 * the indexed columns? */
static int update_without_keys(ctld_t *cd)
{
	static const char *const keys[] = { "\"start\"=", "\"end\"=", "\"submit\"=", "\"uid\"=",
					    "\"array_job_id\"=", "\"array_task_id\"=" };
	for (sqlite3_stmt *st = sqlite3_next_stmt(cd->db, NULL); st; st = sqlite3_next_stmt(cd->db, st)) {
		const char *q = sqlite3_sql(st);
		if (!q || strncmp(q, "UPDATE acct_job SET", 19))
			continue;
		int any = 0;
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			any |= strstr(q, keys[i]) != NULL;
		if (!any)
			return 1;
	}
	return 0;
}

/* The UPDATEs of acct_job the connection has prepared, as one text
 * ("|"-separated): which columns each write sets. */
static char *updates(ctld_t *cd)
{
	strbuf_t sb = STRBUF_INIT;
	for (sqlite3_stmt *st = sqlite3_next_stmt(cd->db, NULL); st; st = sqlite3_next_stmt(cd->db, st)) {
		const char *q = sqlite3_sql(st);
		if (q && !strncmp(q, "UPDATE acct_job SET", 19))
			strbuf_addf(&sb, "%s|", q);
	}
	return strbuf_detach(&sb);
}

static uint32_t submit(ctld_t *cd, uint32_t uid)
{
	job_desc_t *d = xcalloc(1, sizeof(*d));
	d->script = xstrdup("#!/bin/sh\ntrue\n");
	d->work_dir = xstrdup("/tmp");
	d->time_limit = TIME_NO_VAL;
	uint32_t id = 0;
	char *msg = NULL;
	int rc = job_submit(cd, d, uid, uid, &id, &msg);
	if (rc)
		printf("# submit: %d %s\n", rc, msg ? msg : "");
	free(msg);
	return id;
}

static void run_on_node0(job_t *j, int64_t start)
{
	sched_alloc_t *a = &j->alloc;
	a->nnodes = 1;
	a->nodes = xcalloc(1, sizeof(uint32_t));
	a->cpus = xcalloc(1, sizeof(uint32_t));
	a->mem = xcalloc(1, sizeof(uint64_t));
	a->gpus = xcalloc(1, sizeof(uint64_t));
	a->tasks = xcalloc(1, sizeof(uint32_t));
	a->cpus[0] = 2;
	a->tasks[0] = 1;
	free(j->nodes);
	j->nodes = xstrdup("n00001");
	j->state = JOB_RUNNING;
	j->start_time = start;
}

/* db_without_rowid on a table as an older sluice left it: a column added
 * after its PRIMARY KEY constraint, rows in it. */
static void test_without_rowid(void)
{
	sqlite3 *db = NULL;
	char *err = NULL;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
	    db_exec(db, "CREATE TABLE t(a INTEGER NOT NULL, b INTEGER NOT NULL, c TEXT,"
		    " PRIMARY KEY(a, b)); ALTER TABLE t ADD COLUMN d INTEGER DEFAULT 7;"
		    " INSERT INTO t(a, b, c) VALUES(1, 2, 'x'), (1, 4294967291, 'y');"
		    " INSERT INTO t VALUES(2, 0, NULL, 9);", &err)) {
		printf("Bail out! %s\n", err ? err : "sqlite3_open");
		exit(1);
	}
	is_int(db_without_rowid(db, "t", &err), 0, "rebuilt without rowid");
	is_int(db_without_rowid(db, "t", &err), 0, "a second time: nothing to do");
	sqlite3_stmt *st = NULL;
	sqlite3_prepare_v2(db, "SELECT group_concat(a || ':' || b || ':' || coalesce(c, '-') || ':' || d,"
			   " ' ') FROM (SELECT * FROM t ORDER BY a, b)", -1, &st, NULL);
	is_int(sqlite3_step(st), SQLITE_ROW, "the rows read back");
	is_str((const char *)sqlite3_column_text(st, 0), "1:2:x:7 1:4294967291:y:7 2:0:-:9",
	       "every row and column kept, in order");
	sqlite3_finalize(st);
	sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master WHERE name = 't'", -1, &st, NULL);
	sqlite3_step(st);
	ok(strstr((const char *)sqlite3_column_text(st, 0), "WITHOUT ROWID") != NULL,
	   "the table is WITHOUT ROWID now");
	sqlite3_finalize(st);
	sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'sqlite_autoindex_t%'"
			   " OR name = 't_wr'", -1, &st, NULL);
	sqlite3_step(st);
	is_int(sqlite3_column_int(st, 0), 0, "no key index and no leftover copy");
	sqlite3_finalize(st);
	ok(db_exec(db, "INSERT INTO t(a, b) VALUES(1, 2)", &err) != 0, "the key still refuses a duplicate");
	free(err);
	err = NULL;
	ok(db_without_rowid(db, "nosuch", &err) != 0 && err && strstr(err, "nosuch"),
	   "a missing table is an error naming it");
	free(err);
	sqlite3_close(db);
}

/* The migration that adds resv_id: a record of an older sluice gets the
 * id of the period of its reservation's name that held its start (or
 * its submit, never started), else the latest id of that name. */
static void test_resv_id_migration(void)
{
	sqlite3 *db = NULL;
	char *err = NULL;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
	    db_exec(db, "CREATE TABLE acct_job(job_id INTEGER PRIMARY KEY, submit INTEGER,"
		    " start INTEGER, reservation TEXT);"
		    " CREATE TABLE acct_resv(resv_id INTEGER, time_start INTEGER, time_end INTEGER,"
		    " name TEXT);"
		    " INSERT INTO acct_resv VALUES(3, 0, 200, 'r'), (4, 300, 400, 'r'),"
		    " (2, 500, 600, 'r'), (9, 0, 1000, 'other');"
		    " INSERT INTO acct_job VALUES(1, 50, 100, 'r'), (2, 350, 0, 'r'),"
		    " (3, 1000, 0, 'r'), (4, 1000, 0, NULL), (5, 10, 20, 'gone');", &err)) {
		printf("Bail out! %s\n", err ? err : "sqlite3_open");
		exit(1);
	}
	is_int(acct_jobs_migrate_resv_id(db, &err), 0, "resv_id added and filled");
	sqlite3_stmt *st = NULL;
	sqlite3_prepare_v2(db, "SELECT group_concat(job_id || ':' || coalesce(resv_id, '-'), ' ')"
			   " FROM (SELECT * FROM acct_job ORDER BY job_id)", -1, &st, NULL);
	is_int(sqlite3_step(st), SQLITE_ROW, "the records read back");
	is_str((const char *)sqlite3_column_text(st, 0), "1:3 2:4 3:4 4:- 5:-",
	       "the period that held the start or submit, else the latest id; none without one");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

int main(void)
{
	test_without_rowid();
	test_resv_id_migration();
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	(void)fixture_job;
	ctld_t *cd = fixture_ctld(dir, 2, NULL);
	char *err = NULL;
	char *dbp = xasprintf("%s/sluice.db", dir);
	if (db_open(cd, dbp, &err)) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	char q[256], *s;

	/* submission: the record with every column, no UPDATE yet */
	uint32_t a = submit(cd, 1000), b = submit(cd, 1001);
	ok(a && b, "two jobs submitted");
	is_int(db_commit(cd), 0, "committed");
	job_t *ja = job_find(cd, a), *jb = job_find(cd, b);
	snprintf(q, sizeof(q), "SELECT uid || '|' || state || '|' || start || '|' || end || '|' ||"
		 " (submit > 0) FROM acct_job WHERE job_id = %u", a);
	s = db_text(cd, q);
	is_str(s, "1000|0|0|0|1", "the pending job's record");
	free(s);
	s = updates(cd);
	is_str(s, "", "a new record is inserted, not updated");
	free(s);

	/* the start: only the start key is set */
	int64_t t0 = ctld_now();
	run_on_node0(ja, t0 - 5);
	job_dirty(cd, ja);
	is_int(db_commit(cd), 0, "start committed");
	snprintf(q, sizeof(q), "SELECT state || '|' || start || '|' || end || '|' || nodelist || '|' ||"
		 " alloc_cpus FROM acct_job WHERE job_id = %u", a);
	s = db_text(cd, q);
	char *want = xasprintf("%u|%lld|0|n00001|2", JOB_RUNNING, (long long)(t0 - 5));
	is_str(s, want, "the running job's record");
	free(want);
	free(s);
	s = updates(cd);
	ok(strstr(s, "\"start\"=?21") && !strstr(s, "\"end\"=") && !strstr(s, "\"submit\"=") &&
	   !strstr(s, "\"uid\"=") && !strstr(s, "array_job_id="), "the start's UPDATE sets start, no other key");
	free(s);
	is_int(db_int(cd, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND"
		      " name IN ('acct_job_start', 'acct_job_submit')"), 0,
	       "no start or submit index: every record write would pay for them");

	/* a change that no key sees: no key is set */
	jb->priority += 7;
	job_dirty(cd, jb);
	is_int(db_commit(cd), 0, "priority change committed");
	snprintf(q, sizeof(q), "SELECT priority FROM acct_job WHERE job_id = %u", b);
	is_int(db_int(cd, q), jb->priority, "the new priority is recorded");
	ok(update_without_keys(cd), "an UPDATE that sets no key was used");

	/* the end: the end key */
	ja->state = JOB_COMPLETE;
	ja->end_time = t0;
	job_dirty(cd, ja);
	is_int(db_commit(cd), 0, "end committed");
	snprintf(q, sizeof(q), "SELECT state || '|' || start || '|' || end FROM acct_job WHERE job_id = %u", a);
	s = db_text(cd, q);
	want = xasprintf("%u|%lld|%lld", JOB_COMPLETE, (long long)(t0 - 5), (long long)t0);
	is_str(s, want, "the finished job's record");
	free(want);
	free(s);
	s = updates(cd);
	ok(strstr(s, "\"end\"=?22 WHERE") != NULL, "the end's UPDATE sets end");
	free(s);
	snprintf(q, sizeof(q), "SELECT count(*) FROM acct_job INDEXED BY acct_job_end WHERE end = %lld",
		 (long long)t0);
	is_int(db_int(cd, q), 1, "the end index finds it by its end");
	is_int(db_int(cd, "SELECT count(*) FROM acct_job INDEXED BY acct_job_end WHERE end = 0"), 1,
	       "and only the other job has no end");

	/* after a restart the fingerprint is unknown: the row is read and the
	 * changed keys (here the submit time and uid) are set */
	jb->acct_sum = 0;
	jb->submit_time -= 100;
	jb->user_id = 1002;
	job_dirty(cd, jb);
	is_int(db_commit(cd), 0, "rewrite committed");
	snprintf(q, sizeof(q), "SELECT job_id FROM acct_job WHERE submit = %lld",
		 (long long)jb->submit_time);
	is_int(db_int(cd, q), b, "the new submit time is recorded");
	snprintf(q, sizeof(q), "SELECT job_id FROM acct_job INDEXED BY acct_job_uid WHERE uid = 1002"
		 " AND submit = %lld", (long long)jb->submit_time);
	is_int(db_int(cd, q), b, "the uid index finds the new uid");
	is_int(db_int(cd, "SELECT count(*) FROM acct_job INDEXED BY acct_job_uid WHERE uid = 1001"), 0,
	       "and not the old one");

	/* nothing changed: no write at all */
	int before = sqlite3_total_changes(cd->db);
	job_dirty(cd, jb);
	is_int(db_commit(cd), 0, "unchanged commit");
	is_int(sqlite3_total_changes(cd->db) - before, 1, "only the jobs row is written, not the record");

	s = db_text(cd, "PRAGMA integrity_check");
	is_str(s, "ok", "the DB and its indexes agree");
	free(s);
	is_int(db_int(cd, "SELECT count(*) FROM acct_job"), 2, "one record per job");
	is_int(db_int(cd, "SELECT count(*) FROM sqlite_master WHERE name IN ('acct_step', 'meta')"
		      " AND sql LIKE '%WITHOUT ROWID'"), 2, "step records and meta have no rowid");

	acct_jobs_close(cd);
	sqlite3_close(cd->db);
	char *cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", dir);
	free(cmd);
	free(dbp);
	return done_testing();
}
