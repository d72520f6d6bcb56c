/*
 * acct_sreport_resv.c: ACCT_OP_SREPORT report=resv, the data of sreport
 * reservation Utilization, read from the reservation records (acct_resv,
 * contract in state_db.c) and the job records that ran in them, on the
 * reader thread with the read-only connection.
 *
 * As slurmdbd answers it: the reservations with a record that overlaps
 * [start, end) (not deleted before they started), each record's
 * Allocated being the TRES-seconds of the jobs of the reservation inside
 * that record's period (not cut to the range: the report shows a
 * reservation's whole life), a job still running counting to the
 * period's end. The records of one reservation are merged into one row:
 * its first start and last end, each TRES count the running average
 * Slurm takes ((previous + next) / 2, record after record), the
 * allocated seconds summed.
 *
 * Cost: the records come by the acct_resv_end index (time_end >= start),
 * the jobs of each reservation by acct_job_resv (reservation, start)
 * from the reservation's first start to its last end: only that
 * reservation's jobs, whatever the number of job records.
 *
 * Arguments: start=, end= (Unix seconds), names= (comma list, "" all),
 * nodes= (a host list: only reservations holding one of them).
 * Columns: id, name, start, end, nodes, flags, assocs (association ids
 * of its users and accounts, "2,7"), tres ("cpu=128,node=2", the merged
 * counts, mem in MB), alloc ("cpu=110,node=50", TRES-seconds).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld.h"
#include "errors.h"
#include "hostlist.h"
#include "strbuf.h"
#include "xalloc.h"

#define RV_MAXTRES 16

typedef struct rv_tres {
	char name[64];
	int64_t count;
	double secs;
} rv_tres_t;

typedef struct rv {
	int64_t id, start, end, first;   /* first: its first record's start */
	char *name, *nodes, *flags, *users, *accounts;
	rv_tres_t t[RV_MAXTRES];
	int nt;
} rv_t;

/* A TRES count as the records write it: "2000000M", "2T", "128" (mem in
 * MB, as Slurm counts it). */
static int64_t tres_count(const char *name, const char *v)
{
	char *end;
	double x = strtod(v, &end);
	if (strcmp(name, "mem"))
		return (int64_t)x;
	switch (*end) {
	case 'K': case 'k': x /= 1024; break;
	case 'G': case 'g': x *= 1024; break;
	case 'T': case 't': x *= 1024.0 * 1024; break;
	case 'P': case 'p': x *= 1024.0 * 1024 * 1024; break;
	default: break;
	}
	return (int64_t)x;
}

/* Calls fn(name, count) for each "name=count" of a TRES string. */
static void tres_each(const char *s, void (*fn)(void *, const char *, int64_t), void *arg)
{
	while (s && *s) {
		const char *comma = strchr(s, ','), *eq = strchr(s, '=');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		if (eq && eq < s + len && eq > s && (size_t)(eq - s) < 64) {
			char name[64], val[64];
			size_t nl = (size_t)(eq - s), vl = len - nl - 1;
			memcpy(name, s, nl);
			name[nl] = 0;
			if (vl >= sizeof(val))
				vl = sizeof(val) - 1;
			memcpy(val, eq + 1, vl);
			val[vl] = 0;
			fn(arg, name, tres_count(name, val));
		}
		s = comma ? comma + 1 : NULL;
	}
}

static rv_tres_t *rv_find(rv_t *r, const char *name, int add)
{
	for (int i = 0; i < r->nt; i++)
		if (!strcmp(r->t[i].name, name))
			return &r->t[i];
	if (!add || r->nt == RV_MAXTRES)
		return NULL;
	rv_tres_t *t = &r->t[r->nt++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	return t;
}

/* The TRES of a reservation's first record. */
static void tres_first(void *arg, const char *name, int64_t n)
{
	rv_tres_t *t = rv_find(arg, name, 1);
	if (t)
		t->count = n;
}

/* A later record: Slurm's running average of the counts. */
static void tres_merge(void *arg, const char *name, int64_t n)
{
	rv_t *r = arg;
	rv_tres_t *t = rv_find(r, name, 0);
	if (!t) {
		if ((t = rv_find(r, name, 1)))
			t->count = n;
		return;
	}
	t->count = (t->count + n) / 2;
}

typedef struct job_add {
	rv_t *r;
	double secs;
} job_add_t;

/* A job's TRES for secs seconds: only the TRES the reservation holds. */
static void tres_alloc(void *arg, const char *name, int64_t n)
{
	job_add_t *a = arg;
	rv_tres_t *t = rv_find(a->r, name, 0);
	if (t)
		t->secs += (double)n * a->secs;
}

static void rv_free(rv_t *r)
{
	free(r->name);
	free(r->nodes);
	free(r->flags);
	free(r->users);
	free(r->accounts);
}

static const char *col_text(sqlite3_stmt *st, int c)
{
	const char *v = (const char *)sqlite3_column_text(st, c);
	return v ? v : "";
}

static int in_list(const char *list, const char *item, int nocase)
{
	size_t n = strlen(item);
	for (const char *p = list; p && *p;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);
		if (len == n && !(nocase ? strncasecmp(p, item, n) : strncmp(p, item, n)))
			return 1;
		p = c ? c + 1 : NULL;
	}
	return 0;
}

/* Does the node list expression hold a node of want? */
static int nodes_meet(const char *expr, const hostset_t *want)
{
	char *err = NULL;
	hostlist_t *hl = hostlist_create(expr, &err);
	free(err);
	int hit = 0;
	for (size_t i = 0; hl && !hit && i < hostlist_count(hl); i++)
		hit = hostset_has(want, hostlist_nth(hl, i));
	hostlist_destroy(hl);
	return hit;
}

/* The association ids of its users (their associations) and accounts
 * (the accounts' own), ascending, as slurmdbd's assoclist. */
static char *assoc_ids(sqlite3 *db, const char *users, const char *accounts)
{
	strbuf_t sb = STRBUF_INIT;
	sqlite3_stmt *st;
	if ((!users || !*users) && (!accounts || !*accounts))
		return xstrdup("");
	if (sqlite3_prepare_v2(db, "SELECT id, user, account FROM acct_assoc ORDER BY id", -1, &st,
			       NULL) != SQLITE_OK)
		return strbuf_detach(&sb);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *u = col_text(st, 1), *a = col_text(st, 2);
		if ((*u && users && in_list(users, u, 0)) || (!*u && accounts && in_list(accounts, a, 1)))
			strbuf_addf(&sb, "%s%" PRId64, sb.len ? "," : "", (int64_t)sqlite3_column_int64(st, 0));
	}
	sqlite3_finalize(st);
	return strbuf_detach(&sb);
}

/* Adds the jobs of r's records (periods [from[i], to[i])) to r. */
static int add_jobs(sqlite3 *db, rv_t *r, const int64_t *from, const int64_t *to, uint32_t n)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT alloc_tres, start, end FROM acct_job WHERE reservation = ?1"
			       " AND start >= ?2 AND start < ?3 AND start > 0", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, r->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, r->first);
	sqlite3_bind_int64(st, 3, r->end);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t js = sqlite3_column_int64(st, 1), je = sqlite3_column_int64(st, 2);
		for (uint32_t i = 0; i < n; i++) {
			int64_t a = js > from[i] ? js : from[i];
			int64_t b = je && je < to[i] ? je : to[i];
			if (b <= a)
				continue;
			job_add_t ja = { r, (double)(b - a) };
			tres_each(col_text(st, 0), tres_alloc, &ja);
		}
	}
	sqlite3_finalize(st);
	return 0;
}

static void answer(sqlite3 *db, const rv_t *r, msg_acct_reply_t *out)
{
	acct_reply_cellf(out, "%" PRId64, r->id);
	acct_reply_cell(out, r->name);
	acct_reply_cellf(out, "%" PRId64, r->start);
	acct_reply_cellf(out, "%" PRId64, r->end);
	acct_reply_cell(out, r->nodes);
	acct_reply_cell(out, r->flags);
	char *ids = assoc_ids(db, r->users, r->accounts);
	acct_reply_cell(out, ids);
	free(ids);
	strbuf_t t = STRBUF_INIT, a = STRBUF_INIT;
	for (int i = 0; i < r->nt; i++) {
		strbuf_addf(&t, "%s%s=%" PRId64, i ? "," : "", r->t[i].name, r->t[i].count);
		strbuf_addf(&a, "%s%s=%.0f", i ? "," : "", r->t[i].name, r->t[i].secs);
	}
	acct_reply_cell(out, t.buf ? t.buf : "");
	acct_reply_cell(out, a.buf ? a.buf : "");
	strbuf_release(&t);
	strbuf_release(&a);
}

/* The first start of reservation id (its records outside the range
 * too: a job may have started in one of them). */
static int64_t first_start(sqlite3 *db, int64_t id, int64_t dflt)
{
	sqlite3_stmt *st;
	int64_t v = dflt;
	if (sqlite3_prepare_v2(db, "SELECT MIN(time_start) FROM acct_resv WHERE resv_id = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return v;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

void acct_sreport_resv(sqlite3 *db, const msg_acct_req_t *req, int64_t start, int64_t end,
		       msg_acct_reply_t *out)
{
	static const char *const cols[] = { "id", "name", "start", "end", "nodes", "flags", "assocs",
		"tres", "alloc" };
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		acct_reply_col(out, cols[c]);
	const char *names = acct_arg(req, "names"), *nodes = acct_arg(req, "nodes");
	hostset_t *want = NULL;
	if (nodes && *nodes) {
		char *err = NULL;
		if (!(want = hostset_create(nodes, &err))) {
			out->rc = SLURM_ERROR;
			out->msg = xasprintf("sreport: invalid node list %s: %s", nodes, err ? err : "");
			free(err);
			return;
		}
		free(err);
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT resv_id, time_start, time_end, name, nodelist, tres, flags,"
			       " users, accounts FROM acct_resv WHERE time_end >= ?1 AND time_start < ?2"
			       " AND deleted = 0 ORDER BY resv_id, time_start", -1, &st, NULL) != SQLITE_OK) {
		out->rc = SLURM_ERROR;
		out->msg = xasprintf("sreport: %s", sqlite3_errmsg(db));
		hostset_destroy(want);
		return;
	}
	sqlite3_bind_int64(st, 1, start);
	sqlite3_bind_int64(st, 2, end);
	rv_t r = { .id = -1 };
	int64_t *from = NULL, *to = NULL;
	uint32_t n = 0;
	size_t afrom = 0, ato = 0;
	int rc = 0;
	for (int more = 1; more && !rc;) {
		more = sqlite3_step(st) == SQLITE_ROW;
		int64_t id = more ? sqlite3_column_int64(st, 0) : -1;
		if (r.id >= 0 && id != r.id) {       /* r is complete */
			if (!want || nodes_meet(r.nodes, want)) {
				r.first = first_start(db, r.id, r.start);
				rc = add_jobs(db, &r, from, to, n);
				if (!rc)
					answer(db, &r, out);
			}
			rv_free(&r);
			memset(&r, 0, sizeof(r));
			r.id = -1;
			n = 0;
		}
		if (!more)
			break;
		const char *name = col_text(st, 3);
		if (names && *names && !in_list(names, name, 1))
			continue;
		int64_t ts = sqlite3_column_int64(st, 1), te = sqlite3_column_int64(st, 2);
		if (r.id < 0) {
			r.id = id;
			r.start = ts;
			r.end = te;
			r.name = xstrdup(name);
			tres_each(col_text(st, 5), tres_first, &r);
		} else {
			tres_each(col_text(st, 5), tres_merge, &r);
			if (te > r.end)
				r.end = te;
		}
		/* the latest record's nodes and flags and access lists */
		free(r.nodes);
		free(r.flags);
		free(r.users);
		free(r.accounts);
		r.nodes = xstrdup(col_text(st, 4));
		r.flags = xstrdup(col_text(st, 6));
		r.users = sqlite3_column_type(st, 7) == SQLITE_NULL ? NULL : xstrdup(col_text(st, 7));
		r.accounts = sqlite3_column_type(st, 8) == SQLITE_NULL ? NULL : xstrdup(col_text(st, 8));
		from = xgrow(from, sizeof(*from), n + 1, &afrom);
		to = xgrow(to, sizeof(*to), n + 1, &ato);
		from[n] = ts;
		to[n] = te;
		n++;
	}
	sqlite3_finalize(st);
	rv_free(&r);
	free(from);
	free(to);
	hostset_destroy(want);
	if (rc) {
		out->rc = SLURM_ERROR;
		out->msg = xasprintf("sreport: %s", sqlite3_errmsg(db));
	}
}

/* Migration step: the job records of a reservation by start, for the
 * report above (a partial index: most jobs run in none). */
int acct_sreport_resv_migrate(sqlite3 *db, char **err)
{
	return db_exec(db, "CREATE INDEX IF NOT EXISTS acct_job_resv ON acct_job(reservation, start)"
		       " WHERE reservation IS NOT NULL;", err);
}
