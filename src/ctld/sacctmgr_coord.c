/*
 * sacctmgr_coord.c: what an account coordinator may set on the
 * associations she manages (callers below AdminLevel Operator let in by
 * coordinating the account), and the DefaultQOS rule sacctmgr applies to
 * everyone. Callers decide who is a coordinator; these say whether the
 * settings of one association are within what she holds.
 *
 * Slurm 22.05 (slurmdbd's as_mysql_assoc.c) refuses a coordinator a QOS
 * named in QOS= or QOS+= that the account she coordinates cannot use; the
 * rest here is ours, where Slurm lets a coordinator grant more than her
 * account has (docs/accounting.md, "Coordinators"): a QOS that reaches
 * the association by clearing or emptying its list, a limit above what
 * binds its parent, a Priority above its parent's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/sacctmgr_int.h"
#include "ctld/acct_lim.h"

#include "errors.h"
#include "xalloc.h"

/* The highest account association at or above p that uid coordinates
 * (the account she was made coordinator of: Sluice keeps its
 * sub-accounts in her list too), or NULL. */
static const acct_assoc_t *coord_top(ctld_t *cd, uint32_t uid, const acct_assoc_t *p)
{
	const acct_user_t *u = acct_user_by_uid(cd, uid);
	const acct_assoc_t *top = NULL;
	for (int d = 0; u && p && d < 64; d++, p = acct_assoc_parent(cd, p))
		for (uint32_t i = 0; i < u->ncoord; i++)
			if (!strcasecmp(u->coord_accounts[i], p->account))
				top = p;
	return top;
}

/* The names of ids in "a,b" order of the list. */
static void names_of(ctld_t *cd, strbuf_t *sb, const uint32_t *ids, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const acct_qos_t *q = acct_qos_by_id(cd, ids[i]);
		strbuf_addf(sb, "%s%s", sb->len ? "," : "", q ? q->name : "?");
	}
}

/* The option of the limit at word index i of a lim_set_t (its main name,
 * not a one-TRES legacy alias). */
static const acct_lim_key_t *key_of(size_t i)
{
	const acct_lim_key_t *k;
	for (size_t j = 0; (k = acct_lim_key_at(j)); j++) {
		if (k->tres >= 0 || k->qos_only)
			continue;
		size_t first = k->off / sizeof(uint64_t);
		size_t words = k->kind == LK_TRES || k->kind == LK_TRES_MINS ? LIM_TRES_N : 1;
		if (i >= first && i < first + words)
			return k;
	}
	return NULL;
}

char *mgr_coord_refusal(ctld_t *cd, const mgr_req_t *m, const acct_assoc_t *a,
			const acct_assoc_t *parent, const assoc_set_t *s)
{
	const acct_assoc_t *p = a ? acct_assoc_parent(cd, a) : parent;
	const acct_assoc_t *top = p ? coord_top(cd, m->uid, p) : NULL;
	const acct_user_t *u = acct_user_by_uid(cd, m->uid);
	const char *who = u ? u->name : "?";
	const char *verb = a ? "modify account" : "add to account";
	const char *acct = a ? a->account : p ? p->account : "?";
	strbuf_t sb;
	strbuf_init(&sb);
	if (!top) {
		strbuf_addf(&sb, " User %s(%u) is not a coordinator of account %s\n", who, m->uid,
			    p ? p->account : "?");
		return strbuf_detach(&sb);
	}
	/* QOS: what she names must be hers (Slurm's rule), and so must
	 * anything the association may use after the change that it could
	 * not use before (clearing a list inherits the parent's). */
	const acct_assoc_t *hs = acct_assoc_qos_src(cd, top);
	const uint32_t *held = hs ? hs->qos_ids : NULL;
	uint32_t nheld = hs ? hs->nqos : 0;
	uint32_t *lack = xmalloc((s->nqos + 1) * sizeof(uint32_t)), nlack = 0;
	if (s->qos_op == '=' || s->qos_op == '+')
		for (uint32_t i = 0; i < s->nqos; i++)
			if (!mgr_has_id(held, nheld, s->qos[i]) && !mgr_has_id(lack, nlack, s->qos[i]))
				lack[nlack++] = s->qos[i];
	if (s->qos_op) {
		const acct_assoc_t *bs = acct_assoc_qos_src(cd, a ? a : p);
		uint32_t nafter;
		uint32_t *after = mgr_qos_after(cd, a, p, s, &nafter);
		lack = xrealloc(lack, (nlack + nafter + 1) * sizeof(uint32_t));
		for (uint32_t i = 0; i < nafter; i++)
			if (!(bs && mgr_has_id(bs->qos_ids, bs->nqos, after[i])) &&
			    !mgr_has_id(held, nheld, after[i]) && !mgr_has_id(lack, nlack, after[i]))
				lack[nlack++] = after[i];
		free(after);
	}
	if (nlack) {
		strbuf_addf(&sb, " Coordinator %s(%u) does not have the access to all the qos requested (", who,
			    m->uid);
		strbuf_t n;
		strbuf_init(&n);
		names_of(cd, &n, lack, nlack);
		strbuf_addf(&sb, "%s), so they can't %s %s with it. The QOS of account %s: ", n.buf, verb, acct,
			    top->account);
		strbuf_release(&n);
		strbuf_init(&n);
		names_of(cd, &n, held, nheld);
		strbuf_addf(&sb, "%s\n", n.len ? n.buf : "none");
		strbuf_release(&n);
		free(lack);
		return strbuf_detach(&sb);
	}
	free(lack);
	strbuf_t obj;             /* what she changes, for the messages */
	strbuf_init(&obj);
	if (a && a->user)
		strbuf_addf(&obj, "user %s of account %s", a->user, a->account);
	else if (a)
		strbuf_addf(&obj, "account %s", a->account);
	else
		strbuf_addf(&obj, "a new association under account %s", p->account);
	/* Limits: none above what binds the parent (a Max* value set here
	 * would replace the one inherited; Grp* ones of the ancestors bind
	 * anyway, a higher one here only misleads). Clearing inherits. */
	lim_set_t bound;
	acct_assoc_bound_lim(cd, p, &bound);
	const uint64_t *pb = (const uint64_t *)(const void *)&bound;
	const uint64_t *ps = (const uint64_t *)(const void *)&s->lim;
	for (size_t i = 0; i < NLIM; i++) {
		if (!s->given[i] || ps[i] == LIM_UNSET || pb[i] == LIM_UNSET || ps[i] <= pb[i])
			continue;
		const acct_lim_key_t *k = key_of(i);
		strbuf_t f, g;
		strbuf_init(&f);
		strbuf_init(&g);
		if (k) {
			acct_lim_fmt(&f, &bound, k);
			acct_lim_fmt(&g, &s->lim, k);
		}
		strbuf_addf(&sb, " Coordinator %s(%u) can't set %s=%s on %s: above what account %s allows (%s=%s)\n",
			    who, m->uid, k ? k->name : "?", g.len ? g.buf : "?", obj.buf, p->account,
			    k ? k->name : "?", f.len ? f.buf : "?");
		strbuf_release(&f);
		strbuf_release(&g);
		strbuf_release(&obj);
		return strbuf_detach(&sb);
	}
	/* Priority weighs against every job of the cluster. */
	uint32_t pp = acct_assoc_eff_prio(cd, p);
	if (s->prio_given && s->prio && s->prio < 0xfffffffeu && s->prio > pp) {
		strbuf_addf(&sb, " Coordinator %s(%u) can't set Priority=%u on %s: above account %s's (%u)\n",
			    who, m->uid, s->prio, obj.buf, p->account, pp);
		strbuf_release(&obj);
		return strbuf_detach(&sb);
	}
	strbuf_release(&obj);
	strbuf_release(&sb);
	return NULL;
}

int mgr_defqos_ok(ctld_t *cd, const acct_assoc_t *a, const acct_assoc_t *parent, const char *acct,
		  const char *user, const assoc_set_t *s, strbuf_t *bad)
{
	uint32_t def = s->defqos_given ? s->defqos : s->qos_op && a ? acct_assoc_def_qos(cd, a) : 0;
	if (!def)
		return 1;
	uint32_t n;
	uint32_t *after = mgr_qos_after(cd, a, parent, s, &n);
	int ok = mgr_has_id(after, n, def);
	free(after);
	if (ok)
		return 1;
	const acct_qos_t *q = acct_qos_by_id(cd, def);
	if (a) {
		acct = a->account;
		user = a->user;
	}
	strbuf_addf(bad, "  DefQOS = %-10s C = %-10s A = %-20s ", q ? q->name : "?", cd->acct.cluster,
		    acct ? acct : "");
	if (user) {
		strbuf_addf(bad, "U = %-9s", user);
		if (a && a->partition)
			strbuf_addf(bad, " P = %s", a->partition);
	}
	strbuf_addch(bad, '\n');
	return 0;
}

void mgr_defqos_refuse(mgr_out_t *o, const strbuf_t *bad)
{
	strbuf_addf(&o->err, " These associations don't have access to their default qos.\n"
		    " Please give them access before they the default can be set to this.\n%s",
		    bad->buf ? bad->buf : "");
	o->rc = SLURM_ERROR;
}
