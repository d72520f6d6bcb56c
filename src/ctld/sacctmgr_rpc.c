/*
 * sacctmgr_rpc.c: the server side of sacctmgr (ACCT_OP_MGR, see
 * sacctmgr_int.h for the request): add, modify and delete of accounts,
 * users, associations, QOS and coordinators, with sacctmgr's reports and
 * Slurm's rules of who may do what; delete and load are in sacctmgr_del.c,
 * show and dump in sacctmgr_show.c.
 *
 * Each verb first works out what would change and writes the report; only
 * with commit=1 does it change the model (acct_changed), which db_commit
 * writes in the turn's transaction before the answer goes out.
 *
 * Who may: AdminLevel Operator and Administrator (and root, SlurmUser)
 * change anything but AdminLevel=Administrator (Administrators only); a
 * coordinator of an account adds and removes users of it and its
 * sub-accounts, sets their limits, and adds sub-accounts; everyone may
 * show.
 */
#include <ctype.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/sacctmgr_int.h"
#include "ctld/acct_lim.h"
#include "ctld/assoc_int.h"

#include "errors.h"
#include "log.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

void mgr_qos_flags_fmt(strbuf_t *sb, uint32_t flags);
int mgr_qos_flag(const char *name);
const char *mgr_preempt_mode_name(uint32_t mode);

/* ---- request ---- */

int mgr_key_is(const char *k, const char *names)
{
	size_t kl = strlen(k);
	for (const char *p = names; *p;) {
		const char *e = strchr(p, '|');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == kl && !strncasecmp(p, k, n))
			return 1;
		p += n + (e ? 1 : 0);
	}
	return 0;
}

void mgr_list(mgr_out_t *o, const char *title, const strv_t *names)
{
	strbuf_addf(&o->out, " %s\n", title);
	for (uint32_t i = 0; i < names->n; i++)
		strbuf_addf(&o->out, "  %s\n", names->v[i]);
}

void mgr_nothing_new(mgr_out_t *o)
{
	strbuf_addstr(&o->out, " Nothing new added.\n");
	o->rc = ACCT_MGR_NOTHING;
}

int mgr_strv_has_ci(const strv_t *sv, const char *s)
{
	for (uint32_t i = 0; i < sv->n; i++)
		if (!strcasecmp(sv->v[i], s))
			return 1;
	return 0;
}

void mgr_split_into(strv_t *out, const char *v)
{
	char *dup = xstrdup(v), *save = NULL;
	for (char *w = strtok_r(dup, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (*w)
			strv_push(out, w);
	free(dup);
}

int mgr_where(const mgr_req_t *m, const char *names, strv_t *out)
{
	int found = 0;
	for (uint32_t i = 0; i < m->wk.n; i++)
		if (mgr_key_is(m->wk.v[i], names)) {
			found = 1;
			if (out)
				mgr_split_into(out, m->wv.v[i]);
		}
	return found;
}

static void req_parse(const msg_acct_req_t *req, mgr_req_t *m)
{
	for (uint32_t i = 0; i < req->args.n; i++) {
		const char *a = req->args.v[i];
		if (!strncmp(a, "verb=", 5))
			m->verb = a + 5;
		else if (!strncmp(a, "entity=", 7))
			m->entity = a + 7;
		else if (!strncmp(a, "commit=", 7))
			m->commit = atoi(a + 7);
		else if (!strncmp(a, "n=", 2))
			mgr_split_into(&m->names, a + 2);
		else if (!strncmp(a, "o=", 2)) {
			if (!strcasecmp(a + 2, "withassoc"))
				m->withassoc = 1;
			else if (!strcasecmp(a + 2, "withcoord"))
				m->withcoord = 1;
			else if (!strcasecmp(a + 2, "tree"))
				m->tree = 1;
		} else if (!strncmp(a, "w=", 2) || !strncmp(a, "s=", 2)) {
			const char *kv = a + 2, *eq = strchr(kv, '=');
			if (!eq)
				continue;
			char *k = xstrndup(kv, (size_t)(eq - kv));
			strv_push(a[0] == 'w' ? &m->wk : &m->sk, k);
			strv_push(a[0] == 'w' ? &m->wv : &m->sv, eq + 1);
			free(k);
		}
	}
	if (!m->verb)
		m->verb = "";
	if (!m->entity)
		m->entity = "";
}

void mgr_req_free(mgr_req_t *m)
{
	strv_free(&m->names);
	strv_free(&m->wk);
	strv_free(&m->wv);
	strv_free(&m->sk);
	strv_free(&m->sv);
}

static void finish(mgr_out_t *o, msg_acct_reply_t *r)
{
	acct_reply_col(r, "out");
	acct_reply_col(r, "err");
	acct_reply_cell(r, o->out.buf ? o->out.buf : "");
	acct_reply_cell(r, o->err.buf ? o->err.buf : "");
	r->rc = o->rc;
	strbuf_release(&o->out);
	strbuf_release(&o->err);
}

void mgr_denied_change(mgr_out_t *o)
{
	strbuf_addstr(&o->err, "sacctmgr: error: Your user doesn't have privilege to perform this action\n"
		      " Error with request: Access/permission denied\n");
	o->rc = ESLURM_ACCESS_DENIED;
}

int mgr_fail(mgr_out_t *o, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int mgr_fail(mgr_out_t *o, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&o->err, fmt, ap);
	va_end(ap);
	o->rc = rc;
	return -1;
}

/* A coordinator's change refused for what it grants: the controller's
 * log says why, as slurmdbd's does. */
static void coord_refused(const mgr_req_t *m, const char *why)
{
	if (why)
		info("sacctmgr: uid %u refused:%s", m->uid, why);
}

/* ---- settings of associations ---- */


void mgr_assoc_set_free(assoc_set_t *s)
{
	free(s->qos);
	strbuf_release(&s->report);
}

/* Split "Key+" / "Key-" into the key and its operator. */
static char key_op(const char *k, char *buf, size_t len)
{
	size_t n = strlen(k);
	char op = '=';
	if (n && (k[n - 1] == '+' || k[n - 1] == '-')) {
		op = k[n - 1];
		n--;
	}
	if (n >= len)
		n = len - 1;
	memcpy(buf, k, n);
	buf[n] = 0;
	return op;
}

static int parse_qos_list(ctld_t *cd, const char *v, uint32_t **ids, uint32_t *n, mgr_out_t *o)
{
	strv_t names = { 0 };
	mgr_split_into(&names, v);
	*ids = xcalloc(names.n + 1, sizeof(uint32_t));
	*n = 0;
	for (uint32_t i = 0; i < names.n; i++) {
		acct_qos_t *q = acct_qos_by_name(cd, names.v[i]);
		if (!q) {
			mgr_fail(o, SLURM_ERROR, " Unknown QOS name: %s\n", names.v[i]);
			strv_free(&names);
			free(*ids);
			*ids = NULL;
			return -1;
		}
		(*ids)[(*n)++] = q->id;
	}
	strv_free(&names);
	return 0;
}

/* One assoc option (Key[+-], value) into s; 1 if it is one, 0 if not an
 * association option, -1 on a bad value (o has the error). */
int mgr_assoc_opt(ctld_t *cd, assoc_set_t *s, const char *key, const char *v, mgr_out_t *o)
{
	char k[64];
	char op = key_op(key, k, sizeof(k));
	const acct_lim_key_t *lk = acct_lim_key(k);
	if (lk && !lk->qos_only && op == '=') {
		lim_set_t a, b;
		lim_set_clear(&a);
		memset(&b, 0, sizeof(b));
		char *e = NULL;
		if (acct_lim_set(&a, lk, v, &e) || acct_lim_set(&b, lk, v, &e)) {
			mgr_fail(o, SLURM_ERROR, " %s\n", e);
			free(e);
			return -1;
		}
		const uint64_t *pa = (const uint64_t *)(const void *)&a, *pb = (const uint64_t *)(const void *)&b;
		uint64_t *ps = (uint64_t *)(void *)&s->lim;
		for (size_t i = 0; i < NLIM; i++)
			if (pa[i] == pb[i] || (pa[i] == LIM_UNSET && pb[i] == LIM_UNSET)) {
				ps[i] = pa[i];
				s->given[i] = 1;
			}
		strbuf_t f;
		strbuf_init(&f);
		acct_lim_fmt(&f, &s->lim, lk);
		strbuf_addf(&s->report, "  %-13s = %s\n", lk->name, f.len ? f.buf : "-1");
		strbuf_release(&f);
		s->any = 1;
		return 1;
	}
	if (mgr_key_is(k, "Fairshare|Shares") && op == '=') {
		if (!strcasecmp(v, "parent")) {
			s->shares = SCHED_SHARES_PARENT;
		} else if (!strcmp(v, "-1")) {
			s->shares = 1;
		} else {
			char *end;
			unsigned long x = strtoul(v, &end, 10);
			if (!isdigit((unsigned char)*v) || *end || x >= SCHED_SHARES_PARENT)
				return mgr_fail(o, SLURM_ERROR, " Bad Fairshare value: %s\n", v);
			s->shares = (uint32_t)x;
		}
		s->shares_given = s->any = 1;
		strbuf_addf(&s->report, "  %-13s = %s\n", "Fairshare", v);
		return 1;
	}
	if (mgr_key_is(k, "Priority") && op == '=') {
		char *end;
		unsigned long x = strtoul(v, &end, 10);
		if (!strcmp(v, "-1"))
			x = 0;
		else if (!isdigit((unsigned char)*v) || *end || x > UINT32_MAX - 1)
			return mgr_fail(o, SLURM_ERROR, " Bad Priority value: %s\n", v);
		s->prio = (uint32_t)x;
		s->prio_given = s->any = 1;
		strbuf_addf(&s->report, "  %-13s = %s\n", "Priority", v);
		return 1;
	}
	if (mgr_key_is(k, "DefaultQOS|DefQOS") && op == '=') {
		if (!strcmp(v, "-1") || !*v) {
			s->defqos = 0;
		} else {
			acct_qos_t *q = acct_qos_by_name(cd, v);
			if (!q)
				return mgr_fail(o, SLURM_ERROR, " Unknown QOS name: %s\n", v);
			s->defqos = q->id;
		}
		s->defqos_given = s->any = 1;
		strbuf_addf(&s->report, "  %-13s = %s\n", "Default QOS", v);
		return 1;
	}
	if (mgr_key_is(k, "QOS|QOSLevel")) {
		free(s->qos);
		s->qos = NULL;
		if (!(op == '=' && (!strcmp(v, "-1") || !*v)) && parse_qos_list(cd, v, &s->qos, &s->nqos, o))
			return -1;
		s->qos_op = op;
		s->any = 1;
		strbuf_addf(&s->report, "  %-13s %c= %s\n", "QOS", op == '=' ? ' ' : op, v);
		return 1;
	}
	return 0;
}

/* The names of the request: bare words and Names=/the entity's own key,
 * from where or set (add takes both). */
static void collect_names(const mgr_req_t *m, const char *keys, strv_t *out)
{
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(out, m->names.v[i]);
	mgr_where(m, keys, out);
	for (uint32_t i = 0; i < m->sk.n; i++)
		if (mgr_key_is(m->sk.v[i], keys))
			mgr_split_into(out, m->sv.v[i]);
	for (uint32_t i = 0; i < out->n; i++)
		acct_name_lower(out->v[i]);
}

/* All options of an add, where and set alike. */
typedef struct kv_iter { const mgr_req_t *m; uint32_t i; } kv_iter_t;

static int kv_next(kv_iter_t *it, const char **k, const char **v)
{
	const mgr_req_t *m = it->m;
	uint32_t n = m->wk.n + m->sk.n;
	if (it->i >= n)
		return 0;
	uint32_t i = it->i++;
	if (i < m->wk.n) {
		*k = m->wk.v[i];
		*v = m->wv.v[i];
	} else {
		*k = m->sk.v[i - m->wk.n];
		*v = m->sv.v[i - m->wk.n];
	}
	return 1;
}

static int cluster_ok(ctld_t *cd, const char *v, mgr_out_t *o)
{
	strv_t cl = { 0 };
	mgr_split_into(&cl, v);
	int ok = 1;
	for (uint32_t i = 0; i < cl.n; i++)
		if (strcasecmp(cl.v[i], cd->acct.cluster))
			ok = 0;
	strv_free(&cl);
	if (!ok)
		mgr_fail(o, SLURM_ERROR, " This controller keeps only cluster '%s'\n", cd->acct.cluster);
	return ok;
}

/* ---- add ---- */

void mgr_add_account(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o)
{
	acct_t *am = &cd->acct;
	strv_t names = { 0 };
	collect_names(m, "Names|Name|Accounts|Account", &names);
	assoc_set_t s = { 0 };
	lim_set_clear(&s.lim);
	char *descr = NULL, *org = NULL, *parent = NULL;
	const char *k, *v;
	kv_iter_t it = { m, 0 };
	while (kv_next(&it, &k, &v)) {
		int r;
		if (mgr_key_is(k, "Names|Name|Accounts|Account"))
			continue;
		if (mgr_key_is(k, "Description|Descr")) {
			free(descr);
			descr = xstrdup(v);
		} else if (mgr_key_is(k, "Organization|Org")) {
			free(org);
			org = xstrdup(v);
		} else if (mgr_key_is(k, "Parent")) {
			free(parent);
			parent = xstrdup(v);
			acct_name_lower(parent);
		} else if (mgr_key_is(k, "Clusters|Cluster")) {
			if (!cluster_ok(cd, v, o))
				goto out;
		} else if ((r = mgr_assoc_opt(cd, &s, k, v, o)) < 0) {
			goto out;
		} else if (!r) {
			mgr_fail(o, SLURM_ERROR, " Unknown option: %s=%s\n", k, v);
			goto out;
		}
	}
	acct_name_lower(descr);
	acct_name_lower(org);
	if (!names.n) {
		mgr_fail(o, SLURM_ERROR, " Need name of account to add.\n");
		goto out;
	}
	acct_assoc_t *pa = acct_assoc_find(cd, NULL, parent ? parent : "root", NULL);
	if (!pa) {
		mgr_fail(o, SLURM_ERROR, " Parent account '%s' doesn't exist on cluster %s\n"
		     "        Contact your admin to add this account.\n No associations created.\n",
		     parent, am->cluster);
		goto out;
	}
	char *why = NULL;
	if (m->level < ACCT_ADMIN_OPERATOR &&
	    (!acct_is_coord(cd, m->uid, pa->account) || (why = mgr_coord_refusal(cd, m, NULL, pa, &s)))) {
		mgr_list(o, "Adding Account(s)", &names);
		mgr_fail(o, ESLURM_ACCESS_DENIED, " Problem adding accounts: Access/permission denied\n%s",
			 why ? why : "");
		coord_refused(m, why);
		free(why);
		goto out;
	}
	if (m->level < ACCT_ADMIN_OPERATOR && !m->load) {
		/* (sacctmgr checks a DefaultQOS on modify only; a coordinator's
		 * new association gets the same check) */
		strbuf_t bad;
		strbuf_init(&bad);
		for (uint32_t i = 0; i < names.n; i++)
			mgr_defqos_ok(cd, NULL, pa, names.v[i], NULL, &s, &bad);
		if (bad.len)
			mgr_defqos_refuse(o, &bad);
		strbuf_release(&bad);
		if (o->rc)
			goto out;
	}
	strv_t add = { 0 };
	for (uint32_t i = 0; i < names.n; i++)
		if (!acct_account_find(cd, names.v[i]) && !mgr_strv_has_ci(&add, names.v[i]))
			strv_push(&add, names.v[i]);
	if (!add.n) {
		mgr_nothing_new(o);
		strv_free(&add);
		goto out;
	}
	mgr_list(o, "Adding Account(s)", &add);
	strbuf_addf(&o->out, " Settings\n  Description     = %s\n  Organization    = %s\n Associations\n",
		    descr ? descr : "Account Name", org ? org : "Parent/Account Name");
	for (uint32_t i = 0; i < add.n; i++)
		strbuf_addf(&o->out, "  A = %-10.10s C = %-10.10s\n", add.v[i], am->cluster);
	if (s.any || parent || descr || org) {
		strbuf_addf(&o->out, " Settings\n%s", s.report.buf ? s.report.buf : "");
		strbuf_addf(&o->out, "  %-13s = %s\n", "Parent", pa->account);
	}
	if (m->commit) {
		uint32_t pid = pa->id;
		char *pname = xstrdup(pa->account);
		for (uint32_t i = 0; i < add.n; i++) {
			acct_account_t *ac = acct_account_push(am);
			ac->name = xstrdup(add.v[i]);
			ac->description = xstrdup(descr ? descr : add.v[i]);
			ac->organization = xstrdup(org ? org : strcmp(pname, "root") ? pname : add.v[i]);
			acct_assoc_t *a = acct_assoc_push(am, 0);
			a->parent_id = pid;
			a->account = xstrdup(add.v[i]);
			mgr_assoc_apply(cd, a, &s);
			info("sacctmgr: account %s added under %s by uid %u", add.v[i], pname, m->uid);
		}
		free(pname);
		acct_changed(cd);
	}
	strv_free(&add);
out:
	mgr_assoc_set_free(&s);
	free(descr);
	free(org);
	free(parent);
	strv_free(&names);
}

static uint32_t admin_parse(const char *v)
{
	if (!strncasecmp(v, "admin", 5))
		return ACCT_ADMIN_SUPER;
	if (!strncasecmp(v, "oper", 4))
		return ACCT_ADMIN_OPERATOR;
	if (!strcasecmp(v, "none"))
		return ACCT_ADMIN_NONE;
	return UINT32_MAX;
}

static const char *admin_label(uint32_t l)
{
	return l == ACCT_ADMIN_SUPER ? "Administrator" : l == ACCT_ADMIN_OPERATOR ? "Operator" : "None";
}

static uint32_t uid_of_name(const char *name);

void mgr_add_user(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o)
{
	acct_t *am = &cd->acct;
	strv_t names = { 0 }, accts = { 0 }, parts = { 0 };
	collect_names(m, "Names|Name|Users|User", &names);
	assoc_set_t s = { 0 };
	lim_set_clear(&s.lim);
	char *defacct = NULL;
	uint32_t level = UINT32_MAX;
	const char *k, *v;
	kv_iter_t it = { m, 0 };
	while (kv_next(&it, &k, &v)) {
		int r;
		if (mgr_key_is(k, "Names|Name|Users|User"))
			continue;
		if (mgr_key_is(k, "Accounts|Account|Acct")) {
			mgr_split_into(&accts, v);
		} else if (mgr_key_is(k, "DefaultAccount|DefAcct")) {
			free(defacct);
			defacct = xstrdup(v);
			acct_name_lower(defacct);
		} else if (mgr_key_is(k, "AdminLevel|Admin")) {
			if ((level = admin_parse(v)) == UINT32_MAX) {
				mgr_fail(o, SLURM_ERROR, " Unknown AdminLevel: %s (None, Operator or Administrator)\n", v);
				goto out;
			}
		} else if (mgr_key_is(k, "Partitions|Partition")) {
			mgr_split_into(&parts, v);
		} else if (mgr_key_is(k, "Clusters|Cluster")) {
			if (!cluster_ok(cd, v, o))
				goto out;
		} else if ((r = mgr_assoc_opt(cd, &s, k, v, o)) < 0) {
			goto out;
		} else if (!r) {
			mgr_fail(o, SLURM_ERROR, " Unknown option: %s=%s\n", k, v);
			goto out;
		}
	}
	for (uint32_t i = 0; i < accts.n; i++)
		acct_name_lower(accts.v[i]);
	if (!accts.n && defacct)
		strv_push(&accts, defacct);
	if (!names.n) {
		mgr_fail(o, SLURM_ERROR, " Need name of user to add.\n");
		goto out;
	}
	if (!accts.n) {
		mgr_fail(o, SLURM_ERROR, " Need name of account to add user to.\n");
		goto out;
	}
	for (uint32_t i = 0; i < accts.n; i++)
		if (!acct_assoc_find(cd, NULL, accts.v[i], NULL)) {
			mgr_fail(o, SLURM_ERROR, " This account '%s' doesn't exist.\n"
			     "        Contact your admin to add this account.\n"
			     " No associations or wckeys created.\n", accts.v[i]);
			goto out;
		}
	int allowed = m->level >= ACCT_ADMIN_OPERATOR;
	if (!allowed && level == UINT32_MAX) {
		allowed = 1;
		for (uint32_t i = 0; i < accts.n; i++)
			allowed &= acct_is_coord(cd, m->uid, accts.v[i]);
	}
	if (level == ACCT_ADMIN_SUPER && m->level < ACCT_ADMIN_SUPER)
		allowed = 0;
	char *why = NULL;
	strbuf_t bad;
	strbuf_init(&bad);
	if (allowed && m->level < ACCT_ADMIN_OPERATOR) {
		for (uint32_t i = 0; i < accts.n && !why; i++) {
			const acct_assoc_t *pa = acct_assoc_find(cd, NULL, accts.v[i], NULL);
			why = mgr_coord_refusal(cd, m, NULL, pa, &s);
			for (uint32_t u = 0; u < names.n && !why && !m->load; u++)
				mgr_defqos_ok(cd, NULL, pa, accts.v[i], names.v[u], &s, &bad);
		}
		allowed = !why;
		coord_refused(m, why);
	}
	if (allowed && bad.len) {
		mgr_defqos_refuse(o, &bad);
		strbuf_release(&bad);
		goto out;
	}
	strbuf_release(&bad);
	/* what is new */
	strv_t nu = { 0 };
	strbuf_t lines;
	strbuf_init(&lines);
	uint32_t nassoc = 0;
	for (uint32_t i = 0; i < names.n; i++) {
		if (!acct_user_find(cd, names.v[i]) && !mgr_strv_has_ci(&nu, names.v[i]))
			strv_push(&nu, names.v[i]);
		for (uint32_t a = 0; a < accts.n; a++)
			for (uint32_t p = 0; p < (parts.n ? parts.n : 1); p++) {
				const char *part = parts.n ? parts.v[p] : NULL;
				if (acct_assoc_find(cd, names.v[i], accts.v[a], part))
					continue;
				strbuf_addf(&lines, "  U = %-9.9s A = %-10.10s C = %-10.10s", names.v[i],
					    accts.v[a], am->cluster);
				if (part)
					strbuf_addf(&lines, " P = %-10.10s", part);
				strbuf_addch(&lines, '\n');
				nassoc++;
			}
	}
	if (!allowed) {
		mgr_list(o, "Adding User(s)", &names);
		mgr_fail(o, ESLURM_ACCESS_DENIED, " Problem adding users: Access/permission denied\n%s", why ? why : "");
	} else if (!nu.n && !nassoc) {
		mgr_nothing_new(o);
	} else {
		if (nu.n) {
			mgr_list(o, "Adding User(s)", &nu);
			if (defacct || level != UINT32_MAX) {
				strbuf_addstr(&o->out, " Settings =\n");
				if (defacct)
					strbuf_addf(&o->out, "  Default Account = %s\n", defacct);
				if (level != UINT32_MAX)
					strbuf_addf(&o->out, "  Admin Level     = %s\n", admin_label(level));
			}
		}
		if (nassoc) {
			strbuf_addf(&o->out, " Associations =\n%s", lines.buf);
			strbuf_addf(&o->out, " Non Default Settings\n%s", s.report.buf ? s.report.buf : "");
		}
	}
	if (allowed && m->commit && (nu.n || nassoc)) {
		for (uint32_t i = 0; i < nu.n; i++) {
			acct_user_t *u = acct_user_push(am);
			u->name = xstrdup(nu.v[i]);
			u->uid = uid_of_name(u->name);
			u->default_account = xstrdup(defacct ? defacct : accts.v[0]);
			u->admin_level = level == UINT32_MAX ? ACCT_ADMIN_NONE : level;
		}
		acct_changed(cd);
		for (uint32_t i = 0; i < names.n; i++) {
			acct_user_t *u = acct_user_find(cd, names.v[i]);
			uint32_t uid = u ? u->uid : UINT32_MAX;
			for (uint32_t a = 0; a < accts.n; a++)
				for (uint32_t p = 0; p < (parts.n ? parts.n : 1); p++) {
					const char *part = parts.n ? parts.v[p] : NULL;
					if (acct_assoc_find(cd, names.v[i], accts.v[a], part))
						continue;
					uint32_t pid = acct_assoc_find(cd, NULL, accts.v[a], NULL)->id;
					acct_assoc_t *x = acct_assoc_push(am, 0);
					x->parent_id = pid;
					x->account = xstrdup(accts.v[a]);
					x->user = xstrdup(names.v[i]);
					acct_name_lower(x->user);
					x->uid = uid;
					x->partition = xstrdup(part);
					mgr_assoc_apply(cd, x, &s);
					acct_changed(cd);
				}
		}
		info("sacctmgr: user(s) %s... added to %s by uid %u", names.v[0], accts.v[0], m->uid);
	}
	strbuf_release(&lines);
	strv_free(&nu);
	free(why);
out:
	mgr_assoc_set_free(&s);
	free(defacct);
	strv_free(&names);
	strv_free(&accts);
	strv_free(&parts);
}

/* ---- QOS settings ---- */

typedef struct qos_set {
	lim_set_t lim;
	uint8_t given[NLIM];
	char *descr;
	int prio_given, flags_op, preempt_op, mode_given, grace_given, uf_given, ut_given;
	uint32_t prio, flags, mode, grace;
	double uf, ut;
	uint32_t *preempt, npreempt;
	strv_t report;            /* "Key = value" (sorted at print) */
} qos_set_t;

static void qos_set_free(qos_set_t *s)
{
	free(s->descr);
	free(s->preempt);
	strv_free(&s->report);
}

static void qos_rep(qos_set_t *s, const char *k, const char *v)
{
	char *line = xasprintf("  %-24s = %s\n", k, v);
	strv_push(&s->report, line);
	free(line);
}

static int qos_opt(ctld_t *cd, qos_set_t *s, const char *key, const char *v, mgr_out_t *o)
{
	char k[64];
	char op = key_op(key, k, sizeof(k));
	const acct_lim_key_t *lk = acct_lim_key(k);
	if (lk && op == '=') {
		lim_set_t a, b;
		lim_set_clear(&a);
		memset(&b, 0, sizeof(b));
		char *e = NULL;
		if (acct_lim_set(&a, lk, v, &e) || acct_lim_set(&b, lk, v, &e)) {
			mgr_fail(o, SLURM_ERROR, " %s\n", e);
			free(e);
			return -1;
		}
		const uint64_t *pa = (const uint64_t *)(const void *)&a, *pb = (const uint64_t *)(const void *)&b;
		uint64_t *ps = (uint64_t *)(void *)&s->lim;
		for (size_t i = 0; i < NLIM; i++)
			if (pa[i] == pb[i]) {
				ps[i] = pa[i];
				s->given[i] = 1;
			}
		strbuf_t f;
		strbuf_init(&f);
		acct_lim_fmt(&f, &s->lim, lk);
		qos_rep(s, lk->name, f.len ? f.buf : "-1");
		strbuf_release(&f);
		return 1;
	}
	if (mgr_key_is(k, "Description|Descr") && op == '=') {
		free(s->descr);
		s->descr = xstrdup(v);
		acct_name_lower(s->descr);
		return 1;
	}
	if (mgr_key_is(k, "Priority") && op == '=') {
		char *end;
		unsigned long x = strtoul(v, &end, 10);
		if (!strcmp(v, "-1"))
			x = 0;
		else if (!isdigit((unsigned char)*v) || *end || x > UINT32_MAX - 1)
			return mgr_fail(o, SLURM_ERROR, " Bad Priority value: %s\n", v);
		s->prio = (uint32_t)x;
		s->prio_given = 1;
		qos_rep(s, "Priority", v);
		return 1;
	}
	if (mgr_key_is(k, "Flags")) {
		strv_t fl = { 0 };
		mgr_split_into(&fl, v);
		s->flags = 0;
		for (uint32_t i = 0; i < fl.n; i++) {
			int b = mgr_qos_flag(fl.v[i]);
			if (b < 0 && !(fl.n == 1 && !strcmp(fl.v[i], "-1"))) {
				strv_free(&fl);
				return mgr_fail(o, SLURM_ERROR, " Unknown QOS flag: %s\n", v);
			}
			if (b > 0)
				s->flags |= (uint32_t)b;
		}
		strv_free(&fl);
		s->flags_op = op;
		strbuf_t f;
		strbuf_init(&f);
		mgr_qos_flags_fmt(&f, s->flags);
		qos_rep(s, "Flags", f.len ? f.buf : "");
		strbuf_release(&f);
		return 1;
	}
	if (mgr_key_is(k, "Preempt")) {
		free(s->preempt);
		s->preempt = NULL;
		s->npreempt = 0;
		if (!(op == '=' && (!strcmp(v, "-1") || !*v || !strcmp(v, "''"))) &&
		    parse_qos_list(cd, v, &s->preempt, &s->npreempt, o))
			return -1;
		s->preempt_op = op;
		qos_rep(s, "Preempt", v);
		return 1;
	}
	if (mgr_key_is(k, "PreemptMode") && op == '=') {
		if (!strcasecmp(v, "cancel"))
			s->mode = LIM_PREEMPT_CANCEL;
		else if (!strcasecmp(v, "requeue"))
			s->mode = LIM_PREEMPT_REQUEUE;
		else if (!strcasecmp(v, "suspend"))
			s->mode = LIM_PREEMPT_SUSPEND;
		else if (!strcasecmp(v, "off") || !strcasecmp(v, "cluster") || !strcmp(v, "-1"))
			s->mode = LIM_PREEMPT_OFF;
		else
			return mgr_fail(o, SLURM_ERROR, " Unknown PreemptMode: %s\n", v);
		s->mode_given = 1;
		qos_rep(s, "PreemptMode", mgr_preempt_mode_name(s->mode));
		return 1;
	}
	if (mgr_key_is(k, "GraceTime") && op == '=') {
		/* seconds, or [D-]H:M:S */
		char *end;
		unsigned long x = strtoul(v, &end, 10);
		if (*end == ':' || *end == '-') {
			uint32_t mins;
			int colons = 0;
			for (const char *p = v; *p; p++)
				colons += *p == ':';
			/* "M:S" is minutes:seconds for time_limit_parse: use
			 * seconds directly for H:M:S */
			unsigned h = 0, mi = 0, se = 0;
			if (colons == 2 && sscanf(v, "%u:%u:%u", &h, &mi, &se) == 3)
				x = h * 3600ul + mi * 60ul + se;
			else if (!time_limit_parse(v, &mins) && mins != TIME_INFINITE)
				x = mins * 60ul;
			else
				return mgr_fail(o, SLURM_ERROR, " Bad GraceTime: %s\n", v);
		} else if (!isdigit((unsigned char)*v) || *end) {
			return mgr_fail(o, SLURM_ERROR, " Bad GraceTime: %s\n", v);
		}
		s->grace = (uint32_t)x;
		s->grace_given = 1;
		char b[32];
		secs_fmt_hms((long)x, b, sizeof(b));
		qos_rep(s, "GraceTime", b);
		return 1;
	}
	if (mgr_key_is(k, "UsageFactor|UsageThreshold|UsageThres") && op == '=') {
		char *end;
		double x = strtod(v, &end);
		if (!strcmp(v, "-1"))
			x = mgr_key_is(k, "UsageFactor") ? 1.0 : 0.0;
		else if (end == v || *end || x < 0)
			return mgr_fail(o, SLURM_ERROR, " Bad %s: %s\n", k, v);
		if (mgr_key_is(k, "UsageFactor")) {
			s->uf = x;
			s->uf_given = 1;
		} else {
			s->ut = x;
			s->ut_given = 1;
		}
		qos_rep(s, mgr_key_is(k, "UsageFactor") ? "UsageFactor" : "UsageThreshold", v);
		return 1;
	}
	return 0;
}

static void qos_apply(acct_qos_t *q, const qos_set_t *s)
{
	uint64_t *pl = (uint64_t *)(void *)&q->s.lim;
	const uint64_t *ps = (const uint64_t *)(const void *)&s->lim;
	for (size_t i = 0; i < NLIM; i++)
		if (s->given[i])
			pl[i] = ps[i];
	if (s->descr) {
		free(q->description);
		q->description = xstrdup(s->descr);
	}
	if (s->prio_given)
		q->s.priority = s->prio;
	if (s->flags_op == '=')
		q->s.flags = s->flags;
	else if (s->flags_op == '+')
		q->s.flags |= s->flags;
	else if (s->flags_op == '-')
		q->s.flags &= ~s->flags;
	if (s->preempt_op) {
		uint32_t *nv = xmalloc((q->npreempt + s->npreempt + 1) * sizeof(uint32_t)), nn = 0;
		if (s->preempt_op == '-') {
			for (uint32_t i = 0; i < q->npreempt; i++)
				if (!mgr_has_id(s->preempt, s->npreempt, q->preempt_ids[i]))
					nv[nn++] = q->preempt_ids[i];
		} else {
			if (s->preempt_op == '+')
				for (uint32_t i = 0; i < q->npreempt; i++)
					nv[nn++] = q->preempt_ids[i];
			for (uint32_t i = 0; i < s->npreempt; i++)
				if (!mgr_has_id(nv, nn, s->preempt[i]))
					nv[nn++] = s->preempt[i];
		}
		free(q->preempt_ids);
		q->preempt_ids = nv;
		q->npreempt = nn;
	}
	if (s->mode_given)
		q->s.preempt_mode = s->mode;
	if (s->grace_given)
		q->s.grace_time = s->grace;
	if (s->uf_given)
		q->s.usage_factor = s->uf;
	if (s->ut_given)
		q->s.usage_threshold = s->ut;
	q->dirty = 1;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_qos(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o)
{
	acct_t *am = &cd->acct;
	strv_t names = { 0 };
	collect_names(m, "Names|Name", &names);
	qos_set_t s = { 0 };
	lim_set_clear(&s.lim);
	const char *k, *v;
	kv_iter_t it = { m, 0 };
	while (kv_next(&it, &k, &v)) {
		int r;
		if (mgr_key_is(k, "Names|Name"))
			continue;
		if ((r = qos_opt(cd, &s, k, v, o)) < 0)
			goto out;
		if (!r) {
			mgr_fail(o, SLURM_ERROR, " Unknown option: %s=%s\n", k, v);
			goto out;
		}
	}
	if (!names.n) {
		mgr_fail(o, SLURM_ERROR, " Need name of QOS to add.\n");
		goto out;
	}
	if (m->level < ACCT_ADMIN_OPERATOR) {
		mgr_list(o, "Adding QOS(s)", &names);
		mgr_fail(o, ESLURM_ACCESS_DENIED, " Problem adding QOS: Access/permission denied\n");
		goto out;
	}
	strv_t add = { 0 };
	for (uint32_t i = 0; i < names.n; i++)
		if (!acct_qos_by_name(cd, names.v[i]) && !mgr_strv_has_ci(&add, names.v[i]))
			strv_push(&add, names.v[i]);
	if (!add.n) {
		mgr_nothing_new(o);
		strv_free(&add);
		goto out;
	}
	mgr_list(o, "Adding QOS(s)", &add);
	strbuf_addf(&o->out, " Settings\n  Description    = %s\n", s.descr ? s.descr : add.v[0]);
	if (s.report.n)       /* no settings: v is NULL (qsort(NULL) is UB) */
		qsort(s.report.v, s.report.n, sizeof(char *), str_cmp);
	for (uint32_t i = 0; i < s.report.n; i++)
		strbuf_addstr(&o->out, s.report.v[i]);
	if (m->commit) {
		for (uint32_t i = 0; i < add.n; i++) {
			acct_qos_t *q = acct_qos_push(am, 0);
			q->name = xstrdup(add.v[i]);
			q->description = xstrdup(s.descr ? s.descr : add.v[i]);
			qos_apply(q, &s);
			info("sacctmgr: QOS %s added by uid %u", add.v[i], m->uid);
		}
		acct_qos_fix_names(am);
		acct_changed(cd);
	}
	strv_free(&add);
out:
	qos_set_free(&s);
	strv_free(&names);
}

void mgr_add_coord(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o)
{
	strv_t names = { 0 }, accts = { 0 };
	collect_names(m, "Names|Name|Users|User", &names);
	const char *k, *v;
	kv_iter_t it = { m, 0 };
	while (kv_next(&it, &k, &v)) {
		if (mgr_key_is(k, "Accounts|Account|Acct"))
			mgr_split_into(&accts, v);
		else if (!mgr_key_is(k, "Names|Name|Users|User")) {
			mgr_fail(o, SLURM_ERROR, " Unknown option: %s=%s\n", k, v);
			goto out;
		}
	}
	for (uint32_t i = 0; i < accts.n; i++)
		acct_name_lower(accts.v[i]);
	if (!names.n || !accts.n) {
		mgr_fail(o, SLURM_ERROR, " You need to specify a user list and account list here.\n");
		goto out;
	}
	if (m->level < ACCT_ADMIN_OPERATOR) {
		mgr_denied_change(o);
		goto out;
	}
	for (uint32_t i = 0; i < names.n; i++)
		if (!acct_user_find(cd, names.v[i])) {
			mgr_fail(o, SLURM_ERROR, " User '%s' does not exist.\n", names.v[i]);
			goto out;
		}
	for (uint32_t i = 0; i < accts.n; i++)
		if (!acct_assoc_find(cd, NULL, accts.v[i], NULL)) {
			mgr_fail(o, SLURM_ERROR, " Account '%s' does not exist.\n", accts.v[i]);
			goto out;
		}
	/* the accounts and all their sub-accounts */
	strv_t all = { 0 };
	uint32_t *depth, *order = mgr_tree_order(cd, &depth);
	acct_t *am = &cd->acct;
	for (uint32_t k2 = 0; k2 < am->nassocs; k2++) {
		const acct_assoc_t *a = &am->assocs[order[k2]];
		if (a->user || !mgr_strv_has_ci(&accts, a->account))
			continue;
		for (uint32_t c = k2; c < am->nassocs && (c == k2 || depth[c] > depth[k2]); c++) {
			const acct_assoc_t *x = &am->assocs[order[c]];
			if (!x->user && !mgr_strv_has_ci(&all, x->account))
				strv_push(&all, x->account);
		}
	}
	free(order);
	free(depth);
	int any = 0;
	for (uint32_t i = 0; i < names.n; i++) {
		acct_user_t *u = acct_user_find(cd, names.v[i]);
		for (uint32_t a = 0; a < all.n; a++) {
			int have = 0;
			for (uint32_t c = 0; c < u->ncoord; c++)
				have |= !strcmp(u->coord_accounts[c], all.v[a]);
			if (have)
				continue;
			any = 1;
			if (m->commit) {
				u->coord_accounts = xrealloc(u->coord_accounts, (u->ncoord + 1) * sizeof(char *));
				u->coord_accounts[u->ncoord++] = xstrdup(all.v[a]);
				u->dirty = 1;
			}
		}
	}
	if (!any) {
		mgr_nothing_new(o);
	} else {
		mgr_list(o, "Adding Coordinator User(s)", &names);
		strbuf_addstr(&o->out, " To Account(s) and all sub-accounts\n");
		for (uint32_t i = 0; i < accts.n; i++)
			strbuf_addf(&o->out, "  %s\n", accts.v[i]);
		if (m->commit)
			acct_changed(cd);
	}
	strv_free(&all);
out:
	strv_free(&names);
	strv_free(&accts);
}

/* ---- modify ---- */

/* The association lines of a modify report. */
static void assoc_line(ctld_t *cd, strbuf_t *sb, const acct_assoc_t *a)
{
	if (a->user) {
		strbuf_addf(sb, "  C = %-10.10s A = %-20.20s U = %-9.9s", cd->acct.cluster, a->account, a->user);
		if (a->partition)
			strbuf_addf(sb, " P = %s", a->partition);
	} else {
		const acct_assoc_t *p = acct_assoc_parent(cd, a);
		strbuf_addf(sb, "  C = %-10.10s A = %s of %s", cd->acct.cluster, a->account,
			    p ? p->account : "");
	}
	strbuf_addch(sb, '\n');
}

/* Is p an ancestor of a (or a itself)? */
static int under(ctld_t *cd, const acct_assoc_t *a, uint32_t p_id)
{
	for (int d = 0; a && d < 64; d++, a = acct_assoc_parent(cd, a))
		if (a->id == p_id)
			return 1;
	return 0;
}

void mgr_modify_account(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o)
{
	acct_t *am = &cd->acct;
	strv_t names = { 0 };
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&names, m->names.v[i]);
	mgr_where(m, "Names|Name|Accounts|Account|Acct", &names);
	for (uint32_t i = 0; i < names.n; i++)
		acct_name_lower(names.v[i]);
	for (uint32_t i = 0; i < m->wk.n; i++)
		if (!mgr_key_is(m->wk.v[i], "Names|Name|Accounts|Account|Acct|Clusters|Cluster")) {
			mgr_fail(o, SLURM_ERROR, " Unknown condition: %s=%s\n", m->wk.v[i], m->wv.v[i]);
			goto out0;
		}
	assoc_set_t s = { 0 };
	lim_set_clear(&s.lim);
	char *descr = NULL, *org = NULL, *parent = NULL;
	for (uint32_t i = 0; i < m->sk.n; i++) {
		const char *k = m->sk.v[i], *v = m->sv.v[i];
		int r;
		if (mgr_key_is(k, "Description|Descr")) {
			free(descr);
			descr = xstrdup(v);
			acct_name_lower(descr);
		} else if (mgr_key_is(k, "Organization|Org")) {
			free(org);
			org = xstrdup(v);
			acct_name_lower(org);
		} else if (mgr_key_is(k, "Parent")) {
			free(parent);
			parent = xstrdup(v);
			acct_name_lower(parent);
		} else if ((r = mgr_assoc_opt(cd, &s, k, v, o)) < 0) {
			goto out;
		} else if (!r) {
			mgr_fail(o, SLURM_ERROR, " Unknown option: %s=%s\n Use keyword 'where' to modify condition\n", k, v);
			goto out;
		}
	}
	if (!m->sk.n) {
		mgr_fail(o, SLURM_ERROR, " You didn't give me anything to set\n");
		goto out;
	}
	/* the accounts (none named: every account) */
	uint32_t *hit = xmalloc((am->naccounts + 1) * sizeof(uint32_t)), nhit = 0;
	for (uint32_t i = 0; i < am->naccounts; i++)
		if (!names.n || mgr_strv_has_ci(&names, am->accounts[i].name))
			hit[nhit++] = i;
	acct_assoc_t *np = NULL;
	if (parent && !(np = acct_assoc_find(cd, NULL, parent, NULL))) {
		mgr_fail(o, SLURM_ERROR, " Parent account '%s' doesn't exist.\n", parent);
		free(hit);
		goto out;
	}
	int allowed = m->level >= ACCT_ADMIN_OPERATOR;
	char *why = NULL;
	if (!allowed && !descr && !org && !parent) {
		/* a coordinator sets the associations of the accounts below
		 * the one she coordinates (of their parents, as slurmdbd
		 * checks), not of that one, and only with what she holds */
		allowed = nhit > 0;
		for (uint32_t i = 0; i < nhit && allowed && !why; i++) {
			const char *name = am->accounts[hit[i]].name;
			const acct_assoc_t *a = acct_assoc_find(cd, NULL, name, NULL);
			const acct_assoc_t *p = acct_assoc_parent(cd, a);
			allowed = a && p && acct_is_coord(cd, m->uid, p->account);
			if (!allowed && acct_is_coord(cd, m->uid, name))
				why = xasprintf(" Coordinator %s(%u) can not modify account (%s) because they are "
						"not coordinators of parent account '%s'.\n",
						acct_user_by_uid(cd, m->uid)->name, m->uid, name,
						p ? p->account : "");
			else if (allowed)
				why = mgr_coord_refusal(cd, m, a, NULL, &s);
		}
		allowed &= !why;
	}
	if (!allowed) {
		mgr_denied_change(o);
		strbuf_addstr(&o->err, why ? why : "");
		coord_refused(m, why);
		free(why);
		free(hit);
		goto out;
	}
	if ((s.defqos_given || s.qos_op) && !m->load) {
		strbuf_t bad;
		strbuf_init(&bad);
		for (uint32_t i = 0; i < nhit; i++) {
			const acct_assoc_t *a = acct_assoc_find(cd, NULL, am->accounts[hit[i]].name, NULL);
			if (a)
				mgr_defqos_ok(cd, a, NULL, NULL, NULL, &s, &bad);
		}
		if (bad.len)
			mgr_defqos_refuse(o, &bad);
		strbuf_release(&bad);
		if (o->rc) {
			free(hit);
			goto out;
		}
	}
	if (!nhit) {
		strbuf_addstr(&o->out, " Nothing modified\n");
		o->rc = ACCT_MGR_NOTHING;
		free(hit);
		goto out;
	}
	if (np) {
		for (uint32_t i = 0; i < nhit; i++) {
			acct_assoc_t *a = acct_assoc_find(cd, NULL, am->accounts[hit[i]].name, NULL);
			if (a && (a->id == am->assocs[0].id || under(cd, np, a->id))) {
				mgr_fail(o, SLURM_ERROR, " Can't move account '%s' under itself or its own sub-account '%s'\n",
				     a->account, np->account);
				free(hit);
				goto out;
			}
		}
	}
	if (descr || org) {
		strbuf_addstr(&o->out, " Modified accounts...\n");
		for (uint32_t i = 0; i < nhit; i++)
			strbuf_addf(&o->out, "  %s\n", am->accounts[hit[i]].name);
	}
	if (s.any || np) {
		strbuf_addstr(&o->out, " Modified account associations...\n");
		uint32_t *depth, *order = mgr_tree_order(cd, &depth);
		for (uint32_t k = 0; k < am->nassocs; k++) {
			const acct_assoc_t *a = &am->assocs[order[k]];
			if (a->user)
				continue;
			int want = 0;
			for (uint32_t i = 0; i < nhit && !want; i++)
				want = !strcmp(a->account, am->accounts[hit[i]].name);
			if (!want)
				continue;
			/* the account and, for inherited settings, what is under it */
			for (uint32_t c = k; c < am->nassocs && (c == k || depth[c] > depth[k]); c++)
				if (c == k || (s.any && !np))
					assoc_line(cd, &o->out, &am->assocs[order[c]]);
		}
		free(order);
		free(depth);
	}
	if (m->commit) {
		for (uint32_t i = 0; i < nhit; i++) {
			acct_account_t *ac = &am->accounts[hit[i]];
			if (descr) {
				free(ac->description);
				ac->description = xstrdup(descr);
			}
			if (org) {
				free(ac->organization);
				ac->organization = xstrdup(org);
			}
			ac->dirty = 1;
			acct_assoc_t *a = acct_assoc_find(cd, NULL, ac->name, NULL);
			if (!a)
				continue;
			if (s.any)
				mgr_assoc_apply(cd, a, &s);
			if (np) {
				a->parent_id = np->id;
				a->dirty = 1;
			}
		}
		info("sacctmgr: %u account(s) modified by uid %u", nhit, m->uid);
		acct_changed(cd);
	}
	free(hit);
out:
	mgr_assoc_set_free(&s);
	free(descr);
	free(org);
	free(parent);
out0:
	strv_free(&names);
}

void mgr_modify_user(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o)
{
	acct_t *am = &cd->acct;
	strv_t names = { 0 }, accts = { 0 }, parts = { 0 };
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&names, m->names.v[i]);
	mgr_where(m, "Names|Name|Users|User", &names);
	mgr_where(m, "Accounts|Account|Acct", &accts);
	mgr_where(m, "Partitions|Partition", &parts);
	/* (sacctmgr load: the association for any partition only) */
	int nopart = mgr_where(m, "NoPartition", NULL);
	for (uint32_t i = 0; i < names.n; i++)
		acct_name_lower(names.v[i]);
	for (uint32_t i = 0; i < accts.n; i++)
		acct_name_lower(accts.v[i]);
	assoc_set_t s = { 0 };
	lim_set_clear(&s.lim);
	char *defacct = NULL;
	uint32_t level = UINT32_MAX;
	for (uint32_t i = 0; i < m->wk.n; i++)
		if (!mgr_key_is(m->wk.v[i], "Names|Name|Users|User|Accounts|Account|Acct|Partitions|Partition|Clusters|Cluster|NoPartition")) {
			mgr_fail(o, SLURM_ERROR, " Unknown condition: %s=%s\n", m->wk.v[i], m->wv.v[i]);
			goto out;
		}
	for (uint32_t i = 0; i < m->sk.n; i++) {
		const char *k = m->sk.v[i], *v = m->sv.v[i];
		int r;
		if (mgr_key_is(k, "DefaultAccount|DefAcct")) {
			free(defacct);
			defacct = xstrdup(v);
			acct_name_lower(defacct);
		} else if (mgr_key_is(k, "AdminLevel|Admin")) {
			if ((level = admin_parse(v)) == UINT32_MAX) {
				mgr_fail(o, SLURM_ERROR, " Unknown AdminLevel: %s (None, Operator or Administrator)\n", v);
				goto out;
			}
		} else if ((r = mgr_assoc_opt(cd, &s, k, v, o)) < 0) {
			goto out;
		} else if (!r) {
			mgr_fail(o, SLURM_ERROR, " Unknown option: %s=%s\n Use keyword 'where' to modify condition\n", k, v);
			goto out;
		}
	}
	if (!m->sk.n) {
		mgr_fail(o, SLURM_ERROR, " You didn't give me anything to set\n");
		goto out;
	}
	/* users and their associations that match */
	uint32_t *users = xmalloc((am->nusers + 1) * sizeof(uint32_t)), nusers = 0;
	for (uint32_t i = 0; i < am->nusers; i++)
		if (!names.n || mgr_strv_has_ci(&names, am->users[i].name))
			users[nusers++] = i;
	uint32_t *assocs = xmalloc((am->nassocs + 1) * sizeof(uint32_t)), nassocs = 0;
	if (s.any) {
		uint32_t *depth, *order = mgr_tree_order(cd, &depth);
		for (uint32_t k = 0; k < am->nassocs; k++) {
			const acct_assoc_t *a = &am->assocs[order[k]];
			if (!a->user || (names.n && !mgr_strv_has_ci(&names, a->user)) ||
			    (accts.n && !mgr_strv_has_ci(&accts, a->account)) ||
			    (parts.n && (!a->partition || !mgr_strv_has_ci(&parts, a->partition))) ||
			    (nopart && a->partition))
				continue;
			assocs[nassocs++] = order[k];
		}
		free(order);
		free(depth);
	}
	int allowed = m->level >= ACCT_ADMIN_OPERATOR;
	char *why = NULL;
	if (!allowed && !defacct && level == UINT32_MAX) {
		allowed = nassocs > 0;
		for (uint32_t i = 0; i < nassocs; i++)
			allowed &= acct_is_coord(cd, m->uid, am->assocs[assocs[i]].account);
		/* and only with what she holds, for every one of them */
		for (uint32_t i = 0; i < nassocs && allowed && !why; i++)
			why = mgr_coord_refusal(cd, m, &am->assocs[assocs[i]], NULL, &s);
		allowed &= !why;
	}
	if (level == ACCT_ADMIN_SUPER && m->level < ACCT_ADMIN_SUPER)
		allowed = 0;
	if (!allowed) {
		mgr_denied_change(o);
		strbuf_addstr(&o->err, why ? why : "");
		coord_refused(m, why);
		free(why);
		goto out2;
	}
	if ((s.defqos_given || s.qos_op) && !m->load) {
		strbuf_t bad;
		strbuf_init(&bad);
		for (uint32_t i = 0; i < nassocs; i++)
			mgr_defqos_ok(cd, &am->assocs[assocs[i]], NULL, NULL, NULL, &s, &bad);
		if (bad.len)
			mgr_defqos_refuse(o, &bad);
		strbuf_release(&bad);
		if (o->rc)
			goto out2;
	}
	if (defacct) {
		for (uint32_t i = 0; i < nusers; i++)
			if (!acct_assoc_find(cd, am->users[users[i]].name, defacct, NULL)) {
				mgr_fail(o, SLURM_ERROR, " User '%s' has no association with account '%s': it cannot be the default account\n",
				     am->users[users[i]].name, defacct);
				goto out2;
			}
	}
	int user_level = defacct || level != UINT32_MAX;
	if ((user_level && !nusers) || (s.any && !nassocs && !user_level) || (!user_level && !s.any)) {
		strbuf_addstr(&o->out, " Nothing modified\n");
		o->rc = ACCT_MGR_NOTHING;
		goto out2;
	}
	if (user_level) {
		strbuf_addstr(&o->out, " Modified users...\n");
		for (uint32_t i = 0; i < nusers; i++)
			strbuf_addf(&o->out, "  %s\n", am->users[users[i]].name);
	}
	if (s.any && nassocs) {
		strbuf_addstr(&o->out, " Modified user associations...\n");
		for (uint32_t i = 0; i < nassocs; i++)
			assoc_line(cd, &o->out, &am->assocs[assocs[i]]);
	}
	if (m->commit) {
		for (uint32_t i = 0; i < nusers && user_level; i++) {
			acct_user_t *u = &am->users[users[i]];
			if (defacct) {
				free(u->default_account);
				u->default_account = xstrdup(defacct);
			}
			if (level != UINT32_MAX)
				u->admin_level = level;
			u->dirty = 1;
		}
		for (uint32_t i = 0; i < nassocs; i++)
			mgr_assoc_apply(cd, &am->assocs[assocs[i]], &s);
		info("sacctmgr: %u user(s), %u association(s) modified by uid %u",
		     user_level ? nusers : 0, nassocs, m->uid);
		acct_changed(cd);
	}
out2:
	free(users);
	free(assocs);
out:
	mgr_assoc_set_free(&s);
	free(defacct);
	strv_free(&names);
	strv_free(&accts);
	strv_free(&parts);
}

static void modify_qos(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o)
{
	acct_t *am = &cd->acct;
	strv_t names = { 0 };
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&names, m->names.v[i]);
	mgr_where(m, "Names|Name|QOS", &names);
	qos_set_t s = { 0 };
	lim_set_clear(&s.lim);
	for (uint32_t i = 0; i < m->wk.n; i++)
		if (!mgr_key_is(m->wk.v[i], "Names|Name|QOS|IDs|ID")) {
			mgr_fail(o, SLURM_ERROR, " Unknown condition: %s=%s\n", m->wk.v[i], m->wv.v[i]);
			goto out;
		}
	for (uint32_t i = 0; i < m->sk.n; i++) {
		int r = qos_opt(cd, &s, m->sk.v[i], m->sv.v[i], o);
		if (r < 0)
			goto out;
		if (!r) {
			mgr_fail(o, SLURM_ERROR, " Unknown option: %s=%s\n Use keyword 'where' to modify condition\n",
			     m->sk.v[i], m->sv.v[i]);
			goto out;
		}
	}
	if (!m->sk.n) {
		mgr_fail(o, SLURM_ERROR, " You didn't give me anything to set\n");
		goto out;
	}
	if (m->level < ACCT_ADMIN_OPERATOR) {
		mgr_denied_change(o);
		goto out;
	}
	uint32_t *hit = xmalloc((am->nqos + 1) * sizeof(uint32_t)), nhit = 0;
	for (uint32_t i = 0; i < am->nqos; i++)
		if (!names.n || mgr_strv_has_ci(&names, am->qos[i].name))
			hit[nhit++] = i;
	if (!nhit) {
		strbuf_addstr(&o->out, " Nothing modified\n");
		o->rc = ACCT_MGR_NOTHING;
	} else {
		strbuf_addstr(&o->out, " Modified qos...\n");
		for (uint32_t i = 0; i < nhit; i++)
			strbuf_addf(&o->out, "  %s\n", am->qos[hit[i]].name);
		if (m->commit) {
			for (uint32_t i = 0; i < nhit; i++)
				qos_apply(&am->qos[hit[i]], &s);
			info("sacctmgr: %u QOS modified by uid %u", nhit, m->uid);
			acct_changed(cd);
		}
	}
	free(hit);
out:
	qos_set_free(&s);
	strv_free(&names);
}

static uint32_t uid_of_name(const char *name)
{
	/* sacctmgr add user: one NSS lookup, operator-driven and rare */
	struct passwd *pw = getpwnam(name);
	return pw ? pw->pw_uid : UINT32_MAX;
}

/* ---- dispatch ---- */

void acct_mgr_op(ctld_t *cd, const msg_acct_req_t *req, uint32_t uid, msg_acct_reply_t *r)
{
	mgr_req_t m = { 0 };
	req_parse(req, &m);
	m.uid = uid;
	m.level = acct_admin_level(cd, uid);
	if (!strcmp(m.verb, "show")) {
		mgr_show(cd, &m, r);
		mgr_req_free(&m);
		return;
	}
	if (!strcmp(m.verb, "dump")) {
		mgr_dump(cd, &m, r);
		mgr_req_free(&m);
		return;
	}
	mgr_out_t o = { 0 };
	const char *e = m.entity;
	if (!strcmp(m.verb, "add")) {
		if (!strcmp(e, "account"))
			mgr_add_account(cd, &m, &o);
		else if (!strcmp(e, "user"))
			mgr_add_user(cd, &m, &o);
		else if (!strcmp(e, "qos"))
			add_qos(cd, &m, &o);
		else if (!strcmp(e, "coordinator"))
			mgr_add_coord(cd, &m, &o);
		else
			mgr_fail(&o, SLURM_ERROR, " Adding a %s is not supported: this controller keeps one cluster (%s)\n",
			     e, cd->acct.cluster);
	} else if (!strcmp(m.verb, "modify")) {
		if (!strcmp(e, "account"))
			mgr_modify_account(cd, &m, &o);
		else if (!strcmp(e, "user"))
			mgr_modify_user(cd, &m, &o);
		else if (!strcmp(e, "qos"))
			modify_qos(cd, &m, &o);
		else
			mgr_fail(&o, SLURM_ERROR, " Modifying a %s is not supported here: modify the account or user\n", e);
	} else if (!strcmp(m.verb, "delete")) {
		if (!strcmp(e, "account"))
			mgr_delete_account(cd, &m, &o);
		else if (!strcmp(e, "user"))
			mgr_delete_user(cd, &m, &o);
		else if (!strcmp(e, "qos"))
			mgr_delete_qos(cd, &m, &o);
		else if (!strcmp(e, "coordinator"))
			mgr_delete_coord(cd, &m, &o);
		else
			mgr_fail(&o, SLURM_ERROR, " Deleting a %s is not supported: this controller keeps one cluster (%s)\n",
			     e, cd->acct.cluster);
	} else if (!strcmp(m.verb, "load")) {
		mgr_load(cd, req, &m, &o);
	} else {
		mgr_fail(&o, SLURM_ERROR, " Unknown sacctmgr verb '%s'\n", m.verb);
	}
	finish(&o, r);
	mgr_req_free(&m);
}
