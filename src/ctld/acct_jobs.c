/*
 * acct_jobs.c: the job records of accounting (acct_job, the contract in
 * acct.h's tables), written in the same transaction as the job's state.
 *
 * A job's row is upserted from db_commit for every dirty job and at its
 * insertion, so a crash never leaves a job without its record or a
 * record ahead of its job. Rows outlive the job: MinJobAge purges only the
 * live `jobs` table, never acct_job. Columns are as sacct prints them
 * where that is a text (TRES sorted by name, memory in its largest exact
 * unit), the raw number otherwise (times in Unix seconds, 0 = not yet).
 *
 * Added to the shared contract: requid (the uid that cancelled the job,
 * NULL if none: sacct's "CANCELLED by <uid>"), reservation and resv_id
 * (its name and id, NULL if none).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctld.h"
#include "ctld/job_array.h"
#include "ctld/resv.h"
#include "log.h"
#include "states.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

#define ACCT_JOB_COLS \
	"job_id, array_job_id, array_task_id, cluster, partition, account, qos," \
	" assoc_id, qos_id, uid, gid, user, grp, name, state, reason, exit_code," \
	" derived_ec, submit, eligible, start, end, suspended, timelimit, priority," \
	" nice, req_cpus, req_mem, req_mem_per_cpu, req_nodes, alloc_cpus," \
	" alloc_nodes, nodelist, req_tres, alloc_tres, workdir, comment," \
	" constraints, std_out, std_err, flags, requeues, requid, reservation," \
	" array_task_str, resv_id"

int acct_jobs_migrate(sqlite3 *db, char **err)
{
	/* The backfill gives the jobs a DB of an older sluice still holds
	 * their record (what the jobs table knows of them). */
	return db_exec(db,
		"CREATE TABLE IF NOT EXISTS acct_job("
		" job_id INTEGER PRIMARY KEY,"
		" array_job_id INTEGER NOT NULL DEFAULT 0,"
		" array_task_id INTEGER NOT NULL DEFAULT 4294967294,"
		" cluster TEXT, partition TEXT, account TEXT, qos TEXT, assoc_id INTEGER,"
		" qos_id INTEGER, uid INTEGER, gid INTEGER, user TEXT, grp TEXT,"
		" name TEXT, state INTEGER, reason INTEGER, exit_code INTEGER, derived_ec INTEGER,"
		" submit INTEGER, eligible INTEGER, start INTEGER, end INTEGER, suspended INTEGER,"
		" timelimit INTEGER, priority INTEGER, nice INTEGER,"
		" req_cpus INTEGER, req_mem INTEGER, req_mem_per_cpu INTEGER,"
		" req_nodes INTEGER, alloc_cpus INTEGER, alloc_nodes INTEGER, nodelist TEXT,"
		" req_tres TEXT, alloc_tres TEXT,"
		" workdir TEXT, comment TEXT, constraints TEXT, std_out TEXT, std_err TEXT,"
		" flags INTEGER, requeues INTEGER, requid INTEGER, reservation TEXT);"
		"CREATE INDEX IF NOT EXISTS acct_job_end ON acct_job(end);"
		"CREATE INDEX IF NOT EXISTS acct_job_start ON acct_job(start);"
		"CREATE INDEX IF NOT EXISTS acct_job_submit ON acct_job(submit);"
		"CREATE INDEX IF NOT EXISTS acct_job_uid ON acct_job(uid, submit);"
		"CREATE INDEX IF NOT EXISTS acct_job_eligible ON acct_job(eligible);"
		"INSERT OR IGNORE INTO acct_job(job_id, partition, uid, gid, state, reason,"
		" exit_code, derived_ec, submit, eligible, start, end, suspended, timelimit,"
		" priority, nodelist, requeues)"
		" SELECT job_id, partition, user_id, group_id, state, reason, exit_code, 0,"
		" submit_time, CASE WHEN state & 255 = 0 AND hold != 0 THEN 0 ELSE eligible_time END, CASE WHEN state & 255 = 0 THEN 0 ELSE start_time END,"
		" CASE WHEN state & 255 >= 3 THEN end_time ELSE 0 END, 0, time_limit, priority,"
		" CASE WHEN state & 255 = 0 THEN NULL ELSE nodes END, restarts FROM jobs;",
		err);
}

int acct_jobs_migrate_array_tasks(sqlite3 *db, char **err)
{
	/* NULL for every record but an array's pending one */
	static const db_column_t added[] = { { "acct_job", "array_task_str", "TEXT" } };
	return db_add_columns(db, added, 1, err);
}

int acct_jobs_migrate_resv_id(sqlite3 *db, char **err)
{
	/* Records written before it: the id of the reservation period of
	 * that name which held the job's start (or its submit), else the
	 * latest of that name. */
	static const db_column_t added[] = { { "acct_job", "resv_id", "INTEGER" } };
	if (db_add_columns(db, added, 1, err) < 0)
		return -1;
	return db_exec(db,
		"UPDATE acct_job SET resv_id=COALESCE((SELECT r.resv_id FROM acct_resv r"
		" WHERE r.name=acct_job.reservation"
		" AND r.time_start <= MAX(acct_job.start, acct_job.submit)"
		" AND r.time_end >= MAX(acct_job.start, acct_job.submit) LIMIT 1),"
		" (SELECT MAX(r.resv_id) FROM acct_resv r WHERE r.name=acct_job.reservation))"
		" WHERE reservation IS NOT NULL;", err);
}

int acct_jobs_migrate_indexes(sqlite3 *db, char **err)
{
	/* The window is searched by end time (acct_sacct.c), so the eligible
	 * index only cost every write; array tasks get a partial index,
	 * which costs nothing for the jobs that are no array task. */
	return db_exec(db,
		"DROP INDEX IF EXISTS acct_job_eligible;"
		"CREATE INDEX IF NOT EXISTS acct_job_array ON acct_job(array_job_id)"
		" WHERE array_job_id != 0;", err);
}

int acct_jobs_migrate_fewer_indexes(sqlite3 *db, char **err)
{
	/* Every index is one more page in the commit of each submit, start
	 * and end. sacct's window, its state terms (acct_sacct.c add_window)
	 * and sreport's job sizes all reach the records through the end
	 * index (a job pending or running during a window ended after its
	 * start or has not ended), so the start and submit indexes only cost
	 * the writes: 2 of the record's 5 pages at submit. */
	return db_exec(db, "DROP INDEX IF EXISTS acct_job_start; DROP INDEX IF EXISTS acct_job_submit;",
		       err);
}

/* A TRES string as sacct prints it: the items sorted by their text. */
static char *tres_sorted(const char *t)
{
	if (!t || !*t)
		return NULL;
	char *dup = xstrdup(t), *save = NULL;
	const char *items[32];
	size_t n = 0;
	for (char *w = strtok_r(dup, ",", &save); w && n < ARRAY_SIZE(items);
	     w = strtok_r(NULL, ",", &save))
		items[n++] = w;
	for (size_t i = 1; i < n; i++)      /* few items: insertion sort */
		for (size_t k = i; k > 0 && strcmp(items[k - 1], items[k]) > 0; k--) {
			const char *x = items[k];
			items[k] = items[k - 1];
			items[k - 1] = x;
		}
	strbuf_t sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", items[i]);
	free(dup);
	return strbuf_detach(&sb);
}

/* The time Slurm calls eligible: 0 while the job cannot start for a
 * reason of its own (held, waiting on a dependency or its begin time);
 * such jobs are outside sacct's default window, as in Slurm. */
static int64_t job_eligible(const job_t *j, int started, int64_t now)
{
	if (!started && (j->hold || j->dep_state || j->eligible_time > now))
		return 0;
	return j->eligible_time ? j->eligible_time : j->submit_time;
}

/* Binding also folds the value into *h (FNV-1a), the record's
 * fingerprint. */
static void hash_bytes(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		*h ^= c[i];
		*h *= 1099511628211ull;
	}
}

static void bind_i(sqlite3_stmt *st, int i, uint64_t *h, int64_t v)
{
	sqlite3_bind_int64(st, i, v);
	hash_bytes(h, &v, sizeof(v));
}

static void bind_null(sqlite3_stmt *st, int i, uint64_t *h)
{
	sqlite3_bind_null(st, i);
	hash_bytes(h, "\1", 1);
}

static void bind_t(sqlite3_stmt *st, uint64_t *h, int i, const char *s)
{
	if (s && *s) {
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);   /* the job's, kept */
		hash_bytes(h, s, strlen(s) + 1);
	} else {
		bind_null(st, i, h);
	}
}

/* The record's indexed columns (acct_job's indexes are on end, start,
 * submit, (uid, submit) and array_job_id), with their parameter numbers
 * in the statements below. An UPDATE that sets one of them rewrites that
 * index's entry even to the same value, so a record already written is
 * updated by a statement that sets only those whose value changed: a job
 * that starts touches the start index, one that ends the end index, and
 * other changes no index at all (the upsert set them all: three more
 * index pages in the commit of every job's start and end). */
enum { K_ARRAY_JOB, K_ARRAY_TASK, K_UID, K_SUBMIT, K_START, K_END, K_N };
static const struct { const char *col; int param; } keycols[K_N] = {
	{ "array_job_id", 2 }, { "array_task_id", 3 }, { "uid", 10 }, { "submit", 19 },
	{ "start", 21 }, { "end", 22 },
};

/* The key columns' values for job j, as bound below. */
static void record_keys(const job_t *j, int64_t k[K_N])
{
	uint32_t base = j->state & JOB_STATE_BASE;
	int started = base != JOB_PENDING && j->alloc.nnodes;
	k[K_ARRAY_JOB] = j->array_job_id;
	/* an array task: its array and task ids (the pending record of an
	 * array: its array id, no task) */
	k[K_ARRAY_TASK] = j->array_pending || !j->array_job_id ? NO_VAL32 : j->array_task_id;
	k[K_UID] = j->user_id;
	k[K_SUBMIT] = j->submit_time;
	/* Pending: start and end are the scheduler's plans, not facts; a job
	 * cancelled before it ran never started. */
	k[K_START] = started ? j->start_time : 0;
	k[K_END] = JOB_IS_FINISHED(j->state) ? j->end_time : 0;
}

/* Bind every column of j's record to st (parameters ?1..?46 in the order
 * of ACCT_JOB_COLS; a statement may leave some unused); rq, al and tasks
 * are the requested and allocated TRES and the pending tasks of an array
 * as written. Returns the fingerprint of what was bound. */
static uint64_t bind_record(ctld_t *cd, const job_t *j, sqlite3_stmt *st, const int64_t k[K_N],
			    const char *rq, const char *al, const char *tasks)
{
	const job_desc_t *d = j->desc;
	uint64_t h = 14695981039346656037ull;   /* FNV-1a of what is bound */
	uint32_t base = j->state & JOB_STATE_BASE;
	int started = base != JOB_PENDING && j->alloc.nnodes;
	int64_t now = ctld_now();
	bind_i(st, 1, &h, j->job_id);
	bind_i(st, 2, &h, k[K_ARRAY_JOB]);
	bind_i(st, 3, &h, k[K_ARRAY_TASK]);
	bind_t(st, &h, 4, cd->acct.cluster ? cd->acct.cluster : cd->conf->cluster_name);
	bind_t(st, &h, 5, cd->parts[j->part].cf->name);
	bind_t(st, &h, 6, d->account);
	bind_t(st, &h, 7, d->qos);
	bind_i(st, 8, &h, j->assoc_id);
	bind_i(st, 9, &h, j->qos_id);
	bind_i(st, 10, &h, k[K_UID]);
	bind_i(st, 11, &h, j->group_id);
	bind_t(st, &h, 12, d->user_name);
	bind_t(st, &h, 13, j->group_name);
	bind_t(st, &h, 14, d->name);
	bind_i(st, 15, &h, j->state);
	/* The reason kept is the last one it waited for (as slurmdbd's):
	 * once it runs, its reason stays. */
	if (base == JOB_PENDING)
		bind_i(st, 16, &h, j->reason);
	else
		bind_null(st, 16, &h);
	bind_i(st, 17, &h, j->exit_code);
	bind_i(st, 18, &h, 0);
	bind_i(st, 19, &h, k[K_SUBMIT]);
	bind_i(st, 20, &h, job_eligible(j, started, now));
	bind_i(st, 21, &h, k[K_START]);
	bind_i(st, 22, &h, k[K_END]);
	bind_i(st, 23, &h, 0);
	bind_i(st, 24, &h, j->time_limit);   /* the partition's if no -t */
	bind_i(st, 25, &h, j->hold ? 0 : j->priority);
	bind_i(st, 26, &h, d->nice);
	uint32_t ntasks = job_ntasks(j);
	uint32_t cpt = d->cpus_per_task ? d->cpus_per_task : 1;
	bind_i(st, 27, &h, (int64_t)ntasks * cpt);
	bind_i(st, 28, &h, (int64_t)(d->mem_per_cpu ? d->mem_per_cpu : d->mem_per_node));
	bind_i(st, 29, &h, d->mem_per_cpu ? 1 : 0);
	bind_i(st, 30, &h, d->min_nodes ? d->min_nodes : 1);
	uint64_t cpus = 0;
	for (uint32_t i = 0; started && i < j->alloc.nnodes; i++)
		cpus += j->alloc.cpus[i];
	bind_i(st, 31, &h, (int64_t)cpus);
	bind_i(st, 32, &h, started ? j->alloc.nnodes : 0);
	bind_t(st, &h, 33, started ? j->nodes : NULL);
	bind_t(st, &h, 34, rq);
	bind_t(st, &h, 35, al);
	bind_t(st, &h, 36, d->work_dir);
	bind_t(st, &h, 37, d->comment);
	bind_t(st, &h, 38, d->features);
	bind_t(st, &h, 39, d->std_out);
	bind_t(st, &h, 40, d->std_err ? d->std_err : d->std_out);
	bind_i(st, 41, &h, d->flags);
	bind_i(st, 42, &h, j->restarts);
	if (j->cancelled_by)
		bind_i(st, 43, &h, j->cancel_uid);
	else
		bind_null(st, 43, &h);
	bind_t(st, &h, 44, d->reservation);
	bind_t(st, &h, 45, tasks);
	/* its reservation's id; a reservation deleted since keeps the id
	 * written while it was there (the UPDATE's COALESCE) */
	uint32_t rid = resv_id_of(cd, d->reservation);
	if (rid)
		bind_i(st, 46, &h, rid);
	else
		bind_null(st, 46, &h);
	return h;
}

/* resv_id as written: none without a reservation; the one found now,
 * else (deleted since) the one written before. */
#define RESV_ID_SET "CASE WHEN ?44 IS NULL THEN NULL ELSE COALESCE(?46, resv_id) END"

static sqlite3_stmt *prep_or_fail(ctld_t *cd, const char *sql, const char *what)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v3(cd->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		error("state db: cannot prepare the job record %s: %s", what, sqlite3_errmsg(cd->db));
		cd->db_failed = 1;
		return NULL;
	}
	return st;
}

/* The UPDATE of a written record that sets the key columns of mask
 * (bits 1 << K_*) and every other column; prepared once per mask. */
static sqlite3_stmt *update_stmt(ctld_t *cd, unsigned mask)
{
	if (cd->st_acct_job_upd[mask])
		return cd->st_acct_job_upd[mask];
	strbuf_t sb = STRBUF_INIT;
	strbuf_addstr(&sb, "UPDATE acct_job SET cluster=?4, partition=?5, account=?6, qos=?7,"
		      " assoc_id=?8, qos_id=?9, gid=?11, user=?12, grp=?13, name=?14, state=?15,"
		      " reason=COALESCE(?16, reason), exit_code=?17, derived_ec=?18, eligible=?20,"
		      " suspended=?23, timelimit=?24, priority=?25, nice=?26, req_cpus=?27,"
		      " req_mem=?28, req_mem_per_cpu=?29, req_nodes=?30, alloc_cpus=?31,"
		      " alloc_nodes=?32, nodelist=?33, req_tres=?34, alloc_tres=?35, workdir=?36,"
		      " comment=?37, constraints=?38, std_out=?39, std_err=?40, flags=?41,"
		      " requeues=?42, requid=COALESCE(?43, requid), reservation=?44,"
		      " array_task_str=?45, resv_id=" RESV_ID_SET);
	for (int i = 0; i < K_N; i++)
		if (mask & (1u << i))
			strbuf_addf(&sb, ", \"%s\"=?%d", keycols[i].col, keycols[i].param);
	strbuf_addstr(&sb, " WHERE job_id=?1");
	cd->st_acct_job_upd[mask] = prep_or_fail(cd, sb.buf, "update");
	strbuf_release(&sb);
	return cd->st_acct_job_upd[mask];
}

/* Which key columns of job_id's written record differ from k: a mask of
 * 1 << K_* bits, or -1 if no record is written. */
static int changed_keys(ctld_t *cd, uint32_t job_id, const int64_t k[K_N])
{
	if (!cd->st_acct_job_keys &&
	    !(cd->st_acct_job_keys = prep_or_fail(cd, "SELECT array_job_id, array_task_id, uid,"
						  " submit, start, end FROM acct_job WHERE job_id=?1",
						  "read")))
		return -1;
	sqlite3_stmt *st = cd->st_acct_job_keys;
	sqlite3_bind_int64(st, 1, job_id);
	int mask = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		mask = 0;
		for (int i = 0; i < K_N; i++)
			if (sqlite3_column_type(st, i) == SQLITE_NULL || sqlite3_column_int64(st, i) != k[i])
				mask |= 1 << i;
	}
	sqlite3_reset(st);
	return mask;
}

void acct_job_record(ctld_t *cd, job_t *j)
{
	if (!cd->st_acct_job) {
		/* requid is kept once known: memory forgets it at a restart */
		cd->st_acct_job = prep_or_fail(cd, "INSERT INTO acct_job(" ACCT_JOB_COLS ") VALUES("
				       "?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,"
				       "?19,?20,?21,?22,?23,?24,?25,?26,?27,?28,?29,?30,?31,?32,?33,"
				       "?34,?35,?36,?37,?38,?39,?40,?41,?42,?43,?44,?45,?46)"
				       " ON CONFLICT(job_id) DO UPDATE SET array_job_id=?2,"
				       " array_task_id=?3, cluster=?4, partition=?5, account=?6, qos=?7,"
				       " assoc_id=?8, qos_id=?9, uid=?10, gid=?11, user=?12, grp=?13,"
				       " name=?14, state=?15, reason=COALESCE(?16, reason), exit_code=?17, derived_ec=?18,"
				       " submit=?19, eligible=?20, start=?21, end=?22, suspended=?23,"
				       " timelimit=?24, priority=?25, nice=?26, req_cpus=?27, req_mem=?28,"
				       " req_mem_per_cpu=?29, req_nodes=?30, alloc_cpus=?31,"
				       " alloc_nodes=?32, nodelist=?33, req_tres=?34, alloc_tres=?35,"
				       " workdir=?36, comment=?37, constraints=?38, std_out=?39,"
				       " std_err=?40, flags=?41, requeues=?42,"
				       " requid=COALESCE(?43, requid), reservation=?44,"
				       " array_task_str=?45, resv_id=" RESV_ID_SET, "upsert");
		if (!cd->st_acct_job)
			return;
	}
	sqlite3_stmt *st = cd->st_acct_job;
	int64_t k[K_N];
	record_keys(j, k);
	int started = (j->state & JOB_STATE_BASE) != JOB_PENDING && j->alloc.nnodes;
	char *req = job_req_tres(cd, j);
	char *rq = tres_sorted(req);
	char *al = started ? tres_sorted(j->tres) : NULL;
	free(req);
	/* the pending record of an array: its tasks not started yet, as
	 * sacct prints them in its JobID ("3-6%2" of 70_[3-6%2]) */
	char *tasks = NULL;
	if (j->array_pending) {
		char *p = job_array_pending_str(j);
		tasks = j->array_throttle ? xasprintf("%s%%%u", p, j->array_throttle) : xstrdup(p);
		free(p);
	}
	uint64_t h = bind_record(cd, j, st, k, rq, al, tasks);
	if (h == j->acct_sum) {
		/* the record holds this already: no write (a job is often
		 * dirty for what sacct does not show) */
		sqlite3_clear_bindings(st);
		free(rq);
		free(al);
		free(tasks);
		j->acct_sum_new = h;
		return;
	}
	j->acct_sum_new = h;
	/* A record already written (a later change of this job, or the
	 * first after a restart): an UPDATE of what changed. Which keys
	 * changed is known from the last commit, read back only when that
	 * is not known (a new job, or the first write after a restart). */
	int mask;
	if (j->acct_sum) {
		mask = 0;
		for (int i = 0; i < K_N; i++)
			if (j->acct_keys[i] != k[i])
				mask |= 1 << i;
	} else {
		mask = changed_keys(cd, j->job_id, k);
	}
	if (mask >= 0) {
		sqlite3_clear_bindings(st);
		if (!(st = update_stmt(cd, (unsigned)mask))) {
			free(rq);
			free(al);
			free(tasks);
			return;
		}
		bind_record(cd, j, st, k, rq, al, tasks);
	}
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	free(rq);
	free(al);
	free(tasks);
	if (rc != SQLITE_DONE) {
		if (!cd->store_failing && !cd->db_failed)
			error("state db: job %u: record: %s", j->job_id, sqlite3_errmsg(cd->db));
		if (!cd->db_failed) {
			int e = sqlite3_system_errno(cd->db);
			cd->db_errno = e > 0 ? e : (rc & 0xff) == SQLITE_FULL ? ENOSPC : EIO;
		}
		cd->db_failed = 1;    /* the turn's transaction must not be acknowledged */
	}
}

void acct_job_recorded(job_t *j)
{
	_Static_assert(sizeof(j->acct_keys) / sizeof(j->acct_keys[0]) == K_N, "acct_keys holds K_N keys");
	j->acct_sum = j->acct_sum_new;
	/* the job is as it was bound (same turn): these are the keys written */
	record_keys(j, j->acct_keys);
}

void acct_jobs_close(ctld_t *cd)
{
	sqlite3_finalize(cd->st_acct_job);
	cd->st_acct_job = NULL;
	sqlite3_finalize(cd->st_acct_job_keys);
	cd->st_acct_job_keys = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(cd->st_acct_job_upd); i++) {
		sqlite3_finalize(cd->st_acct_job_upd[i]);
		cd->st_acct_job_upd[i] = NULL;
	}
}
