/*
 * sacctmgr_assoc_set.c: what a set of association options (assoc_set_t,
 * parsed by mgr_assoc_opt) does to an association: the QOS list it ends up
 * with, inheritance included (mgr_qos_after, which the coordinator checks
 * read before anything changes), and applying it (mgr_assoc_apply). It
 * reads the account model (assoc.c) and calls nothing of the verbs, so the
 * checks and the verbs share it without calling each other.
 */
#include <stdlib.h>
#include <string.h>

#include "ctld/sacctmgr_int.h"
#include "ctld/assoc_int.h"

#include "xalloc.h"

int mgr_has_id(const uint32_t *v, uint32_t n, uint32_t id)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == id)
			return 1;
	return 0;
}

/* The QOS list s makes an association's own, from src's list (the
 * association's own or inherited one, which += and -= start from); *n 0:
 * none of its own, it inherits. */
static uint32_t *qos_own_after(const acct_assoc_t *src, const assoc_set_t *s, uint32_t *n)
{
	uint32_t ncur = s->qos_op != '=' && src ? src->nqos : 0;
	const uint32_t *cur = ncur ? src->qos_ids : NULL;
	uint32_t *nv = xmalloc((ncur + s->nqos + 1) * sizeof(uint32_t)), nn = 0;
	if (s->qos_op == '-') {
		for (uint32_t i = 0; i < ncur; i++)
			if (!mgr_has_id(s->qos, s->nqos, cur[i]))
				nv[nn++] = cur[i];
	} else {
		for (uint32_t i = 0; i < ncur; i++)
			nv[nn++] = cur[i];
		for (uint32_t i = 0; i < s->nqos; i++)
			if (!mgr_has_id(nv, nn, s->qos[i]))
				nv[nn++] = s->qos[i];
	}
	*n = nn;
	return nv;
}

uint32_t *mgr_qos_after(ctld_t *cd, const acct_assoc_t *a, const acct_assoc_t *parent,
			const assoc_set_t *s, uint32_t *n)
{
	if (a)
		parent = acct_assoc_parent(cd, a);
	const acct_assoc_t *src = acct_assoc_qos_src(cd, a ? a : parent);
	*n = 0;
	if (s->qos_op) {
		uint32_t *own = qos_own_after(src, s, n);
		if (*n)
			return own;
		free(own);
		src = acct_assoc_qos_src(cd, parent);
	}
	uint32_t *v = xmalloc(((src ? src->nqos : 0) + 1) * sizeof(uint32_t));
	if (src && src->nqos) {
		memcpy(v, src->qos_ids, src->nqos * sizeof(uint32_t));
		*n = src->nqos;
	}
	return v;
}

/* Apply s to a (whose inherited QOS list += and -= start from). */
void mgr_assoc_apply(ctld_t *cd, acct_assoc_t *a, const assoc_set_t *s)
{
	uint64_t *pl = (uint64_t *)(void *)&a->lim;
	const uint64_t *ps = (const uint64_t *)(const void *)&s->lim;
	for (size_t i = 0; i < NLIM; i++)
		if (s->given[i])
			pl[i] = ps[i];
	if (s->shares_given)
		a->shares_raw = s->shares;
	if (s->prio_given)
		a->priority = s->prio;
	if (s->defqos_given)
		a->def_qos_id = s->defqos;
	if (s->qos_op) {
		uint32_t nn;
		uint32_t *nv = qos_own_after(acct_assoc_qos_src(cd, a), s, &nn);
		free(a->qos_ids);
		a->qos_ids = nn ? nv : NULL;
		a->nqos = nn;
		if (!nn)
			free(nv);
	}
	a->dirty = 1;
}
