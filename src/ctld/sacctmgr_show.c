/*
 * sacctmgr_show.c: sacctmgr show/list (the rows; the client picks and
 * formats the columns) and dump (a cluster's tree in Slurm's file format,
 * which `sacctmgr load` reads back).
 *
 * Shown values are what slurmdbd shows: an association's Max* limits,
 * QOS list and DefaultQOS as inherited from its ancestors when not set on
 * it, Grp* limits only where set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/sacctmgr_int.h"
#include "ctld/acct_lim.h"

#include "errors.h"
#include "timefmt.h"
#include "xalloc.h"

/* ---- tree order ---- */

static ctld_t *sort_cd;

static int assoc_cmp(const void *pa, const void *pb)
{
	const acct_assoc_t *a = &sort_cd->acct.assocs[*(const uint32_t *)pa];
	const acct_assoc_t *b = &sort_cd->acct.assocs[*(const uint32_t *)pb];
	if (a->parent_id != b->parent_id)
		return a->parent_id < b->parent_id ? -1 : 1;
	/* a parent's users first, then its sub-accounts */
	if (!a->user != !b->user)
		return a->user ? -1 : 1;
	int c = strcmp(a->user ? a->user : a->account, b->user ? b->user : b->account);
	if (c)
		return c;
	return strcmp(a->partition ? a->partition : "", b->partition ? b->partition : "");
}

/* The range [lo, hi) of sorted (by parent) whose parent is x. */
static void child_range(const acct_t *m, const uint32_t *sorted, uint32_t n, uint32_t x,
			uint32_t *lo, uint32_t *hi)
{
	uint32_t l = 0, h = n;
	while (l < h) {
		uint32_t md = l + (h - l) / 2;
		if (m->assocs[sorted[md]].parent_id < x)
			l = md + 1;
		else
			h = md;
	}
	*lo = l;
	h = n;
	while (l < h) {
		uint32_t md = l + (h - l) / 2;
		if (m->assocs[sorted[md]].parent_id <= x)
			l = md + 1;
		else
			h = md;
	}
	*hi = l;
}

uint32_t *mgr_tree_order(ctld_t *cd, uint32_t **depth)
{
	acct_t *m = &cd->acct;
	uint32_t n = m->nassocs;
	uint32_t *sorted = xmalloc((n + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++)
		sorted[i] = i;
	sort_cd = cd;
	qsort(sorted, n, sizeof(uint32_t), assoc_cmp);
	uint32_t *order = xmalloc((n + 1) * sizeof(uint32_t));
	uint32_t *dep = xmalloc((n + 1) * sizeof(uint32_t));
	uint32_t no = 0;
	/* iterative DFS from the root(s) (parent_id 0): a stack of
	 * (position in sorted, end of that children range, depth) */
	struct frame { uint32_t pos, end, depth; } *st = xmalloc((n + 1) * sizeof(*st));
	uint32_t sp = 0;
	uint32_t lo, hi;
	child_range(m, sorted, n, 0, &lo, &hi);
	st[sp++] = (struct frame){ lo, hi, 0 };
	while (sp) {
		struct frame *f = &st[sp - 1];
		if (f->pos >= f->end) {
			sp--;
			continue;
		}
		uint32_t i = sorted[f->pos++];
		uint32_t d = f->depth;
		order[no] = i;
		dep[no++] = d;
		if (!m->assocs[i].user && sp < n) {
			child_range(m, sorted, n, m->assocs[i].id, &lo, &hi);
			if (lo < hi)
				st[sp++] = (struct frame){ lo, hi, d + 1 };
		}
	}
	free(st);
	free(sorted);
	/* an association whose parent is gone (never, but never lose one) */
	if (no < n) {
		uint8_t *seen = xcalloc(n, 1);
		for (uint32_t k = 0; k < no; k++)
			seen[order[k]] = 1;
		for (uint32_t i = 0; i < n; i++)
			if (!seen[i]) {
				order[no] = i;
				dep[no++] = 0;
			}
		free(seen);
	}
	*depth = dep;
	return order;
}

static int qos_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void mgr_qos_names(ctld_t *cd, strbuf_t *sb, const uint32_t *ids, uint32_t n)
{
	const char **v = xmalloc((n + 1) * sizeof(char *));
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		acct_qos_t *q = acct_qos_by_id(cd, ids[i]);
		if (q)
			v[k++] = q->name;
	}
	qsort(v, k, sizeof(char *), qos_name_cmp);
	for (uint32_t i = 0; i < k; i++)
		strbuf_addf(sb, "%s%s", i ? "," : "", v[i]);
	free(v);
}

/* ---- rows ---- */

static const char *const assoc_cols[] = {
	"Cluster", "Account", "User", "Partition", "Share", "Priority", "GrpJobs", "GrpTRES",
	"GrpSubmit", "GrpWall", "GrpTRESMins", "MaxJobs", "MaxTRES", "MaxTRESPerNode", "MaxSubmit",
	"MaxWall", "MaxTRESMins", "QOS", "DefQOS", "GrpTRESRunMins", "ParentName", "ParentID",
	"ID", "Depth", "GrpCPUs", "GrpNodes", "GrpMem", "GrpCPUMins", "MaxCPUs", "MaxNodes",
	"MaxCPUMins",
};

static void lim_cell(msg_acct_reply_t *r, const lim_set_t *l, const char *key)
{
	strbuf_t sb;
	strbuf_init(&sb);
	acct_lim_fmt(&sb, l, acct_lim_key(key));
	acct_reply_cell(r, sb.buf ? sb.buf : "");
	strbuf_release(&sb);
}

static void assoc_cells(ctld_t *cd, msg_acct_reply_t *r, const acct_assoc_t *a, uint32_t depth)
{
	lim_set_t eff;
	acct_assoc_eff_lim(cd, a, &eff);
	acct_reply_cell(r, cd->acct.cluster);
	acct_reply_cell(r, a->account);
	acct_reply_cell(r, a->user);
	acct_reply_cell(r, a->partition);
	if (a->shares_raw == SCHED_SHARES_PARENT)
		acct_reply_cell(r, "parent");
	else
		acct_reply_cellf(r, "%u", a->shares_raw);
	if (a->priority)
		acct_reply_cellf(r, "%u", a->priority);
	else
		acct_reply_cell(r, "");
	lim_cell(r, &a->lim, "GrpJobs");
	lim_cell(r, &a->lim, "GrpTRES");
	lim_cell(r, &a->lim, "GrpSubmitJobs");
	lim_cell(r, &a->lim, "GrpWall");
	lim_cell(r, &a->lim, "GrpTRESMins");
	lim_cell(r, &eff, "MaxJobs");
	lim_cell(r, &eff, "MaxTRES");
	lim_cell(r, &eff, "MaxTRESPerNode");
	lim_cell(r, &eff, "MaxSubmitJobs");
	lim_cell(r, &eff, "MaxWall");
	lim_cell(r, &eff, "MaxTRESMins");
	strbuf_t sb;
	strbuf_init(&sb);
	const acct_assoc_t *src = acct_assoc_qos_src(cd, a);
	if (src)
		mgr_qos_names(cd, &sb, src->qos_ids, src->nqos);
	acct_reply_cell(r, sb.buf ? sb.buf : "");
	strbuf_release(&sb);
	acct_qos_t *dq = acct_qos_by_id(cd, acct_assoc_def_qos(cd, a));
	acct_reply_cell(r, dq ? dq->name : "");
	lim_cell(r, &a->lim, "GrpTRESRunMins");
	const acct_assoc_t *p = acct_assoc_parent(cd, a);
	acct_reply_cell(r, p && !a->user ? p->account : "");
	acct_reply_cellf(r, "%u", a->parent_id);
	acct_reply_cellf(r, "%u", a->id);
	acct_reply_cellf(r, "%u", depth);
	lim_cell(r, &a->lim, "GrpCPUs");
	lim_cell(r, &a->lim, "GrpNodes");
	lim_cell(r, &a->lim, "GrpMem");
	lim_cell(r, &a->lim, "GrpCPUMins");
	lim_cell(r, &eff, "MaxCPUs");
	lim_cell(r, &eff, "MaxNodes");
	lim_cell(r, &eff, "MaxCPUMins");
}

static void empty_cells(msg_acct_reply_t *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		acct_reply_cell(r, "");
}

static int match(const strv_t *want, const char *v)
{
	return !want->n || (v && mgr_strv_has_ci(want, v));
}

static void show_assoc(ctld_t *cd, const mgr_req_t *m, msg_acct_reply_t *r)
{
	strv_t accts = { 0 }, users = { 0 }, parts = { 0 }, ids = { 0 }, clusters = { 0 }, parents = { 0 };
	mgr_where(m, "Accounts|Account|Acct|Accts", &accts);
	mgr_where(m, "Users|User|Names|Name", &users);
	mgr_where(m, "Partitions|Partition", &parts);
	mgr_where(m, "IDs|ID|AssocID", &ids);
	mgr_where(m, "Clusters|Cluster", &clusters);
	mgr_where(m, "Parent|ParentName", &parents);
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&users, m->names.v[i]);
	int only_users = 0;
	if (mgr_where(m, "OnlyDefaults|OnlyDefault", NULL))
		only_users = 1;
	for (size_t c = 0; c < ARRAY_SIZE(assoc_cols); c++)
		acct_reply_col(r, assoc_cols[c]);
	uint32_t *depth, *order = mgr_tree_order(cd, &depth);
	int cluster_ok = match(&clusters, cd->acct.cluster);
	for (uint32_t k = 0; k < cd->acct.nassocs && cluster_ok; k++) {
		const acct_assoc_t *a = &cd->acct.assocs[order[k]];
		if (!match(&accts, a->account) || (users.n && !match(&users, a->user)) ||
		    (parts.n && !match(&parts, a->partition)))
			continue;
		if (ids.n) {
			char b[16];
			snprintf(b, sizeof(b), "%u", a->id);
			if (!match(&ids, b))
				continue;
		}
		if (parents.n) {
			const acct_assoc_t *p = acct_assoc_parent(cd, a);
			if (!p || !match(&parents, p->account))
				continue;
		}
		if (only_users) {
			acct_user_t *u = a->user ? acct_user_find(cd, a->user) : NULL;
			if (!u || !u->default_account || strcmp(u->default_account, a->account))
				continue;
		}
		assoc_cells(cd, r, a, depth[k]);
	}
	free(order);
	free(depth);
	strv_free(&accts);
	strv_free(&users);
	strv_free(&parts);
	strv_free(&ids);
	strv_free(&clusters);
	strv_free(&parents);
}

static const char *admin_name(uint32_t l)
{
	return l == ACCT_ADMIN_SUPER ? "Administrator" : l == ACCT_ADMIN_OPERATOR ? "Operator" : "None";
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void coord_cell(msg_acct_reply_t *r, const acct_user_t *u)
{
	char **v = xmalloc((u->ncoord + 1) * sizeof(char *));
	if (u->ncoord)        /* none: coord_accounts may be NULL */
		memcpy(v, u->coord_accounts, u->ncoord * sizeof(char *));
	qsort(v, u->ncoord, sizeof(char *), str_cmp);
	strbuf_t sb;
	strbuf_init(&sb);
	for (uint32_t i = 0; i < u->ncoord; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", v[i]);
	acct_reply_cell(r, sb.buf ? sb.buf : "");
	strbuf_release(&sb);
	free(v);
}

static int user_cmp(const void *a, const void *b)
{
	const acct_user_t *x = &sort_cd->acct.users[*(const uint32_t *)a];
	const acct_user_t *y = &sort_cd->acct.users[*(const uint32_t *)b];
	return strcmp(x->name, y->name);
}

static void show_user(ctld_t *cd, const mgr_req_t *m, msg_acct_reply_t *r)
{
	acct_t *am = &cd->acct;
	strv_t names = { 0 }, accts = { 0 }, defs = { 0 }, levels = { 0 }, parts = { 0 };
	mgr_where(m, "Users|User|Names|Name", &names);
	mgr_where(m, "Accounts|Account|Acct", &accts);
	mgr_where(m, "DefaultAccount|DefaultAccounts|DefAcct", &defs);
	mgr_where(m, "AdminLevel|Admin", &levels);
	mgr_where(m, "Partitions|Partition", &parts);
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&names, m->names.v[i]);
	acct_reply_col(r, "User");
	acct_reply_col(r, "DefAcct");
	acct_reply_col(r, "Admin");
	acct_reply_col(r, "CoordAccounts");
	int wa = m->withassoc;
	if (wa)
		for (size_t c = 0; c < ARRAY_SIZE(assoc_cols); c++)
			acct_reply_col(r, assoc_cols[c]);
	uint32_t *us = xmalloc((am->nusers + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < am->nusers; i++)
		us[i] = i;
	sort_cd = cd;
	qsort(us, am->nusers, sizeof(uint32_t), user_cmp);
	uint32_t *depth = NULL, *order = wa ? mgr_tree_order(cd, &depth) : NULL;
	/* a user's associations in tree order: one pass over the tree per
	 * shown user would be users x associations; group them instead */
	uint32_t *first = NULL, *next = NULL;
	if (wa) {
		first = xmalloc((am->nusers + 1) * sizeof(uint32_t));
		next = xmalloc((am->nassocs + 1) * sizeof(uint32_t));
		uint32_t *last = xmalloc((am->nusers + 1) * sizeof(uint32_t));
		for (uint32_t i = 0; i < am->nusers; i++)
			first[i] = last[i] = UINT32_MAX;
		for (uint32_t k = 0; k < am->nassocs; k++) {
			const acct_assoc_t *a = &am->assocs[order[k]];
			next[k] = UINT32_MAX;
			acct_user_t *u = a->user ? acct_user_find(cd, a->user) : NULL;
			if (!u)
				continue;
			uint32_t ui = (uint32_t)(u - am->users);
			if (first[ui] == UINT32_MAX)
				first[ui] = k;
			else
				next[last[ui]] = k;
			last[ui] = k;
		}
		free(last);
	}
	for (uint32_t x = 0; x < am->nusers; x++) {
		const acct_user_t *u = &am->users[us[x]];
		if (!match(&names, u->name) || !match(&defs, u->default_account))
			continue;
		if (levels.n) {
			int ok = 0;
			for (uint32_t i = 0; i < levels.n; i++)
				ok |= !strncasecmp(levels.v[i], admin_name(u->admin_level), 4) ||
					(!strncasecmp(levels.v[i], "admin", 5) && u->admin_level == ACCT_ADMIN_SUPER);
			if (!ok)
				continue;
		}
		if (!wa) {
			if (accts.n) {
				/* users with an association under one of them */
				int ok = 0;
				for (uint32_t i = 0; i < accts.n && !ok; i++)
					ok = acct_assoc_find(cd, u->name, accts.v[i], NULL) != NULL;
				if (!ok)
					continue;
			}
			acct_reply_cell(r, u->name);
			acct_reply_cell(r, u->default_account);
			acct_reply_cell(r, admin_name(u->admin_level));
			coord_cell(r, u);
			continue;
		}
		int any = 0;
		for (uint32_t k = first[us[x]]; k != UINT32_MAX; k = next[k]) {
			const acct_assoc_t *a = &am->assocs[order[k]];
			if (!match(&accts, a->account) || (parts.n && !match(&parts, a->partition)))
				continue;
			acct_reply_cell(r, u->name);
			acct_reply_cell(r, u->default_account);
			acct_reply_cell(r, admin_name(u->admin_level));
			coord_cell(r, u);
			assoc_cells(cd, r, a, depth[k]);
			any = 1;
		}
		if (!any && !accts.n && !parts.n) {
			acct_reply_cell(r, u->name);
			acct_reply_cell(r, u->default_account);
			acct_reply_cell(r, admin_name(u->admin_level));
			coord_cell(r, u);
			empty_cells(r, ARRAY_SIZE(assoc_cols));
		}
	}
	free(first);
	free(next);
	free(order);
	free(depth);
	free(us);
	strv_free(&names);
	strv_free(&accts);
	strv_free(&defs);
	strv_free(&levels);
	strv_free(&parts);
}

static int account_cmp(const void *a, const void *b)
{
	const acct_account_t *x = &sort_cd->acct.accounts[*(const uint32_t *)a];
	const acct_account_t *y = &sort_cd->acct.accounts[*(const uint32_t *)b];
	return strcmp(x->name, y->name);
}

static void show_account(ctld_t *cd, const mgr_req_t *m, msg_acct_reply_t *r)
{
	acct_t *am = &cd->acct;
	strv_t names = { 0 }, descr = { 0 }, org = { 0 }, parents = { 0 };
	mgr_where(m, "Accounts|Account|Names|Name|Acct", &names);
	mgr_where(m, "Descriptions|Description|Descr", &descr);
	mgr_where(m, "Organizations|Organization|Org", &org);
	mgr_where(m, "Parent|ParentName", &parents);
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&names, m->names.v[i]);
	acct_reply_col(r, "Account");
	acct_reply_col(r, "Descr");
	acct_reply_col(r, "Org");
	acct_reply_col(r, "Coordinators");
	int wa = m->withassoc;
	if (wa)
		for (size_t c = 0; c < ARRAY_SIZE(assoc_cols); c++)
			acct_reply_col(r, assoc_cols[c]);
	uint32_t *as = xmalloc((am->naccounts + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < am->naccounts; i++)
		as[i] = i;
	sort_cd = cd;
	qsort(as, am->naccounts, sizeof(uint32_t), account_cmp);
	uint32_t *depth = NULL, *order = wa ? mgr_tree_order(cd, &depth) : NULL;
	/* the coordinators of each account (one pass over the users) */
	strv_t *coords = xcalloc(am->naccounts + 1, sizeof(strv_t));
	for (uint32_t i = 0; i < am->nusers; i++)
		for (uint32_t c = 0; c < am->users[i].ncoord; c++) {
			acct_account_t *ac = acct_account_find(cd, am->users[i].coord_accounts[c]);
			if (ac)
				strv_push(&coords[ac - am->accounts], am->users[i].name);
		}
	for (uint32_t x = 0; x < am->naccounts; x++) {
		const acct_account_t *ac = &am->accounts[as[x]];
		if (!match(&names, ac->name) || !match(&descr, ac->description) ||
		    !match(&org, ac->organization))
			continue;
		if (parents.n) {
			const acct_assoc_t *a = acct_assoc_find(cd, NULL, ac->name, NULL);
			const acct_assoc_t *p = acct_assoc_parent(cd, a);
			if (!p || !match(&parents, p->account))
				continue;
		}
		strbuf_t cs;
		strbuf_init(&cs);
		for (uint32_t c = 0; c < coords[as[x]].n; c++)
			strbuf_addf(&cs, "%s%s", c ? "," : "", coords[as[x]].v[c]);
		int any = 0;
		for (uint32_t k = 0; wa && k < am->nassocs; k++) {
			const acct_assoc_t *a = &am->assocs[order[k]];
			if (strcmp(a->account, ac->name))
				continue;
			acct_reply_cell(r, ac->name);
			acct_reply_cell(r, ac->description);
			acct_reply_cell(r, ac->organization);
			acct_reply_cell(r, cs.buf ? cs.buf : "");
			assoc_cells(cd, r, a, depth[k]);
			any = 1;
		}
		if (!any) {
			acct_reply_cell(r, ac->name);
			acct_reply_cell(r, ac->description);
			acct_reply_cell(r, ac->organization);
			acct_reply_cell(r, cs.buf ? cs.buf : "");
			if (wa)
				empty_cells(r, ARRAY_SIZE(assoc_cols));
		}
		strbuf_release(&cs);
	}
	for (uint32_t i = 0; i < am->naccounts; i++)
		strv_free(&coords[i]);
	free(coords);
	free(order);
	free(depth);
	free(as);
	strv_free(&names);
	strv_free(&descr);
	strv_free(&org);
	strv_free(&parents);
}

static const char *const qos_cols[] = {
	"Name", "Priority", "GraceTime", "Preempt", "PreemptExemptTime", "PreemptMode", "Flags",
	"UsageThres", "UsageFactor", "GrpTRES", "GrpTRESMins", "GrpTRESRunMins", "GrpJobs",
	"GrpSubmit", "GrpWall", "MaxTRES", "MaxTRESPerNode", "MaxTRESMins", "MaxWall", "MaxTRESPU",
	"MaxJobsPU", "MaxSubmitPU", "MaxTRESPA", "MaxJobsPA", "MaxSubmitPA", "MinTRES", "ID",
	"Description",
};

static const struct { uint32_t bit; const char *name; } qos_flags[] = {
	{ LIM_QOS_F_DENY_ON_LIMIT, "DenyOnLimit" }, { LIM_QOS_F_NO_DECAY, "NoDecay" },
	{ LIM_QOS_F_NO_RESERVE, "NoReserve" }, { LIM_QOS_F_PART_QOS, "OverPartQOS" },
	{ LIM_QOS_F_REQUIRE_RESV, "RequiresReservation" },
	{ LIM_QOS_F_USAGE_FACTOR_SAFE, "UsageFactorSafe" },
};

int mgr_qos_flag(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(qos_flags); i++)
		if (!strcasecmp(qos_flags[i].name, name))
			return (int)qos_flags[i].bit;
	return -1;
}

void mgr_qos_flags_fmt(strbuf_t *sb, uint32_t flags)
{
	int first = 1;
	for (size_t i = 0; i < ARRAY_SIZE(qos_flags); i++)
		if (flags & qos_flags[i].bit) {
			strbuf_addf(sb, "%s%s", first ? "" : ",", qos_flags[i].name);
			first = 0;
		}
}

const char *mgr_preempt_mode_name(uint32_t mode)
{
	switch (mode) {
	case LIM_PREEMPT_CANCEL: return "cancel";
	case LIM_PREEMPT_REQUEUE: return "requeue";
	case LIM_PREEMPT_SUSPEND: return "suspend";
	}
	return "cluster";
}

static void show_qos(ctld_t *cd, const mgr_req_t *m, msg_acct_reply_t *r)
{
	strv_t names = { 0 }, ids = { 0 };
	mgr_where(m, "Names|Name|QOS", &names);
	mgr_where(m, "IDs|ID", &ids);
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&names, m->names.v[i]);
	for (size_t c = 0; c < ARRAY_SIZE(qos_cols); c++)
		acct_reply_col(r, qos_cols[c]);
	for (uint32_t i = 0; i < cd->acct.nqos; i++) {
		const acct_qos_t *q = &cd->acct.qos[i];
		char idb[16];
		snprintf(idb, sizeof(idb), "%u", q->id);
		if (!match(&names, q->name) || !match(&ids, idb))
			continue;
		const lim_set_t *l = &q->s.lim;
		acct_reply_cell(r, q->name);
		acct_reply_cellf(r, "%u", q->s.priority);
		char b[32];
		secs_fmt_hms(q->s.grace_time, b, sizeof(b));
		acct_reply_cell(r, b);
		strbuf_t sb;
		strbuf_init(&sb);
		mgr_qos_names(cd, &sb, q->preempt_ids, q->npreempt);
		acct_reply_cell(r, sb.buf ? sb.buf : "");
		acct_reply_cell(r, "");
		acct_reply_cell(r, mgr_preempt_mode_name(q->s.preempt_mode));
		strbuf_reset(&sb);
		mgr_qos_flags_fmt(&sb, q->s.flags);
		acct_reply_cell(r, sb.len ? sb.buf : "");
		strbuf_release(&sb);
		if (q->s.usage_threshold > 0)
			acct_reply_cell_f6(r, q->s.usage_threshold);
		else
			acct_reply_cell(r, "");
		acct_reply_cell_f6(r, q->s.usage_factor);
		static const char *const lk[] = {
			"GrpTRES", "GrpTRESMins", "GrpTRESRunMins", "GrpJobs", "GrpSubmitJobs",
			"GrpWall", "MaxTRES", "MaxTRESPerNode", "MaxTRESMins", "MaxWall",
			"MaxTRESPerUser", "MaxJobsPerUser", "MaxSubmitJobsPerUser",
			"MaxTRESPerAccount", "MaxJobsPerAccount", "MaxSubmitJobsPerAccount", "MinTRES",
		};
		for (size_t k = 0; k < ARRAY_SIZE(lk); k++)
			lim_cell(r, l, lk[k]);
		acct_reply_cellf(r, "%u", q->id);
		acct_reply_cell(r, q->description);
	}
	strv_free(&names);
	strv_free(&ids);
}

static void show_cluster(ctld_t *cd, const mgr_req_t *m, msg_acct_reply_t *r)
{
	strv_t names = { 0 };
	mgr_where(m, "Clusters|Cluster|Names|Name", &names);
	for (uint32_t i = 0; i < m->names.n; i++)
		strv_push(&names, m->names.v[i]);
	static const char *const cols[] = { "Cluster", "ControlHost", "ControlPort", "RPC" };
	for (size_t c = 0; c < ARRAY_SIZE(cols); c++)
		acct_reply_col(r, cols[c]);
	for (size_t c = 1; c < ARRAY_SIZE(assoc_cols); c++)
		acct_reply_col(r, assoc_cols[c]);
	if (match(&names, cd->acct.cluster) && cd->acct.nassocs) {
		const conf_t *cf = cd->conf;
		acct_reply_cell(r, cd->acct.cluster);
		acct_reply_cell(r, cf->nctld_hosts ? cf->ctld_addrs[0] : "");
		acct_reply_cellf(r, "%u", cf->ctld_port);
		acct_reply_cell(r, "9728");      /* Slurm 22.05's protocol version */
		/* the root association's cells, less its Cluster */
		msg_acct_reply_t tmp = { 0 };
		assoc_cells(cd, &tmp, &cd->acct.assocs[0], 0);
		for (uint32_t i = 1; i < tmp.cells.n; i++)
			acct_reply_cell(r, tmp.cells.v[i]);
		strv_free(&tmp.cells);
	}
	strv_free(&names);
}

void mgr_show(ctld_t *cd, const mgr_req_t *m, msg_acct_reply_t *r)
{
	const char *e = m->entity;
	if (!strcmp(e, "association"))
		show_assoc(cd, m, r);
	else if (!strcmp(e, "user"))
		show_user(cd, m, r);
	else if (!strcmp(e, "account"))
		show_account(cd, m, r);
	else if (!strcmp(e, "qos"))
		show_qos(cd, m, r);
	else if (!strcmp(e, "cluster"))
		show_cluster(cd, m, r);
	else {
		r->rc = SLURM_ERROR;
		r->msg = xasprintf("Unknown entity '%s' for show", e);
	}
}

/* ---- dump ---- */

static void dump_opts(ctld_t *cd, strbuf_t *sb, const acct_assoc_t *a)
{
	if (a->shares_raw == SCHED_SHARES_PARENT)
		strbuf_addstr(sb, ":Fairshare=parent");
	else
		strbuf_addf(sb, ":Fairshare=%u", a->shares_raw);
	if (a->priority)
		strbuf_addf(sb, ":Priority=%u", a->priority);
	static const struct { const char *key, *name; } lk[] = {
		{ "GrpTRESMins", "GrpTRESMins" }, { "GrpTRESRunMins", "GrpTRESRunMins" },
		{ "GrpTRES", "GrpTRES" }, { "GrpJobs", "GrpJobs" },
		{ "GrpSubmitJobs", "GrpSubmitJobs" }, { "GrpWall", "GrpWall" },
		{ "MaxTRESMins", "MaxTRESMinsPerJob" }, { "MaxTRES", "MaxTRESPerJob" },
		{ "MaxTRESPerNode", "MaxTRESPerNode" }, { "MaxJobs", "MaxJobs" },
		{ "MaxSubmitJobs", "MaxSubmitJobs" }, { "MaxWall", "MaxWallDurationPerJob" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(lk); i++) {
		const acct_lim_key_t *k = acct_lim_key(lk[i].key);
		strbuf_t v;
		strbuf_init(&v);
		if (k->kind == LK_WALL) {
			uint64_t x = *(const uint64_t *)(const void *)((const char *)&a->lim + k->off);
			if (x != LIM_UNSET)
				strbuf_addf(&v, "%llu", (unsigned long long)x);
		} else {
			acct_lim_fmt(&v, &a->lim, k);
		}
		if (v.len)
			strbuf_addf(sb, ":%s=%s", lk[i].name, v.buf);
		strbuf_release(&v);
	}
	if (a->nqos) {
		strbuf_addstr(sb, ":QOS='");
		mgr_qos_names(cd, sb, a->qos_ids, a->nqos);
		strbuf_addch(sb, '\'');
	}
	acct_qos_t *dq = a->def_qos_id ? acct_qos_by_id(cd, a->def_qos_id) : NULL;
	if (dq)
		strbuf_addf(sb, ":DefaultQOS='%s'", dq->name);
}

void mgr_dump(ctld_t *cd, const mgr_req_t *m, msg_acct_reply_t *r)
{
	acct_t *am = &cd->acct;
	const char *want = m->names.n ? m->names.v[0] : NULL;
	strv_t cl = { 0 };
	if (!want && mgr_where(m, "Clusters|Cluster|Names|Name", &cl) && cl.n)
		want = cl.v[0];
	if (!want || strcasecmp(want, am->cluster) || !am->nassocs) {
		r->rc = SLURM_ERROR;
		r->msg = want ? xasprintf(" Problem getting associations for cluster %s (this controller keeps cluster %s)", want, am->cluster)
			: xstrdup(" No cluster specified");
		strv_free(&cl);
		return;
	}
	strv_free(&cl);
	strbuf_t sb;
	strbuf_init(&sb);
	strbuf_addstr(&sb,
		      "# A cluster's association tree, as `sacctmgr dump` writes it and `sacctmgr load` reads it.\n"
		      "# Cluster - 'name':options   then, for each account with members:\n"
		      "# Parent - 'account'   followed by its users and sub-accounts:\n"
		      "# Account - 'name':Description='...':Organization='...':options\n"
		      "# User - 'name':DefaultAccount='...':options\n"
		      "# options: Fairshare=N, MaxJobs=N, GrpTRES=cpu=8,..., QOS='a,b', ... separated by ':'\n");
	strbuf_addf(&sb, "Cluster - '%s'", am->cluster);
	dump_opts(cd, &sb, &am->assocs[0]);
	strbuf_addch(&sb, '\n');
	uint32_t *depth, *order = mgr_tree_order(cd, &depth);
	for (uint32_t k = 0; k < am->nassocs; k++) {
		const acct_assoc_t *p = &am->assocs[order[k]];
		if (p->user)
			continue;
		int header = 0;
		/* its users first, then its sub-accounts (the tree order's) */
		for (int pass = 0; pass < 2; pass++)
			for (uint32_t c = k + 1; c < am->nassocs && depth[c] > depth[k]; c++) {
				const acct_assoc_t *a = &am->assocs[order[c]];
				if (a->parent_id != p->id || (a->user ? 0 : 1) != pass)
					continue;
				if (!header)
					strbuf_addf(&sb, "Parent - '%s'\n", p->account);
				header = 1;
				if (a->user) {
					const acct_user_t *u = acct_user_find(cd, a->user);
					strbuf_addf(&sb, "User - '%s'", a->user);
					if (u && u->default_account)
						strbuf_addf(&sb, ":DefaultAccount='%s'", u->default_account);
					if (u && u->admin_level)
						strbuf_addf(&sb, ":AdminLevel='%s'", admin_name(u->admin_level));
					if (u && u->ncoord) {
						strbuf_addstr(&sb, ":Coordinator='");
						for (uint32_t i = 0; i < u->ncoord; i++)
							strbuf_addf(&sb, "%s%s", i ? "," : "", u->coord_accounts[i]);
						strbuf_addch(&sb, '\'');
					}
					if (a->partition)
						strbuf_addf(&sb, ":Partition='%s'", a->partition);
				} else {
					const acct_account_t *ac = acct_account_find(cd, a->account);
					strbuf_addf(&sb, "Account - '%s':Description='%s':Organization='%s'",
						    a->account, ac && ac->description ? ac->description : "",
						    ac && ac->organization ? ac->organization : "");
				}
				dump_opts(cd, &sb, a);
				strbuf_addch(&sb, '\n');
			}
	}
	free(order);
	free(depth);
	r->msg = strbuf_detach(&sb);
}
