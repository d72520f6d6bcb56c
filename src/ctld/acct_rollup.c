/*
 * acct_rollup.c: the hourly, daily and monthly usage rollups sreport reads
 * (as slurmdbd keeps them), and the node event history they need for down
 * time.
 *
 * Incremental, in the loop, with no heavy SQL: acct_usage.c walks time
 * forward in steps that never cross an hour boundary (every
 * PriorityCalcPeriod, at each job start/end and node event, and at each
 * hour's end) and reports each step here: the allocated TRES-seconds of
 * every running job, the eligible-but-waiting TRES-seconds of pending jobs
 * (Planned), the TRES-seconds of nodes down or drained (Down), and the
 * cluster's TRES-seconds (Reported). The sums of the open hour are added
 * to its rows in the same transaction as the usage watermark, so a crash
 * neither loses nor doubles a second. When an hour ends it is closed: its
 * PLND Down is the time of the maintenance reservations inside it and the
 * time of the other reservations is Allocated, used or not (their
 * acct_resv records, acct_rollup_resv), Idle = Reported - Allocated -
 * Down - PLND Down - Planned, Planned cut to what was idle;
 * when a day ends its hours are summed into a day row, when a month ends
 * its days into a month row: a few rows per association, once.
 *
 * Tables (ours):
 *   acct_rollup_cluster(period 0 hour/1 day/2 month, time, tres, alloc,
 *     down, pdown, idle, planned, reported)   seconds x TRES count
 *   acct_rollup_assoc(period, time, assoc_id, tres, account, user,
 *     lineage "root/a/b" (the account path), alloc)
 *   node_event(node, start, end (0: open), state, reason, reason_uid,
 *     cpus, tres)   a node down, drained or failing, with why and who
 *   meta rollup_hour: the start of the first hour not yet closed
 * tres is the LIM_TRES_* index (cpu, mem, node, gres/gpu, billing).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctld.h"
#include "log.h"
#include "states.h"
#include "strbuf.h"
#include "xalloc.h"

enum { RU_ALLOC = 0, RU_DOWN, RU_PDOWN, RU_PLANNED, RU_REPORTED, RU_N };

typedef struct as_delta {
	uint32_t id;
	char *account, *user, *lineage;
	double alloc[LIM_TRES_N];
} as_delta_t;

/* What one hour got since the last successful commit. */
typedef struct ru_hour {
	int64_t hs;                    /* its start */
	int closed;                    /* it ended: close it at the commit */
	double cl[LIM_TRES_N][RU_N];
	as_delta_t *as;                /* by association */
	uint32_t nas;
	size_t aas;
} ru_hour_t;

/* A node event change not yet committed. */
typedef struct ev_op {
	uint32_t node;
	int open;
	int64_t start, end;
} ev_op_t;

struct acct_rollup {
	int loaded;
	int64_t hour;                  /* start of the open hour */
	/* not yet committed: hours[nhours - 1] is the open hour, those
	 * before it ended since (kept until a commit succeeds, so that a
	 * rolled back transaction loses nothing) */
	ru_hour_t *hours;
	uint32_t nhours;
	size_t ahours;
	uint32_t *slot;                /* model index -> open hour's as index + 1 */
	uint32_t nslot;
	uint64_t gen;
	ev_op_t *evops;
	uint32_t nevops;
	size_t aevops;
	int64_t *ev_start;             /* per node: its open event's start, 0: none */
	uint32_t nev;
	int ev_check_all;              /* after a restart: compare every node */
	sqlite3_stmt *st_cl_add, *st_as_add, *st_ev_open, *st_ev_close, *st_meta;
};

/* ---- time ---- */

/* Test-only: SLUICE_ROLLUP_HOUR_S=N makes an "hour" N seconds (aligned
 * to the epoch), so that integration tests see hours end (t/integration/
 * 048x). Not for production: day and month rows need real hours. */
static int64_t test_hour(void)
{
	static int64_t len = -1;
	if (len < 0) {
		const char *v = getenv("SLUICE_ROLLUP_HOUR_S");
		len = v && atoi(v) > 0 ? atoi(v) : 0;
	}
	return len;
}

int rollup_hour_is_test(void)
{
	return test_hour() != 0;
}

int64_t rollup_hour_next(int64_t hs)
{
	int64_t t = test_hour();
	return t ? hs + t : rollup_hour_floor(hs + 3600 + 60);
}

int64_t rollup_hour_floor(int64_t t)
{
	if (test_hour())
		return t - t % test_hour();
	time_t tt = (time_t)t;
	struct tm tm;
	localtime_r(&tt, &tm);
	tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

/* Is t local midnight (a day boundary), the first of a month? */
static int at_midnight(int64_t t, int *first_of_month)
{
	time_t tt = (time_t)t;
	struct tm tm;
	localtime_r(&tt, &tm);
	if (first_of_month)
		*first_of_month = tm.tm_mday == 1;
	return !tm.tm_hour && !tm.tm_min && !tm.tm_sec;
}

static int64_t add_days(int64_t t, int days, int months)
{
	time_t tt = (time_t)t;
	struct tm tm;
	localtime_r(&tt, &tm);
	tm.tm_mday += days;
	tm.tm_mon += months;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

/* ---- tables ---- */

/* Migration step: the rollup and node event tables (state_db.c). */
int acct_rollup_migrate(sqlite3 *db, char **err)
{
	static const char ddl[] =
		"CREATE TABLE IF NOT EXISTS acct_rollup_cluster(period INTEGER NOT NULL,"
		" time INTEGER NOT NULL, tres INTEGER NOT NULL, alloc REAL DEFAULT 0,"
		" down REAL DEFAULT 0, pdown REAL DEFAULT 0, idle REAL DEFAULT 0,"
		" planned REAL DEFAULT 0, reported REAL DEFAULT 0, PRIMARY KEY(period, time, tres));"
		"CREATE TABLE IF NOT EXISTS acct_rollup_assoc(period INTEGER NOT NULL,"
		" time INTEGER NOT NULL, assoc_id INTEGER NOT NULL, tres INTEGER NOT NULL,"
		" account TEXT, user TEXT, lineage TEXT, alloc REAL DEFAULT 0,"
		" PRIMARY KEY(period, time, assoc_id, tres));"
		"CREATE TABLE IF NOT EXISTS node_event(node TEXT NOT NULL, start INTEGER NOT NULL,"
		" end INTEGER NOT NULL DEFAULT 0, state INTEGER, reason TEXT, reason_uid INTEGER,"
		" cpus INTEGER, tres TEXT, PRIMARY KEY(node, start));"
		"CREATE INDEX IF NOT EXISTS node_event_end ON node_event(end);";
	return db_exec(db, ddl, err);
}

int acct_rollup_db_init(ctld_t *cd, char **err)
{
	struct acct_rollup *r = cd->rollup ? cd->rollup : xcalloc(1, sizeof(*r));
	cd->rollup = r;
	const struct { sqlite3_stmt **st; const char *sql; } prep[] = {
		{ &r->st_cl_add, "INSERT INTO acct_rollup_cluster(period, time, tres, alloc, down, pdown,"
		  " planned, reported) VALUES(0, ?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO UPDATE SET"
		  " alloc = alloc + excluded.alloc, down = down + excluded.down,"
		  " pdown = pdown + excluded.pdown, planned = planned + excluded.planned,"
		  " reported = reported + excluded.reported" },
		{ &r->st_as_add, "INSERT INTO acct_rollup_assoc(period, time, assoc_id, tres, account, user,"
		  " lineage, alloc) VALUES(0, ?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO UPDATE SET"
		  " alloc = alloc + excluded.alloc, account = excluded.account, user = excluded.user,"
		  " lineage = excluded.lineage" },
		{ &r->st_ev_open, "INSERT OR REPLACE INTO node_event(node, start, end, state, reason,"
		  " reason_uid, cpus, tres) VALUES(?1, ?2, 0, ?3, ?4, ?5, ?6, ?7)" },
		{ &r->st_ev_close, "UPDATE node_event SET end = ?3 WHERE node = ?1 AND start = ?2" },
		{ &r->st_meta, "INSERT OR REPLACE INTO meta(key, value) VALUES('rollup_hour', ?1)" },
	};
	for (size_t i = 0; i < sizeof(prep) / sizeof(prep[0]); i++)
		if (sqlite3_prepare_v2(cd->db, prep[i].sql, -1, prep[i].st, NULL) != SQLITE_OK) {
			*err = xasprintf("state db: rollup: %s", sqlite3_errmsg(cd->db));
			return -1;
		}
	return 0;
}

static void hour_free(ru_hour_t *h)
{
	for (uint32_t i = 0; i < h->nas; i++) {
		free(h->as[i].account);
		free(h->as[i].user);
		free(h->as[i].lineage);
	}
	free(h->as);
	memset(h, 0, sizeof(*h));
}

static ru_hour_t *open_hour(struct acct_rollup *r)
{
	if (!r->nhours || r->hours[r->nhours - 1].closed) {
		r->hours = xgrow(r->hours, sizeof(*r->hours), r->nhours + 1, &r->ahours);
		ru_hour_t *h = &r->hours[r->nhours++];
		memset(h, 0, sizeof(*h));
		h->hs = r->hour;
		if (r->slot)
			memset(r->slot, 0, r->nslot * sizeof(uint32_t));
	}
	return &r->hours[r->nhours - 1];
}

/* After a successful commit: everything was written. */
static void deltas_clear(struct acct_rollup *r)
{
	for (uint32_t i = 0; i < r->nhours; i++)
		hour_free(&r->hours[i]);
	r->nhours = 0;
	if (r->slot)
		memset(r->slot, 0, r->nslot * sizeof(uint32_t));
	r->nevops = 0;
}

void acct_rollup_db_close(ctld_t *cd)
{
	struct acct_rollup *r = cd->rollup;
	if (!r)
		return;
	sqlite3_finalize(r->st_cl_add);
	sqlite3_finalize(r->st_as_add);
	sqlite3_finalize(r->st_ev_open);
	sqlite3_finalize(r->st_ev_close);
	sqlite3_finalize(r->st_meta);
	deltas_clear(r);
	free(r->hours);
	free(r->slot);
	free(r->evops);
	free(r->ev_start);
	free(r);
	cd->rollup = NULL;
}

/* Node events still open in the DB (a node down across a restart). */
static void events_load(ctld_t *cd, struct acct_rollup *r)
{
	r->nev = cd->nnodes;
	r->ev_start = xcalloc(r->nev ? r->nev : 1, sizeof(int64_t));
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(cd->db, "SELECT node, start FROM node_event WHERE end = 0",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		for (uint32_t i = 0; name && i < cd->nnodes; i++)
			if (!strcmp(cd->nodes[i].cf->name, name)) {
				r->ev_start[i] = sqlite3_column_int64(st, 1);
				break;
			}
	}
	sqlite3_finalize(st);
	r->ev_check_all = 1;
}

static struct acct_rollup *rollup_get(ctld_t *cd, int64_t last)
{
	struct acct_rollup *r = cd->rollup;
	if (!r)
		return NULL;
	if (!r->loaded) {
		r->loaded = 1;
		r->hour = rollup_hour_floor(last);
		events_load(cd, r);
	}
	return r;
}

void acct_rollup_load(ctld_t *cd, int64_t last)
{
	rollup_get(cd, last);
}

/* ---- what a step adds ---- */

static int node_is_down(const node_t *n)
{
	return n->base == NODE_DOWN || (n->flags & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL));
}

static void node_tres(ctld_t *cd, uint32_t i, double t[LIM_TRES_N])
{
	const sched_node_t *s = i < cd->sched.nnodes ? &cd->sched.nodes[i] : NULL;
	t[LIM_TRES_CPU] = s ? s->cpus : cd->nodes[i].cf->cpus;
	t[LIM_TRES_MEM] = s ? (double)s->mem : (double)cd->nodes[i].cf->real_memory;
	t[LIM_TRES_NODE] = 1;
	t[LIM_TRES_GPU] = s ? s->ngpus : 0;
	t[LIM_TRES_BILLING] = t[LIM_TRES_CPU];
}

/* The account path of the association at model index i ("root/a/b"). */
static char *lineage_of(ctld_t *cd, uint32_t i)
{
	const char *names[64];
	uint32_t n = 0;
	for (uint32_t k = i, hops = 0; k != UINT32_MAX && hops < 64; hops++) {
		const acct_assoc_t *a = &cd->acct.assocs[k];
		if (!a->user && n < 64)
			names[n++] = a->account ? a->account : "";
		if (k == 0)
			break;
		uint32_t p = acct_usage_assoc_index(cd, a->parent_id);
		k = p == k ? 0 : p == UINT32_MAX ? 0 : p;
	}
	strbuf_t sb = STRBUF_INIT;
	while (n--)
		strbuf_addf(&sb, "%s%s", sb.len ? "/" : "", names[n]);
	return strbuf_detach(&sb);
}

static as_delta_t *delta_of(ctld_t *cd, struct acct_rollup *r, uint32_t assoc_id)
{
	uint32_t i = acct_usage_assoc_index(cd, assoc_id);
	if (i == UINT32_MAX)
		return NULL;
	ru_hour_t *h = open_hour(r);
	if (r->gen != cd->acct.gen || r->nslot != cd->acct.nassocs) {
		/* the model moved: index the pending deltas again */
		free(r->slot);
		r->nslot = cd->acct.nassocs;
		r->slot = xcalloc(r->nslot ? r->nslot : 1, sizeof(uint32_t));
		for (uint32_t k = 0; k < h->nas; k++) {
			uint32_t m = acct_usage_assoc_index(cd, h->as[k].id);
			if (m != UINT32_MAX)
				r->slot[m] = k + 1;
		}
		r->gen = cd->acct.gen;
	}
	if (r->slot[i])
		return &h->as[r->slot[i] - 1];
	const acct_assoc_t *a = &cd->acct.assocs[i];
	h->as = xgrow(h->as, sizeof(*h->as), h->nas + 1, &h->aas);
	as_delta_t *d = &h->as[h->nas++];
	memset(d, 0, sizeof(*d));
	d->id = a->id;
	d->account = xstrdup(a->account ? a->account : "");
	d->user = a->user ? xstrdup(a->user) : NULL;
	d->lineage = lineage_of(cd, i);
	r->slot[i] = h->nas;
	return d;
}

void acct_rollup_alloc(ctld_t *cd, int64_t last, const job_t *j, double secs,
		       const double tres[LIM_TRES_N])
{
	struct acct_rollup *r = rollup_get(cd, last);
	if (!r || secs <= 0)
		return;
	ru_hour_t *h = open_hour(r);
	for (int k = 0; k < LIM_TRES_N; k++)
		h->cl[k][RU_ALLOC] += tres[k] * secs;
	as_delta_t *d = j->assoc_id ? delta_of(cd, r, j->assoc_id) : NULL;
	if (d)
		for (int k = 0; k < LIM_TRES_N; k++)
			d->alloc[k] += tres[k] * secs;
}

void acct_rollup_planned(ctld_t *cd, int64_t last, const job_t *j, int64_t from, int64_t to)
{
	struct acct_rollup *r = rollup_get(cd, last);
	if (!r || to <= from)
		return;
	const job_desc_t *d = j->desc;
	double nodes = d && d->min_nodes ? d->min_nodes : 1;
	double cpus = d ? (double)(d->ntasks ? d->ntasks : 1) * (d->cpus_per_task ? d->cpus_per_task : 1) : 1;
	if (cpus < nodes)
		cpus = nodes;
	double gpus = j->gpus_per_job ? j->gpus_per_job : (double)j->gpus_per_node * nodes;
	double mem = d ? (d->mem_per_node ? (double)d->mem_per_node * nodes : (double)d->mem_per_cpu * cpus) : 0;
	double secs = (double)(to - from);
	ru_hour_t *h = open_hour(r);
	h->cl[LIM_TRES_CPU][RU_PLANNED] += cpus * secs;
	h->cl[LIM_TRES_MEM][RU_PLANNED] += mem * secs;
	h->cl[LIM_TRES_NODE][RU_PLANNED] += nodes * secs;
	h->cl[LIM_TRES_GPU][RU_PLANNED] += gpus * secs;
	h->cl[LIM_TRES_BILLING][RU_PLANNED] += cpus * secs;
}

void acct_rollup_span(ctld_t *cd, int64_t from, int64_t to)
{
	struct acct_rollup *r = rollup_get(cd, from);
	if (!r || to <= from)
		return;
	ru_hour_t *h = open_hour(r);
	for (uint32_t i = 0; i < cd->nnodes; i++) {
		const node_t *n = &cd->nodes[i];
		if (n->base == NODE_FUTURE)
			continue;
		double t[LIM_TRES_N];
		node_tres(cd, i, t);
		double secs = (double)(to - from);
		int64_t ev = i < r->nev ? r->ev_start[i] : 0;
		double down = ev ? (double)(to - (ev > from ? ev : from)) : 0;
		if (down < 0)
			down = 0;
		for (int k = 0; k < LIM_TRES_N; k++) {
			h->cl[k][RU_REPORTED] += t[k] * secs;
			h->cl[k][RU_DOWN] += t[k] * down;
		}
	}
}

void acct_rollup_hour_end(ctld_t *cd, int64_t hour_start)
{
	struct acct_rollup *r = rollup_get(cd, hour_start);
	if (!r)
		return;
	ru_hour_t *h = open_hour(r);
	h->hs = hour_start;
	h->closed = 1;
	r->hour = rollup_hour_next(hour_start);
	db_begin(cd);
}

/* ---- node events ---- */

/* Open or close node i's event if its state moved (called at commit for
 * each changed node). Closing first charges the down time up to now. */
static void node_event(ctld_t *cd, struct acct_rollup *r, uint32_t i, int64_t now)
{
	const node_t *n = &cd->nodes[i];
	int down = node_is_down(n) && n->base != NODE_FUTURE;
	if (down == (r->ev_start[i] != 0))
		return;
	/* the step up to now counts the event as it was */
	acct_usage_advance(cd, now);
	r->evops = xgrow(r->evops, sizeof(*r->evops), r->nevops + 1, &r->aevops);
	r->evops[r->nevops++] = (ev_op_t){ i, down, down ? now : r->ev_start[i], now };
	r->ev_start[i] = down ? now : 0;
}

static void event_write(ctld_t *cd, struct acct_rollup *r, const ev_op_t *op)
{
	const node_t *n = &cd->nodes[op->node];
	const char *name = n->cf->name;
	if (!op->open) {
		sqlite3_bind_text(r->st_ev_close, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(r->st_ev_close, 2, op->start);
		sqlite3_bind_int64(r->st_ev_close, 3, op->end);
		db_exec_step(cd, r->st_ev_close, "close node event");
		return;
	}
	int64_t start = op->start;
	double t[LIM_TRES_N];
	node_tres(cd, op->node, t);
	char *tres = xasprintf("1=%.0f,2=%.0f,4=1%s", t[LIM_TRES_CPU], t[LIM_TRES_MEM], "");
	sqlite3_stmt *st = r->st_ev_open;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, start);
	sqlite3_bind_int64(st, 3, n->base | n->flags);
	sqlite3_bind_text(st, 4, n->reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, n->reason_uid);
	sqlite3_bind_int64(st, 6, (int64_t)t[LIM_TRES_CPU]);
	sqlite3_bind_text(st, 7, tres, -1, SQLITE_STATIC);
	db_exec_step(cd, st, "open node event");
	free(tres);
}

void acct_rollup_close_math(double *alloc, double *down, double pdown, double *planned,
			    double reported, double *idle)
{
	/* a job on a node counted down: the node's time is the job's */
	if (*alloc + *down + pdown > reported)
		*down = reported - *alloc - pdown > 0 ? reported - *alloc - pdown : 0;
	if (*alloc + pdown > reported)
		*alloc = reported - pdown > 0 ? reported - pdown : 0;
	*idle = reported - *alloc - *down - pdown;
	if (*idle < 0)
		*idle = 0;
	if (*planned > *idle)
		*planned = *idle;
	*idle -= *planned;
}

/* Whether the comma-separated flags hold flag. */
static int has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *p = flags; p && *p;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		if (len == n && !strncmp(p, flag, n))
			return 1;
		p = c ? c + 1 : NULL;
	}
	return 0;
}

/* The LIM_TRES_* index of a TRES name; -1 for one not rolled up. */
static int tres_index(const char *name, size_t len)
{
	static const char *const names[LIM_TRES_N] = {
		[LIM_TRES_CPU] = "cpu", [LIM_TRES_MEM] = "mem", [LIM_TRES_NODE] = "node",
		[LIM_TRES_GPU] = "gres/gpu", [LIM_TRES_BILLING] = "billing",
	};
	for (int k = 0; k < LIM_TRES_N; k++)
		if (names[k] && strlen(names[k]) == len && !strncmp(names[k], name, len))
			return k;
	return -1;
}

/* The counts of a TRES string ("cpu=4,mem=4G,node=2,gres/gpu=8") by
 * LIM_TRES_* index, memory in MB; TRES not rolled up are left out. */
static void tres_counts(const char *p, double t[LIM_TRES_N])
{
	for (int k = 0; k < LIM_TRES_N; k++)
		t[k] = 0;
	while (p && *p) {
		const char *c = strchr(p, ','), *eq = strchr(p, '=');
		if (eq && (!c || eq < c)) {
			int k = tres_index(p, (size_t)(eq - p));
			char *end;
			double v = strtod(eq + 1, &end);
			if (k == LIM_TRES_MEM)
				v *= *end == 'G' ? 1024 : *end == 'T' ? 1024.0 * 1024 : 1;
			if (k >= 0)
				t[k] = v;
		}
		p = c ? c + 1 : NULL;
	}
}

/* The TRES-seconds inside [a, b) of the jobs that ran in reservation
 * name since from (its first start), by acct_job_resv: only its jobs. */
static void resv_jobs(sqlite3 *db, const char *name, int64_t from, int64_t a, int64_t b,
		      double in[LIM_TRES_N])
{
	for (int k = 0; k < LIM_TRES_N; k++)
		in[k] = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT alloc_tres, start, end FROM acct_job WHERE reservation = ?1"
			       " AND start >= ?2 AND start < ?3 AND start > 0", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, from);
	sqlite3_bind_int64(st, 3, b);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t js = sqlite3_column_int64(st, 1), je = sqlite3_column_int64(st, 2);
		int64_t x = js > a ? js : a, y = je && je < b ? je : b;
		if (y <= x)
			continue;
		double t[LIM_TRES_N];
		tres_counts((const char *)sqlite3_column_text(st, 0), t);
		for (int k = 0; k < LIM_TRES_N; k++)
			in[k] += t[k] * (double)(y - x);
	}
	sqlite3_finalize(st);
}

/* The reservations' share of the hour [hs, he), as Slurm's rollup counts
 * it, from their records (acct_resv, by its time_end index: the rows
 * ending after the hour began, a few): a MAINT one's TRES x its time in
 * the hour is planned down, and the jobs in it are not Allocated; any
 * other one's TRES x its time is Allocated whether jobs use it or not
 * (adj: the reserved time less that of its jobs, which the steps already
 * counted). IGNORE_JOBS ones count nothing, their jobs as any job. Only
 * the TRES a reservation holds (Slurm's hold cpu). */
void acct_rollup_resv(sqlite3 *db, int64_t hs, int64_t he, double pdown[LIM_TRES_N],
		      double adj[LIM_TRES_N])
{
	for (int k = 0; k < LIM_TRES_N; k++)
		pdown[k] = adj[k] = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT time_start, time_end, tres, flags, name,"
			       " (SELECT MIN(time_start) FROM acct_resv f WHERE f.resv_id = r.resv_id)"
			       " FROM acct_resv r WHERE time_end > ?1 AND time_start < ?2 AND deleted = 0",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, hs);
	sqlite3_bind_int64(st, 2, he);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *flags = (const char *)sqlite3_column_text(st, 3);
		if (has_flag(flags, "IGNORE_JOBS"))
			continue;
		int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
		if (a < hs)
			a = hs;
		if (b > he)
			b = he;
		if (b <= a)
			continue;
		double held[LIM_TRES_N], in[LIM_TRES_N];
		tres_counts((const char *)sqlite3_column_text(st, 2), held);
		resv_jobs(db, (const char *)sqlite3_column_text(st, 4), sqlite3_column_int64(st, 5), a, b,
			  in);
		int maint = has_flag(flags, "MAINT");
		for (int k = 0; k < LIM_TRES_N; k++) {
			if (!held[k])
				continue;
			double reserved = held[k] * (double)(b - a);
			if (maint) {
				pdown[k] += reserved;
				adj[k] -= in[k];
			} else {
				adj[k] += reserved > in[k] ? reserved - in[k] : 0;
			}
		}
	}
	sqlite3_finalize(st);
}

/* The close of one hour: the reservations' time (planned down, or
 * allocated), Idle, and Planned cut to what was idle. */
static void close_hour(ctld_t *cd, int64_t hs)
{
	sqlite3_stmt *sel, *upd;
	if (sqlite3_prepare_v2(cd->db, "SELECT tres, alloc, down, pdown, planned, reported FROM"
			       " acct_rollup_cluster WHERE period = 0 AND time = ?1", -1, &sel, NULL))
		return;
	if (sqlite3_prepare_v2(cd->db, "UPDATE acct_rollup_cluster SET alloc = ?3, down = ?4,"
			       " planned = ?5, idle = ?6, pdown = ?7 WHERE period = 0 AND time = ?1"
			       " AND tres = ?2", -1, &upd, NULL)) {
		sqlite3_finalize(sel);
		return;
	}
	sqlite3_bind_int64(sel, 1, hs);
	double rows[LIM_TRES_N][6];
	int have[LIM_TRES_N] = { 0 };
	while (sqlite3_step(sel) == SQLITE_ROW) {
		int k = sqlite3_column_int(sel, 0);
		if (k < 0 || k >= LIM_TRES_N)
			continue;
		for (int c = 1; c < 6; c++)
			rows[k][c] = sqlite3_column_double(sel, c);
		have[k] = 1;
	}
	sqlite3_finalize(sel);
	double maint[LIM_TRES_N], adj[LIM_TRES_N];
	acct_rollup_resv(cd->db, hs, rollup_hour_next(hs), maint, adj);
	for (int k = 0; k < LIM_TRES_N; k++) {
		if (!have[k])
			continue;
		double alloc = rows[k][1] + adj[k], down = rows[k][2], pdown = rows[k][3] + maint[k];
		if (alloc < 0)
			alloc = 0;
		double planned = rows[k][4], rep = rows[k][5], idle;
		if (pdown > rep)
			pdown = rep;
		acct_rollup_close_math(&alloc, &down, pdown, &planned, rep, &idle);
		sqlite3_bind_int64(upd, 1, hs);
		sqlite3_bind_int(upd, 2, k);
		sqlite3_bind_double(upd, 3, alloc);
		sqlite3_bind_double(upd, 4, down);
		sqlite3_bind_double(upd, 5, planned);
		sqlite3_bind_double(upd, 6, idle);
		sqlite3_bind_double(upd, 7, pdown);
		db_exec_step(cd, upd, "close rollup hour");
	}
	sqlite3_finalize(upd);
}

/* Sum [from, to) of period p into one row of period p + 1 at from. */
static void sum_up(ctld_t *cd, int p, int64_t from, int64_t to)
{
	static const char *const sql[] = {
		"INSERT OR REPLACE INTO acct_rollup_cluster(period, time, tres, alloc, down, pdown,"
		" idle, planned, reported) SELECT ?1 + 1, ?2, tres, SUM(alloc), SUM(down), SUM(pdown),"
		" SUM(idle), SUM(planned), SUM(reported) FROM acct_rollup_cluster WHERE period = ?1"
		" AND time >= ?2 AND time < ?3 GROUP BY tres",
		"INSERT OR REPLACE INTO acct_rollup_assoc(period, time, assoc_id, tres, account, user,"
		" lineage, alloc) SELECT ?1 + 1, ?2, assoc_id, tres, MAX(account), MAX(user),"
		" MAX(lineage), SUM(alloc) FROM acct_rollup_assoc WHERE period = ?1 AND time >= ?2"
		" AND time < ?3 GROUP BY assoc_id, tres",
	};
	for (int q = 0; q < 2; q++) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(cd->db, sql[q], -1, &st, NULL) != SQLITE_OK) {
			error("rollup: %s", sqlite3_errmsg(cd->db));
			cd->db_failed = 1;
			return;
		}
		sqlite3_bind_int(st, 1, p);
		sqlite3_bind_int64(st, 2, from);
		sqlite3_bind_int64(st, 3, to);
		db_exec_step(cd, st, "roll up");
		sqlite3_finalize(st);
	}
}

static void hour_write(ctld_t *cd, struct acct_rollup *r, const ru_hour_t *h)
{
	for (int k = 0; k < LIM_TRES_N; k++) {
		sqlite3_stmt *st = r->st_cl_add;
		sqlite3_bind_int64(st, 1, h->hs);
		sqlite3_bind_int(st, 2, k);
		for (int c = 0; c < RU_N; c++)
			sqlite3_bind_double(st, 3 + c, h->cl[k][c]);
		db_exec_step(cd, st, "add to rollup hour");
	}
	for (uint32_t i = 0; i < h->nas; i++) {
		const as_delta_t *d = &h->as[i];
		for (int k = 0; k < LIM_TRES_N; k++) {
			if (!d->alloc[k])
				continue;
			sqlite3_stmt *st = r->st_as_add;
			sqlite3_bind_int64(st, 1, h->hs);
			sqlite3_bind_int64(st, 2, d->id);
			sqlite3_bind_int(st, 3, k);
			sqlite3_bind_text(st, 4, d->account, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 5, d->user, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 6, d->lineage, -1, SQLITE_STATIC);
			sqlite3_bind_double(st, 7, d->alloc[k]);
			db_exec_step(cd, st, "add to association rollup hour");
		}
	}
	if (!h->closed)
		return;
	close_hour(cd, h->hs);
	int64_t he = rollup_hour_next(h->hs);
	int fom = 0;
	if (!test_hour() && at_midnight(he, &fom)) {
		sum_up(cd, 0, add_days(he, -1, 0), he);     /* the day from its hours */
		if (fom)
			sum_up(cd, 1, add_days(he, 0, -1), he); /* the month from its days */
	}
}

void acct_rollup_commit(ctld_t *cd, int64_t now)
{
	struct acct_rollup *r = cd->rollup;
	if (!r || !r->loaded)
		return;
	/* node events first: a change charges the time up to now */
	for (uint32_t i = 0; i < cd->nnodes && i < r->nev; i++)
		if (cd->nodes[i].dirty || r->ev_check_all)
			node_event(cd, r, i, now);
	r->ev_check_all = 0;
	for (uint32_t i = 0; i < r->nevops; i++)
		event_write(cd, r, &r->evops[i]);
	/* in time order: an ended hour is complete before it is closed */
	for (uint32_t i = 0; i < r->nhours; i++)
		hour_write(cd, r, &r->hours[i]);
	if (r->nhours) {
		sqlite3_bind_int64(r->st_meta, 1, r->hour);
		db_exec_step(cd, r->st_meta, "save rollup hour");
	}
}

void acct_rollup_committed(ctld_t *cd)
{
	struct acct_rollup *r = cd->rollup;
	if (r)
		deltas_clear(r);
}
