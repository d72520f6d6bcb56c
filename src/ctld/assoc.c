/*
 * assoc.c: clusters, accounts, users, associations, QOS and coordinators
 * (acct.h): the model, its tables in the state DB, the lookups the other
 * accounting modules use per job, and a job's Account/QOS at submission.
 * sacctmgr's verbs are in sacctmgr_rpc.c.
 *
 * Tables (written by acct_commit inside db_commit's transaction, so a
 * sacctmgr change is durable before it is answered and never half there):
 *   acct_cluster(name PRIMARY KEY, created)
 *   acct_account(name PRIMARY KEY, descr, org)
 *   acct_user(name PRIMARY KEY, admin, def_acct)
 *   acct_coord(user, account)                 -- coordinators
 *   acct_assoc(id PRIMARY KEY, parent_id, account, user, partition, shares,
 *              priority, def_qos, qos, lim)  -- qos: "1,3"; lim: acct_lim text
 *   acct_qos(id PRIMARY KEY, name UNIQUE, descr, priority, flags, preempt,
 *            preempt_mode, grace, usage_factor, usage_thres, lim)
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld.h"
#include "acct_lim.h"
#include "assoc_int.h"
#include "errors.h"
#include "intern.h"
#include "log.h"
#include "strbuf.h"
#include "xalloc.h"

uint32_t acct_enforce_parse(const char *v)
{
	uint32_t f = 0;
	if (!v)
		return 0;
	char *dup = xstrdup(v), *save = NULL;
	for (char *w = strtok_r(dup, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(w, "associations"))
			f |= ACCT_ENF_ASSOCS;
		else if (!strcasecmp(w, "limits"))
			f |= ACCT_ENF_ASSOCS | ACCT_ENF_LIMITS;
		else if (!strcasecmp(w, "qos"))
			f |= ACCT_ENF_ASSOCS | ACCT_ENF_QOS;
		else if (!strcasecmp(w, "safe"))
			f |= ACCT_ENF_ASSOCS | ACCT_ENF_LIMITS | ACCT_ENF_SAFE;
		else if (!strcasecmp(w, "wckeys"))
			f |= ACCT_ENF_ASSOCS | ACCT_ENF_WCKEYS;
		else if (!strcasecmp(w, "nojobs"))
			f |= ACCT_ENF_NOJOBS | ACCT_ENF_NOSTEPS;
		else if (!strcasecmp(w, "nosteps"))
			f |= ACCT_ENF_NOSTEPS;
		else if (!strcasecmp(w, "all"))
			f |= ACCT_ENF_ASSOCS | ACCT_ENF_LIMITS | ACCT_ENF_QOS | ACCT_ENF_SAFE
				| ACCT_ENF_WCKEYS;
	}
	free(dup);
	return f;
}

int is_admin(const ctld_t *cd, uint32_t uid)
{
	return uid == 0 || uid == cd->slurm_uid;
}

uint32_t acct_admin_level(ctld_t *cd, uint32_t uid)
{
	if (is_admin(cd, uid))
		return ACCT_ADMIN_SUPER;
	acct_user_t *u = acct_user_by_uid(cd, uid);
	return u ? u->admin_level : ACCT_ADMIN_NONE;
}

int acct_is_operator(ctld_t *cd, uint32_t uid)
{
	return acct_admin_level(cd, uid) >= ACCT_ADMIN_OPERATOR;
}

int is_super(const ctld_t *cd, uint32_t uid)
{
	return acct_admin_level((ctld_t *)cd, uid) == ACCT_ADMIN_SUPER;
}

int is_operator(const ctld_t *cd, uint32_t uid)
{
	return acct_admin_level((ctld_t *)cd, uid) >= ACCT_ADMIN_OPERATOR;
}

int job_manager_ok(ctld_t *cd, const job_t *j, uint32_t uid)
{
	return is_operator(cd, uid) || (j->desc && acct_is_coord(cd, uid, j->desc->account));
}

/* ---- lookups ---- */

/* One open-addressing table of record indexes + 1 (0 = empty). */
typedef struct hidx {
	uint32_t *slot;
	uint32_t mask;
} hidx_t;

struct acct_index {
	hidx_t account, user, user_uid, assoc_id, assoc_key, qos_id, qos_name;
};

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull;   /* separator: ("ab","c") != ("a","bc") */
}

static uint64_t hash_ci(const char *s)
{
	uint64_t h = 14695981039346656037ull;
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		h = (h ^ c) * 1099511628211ull;
	}
	return h;
}

static uint64_t hash_u32(uint32_t x)
{
	uint64_t h = x * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 29);
}

static uint64_t hash_assoc_key(const char *user, const char *account, const char *part)
{
	uint64_t h = 14695981039346656037ull;
	h = hash_str(h, user);
	h = hash_str(h, account);
	return hash_str(h, part);
}

static void hidx_init(hidx_t *t, uint32_t n)
{
	uint32_t size = 16;
	while (size < n * 2 + 1)
		size *= 2;
	free(t->slot);
	t->slot = xcalloc(size, sizeof(uint32_t));
	t->mask = size - 1;
}

static void hidx_put(hidx_t *t, uint64_t h, uint32_t i)
{
	uint32_t s = (uint32_t)h & t->mask;
	while (t->slot[s])
		s = (s + 1) & t->mask;
	t->slot[s] = i + 1;
}

/* Iterate the candidates of hash h: *pos starts at UINT32_MAX; returns the
 * next record index or UINT32_MAX when done. */
static uint32_t hidx_next(const hidx_t *t, uint64_t h, uint32_t *pos)
{
	if (!t->slot)
		return UINT32_MAX;
	*pos = *pos == UINT32_MAX ? ((uint32_t)h & t->mask) : ((*pos + 1) & t->mask);
	return t->slot[*pos] ? t->slot[*pos] - 1 : UINT32_MAX;
}

static int streq0(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b;
	return !strcmp(a, b);
}

static void acct_reindex(acct_t *m)
{
	if (!m->ix)
		m->ix = xcalloc(1, sizeof(*m->ix));
	struct acct_index *x = m->ix;
	hidx_init(&x->account, m->naccounts);
	for (uint32_t i = 0; i < m->naccounts; i++)
		hidx_put(&x->account, hash_ci(m->accounts[i].name), i);
	hidx_init(&x->user, m->nusers);
	hidx_init(&x->user_uid, m->nusers);
	for (uint32_t i = 0; i < m->nusers; i++) {
		hidx_put(&x->user, hash_ci(m->users[i].name), i);
		if (m->users[i].uid != UINT32_MAX)
			hidx_put(&x->user_uid, hash_u32(m->users[i].uid), i);
	}
	hidx_init(&x->assoc_id, m->nassocs);
	hidx_init(&x->assoc_key, m->nassocs);
	for (uint32_t i = 0; i < m->nassocs; i++) {
		const acct_assoc_t *a = &m->assocs[i];
		hidx_put(&x->assoc_id, hash_u32(a->id), i);
		hidx_put(&x->assoc_key, hash_assoc_key(a->user, a->account, a->partition), i);
	}
	hidx_init(&x->qos_id, m->nqos);
	hidx_init(&x->qos_name, m->nqos);
	for (uint32_t i = 0; i < m->nqos; i++) {
		hidx_put(&x->qos_id, hash_u32(m->qos[i].id), i);
		hidx_put(&x->qos_name, hash_ci(m->qos[i].name), i);
	}
}

void acct_changed(ctld_t *cd)
{
	acct_reindex(&cd->acct);
	cd->acct.gen++;
	cd->acct.dirty = 1;
	turn_acct_changed(cd);
}

acct_account_t *acct_account_find(ctld_t *cd, const char *name)
{
	acct_t *m = &cd->acct;
	if (!name || !m->ix)
		return NULL;
	uint64_t h = hash_ci(name);
	uint32_t pos = UINT32_MAX, i;
	while ((i = hidx_next(&m->ix->account, h, &pos)) != UINT32_MAX)
		if (!strcasecmp(m->accounts[i].name, name))
			return &m->accounts[i];
	return NULL;
}

acct_user_t *acct_user_find(ctld_t *cd, const char *name)
{
	acct_t *m = &cd->acct;
	if (!name || !m->ix)
		return NULL;
	uint64_t h = hash_ci(name);
	uint32_t pos = UINT32_MAX, i;
	while ((i = hidx_next(&m->ix->user, h, &pos)) != UINT32_MAX)
		if (!strcasecmp(m->users[i].name, name))
			return &m->users[i];
	return NULL;
}

acct_user_t *acct_user_by_uid(ctld_t *cd, uint32_t uid)
{
	acct_t *m = &cd->acct;
	if (!m->ix || uid == UINT32_MAX)
		return NULL;
	uint64_t h = hash_u32(uid);
	uint32_t pos = UINT32_MAX, i;
	while ((i = hidx_next(&m->ix->user_uid, h, &pos)) != UINT32_MAX)
		if (m->users[i].uid == uid)
			return &m->users[i];
	return NULL;
}

acct_assoc_t *acct_assoc_by_id(ctld_t *cd, uint32_t id)
{
	acct_t *m = &cd->acct;
	if (!m->ix || !id)
		return NULL;
	uint64_t h = hash_u32(id);
	uint32_t pos = UINT32_MAX, i;
	while ((i = hidx_next(&m->ix->assoc_id, h, &pos)) != UINT32_MAX)
		if (m->assocs[i].id == id)
			return &m->assocs[i];
	return NULL;
}

/* s lower-cased into buf (len bytes) or, when longer, a malloc'd copy
 * (*heap set to free it). */
static const char *lower_into(const char *s, char *buf, size_t len, char **heap)
{
	if (!s)
		return NULL;
	size_t n = strlen(s);
	char *d = n < len ? buf : (*heap = xmalloc(n + 1));
	for (size_t i = 0; i <= n; i++)
		d[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
	return d;
}

acct_assoc_t *acct_assoc_find(ctld_t *cd, const char *user, const char *account,
			      const char *partition)
{
	acct_t *m = &cd->acct;
	if (!m->ix || !account)
		return NULL;
	/* names are kept lower-case (as slurmdbd does); no allocation for
	 * the usual short names: a4/a5 look up per job per pass */
	char ub[128], ab[128], *uh = NULL, *ah = NULL;
	const char *u = lower_into(user, ub, sizeof(ub), &uh);
	const char *a = lower_into(account, ab, sizeof(ab), &ah);
	uint64_t h = hash_assoc_key(u, a, partition);
	uint32_t pos = UINT32_MAX, i;
	acct_assoc_t *found = NULL;
	while ((i = hidx_next(&m->ix->assoc_key, h, &pos)) != UINT32_MAX) {
		acct_assoc_t *x = &m->assocs[i];
		if (streq0(x->user, u) && !strcmp(x->account, a) && streq0(x->partition, partition)) {
			found = x;
			break;
		}
	}
	free(uh);
	free(ah);
	return found;
}

acct_qos_t *acct_qos_by_id(ctld_t *cd, uint32_t id)
{
	acct_t *m = &cd->acct;
	if (!m->ix || !id)
		return NULL;
	uint64_t h = hash_u32(id);
	uint32_t pos = UINT32_MAX, i;
	while ((i = hidx_next(&m->ix->qos_id, h, &pos)) != UINT32_MAX)
		if (m->qos[i].id == id)
			return &m->qos[i];
	return NULL;
}

acct_qos_t *acct_qos_by_name(ctld_t *cd, const char *name)
{
	acct_t *m = &cd->acct;
	if (!m->ix || !name)
		return NULL;
	uint64_t h = hash_ci(name);
	uint32_t pos = UINT32_MAX, i;
	while ((i = hidx_next(&m->ix->qos_name, h, &pos)) != UINT32_MAX)
		if (!strcasecmp(m->qos[i].name, name))
			return &m->qos[i];
	return NULL;
}

acct_assoc_t *acct_assoc_parent(ctld_t *cd, const acct_assoc_t *a)
{
	return a && a->parent_id ? acct_assoc_by_id(cd, a->parent_id) : NULL;
}

/* A user association's parent is its account's association; the walk up
 * is bounded by the tree's depth (a cycle is impossible: sacctmgr never
 * makes an account its own ancestor), with a guard all the same. */
#define ACCT_MAX_DEPTH 64

uint32_t acct_assoc_def_qos(ctld_t *cd, const acct_assoc_t *a)
{
	for (int d = 0; a && d < ACCT_MAX_DEPTH; d++, a = acct_assoc_parent(cd, a))
		if (a->def_qos_id)
			return a->def_qos_id;
	return 0;
}

const acct_assoc_t *acct_assoc_qos_src(ctld_t *cd, const acct_assoc_t *a)
{
	for (int d = 0; a && d < ACCT_MAX_DEPTH; d++, a = acct_assoc_parent(cd, a))
		if (a->nqos)
			return a;
	return NULL;
}

int acct_assoc_qos_allowed(ctld_t *cd, const acct_assoc_t *a, uint32_t qos_id)
{
	const acct_assoc_t *s = acct_assoc_qos_src(cd, a);
	for (uint32_t i = 0; s && i < s->nqos; i++)
		if (s->qos_ids[i] == qos_id)
			return 1;
	return 0;
}

void acct_assoc_eff_lim(ctld_t *cd, const acct_assoc_t *a, lim_set_t *out)
{
	*out = a->lim;
	const acct_assoc_t *p = acct_assoc_parent(cd, a);
	for (int d = 0; p && d < ACCT_MAX_DEPTH; d++, p = acct_assoc_parent(cd, p)) {
		uint64_t *o[] = { &out->max_jobs, &out->max_submit, &out->max_wall };
		const uint64_t *q[] = { &p->lim.max_jobs, &p->lim.max_submit, &p->lim.max_wall };
		for (size_t i = 0; i < ARRAY_SIZE(o); i++)
			if (*o[i] == LIM_UNSET)
				*o[i] = *q[i];
		for (int t = 0; t < LIM_TRES_N; t++) {
			if (out->max_tres_pj.v[t] == LIM_UNSET)
				out->max_tres_pj.v[t] = p->lim.max_tres_pj.v[t];
			if (out->max_tres_pn.v[t] == LIM_UNSET)
				out->max_tres_pn.v[t] = p->lim.max_tres_pn.v[t];
			if (out->max_tres_mins_pj.v[t] == LIM_UNSET)
				out->max_tres_mins_pj.v[t] = p->lim.max_tres_mins_pj.v[t];
		}
	}
}

void acct_assoc_bound_lim(ctld_t *cd, const acct_assoc_t *a, lim_set_t *out)
{
	acct_assoc_eff_lim(cd, a, out);
	/* Grp* limits bind every association below each one that sets them:
	 * the lowest along the way up counts. */
	const acct_assoc_t *p = acct_assoc_parent(cd, a);
	for (int d = 0; p && d < ACCT_MAX_DEPTH; d++, p = acct_assoc_parent(cd, p)) {
		uint64_t *o[] = { &out->grp_jobs, &out->grp_submit, &out->grp_wall };
		const uint64_t *q[] = { &p->lim.grp_jobs, &p->lim.grp_submit, &p->lim.grp_wall };
		for (size_t i = 0; i < ARRAY_SIZE(o); i++)
			if (*q[i] < *o[i])
				*o[i] = *q[i];
		for (int t = 0; t < LIM_TRES_N; t++) {
			if (p->lim.grp_tres.v[t] < out->grp_tres.v[t])
				out->grp_tres.v[t] = p->lim.grp_tres.v[t];
			if (p->lim.grp_tres_mins.v[t] < out->grp_tres_mins.v[t])
				out->grp_tres_mins.v[t] = p->lim.grp_tres_mins.v[t];
			if (p->lim.grp_tres_run_mins.v[t] < out->grp_tres_run_mins.v[t])
				out->grp_tres_run_mins.v[t] = p->lim.grp_tres_run_mins.v[t];
		}
	}
}

uint32_t acct_assoc_eff_prio(ctld_t *cd, const acct_assoc_t *a)
{
	for (int d = 0; a && d < ACCT_MAX_DEPTH; d++, a = acct_assoc_parent(cd, a))
		if (a->priority && a->priority < 0xfffffffeu)
			return a->priority;
	return 0;
}

int acct_is_coord(ctld_t *cd, uint32_t uid, const char *account)
{
	acct_user_t *u = acct_user_by_uid(cd, uid);
	if (!u || !u->ncoord || !account)
		return 0;
	const acct_assoc_t *a = acct_assoc_find(cd, NULL, account, NULL);
	for (int d = 0; a && d < ACCT_MAX_DEPTH; d++, a = acct_assoc_parent(cd, a))
		for (uint32_t i = 0; i < u->ncoord; i++)
			if (!strcasecmp(u->coord_accounts[i], a->account))
				return 1;
	return 0;
}

/* ---- the store ---- */

static const char *acct_schema =
	"CREATE TABLE IF NOT EXISTS acct_cluster(name TEXT PRIMARY KEY, created INTEGER);"
	"CREATE TABLE IF NOT EXISTS acct_account(name TEXT PRIMARY KEY, descr TEXT, org TEXT);"
	"CREATE TABLE IF NOT EXISTS acct_user(name TEXT PRIMARY KEY, admin INTEGER, def_acct TEXT);"
	"CREATE TABLE IF NOT EXISTS acct_coord(user TEXT, account TEXT, PRIMARY KEY(user, account));"
	"CREATE TABLE IF NOT EXISTS acct_assoc(id INTEGER PRIMARY KEY, parent_id INTEGER,"
	" account TEXT, user TEXT, partition TEXT, shares INTEGER, priority INTEGER,"
	" def_qos INTEGER, qos TEXT, lim TEXT);"
	"CREATE TABLE IF NOT EXISTS acct_qos(id INTEGER PRIMARY KEY, name TEXT UNIQUE, descr TEXT,"
	" priority INTEGER, flags INTEGER, preempt TEXT, preempt_mode INTEGER, grace INTEGER,"
	" usage_factor REAL, usage_thres REAL, lim TEXT);";

int acct_store_create(sqlite3 *db, char **err)
{
	char *e = NULL;
	if (sqlite3_exec(db, acct_schema, NULL, NULL, &e) != SQLITE_OK) {
		*err = xasprintf("state db: accounting tables: %s", e ? e : "error");
		sqlite3_free(e);
		return -1;
	}
	return 0;
}

static uint32_t uid_of(const char *name)
{
	/* An NSS lookup: at startup and when sacctmgr adds a user only
	 * (rare, operator-driven), never per job. */
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) || !res)
		return UINT32_MAX;
	return res->pw_uid;
}

static char *ids_encode(const uint32_t *ids, uint32_t n)
{
	strbuf_t sb;
	strbuf_init(&sb);
	for (uint32_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%u", i ? "," : "", ids[i]);
	return strbuf_detach(&sb);
}

static void ids_decode(const char *s, uint32_t **ids, uint32_t *n)
{
	*ids = NULL;
	*n = 0;
	size_t cap = 0;
	while (s && *s) {
		char *end;
		unsigned long x = strtoul(s, &end, 10);
		if (end == s)
			break;
		*ids = xgrow(*ids, sizeof(uint32_t), *n + 1, &cap);
		(*ids)[(*n)++] = (uint32_t)x;
		s = *end == ',' ? end + 1 : end;
	}
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static sqlite3_stmt *acct_prep(ctld_t *cd, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(cd->db, sql, -1, &st, NULL) != SQLITE_OK)
		fatal("state db: %s: %s", sql, sqlite3_errmsg(cd->db));
	return st;
}

acct_account_t *acct_account_push(acct_t *m)
{
	m->accounts = xrealloc(m->accounts, (m->naccounts + 1) * sizeof(*m->accounts));
	acct_account_t *a = &m->accounts[m->naccounts++];
	memset(a, 0, sizeof(*a));
	a->dirty = 1;
	return a;
}

acct_user_t *acct_user_push(acct_t *m)
{
	m->users = xrealloc(m->users, (m->nusers + 1) * sizeof(*m->users));
	acct_user_t *u = &m->users[m->nusers++];
	memset(u, 0, sizeof(*u));
	u->uid = UINT32_MAX;
	u->dirty = 1;
	return u;
}

acct_assoc_t *acct_assoc_push(acct_t *m, uint32_t id)
{
	m->assocs = xrealloc(m->assocs, (m->nassocs + 1) * sizeof(*m->assocs));
	acct_assoc_t *a = &m->assocs[m->nassocs++];
	memset(a, 0, sizeof(*a));
	a->id = id ? id : m->next_assoc_id;
	if (a->id >= m->next_assoc_id)
		m->next_assoc_id = a->id + 1;
	a->uid = UINT32_MAX;
	a->shares_raw = 1;
	lim_set_clear(&a->lim);
	a->dirty = 1;
	return a;
}

acct_qos_t *acct_qos_push(acct_t *m, uint32_t id)
{
	m->qos = xrealloc(m->qos, (m->nqos + 1) * sizeof(*m->qos));
	acct_qos_t *q = &m->qos[m->nqos++];
	memset(q, 0, sizeof(*q));
	q->id = id ? id : m->next_qos_id;
	if (q->id >= m->next_qos_id)
		m->next_qos_id = q->id + 1;
	q->s.usage_factor = 1.0;
	lim_set_clear(&q->s.lim);
	q->dirty = 1;
	return q;
}

/* s.name borrows name: set again after anything moves the array. */
void acct_qos_fix_names(acct_t *m)
{
	for (uint32_t i = 0; i < m->nqos; i++) {
		m->qos[i].s.name = m->qos[i].name;
		m->qos[i].s.id = m->qos[i].id;
	}
}

void acct_name_lower(char *s)
{
	for (; s && *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

/* What slurmdbd creates for a new cluster. */
static void acct_bootstrap(ctld_t *cd)
{
	acct_t *m = &cd->acct;
	acct_qos_t *q = acct_qos_push(m, 1);
	q->name = xstrdup("normal");
	q->description = xstrdup("Normal QOS default");
	acct_account_t *ra = acct_account_push(m);
	ra->name = xstrdup("root");
	ra->description = xstrdup("default root account");
	ra->organization = xstrdup("root");
	acct_assoc_t *root = acct_assoc_push(m, 1);
	root->account = xstrdup("root");
	root->qos_ids = xmalloc(sizeof(uint32_t));
	root->qos_ids[0] = 1;
	root->nqos = 1;
	acct_user_t *u = acct_user_push(m);
	u->name = xstrdup("root");
	u->uid = 0;
	u->admin_level = ACCT_ADMIN_SUPER;
	u->default_account = xstrdup("root");
	acct_assoc_t *ua = acct_assoc_push(m, 2);
	ua->parent_id = 1;
	ua->account = xstrdup("root");
	ua->user = xstrdup("root");
	ua->uid = 0;
	/* SlurmUser other than root (`sluice up` runs as the invoking
	 * user): an Administrator with an association under root too, so its
	 * jobs run under AccountingStorageEnforce=associations */
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (cd->slurm_uid && !getpwuid_r(cd->slurm_uid, &pw, buf, sizeof(buf), &res) && res) {
		acct_user_t *su = acct_user_push(m);
		su->name = xstrdup(res->pw_name);
		acct_name_lower(su->name);
		su->uid = cd->slurm_uid;
		su->admin_level = ACCT_ADMIN_SUPER;
		su->default_account = xstrdup("root");
		acct_assoc_t *sa = acct_assoc_push(m, 0);
		sa->parent_id = 1;
		sa->account = xstrdup("root");
		sa->user = xstrdup(su->name);
		sa->uid = cd->slurm_uid;
	}
	acct_qos_fix_names(m);
	info("accounting: created cluster %s with account root, user root (Administrator) and QOS normal",
	     m->cluster);
}

static void load_tables(ctld_t *cd)
{
	acct_t *m = &cd->acct;
	sqlite3_stmt *st = acct_prep(cd, "SELECT name, descr, org FROM acct_account ORDER BY name");
	while (sqlite3_step(st) == SQLITE_ROW) {
		acct_account_t *a = acct_account_push(m);
		a->name = xstrdup(col_text(st, 0));
		a->description = xstrdup(col_text(st, 1));
		a->organization = xstrdup(col_text(st, 2));
	}
	sqlite3_finalize(st);
	st = acct_prep(cd, "SELECT name, admin, def_acct FROM acct_user ORDER BY name");
	while (sqlite3_step(st) == SQLITE_ROW) {
		acct_user_t *u = acct_user_push(m);
		u->name = xstrdup(col_text(st, 0));
		u->admin_level = (uint32_t)sqlite3_column_int64(st, 1);
		u->default_account = xstrdup(col_text(st, 2));
		u->uid = uid_of(u->name);
	}
	sqlite3_finalize(st);
	acct_reindex(m);
	st = acct_prep(cd, "SELECT user, account FROM acct_coord ORDER BY user, account");
	while (sqlite3_step(st) == SQLITE_ROW) {
		acct_user_t *u = acct_user_find(cd, col_text(st, 0));
		if (!u)
			continue;
		u->coord_accounts = xrealloc(u->coord_accounts, (u->ncoord + 1) * sizeof(char *));
		u->coord_accounts[u->ncoord++] = xstrdup(col_text(st, 1));
	}
	sqlite3_finalize(st);
	st = acct_prep(cd, "SELECT id, parent_id, account, user, partition, shares, priority,"
		       " def_qos, qos, lim FROM acct_assoc ORDER BY id");
	while (sqlite3_step(st) == SQLITE_ROW) {
		acct_assoc_t *a = acct_assoc_push(m, (uint32_t)sqlite3_column_int64(st, 0));
		a->parent_id = (uint32_t)sqlite3_column_int64(st, 1);
		a->account = xstrdup(col_text(st, 2));
		a->user = xstrdup(col_text(st, 3));
		a->partition = xstrdup(col_text(st, 4));
		a->shares_raw = (uint32_t)sqlite3_column_int64(st, 5);
		a->priority = (uint32_t)sqlite3_column_int64(st, 6);
		a->def_qos_id = (uint32_t)sqlite3_column_int64(st, 7);
		ids_decode(col_text(st, 8), &a->qos_ids, &a->nqos);
		char *err = NULL;
		if (acct_lim_decode(&a->lim, col_text(st, 9), &err)) {
			error("accounting: association %u: %s", a->id, err);
			free(err);
		}
		if (a->user) {
			acct_user_t *u = acct_user_find(cd, a->user);
			a->uid = u ? u->uid : UINT32_MAX;
		}
	}
	sqlite3_finalize(st);
	st = acct_prep(cd, "SELECT id, name, descr, priority, flags, preempt, preempt_mode, grace,"
		       " usage_factor, usage_thres, lim FROM acct_qos ORDER BY id");
	while (sqlite3_step(st) == SQLITE_ROW) {
		acct_qos_t *q = acct_qos_push(m, (uint32_t)sqlite3_column_int64(st, 0));
		q->name = xstrdup(col_text(st, 1));
		q->description = xstrdup(col_text(st, 2));
		q->s.priority = (uint32_t)sqlite3_column_int64(st, 3);
		q->s.flags = (uint32_t)sqlite3_column_int64(st, 4);
		ids_decode(col_text(st, 5), &q->preempt_ids, &q->npreempt);
		q->s.preempt_mode = (uint32_t)sqlite3_column_int64(st, 6);
		q->s.grace_time = (uint32_t)sqlite3_column_int64(st, 7);
		q->s.usage_factor = sqlite3_column_double(st, 8);
		q->s.usage_threshold = sqlite3_column_double(st, 9);
		char *err = NULL;
		if (acct_lim_decode(&q->s.lim, col_text(st, 10), &err)) {
			error("accounting: QOS %s: %s", q->name, err);
			free(err);
		}
	}
	sqlite3_finalize(st);
	acct_qos_fix_names(m);
}

int acct_init(ctld_t *cd, char **err)
{
	acct_t *m = &cd->acct;
	m->cluster = xstrdup(cd->conf->cluster_name ? cd->conf->cluster_name : "cluster");
	m->enforce = acct_enforce_parse(conf_get(cd->conf, "AccountingStorageEnforce"));
	m->next_assoc_id = 1;
	m->next_qos_id = 1;
	sqlite3_stmt *st = acct_prep(cd, "SELECT name FROM acct_cluster");
	int have = 0;
	char *old = NULL;
	if (sqlite3_step(st) == SQLITE_ROW) {
		have = 1;
		old = xstrdup(col_text(st, 0));
	}
	sqlite3_finalize(st);
	if (!have) {
		acct_bootstrap(cd);
	} else {
		load_tables(cd);
		if (!m->nassocs || m->assocs[0].parent_id || m->assocs[0].user) {
			*err = xstrdup("state db: the accounting tables have no root association");
			free(old);
			return -1;
		}
		if (old && strcmp(old, m->cluster))
			info("accounting: ClusterName changed from %s to %s: the association tree is kept",
			     old, m->cluster);
	}
	/* write the cluster row (new, or renamed) with the first commit */
	m->dirty = 1;
	free(old);
	for (uint32_t i = 0; i < m->nassocs; i++)
		m->assocs[i].dirty = !have;
	acct_reindex(m);
	m->gen++;
	return 0;
}

int acct_reload(ctld_t *cd)
{
	acct_t *m = &cd->acct, old = *m;
	/* load into a fresh model; the old one stays whole until it worked */
	memset(m, 0, sizeof(*m));
	m->cluster = old.cluster;
	m->enforce = old.enforce;
	m->next_assoc_id = 1;
	m->next_qos_id = 1;
	load_tables(cd);
	if (!m->nassocs || m->assocs[0].parent_id || m->assocs[0].user) {
		m->cluster = NULL;
		acct_free(m);
		*m = old;
		return -1;
	}
	/* What the model keeps that its tables do not: the decayed usage
	 * (acct_usage.c persists it apart) and ids never to be reused. */
	for (uint32_t i = 0; i < m->nassocs; i++) {
		acct_assoc_t *a = &m->assocs[i];
		a->dirty = 0;
		for (uint32_t k = 0; k < old.nassocs; k++) {
			const acct_assoc_t *o = &old.assocs[k];
			if (o->id != a->id)
				continue;
			a->usage_raw = o->usage_raw;
			memcpy(a->usage_tres, o->usage_tres, sizeof(a->usage_tres));
			a->usage_wall = o->usage_wall;
			break;
		}
	}
	for (uint32_t i = 0; i < m->nqos; i++) {
		acct_qos_t *q = &m->qos[i];
		q->dirty = 0;
		for (uint32_t k = 0; k < old.nqos; k++) {
			if (old.qos[k].id != q->id)
				continue;
			memcpy(q->s.usage_tres, old.qos[k].s.usage_tres, sizeof(q->s.usage_tres));
			q->s.usage_wall = old.qos[k].s.usage_wall;
			break;
		}
	}
	for (uint32_t i = 0; i < m->naccounts; i++)
		m->accounts[i].dirty = 0;
	for (uint32_t i = 0; i < m->nusers; i++)
		m->users[i].dirty = 0;
	if (old.next_assoc_id > m->next_assoc_id)
		m->next_assoc_id = old.next_assoc_id;
	if (old.next_qos_id > m->next_qos_id)
		m->next_qos_id = old.next_qos_id;
	m->gen = old.gen + 1;
	m->dirty = 0;
	acct_reindex(m);
	old.cluster = NULL;
	acct_free(&old);
	return 0;
}

void acct_free(acct_t *m)
{
	for (uint32_t i = 0; i < m->naccounts; i++) {
		free(m->accounts[i].name);
		free(m->accounts[i].description);
		free(m->accounts[i].organization);
	}
	for (uint32_t i = 0; i < m->nusers; i++) {
		acct_user_t *u = &m->users[i];
		free(u->name);
		free(u->default_account);
		for (uint32_t c = 0; c < u->ncoord; c++)
			free(u->coord_accounts[c]);
		free(u->coord_accounts);
	}
	for (uint32_t i = 0; i < m->nassocs; i++) {
		acct_assoc_t *a = &m->assocs[i];
		free(a->account);
		free(a->user);
		free(a->partition);
		free(a->qos_ids);
	}
	for (uint32_t i = 0; i < m->nqos; i++) {
		free(m->qos[i].name);
		free(m->qos[i].description);
		free(m->qos[i].preempt_ids);
	}
	free(m->accounts);
	free(m->users);
	free(m->assocs);
	free(m->qos);
	if (m->ix) {
		hidx_t *t[] = { &m->ix->account, &m->ix->user, &m->ix->user_uid, &m->ix->assoc_id,
				&m->ix->assoc_key, &m->ix->qos_id, &m->ix->qos_name };
		for (size_t i = 0; i < ARRAY_SIZE(t); i++)
			free(t[i]->slot);
		free(m->ix);
	}
	strv_free(&m->gone);
	free(m->cluster);
	memset(m, 0, sizeof(*m));
}

/* ---- writing ---- */

static void step_ok(ctld_t *cd, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE) {
		error("state db: accounting: %s: %s", what, sqlite3_errmsg(cd->db));
		cd->db_failed = 1;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

static void exec_ok(ctld_t *cd, const char *sql)
{
	char *e = NULL;
	if (sqlite3_exec(cd->db, sql, NULL, NULL, &e) != SQLITE_OK) {
		error("state db: accounting: %s: %s", sql, e ? e : "error");
		cd->db_failed = 1;
	}
	sqlite3_free(e);
}

struct acct_stmts {
	sqlite3_stmt *cluster, *account, *user, *coord_del, *coord_ins, *assoc, *qos,
		*del_account, *del_user, *del_assoc, *del_qos;
};

static struct acct_stmts *stmts(ctld_t *cd)
{
	static struct acct_stmts s;
	static sqlite3 *for_db;
	if (for_db == cd->db)
		return &s;
	for_db = cd->db;
	s.cluster = acct_prep(cd, "INSERT OR REPLACE INTO acct_cluster(name, created) VALUES(?1,"
			      " COALESCE((SELECT created FROM acct_cluster LIMIT 1), strftime('%s','now')))");
	s.account = acct_prep(cd, "INSERT OR REPLACE INTO acct_account(name, descr, org) VALUES(?1,?2,?3)");
	s.user = acct_prep(cd, "INSERT OR REPLACE INTO acct_user(name, admin, def_acct) VALUES(?1,?2,?3)");
	s.coord_del = acct_prep(cd, "DELETE FROM acct_coord WHERE user=?1");
	s.coord_ins = acct_prep(cd, "INSERT OR REPLACE INTO acct_coord(user, account) VALUES(?1,?2)");
	s.assoc = acct_prep(cd, "INSERT OR REPLACE INTO acct_assoc(id, parent_id, account, user,"
			    " partition, shares, priority, def_qos, qos, lim) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
	s.qos = acct_prep(cd, "INSERT OR REPLACE INTO acct_qos(id, name, descr, priority, flags, preempt,"
			  " preempt_mode, grace, usage_factor, usage_thres, lim)"
			  " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
	s.del_account = acct_prep(cd, "DELETE FROM acct_account WHERE name=?1");
	s.del_user = acct_prep(cd, "DELETE FROM acct_user WHERE name=?1");
	s.del_assoc = acct_prep(cd, "DELETE FROM acct_assoc WHERE id=?1");
	s.del_qos = acct_prep(cd, "DELETE FROM acct_qos WHERE id=?1");
	return &s;
}

void acct_commit(ctld_t *cd)
{
	acct_t *m = &cd->acct;
	int full = cd->db_redo;   /* a rolled back commit: write it all again */
	if (!m->dirty && !full)
		return;
	struct acct_stmts *s = stmts(cd);
	if (full) {
		exec_ok(cd, "DELETE FROM acct_account; DELETE FROM acct_user; DELETE FROM acct_coord;"
			" DELETE FROM acct_assoc; DELETE FROM acct_qos; DELETE FROM acct_cluster");
	} else {
		for (uint32_t i = 0; i < m->gone.n; i++) {
			const char *g = m->gone.v[i];
			sqlite3_stmt *st = g[0] == 'a' ? s->del_account : g[0] == 'u' ? s->del_user
				: g[0] == 's' ? s->del_assoc : s->del_qos;
			if (g[0] == 's' || g[0] == 'q')
				sqlite3_bind_int64(st, 1, strtoll(g + 2, NULL, 10));
			else
				sqlite3_bind_text(st, 1, g + 2, -1, SQLITE_TRANSIENT);
			step_ok(cd, st, "delete");
			if (g[0] == 'u') {
				sqlite3_bind_text(s->coord_del, 1, g + 2, -1, SQLITE_TRANSIENT);
				step_ok(cd, s->coord_del, "delete coordinators");
			}
		}
	}
	sqlite3_bind_text(s->cluster, 1, m->cluster, -1, SQLITE_STATIC);
	step_ok(cd, s->cluster, "cluster");
	for (uint32_t i = 0; i < m->naccounts; i++) {
		acct_account_t *a = &m->accounts[i];
		if (!a->dirty && !full)
			continue;
		sqlite3_bind_text(s->account, 1, a->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->account, 2, a->description, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->account, 3, a->organization, -1, SQLITE_STATIC);
		step_ok(cd, s->account, "account");
		a->dirty = 0;
	}
	for (uint32_t i = 0; i < m->nusers; i++) {
		acct_user_t *u = &m->users[i];
		if (!u->dirty && !full)
			continue;
		sqlite3_bind_text(s->user, 1, u->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s->user, 2, u->admin_level);
		sqlite3_bind_text(s->user, 3, u->default_account, -1, SQLITE_STATIC);
		step_ok(cd, s->user, "user");
		sqlite3_bind_text(s->coord_del, 1, u->name, -1, SQLITE_STATIC);
		step_ok(cd, s->coord_del, "coordinators");
		for (uint32_t c = 0; c < u->ncoord; c++) {
			sqlite3_bind_text(s->coord_ins, 1, u->name, -1, SQLITE_STATIC);
			sqlite3_bind_text(s->coord_ins, 2, u->coord_accounts[c], -1, SQLITE_STATIC);
			step_ok(cd, s->coord_ins, "coordinator");
		}
		u->dirty = 0;
	}
	for (uint32_t i = 0; i < m->nassocs; i++) {
		acct_assoc_t *a = &m->assocs[i];
		if (!a->dirty && !full)
			continue;
		char *q = ids_encode(a->qos_ids, a->nqos), *l = acct_lim_encode(&a->lim);
		sqlite3_bind_int64(s->assoc, 1, a->id);
		sqlite3_bind_int64(s->assoc, 2, a->parent_id);
		sqlite3_bind_text(s->assoc, 3, a->account, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->assoc, 4, a->user, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->assoc, 5, a->partition, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s->assoc, 6, a->shares_raw);
		sqlite3_bind_int64(s->assoc, 7, a->priority);
		sqlite3_bind_int64(s->assoc, 8, a->def_qos_id);
		sqlite3_bind_text(s->assoc, 9, q, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->assoc, 10, l, -1, SQLITE_STATIC);
		step_ok(cd, s->assoc, "association");
		free(q);
		free(l);
		a->dirty = 0;
	}
	for (uint32_t i = 0; i < m->nqos; i++) {
		acct_qos_t *q = &m->qos[i];
		if (!q->dirty && !full)
			continue;
		char *p = ids_encode(q->preempt_ids, q->npreempt), *l = acct_lim_encode(&q->s.lim);
		sqlite3_bind_int64(s->qos, 1, q->id);
		sqlite3_bind_text(s->qos, 2, q->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(s->qos, 3, q->description, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s->qos, 4, q->s.priority);
		sqlite3_bind_int64(s->qos, 5, q->s.flags);
		sqlite3_bind_text(s->qos, 6, p, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s->qos, 7, q->s.preempt_mode);
		sqlite3_bind_int64(s->qos, 8, q->s.grace_time);
		sqlite3_bind_double(s->qos, 9, q->s.usage_factor);
		sqlite3_bind_double(s->qos, 10, q->s.usage_threshold);
		sqlite3_bind_text(s->qos, 11, l, -1, SQLITE_STATIC);
		step_ok(cd, s->qos, "qos");
		free(p);
		free(l);
		q->dirty = 0;
	}
	strv_free(&m->gone);
	m->dirty = 0;
}

/* ---- a job's account and QOS ---- */

static void set_interned(char **field, const char *v, int interned)
{
	if (interned) {
		intern_put(*field);
		*field = v ? intern_get(v) : NULL;
	} else {
		free(*field);
		*field = xstrdup(v);
	}
}

/* The association a job of uid gets for account acct and partition part
 * (the partition's own association first). */
static acct_assoc_t *job_assoc(ctld_t *cd, const acct_user_t *u, const char *acct,
			       const char *part)
{
	acct_assoc_t *a = part ? acct_assoc_find(cd, u->name, acct, part) : NULL;
	return a ? a : acct_assoc_find(cd, u->name, acct, NULL);
}

/* Resolve for j (desc strings interned or not); refuse only if refuse. */
static int resolve(ctld_t *cd, job_t *j, uint32_t uid, int interned, int refuse, char **msg)
{
	acct_t *m = &cd->acct;
	job_desc_t *d = j->desc;
	uint32_t enf = refuse ? m->enforce : 0;
	acct_user_t *u = acct_user_by_uid(cd, j->user_id);
	const char *part = d->partition;
	acct_assoc_t *a = NULL;
	if (u) {
		const char *acct = d->account && *d->account ? d->account : u->default_account;
		if (acct)
			a = job_assoc(cd, u, acct, part);
		if (!a && !(enf & ACCT_ENF_ASSOCS) && u->default_account) {
			/* as slurmctld without enforcement: an account the
			 * user has no association with falls back to the
			 * default one, so the records stay clean */
			a = job_assoc(cd, u, u->default_account, part);
			if (a && d->account && *d->account)
				info("job from uid %u: account '%s' has no association for the user, "
				     "using the default account '%s'", j->user_id, d->account, a->account);
		}
	}
	if (!a && (enf & ACCT_ENF_ASSOCS)) {
		info("job from uid %u: invalid account or partition (account '%s', partition '%s')",
		     j->user_id, d->account ? d->account : "(null)", part ? part : "(null)");
		return ESLURM_INVALID_ACCOUNT;
	}
	j->assoc_id = a ? a->id : 0;
	if (a)
		set_interned(&d->account, a->account, interned);
	else if (d->account && !*d->account)
		set_interned(&d->account, NULL, interned);
	/* QOS: as asked, else the association's DefaultQOS, else the only
	 * one it may use, else "normal" */
	acct_qos_t *q = NULL;
	if (d->qos && *d->qos) {
		q = acct_qos_by_name(cd, d->qos);
	} else {
		uint32_t def = a ? acct_assoc_def_qos(cd, a) : 0;
		const acct_assoc_t *src = a ? acct_assoc_qos_src(cd, a) : NULL;
		if (def)
			q = acct_qos_by_id(cd, def);
		else if (src && src->nqos == 1)
			q = acct_qos_by_id(cd, src->qos_ids[0]);
		else
			q = acct_qos_by_name(cd, "normal");
	}
	if (!q && (enf & ACCT_ENF_QOS)) {
		info("job from uid %u: invalid qos (%s)", j->user_id, d->qos ? d->qos : "normal");
		return ESLURM_INVALID_QOS;
	}
	if (q && a && (enf & ACCT_ENF_QOS) && !acct_is_operator(cd, uid) &&
	    !acct_assoc_qos_allowed(cd, a, q->id)) {
		info("job from uid %u: association %u (account %s) may not use QOS %s", j->user_id,
		     a->id, a->account, q->name);
		return ESLURM_INVALID_QOS;
	}
	j->qos_id = q ? q->id : 0;
	if (q)
		set_interned(&d->qos, q->name, interned);
	(void)msg;
	return 0;
}

int acct_job_resolve(ctld_t *cd, job_t *j, uint32_t uid, char **msg)
{
	/* Called at submission (desc not interned yet) and from scontrol
	 * update (interned): the update path interns, see jobs.c. */
	uint32_t old_assoc = j->assoc_id, old_qos = j->qos_id;
	int rc = resolve(cd, j, uid, j->job_id != 0, 1, msg);
	if (rc) {
		j->assoc_id = old_assoc;
		j->qos_id = old_qos;
	}
	return rc;
}

void acct_job_relink(ctld_t *cd, job_t *j)
{
	acct_user_t *u = acct_user_by_uid(cd, j->user_id);
	acct_assoc_t *a = NULL;
	if (u && j->desc->account)
		a = job_assoc(cd, u, j->desc->account, j->desc->partition);
	j->assoc_id = a ? a->id : 0;
	acct_qos_t *q = acct_qos_by_name(cd, j->desc->qos);
	j->qos_id = q ? q->id : 0;
}
