/*
 * sched_fairshare.c: Fair Tree and the classic fair-share algorithm over a
 * flat association array (see sched_fairshare.h for the definitions).
 *
 * The tree arrives as parent indexes; the children are gathered once
 * (counting sort by parent) and visited breadth first, so every pass is
 * linear except the per-level sorts of Fair Tree.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched_fairshare.h"

#include "xalloc.h"

typedef struct fs_tree {
	sched_assoc_t *a;
	uint32_t n;
	uint32_t *first, *kids;   /* children of i: kids[first[i] .. first[i+1]) */
	uint32_t *order;          /* breadth first from the root */
	uint32_t *fsp;            /* the ancestor fair share is computed against */
	double *level;            /* siblings' shares (the denominator) */
	uint32_t nusers;
} fs_tree_t;

static int is_parent_flag(const sched_assoc_t *x)
{
	return x->shares_raw == SCHED_SHARES_PARENT;
}

static int tree_build(fs_tree_t *t)
{
	uint32_t n = t->n;
	if (!n || t->a[0].parent != -1)
		return -1;
	t->first = xcalloc(n + 1, sizeof(uint32_t));
	t->kids = xcalloc(n ? n : 1, sizeof(uint32_t));
	t->order = xcalloc(n, sizeof(uint32_t));
	t->fsp = xcalloc(n, sizeof(uint32_t));
	t->level = xcalloc(n, sizeof(double));
	for (uint32_t i = 1; i < n; i++) {
		int32_t p = t->a[i].parent;
		if (p < 0 || (uint32_t)p >= n || (uint32_t)p == i)
			return -1;
		t->first[p + 1]++;
	}
	for (uint32_t i = 0; i < n; i++)
		t->first[i + 1] += t->first[i];
	uint32_t *fill = xcalloc(n, sizeof(uint32_t));
	for (uint32_t i = 1; i < n; i++) {
		uint32_t p = (uint32_t)t->a[i].parent;
		t->kids[t->first[p] + fill[p]++] = i;
	}
	free(fill);
	/* Breadth first: a node comes after its parent; a cycle leaves
	 * nodes unreached. */
	uint32_t head = 0, tail = 0;
	t->order[tail++] = 0;
	while (head < tail) {
		uint32_t p = t->order[head++];
		for (uint32_t k = t->first[p]; k < t->first[p + 1]; k++)
			t->order[tail++] = t->kids[k];
	}
	if (tail != n)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		if (t->a[i].is_user)
			t->nusers++;
	return 0;
}

static void tree_free(fs_tree_t *t)
{
	free(t->first);
	free(t->kids);
	free(t->order);
	free(t->fsp);
	free(t->level);
}

/* The shares among which p's children divide: their own, with a
 * FairShare=parent account replaced by its children's (recursively). */
static double level_sum(const fs_tree_t *t, uint32_t p)
{
	double s = 0;
	for (uint32_t k = t->first[p]; k < t->first[p + 1]; k++) {
		uint32_t c = t->kids[k];
		if (!is_parent_flag(&t->a[c]))
			s += t->a[c].shares_raw;
		else if (!t->a[c].is_user)
			s += level_sum(t, c);
	}
	return s;
}

static void level_set(fs_tree_t *t, uint32_t p, double sum)
{
	for (uint32_t k = t->first[p]; k < t->first[p + 1]; k++) {
		uint32_t c = t->kids[k];
		t->level[c] = sum;
		if (is_parent_flag(&t->a[c]) && !t->a[c].is_user)
			level_set(t, c, sum);
	}
}

/* Level shares, the fair-share ancestor and the normalized usage (both
 * algorithms). */
static void common_pass(fs_tree_t *t)
{
	sched_assoc_t *a = t->a;
	for (uint32_t o = 0; o < t->n; o++) {
		uint32_t i = t->order[o];
		if (i == 0 || !is_parent_flag(&a[i]) || a[i].is_user)
			level_set(t, i, level_sum(t, i));
		if (i) {
			uint32_t p = (uint32_t)a[i].parent;
			t->fsp[i] = p && is_parent_flag(&a[p]) ? t->fsp[p] : p;
		}
		a[i].fs_norm_usage = a[0].usage_raw > 0 ? a[i].usage_raw / a[0].usage_raw : 0;
		a[i].fs_factor = 0;
		a[i].fs_level = 0;
	}
}

double sched_fs_classic_factor(double eff_usage, double norm_shares, double damp)
{
	if (norm_shares <= 0)
		return 0;
	if (damp <= 0)
		damp = 1;
	return pow(2.0, -(eff_usage / norm_shares) / damp);
}

/* ---- classic ---- */

static void classic(fs_tree_t *t, double damp)
{
	sched_assoc_t *a = t->a;
	double *path = xcalloc(t->n, sizeof(double));
	a[0].fs_norm_shares = path[0] = 1.0;
	a[0].fs_eff_usage = 1.0;
	for (uint32_t o = 1; o < t->n; o++) {
		uint32_t i = t->order[o], p = (uint32_t)a[i].parent, f = t->fsp[i];
		double frac = 1.0;
		if (!is_parent_flag(&a[i]))
			frac = t->level[i] > 0 ? a[i].shares_raw / t->level[i] : 0;
		path[i] = path[p] * frac;
		if (is_parent_flag(&a[i])) {
			/* the values of the association it is part of */
			a[i].fs_norm_shares = f ? a[f].fs_norm_shares : path[i];
			a[i].fs_eff_usage = f ? a[f].fs_eff_usage : a[i].fs_norm_usage;
		} else {
			a[i].fs_norm_shares = path[i];
			if (f == 0)
				a[i].fs_eff_usage = a[i].fs_norm_usage;
			else if (t->level[i] <= 0)
				a[i].fs_eff_usage = a[f].fs_eff_usage;
			else
				a[i].fs_eff_usage = a[i].fs_norm_usage +
					(a[f].fs_eff_usage - a[i].fs_norm_usage) *
					(a[i].shares_raw / t->level[i]);
		}
		a[i].fs_factor = sched_fs_classic_factor(a[i].fs_eff_usage, a[i].fs_norm_shares, damp);
	}
	free(path);
}

/* ---- Fair Tree ---- */

typedef struct ft_item {
	double level;
	uint32_t idx;
	uint8_t user;
} ft_item_t;

static int ft_cmp(const void *x, const void *y)
{
	const ft_item_t *a = x, *b = y;
	if (a->level != b->level)
		return a->level < b->level ? 1 : -1;
	if (a->user != b->user)
		return a->user ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static void ft_level(fs_tree_t *t, uint32_t i)
{
	sched_assoc_t *x = &t->a[i];
	uint32_t f = t->fsp[i];
	x->fs_eff_usage = t->a[f].usage_raw > 0 ? x->usage_raw / t->a[f].usage_raw : 0;
	uint32_t s = is_parent_flag(x) && f ? f : i;
	x->fs_norm_shares = t->level[s] > 0 && !is_parent_flag(&t->a[s])
		? t->a[s].shares_raw / t->level[s] : 0;
	if (is_parent_flag(x))
		x->fs_level = x->is_user ? INFINITY : SCHED_FS_LEVEL_NONE;
	else if (x->fs_norm_shares == 0)
		x->fs_level = 0;
	else if (x->fs_eff_usage == 0)
		x->fs_level = INFINITY;
	else
		x->fs_level = x->fs_norm_shares / x->fs_eff_usage;
}

/* Rank the siblings sib[0..n) (the children of one or more tied
 * accounts) and everything under them. */
static void ft_rank(fs_tree_t *t, const uint32_t *sib, uint32_t n, uint32_t *rank,
		    uint32_t *rnt, int account_tied)
{
	ft_item_t *it = xcalloc(n ? n : 1, sizeof(*it));
	for (uint32_t k = 0; k < n; k++) {
		ft_level(t, sib[k]);
		it[k].idx = sib[k];
		it[k].level = t->a[sib[k]].fs_level;
		it[k].user = t->a[sib[k]].is_user;
	}
	qsort(it, n, sizeof(*it), ft_cmp);
	double prev = SCHED_FS_LEVEL_NONE;
	int have_prev = 0;
	for (uint32_t k = 0; k < n; k++) {
		int tied = k == 0 ? account_tied : (have_prev && prev == it[k].level);
		sched_assoc_t *x = &t->a[it[k].idx];
		if (x->is_user) {
			if (!tied)
				*rank = *rnt;
			x->fs_factor = t->nusers ? *rank / (double)t->nusers : 0;
			if (*rnt)
				(*rnt)--;
		} else {
			/* accounts tied with this one: their children are ranked
			 * together */
			uint32_t last = k;
			while (last + 1 < n && !it[last + 1].user && it[last + 1].level == it[k].level)
				last++;
			uint32_t nk = 0;
			for (uint32_t m = k; m <= last; m++)
				nk += t->first[it[m].idx + 1] - t->first[it[m].idx];
			uint32_t *kids = xcalloc(nk ? nk : 1, sizeof(uint32_t)), q = 0;
			for (uint32_t m = k; m <= last; m++)
				for (uint32_t c = t->first[it[m].idx]; c < t->first[it[m].idx + 1]; c++)
					kids[q++] = t->kids[c];
			ft_rank(t, kids, nk, rank, rnt, tied);
			free(kids);
			k = last;
		}
		prev = it[k].level;
		have_prev = 1;
	}
	free(it);
}

static void fair_tree(fs_tree_t *t)
{
	sched_assoc_t *a = t->a;
	a[0].fs_norm_shares = 0;
	a[0].fs_eff_usage = 1.0;
	a[0].fs_level = SCHED_FS_LEVEL_NONE;
	uint32_t rank = t->nusers, rnt = t->nusers;
	ft_rank(t, t->kids + t->first[0], t->first[1] - t->first[0], &rank, &rnt, 0);
}

int sched_fairshare(sched_assoc_t *a, uint32_t n, int algo, double damp)
{
	fs_tree_t t = { .a = a, .n = n };
	if (tree_build(&t)) {
		tree_free(&t);
		return -1;
	}
	common_pass(&t);
	if (algo == SCHED_FS_CLASSIC)
		classic(&t, damp);
	else
		fair_tree(&t);
	tree_free(&t);
	return 0;
}
