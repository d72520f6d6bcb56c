/*
 * resv.c: advance reservations (Slurm's scontrol create reservation) in
 * the controller: the model, its checks, persistence and the views.
 *
 * A reservation holds whole nodes over [start, end) for the users and
 * accounts it names. It is kept in the resvs table of the state DB, and
 * each period of it with the same nodes and times in acct_resv (the
 * contract above migrate_acct_resv in state_db.c): written in the same
 * transaction as the change, through a queue of idempotent statements
 * that db_commit runs and forgets only once committed (a rolled back
 * transaction writes them again). Reservations are few (tens): lists are
 * scanned; what grows with the cluster (nodes, jobs) is visited once per
 * change, never per job per reservation.
 *
 * The scheduler core gets them as sched_t.resvs (resv_sched_fill) and a
 * job's as sched_job_t.resv (resv_sched_index); node listings show
 * RESERVED/MAINT while one is active (resv_node_flags).
 */
#include "ctld/resv.h"

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/ctld.h"
#include "ctld/intern.h"
#include "ctld/names.h"
#include "errors.h"
#include "hostlist.h"
#include "log.h"
#include "resv_spec.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

/* Slurm shows Duration=UNLIMITED as a year from the start. */
#define RESV_INFINITE_SECS (365 * 86400)
/* PURGE_COMP without a time: 5 minutes, as Slurm. */
#define RESV_PURGE_DEFAULT 300

typedef struct resv {
	uint32_t id;
	char *name;
	int64_t start, end;
	uint32_t *nodes, nnodes;  /* indexes, ascending */
	char *node_str;           /* ranged */
	char *partition, *features, *users, *accounts;   /* NULL none */
	uint32_t flags;           /* RESV_F_* */
	int64_t acct_start;       /* time_start of its open acct_resv row */
	uint32_t purge;           /* PURGE_COMP: seconds it may stay idle */
	int64_t idle_since;       /* PURGE_COMP: active without a job since
	                           * (memory only: a restart starts it over) */
} resv_t;

struct resv_state {
	resv_t *v;
	uint32_t n;
	size_t a;
	uint32_t next_id;
	char **sql;               /* statements for the next commit */
	uint8_t *sql_req;         /* ... queued by a client's request */
	size_t nsql, asql, asql_req;
	uint32_t *turn_ids;       /* reservations a request changed this turn */
	size_t nturn_ids, aturn_ids;
	sched_resv_t *sr;         /* the core's mirror (resv_sched_fill) */
	uint32_t *nflags;         /* per node: NODE_FLAG_RESERVED/MAINT now */
	int64_t flags_at;         /* when nflags was computed, 0 = stale */
	int64_t last_update;
};

static struct resv_state *st(struct ctld *cd)
{
	if (!cd->resv) {
		cd->resv = xcalloc(1, sizeof(*cd->resv));
		cd->resv->next_id = 1;
	}
	return cd->resv;
}

int resv_db_migrate(sqlite3 *db, char **err)
{
	return db_exec(db,
		"CREATE TABLE IF NOT EXISTS resvs("
		" resv_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
		" start_time INTEGER NOT NULL, end_time INTEGER NOT NULL,"
		" nodes TEXT NOT NULL, partition TEXT, features TEXT, users TEXT,"
		" accounts TEXT, flags INTEGER NOT NULL, acct_start INTEGER NOT NULL);",
		err);
}

int resv_db_migrate_purge(sqlite3 *db, char **err)
{
	static const db_column_t added[] = { { "resvs", "purge_comp", "INTEGER NOT NULL DEFAULT 0" } };
	return db_add_columns(db, added, 1, err);
}

/* Queue one statement (sqlite3_mprintf: %Q quotes, NULL -> NULL). */
static void sql_add(struct ctld *cd, char *s)
{
	struct resv_state *rs = st(cd);
	if (!s)
		fatal("out of memory");
	rs->sql = xgrow(rs->sql, sizeof(*rs->sql), rs->nsql + 1, &rs->asql);
	rs->sql_req = xgrow(rs->sql_req, 1, rs->nsql + 1, &rs->asql_req);
	rs->sql_req[rs->nsql] = (uint8_t)(cd->in_request != 0);
	rs->sql[rs->nsql++] = s;
}

/* Reservation id is changed (saved or removed): noted if by a request,
 * to be put back if its commit fails (resv_undo). */
static void turn_note(struct ctld *cd, uint32_t id)
{
	struct resv_state *rs = st(cd);
	if (!cd->in_request)
		return;
	for (size_t i = 0; i < rs->nturn_ids; i++)
		if (rs->turn_ids[i] == id)
			return;
	rs->turn_ids = xgrow(rs->turn_ids, sizeof(uint32_t), rs->nturn_ids + 1, &rs->aturn_ids);
	rs->turn_ids[rs->nturn_ids++] = id;
}

int resv_db_pending(const struct ctld *cd)
{
	return cd->resv && cd->resv->nsql;
}

void resv_db_commit(struct ctld *cd)
{
	if (!cd->resv)
		return;
	for (size_t i = 0; i < cd->resv->nsql && !cd->db_failed; i++) {
		char *e = NULL;
		if (sqlite3_exec(cd->db, cd->resv->sql[i], NULL, NULL, &e) != SQLITE_OK) {
			error("state DB: reservation write failed: %s", e ? e : "?");
			cd->db_failed = 1;
			cd->db_errno = EIO;
		}
		sqlite3_free(e);
	}
}

void resv_db_committed(struct ctld *cd)
{
	if (!cd->resv)
		return;
	for (size_t i = 0; i < cd->resv->nsql; i++)
		sqlite3_free(cd->resv->sql[i]);
	cd->resv->nsql = 0;
}

static char *node_list_str(const struct ctld *cd, const uint32_t *idx, uint32_t n)
{
	const char **names = xmalloc((n ? n : 1) * sizeof(char *));
	for (uint32_t i = 0; i < n; i++)
		names[i] = cd->nodes[idx[i]].cf->name;
	char *s = hostlist_compress(names, n);
	free(names);
	return s;
}

static uint32_t resv_cores(const struct ctld *cd, const resv_t *r)
{
	uint32_t c = 0;
	for (uint32_t i = 0; i < r->nnodes; i++) {
		const conf_node_t *cf = cd->nodes[r->nodes[i]].cf;
		c += cf->cpus / (cf->threads_per_core ? cf->threads_per_core : 1);
	}
	return c;
}

/* The TRES it holds, as acct_resv keeps them (cpu first). */
static char *resv_tres_full(const struct ctld *cd, const resv_t *r)
{
	uint64_t cpus = 0, mem = 0, gpus = 0;
	for (uint32_t i = 0; i < r->nnodes; i++) {
		const conf_node_t *cf = cd->nodes[r->nodes[i]].cf;
		cpus += cf->cpus;
		mem += cf->real_memory;
		for (size_t g = 0; g < cf->ngres; g++)
			if (!strcmp(cf->gres[g].name, "gpu"))
				gpus += cf->gres[g].count;
	}
	return tres_string(cpus, mem, r->nnodes, 1, gpus, NULL, 0);
}

/* Write r's resvs row and its open acct_resv row (time_start
 * r->acct_start; replaced whole). */
static void resv_save(struct ctld *cd, const resv_t *r)
{
	turn_note(cd, r->id);
	char fl[256];     /* every flag name fits */
	resv_flags_fmt(r->flags, r->purge, fl, sizeof(fl));
	sql_add(cd, sqlite3_mprintf(
		"INSERT OR REPLACE INTO resvs(resv_id, name, start_time, end_time, nodes, partition,"
		" features, users, accounts, flags, acct_start, purge_comp) VALUES(%u, %Q, %lld, %lld,"
		" %Q, %Q, %Q, %Q, %Q, %u, %lld, %u);", r->id, r->name, (long long)r->start,
		(long long)r->end, r->node_str, r->partition, r->features, r->users, r->accounts,
		r->flags, (long long)r->acct_start, r->purge));
	char *tres = resv_tres_full(cd, r);
	sql_add(cd, sqlite3_mprintf(
		"INSERT OR REPLACE INTO acct_resv(resv_id, time_start, time_end, name, nodelist,"
		" node_count, tres, flags, users, accounts, deleted) VALUES(%u, %lld, %lld, %Q, %Q, %u,"
		" %Q, %Q, %Q, %Q, 0);", r->id, (long long)r->acct_start, (long long)r->end, r->name,
		r->node_str, r->nnodes, tres, fl, r->users, r->accounts));
	free(tres);
}

static void resv_release(resv_t *r)
{
	free(r->name);
	free(r->nodes);
	free(r->node_str);
	free(r->partition);
	free(r->features);
	free(r->users);
	free(r->accounts);
	memset(r, 0, sizeof(*r));
}

void resv_free(struct ctld *cd)
{
	struct resv_state *rs = cd->resv;
	if (!rs)
		return;
	for (uint32_t i = 0; i < rs->n; i++)
		resv_release(&rs->v[i]);
	free(rs->v);
	resv_db_committed(cd);
	free(rs->sql);
	free(rs->sql_req);
	free(rs->turn_ids);
	free(rs->sr);
	free(rs->nflags);
	free(rs);
	cd->resv = NULL;
}

static resv_t *resv_find(struct ctld *cd, const char *name, uint32_t *pos)
{
	struct resv_state *rs = st(cd);
	for (uint32_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].name, name)) {
			if (pos)
				*pos = i;
			return &rs->v[i];
		}
	return NULL;
}

static void resv_changed(struct ctld *cd, int64_t now)
{
	struct resv_state *rs = st(cd);
	rs->flags_at = 0;
	rs->last_update = now;
	cd->last_node_update = now;
	/* the core's mirror borrows the list's node arrays: rebuilt at once,
	 * so a submission validated before the next pass sees this change
	 * and nothing keeps pointing at a removed reservation */
	resv_sched_fill(cd);
	ctld_sched_request(cd);
}

/* Is name (a user name) in the list ("alice,bob"; "-bob": anyone but)? */
static int list_has(const char *list, const char *name)
{
	if (!list || !name)
		return 0;
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		if (*p == '-')
			p++;
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && !strncmp(p, name, n))
			return 1;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* An access list admits name: listed, or (a "-" list) not listed. */
static int list_admits(const char *list, const char *name)
{
	if (!list || !*list)
		return 1;
	if (*list == '-')
		return !list_has(list, name);
	return list_has(list, name);
}

/* Every user of Users= exists: 0 or ESLURM_USER_ID_MISSING. */
static int check_users(const char *list)
{
	char *dup = xstrdup(list), *save = NULL;
	int rc = 0;
	for (char *t = strtok_r(dup, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		if (*t == '-' || *t == '+')
			t++;
		if (!*t || !getpwnam(t))
			rc = ESLURM_USER_ID_MISSING;
	}
	free(dup);
	return rc;
}

static int check_accounts(struct ctld *cd, const char *list)
{
	char *dup = xstrdup(list), *save = NULL;
	int rc = 0;
	for (char *t = strtok_r(dup, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		if (*t == '-' || *t == '+')
			t++;
		if (!*t || (cd->acct.enforce && !acct_account_find(cd, t)))
			rc = ESLURM_INVALID_ACCOUNT;
	}
	free(dup);
	return rc;
}

/* Users= or Accounts= of an update applied to the list cur (NULL
 * none), as Slurm 22.05 does: names without a sign replace it; "+name"
 * adds one and "-name" removes one (Users+=, Users-=, Users=-bob); on an
 * empty list "-name" starts an exclusion list, and on an exclusion list
 * "-name" excludes one more and "+name" lets one back in. NULL: empty. */
static char *list_edit(const char *cur, const char *spec)
{
	if (!spec || !*spec)
		return NULL;
	if (!strchr(spec, '+') && spec[0] != '-' && !strstr(spec, ",-"))
		return xstrdup(spec);
	strv_t v = { 0 };
	int neg = cur && cur[0] == '-';
	for (const char *p = cur ? cur : ""; *p;) {
		size_t l = strcspn(p, ",");
		if (l > (size_t)neg) {
			char *name = xasprintf("%.*s", (int)(l - (size_t)neg), p + neg);
			strv_push(&v, name);
			free(name);
		}
		p += l;
		if (*p == ',')
			p++;
	}
	for (const char *p = spec; *p;) {
		size_t l = strcspn(p, ",");
		char sign = (*p == '+' || *p == '-') ? *p : '+';
		size_t o = (*p == '+' || *p == '-') ? 1 : 0;
		char *name = xasprintf("%.*s", (int)(l - o), p + o);
		if (!v.n && sign == '-')
			neg = 1;
		uint32_t at = 0;
		while (at < v.n && strcmp(v.v[at], name))
			at++;
		int add = neg ? sign == '-' : sign == '+';
		if (add && at == v.n && *name) {
			strv_push(&v, name);
		} else if (!add && at < v.n) {
			free(v.v[at]);
			memmove(&v.v[at], &v.v[at + 1], (v.n - at - 1) * sizeof(char *));
			v.n--;
		}
		free(name);
		p += l;
		if (*p == ',')
			p++;
	}
	char *out = NULL;
	if (v.n) {
		strbuf_t sb = STRBUF_INIT;
		for (uint32_t i = 0; i < v.n; i++)
			strbuf_addf(&sb, "%s%s%s", i ? "," : "", neg ? "-" : "", v.v[i]);
		out = strbuf_detach(&sb);
	}
	strv_free(&v);
	return out;
}

static int times_overlap(int64_t s1, int64_t e1, int64_t s2, int64_t e2)
{
	return s1 < e2 && s2 < e1;
}

/* mark[i] = 1 for the nodes held by other reservations over [start, end)
 * that do not allow overlap, or (all) by any other (skip: the one being
 * changed). */
static void mark_reserved(struct ctld *cd, const resv_t *skip, int64_t start, int64_t end,
			  int all, uint8_t *mark)
{
	struct resv_state *rs = st(cd);
	for (uint32_t i = 0; i < rs->n; i++) {
		const resv_t *o = &rs->v[i];
		if (o == skip || (!all && (o->flags & (RESV_F_OVERLAP | RESV_F_MAINT))) ||
		    !times_overlap(start, end, o->start, o->end))
			continue;
		for (uint32_t k = 0; k < o->nnodes; k++)
			mark[o->nodes[k]] = 1;
	}
}

/* mark[i] = 1 for nodes that jobs still hold at start (running jobs that
 * end after it; one without an end holds its nodes for ever). */
static void mark_busy(struct ctld *cd, int64_t start, uint8_t *mark)
{
	for (size_t i = 0; i < cd->njobs; i++) {
		const job_t *j = cd->jobs[i];
		if (!j->alloc_held || !j->alloc.nnodes)
			continue;
		if (j->end_time && j->end_time <= start)
			continue;
		for (uint32_t k = 0; k < j->alloc.nnodes; k++)
			mark[j->alloc.nodes[k]] = 1;
	}
}

static int node_has_features(const conf_node_t *cf, const char *want)
{
	if (!want || !*want)
		return 1;
	if (!cf->features)
		return 0;
	char *dup = xstrdup(want), *save = NULL;
	int ok = 1;
	for (char *t = strtok_r(dup, ",&", &save); t && ok; t = strtok_r(NULL, ",&", &save)) {
		size_t n = strlen(t);
		int found = 0;
		for (const char *p = cf->features; *p && !found;) {
			const char *e = strchr(p, ',');
			size_t l = e ? (size_t)(e - p) : strlen(p);
			found = l == n && !strncmp(p, t, n);
			p += l;
			if (*p == ',')
				p++;
		}
		ok = found;
	}
	free(dup);
	return ok;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Append to idx (n so far) up to want nodes of r's partition (the
 * default one if none; -1 if it does not exist) that are idle, neither
 * drained nor failing, carry r's features and are not marked in res or
 * busy; returns how many it added. *avail (if set): how many of its
 * nodes could be picked if no job held them. */
static long pick_count(struct ctld *cd, const resv_t *r, const uint8_t *res, const uint8_t *busy,
		       uint32_t want, uint32_t *idx, uint32_t *n, uint32_t *avail)
{
	long pi = r->partition ? part_find(cd, r->partition) : cd->conf->default_part;
	if (pi < 0)
		return -1;
	const conf_part_t *cp = cd->parts[pi].cf;
	uint32_t added = 0, could = 0;
	for (size_t k = 0; k < cp->nnodes && (added < want || avail); k++) {
		uint32_t i = (uint32_t)cp->node_idx[k];
		const node_t *nd = &cd->nodes[i];
		uint32_t s = node_state(cd, nd);
		if (res[i] || nd->base == NODE_DOWN || (s & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL)) ||
		    !node_has_features(nd->cf, r->features))
			continue;
		could++;
		if (busy[i] || nd->base != NODE_IDLE || added >= want)
			continue;
		idx[(*n)++] = i;
		added++;
	}
	if (avail)
		*avail = could;
	return added;
}

/* Choose the nodes of r over [start, end) from nodes_expr (a hostlist,
 * "ALL") or node_cnt idle ones of its partition (the default one if
 * none) with its features: 0 and r->nodes/nnodes, or an errors.h
 * number. */
static int pick_nodes(struct ctld *cd, resv_t *r, const char *nodes_expr, uint32_t node_cnt,
		      char **msg)
{
	uint8_t *res = xcalloc(cd->nnodes ? cd->nnodes : 1, 1);
	uint8_t *busy = xcalloc(cd->nnodes ? cd->nnodes : 1, 1);
	int overlap_ok = (r->flags & (RESV_F_OVERLAP | RESV_F_MAINT)) != 0;
	int ignore_jobs = (r->flags & RESV_F_IGNORE_JOBS) != 0;
	/* Named nodes may overlap where the flags allow; nodes picked by
	 * count are always ones no other reservation holds then. */
	if (!overlap_ok || !(nodes_expr && *nodes_expr))
		mark_reserved(cd, r, r->start, r->end, !(nodes_expr && *nodes_expr), res);
	if (!ignore_jobs)
		mark_busy(cd, r->start, busy);
	uint32_t *idx = NULL, n = 0;
	int rc = 0;
	if (nodes_expr && *nodes_expr) {
		int all = !strcasecmp(nodes_expr, "ALL");
		r->flags = (r->flags & ~RESV_F_ALL_NODES) | (all ? RESV_F_ALL_NODES : 0);
		if (all) {
			idx = xmalloc((cd->nnodes ? cd->nnodes : 1) * sizeof(*idx));
			for (uint32_t i = 0; i < cd->nnodes; i++)
				idx[n++] = i;
		} else if ((rc = resolve_nodes(cd, nodes_expr, &idx, &n))) {
			goto out;
		}
		qsort(idx, n, sizeof(*idx), cmp_u32);
		for (uint32_t i = 0; i < n && !rc; i++) {
			if (res[idx[i]])
				rc = ESLURM_RESERVATION_OVERLAP;
			else if (busy[idx[i]])
				rc = ESLURM_NODES_BUSY;
		}
		if (!n)
			rc = ESLURM_INVALID_NODE_NAME;
		r->flags |= RESV_F_SPEC_NODES;
	} else if (node_cnt) {
		idx = xmalloc((node_cnt ? node_cnt : 1) * sizeof(*idx));
		uint32_t avail = 0;
		if (pick_count(cd, r, res, busy, node_cnt, idx, &n, &avail) < 0) {
			rc = ESLURM_INVALID_PARTITION_NAME;
			goto out;
		}
		r->flags &= ~(RESV_F_SPEC_NODES | RESV_F_ALL_NODES);
		/* as Slurm 22.05: more than the partition has (up, not in
		 * another reservation) is as many as it has */
		if (avail && avail < node_cnt)
			node_cnt = avail;
		if (n < node_cnt) {
			rc = ESLURM_NODES_BUSY;
			*msg = xstrdup("Note, unless nodes are directly requested a reservation must "
				       "exist in a single partition.\nIf no partition is requested "
				       "the default partition is assumed.");
		}
		qsort(idx, n, sizeof(*idx), cmp_u32);
	} else {
		rc = ESLURM_INVALID_NODE_COUNT;
	}
out:
	free(res);
	free(busy);
	if (rc) {
		free(idx);
		return rc;
	}
	free(r->nodes);
	free(r->node_str);
	r->nodes = idx;
	r->nnodes = n;
	r->node_str = node_list_str(cd, idx, n);
	return 0;
}

/* A running or pending job asks for reservation name. */
static int resv_in_use(struct ctld *cd, const char *name)
{
	for (size_t i = 0; i < cd->njobs; i++) {
		const job_t *j = cd->jobs[i];
		/* as Slurm: a job that ended counts no more, even while it
		 * completes (scancel --reservation=X, then delete X) */
		if (JOB_IS_FINISHED(j->state))
			continue;
		if (j->desc && j->desc->reservation && !strcmp(j->desc->reservation, name))
			return 1;
	}
	return 0;
}

/* The flags' rules (Slurm's texts): 0, or an errors.h number and *msg. */
static int check_flags(uint32_t flags, int named_nodes, char **msg)
{
	if (flags & RESV_F_NOT_BUILT) {
		char fl[256];
		resv_flags_fmt(flags & RESV_F_NOT_BUILT, 0, fl, sizeof(fl));
		*msg = xasprintf("Flags=%s: not supported by Sluice", fl);
		return ESLURM_NOT_SUPPORTED;
	}
	if (__builtin_popcount(flags & RESV_F_REPEAT) > 1) {
		*msg = xstrdup("Reservation has multiple reoccurring flags. Please specify only one "
			       "reoccurring flag");
		return ESLURM_NOT_SUPPORTED;
	}
	/* Slurm 22.05 says only "Invalid node name specified" */
	if ((flags & (RESV_F_REPLACE | RESV_F_REPLACE_DOWN)) && named_nodes)
		return ESLURM_INVALID_NODE_NAME;
	if ((flags & (RESV_F_REPLACE | RESV_F_REPLACE_DOWN)) && (flags & RESV_F_STATIC)) {
		*msg = xstrdup("REPLACE and REPLACE_DOWN flags cannot be used with STATIC_ALLOC");
		return ESLURM_NOT_SUPPORTED;
	}
	return 0;
}

static int resv_create(struct ctld *cd, const msg_resv_update_t *m, int64_t now, char **msg)
{
	struct resv_state *rs = st(cd);
	int rc;
	if (m->name && (!*m->name || strpbrk(m->name, " \t\n,=\"'")))
		return ESLURM_RESERVATION_INVALID;
	if (m->name && resv_find(cd, m->name, NULL))
		return ESLURM_RESERVATION_NAME_DUP;
	if ((!m->users || !*m->users) && (!m->accounts || !*m->accounts))
		return ESLURM_RESERVATION_EMPTY;
	if (m->users && *m->users && (rc = check_users(m->users)))
		return rc;
	if (m->accounts && *m->accounts && (rc = check_accounts(cd, m->accounts)))
		return rc;
	if (m->partition && part_find(cd, m->partition) < 0)
		return ESLURM_INVALID_PARTITION_NAME;
	if ((rc = check_flags(m->flags_set & ~RESV_F_CTLD, m->nodes && *m->nodes, msg)))
		return rc;
	resv_t r = { 0 };
	r.flags = m->flags_set & ~RESV_F_CTLD;
	if (r.flags & RESV_F_PURGE_COMP)        /* Slurm's default: 5 minutes */
		r.purge = m->purge_comp ? m->purge_comp : RESV_PURGE_DEFAULT;
	r.start = m->start_time ? m->start_time : now;
	if (r.start < now)
		r.start = now;      /* as Slurm: a start in the past is now */
	if (m->end_time)
		r.end = m->end_time;
	else if (m->duration == TIME_INFINITE)
		r.end = r.start + RESV_INFINITE_SECS;
	else if (m->duration != TIME_NO_VAL)
		r.end = r.start + (int64_t)m->duration * 60;
	if (r.end <= r.start)
		return ESLURM_INVALID_TIME_VALUE;
	r.partition = xstrdup(m->partition && *m->partition ? m->partition : NULL);
	r.features = xstrdup(m->features && *m->features ? m->features : NULL);
	r.users = list_edit(NULL, m->users);
	r.accounts = list_edit(NULL, m->accounts);
	if ((rc = pick_nodes(cd, &r, m->nodes, m->node_cnt, msg))) {
		resv_release(&r);
		return rc;
	}
	r.id = rs->next_id++;
	if (m->name) {
		r.name = xstrdup(m->name);
	} else {
		/* Slurm's generated name: the first user (or account) and
		 * the ResvID */
		const char *who = r.users ? r.users : r.accounts;
		if (*who == '-')
			who++;
		size_t l = strcspn(who, ",");
		r.name = xasprintf("%.*s_%u", (int)l, who, r.id);
		if (resv_find(cd, r.name, NULL)) {
			resv_release(&r);
			return ESLURM_RESERVATION_NAME_DUP;
		}
	}
	r.acct_start = r.start;
	rs->v = xgrow(rs->v, sizeof(*rs->v), rs->n + 1, &rs->a);
	rs->v[rs->n++] = r;
	resv_save(cd, &rs->v[rs->n - 1]);
	db_begin(cd);
	*msg = xstrdup(r.name);
	info("reservation %s created: %s", r.name, r.node_str);
	return 0;
}

/* r changes (to start at new_start): the time_start of its acct_resv
 * row from now on. Before its start the row changes in place; while
 * active, the old period ends now and a new one starts. */
static int64_t period_next(struct ctld *cd, const resv_t *r, int64_t new_start, int64_t now)
{
	if (r->start <= now && r->acct_start < now) {
		sql_add(cd, sqlite3_mprintf("UPDATE acct_resv SET time_end=%lld WHERE resv_id=%u AND "
					    "time_start=%lld;", (long long)now, r->id,
					    (long long)r->acct_start));
		return now;
	}
	if (r->start > now) {
		if (new_start != r->acct_start)
			sql_add(cd, sqlite3_mprintf("DELETE FROM acct_resv WHERE resv_id=%u AND "
						    "time_start=%lld;", r->id, (long long)r->acct_start));
		return new_start;
	}
	return r->acct_start;
}

static int resv_modify(struct ctld *cd, resv_t *r, const msg_resv_update_t *m, int64_t now,
		       char **msg)
{
	int rc;
	if (m->users && *m->users && (rc = check_users(m->users)))
		return rc;
	if (m->accounts && *m->accounts && (rc = check_accounts(cd, m->accounts)))
		return rc;
	if (m->partition && *m->partition && part_find(cd, m->partition) < 0)
		return ESLURM_INVALID_PARTITION_NAME;
	/* Work on a copy: nothing changes unless all of it is valid. */
	resv_t c = *r;
	c.nodes = xmalloc((r->nnodes ? r->nnodes : 1) * sizeof(uint32_t));
	memcpy(c.nodes, r->nodes, r->nnodes * sizeof(uint32_t));
	c.node_str = xstrdup(r->node_str);
	c.partition = xstrdup(m->partition ? (*m->partition ? m->partition : NULL) : r->partition);
	c.features = xstrdup(m->features ? (*m->features ? m->features : NULL) : r->features);
	c.users = m->users ? list_edit(r->users, m->users) : xstrdup(r->users);
	c.accounts = m->accounts ? list_edit(r->accounts, m->accounts) : xstrdup(r->accounts);
	c.name = xstrdup(r->name);
	c.flags = (r->flags | (m->flags_set & ~RESV_F_CTLD)) & ~(m->flags_clear & ~RESV_F_CTLD);
	/* as Slurm: its time is set when the flag is added, not changed
	 * while it stays */
	if (!(c.flags & RESV_F_PURGE_COMP))
		c.purge = 0;
	else if (!(r->flags & RESV_F_PURGE_COMP))
		c.purge = m->purge_comp ? m->purge_comp : RESV_PURGE_DEFAULT;
	if ((rc = check_flags(c.flags, (c.flags & RESV_F_SPEC_NODES) || (m->nodes && *m->nodes), msg))) {
		resv_release(&c);
		return rc;
	}
	int64_t dur = r->end - r->start;
	if (m->start_time) {
		if (r->start <= now && m->start_time != r->start) {
			/* moving an active one: as Slurm, allowed, to now or later */
		}
		c.start = m->start_time < now ? now : m->start_time;
		c.end = c.start + dur;
	}
	if (m->end_time)
		c.end = m->end_time;
	else if (m->duration == TIME_INFINITE)
		c.end = c.start + RESV_INFINITE_SECS;
	else if (m->duration != TIME_NO_VAL)
		c.end = c.start + (int64_t)m->duration * 60;
	/* Duration+= / -=: within a year's minutes either way (the field
	 * comes off the wire; more would overflow the end) */
	int bad_delta = m->duration_delta > RESV_INFINITE_SECS / 60 ||
			m->duration_delta < -(RESV_INFINITE_SECS / 60);
	if (!bad_delta)
		c.end += m->duration_delta * 60;
	rc = 0;
	if (bad_delta)
		rc = ESLURM_INVALID_TIME_VALUE;
	else if (!c.users && !c.accounts)
		rc = ESLURM_RESERVATION_EMPTY;
	else if (c.end <= c.start || c.end <= now)
		rc = ESLURM_INVALID_TIME_VALUE;
	else if ((m->nodes && *m->nodes) || m->node_cnt)
		rc = pick_nodes(cd, &c, m->nodes, m->node_cnt, msg);
	if (!rc && !(m->nodes && *m->nodes) && !m->node_cnt && !(c.flags & (RESV_F_OVERLAP | RESV_F_MAINT))) {
		/* new times must not run into another reservation */
		uint8_t *res = xcalloc(cd->nnodes ? cd->nnodes : 1, 1);
		mark_reserved(cd, r, c.start, c.end, 0, res);
		for (uint32_t i = 0; i < c.nnodes && !rc; i++)
			if (res[c.nodes[i]])
				rc = ESLURM_RESERVATION_OVERLAP;
		free(res);
	}
	if (rc) {
		resv_release(&c);
		return rc;
	}
	c.acct_start = period_next(cd, r, c.start, now);
	resv_release(r);
	*r = c;
	resv_save(cd, r);
	db_begin(cd);
	info("reservation %s updated", r->name);
	return 0;
}

static void resv_remove(struct ctld *cd, uint32_t pos, int64_t now)
{
	struct resv_state *rs = st(cd);
	resv_t *r = &rs->v[pos];
	turn_note(cd, r->id);
	if (r->start <= now)
		sql_add(cd, sqlite3_mprintf("UPDATE acct_resv SET time_end=MIN(time_end, %lld) WHERE "
					    "resv_id=%u AND time_start=%lld;", (long long)now, r->id,
					    (long long)r->acct_start));
	else
		sql_add(cd, sqlite3_mprintf("UPDATE acct_resv SET deleted=1 WHERE resv_id=%u AND "
					    "time_start=%lld;", r->id, (long long)r->acct_start));
	sql_add(cd, sqlite3_mprintf("DELETE FROM resvs WHERE resv_id=%u;", r->id));
	resv_release(r);
	memmove(r, r + 1, (rs->n - pos - 1) * sizeof(*r));
	rs->n--;
	db_begin(cd);
}

int resv_update(struct ctld *cd, const msg_resv_update_t *m, uint32_t uid, char **msg)
{
	/* Slurm answers a user who may not with "Invalid user id" */
	if (!is_operator(cd, uid))
		return ESLURM_USER_ID_MISSING;
	int64_t now = ctld_now();
	int rc;
	uint32_t pos = 0;
	resv_t *r = m->name ? resv_find(cd, m->name, &pos) : NULL;
	switch (m->op) {
	case RESV_OP_CREATE:
		rc = resv_create(cd, m, now, msg);
		break;
	case RESV_OP_UPDATE:
		rc = r ? resv_modify(cd, r, m, now, msg) : ESLURM_RESERVATION_INVALID;
		break;
	case RESV_OP_DELETE:
		if (!r)
			rc = ESLURM_RESERVATION_INVALID;
		else if (resv_in_use(cd, r->name))
			rc = ESLURM_RESERVATION_BUSY;
		else {
			info("reservation %s deleted by uid %u", r->name, uid);
			resv_remove(cd, pos, now);
			rc = 0;
		}
		break;
	default:
		rc = SLUICE_E_PROTOCOL;
	}
	if (!rc)
		resv_changed(cd, now);
	return rc;
}

static void fill_info(struct ctld *cd, const resv_t *r, resv_info_t *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->name = xstrdup(r->name);
	ri->resv_id = r->id;
	ri->start_time = r->start;
	ri->end_time = r->end;
	ri->nodes = xstrdup(r->node_str);
	ri->node_cnt = r->nnodes;
	ri->core_cnt = resv_cores(cd, r);
	ri->features = xstrdup(r->features);
	ri->partition = xstrdup(r->partition);
	ri->flags = r->flags;
	uint64_t cpus = 0;
	for (uint32_t i = 0; i < r->nnodes; i++)
		cpus += cd->nodes[r->nodes[i]].cf->cpus;
	ri->tres = xasprintf("cpu=%" PRIu64, cpus);
	ri->users = xstrdup(r->users);
	ri->accounts = xstrdup(r->accounts);
	ri->purge_comp = r->purge;
}

void resv_info_reply(struct ctld *cd, conn_t *c, const msg_info_req_t *req)
{
	struct resv_state *rs = st(cd);
	msg_resv_info_t m = { .last_update = rs->last_update };
	m.resvs = xcalloc(rs->n ? rs->n : 1, sizeof(*m.resvs));
	for (uint32_t i = 0; i < rs->n; i++) {
		if (req->name && *req->name && strcmp(req->name, rs->v[i].name))
			continue;
		fill_info(cd, &rs->v[i], &m.resvs[m.nresvs++]);
	}
	conn_send(c, MSG_RESV_INFO, &m);
	proto_free(MSG_RESV_INFO, &m);
}

/* Pending jobs of a reservation that ended lose it and are held, as
 * Slurm's (hold 0: NO_HOLD_JOBS_AFTER_END, they may run anywhere). */
static void resv_release_jobs(struct ctld *cd, const char *name, int hold)
{
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		if ((j->state & JOB_STATE_BASE) != JOB_PENDING || !j->desc ||
		    !j->desc->reservation || strcmp(j->desc->reservation, name))
			continue;
		intern_put(j->desc->reservation);   /* interned (jobs.c desc_intern) */
		j->desc->reservation = NULL;
		db_job_update_desc(cd, j);
		if (hold && !j->hold) {
			j->hold = WAIT_HELD;
			j->reason = WAIT_HELD;
			j->priority = 0;
		}
		info("job %u: reservation %s ended%s", j->job_id, name, hold ? ", job held" : "");
		job_dirty(cd, j);
	}
}

/* A node a reservation gives up: down, drained or failing (one that
 * stops responding is down once SlurmdTimeout has passed). */
static int node_lost(struct ctld *cd, uint32_t x)
{
	const node_t *nd = &cd->nodes[x];
	return nd->base == NODE_DOWN || (node_state(cd, nd) & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL));
}

/* As Slurm 22.05: a reservation whose nodes were picked by count (not
 * STATIC_ALLOC; MAINT ones too) gives up those that went down, drained
 * or fail (with REPLACE, once active, also those jobs hold) for idle nodes of its
 * partition that nothing else holds over its time, as many as there
 * are; nodes without a replacement stay. 1 if its nodes changed. */
static int resv_replace_nodes(struct ctld *cd, resv_t *r, int64_t now)
{
	if ((r->flags & (RESV_F_SPEC_NODES | RESV_F_STATIC)) || !r->nnodes)
		return 0;
	uint32_t nn = cd->nnodes ? cd->nnodes : 1;
	uint8_t *held = NULL;
	if ((r->flags & RESV_F_REPLACE) && r->start <= now) {   /* once active */
		held = xcalloc(nn, 1);
		mark_busy(cd, now, held);
	}
	uint8_t *bad = xcalloc(r->nnodes, 1);
	uint32_t nbad = 0;
	for (uint32_t i = 0; i < r->nnodes; i++)
		if (node_lost(cd, r->nodes[i]) || (held && held[r->nodes[i]]))
			bad[i] = 1, nbad++;
	free(held);
	if (!nbad) {
		free(bad);
		return 0;
	}
	int64_t from = r->start > now ? r->start : now;
	uint8_t *res = xcalloc(nn, 1), *busy = xcalloc(nn, 1);
	mark_reserved(cd, r, from, r->end, 1, res);
	for (uint32_t i = 0; i < r->nnodes; i++)
		res[r->nodes[i]] = 1;          /* its own: not picked again */
	if (!(r->flags & RESV_F_IGNORE_JOBS))
		mark_busy(cd, from, busy);
	uint32_t *idx = xmalloc((r->nnodes + nbad) * sizeof(*idx)), n = 0;
	for (uint32_t i = 0; i < r->nnodes; i++)
		if (!bad[i])
			idx[n++] = r->nodes[i];
	long got = pick_count(cd, r, res, busy, nbad, idx, &n, NULL);
	if (got < 0)
		got = 0;
	for (uint32_t i = 0, keep = nbad - (uint32_t)got; i < r->nnodes && keep; i++)
		if (bad[i])
			idx[n++] = r->nodes[i], keep--;
	free(res);
	free(busy);
	free(bad);
	if (!got) {
		free(idx);
		return 0;
	}
	qsort(idx, n, sizeof(*idx), cmp_u32);
	char *was = r->node_str;
	r->node_str = node_list_str(cd, idx, n);
	info("reservation %s: %ld node(s) replaced, %s now %s", r->name, got, was, r->node_str);
	free(was);
	free(r->nodes);
	r->nodes = idx;
	r->nnodes = n;
	r->acct_start = period_next(cd, r, r->start, now);
	resv_save(cd, r);
	db_begin(cd);
	return 1;
}

/* PURGE_COMP: an active reservation without a pending or running job
 * for its purge time is removed (the clock starts when it is first seen
 * idle). */
static int resv_purge_due(struct ctld *cd, resv_t *r, int64_t now)
{
	if (!(r->flags & RESV_F_PURGE_COMP) || r->start > now)
		return 0;
	if (resv_in_use(cd, r->name)) {
		r->idle_since = 0;
		return 0;
	}
	if (!r->idle_since)
		r->idle_since = now;
	return now - r->idle_since >= (int64_t)r->purge;
}

void resv_periodic(struct ctld *cd, int64_t now)
{
	struct resv_state *rs = st(cd);
	int changed = 0;
	for (uint32_t i = 0; i < rs->n;) {
		resv_t *r = &rs->v[i];
		if (r->end > now && resv_purge_due(cd, r, now)) {
			info("reservation %s purged: no job for %u s (PURGE_COMP)", r->name, r->purge);
			resv_remove(cd, i, now);
			changed = 1;
			continue;
		}
		if (r->end > now) {
			if (r->start <= now && rs->flags_at && rs->flags_at < r->start)
				changed = 1;     /* it started since the flags were made */
			changed |= resv_replace_nodes(cd, r, now);
			i++;
			continue;
		}
		if (r->flags & RESV_F_REPEAT) {
			int64_t dur = r->end - r->start;
			while (r->end <= now) {
				r->start = resv_next_start(r->start, r->flags);
				r->end = r->start + dur;
			}
			r->acct_start = r->start;
			resv_save(cd, r);
			db_begin(cd);
			info("reservation %s rolled to its next period", r->name);
			changed = 1;
			i++;
			continue;
		}
		info("reservation %s ended", r->name);
		char *name = xstrdup(r->name);
		int hold = !(r->flags & RESV_F_NO_HOLD);
		resv_remove(cd, i, r->end);
		resv_release_jobs(cd, name, hold);
		free(name);
		changed = 1;
	}
	if (changed)
		resv_changed(cd, now);
}

int resv_job_check(struct ctld *cd, const job_t *j, uint32_t uid)
{
	const char *name = j->desc->reservation;
	if (!name || !*name)
		return 0;
	resv_t *r = resv_find(cd, name, NULL);
	if (!r)
		return ESLURM_RESERVATION_INVALID;
	if (uid == 0 || uid == cd->slurm_uid)
		return 0;
	int ok = 1;
	if (r->users) {
		char *u = names_user(uid);
		ok = list_admits(r->users, u);
		free(u);
	}
	if (ok && r->accounts)
		ok = list_admits(r->accounts, j->desc->account);
	return ok ? 0 : ESLURM_RESERVATION_ACCESS;
}

void resv_sched_fill(struct ctld *cd)
{
	struct resv_state *rs = st(cd);
	free(rs->sr);
	rs->sr = xcalloc(rs->n ? rs->n : 1, sizeof(*rs->sr));
	for (uint32_t i = 0; i < rs->n; i++) {
		const resv_t *r = &rs->v[i];
		rs->sr[i].name = r->name;
		rs->sr[i].nodes = r->nodes;
		rs->sr[i].nnodes = r->nnodes;
		rs->sr[i].start = r->start;
		rs->sr[i].end = r->end;
		rs->sr[i].flags = (r->flags & RESV_F_MAINT) ? SCHED_RESV_F_MAINT : 0;
	}
	cd->sched.resvs = rs->sr;
	cd->sched.nresvs = rs->n;
}

uint32_t resv_sched_index(struct ctld *cd, const char *name)
{
	if (!name || !*name || !cd->resv)
		return 0;
	/* sched_glue_build (a reconfigure) starts cd->sched afresh */
	if (cd->sched.resvs != cd->resv->sr || cd->sched.nresvs != cd->resv->n)
		resv_sched_fill(cd);
	uint32_t pos;
	return resv_find(cd, name, &pos) ? pos + 1 : 0;
}

uint32_t resv_id_of(struct ctld *cd, const char *name)
{
	if (!name || !*name || !cd->resv)
		return 0;
	const resv_t *r = resv_find(cd, name, NULL);
	return r ? r->id : 0;
}

uint32_t resv_node_flags(const struct ctld *cd, uint32_t idx)
{
	struct resv_state *rs = cd->resv;
	if (!rs || !rs->n || idx >= cd->nnodes)
		return 0;
	int64_t now = ctld_now();
	if (!rs->flags_at || !rs->nflags) {
		rs->nflags = xrealloc(rs->nflags, (cd->nnodes ? cd->nnodes : 1) * sizeof(uint32_t));
		memset(rs->nflags, 0, cd->nnodes * sizeof(uint32_t));
		for (uint32_t i = 0; i < rs->n; i++) {
			const resv_t *r = &rs->v[i];
			if (r->start > now || r->end <= now)
				continue;
			for (uint32_t k = 0; k < r->nnodes; k++)
				rs->nflags[r->nodes[k]] |= NODE_FLAG_RESERVED |
					((r->flags & RESV_F_MAINT) ? NODE_FLAG_MAINT : 0);
		}
		rs->flags_at = now;
	}
	return rs->nflags[idx];
}

#define RESV_SELECT "SELECT resv_id, name, start_time, end_time, nodes, partition, features," \
	" users, accounts, flags, acct_start, purge_comp FROM resvs"

/* One row of RESV_SELECT as a reservation. */
static resv_t resv_row(struct ctld *cd, sqlite3_stmt *q)
{
	struct resv_state *rs = st(cd);
	resv_t r = { 0 };
	r.id = (uint32_t)sqlite3_column_int64(q, 0);
	r.name = xstrdup((const char *)sqlite3_column_text(q, 1));
	r.start = sqlite3_column_int64(q, 2);
	r.end = sqlite3_column_int64(q, 3);
	const char *nodes = (const char *)sqlite3_column_text(q, 4);
	r.partition = xstrdup((const char *)sqlite3_column_text(q, 5));
	r.features = xstrdup((const char *)sqlite3_column_text(q, 6));
	r.users = xstrdup((const char *)sqlite3_column_text(q, 7));
	r.accounts = xstrdup((const char *)sqlite3_column_text(q, 8));
	r.flags = (uint32_t)sqlite3_column_int64(q, 9);
	r.acct_start = sqlite3_column_int64(q, 10);
	r.purge = (uint32_t)sqlite3_column_int64(q, 11);
	/* Nodes no longer in the config are dropped from it. */
	hostlist_t *hl = nodes ? hostlist_create(nodes, NULL) : NULL;
	size_t c = hl ? hostlist_count(hl) : 0;
	r.nodes = xmalloc((c ? c : 1) * sizeof(uint32_t));
	for (size_t i = 0; i < c; i++) {
		long x = conf_node_find(cd->conf, hostlist_nth(hl, i));
		if (x >= 0)
			r.nodes[r.nnodes++] = (uint32_t)x;
	}
	hostlist_destroy(hl);
	qsort(r.nodes, r.nnodes, sizeof(uint32_t), cmp_u32);
	r.node_str = node_list_str(cd, r.nodes, r.nnodes);
	if (r.id >= rs->next_id)
		rs->next_id = r.id + 1;
	return r;
}

void resv_load(struct ctld *cd)
{
	struct resv_state *rs = st(cd);
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(cd->db, "SELECT MAX(resv_id) FROM acct_resv", -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL) {
		uint32_t m = (uint32_t)sqlite3_column_int64(q, 0);
		if (m >= rs->next_id)
			rs->next_id = m + 1;
	}
	sqlite3_finalize(q);
	q = NULL;
	if (sqlite3_prepare_v2(cd->db, RESV_SELECT " ORDER BY resv_id", -1, &q, NULL) != SQLITE_OK) {
		error("state DB: cannot read reservations: %s", sqlite3_errmsg(cd->db));
		return;
	}
	while (sqlite3_step(q) == SQLITE_ROW) {
		resv_t r = resv_row(cd, q);
		rs->v = xgrow(rs->v, sizeof(*rs->v), rs->n + 1, &rs->a);
		rs->v[rs->n++] = r;
	}
	sqlite3_finalize(q);
	rs->last_update = ctld_now();
	resv_sched_fill(cd);
	if (rs->n)
		info("recovered %u reservations", rs->n);
}

void resv_nodes_remap(struct ctld *cd, const node_t *old, uint32_t nold)
{
	struct resv_state *rs = cd->resv;
	if (!rs || !rs->n)
		return;
	for (uint32_t i = 0; i < rs->n; i++) {
		resv_t *r = &rs->v[i];
		uint32_t k = 0;
		for (uint32_t x = 0; x < r->nnodes; x++) {
			long to = r->nodes[x] < nold ? conf_node_find(cd->conf, old[r->nodes[x]].cf->name) : -1;
			if (to >= 0)
				r->nodes[k++] = (uint32_t)to;
		}
		r->nnodes = k;
		qsort(r->nodes, r->nnodes, sizeof(uint32_t), cmp_u32);
		char *s = node_list_str(cd, r->nodes, r->nnodes);
		if (strcmp(s, r->node_str)) {
			info("reservation %s: nodes %s after reconfigure (were %s)", r->name, s, r->node_str);
			free(r->node_str);
			r->node_str = s;
			resv_save(cd, r);
			db_begin(cd);
		} else {
			free(s);
		}
	}
	free(rs->nflags);
	rs->nflags = NULL;
	resv_changed(cd, ctld_now());
}


int resv_turn_noted(const struct ctld *cd)
{
	return cd->resv && cd->resv->nturn_ids;
}

void resv_turn_forget(struct ctld *cd)
{
	if (cd->resv)
		cd->resv->nturn_ids = 0;
}

/* Put reservation id back as its committed row says (none: it goes). */
static void undo_one(struct ctld *cd, uint32_t id)
{
	struct resv_state *rs = st(cd);
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(cd->db, RESV_SELECT " WHERE resv_id=?1", -1, &q, NULL) != SQLITE_OK) {
		error("reservation %u: cannot read its committed record: %s; its uncommitted change stays",
		      id, sqlite3_errmsg(cd->db));
		return;
	}
	sqlite3_bind_int64(q, 1, id);
	int rc = sqlite3_step(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		error("reservation %u: cannot read its committed record: %s; its uncommitted change stays",
		      id, sqlite3_errmsg(cd->db));
		sqlite3_finalize(q);
		return;
	}
	int64_t idle_since = 0;
	uint32_t at = rs->n;
	for (uint32_t i = 0; i < rs->n; i++) {
		if (rs->v[i].id == id) {
			idle_since = rs->v[i].idle_since;
			resv_release(&rs->v[i]);
			memmove(&rs->v[i], &rs->v[i + 1], (rs->n - i - 1) * sizeof(*rs->v));
			rs->n--;
			at = i;
			break;
		}
	}
	if (rc == SQLITE_ROW) {
		resv_t r = resv_row(cd, q);
		r.idle_since = idle_since;
		if (at == rs->n)      /* it was gone: back in id order */
			for (at = 0; at < rs->n && rs->v[at].id < id; at++)
				;
		rs->v = xgrow(rs->v, sizeof(*rs->v), rs->n + 1, &rs->a);
		memmove(&rs->v[at + 1], &rs->v[at], (rs->n - at) * sizeof(*rs->v));
		rs->v[at] = r;
		rs->n++;
	}
	sqlite3_finalize(q);
	info("reservation %u: a change to it was not committed; put back as committed", id);
}

void resv_undo(struct ctld *cd)
{
	struct resv_state *rs = cd->resv;
	if (!rs)
		return;
	size_t k = 0;
	for (size_t i = 0; i < rs->nsql; i++) {
		if (rs->sql_req[i]) {
			sqlite3_free(rs->sql[i]);
			continue;
		}
		rs->sql_req[k] = 0;
		rs->sql[k++] = rs->sql[i];
	}
	rs->nsql = k;
	if (!rs->nturn_ids)
		return;
	for (size_t i = 0; i < rs->nturn_ids; i++)
		undo_one(cd, rs->turn_ids[i]);
	rs->nturn_ids = 0;
	resv_changed(cd, ctld_now());
}
