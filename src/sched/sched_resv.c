/*
 * sched_resv.c: advance reservations in the scheduler core (the
 * sched_resv_t input of sched.h): which nodes a job may hold over which
 * window, for the main pass, the reasons and backfill's plan.
 *
 * Rules (as Slurm 22.05 behaves, checked on a real cluster):
 *  - a job not in a reservation never holds one of its nodes during
 *    [start, end): its own window [start, start + time limit) must not
 *    overlap it (no time limit: it overlaps every reservation that has
 *    not ended);
 *  - a job in a reservation runs only on that reservation's nodes and
 *    starts only inside its window (Reason=Reservation before); its time
 *    limit may run past the end (Slurm starts it all the same); other
 *    reservations keep it off their nodes as any job;
 *  - running jobs are never touched.
 *
 * Cost: sched_resv_ctx_init builds, once per pass (or will_run), per node
 * the list of reservations holding it (CSR: O(nodes + reserved node
 * entries)), so every per-node check walks only that node's reservations
 * (usually none or one), never the whole list. With no reservations the
 * context stays empty and each check is one test of a NULL pointer.
 */
#include <stdlib.h>
#include <string.h>

#include "sched.h"
#include "sched_int.h"

#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

const sched_resv_t *sched_resv_of(const sched_t *s, const sched_job_t *j)
{
	if (!j->resv || j->resv > s->nresvs || !s->resvs)
		return NULL;
	return &s->resvs[j->resv - 1];
}

int64_t sched_resv_dur(const sched_t *s, const sched_job_t *j)
{
	uint32_t tl = j->time_limit;
	if ((tl == TIME_NO_VAL || !tl) && j->part < s->nparts)
		tl = s->parts[j->part].max_time ? s->parts[j->part].max_time : TIME_INFINITE;
	if (tl == TIME_INFINITE || tl == TIME_NO_VAL || !tl)
		return INT64_MAX;
	return (int64_t)tl * 60;
}

void sched_resv_ctx_init(ctx_t *c)
{
	const sched_t *s = c->s;
	c->rv_off = NULL;
	c->rv_idx = NULL;
	c->rv_maint_part = NULL;
	c->rv_blocked = NULL;
	if (!s->resvs || !s->nresvs || !s->nnodes)
		return;
	/* Counting sort of (node, reservation) pairs into per-node lists. */
	uint32_t *off = xcalloc((size_t)s->nnodes + 1, sizeof(uint32_t));
	size_t total = 0;
	for (uint32_t v = 0; v < s->nresvs; v++) {
		const sched_resv_t *rv = &s->resvs[v];
		if (!rv->nodes || rv->end <= rv->start)
			continue;
		for (uint32_t i = 0; i < rv->nnodes; i++)
			if (rv->nodes[i] < s->nnodes) {
				off[rv->nodes[i] + 1]++;
				total++;
			}
	}
	for (uint32_t x = 0; x < s->nnodes; x++)
		off[x + 1] += off[x];
	uint32_t *idx = xmalloc((total ? total : 1) * sizeof(uint32_t));
	uint32_t *fill = xmalloc(((size_t)s->nnodes + 1) * sizeof(uint32_t));
	memcpy(fill, off, ((size_t)s->nnodes + 1) * sizeof(uint32_t));
	for (uint32_t v = 0; v < s->nresvs; v++) {
		const sched_resv_t *rv = &s->resvs[v];
		if (!rv->nodes || rv->end <= rv->start)
			continue;
		for (uint32_t i = 0; i < rv->nnodes; i++) {
			uint32_t x = rv->nodes[i];
			/* A node listed twice in one reservation counts once. */
			if (x < s->nnodes && (fill[x] == off[x] || idx[fill[x] - 1] != v))
				idx[fill[x]++] = v;
		}
	}
	/* Duplicates left holes: compact each node's list. */
	uint32_t w = 0;
	for (uint32_t x = 0; x < s->nnodes; x++) {
		uint32_t a = off[x], b = fill[x];
		off[x] = w;
		for (uint32_t k = a; k < b; k++)
			idx[w++] = idx[k];
	}
	off[s->nnodes] = w;
	free(fill);
	c->rv_off = off;
	c->rv_idx = idx;
	c->rv_blocked = xcalloc(s->nresvs, 1);
	/* MAINT reservations holding every node of a partition: the jobs of
	 * that partition they keep out read "Reserved for maintenance". */
	for (uint32_t v = 0; v < s->nresvs; v++) {
		const sched_resv_t *rv = &s->resvs[v];
		if (!(rv->flags & SCHED_RESV_F_MAINT) || !rv->nodes || rv->end <= rv->start)
			continue;
		if (!c->rv_maint_part)
			c->rv_maint_part = xcalloc((size_t)s->nresvs * (s->nparts ? s->nparts : 1), 1);
		for (uint32_t p = 0; p < s->nparts; p++) {
			uint32_t in = 0;
			for (uint32_t i = 0; i < c->parts[p].n; i++)
				in += sched_resv_node_in(c, c->parts[p].order[i], v);
			c->rv_maint_part[(size_t)v * s->nparts + p] =
				c->parts[p].n && in >= c->parts[p].n;
		}
	}
}

void sched_resv_ctx_release(ctx_t *c)
{
	free(c->rv_off);
	free(c->rv_idx);
	free(c->rv_maint_part);
	free(c->rv_blocked);
	c->rv_off = c->rv_idx = NULL;
	c->rv_maint_part = c->rv_blocked = NULL;
}

int sched_resv_node_in(const ctx_t *c, uint32_t x, uint32_t v)
{
	if (!c->rv_off || x >= c->s->nnodes)
		return 0;
	for (uint32_t k = c->rv_off[x]; k < c->rv_off[x + 1]; k++)
		if (c->rv_idx[k] == v)
			return 1;
	return 0;
}

/* Does [t, t + dur) (dur INT64_MAX: no end) overlap [rv->start, rv->end)? */
static int overlaps(const sched_resv_t *rv, int64_t t, int64_t dur)
{
	if (t >= rv->end)
		return 0;
	if (dur == INT64_MAX || t > INT64_MAX - dur)
		return 1;
	return t + dur > rv->start;
}

uint32_t sched_resv_job_reason(const ctx_t *c, const sched_job_t *j, int64_t now)
{
	if (!j->resv)
		return 0;
	const sched_resv_t *rv = sched_resv_of(c->s, j);
	/* Not started, over, or not one the core was given: it waits. */
	if (!rv || now < rv->start || now >= rv->end || !c->rv_off)
		return WAIT_RESERVATION;
	return 0;
}

int64_t sched_resv_next_start(const ctx_t *c, const sched_job_t *j, uint32_t x, int64_t t,
			      int64_t dur)
{
	const sched_resv_t *own = NULL;
	if (j->resv) {
		own = sched_resv_of(c->s, j);
		if (!own || !sched_resv_node_in(c, x, j->resv - 1))
			return INT64_MAX;
		if (t < own->start)
			t = own->start;
		if (t >= own->end)
			return INT64_MAX;
	}
	if (!c->rv_off || x >= c->s->nnodes)
		return t;
	uint32_t a = c->rv_off[x], b = c->rv_off[x + 1];
	/* Each move goes past one reservation's end, so at most b - a moves
	 * (a node holds few reservations). */
	for (uint32_t moved = 1, rounds = 0; moved && rounds <= b - a; rounds++) {
		moved = 0;
		for (uint32_t k = a; k < b; k++) {
			uint32_t v = c->rv_idx[k];
			if (j->resv && v == j->resv - 1)
				continue;
			const sched_resv_t *rv = &c->s->resvs[v];
			if (!overlaps(rv, t, dur))
				continue;
			if (rv->end == INT64_MAX)
				return INT64_MAX;
			t = rv->end;
			moved = 1;
		}
	}
	if (own && t >= own->end)
		return INT64_MAX;
	return t;
}

const char *sched_resv_detail(const ctx_t *c, const sched_job_t *j, int64_t t, int64_t dur)
{
	const sched_t *s = c->s;
	if (c->rv_maint_part && j->part < s->nparts)
		for (uint32_t v = 0; v < s->nresvs; v++)
			if (c->rv_maint_part[(size_t)v * s->nparts + j->part] &&
			    (!j->resv || v != j->resv - 1) && overlaps(&s->resvs[v], t, dur))
				return "Reserved for maintenance";
	return "May be reserved for other job";
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

uint32_t *sched_resv_part_order(const ctx_t *c, const sched_job_t *j, uint32_t *n)
{
	*n = 0;
	if (!j->resv || j->part >= c->s->nparts)
		return NULL;
	const sched_resv_t *rv = sched_resv_of(c->s, j);
	uint32_t cnt = rv && rv->nodes ? rv->nnodes : 0;
	uint32_t *out = xmalloc((cnt ? cnt : 1) * sizeof(uint32_t));
	const part_ctx_t *pc = &c->parts[j->part];
	uint32_t k = 0;
	/* positions in the partition's order, sorted, then the nodes */
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t x = rv->nodes[i];
		if (x < c->s->nnodes && c->pos[(size_t)j->part * c->s->nnodes + x] != UINT32_MAX)
			out[k++] = c->pos[(size_t)j->part * c->s->nnodes + x];
	}
	qsort(out, k, sizeof(uint32_t), u32_cmp);
	uint32_t m = 0;
	for (uint32_t i = 0; i < k; i++)
		if (!m || out[m - 1] != out[i])
			out[m++] = out[i];
	for (uint32_t i = 0; i < m; i++)
		out[i] = pc->order[out[i]];
	*n = m;
	return out;
}
