/*
 * acct_usage.c: decayed usage of associations and QOS, and the fair-share
 * factor of every association (priority/multifactor's fair-share half).
 *
 * Usage: a running job is charged to its association, every ancestor of
 * it, and its QOS: billing TRES-seconds x the QOS UsageFactor into
 * usage_raw, per-TRES seconds into usage_tres, wall seconds into
 * usage_wall. Charges happen every PriorityCalcPeriod and when a job stops
 * running (end or requeue), so short jobs count exactly. All of it decays
 * with PriorityDecayHalfLife (QOS with Flags=NoDecay do not) and is zeroed
 * at each PriorityUsageResetPeriod boundary.
 *
 * No job is charged twice: one watermark (`last`, persisted with the
 * usage in the same transaction) says up to when every running job has
 * been charged; a job is charged from max(its start, last) to now when a
 * period ends and to its end when it stops. A restart resumes from the
 * committed watermark, so what was committed is never charged again and
 * what was not is charged once.
 *
 * Fair share: a flat copy of the association tree (sched_assoc_t) is
 * handed to the pure core (sched_fairshare) every period, and when the
 * tree changed; a job's factor is read from it (sched_glue.c), and sshare
 * prints it (acct_sshare).
 *
 * Table (ours): acct_usage(kind 0 association / 1 QOS, id, usage_raw,
 * the per-TRES usage, usage_wall); the watermark and the last reset live
 * in meta (usage_last, usage_reset).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ctld.h"
#include "log.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

#include "sched/sched_fairshare.h"

enum { RESET_NONE = 0, RESET_NOW, RESET_DAILY, RESET_WEEKLY, RESET_MONTHLY,
       RESET_QUARTERLY, RESET_YEARLY };

typedef struct id_idx {
	uint32_t id, idx;
} id_idx_t;

struct acct_usage {
	/* slurm.conf */
	int64_t half_life;        /* seconds; 0: no decay */
	int64_t calc_period;      /* seconds */
	int reset;                /* RESET_* */
	int algo;                 /* SCHED_FS_* */
	double damp;              /* FairShareDampeningFactor */
	/* state */
	int loaded;
	int64_t last;             /* every running job is charged up to here */
	int64_t last_reset;
	/* the tree as of acct.gen: ids to model indexes, the fair-share copy */
	uint64_t gen;
	int built;
	id_idx_t *by_id;          /* sorted by id */
	uint32_t nby_id;
	sched_assoc_t *fs;        /* fs[i] mirrors cd->acct.assocs[i] */
	uint32_t nfs;
	int fs_ok;                /* sched_fairshare accepted the tree */
	int fs_need;              /* no factors yet for this tree */
	int fs_stale;             /* usage changed since the factors */
	uint64_t fs_gen;          /* bumped at each computation of fs */
	/* what the next commit writes */
	uint8_t *adirty;          /* by model index */
	int any_dirty, qos_dirty, rewrite_all, meta_dirty;
	sqlite3_stmt *st_save, *st_meta, *st_clear;
};

/* ---- configuration ---- */

static int64_t conf_minutes(const conf_t *conf, const char *key, int64_t dflt)
{
	const char *v = conf_get(conf, key);
	uint32_t m;
	if (!v || !*v)
		return dflt;
	if (time_limit_parse(v, &m) || m == TIME_INFINITE)
		return dflt;
	return (int64_t)m * 60;
}

static void usage_conf(ctld_t *cd, struct acct_usage *u)
{
	u->half_life = conf_minutes(cd->conf, "PriorityDecayHalfLife", 7 * 86400);
	u->calc_period = conf_minutes(cd->conf, "PriorityCalcPeriod", 300);
	/* Test-only: a period in seconds, so that tests need not wait
	 * minutes (t/integration/048x). Not a slurm.conf key. */
	const char *t = getenv("SLUICE_PRIORITY_CALC_PERIOD_S");
	if (t && atoi(t) > 0)
		u->calc_period = atoi(t);
	if (u->calc_period <= 0)
		u->calc_period = 300;
	const char *r = conf_get(cd->conf, "PriorityUsageResetPeriod");
	static const char *const names[] = { "NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY",
					     "QUARTERLY", "YEARLY" };
	u->reset = RESET_NONE;
	for (int i = 0; r && i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcasecmp(r, names[i]))
			u->reset = i;
	const char *f = conf_get(cd->conf, "PriorityFlags");
	u->algo = f && strcasestr(f, "NO_FAIR_TREE") ? SCHED_FS_CLASSIC : SCHED_FS_FAIR_TREE;
	const char *d = conf_get(cd->conf, "FairShareDampeningFactor");
	u->damp = d && atoi(d) > 0 ? atoi(d) : 1;
}

/* The start of the reset period that holds t (local time, as Slurm). */
static int64_t reset_boundary(int kind, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	localtime_r(&tt, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	switch (kind) {
	case RESET_DAILY:
		break;
	case RESET_WEEKLY:
		tm.tm_mday -= tm.tm_wday;     /* Sunday 00:00 */
		break;
	case RESET_MONTHLY:
		tm.tm_mday = 1;
		break;
	case RESET_QUARTERLY:
		tm.tm_mday = 1;
		tm.tm_mon -= tm.tm_mon % 3;
		break;
	case RESET_YEARLY:
		tm.tm_mday = 1;
		tm.tm_mon = 0;
		break;
	default:
		return 0;
	}
	return (int64_t)mktime(&tm);
}

/* ---- the tree ---- */

static int id_cmp(const void *a, const void *b)
{
	const id_idx_t *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The model index of association id, or UINT32_MAX. */
static uint32_t assoc_index(const struct acct_usage *u, uint32_t id)
{
	id_idx_t key = { id, 0 };
	const id_idx_t *e = id ? bsearch(&key, u->by_id, u->nby_id, sizeof(key), id_cmp) : NULL;
	return e ? e->idx : UINT32_MAX;
}

static acct_qos_t *qos_of(ctld_t *cd, uint32_t id)
{
	for (uint32_t i = 0; id && i < cd->acct.nqos; i++)
		if (cd->acct.qos[i].id == id)
			return &cd->acct.qos[i];
	return NULL;
}

/* The model index of a's parent: -1 for the root. */
static int32_t parent_index(ctld_t *cd, struct acct_usage *u, uint32_t i)
{
	if (i == 0)
		return -1;
	uint32_t p = assoc_index(u, cd->acct.assocs[i].parent_id);
	return p == UINT32_MAX || p == i ? 0 : (int32_t)p;
}

/* Follow the model after a change (acct.gen): the id index and the
 * fair-share copy. Usage stays in the model, so nothing is lost. */
static void tree_sync(ctld_t *cd, struct acct_usage *u)
{
	if (u->built && u->gen == cd->acct.gen && u->nfs == cd->acct.nassocs)
		return;
	uint32_t n = cd->acct.nassocs;
	free(u->by_id);
	u->by_id = xcalloc(n ? n : 1, sizeof(*u->by_id));
	for (uint32_t i = 0; i < n; i++)
		u->by_id[i] = (id_idx_t){ cd->acct.assocs[i].id, i };
	qsort(u->by_id, n, sizeof(*u->by_id), id_cmp);
	u->nby_id = n;
	free(u->fs);
	u->fs = xcalloc(n ? n : 1, sizeof(*u->fs));
	u->nfs = n;
	free(u->adirty);
	u->adirty = xcalloc(n ? n : 1, 1);
	if (u->built)
		u->rewrite_all = 1;  /* ids may have gone: rewrite the table */
	u->gen = cd->acct.gen;
	u->built = 1;
	u->fs_stale = 1;
	u->fs_need = 1;
}

static void fs_compute(ctld_t *cd, struct acct_usage *u)
{
	tree_sync(cd, u);
	if (!u->fs_stale)
		return;
	u->fs_stale = 0;
	u->fs_need = 0;
	u->fs_ok = 0;
	u->fs_gen++;
	if (!u->nfs)
		return;
	for (uint32_t i = 0; i < u->nfs; i++) {
		const acct_assoc_t *m = &cd->acct.assocs[i];
		sched_assoc_t *s = &u->fs[i];
		memset(s, 0, sizeof(*s));
		s->id = m->id;
		s->parent = parent_index(cd, u, i);
		s->uid = m->uid;
		s->is_user = m->user != NULL;
		s->account = m->account;
		s->partition = m->partition;
		s->lim = m->lim;
		s->shares_raw = m->shares_raw;
		s->priority = m->priority;
		s->usage_raw = m->usage_raw;
		memcpy(s->usage_tres, m->usage_tres, sizeof(s->usage_tres));
		s->usage_wall = m->usage_wall;
	}
	if (sched_fairshare(u->fs, u->nfs, u->algo, u->damp)) {
		static uint64_t warned_gen = UINT64_MAX;
		if (warned_gen != cd->acct.gen)
			error("fair share: the association tree is not a tree rooted at '%s'",
			      cd->acct.assocs[0].account ? cd->acct.assocs[0].account : "root");
		warned_gen = cd->acct.gen;
		return;
	}
	u->fs_ok = 1;
}

/* ---- persistence ---- */

/* Migration step: the decayed usage table (state_db.c). */
int acct_usage_migrate(sqlite3 *db, char **err)
{
	static const char ddl[] =
		"CREATE TABLE IF NOT EXISTS acct_usage(kind INTEGER NOT NULL, id INTEGER NOT NULL,"
		" usage_raw REAL, cpu REAL, mem REAL, node REAL, gpu REAL, billing REAL, wall REAL,"
		" PRIMARY KEY(kind, id));";
	return db_exec(db, ddl, err);
}

int acct_usage_db_init(ctld_t *cd, char **err)
{
	if (acct_rollup_db_init(cd, err))
		return -1;
	struct acct_usage *u = cd->usage ? cd->usage : xcalloc(1, sizeof(*u));
	cd->usage = u;
	const char *save = "INSERT OR REPLACE INTO acct_usage(kind, id, usage_raw, cpu, mem, node,"
			   " gpu, billing, wall) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)";
	if (sqlite3_prepare_v2(cd->db, save, -1, &u->st_save, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(cd->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)",
			       -1, &u->st_meta, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(cd->db, "DELETE FROM acct_usage", -1, &u->st_clear, NULL) != SQLITE_OK) {
		*err = xasprintf("state db: acct_usage: %s", sqlite3_errmsg(cd->db));
		return -1;
	}
	return 0;
}

void acct_usage_db_close(ctld_t *cd)
{
	acct_rollup_db_close(cd);
	struct acct_usage *u = cd->usage;
	if (!u)
		return;
	sqlite3_finalize(u->st_save);
	sqlite3_finalize(u->st_meta);
	sqlite3_finalize(u->st_clear);
	free(u->by_id);
	free(u->fs);
	free(u->adirty);
	free(u);
	cd->usage = NULL;
}

static int64_t meta_get(ctld_t *cd, const char *key, int64_t dflt)
{
	sqlite3_stmt *st;
	int64_t v = dflt;
	if (sqlite3_prepare_v2(cd->db, "SELECT value FROM meta WHERE key=?1", -1, &st, NULL) != SQLITE_OK)
		return dflt;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* First use in the loop (the model is loaded by then): the saved usage
 * into the model, the watermark. */
static struct acct_usage *usage_get(ctld_t *cd, int64_t now)
{
	struct acct_usage *u = cd->usage;
	if (!u || u->loaded)
		return u;
	u->loaded = 1;
	usage_conf(cd, u);
	tree_sync(cd, u);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(cd->db, "SELECT kind, id, usage_raw, cpu, mem, node, gpu, billing,"
			       " wall FROM acct_usage", -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			uint32_t id = (uint32_t)sqlite3_column_int64(st, 1);
			double tres[LIM_TRES_N];
			for (int k = 0; k < LIM_TRES_N; k++)
				tres[k] = sqlite3_column_double(st, 3 + k);
			if (sqlite3_column_int(st, 0) == 0) {
				uint32_t i = assoc_index(u, id);
				if (i == UINT32_MAX)
					continue;
				acct_assoc_t *a = &cd->acct.assocs[i];
				a->usage_raw = sqlite3_column_double(st, 2);
				memcpy(a->usage_tres, tres, sizeof(tres));
				a->usage_wall = sqlite3_column_double(st, 8);
			} else {
				acct_qos_t *q = qos_of(cd, id);
				if (!q)
					continue;
				memcpy(q->s.usage_tres, tres, sizeof(tres));
				q->s.usage_wall = sqlite3_column_double(st, 8);
			}
		}
		sqlite3_finalize(st);
	}
	u->last = meta_get(cd, "usage_last", 0);
	u->last_reset = meta_get(cd, "usage_reset", 0);
	if (!u->last || u->last > now)
		u->last = now;        /* nothing was charged before: start now */
	if (!u->last_reset)
		u->last_reset = now;
	if (u->reset == RESET_NOW) {
		/* PriorityUsageResetPeriod=NOW: cleared at each start */
		for (uint32_t i = 0; i < cd->acct.nassocs; i++) {
			acct_assoc_t *a = &cd->acct.assocs[i];
			a->usage_raw = a->usage_wall = 0;
			memset(a->usage_tres, 0, sizeof(a->usage_tres));
		}
		u->rewrite_all = 1;
		u->last_reset = now;
	}
	u->meta_dirty = 1;
	u->fs_stale = 1;
	acct_rollup_load(cd, u->last);   /* node events from the first turn on */
	db_begin(cd);
	return u;
}

static void bind_usage(sqlite3_stmt *st, int kind, uint32_t id, double raw,
		       const double *tres, double wall)
{
	sqlite3_bind_int(st, 1, kind);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_double(st, 3, raw);
	for (int k = 0; k < LIM_TRES_N; k++)
		sqlite3_bind_double(st, 4 + k, tres[k]);
	sqlite3_bind_double(st, 9, wall);
}

void acct_usage_commit(ctld_t *cd)
{
	struct acct_usage *u = cd->usage;
	if (!u || !u->loaded)
		return;
	acct_rollup_commit(cd, ctld_now());   /* may charge (node events): first */
	if (u->rewrite_all) {
		db_exec_step(cd, u->st_clear, "clear usage");
		memset(u->adirty, 1, u->nfs);
		u->any_dirty = u->qos_dirty = 1;
	}
	if (u->any_dirty)
		for (uint32_t i = 0; i < u->nfs && i < cd->acct.nassocs; i++) {
			if (!u->adirty[i])
				continue;
			const acct_assoc_t *a = &cd->acct.assocs[i];
			bind_usage(u->st_save, 0, a->id, a->usage_raw, a->usage_tres, a->usage_wall);
			db_exec_step(cd, u->st_save, "save association usage");
		}
	if (u->qos_dirty)
		for (uint32_t i = 0; i < cd->acct.nqos; i++) {
			const acct_qos_t *q = &cd->acct.qos[i];
			bind_usage(u->st_save, 1, q->id, 0, q->s.usage_tres, q->s.usage_wall);
			db_exec_step(cd, u->st_save, "save QOS usage");
		}
	if (u->meta_dirty) {
		const char *keys[] = { "usage_last", "usage_reset" };
		int64_t vals[] = { u->last, u->last_reset };
		for (int k = 0; k < 2; k++) {
			sqlite3_bind_text(u->st_meta, 1, keys[k], -1, SQLITE_STATIC);
			sqlite3_bind_int64(u->st_meta, 2, vals[k]);
			db_exec_step(cd, u->st_meta, "save usage watermark");
		}
	}
}

void acct_usage_committed(ctld_t *cd)
{
	struct acct_usage *u = cd->usage;
	if (!u || !u->loaded)
		return;
	acct_rollup_committed(cd);
	if (u->any_dirty)
		memset(u->adirty, 0, u->nfs);
	u->any_dirty = u->qos_dirty = u->rewrite_all = u->meta_dirty = 0;
}

/* ---- charging ---- */

void acct_usage_job_tres(const ctld_t *cd, const job_t *j, double tres[LIM_TRES_N])
{
	(void)cd;
	memset(tres, 0, sizeof(double) * LIM_TRES_N);
	for (uint32_t i = 0; i < j->alloc.nnodes; i++) {
		tres[LIM_TRES_CPU] += j->alloc.cpus[i];
		tres[LIM_TRES_MEM] += (double)j->alloc.mem[i];
		if (j->alloc.gpus)
			tres[LIM_TRES_GPU] += __builtin_popcountll(j->alloc.gpus[i]);
	}
	tres[LIM_TRES_NODE] = j->alloc.nnodes;
	/* billing: the CPUs (no TRESBillingWeights yet) */
	tres[LIM_TRES_BILLING] = tres[LIM_TRES_CPU];
}

/* Charge j for [from, to): its association and every ancestor, its QOS. */
static void charge(ctld_t *cd, struct acct_usage *u, const job_t *j, int64_t from, int64_t to)
{
	if (to <= from || !j->alloc.nnodes)
		return;
	double secs = (double)(to - from), tres[LIM_TRES_N];
	acct_usage_job_tres(cd, j, tres);
	acct_rollup_alloc(cd, u->last, j, secs, tres);   /* sreport: not scaled */
	db_begin(cd);
	if (!j->assoc_id)
		return;
	acct_qos_t *q = qos_of(cd, j->qos_id);
	double uf = q && q->s.usage_factor >= 0 && isfinite(q->s.usage_factor) ? q->s.usage_factor : 1.0;
	tree_sync(cd, u);
	uint32_t i = assoc_index(u, j->assoc_id);
	for (uint32_t hops = 0; i != UINT32_MAX && hops <= u->nfs; hops++) {
		acct_assoc_t *a = &cd->acct.assocs[i];
		a->usage_raw += tres[LIM_TRES_BILLING] * secs * uf;
		for (int k = 0; k < LIM_TRES_N; k++)
			a->usage_tres[k] += tres[k] * secs * uf;
		a->usage_wall += secs;
		u->adirty[i] = 1;
		u->any_dirty = 1;
		int32_t p = parent_index(cd, u, i);
		i = p < 0 ? UINT32_MAX : (uint32_t)p;
	}
	if (q) {
		for (int k = 0; k < LIM_TRES_N; k++)
			q->s.usage_tres[k] += tres[k] * secs * uf;
		q->s.usage_wall += secs;
		u->qos_dirty = 1;
	}
	u->fs_stale = 1;
	db_begin(cd);
}

static void roll(ctld_t *cd, struct acct_usage *u, int64_t now);

/* When a pending job became eligible to start (0: it is not). */
static int64_t eligible_since(const job_t *j)
{
	if ((j->state & JOB_STATE_BASE) != JOB_PENDING || j->hold || j->dep_state || !j->desc)
		return 0;
	int64_t e = j->eligible_time ? j->eligible_time : j->submit_time;
	return j->desc->begin_time > e ? j->desc->begin_time : e;
}

void acct_usage_job_stop(ctld_t *cd, const job_t *j, int64_t now)
{
	struct acct_usage *u = usage_get(cd, now);
	if (!u)
		return;
	roll(cd, u, now);
	if ((j->state & JOB_STATE_BASE) == JOB_RUNNING) {
		charge(cd, u, j, j->start_time > u->last ? j->start_time : u->last, now);
		return;
	}
	int64_t e = eligible_since(j);   /* a pending job cancelled: its wait */
	if (e && e < now)
		acct_rollup_planned(cd, u->last, j, e > u->last ? e : u->last, now);
}

void acct_usage_job_start(ctld_t *cd, const job_t *j, int64_t now)
{
	struct acct_usage *u = usage_get(cd, now);
	if (!u)
		return;
	roll(cd, u, now);
	int64_t e = eligible_since(j);
	if (e && e < now)
		acct_rollup_planned(cd, u->last, j, e > u->last ? e : u->last, now);
}

/* Multiply every usage by f (QOS with NoDecay keep theirs). */
static void decay_all(ctld_t *cd, struct acct_usage *u, double f, int qos_too_nodecay)
{
	for (uint32_t i = 0; i < cd->acct.nassocs; i++) {
		acct_assoc_t *a = &cd->acct.assocs[i];
		if (!a->usage_raw && !a->usage_wall)
			continue;
		a->usage_raw *= f;
		for (int k = 0; k < LIM_TRES_N; k++)
			a->usage_tres[k] *= f;
		a->usage_wall *= f;
		if (i < u->nfs)
			u->adirty[i] = 1;
		u->any_dirty = 1;
	}
	for (uint32_t i = 0; i < cd->acct.nqos; i++) {
		acct_qos_t *q = &cd->acct.qos[i];
		if ((q->s.flags & LIM_QOS_F_NO_DECAY) && !qos_too_nodecay)
			continue;
		for (int k = 0; k < LIM_TRES_N; k++)
			q->s.usage_tres[k] *= f;
		q->s.usage_wall *= f;
		u->qos_dirty = 1;
	}
}

double acct_usage_decay_factor(int64_t half_life, int64_t dt)
{
	if (half_life <= 0 || dt <= 0)
		return 1.0;
	return exp2(-(double)dt / (double)half_life);
}

/* Walk time from the watermark to `to` (never across an hour: see roll):
 * reset, decay, charge the running jobs, count the waiting ones, the
 * nodes and the cluster for the rollups. */
static void step(ctld_t *cd, struct acct_usage *u, int64_t to)
{
	if (to <= u->last)
		return;
	int64_t now = to;
	tree_sync(cd, u);
	if (u->reset >= RESET_DAILY) {
		int64_t b = reset_boundary(u->reset, now);
		if (b > u->last_reset) {
			info("usage: PriorityUsageResetPeriod reached: usage cleared");
			decay_all(cd, u, 0.0, 0);
			u->last_reset = now;
		}
	}
	double f = acct_usage_decay_factor(u->half_life, now - u->last);
	if (f != 1.0)
		decay_all(cd, u, f, 0);
	for (size_t k = 0; k < cd->njobs; k++) {
		const job_t *j = cd->jobs[k];
		if ((j->state & JOB_STATE_BASE) == JOB_RUNNING) {
			charge(cd, u, j, j->start_time > u->last ? j->start_time : u->last, now);
			continue;
		}
		int64_t e = eligible_since(j);
		if (e && e < now)
			acct_rollup_planned(cd, u->last, j, e > u->last ? e : u->last, now);
	}
	acct_rollup_span(cd, u->last, now);
	u->last = now;
	u->meta_dirty = 1;
	u->fs_stale = 1;
	db_begin(cd);
}

/* Close every hour that ended by now: a step to each boundary, then the
 * hour's close (acct_rollup.c). */
static void roll(ctld_t *cd, struct acct_usage *u, int64_t now)
{
	for (int guard = 0; guard < 24 * 400; guard++) {
		int64_t hs = rollup_hour_floor(u->last), he = rollup_hour_next(hs);
		if (he > now)
			return;
		step(cd, u, he);
		acct_rollup_hour_end(cd, hs);
	}
	/* more than a year behind (a clock jump): start over from now */
	error("usage: the clock moved more than a year: rollups resume from now");
	u->last = now;
}

void acct_usage_advance(ctld_t *cd, int64_t now)
{
	struct acct_usage *u = usage_get(cd, now);
	if (!u || now <= u->last)
		return;
	roll(cd, u, now);
	step(cd, u, now);
}

void acct_usage_periodic(ctld_t *cd, int64_t now)
{
	struct acct_usage *u = usage_get(cd, now);
	if (!u)
		return;
	usage_conf(cd, u);     /* follows scontrol reconfigure */
	roll(cd, u, now);      /* an hour ended: close it */
	if (now - u->last < u->calc_period)
		return;
	acct_usage_advance(cd, now);
	fs_compute(cd, u);
	/* new factors: the priorities move */
	ctld_sched_request(cd);
}

/* ---- fair share for the scheduler and sshare ---- */

double acct_usage_fs_factor(ctld_t *cd, uint32_t assoc_id)
{
	struct acct_usage *u = cd->usage;
	if (!u || !assoc_id || !cd->acct.nassocs)
		return 0;
	if (!u->loaded && !usage_get(cd, ctld_now()))
		return 0;
	tree_sync(cd, u);
	if (u->fs_need)
		fs_compute(cd, u);   /* a new tree: factors now, not at the next period */
	uint32_t i = assoc_index(u, assoc_id);
	return u->fs_ok && i < u->nfs ? u->fs[i].fs_factor : 0;
}

uint32_t acct_usage_assoc_index(ctld_t *cd, uint32_t assoc_id)
{
	struct acct_usage *u = cd->usage;
	if (!u)
		return UINT32_MAX;
	tree_sync(cd, u);
	return assoc_index(u, assoc_id);
}

const sched_assoc_t *acct_usage_tree(ctld_t *cd, uint32_t *n, uint64_t *gen)
{
	struct acct_usage *u = usage_get(cd, ctld_now());
	*n = 0;
	if (gen)
		*gen = 0;
	if (!u)
		return NULL;
	fs_compute(cd, u);
	if (gen)
		*gen = u->fs_gen;
	if (!u->fs_ok)
		return NULL;
	*n = u->nfs;
	return u->fs;
}
