/*
 * sched_preempt.c: preemption in the scheduler core
 * (PreemptType=preempt/qos): which running jobs a job blocked by
 * Resources takes the place of (sched_decision_t.preempt). The main pass
 * calls it (sched.c); the node state is left as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"
#include "sched_int.h"

#include "xalloc.h"

/* ---- preemption (PreemptType=preempt/qos) ---- */
static int qos_may_preempt(const sched_t *s, int32_t by, int32_t victim)
{
	if (by < 0 || (uint32_t)by >= s->nqos || victim < 0 || (uint32_t)victim >= s->nqos)
		return 0;
	const uint64_t *bm = s->qos[by].preempt;
	return bm && (bm[(uint32_t)victim / 64] >> ((uint32_t)victim % 64) & 1);
}

static const sched_t *pre_sched;
/* Victims in the order they are tried: the lowest QOS priority first,
 * then the youngest (latest start), then the highest job id. */
static int victim_cmp(const void *a, const void *b)
{
	const sched_running_t *x = &pre_sched->running[*(const uint32_t *)a];
	const sched_running_t *y = &pre_sched->running[*(const uint32_t *)b];
	uint32_t px = pre_sched->qos[x->qos].priority, py = pre_sched->qos[y->qos].priority;
	if (px != py)
		return px < py ? -1 : 1;
	if (x->start_time != y->start_time)
		return x->start_time > y->start_time ? -1 : 1;
	return x->job_id > y->job_id ? -1 : x->job_id < y->job_id;
}

static void alloc_toggle(ctx_t *c, const sched_alloc_t *a, int release)
{
	if (release)
		sched_alloc_release(c->s, a);
	else
		sched_alloc_commit(c->s, a);
	for (uint32_t i = 0; i < a->nnodes; i++)
		sched_ctx_node_changed(c, a->nodes[i]);
}

static int fits_now(ctx_t *c, const sched_job_t *j, const req_t *r)
{
	sched_alloc_t a;
	memset(&a, 0, sizeof(a));
	char *detail = NULL;
	int rc = sched_select_nodes(c, j, r, &a, &detail);
	free(detail);
	sched_alloc_free(&a);
	return rc == SEL_OK;
}

/* A job blocked by Resources whose QOS may preempt others: the first
 * running job of a preemptable QOS (victim_cmp order) on its partition's
 * nodes whose end alone lets it fit; else they are taken off the nodes
 * one at a time in that order until it fits, and those it did not need
 * are put back (latest taken first), so the fewest go. The node state is
 * restored: the victims still run until the controller ends them. Later
 * jobs of the partition wait (Priority) as behind any job blocked by
 * Resources. */
void sched_try_preempt(ctx_t *c, const sched_job_t *j, const req_t *r, sched_decision_t *dd)
{
	sched_t *s = c->s;
	if (!s->nrunning || j->qos < 0 || (uint32_t)j->qos >= s->nqos || !s->qos[j->qos].preempt)
		return;
	if (!c->preempted)
		c->preempted = xcalloc(s->nrunning, 1);
	/* Jobs already ending (victims of an earlier pass) free their nodes
	 * soon: if that is enough, wait for them rather than preempt more. */
	uint32_t nend = 0;
	for (uint32_t i = 0; i < s->nrunning; i++)
		if (s->running[i].alloc && s->running[i].ending) {
			alloc_toggle(c, s->running[i].alloc, 1);
			nend++;
		}
	if (nend && fits_now(c, j, r)) {
		for (uint32_t i = 0; i < s->nrunning; i++)
			if (s->running[i].alloc && s->running[i].ending)
				alloc_toggle(c, s->running[i].alloc, 0);
		return;
	}
	uint32_t *v = xmalloc(s->nrunning * sizeof(uint32_t)), nv = 0;
	for (uint32_t i = 0; i < s->nrunning; i++) {
		const sched_running_t *rj = &s->running[i];
		if (!rj->alloc || rj->ending || c->preempted[i] || !qos_may_preempt(s, j->qos, rj->qos))
			continue;
		int in_part = 0;
		for (uint32_t k = 0; k < rj->alloc->nnodes && !in_part; k++)
			in_part = c->pos[(size_t)j->part * s->nnodes + rj->alloc->nodes[k]] != UINT32_MAX;
		if (in_part)
			v[nv++] = i;
	}
	pre_sched = s;
	qsort(v, nv, sizeof(uint32_t), victim_cmp);
	uint32_t taken = 0;
	int ok = 0;
	/* One victim enough? The first in order that is (bounded: each try
	 * is a node search). */
	for (uint32_t k = 0; k < nv && k < 64 && !ok; k++) {
		alloc_toggle(c, s->running[v[k]].alloc, 1);
		if ((ok = fits_now(c, j, r))) {
			v[0] = v[k];
			taken = 1;
			break;
		}
		alloc_toggle(c, s->running[v[k]].alloc, 0);
	}
	while (taken < nv && !ok) {
		alloc_toggle(c, s->running[v[taken++]].alloc, 1);
		ok = fits_now(c, j, r);
	}
	if (ok) {
		/* Put back the victims it can do without (the last one
		 * taken made it fit: it stays out). */
		for (uint32_t k = taken - 1; k-- > 0;) {
			alloc_toggle(c, s->running[v[k]].alloc, 0);
			if (fits_now(c, j, r)) {
				v[k] = UINT32_MAX;   /* not needed */
				continue;
			}
			alloc_toggle(c, s->running[v[k]].alloc, 1);
		}
		dd->preempt = xmalloc(taken * sizeof(uint32_t));
		for (uint32_t k = 0; k < taken; k++) {
			if (v[k] == UINT32_MAX)
				continue;
			c->preempted[v[k]] = 1;
			dd->preempt[dd->npreempt++] = v[k];
		}
	}
	/* Restore: every victim still out and the ending jobs go back on
	 * their nodes. */
	for (uint32_t k = 0; k < taken; k++)
		if (v[k] != UINT32_MAX)
			alloc_toggle(c, s->running[v[k]].alloc, 0);
	for (uint32_t i = 0; i < s->nrunning; i++)
		if (s->running[i].alloc && s->running[i].ending)
			alloc_toggle(c, s->running[i].alloc, 0);
	free(v);
}
