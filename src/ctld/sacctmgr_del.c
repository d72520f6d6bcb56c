/*
 * sacctmgr_del.c: sacctmgr delete (users, accounts, QOS, coordinators) and
 * load (a dump file read back), the server side (sacctmgr_int.h).
 */
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
#include "xalloc.h"

/* ---- delete ---- */

/* Jobs not yet finished that belong to a marked association: Slurm
 * refuses to remove those ("Job(s) active, cancel job(s) before
 * remove"). 1 (and the error in o) if there are any. O(jobs). */
static int assocs_busy(ctld_t *cd, const uint8_t *del, mgr_out_t *o)
{
	acct_t *am = &cd->acct;
	strbuf_t lines;
	strbuf_init(&lines);
	for (uint32_t i = 0; i < cd->njobs; i++) {
		const job_t *j = cd->jobs[i];
		if (!j || !j->assoc_id || JOB_IS_FINISHED(j->state))
			continue;
		acct_assoc_t *a = acct_assoc_by_id(cd, j->assoc_id);
		if (!a || !del[a - am->assocs])
			continue;
		strbuf_addf(&lines, "  JobID = %-10u C = %-10.10s A = %-10.10s U = %-9.9s\n", j->job_id,
			    am->cluster, a->account, a->user ? a->user : "");
	}
	int busy = lines.len > 0;
	if (busy)
		mgr_fail(o, SLURM_ERROR, " Error with request: Job(s) active, cancel job(s) before remove\n%s",
		     lines.buf);
	strbuf_release(&lines);
	return busy;
}

/* Remove the associations marked in del (by index); O(n). */
static void drop_assocs(ctld_t *cd, const uint8_t *del)
{
	acct_t *am = &cd->acct;
	uint32_t w = 0;
	for (uint32_t i = 0; i < am->nassocs; i++) {
		acct_assoc_t *a = &am->assocs[i];
		if (del[i]) {
			char *g = xasprintf("s\t%u", a->id);
			strv_push(&am->gone, g);
			free(g);
			free(a->account);
			free(a->user);
			free(a->partition);
			free(a->qos_ids);
			continue;
		}
		if (w != i)
			am->assocs[w] = *a;
		w++;
	}
	am->nassocs = w;
}

static void drop_user(acct_t *am, uint32_t i)
{
	acct_user_t *u = &am->users[i];
	char *g = xasprintf("u\t%s", u->name);
	strv_push(&am->gone, g);
	free(g);
	free(u->name);
	free(u->default_account);
	for (uint32_t c = 0; c < u->ncoord; c++)
		free(u->coord_accounts[c]);
	free(u->coord_accounts);
	memmove(u, u + 1, (am->nusers - i - 1) * sizeof(*u));
	am->nusers--;
}

void mgr_delete_user(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o)
{
	acct_t *am = &cd->acct;
	strv_t names = { 0 }, accts = { 0 }, parts = { 0 };
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&names, m->names.v[i]);
	mgr_where(m, "Names|Name|Users|User", &names);
	mgr_where(m, "Accounts|Account|Acct", &accts);
	mgr_where(m, "Partitions|Partition", &parts);
	for (uint32_t i = 0; i < names.n; i++)
		acct_name_lower(names.v[i]);
	for (uint32_t i = 0; i < accts.n; i++)
		acct_name_lower(accts.v[i]);
	if (m->sk.n) {
		mgr_fail(o, SLURM_ERROR, " Unknown option: %s=%s\n", m->sk.v[0], m->sv.v[0]);
		goto out;
	}
	if (!names.n) {
		mgr_fail(o, SLURM_ERROR, " No conditions given to remove, not executing.\n");
		goto out;
	}
	uint8_t *del = xcalloc(am->nassocs + 1, 1);
	uint32_t ndel = 0;
	for (uint32_t i = 0; i < am->nassocs; i++) {
		const acct_assoc_t *a = &am->assocs[i];
		if (a->user && mgr_strv_has_ci(&names, a->user) &&
		    (!accts.n || mgr_strv_has_ci(&accts, a->account)) &&
		    (!parts.n || (a->partition && mgr_strv_has_ci(&parts, a->partition)))) {
			del[i] = 1;
			ndel++;
		}
	}
	int by_assoc = accts.n || parts.n;
	/* users that go: all named ones (no account given), or those left
	 * with no association */
	strv_t gone = { 0 };
	for (uint32_t u = 0; u < am->nusers; u++) {
		const acct_user_t *us = &am->users[u];
		if (!mgr_strv_has_ci(&names, us->name))
			continue;
		int left = 0, lost_default = 0;
		for (uint32_t i = 0; i < am->nassocs; i++) {
			const acct_assoc_t *a = &am->assocs[i];
			if (!a->user || strcmp(a->user, us->name))
				continue;
			if (!del[i])
				left = 1;
			else if (us->default_account && !strcmp(a->account, us->default_account))
				lost_default = 1;
		}
		if (!by_assoc || !left)
			strv_push(&gone, us->name);
		else if (lost_default) {
			/* the default account's association would go */
			int still = 0;
			for (uint32_t i = 0; i < am->nassocs; i++) {
				const acct_assoc_t *a = &am->assocs[i];
				if (a->user && !strcmp(a->user, us->name) && !del[i] &&
				    !strcmp(a->account, us->default_account))
					still = 1;
			}
			if (!still) {
				mgr_fail(o, SLURM_ERROR, " Error with request: You can not remove the default account of a user\n"
				     "  C = %-15.15s A = %-10.10s U = %-9.9s\n"
				     " Please either remove the accounts listed above from list and resubmit,\n"
				     " or change these users' default accounts to remove the account(s).\n"
				     " Changes Discarded\n", am->cluster, us->default_account, us->name);
				free(del);
				strv_free(&gone);
				goto out;
			}
		}
	}
	int allowed = m->level >= ACCT_ADMIN_OPERATOR;
	if (!allowed && by_assoc) {
		allowed = ndel > 0;
		for (uint32_t i = 0; i < am->nassocs; i++)
			if (del[i])
				allowed &= acct_is_coord(cd, m->uid, am->assocs[i].account);
	}
	if (!allowed) {
		mgr_denied_change(o);
	} else if (assocs_busy(cd, del, o)) {
		/* o has the jobs */
	} else if (!ndel && !gone.n) {
		strbuf_addstr(&o->out, " Nothing deleted\n");
		o->rc = ACCT_MGR_NOTHING;
	} else {
		if (by_assoc) {
			strbuf_addstr(&o->out, " Deleting user associations...\n");
			for (uint32_t i = 0; i < am->nassocs; i++) {
				if (!del[i])
					continue;
				const acct_assoc_t *a = &am->assocs[i];
				strbuf_addf(&o->out, "  C = %-10.10s A = %-10.10s U = %-9.9s", am->cluster,
					    a->account, a->user);
				if (a->partition)
					strbuf_addf(&o->out, " P = %s", a->partition);
				strbuf_addch(&o->out, '\n');
			}
			if (gone.n) {
				strbuf_addstr(&o->out, " Deleting users (No Associations)...\n");
				for (uint32_t i = 0; i < gone.n; i++)
					strbuf_addf(&o->out, "  %s\n", gone.v[i]);
			}
		} else {
			strbuf_addstr(&o->out, " Deleting users...\n");
			for (uint32_t i = 0; i < gone.n; i++)
				strbuf_addf(&o->out, "  %s\n", gone.v[i]);
		}
		if (m->commit) {
			drop_assocs(cd, del);
			for (uint32_t i = 0; i < gone.n; i++)
				for (uint32_t u = 0; u < am->nusers; u++)
					if (!strcmp(am->users[u].name, gone.v[i])) {
						drop_user(am, u);
						break;
					}
			info("sacctmgr: %u user association(s), %u user(s) deleted by uid %u", ndel,
			     gone.n, m->uid);
			acct_changed(cd);
		}
	}
	free(del);
	strv_free(&gone);
out:
	strv_free(&names);
	strv_free(&accts);
	strv_free(&parts);
}

void mgr_delete_account(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o)
{
	acct_t *am = &cd->acct;
	strv_t names = { 0 };
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&names, m->names.v[i]);
	mgr_where(m, "Names|Name|Accounts|Account|Acct", &names);
	for (uint32_t i = 0; i < names.n; i++)
		acct_name_lower(names.v[i]);
	if (m->sk.n) {
		mgr_fail(o, SLURM_ERROR, " Unknown option: %s=%s\n", m->sk.v[0], m->sv.v[0]);
		goto out;
	}
	if (!names.n) {
		mgr_fail(o, SLURM_ERROR, " No conditions given to remove, not executing.\n");
		goto out;
	}
	if (mgr_strv_has_ci(&names, "root")) {
		mgr_fail(o, SLURM_ERROR, " You can not remove the root account\n");
		goto out;
	}
	if (m->level < ACCT_ADMIN_OPERATOR) {
		int ok = 1;
		for (uint32_t i = 0; i < names.n; i++) {
			/* a coordinator removes sub-accounts of its accounts */
			const acct_assoc_t *a = acct_assoc_find(cd, NULL, names.v[i], NULL);
			const acct_assoc_t *p = acct_assoc_parent(cd, a);
			ok &= p && acct_is_coord(cd, m->uid, p->account);
		}
		if (!ok) {
			mgr_denied_change(o);
			goto out;
		}
	}
	uint8_t *del = xcalloc(am->nassocs + 1, 1);
	strv_t hit = { 0 };
	for (uint32_t i = 0; i < am->naccounts; i++)
		if (mgr_strv_has_ci(&names, am->accounts[i].name))
			strv_push(&hit, am->accounts[i].name);
	/* the accounts' associations and everything under them */
	for (uint32_t i = 0; i < am->nassocs; i++) {
		const acct_assoc_t *a = &am->assocs[i];
		for (const acct_assoc_t *x = a; x && !del[i]; x = acct_assoc_parent(cd, x))
			if (!x->user && mgr_strv_has_ci(&hit, x->account))
				del[i] = 1;
	}
	/* a user's default account must not lose the user's association */
	strbuf_t bad;
	strbuf_init(&bad);
	for (uint32_t i = 0; i < am->nassocs; i++) {
		const acct_assoc_t *a = &am->assocs[i];
		if (!del[i] || !a->user)
			continue;
		const acct_user_t *u = acct_user_find(cd, a->user);
		if (!u || !u->default_account || strcmp(u->default_account, a->account))
			continue;
		strbuf_addf(&bad, "  C = %-15.15s A = %-10.10s U = %-9.9s\n", am->cluster, a->account, a->user);
	}
	if (hit.n && assocs_busy(cd, del, o)) {
		/* o has the jobs */
	} else if (bad.len) {
		mgr_fail(o, SLURM_ERROR, " Error with request: You can not remove the default account of a user\n%s"
		     " Please either remove the accounts listed above from list and resubmit,\n"
		     " or change these users' default accounts to remove the account(s).\n"
		     " Changes Discarded\n", bad.buf);
	} else if (!hit.n) {
		strbuf_addstr(&o->out, " Nothing deleted\n");
		o->rc = ACCT_MGR_NOTHING;
	} else {
		strbuf_addstr(&o->out, " Deleting accounts...\n");
		for (uint32_t i = 0; i < hit.n; i++)
			strbuf_addf(&o->out, "  %s\n", hit.v[i]);
		if (m->commit) {
			/* users left with no association go too */
			strv_t users = { 0 };
			for (uint32_t i = 0; i < am->nassocs; i++)
				if (del[i] && am->assocs[i].user && !mgr_strv_has_ci(&users, am->assocs[i].user))
					strv_push(&users, am->assocs[i].user);
			drop_assocs(cd, del);
			for (uint32_t i = 0; i < hit.n; i++)
				for (uint32_t a = 0; a < am->naccounts; a++)
					if (!strcmp(am->accounts[a].name, hit.v[i])) {
						acct_account_t *ac = &am->accounts[a];
						char *g = xasprintf("a\t%s", ac->name);
						strv_push(&am->gone, g);
						free(g);
						free(ac->name);
						free(ac->description);
						free(ac->organization);
						memmove(ac, ac + 1, (am->naccounts - a - 1) * sizeof(*ac));
						am->naccounts--;
						break;
					}
			acct_changed(cd);
			for (uint32_t i = 0; i < users.n; i++) {
				int left = 0;
				for (uint32_t j = 0; j < am->nassocs && !left; j++)
					left = am->assocs[j].user && !strcmp(am->assocs[j].user, users.v[i]);
				for (uint32_t u = 0; u < am->nusers && !left; u++)
					if (!strcmp(am->users[u].name, users.v[i])) {
						drop_user(am, u);
						break;
					}
			}
			/* coordinators of a gone account */
			for (uint32_t u = 0; u < am->nusers; u++) {
				acct_user_t *us = &am->users[u];
				uint32_t w = 0;
				for (uint32_t c = 0; c < us->ncoord; c++) {
					if (mgr_strv_has_ci(&hit, us->coord_accounts[c])) {
						free(us->coord_accounts[c]);
						us->dirty = 1;
					} else {
						us->coord_accounts[w++] = us->coord_accounts[c];
					}
				}
				us->ncoord = w;
			}
			strv_free(&users);
			info("sacctmgr: %u account(s) deleted by uid %u", hit.n, m->uid);
			acct_changed(cd);
		}
	}
	strbuf_release(&bad);
	strv_free(&hit);
	free(del);
out:
	strv_free(&names);
}

void mgr_delete_qos(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o)
{
	acct_t *am = &cd->acct;
	strv_t names = { 0 };
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&names, m->names.v[i]);
	mgr_where(m, "Names|Name|QOS", &names);
	if (!names.n) {
		mgr_fail(o, SLURM_ERROR, " No conditions given to remove, not executing.\n");
		goto out;
	}
	if (m->level < ACCT_ADMIN_OPERATOR) {
		mgr_denied_change(o);
		goto out;
	}
	strv_t hit = { 0 };
	for (uint32_t i = 0; i < am->nqos; i++)
		if (mgr_strv_has_ci(&names, am->qos[i].name))
			strv_push(&hit, am->qos[i].name);
	if (!hit.n) {
		strbuf_addstr(&o->out, " Nothing deleted\n");
		o->rc = ACCT_MGR_NOTHING;
		strv_free(&hit);
		goto out;
	}
	strbuf_addstr(&o->out, " Deleting QOS(s)...\n");
	for (uint32_t i = 0; i < hit.n; i++)
		strbuf_addf(&o->out, "  %s\n", hit.v[i]);
	if (m->commit) {
		for (uint32_t h = 0; h < hit.n; h++) {
			acct_qos_t *q = acct_qos_by_name(cd, hit.v[h]);
			uint32_t id = q->id;
			char *g = xasprintf("q\t%u", id);
			strv_push(&am->gone, g);
			free(g);
			uint32_t qi = (uint32_t)(q - am->qos);
			free(q->name);
			free(q->description);
			free(q->preempt_ids);
			memmove(q, q + 1, (am->nqos - qi - 1) * sizeof(*q));
			am->nqos--;
			/* and wherever it is named */
			for (uint32_t i = 0; i < am->nassocs; i++) {
				acct_assoc_t *a = &am->assocs[i];
				uint32_t w = 0;
				for (uint32_t k = 0; k < a->nqos; k++)
					if (a->qos_ids[k] != id)
						a->qos_ids[w++] = a->qos_ids[k];
				if (w != a->nqos || a->def_qos_id == id) {
					a->nqos = w;
					if (a->def_qos_id == id)
						a->def_qos_id = 0;
					a->dirty = 1;
				}
			}
			for (uint32_t i = 0; i < am->nqos; i++) {
				acct_qos_t *x = &am->qos[i];
				uint32_t w = 0;
				for (uint32_t k = 0; k < x->npreempt; k++)
					if (x->preempt_ids[k] != id)
						x->preempt_ids[w++] = x->preempt_ids[k];
				if (w != x->npreempt) {
					x->npreempt = w;
					x->dirty = 1;
				}
			}
			acct_qos_fix_names(am);
			acct_changed(cd);
		}
		info("sacctmgr: %u QOS deleted by uid %u", hit.n, m->uid);
	}
	strv_free(&hit);
out:
	strv_free(&names);
}

void mgr_delete_coord(ctld_t *cd, const mgr_req_t *m, mgr_out_t *o)
{
	strv_t names = { 0 }, accts = { 0 };
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&names, m->names.v[i]);
	mgr_where(m, "Names|Name|Users|User", &names);
	mgr_where(m, "Accounts|Account|Acct", &accts);
	for (uint32_t i = 0; i < m->sk.n; i++) {
		if (mgr_key_is(m->sk.v[i], "Names|Name|Users|User"))
			mgr_split_into(&names, m->sv.v[i]);
		else if (mgr_key_is(m->sk.v[i], "Accounts|Account|Acct"))
			mgr_split_into(&accts, m->sv.v[i]);
	}
	for (uint32_t i = 0; i < accts.n; i++)
		acct_name_lower(accts.v[i]);
	if (!names.n) {
		mgr_fail(o, SLURM_ERROR, " You need to specify a user list here.\n");
		goto out;
	}
	if (m->level < ACCT_ADMIN_OPERATOR) {
		mgr_denied_change(o);
		goto out;
	}
	strbuf_t lines;
	strbuf_init(&lines);
	for (uint32_t i = 0; i < names.n; i++) {
		acct_user_t *u = acct_user_find(cd, names.v[i]);
		if (!u)
			continue;
		uint32_t w = 0;
		for (uint32_t c = 0; c < u->ncoord; c++) {
			if (!accts.n || mgr_strv_has_ci(&accts, u->coord_accounts[c])) {
				strbuf_addf(&lines, "  U = %-9.9s A = %-10.10s\n", u->name, u->coord_accounts[c]);
				if (m->commit) {
					free(u->coord_accounts[c]);
					u->dirty = 1;
					continue;
				}
			}
			u->coord_accounts[w++] = u->coord_accounts[c];
		}
		u->ncoord = w;
	}
	if (!lines.len) {
		strbuf_addstr(&o->out, " Nothing deleted\n");
		o->rc = ACCT_MGR_NOTHING;
	} else {
		strbuf_addstr(&o->out, " Removing Coordinators with user name\n");
		for (uint32_t i = 0; i < names.n; i++)
			strbuf_addf(&o->out, "  %s\n", names.v[i]);
		if (accts.n) {
			mgr_list(o, "From Account(s)", &accts);
		}
		strbuf_addf(&o->out, " Removed Coordinators (sub accounts not listed)...\n%s", lines.buf);
		if (m->commit)
			acct_changed(cd);
	}
	strbuf_release(&lines);
out:
	strv_free(&names);
	strv_free(&accts);
}

/* ---- load ---- */

/* One line of a dump file: "Type - 'name':Key=Value:Key='v a l'". */
typedef struct load_line {
	char type[16];
	char *name;
	strv_t keys, vals;
} load_line_t;

static int load_parse(const char *line, load_line_t *l)
{
	memset(l, 0, sizeof(*l));
	const char *p = strstr(line, " - ");
	if (!p || (size_t)(p - line) >= sizeof(l->type))
		return -1;
	memcpy(l->type, line, (size_t)(p - line));
	p += 3;
	/* fields split on ':' outside quotes */
	strbuf_t f;
	strbuf_init(&f);
	int q = 0, first = 1;
	for (;; p++) {
		if (*p == '\'' ) {
			q = !q;
			continue;
		}
		if ((*p == ':' && !q) || !*p) {
			char *fld = strbuf_detach(&f);
			if (first) {
				l->name = fld;
				first = 0;
			} else {
				char *eq = strchr(fld, '=');
				if (!eq) {
					free(fld);
					return -1;
				}
				*eq = 0;
				strv_push(&l->keys, fld);
				strv_push(&l->vals, eq + 1);
				free(fld);
			}
			if (!*p)
				break;
			continue;
		}
		strbuf_addch(&f, *p);
	}
	strbuf_release(&f);
	if (q || !l->name || !*l->name)
		return -1;
	acct_name_lower(l->name);
	return 0;
}

static void load_line_free(load_line_t *l)
{
	free(l->name);
	strv_free(&l->keys);
	strv_free(&l->vals);
}

/* Run a verb as if typed (the load's own lines): into o; 0 if it went. */
static int load_run(ctld_t *cd, const mgr_req_t *m, void (*fn)(ctld_t *, const mgr_req_t *, mgr_out_t *),
		    mgr_req_t *sub, mgr_out_t *o)
{
	sub->uid = m->uid;
	sub->level = m->level;
	sub->load = 1;
	sub->commit = 1;
	mgr_out_t x = { 0 };
	fn(cd, sub, &x);
	int rc = x.rc;
	if (rc && rc != ACCT_MGR_NOTHING) {
		strbuf_addstr(&o->err, x.err.buf ? x.err.buf : "");
		o->rc = rc;
	}
	strbuf_release(&x.out);
	strbuf_release(&x.err);
	mgr_req_free(sub);
	memset(sub, 0, sizeof(*sub));
	return rc && rc != ACCT_MGR_NOTHING ? -1 : 0;
}

void mgr_load(ctld_t *cd, const msg_acct_req_t *req, mgr_req_t *m, mgr_out_t *o)
{
	acct_t *am = &cd->acct;
	int clean = mgr_strv_has_ci(&m->names, "clean") || mgr_where(m, "clean", NULL);
	if (m->level < ACCT_ADMIN_OPERATOR) {
		mgr_denied_change(o);
		return;
	}
	if (!req->body || !*req->body) {
		mgr_fail(o, SLURM_ERROR, " No file given to load (file=FILE)\n");
		return;
	}
	/* parse it all first: a bad file changes nothing */
	load_line_t *lines = NULL;
	size_t n = 0, cap = 0, lineno = 0;
	char *body = xstrdup(req->body), *save = NULL;
	int bad = 0;
	for (char *ln = strtok_r(body, "\n", &save); ln && !bad; ln = strtok_r(NULL, "\n", &save)) {
		lineno++;
		while (*ln == ' ' || *ln == '\t')
			ln++;
		size_t len = strlen(ln);
		while (len && (ln[len - 1] == ' ' || ln[len - 1] == '\r'))
			ln[--len] = 0;
		if (!*ln || *ln == '#')
			continue;
		lines = xgrow(lines, sizeof(*lines), n + 1, &cap);
		if (load_parse(ln, &lines[n]) ||
		    (strcasecmp(lines[n].type, "Cluster") && strcasecmp(lines[n].type, "Parent") &&
		     strcasecmp(lines[n].type, "Account") && strcasecmp(lines[n].type, "User"))) {
			mgr_fail(o, SLURM_ERROR, " Bad line %zu of the file: %s\n", lineno, ln);
			load_line_free(&lines[n]);
			bad = 1;
			break;
		}
		n++;
	}
	free(body);
	if (!bad && (!n || strcasecmp(lines[0].type, "Cluster"))) {
		mgr_fail(o, SLURM_ERROR, " The file must start with a Cluster - 'name' line\n");
		bad = 1;
	}
	if (!bad && strcasecmp(lines[0].name, am->cluster)) {
		mgr_fail(o, SLURM_ERROR, " The file is for cluster '%s'; this controller keeps cluster '%s'\n",
		     lines[0].name, am->cluster);
		bad = 1;
	}
	size_t naccts = 0, nusers = 0;
	for (size_t i = 0; i < n; i++) {
		naccts += !strcasecmp(lines[i].type, "Account");
		nusers += !strcasecmp(lines[i].type, "User");
	}
	if (!bad) {
		strbuf_addf(&o->out, " For cluster %s\n", am->cluster);
		if (clean)
			strbuf_addstr(&o->out, " Removing the cluster's accounts, users and associations first (clean)\n");
		strbuf_addf(&o->out, " Loading %zu account line(s) and %zu user line(s)\n", naccts, nusers);
	}
	if (bad || !m->commit)
		goto out;
	if (clean) {
		uint8_t *del = xcalloc(am->nassocs + 1, 1);
		for (uint32_t i = 1; i < am->nassocs; i++)
			del[i] = 1;
		drop_assocs(cd, del);
		free(del);
		while (am->nusers)
			drop_user(am, am->nusers - 1);
		for (uint32_t a = 0; a < am->naccounts;) {
			acct_account_t *ac = &am->accounts[a];
			if (!strcmp(ac->name, "root")) {
				a++;
				continue;
			}
			char *g = xasprintf("a\t%s", ac->name);
			strv_push(&am->gone, g);
			free(g);
			free(ac->name);
			free(ac->description);
			free(ac->organization);
			memmove(ac, ac + 1, (am->naccounts - a - 1) * sizeof(*ac));
			am->naccounts--;
		}
		acct_changed(cd);
	}
	const char *parent = "root";
	strv_t coord_u = { 0 }, coord_a = { 0 };
	for (size_t i = 0; i < n; i++) {
		load_line_t *l = &lines[i];
		mgr_req_t sub = { 0 };
		if (!strcasecmp(l->type, "Cluster")) {
			assoc_set_t s = { 0 };
			lim_set_clear(&s.lim);
			int ok = 1;
			for (uint32_t k = 0; k < l->keys.n && ok; k++)
				ok = mgr_assoc_opt(cd, &s, l->keys.v[k], l->vals.v[k], o) > 0;
			if (ok)
				mgr_assoc_apply(cd, &am->assocs[0], &s);
			mgr_assoc_set_free(&s);
			if (!ok) {
				if (!o->rc)
					mgr_fail(o, SLURM_ERROR, " Bad option on the Cluster line\n");
				break;
			}
			acct_changed(cd);
			continue;
		}
		if (!strcasecmp(l->type, "Parent")) {
			if (!acct_assoc_find(cd, NULL, l->name, NULL)) {
				mgr_fail(o, SLURM_ERROR, " Parent account '%s' doesn't exist (yet)\n", l->name);
				break;
			}
			parent = l->name;
			continue;
		}
		int is_user = !strcasecmp(l->type, "User");
		const char *lpart = NULL;
		for (uint32_t k = 0; k < l->keys.n; k++)
			if (mgr_key_is(l->keys.v[k], "Partition"))
				lpart = l->vals.v[k];
		int exists = is_user ? acct_assoc_find(cd, l->name, parent, lpart) != NULL
			: acct_account_find(cd, l->name) != NULL;
		char *kv;
		strv_push(&sub.names, l->name);
		if (is_user) {
			kv = xasprintf("%s", parent);
			strv_push(&sub.sk, "Account");
			strv_push(&sub.sv, kv);
			free(kv);
		} else if (!exists) {
			strv_push(&sub.sk, "Parent");
			strv_push(&sub.sv, parent);
		}
		for (uint32_t k = 0; k < l->keys.n; k++) {
			const char *key = l->keys.v[k];
			if (is_user && mgr_key_is(key, "Coordinator")) {
				strv_t ac = { 0 };
				mgr_split_into(&ac, l->vals.v[k]);
				for (uint32_t c = 0; c < ac.n; c++) {
					strv_push(&coord_u, l->name);
					strv_push(&coord_a, ac.v[c]);
				}
				strv_free(&ac);
				continue;
			}
			if (exists && (mgr_key_is(key, "DefaultAccount|AdminLevel|Partition") ||
				       (!is_user && mgr_key_is(key, "Description|Organization"))))
				continue;
			strv_push(&sub.sk, key);
			strv_push(&sub.sv, l->vals.v[k]);
		}
		int rc;
		if (!exists) {
			rc = load_run(cd, m, is_user ? mgr_add_user : mgr_add_account, &sub, o);
		} else {
			/* there already: set what the line sets */
			if (is_user) {
				strv_t keep_k = sub.sk, keep_v = sub.sv;
				memset(&sub.sk, 0, sizeof(sub.sk));
				memset(&sub.sv, 0, sizeof(sub.sv));
				strv_push(&sub.wk, "Account");
				strv_push(&sub.wv, parent);
				/* that one association: of the partition, or the one
				 * for any partition */
				strv_push(&sub.wk, lpart ? "Partition" : "NoPartition");
				strv_push(&sub.wv, lpart ? lpart : "1");
				for (uint32_t k = 1; k < keep_k.n; k++) {
					strv_push(&sub.sk, keep_k.v[k]);
					strv_push(&sub.sv, keep_v.v[k]);
				}
				strv_free(&keep_k);
				strv_free(&keep_v);
			}
			rc = sub.sk.n ? load_run(cd, m, is_user ? mgr_modify_user : mgr_modify_account, &sub, o) : 0;
			mgr_req_free(&sub);
		}
		if (rc)
			break;
	}
	for (uint32_t i = 0; i < coord_u.n && !o->rc; i++) {
		mgr_req_t sub = { 0 };
		strv_push(&sub.names, coord_u.v[i]);
		strv_push(&sub.sk, "Account");
		strv_push(&sub.sv, coord_a.v[i]);
		load_run(cd, m, mgr_add_coord, &sub, o);
	}
	strv_free(&coord_u);
	strv_free(&coord_a);
	if (o->rc)
		strbuf_addstr(&o->err, " The load stopped there: the lines before it were applied\n");
	else
		info("sacctmgr: load of cluster %s by uid %u%s", am->cluster, m->uid, clean ? " (clean)" : "");
out:
	for (size_t i = 0; i < n; i++)
		load_line_free(&lines[i]);
	free(lines);
}

