/*
 * state_db.c: the controller's durable state in SQLite (WAL mode).
 *
 * Schema (StateSaveLocation/sluice.db):
 *   meta(key TEXT PRIMARY KEY, value INTEGER)       -- next_job_id
 *   jobs(job_id INTEGER PRIMARY KEY, state, reason, reason_detail, user_id,
 *        group_id, partition, priority, hold, time_limit, submit_time,
 *        eligible_time, start_time, end_time, exit_code, launch_seq,
 *        next_step, alloc_held, nodes, alloc, descr BLOB, restarts)
 *        -- descr: proto_encode(MSG_SUBMIT) of the job_desc_t as submitted
 *        -- (script and env included: they are not kept in memory);
 *        -- alloc: "X|" if exclusive, "S|" if its CPUs are oversubscribed,
 *           then "node:cpus:mem:gpumask:tasks[:cpu-id words],..."
 *        -- restarts: added later; db_open() adds the column to older DBs
 *        -- array_job_id, array_task_id, array_pending, array_throttle:
 *           added by a migration step (job arrays, job_array.c): the
 *           array's id, the task id (4294967294 for the pending record),
 *           the pending record's tasks not started ("1-4,9") and the %N;
 *           written by their own statement after each save of an array job
 *   nodes(name TEXT PRIMARY KEY, base, flags, reason, reason_uid, reason_time)
 *        -- comment, extra: added later (scontrol update Comment=/Extra=),
 *        -- written by their own statement after each node save
 *        -- weight: added later; set only when scontrol update changed it
 *   parts(name TEXT PRIMARY KEY, state, max_time, default_time, max_nodes,
 *        min_nodes)
 *   acct_job, ...: the accounting tables (acct.h), each module's DDL
 *
 * Versioned: PRAGMA user_version counts the migration steps a DB has had
 * (migrations[] below; 0 = written before versions existed, or new).
 *
 * All writes of one loop turn go into one transaction, opened lazily by
 * the first write and committed by db_commit() from the loop's
 * before_sleep hook before any reply is flushed. synchronous=NORMAL in WAL
 * mode survives a crash of the process; SLUICE_SYNC=full makes every
 * commit survive a power cut too. Statements are prepared once and reset.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/ctld.h"
#include "ctld/job_array.h"
#include "ctld/job_nccl.h"
#include "ctld/resv.h"

#include "hostlist.h"
#include "log.h"
#include "states.h"
#include "strbuf.h"
#include "xalloc.h"

static const char *schema =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER);"
	"CREATE TABLE IF NOT EXISTS jobs(job_id INTEGER PRIMARY KEY, state INTEGER,"
	" reason INTEGER, reason_detail TEXT, user_id INTEGER, group_id INTEGER,"
	" partition TEXT, priority INTEGER, hold INTEGER, time_limit INTEGER,"
	" submit_time INTEGER, eligible_time INTEGER, start_time INTEGER,"
	" end_time INTEGER, exit_code INTEGER, launch_seq INTEGER, next_step INTEGER,"
	" alloc_held INTEGER, nodes TEXT, alloc TEXT, descr BLOB, restarts INTEGER DEFAULT 0);"
	"CREATE TABLE IF NOT EXISTS nodes(name TEXT PRIMARY KEY, base INTEGER,"
	" flags INTEGER, reason TEXT, reason_uid INTEGER, reason_time INTEGER);"
	"CREATE TABLE IF NOT EXISTS parts(name TEXT PRIMARY KEY, state INTEGER,"
	" max_time INTEGER, default_time INTEGER, max_nodes INTEGER, min_nodes INTEGER);";

#define JOB_COLS "state=?2, reason=?3, reason_detail=?4, user_id=?5, group_id=?6," \
	" partition=?7, priority=?8, hold=?9, time_limit=?10, submit_time=?11," \
	" eligible_time=?12, start_time=?13, end_time=?14, exit_code=?15," \
	" launch_seq=?16, next_step=?17, alloc_held=?18, nodes=?19, alloc=?20, restarts=?21"

static sqlite3_stmt *prep(ctld_t *cd, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v3(cd->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
		fatal("state db: cannot prepare '%s': %s", sql, sqlite3_errmsg(cd->db));
	return st;
}

/* Does TABLE have COLUMN? (PRAGMA table_info lists one row per column.) */
int db_has_column(sqlite3 *db, const char *table, const char *column)
{
	char *sql = xasprintf("PRAGMA table_info(%s)", table);
	sqlite3_stmt *st = NULL;
	int found = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
		while (!found && sqlite3_step(st) == SQLITE_ROW)
			found = !strcmp((const char *)sqlite3_column_text(st, 1), column);
	sqlite3_finalize(st);
	free(sql);
	return found;
}

int db_exec(sqlite3 *db, const char *sql, char **err)
{
	char *e = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &e) == SQLITE_OK)
		return 0;
	*err = xstrdup(e ? e : sqlite3_errmsg(db));
	sqlite3_free(e);
	return -1;
}

int db_add_columns(sqlite3 *db, const db_column_t *cols, size_t n, char **err)
{
	for (size_t i = 0; i < n; i++) {
		if (db_has_column(db, cols[i].table, cols[i].column))
			continue;
		char *sql = xasprintf("ALTER TABLE %s ADD COLUMN %s %s", cols[i].table,
				      cols[i].column, cols[i].decl);
		char *e = NULL;
		int rc = db_exec(db, sql, &e);
		free(sql);
		if (rc) {
			*err = xasprintf("adding column %s.%s: %s", cols[i].table, cols[i].column, e);
			free(e);
			return -1;
		}
		info("state db: added column %s.%s", cols[i].table, cols[i].column);
	}
	return 0;
}

int db_without_rowid(sqlite3 *db, const char *table, char **err)
{
	sqlite3_stmt *st = NULL;
	char *sql = NULL;
	if (sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			sql = xstrdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	const char *cols = sql ? strchr(sql, '(') : NULL;
	if (!cols) {
		*err = xasprintf("rebuilding %s without rowid: no such table", table);
		free(sql);
		return -1;
	}
	if (strcasestr(sql, "WITHOUT ROWID")) {
		free(sql);
		return 0;
	}
	/* The stored definition holds every column added since (SQLite
	 * writes them into it), so SELECT * copies them in order. */
	char *ddl = xasprintf("CREATE TABLE %s_wr%s WITHOUT ROWID;"
			      " INSERT INTO %s_wr SELECT * FROM %s; DROP TABLE %s;"
			      " ALTER TABLE %s_wr RENAME TO %s;",
			      table, cols, table, table, table, table, table);
	free(sql);
	char *e = NULL;
	int rc = db_exec(db, ddl, &e);
	free(ddl);
	if (rc) {
		*err = xasprintf("rebuilding %s without rowid: %s", table, e);
		free(e);
		return -1;
	}
	info("state db: %s rebuilt without rowid", table);
	return 0;
}

/* Tables written in most commits whose key is not an integer: as rowid
 * tables each write also rewrote a page of their separate key index. */
static int migrate_without_rowid(sqlite3 *db, char **err)
{
	return db_without_rowid(db, "meta", err) || db_without_rowid(db, "acct_step", err) ? -1 : 0;
}

/* The columns added to the base tables before versioned migrations,
 * when missing (also checked at every open, so a DB whose version says
 * more than its tables hold is repaired, not refused). */
static int base_columns(sqlite3 *db, char **err)
{
	static const db_column_t added[] = {
		{ "jobs", "restarts", "INTEGER DEFAULT 0" },
		{ "nodes", "comment", "TEXT" },
		{ "nodes", "extra", "TEXT" },
		{ "nodes", "weight", "INTEGER" },
	};
	return db_add_columns(db, added, ARRAY_SIZE(added), err);
}

/* Migration 1: the schema as sluice wrote it before versioned migrations
 * (user_version 0). CREATE TABLE IF NOT EXISTS leaves the tables of such
 * a DB as they are, so the columns added in those days are added too. */
static int migrate_base(sqlite3 *db, char **err)
{
	return db_exec(db, schema, err) ? -1 : base_columns(db, err);
}

/* Job arrays (job_array.c): their columns of the jobs table. */
static int migrate_job_arrays(sqlite3 *db, char **err)
{
	static const db_column_t added[] = {
		{ "jobs", "array_job_id", "INTEGER NOT NULL DEFAULT 0" },
		{ "jobs", "array_task_id", "INTEGER NOT NULL DEFAULT 4294967294" },
		{ "jobs", "array_pending", "TEXT" },
		{ "jobs", "array_throttle", "INTEGER NOT NULL DEFAULT 0" },
	};
	return db_add_columns(db, added, ARRAY_SIZE(added), err);
}

/* Reservation records (what slurmdbd keeps in its reservation table), for
 * sreport reservation Utilization and the planned-down time of cluster
 * Utilization. One row per period of a reservation with the same nodes
 * and times: a change of nodes, start or end while it is active ends the
 * row at that moment (time_end) and starts a new one from it; before it
 * starts, its row is updated in place. Deleting an active reservation
 * ends its row then; deleting one that never started sets deleted = 1.
 * Written in the same transaction as the reservation's state change.
 *   resv_id     ResvID (increasing, never reused)
 *   time_start  start of this period (the reservation's StartTime for
 *               its first row)
 *   time_end    end of this period (its EndTime unless ended early)
 *   name        ReservationName; nodelist "comp[001-004]", node_count
 *   tres        the TRES it holds as Slurm prints them, cpu first:
 *               "cpu=256,mem=2000000M,node=4,billing=256,gres/gpu=32"
 *   flags       as scontrol prints Flags= ("MAINT,IGNORE_JOBS"), "" none
 *   users, accounts  its access lists as given ("alice,bob"), NULL none */
static int migrate_acct_resv(sqlite3 *db, char **err)
{
	return db_exec(db,
		"CREATE TABLE IF NOT EXISTS acct_resv("
		" resv_id INTEGER NOT NULL, time_start INTEGER NOT NULL,"
		" time_end INTEGER NOT NULL, name TEXT NOT NULL, nodelist TEXT NOT NULL,"
		" node_count INTEGER NOT NULL, tres TEXT NOT NULL, flags TEXT NOT NULL,"
		" users TEXT, accounts TEXT, deleted INTEGER NOT NULL DEFAULT 0,"
		" PRIMARY KEY(resv_id, time_start));"
		"CREATE INDEX IF NOT EXISTS acct_resv_end ON acct_resv(time_end);",
		err);
}

/* The schema's history: step N brings a DB from user_version N-1 to N.
 * Append only (a DB records how many steps it has had); a module adds
 * its tables by adding its step function (acct.h) at the end. A step
 * runs in a transaction together with the version bump, so it is all
 * done or not at all. */
static const struct db_migration {
	const char *what;
	db_migrate_f fn;
} migrations[] = {
	{ "base schema (jobs, nodes, parts, meta)", migrate_base },
	{ "accounting job records (acct_job)", acct_jobs_migrate },
	{ "accounts, users, associations, QOS", acct_store_create },
	{ "accounting step records (acct_step)", acct_steps_migrate },
	{ "decayed usage (acct_usage)", acct_usage_migrate },
	{ "rollups and node events (acct_rollup_*, node_event)", acct_rollup_migrate },
	{ "job record indexes for sacct (acct_job)", acct_jobs_migrate_indexes },
	{ "job arrays (jobs.array_*)", migrate_job_arrays },
	{ "pending array tasks in job records (acct_job.array_task_str)", acct_jobs_migrate_array_tasks },
	{ "live step details (acct_step.time_limit, srun_host, srun_pid)", step_info_migrate },
	{ "NCCL transport verdicts (jobs.nccl_*)", job_nccl_migrate },
	{ "reservation records for sreport (acct_resv)", migrate_acct_resv },
	{ "fewer job record indexes (acct_job start, submit)", acct_jobs_migrate_fewer_indexes },
	{ "step records and meta without rowid (acct_step, meta)", migrate_without_rowid },
	{ "advance reservations (resvs)", resv_db_migrate },
	{ "job records by reservation for sreport (acct_job_resv)", acct_sreport_resv_migrate },
	{ "reservation ids in job records (acct_job.resv_id)", acct_jobs_migrate_resv_id },
	{ "PURGE_COMP times of reservations (resvs.purge_comp)", resv_db_migrate_purge },
};

int db_schema_version(void)
{
	return (int)ARRAY_SIZE(migrations);
}

/* Bring the DB at path's open handle to this schema version, one step at
 * a time. A DB from a newer sluice (more steps than known) is refused:
 * writing it with an older schema could lose what the newer one keeps. */
static int db_migrate(sqlite3 *db, const char *path, char **err)
{
	sqlite3_stmt *st = NULL;
	int version = -1;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version < 0) {
		*err = xasprintf("state db '%s': cannot read its schema version: %s", path,
				 sqlite3_errmsg(db));
		return -1;
	}
	if (version > 0 && base_columns(db, err))
		return -1;
	int target = db_schema_version();
	if (version > target) {
		*err = xasprintf("state db '%s' has schema version %d, newer than this sluice's %d;"
				 " run the sluice that wrote it", path, version, target);
		return -1;
	}
	for (int v = version; v < target; v++) {
		char *e = NULL;
		char *bump = xasprintf("PRAGMA user_version=%d", v + 1);
		int rc = db_exec(db, "BEGIN IMMEDIATE", &e);
		if (!rc)
			rc = migrations[v].fn(db, &e);
		if (!rc)
			rc = db_exec(db, bump, &e);
		if (!rc)
			rc = db_exec(db, "COMMIT", &e);
		free(bump);
		if (rc) {
			if (!sqlite3_get_autocommit(db))
				sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			*err = xasprintf("state db '%s': migration %d (%s) failed: %s", path, v + 1,
					 migrations[v].what, e ? e : "error");
			free(e);
			return -1;
		}
		if (version > 0 || v > 0)
			info("state db: schema version %d: %s", v + 1, migrations[v].what);
	}
	return 0;
}

/* What the transaction's writes were, to redo them after a rollback:
 * a job insert (with the encoded description, which memory does not keep)
 * or a rewrite of a job's stored description. */
struct db_pending {
	uint32_t job_id;
	int insert;               /* 1: insert (blob), 0: description rewrite */
	char *blob;
	size_t len;
};

static void pending_add(ctld_t *cd, uint32_t job_id, int insert, const strbuf_t *blob)
{
	cd->pending = xgrow(cd->pending, sizeof(*cd->pending), cd->npending + 1, &cd->apending);
	struct db_pending *p = &cd->pending[cd->npending++];
	p->job_id = job_id;
	p->insert = insert;
	p->len = blob ? blob->len : 0;
	p->blob = blob ? xmalloc(blob->len + 1) : NULL;
	if (blob)
		memcpy(p->blob, blob->buf, blob->len);
}

static void pending_clear(ctld_t *cd)
{
	for (size_t i = 0; i < cd->npending; i++)
		free(cd->pending[i].blob);
	cd->npending = 0;
}

/* The errno behind a failed SQLite call (the OS's if SQLite kept it). */
static int db_errno_of(ctld_t *cd, int rc)
{
	int e = sqlite3_system_errno(cd->db);
	if (e > 0)
		return e;
	switch (rc & 0xff) {
	case SQLITE_FULL: return ENOSPC;
	case SQLITE_READONLY: return EROFS;
	case SQLITE_NOMEM: return ENOMEM;
	case SQLITE_BUSY: case SQLITE_LOCKED: return EBUSY;
	default: return EIO;
	}
}

/* Run a statement that returns no rows; log (never die) on failure. */
static int step_done(ctld_t *cd, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		/* Once failing, every retry fails alike: say it once. */
		if (!cd->store_failing && !cd->db_failed)
			error("state db: %s: %s", what, sqlite3_errmsg(cd->db));
		if (!cd->db_failed)
			cd->db_errno = db_errno_of(cd, rc);
		cd->db_failed = 1;   /* this turn's transaction must not be acknowledged */
		return -1;
	}
	return 0;
}

int db_exec_step(ctld_t *cd, sqlite3_stmt *st, const char *what)
{
	return step_done(cd, st, what);
}

char *store_error_msg(const ctld_t *cd)
{
	return xasprintf("state save location '%s': %s", cd->conf->state_save_location,
			 strerror(cd->db_errno ? cd->db_errno : EIO));
}

int db_open(ctld_t *cd, const char *path, char **err)
{
	if (sqlite3_open_v2(path, &cd->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		*err = xasprintf("cannot open state db '%s': %s", path,
				 cd->db ? sqlite3_errmsg(cd->db) : "out of memory");
		return -1;
	}
	/* No busy timeout: the controller holds the state lock (sluice-ctld.lock)
	 * and no one else writes this DB; waiting would only stall the loop. */
	sqlite3_busy_timeout(cd->db, 0);
	const char *sync = getenv("SLUICE_SYNC");
	/* cache_size: the controller reads the DB only at startup and for a
	 * launch (one row by key); writes append near the end of the tables.
	 * SQLite's default 2 MB page cache would be ~200 bytes per job in a
	 * 10,000-job queue for nothing (the kernel caches the file anyway). */
	char *sql = xasprintf("PRAGMA journal_mode=WAL; PRAGMA synchronous=%s; PRAGMA cache_size=-256;",
			      sync && !strcasecmp(sync, "full") ? "FULL" : "NORMAL");
	char *e = NULL;
	if (sqlite3_exec(cd->db, sql, NULL, NULL, &e) != SQLITE_OK) {
		*err = xasprintf("state db '%s': %s", path, e ? e : "error");
		sqlite3_free(e);
		free(sql);
		return -1;
	}
	free(sql);
	if (db_migrate(cd->db, path, err))
		return -1;
	if (acct_steps_db_init(cd, err))
		return -1;
	if (acct_usage_db_init(cd, err))
		return -1;
	cd->st_begin = prep(cd, "BEGIN");
	cd->st_commit = prep(cd, "COMMIT");
	cd->st_job_ins = prep(cd, "INSERT OR REPLACE INTO jobs(job_id, state, reason, reason_detail,"
			      " user_id, group_id, partition, priority, hold, time_limit, submit_time,"
			      " eligible_time, start_time, end_time, exit_code, launch_seq, next_step,"
			      " alloc_held, nodes, alloc, restarts, descr) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,"
			      "?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22)");
	cd->st_job_upd = prep(cd, "UPDATE jobs SET " JOB_COLS " WHERE job_id=?1");
	cd->st_job_del = prep(cd, "DELETE FROM jobs WHERE job_id=?1");
	cd->st_job_desc = prep(cd, "SELECT descr FROM jobs WHERE job_id=?1");
	cd->st_node_save = prep(cd, "INSERT OR REPLACE INTO nodes(name, base, flags, reason,"
				" reason_uid, reason_time) VALUES(?1,?2,?3,?4,?5,?6)");
	cd->st_part_save = prep(cd, "INSERT OR REPLACE INTO parts(name, state, max_time,"
				" default_time, max_nodes, min_nodes) VALUES(?1,?2,?3,?4,?5,?6)");
	cd->st_meta_set = prep(cd, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)");
	cd->st_node_notes = prep(cd, "UPDATE nodes SET comment=?2, extra=?3 WHERE name=?1");
	cd->st_node_weight = prep(cd, "UPDATE nodes SET weight=?2 WHERE name=?1");
	cd->st_job_array = prep(cd, "UPDATE jobs SET array_job_id=?2, array_task_id=?3,"
				" array_pending=?4, array_throttle=?5 WHERE job_id=?1");
	return 0;
}

void db_close(ctld_t *cd)
{
	if (!cd->db)
		return;
	resv_free(cd);
	sqlite3_stmt *all[] = { cd->st_begin, cd->st_commit, cd->st_job_ins, cd->st_job_upd,
				cd->st_job_del, cd->st_job_desc, cd->st_node_save,
				cd->st_part_save, cd->st_meta_set, cd->st_node_notes,
				cd->st_job_array };
	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		sqlite3_finalize(all[i]);
	sqlite3_finalize(cd->st_node_weight);
	acct_jobs_close(cd);
	acct_steps_db_close(cd);
	acct_usage_db_close(cd);
	sqlite3_close(cd->db);
	cd->db = NULL;
}

void db_begin(ctld_t *cd)
{
	if (cd->in_txn)
		return;
	if (step_done(cd, cd->st_begin, "begin") == 0)
		cd->in_txn = 1;
}

static char *alloc_encode(ctld_t *cd, const sched_alloc_t *a)
{
	if (!a->nnodes)
		return NULL;
	strbuf_t sb = STRBUF_INIT;
	if (a->exclusive)
		strbuf_addstr(&sb, "X|");
	if (a->shared)
		strbuf_addstr(&sb, "S|");
	for (uint32_t i = 0; i < a->nnodes; i++) {
		strbuf_addf(&sb, "%s%s:%u:%" PRIu64 ":%" PRIu64 ":%u", i ? "," : "",
			    cd->nodes[a->nodes[i]].cf->name, a->cpus[i], a->mem[i],
			    a->gpus[i], a->tasks[i]);
		/* CPU ids, when tracked: ":" then the bitmap words in hex,
		 * '.' separated (older states lack it; recovery refills). */
		for (uint32_t w = 0; a->cores && w < a->cwords; w++)
			strbuf_addf(&sb, "%c%" PRIx64, w ? '.' : ':', a->cores[(size_t)i * a->cwords + w]);
	}
	return strbuf_detach(&sb);
}

/* The CPU ids part of one node ("ff.0"): words in hex, '.' separated. */
static void alloc_decode_cores(sched_alloc_t *a, uint32_t n, uint32_t i, const char *p)
{
	uint32_t words = 1;
	for (const char *q = p; *q; q++)
		words += *q == '.';
	if (!a->cores) {
		a->cwords = words;
		a->cores = xcalloc((size_t)n * words, sizeof(uint64_t));
	}
	for (uint32_t w = 0; w < a->cwords && *p; w++) {
		char *e;
		a->cores[(size_t)i * a->cwords + w] = strtoull(p, &e, 16);
		p = *e == '.' ? e + 1 : e;
	}
}

/* Parse alloc_encode()'s text; -1 if a node is no longer configured. */
static int alloc_decode(ctld_t *cd, const char *s, sched_alloc_t *a)
{
	memset(a, 0, sizeof(*a));
	if (!s || !*s)
		return 0;
	if (!strncmp(s, "X|", 2)) {
		a->exclusive = 1;
		s += 2;
	}
	if (!strncmp(s, "S|", 2)) {    /* CPUs held oversubscribed */
		a->shared = 1;
		s += 2;
	}
	uint32_t n = 1;
	for (const char *p = s; *p; p++)
		n += *p == ',';
	a->nodes = xcalloc(n, sizeof(uint32_t));
	a->cpus = xcalloc(n, sizeof(uint32_t));
	a->mem = xcalloc(n, sizeof(uint64_t));
	a->gpus = xcalloc(n, sizeof(uint64_t));
	a->tasks = xcalloc(n, sizeof(uint32_t));
	char *dup = xstrdup(s), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char name[256];
		uint32_t cpus = 0, tasks = 0;
		uint64_t mem = 0, gpus = 0;
		int used = 0;
		if (sscanf(tok, "%255[^:]:%u:%" SCNu64 ":%" SCNu64 ":%u%n", name, &cpus, &mem, &gpus, &tasks, &used) != 5) {
			rc = -1;
			continue;
		}
		long idx = conf_node_find(cd->conf, name);
		if (idx < 0) {
			rc = -1;
			continue;
		}
		a->nodes[a->nnodes] = (uint32_t)idx;
		a->cpus[a->nnodes] = cpus;
		a->mem[a->nnodes] = mem;
		a->gpus[a->nnodes] = gpus;
		a->tasks[a->nnodes] = tasks;
		if (tok[used] == ':')
			alloc_decode_cores(a, n, a->nnodes, tok + used + 1);
		a->nnodes++;
	}
	free(dup);
	return rc;
}

static void bind_job(ctld_t *cd, sqlite3_stmt *st, const job_t *j, char **alloc_txt)
{
	sqlite3_bind_int64(st, 1, j->job_id);
	sqlite3_bind_int64(st, 2, j->state);
	sqlite3_bind_int64(st, 3, j->reason);
	sqlite3_bind_text(st, 4, j->reason_detail, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, j->user_id);
	sqlite3_bind_int64(st, 6, j->group_id);
	sqlite3_bind_text(st, 7, cd->parts[j->part].cf->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, j->priority);
	sqlite3_bind_int64(st, 9, j->hold);
	sqlite3_bind_int64(st, 10, j->time_limit);
	sqlite3_bind_int64(st, 11, j->submit_time);
	sqlite3_bind_int64(st, 12, j->eligible_time);
	sqlite3_bind_int64(st, 13, j->start_time);
	sqlite3_bind_int64(st, 14, j->end_time);
	sqlite3_bind_int64(st, 15, j->exit_code);
	sqlite3_bind_int64(st, 16, j->launch_seq);
	sqlite3_bind_int64(st, 17, j->next_step);
	sqlite3_bind_int64(st, 18, j->alloc_held);
	sqlite3_bind_text(st, 19, j->nodes, -1, SQLITE_STATIC);
	*alloc_txt = alloc_encode(cd, &j->alloc);
	sqlite3_bind_text(st, 20, *alloc_txt, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 21, j->restarts);
}

static void job_insert_blob(ctld_t *cd, const job_t *j, const char *blob, size_t len)
{
	char *a = NULL;
	bind_job(cd, cd->st_job_ins, j, &a);
	sqlite3_bind_blob(cd->st_job_ins, 22, blob, (int)len, SQLITE_STATIC);
	step_done(cd, cd->st_job_ins, "insert job");
	free(a);
	if (job_is_array(j))
		db_job_array_save(cd, j);
}

void db_job_array_save(ctld_t *cd, const job_t *j)
{
	sqlite3_stmt *st = cd->st_job_array;
	char *pending = j->array_pending ? job_array_pending_str(j) : NULL;
	sqlite3_bind_int64(st, 1, j->job_id);
	sqlite3_bind_int64(st, 2, j->array_job_id);
	sqlite3_bind_int64(st, 3, j->array_pending ? NO_VAL32 : j->array_task_id);
	sqlite3_bind_text(st, 4, pending, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, j->array_throttle);
	step_done(cd, st, "save job array");
	free(pending);
}

void db_job_insert(ctld_t *cd, job_t *j, const job_desc_t *full)
{
	db_begin(cd);
	strbuf_t sb = STRBUF_INIT;
	proto_encode(MSG_SUBMIT, full, &sb);
	pending_add(cd, j->job_id, 1, &sb);
	job_insert_blob(cd, j, sb.buf, sb.len);
	turn_job_changed(cd, j);
	strbuf_release(&sb);
}

static void job_rewrite_desc(ctld_t *cd, const job_t *j);

/* Rewrite the stored description's fields that `scontrol update job`
 * changes (the rest, script and environment included, as submitted), in
 * this turn's transaction. */
void db_job_update_desc(ctld_t *cd, const job_t *j)
{
	db_begin(cd);
	pending_add(cd, j->job_id, 0, NULL);
	job_rewrite_desc(cd, j);
}

static void job_rewrite_desc(ctld_t *cd, const job_t *j)
{
	job_desc_t full;
	memset(&full, 0, sizeof(full));
	if (db_job_fetch_desc(cd, j->job_id, &full)) {
		error("state db: job %u: no stored description to update", j->job_id);
		return;
	}
	free(full.name);
	full.name = xstrdup(j->desc->name);
	free(full.comment);
	full.comment = xstrdup(j->desc->comment);
	free(full.partition);
	full.partition = xstrdup(j->desc->partition);
	full.nice = j->desc->nice;
	full.time_limit = j->desc->time_limit;
	full.flags = j->desc->flags;    /* a partition move may add policy flags */
	strbuf_t sb = STRBUF_INIT;
	proto_encode(MSG_SUBMIT, &full, &sb);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(cd->db, "UPDATE jobs SET descr=?2 WHERE job_id=?1", -1, &st, NULL)
	    != SQLITE_OK) {
		error("state db: cannot prepare the description update: %s", sqlite3_errmsg(cd->db));
	} else {
		sqlite3_bind_int64(st, 1, j->job_id);
		sqlite3_bind_blob(st, 2, sb.buf, (int)sb.len, SQLITE_STATIC);
		int rc = sqlite3_step(st);
		if (rc != SQLITE_DONE) {
			if (!cd->store_failing && !cd->db_failed)
				error("state db: update job description: %s", sqlite3_errmsg(cd->db));
			if (!cd->db_failed)
				cd->db_errno = db_errno_of(cd, rc);
			cd->db_failed = 1;
		}
		sqlite3_finalize(st);
	}
	strbuf_release(&sb);
	proto_free(MSG_SUBMIT, &full);
}

int db_job_fetch_desc(ctld_t *cd, uint32_t job_id, job_desc_t *out)
{
	sqlite3_stmt *st = cd->st_job_desc;
	sqlite3_bind_int64(st, 1, job_id);
	int rc = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const void *b = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);
		char *err = NULL;
		if (proto_decode(MSG_SUBMIT, out, b ? b : "", (size_t)n, &err) == 0)
			rc = 0;
		else
			error("state db: job %u: bad stored description: %s", job_id, err ? err : "?");
		free(err);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

int db_commit(ctld_t *cd)
{
	if (!cd->ndirty_jobs && !cd->ndead_jobs && !cd->meta_dirty && !cd->in_txn && !cd->db_redo &&
	    !cd->acct.dirty && !acct_steps_pending(cd) && !resv_db_pending(cd)) {
		int any = 0;
		for (uint32_t i = 0; i < cd->nnodes && !any; i++)
			any = cd->nodes[i].dirty;
		for (uint32_t i = 0; i < cd->nparts && !any; i++)
			any = cd->parts[i].dirty;
		if (!any)
			return 0;
	}
	uint64_t t0 = ctld_stats_us();
	db_begin(cd);
	/* After a rollback: the inserts and description rewrites that the
	 * rolled back transaction held, from what was kept of them. */
	if (cd->db_redo) {
		for (size_t i = 0; i < cd->npending; i++) {
			struct db_pending *p = &cd->pending[i];
			job_t *j = job_find(cd, p->job_id);
			if (!j)
				continue;         /* purged since; its delete follows */
			if (p->insert)
				job_insert_blob(cd, j, p->blob, p->len);
			else
				job_rewrite_desc(cd, j);
		}
	}
	/* The accounting records of the jobs inserted in this transaction
	 * (a dirty one gets its record with the update below: one write a
	 * turn for a job submitted and started at once). */
	for (size_t i = 0; i < cd->npending; i++) {
		job_t *j = cd->pending[i].insert ? job_find(cd, cd->pending[i].job_id) : NULL;
		if (j && !j->dirty && ACCT_RECORDS)
			acct_job_record(cd, j);
	}
	/* Dirty marks are cleared only once the commit succeeded: a failed
	 * one leaves everything to write again. */
	for (size_t i = 0; i < cd->ndirty_jobs; i++) {
		job_t *j = cd->dirty_jobs[i];
		char *a = NULL;
		bind_job(cd, cd->st_job_upd, j, &a);
		step_done(cd, cd->st_job_upd, "update job");
		free(a);
		if (job_is_array(j))
			db_job_array_save(cd, j);
		job_nccl_db_save(cd, j);
		if (ACCT_RECORDS)
			acct_job_record(cd, j);
	}
	for (size_t i = 0; i < cd->ndead_jobs; i++) {
		sqlite3_bind_int64(cd->st_job_del, 1, cd->dead_jobs[i]);
		step_done(cd, cd->st_job_del, "delete job");
	}
	for (uint32_t i = 0; i < cd->nnodes; i++) {
		node_t *n = &cd->nodes[i];
		if (!n->dirty)
			continue;
		sqlite3_stmt *st = cd->st_node_save;
		sqlite3_bind_text(st, 1, n->cf->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, n->base);
		sqlite3_bind_int64(st, 3, n->flags & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL | NODE_FLAG_HEALTH_DRAIN));
		sqlite3_bind_text(st, 4, n->reason, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, n->reason_uid);
		sqlite3_bind_int64(st, 6, n->reason_time);
		step_done(cd, st, "save node");
		/* INSERT OR REPLACE rewrote the row: put the notes back */
		sqlite3_bind_text(cd->st_node_notes, 1, n->cf->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(cd->st_node_notes, 2, n->comment, -1, SQLITE_STATIC);
		sqlite3_bind_text(cd->st_node_notes, 3, n->extra, -1, SQLITE_STATIC);
		step_done(cd, cd->st_node_notes, "save node comment/extra");
		/* weight set by scontrol update (NULL: slurm.conf's, so a
		 * changed config still applies after a restart) */
		uint32_t w = cd->sched.nodes[i].weight;
		sqlite3_bind_text(cd->st_node_weight, 1, n->cf->name, -1, SQLITE_STATIC);
		if (w != n->cf->weight)
			sqlite3_bind_int64(cd->st_node_weight, 2, w);
		else
			sqlite3_bind_null(cd->st_node_weight, 2);
		step_done(cd, cd->st_node_weight, "save node weight");
	}
	for (uint32_t i = 0; i < cd->nparts; i++) {
		part_t *p = &cd->parts[i];
		if (!p->dirty)
			continue;
		sqlite3_stmt *st = cd->st_part_save;
		sqlite3_bind_text(st, 1, p->cf->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, p->state);
		sqlite3_bind_int64(st, 3, p->max_time);
		sqlite3_bind_int64(st, 4, p->default_time);
		sqlite3_bind_int64(st, 5, p->max_nodes);
		sqlite3_bind_int64(st, 6, p->min_nodes);
		step_done(cd, st, "save partition");
	}
	acct_commit(cd);
	if (ACCT_RECORDS)
		acct_steps_commit(cd);     /* step records (acct_steps.c) */
	resv_db_commit(cd);        /* reservations (resv.c) */
	if (cd->meta_dirty) {
		sqlite3_bind_text(cd->st_meta_set, 1, "next_job_id", -1, SQLITE_STATIC);
		sqlite3_bind_int64(cd->st_meta_set, 2, cd->next_job_id);
		step_done(cd, cd->st_meta_set, "save next job id");
	}
	if (ACCT_RECORDS)
		acct_usage_commit(cd);
	if (!cd->db_failed)
		step_done(cd, cd->st_commit, "commit");
	if (cd->db_failed) {
		/* SQLite may have rolled back already (SQLITE_FULL can);
		 * otherwise roll back here: the next call starts afresh. */
		if (!sqlite3_get_autocommit(cd->db))
			sqlite3_exec(cd->db, "ROLLBACK", NULL, NULL, NULL);
		cd->in_txn = 0;
		cd->db_failed = 0;
		cd->db_redo = 1;
		ctld_metrics_commit(cd, ctld_stats_us() - t0, -1);
		return -1;
	}
	ctld_metrics_commit(cd, ctld_stats_us() - t0, 0);
	cd->in_txn = 0;
	cd->db_redo = 0;
	for (size_t i = 0; i < cd->npending; i++) {
		job_t *j = cd->pending[i].insert ? job_find(cd, cd->pending[i].job_id) : NULL;
		if (j)
			acct_job_recorded(j);
	}
	pending_clear(cd);
	acct_steps_committed(cd);
	resv_db_committed(cd);
	for (size_t i = 0; i < cd->ndirty_jobs; i++) {
		acct_job_recorded(cd->dirty_jobs[i]);
		cd->dirty_jobs[i]->dirty = 0;
	}
	cd->ndirty_jobs = 0;
	cd->ndead_jobs = 0;
	for (uint32_t i = 0; i < cd->nnodes; i++)
		cd->nodes[i].dirty = 0;
	for (uint32_t i = 0; i < cd->nparts; i++)
		cd->parts[i].dirty = 0;
	cd->meta_dirty = 0;
	acct_usage_committed(cd);
	return 0;
}

/* ---- recovery ---- */

static void load_meta(ctld_t *cd)
{
	sqlite3_stmt *st = prep(cd, "SELECT value FROM meta WHERE key='next_job_id'");
	if (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t v = (uint32_t)sqlite3_column_int64(st, 0);
		if (v > cd->next_job_id)
			cd->next_job_id = v;
	}
	sqlite3_finalize(st);
}

static void load_nodes(ctld_t *cd)
{
	sqlite3_stmt *st = prep(cd, "SELECT name, base, flags, reason, reason_uid, reason_time FROM nodes");
	while (sqlite3_step(st) == SQLITE_ROW) {
		long idx = conf_node_find(cd->conf, (const char *)sqlite3_column_text(st, 0));
		if (idx < 0)
			continue;
		node_t *n = &cd->nodes[idx];
		uint32_t base = (uint32_t)sqlite3_column_int64(st, 1);
		/* DOWN (and FUTURE) survive a restart; up nodes re-register. */
		if (base == NODE_DOWN || base == NODE_FUTURE)
			n->base = base;
		n->flags |= (uint32_t)sqlite3_column_int64(st, 2) &
			    (NODE_FLAG_DRAIN | NODE_FLAG_FAIL | NODE_FLAG_INVALID_REG |
			     NODE_FLAG_POWERED_DOWN | NODE_FLAG_POWER_DOWN | NODE_FLAG_HEALTH_DRAIN);
		free(n->reason);
		n->reason = xstrdup((const char *)sqlite3_column_text(st, 3));
		n->reason_uid = (uint32_t)sqlite3_column_int64(st, 4);
		n->reason_time = sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
	st = prep(cd, "SELECT name, comment, extra FROM nodes");
	while (sqlite3_step(st) == SQLITE_ROW) {
		long idx = conf_node_find(cd->conf, (const char *)sqlite3_column_text(st, 0));
		if (idx < 0)
			continue;
		node_t *n = &cd->nodes[idx];
		free(n->comment);
		n->comment = xstrdup((const char *)sqlite3_column_text(st, 1));
		free(n->extra);
		n->extra = xstrdup((const char *)sqlite3_column_text(st, 2));
	}
	sqlite3_finalize(st);
}

/* Weights set by scontrol update (the scheduler mirror is built by now). */
static void load_node_weights(ctld_t *cd)
{
	sqlite3_stmt *st = prep(cd, "SELECT name, weight FROM nodes WHERE weight IS NOT NULL");
	while (sqlite3_step(st) == SQLITE_ROW) {
		long idx = conf_node_find(cd->conf, (const char *)sqlite3_column_text(st, 0));
		int64_t w = sqlite3_column_int64(st, 1);
		if (idx >= 0 && (uint32_t)idx < cd->sched.nnodes && w > 0 && w <= UINT32_MAX)
			cd->sched.nodes[idx].weight = (uint32_t)w;
	}
	sqlite3_finalize(st);
}

static void load_parts(ctld_t *cd)
{
	sqlite3_stmt *st = prep(cd, "SELECT name, state, max_time, default_time, max_nodes, min_nodes FROM parts");
	while (sqlite3_step(st) == SQLITE_ROW) {
		long idx = part_find(cd, (const char *)sqlite3_column_text(st, 0));
		if (idx < 0)
			continue;
		part_t *p = &cd->parts[idx];
		p->state = (uint32_t)sqlite3_column_int64(st, 1);
		p->max_time = (uint32_t)sqlite3_column_int64(st, 2);
		p->default_time = (uint32_t)sqlite3_column_int64(st, 3);
		p->max_nodes = (uint32_t)sqlite3_column_int64(st, 4);
		p->min_nodes = (uint32_t)sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
}

/* The flags a node row keeps (db_commit writes no others). */
#define NODE_SAVED_FLAGS (NODE_FLAG_DRAIN | NODE_FLAG_FAIL | NODE_FLAG_HEALTH_DRAIN)

int db_node_restore(ctld_t *cd, node_t *n)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(cd->db, "SELECT base, flags, reason, reason_uid, reason_time, comment,"
			       " extra, weight FROM nodes WHERE name=?1", -1, &st, NULL) != SQLITE_OK) {
		error("state db: cannot read node %s: %s", n->cf->name, sqlite3_errmsg(cd->db));
		return -1;
	}
	sqlite3_bind_text(st, 1, n->cf->name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		error("state db: cannot read node %s: %s", n->cf->name, sqlite3_errmsg(cd->db));
		sqlite3_finalize(st);
		return -1;
	}
	uint32_t flags = 0;
	uint32_t w = n->cf->weight;
	free(n->reason);
	free(n->comment);
	free(n->extra);
	n->reason = n->comment = n->extra = NULL;
	n->reason_uid = 0;
	n->reason_time = 0;
	if (rc == SQLITE_ROW) {
		/* The row is what the node was before the turn: every change
		 * of these fields marks it for the store, and the store
		 * worked until this turn. */
		n->base = (uint32_t)sqlite3_column_int64(st, 0);
		flags = (uint32_t)sqlite3_column_int64(st, 1) & NODE_SAVED_FLAGS;
		n->reason = xstrdup((const char *)sqlite3_column_text(st, 2));
		n->reason_uid = (uint32_t)sqlite3_column_int64(st, 3);
		n->reason_time = sqlite3_column_int64(st, 4);
		n->comment = xstrdup((const char *)sqlite3_column_text(st, 5));
		n->extra = xstrdup((const char *)sqlite3_column_text(st, 6));
		int64_t x = sqlite3_column_int64(st, 7);
		if (sqlite3_column_type(st, 7) != SQLITE_NULL && x > 0 && x <= UINT32_MAX)
			w = (uint32_t)x;
	} else {
		/* Never saved: as configured, not registered yet. */
		n->base = node_conf_base(n->cf, &flags);
	}
	sqlite3_finalize(st);
	n->flags = (n->flags & ~NODE_SAVED_FLAGS) | flags;
	if (n->idx < cd->sched.nnodes)
		cd->sched.nodes[n->idx].weight = w;
	return 0;
}

int db_part_restore(ctld_t *cd, part_t *p)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(cd->db, "SELECT state, max_time, default_time, max_nodes, min_nodes"
			       " FROM parts WHERE name=?1", -1, &st, NULL) != SQLITE_OK) {
		error("state db: cannot read partition %s: %s", p->cf->name, sqlite3_errmsg(cd->db));
		return -1;
	}
	sqlite3_bind_text(st, 1, p->cf->name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		p->state = (uint32_t)sqlite3_column_int64(st, 0);
		p->max_time = (uint32_t)sqlite3_column_int64(st, 1);
		p->default_time = (uint32_t)sqlite3_column_int64(st, 2);
		p->max_nodes = (uint32_t)sqlite3_column_int64(st, 3);
		p->min_nodes = (uint32_t)sqlite3_column_int64(st, 4);
	} else if (rc == SQLITE_DONE) {
		/* Never saved: as slurm.conf says (nodes_init) */
		p->state = (uint32_t)p->cf->state;
		p->max_time = p->cf->max_time;
		p->default_time = p->cf->default_time;
		p->max_nodes = p->cf->max_nodes;
		p->min_nodes = p->cf->min_nodes;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		error("state db: cannot read partition %s: %s", p->cf->name, sqlite3_errmsg(cd->db));
		return -1;
	}
	return 0;
}

#define JOB_SELECT "SELECT job_id, state, reason, reason_detail, user_id, group_id," \
	" partition, priority, hold, time_limit, submit_time, eligible_time," \
	" start_time, end_time, exit_code, launch_seq, next_step, alloc_held," \
	" nodes, alloc, descr, restarts FROM jobs"

/* One row of JOB_SELECT as a job record (not linked anywhere), or NULL
 * when its stored description does not decode (*bad set). */
static job_t *job_row_decode(ctld_t *cd, sqlite3_stmt *st, int *bad)
{
	*bad = 0;
	job_t *j = xcalloc(1, sizeof(*j));
	j->job_id = (uint32_t)sqlite3_column_int64(st, 0);
	j->state = (uint32_t)sqlite3_column_int64(st, 1);
	j->reason = (uint32_t)sqlite3_column_int64(st, 2);
	j->reason_detail = xstrdup((const char *)sqlite3_column_text(st, 3));
	j->user_id = (uint32_t)sqlite3_column_int64(st, 4);
	j->group_id = (uint32_t)sqlite3_column_int64(st, 5);
	const char *pname = (const char *)sqlite3_column_text(st, 6);
	long pi = pname ? part_find(cd, pname) : -1;
	j->priority = (uint32_t)sqlite3_column_int64(st, 7);
	j->hold = (uint32_t)sqlite3_column_int64(st, 8);
	j->time_limit = (uint32_t)sqlite3_column_int64(st, 9);
	j->submit_time = sqlite3_column_int64(st, 10);
	j->eligible_time = sqlite3_column_int64(st, 11);
	j->start_time = sqlite3_column_int64(st, 12);
	j->end_time = sqlite3_column_int64(st, 13);
	j->exit_code = (uint32_t)sqlite3_column_int64(st, 14);
	j->launch_seq = (uint32_t)sqlite3_column_int64(st, 15);
	j->next_step = (uint32_t)sqlite3_column_int64(st, 16);
	j->alloc_held = (uint8_t)sqlite3_column_int64(st, 17);
	j->nodes = xstrdup((const char *)sqlite3_column_text(st, 18));
	int alloc_bad = alloc_decode(cd, (const char *)sqlite3_column_text(st, 19), &j->alloc);
	j->restarts = (uint32_t)sqlite3_column_int64(st, 21);
	j->desc = xcalloc(1, sizeof(*j->desc));
	const void *b = sqlite3_column_blob(st, 20);
	char *err = NULL;
	if (proto_decode(MSG_SUBMIT, j->desc, b ? b : "", (size_t)sqlite3_column_bytes(st, 20), &err)) {
		error("recovery: job %u: bad stored description (%s); dropped", j->job_id,
		      err ? err : "?");
		free(err);
		free(j->desc);
		j->desc = NULL;
		job_free(j);
		*bad = 1;
		return NULL;
	}
	/* Script and environment stay in the DB. */
	xfree(j->desc->script);
	strv_free(&j->desc->env);
	/* A requeued job waits until its eligible time (job_requeue):
	 * the stored description has the begin time as submitted. */
	if ((j->state & JOB_STATE_BASE) == JOB_PENDING && j->eligible_time > j->desc->begin_time)
		j->desc->begin_time = j->eligible_time;
	if (pi < 0) {
		error("recovery: job %u: partition '%s' no longer exists", j->job_id,
		      pname ? pname : "");
		pi = 0;
		if (!JOB_IS_FINISHED(j->state)) {
			j->state = JOB_FAILED;
			j->reason = WAIT_PART_CONFIG;
			j->alloc_held = 0;
			if (!j->end_time)
				j->end_time = ctld_now();
			job_dirty(cd, j);
		}
	}
	j->part = (uint32_t)pi;
	if (alloc_bad && j->alloc_held) {
		error("recovery: job %u: allocated node no longer configured", j->job_id);
		if ((j->state & JOB_STATE_BASE) == JOB_RUNNING) {
			j->state = JOB_NODE_FAIL;
			j->reason = FAIL_DOWN_NODE;
			j->end_time = ctld_now();
		}
		j->alloc_held = 0;
		job_dirty(cd, j);
	}
	return j;
}

/* The array columns of one recovered job (job_array.c). */
static void job_array_row(job_t *j, sqlite3_stmt *st)
{
	j->array_job_id = (uint32_t)sqlite3_column_int64(st, 1);
	j->array_task_id = (uint32_t)sqlite3_column_int64(st, 2);
	const char *pending = (const char *)sqlite3_column_text(st, 3);
	uint32_t thr = (uint32_t)sqlite3_column_int64(st, 4);
	if (job_array_restore(j, j->array_task_id == NO_VAL32 ? pending : NULL, thr))
		error("recovery: job %u: bad array task set '%s'", j->job_id, pending);
}

int db_job_read(ctld_t *cd, uint32_t job_id, job_t **out)
{
	sqlite3_stmt *st = NULL;
	job_t *j = NULL;
	int bad = 0;
	*out = NULL;
	if (sqlite3_prepare_v2(cd->db, JOB_SELECT " WHERE job_id=?1", -1, &st, NULL) != SQLITE_OK) {
		error("state db: cannot read job %u: %s", job_id, sqlite3_errmsg(cd->db));
		return -1;
	}
	sqlite3_bind_int64(st, 1, job_id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		j = job_row_decode(cd, st, &bad);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 1;
	if (!j) {
		if (!bad)
			error("state db: cannot read job %u: %s", job_id, sqlite3_errmsg(cd->db));
		return -1;
	}
	if (sqlite3_prepare_v2(cd->db, "SELECT job_id, array_job_id, array_task_id, array_pending,"
			       " array_throttle FROM jobs WHERE job_id=?1 AND array_job_id != 0",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, job_id);
		if (sqlite3_step(st) == SQLITE_ROW)
			job_array_row(j, st);
	}
	sqlite3_finalize(st);
	*out = j;
	return 0;
}

/* The array columns of the recovered jobs (job_array.c). */
static void load_job_arrays(ctld_t *cd)
{
	sqlite3_stmt *st = prep(cd, "SELECT job_id, array_job_id, array_task_id, array_pending,"
				" array_throttle FROM jobs WHERE array_job_id != 0");
	while (sqlite3_step(st) == SQLITE_ROW) {
		job_t *j = job_find(cd, (uint32_t)sqlite3_column_int64(st, 0));
		if (j)
			job_array_row(j, st);
	}
	sqlite3_finalize(st);
}

static void load_jobs(ctld_t *cd)
{
	sqlite3_stmt *st = prep(cd, JOB_SELECT " ORDER BY job_id");
	size_t n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int bad;
		job_t *j = job_row_decode(cd, st, &bad);
		if (!j) {
			cd->dead_jobs = xgrow(cd->dead_jobs, sizeof(uint32_t), cd->ndead_jobs + 1, &cd->adead_jobs);
			cd->dead_jobs[cd->ndead_jobs++] = (uint32_t)sqlite3_column_int64(st, 0);
			continue;
		}
		job_add_recovered(cd, j);
		if (j->job_id >= cd->next_job_id)
			cd->next_job_id = j->job_id + 1;
		n++;
	}
	sqlite3_finalize(st);
	load_job_arrays(cd);
	job_nccl_db_load(cd);
	info("recovered %zu jobs, next job id %u", n, cd->next_job_id);
}

int db_load(ctld_t *cd)
{
	load_meta(cd);
	load_nodes(cd);
	load_node_weights(cd);
	load_parts(cd);
	load_jobs(cd);
	step_info_recover(cd);
	resv_load(cd);
	return 0;
}
