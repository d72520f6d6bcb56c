/*
 * job_deps: job dependencies (sbatch -d/--dependency, scontrol update
 * Dependency=), as Slurm 22.05 defines them:
 *
 *   after:ID[+MIN][:ID[+MIN]...]   ID started (or was cancelled pending),
 *                                  and MIN minutes have passed since
 *   afterany / afterok / afternotok / aftercorr / afterburstbuffer:ID...
 *                                  ID ended (ok: COMPLETED exit 0; notok:
 *                                  any other end), MIN minutes after
 *   singleton                      no other job of the same name and user
 *                                  runs, nor waits with a smaller id
 *   A,B   all of them              A?B   any one of them ("?" anywhere
 *                                  makes every separator "?", as Slurm)
 *
 * Each element is unfulfilled, fulfilled or failed (can never be met);
 * the job waits (Reason=Dependency) until the whole expression is met, and
 * shows DependencyNeverSatisfied once it can no longer be (killed then if
 * --kill-on-invalid-dep=yes or DependencyParameters=kill_invalid_depend).
 * A target job that is gone (purged, or never existed) counts as met.
 *
 * Cost: resolving a job is O(its elements): each target through the job
 * hash; singleton through an index of jobs by (user, name) whose summary
 * (one running? the smallest pending id) is computed at most once per
 * group per turn (job_deps_turn).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/ctld.h"
#include "errors.h"
#include "log.h"
#include "strbuf.h"
#include "xalloc.h"

/* ---- parsing ---- */

static const struct {
	const char *name;
	uint8_t type;
} dep_names[] = {
	{ "after", DEP_AFTER }, { "afterany", DEP_AFTERANY }, { "afterok", DEP_AFTEROK },
	{ "afternotok", DEP_AFTERNOTOK }, { "aftercorr", DEP_AFTERCORR },
	{ "singleton", DEP_SINGLETON }, { "afterburstbuffer", DEP_AFTERBB },
};

static const char *dep_type_name(uint8_t type)
{
	for (size_t i = 0; i < ARRAY_SIZE(dep_names); i++)
		if (dep_names[i].type == type)
			return dep_names[i].name;
	return "unknown";
}

/* A decimal number > 0 fitting 32 bits at *p; advances *p. */
static int parse_pos_u32(const char **p, uint32_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	if (!v)
		return -1;
	*out = (uint32_t)v;
	*p = s;
	return 0;
}

static void dep_add(dep_t **deps, uint32_t *n, size_t *alloc, const dep_t *d)
{
	/* The same target twice counts once (the first, as Slurm). */
	for (uint32_t i = 0; i < *n; i++)
		if ((*deps)[i].type == d->type && (*deps)[i].job_id == d->job_id &&
		    (*deps)[i].task_id == d->task_id)
			return;
	*deps = xgrow(*deps, sizeof(dep_t), *n + 1, alloc);
	(*deps)[(*n)++] = *d;
}

/* One "type:ID[_T][+MIN][:ID...]" or "singleton" element [s, end). */
static int parse_element(const char *s, const char *end, uint32_t self_id,
			 dep_t **deps, uint32_t *n, size_t *alloc)
{
	const char *colon = memchr(s, ':', (size_t)(end - s));
	size_t tlen = (size_t)((colon ? colon : end) - s);
	int type = 0;
	for (size_t i = 0; i < ARRAY_SIZE(dep_names); i++)
		if (strlen(dep_names[i].name) == tlen && !strncasecmp(s, dep_names[i].name, tlen))
			type = dep_names[i].type;
	if (!type)
		return tlen == 6 && !strncasecmp(s, "expand", 6) ? ESLURM_NOT_SUPPORTED
								: ESLURM_DEPENDENCY;
	if (type == DEP_SINGLETON) {
		if (colon)
			return ESLURM_DEPENDENCY;
		dep_t d = { .type = DEP_SINGLETON, .task_id = DEP_TASK_NONE };
		dep_add(deps, n, alloc, &d);
		return 0;
	}
	if (!colon)
		return ESLURM_DEPENDENCY;
	const char *p = colon + 1;
	for (;;) {
		dep_t d = { .type = (uint8_t)type, .task_id = DEP_TASK_NONE };
		if (parse_pos_u32(&p, &d.job_id))
			return ESLURM_DEPENDENCY;
		if (p < end && *p == '_') {
			p++;
			if (p < end && *p == '*') {
				d.task_id = DEP_TASK_ALL;
				p++;
			} else {
				const char *q = p;
				uint64_t v = 0;
				for (; q < end && *q >= '0' && *q <= '9'; q++)
					if ((v = v * 10 + (uint64_t)(*q - '0')) >= DEP_TASK_ALL)
						return ESLURM_DEPENDENCY;
				if (q == p)
					return ESLURM_DEPENDENCY;
				d.task_id = (uint32_t)v;
				p = q;
			}
		}
		if (p < end && *p == '+') {
			p++;
			if (parse_pos_u32(&p, &d.time_min))
				return ESLURM_DEPENDENCY;
		}
		if (p > end || (p < end && *p != ':'))
			return ESLURM_DEPENDENCY;
		if (self_id && d.job_id == self_id)
			return ESLURM_DEPENDENCY;
		dep_add(deps, n, alloc, &d);
		if (p == end)
			return 0;
		p++;                           /* ':' then the next id */
	}
}

int dep_parse(const char *s, uint32_t self_id, dep_t **deps, uint32_t *n, int *or_flag)
{
	*deps = NULL;
	*n = 0;
	*or_flag = 0;
	if (!s || !*s)
		return 0;
	size_t alloc = 0;
	int rc = 0;
	*or_flag = strchr(s, '?') != NULL;
	for (const char *p = s;;) {
		const char *end = p + strcspn(p, ",?");
		if (end == p) {
			rc = ESLURM_DEPENDENCY;       /* "a,,b", ",a", "a," */
			break;
		}
		if ((rc = parse_element(p, end, self_id, deps, n, &alloc)))
			break;
		if (!*end)
			break;
		p = end + 1;
	}
	if (rc) {
		xfree(*deps);
		*n = 0;
		*or_flag = 0;
	}
	return rc;
}

/* ---- the name+user index (singleton) ---- */

typedef struct dep_group {
	uint32_t uid;
	char *name;
	job_t **v;                /* its jobs, any state, until purged */
	size_t n, a;
	uint64_t stamp;           /* turn of the summary below */
	uint8_t running;          /* one of them runs or is suspended */
	uint32_t min_pending;     /* smallest id of a pending one, or 0 */
	struct dep_group *next;
} dep_group_t;

struct dep_index {
	dep_group_t **tab;
	uint32_t size, count;
	uint64_t turn;
};

static const char *job_name(const job_t *j)
{
	return j->desc && j->desc->name ? j->desc->name : "";
}

static uint32_t group_hash(uint32_t uid, const char *name, uint32_t size)
{
	uint32_t h = 2166136261u ^ uid;      /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h & (size - 1);
}

static struct dep_index *index_get(ctld_t *cd)
{
	if (!cd->depidx) {
		cd->depidx = xcalloc(1, sizeof(*cd->depidx));
		cd->depidx->size = 256;
		cd->depidx->tab = xcalloc(cd->depidx->size, sizeof(dep_group_t *));
		cd->depidx->turn = 1;
	}
	return cd->depidx;
}

static dep_group_t *group_find(struct dep_index *x, uint32_t uid, const char *name)
{
	for (dep_group_t *g = x->tab[group_hash(uid, name, x->size)]; g; g = g->next)
		if (g->uid == uid && !strcmp(g->name, name))
			return g;
	return NULL;
}

void dep_index_add(ctld_t *cd, job_t *j)
{
	struct dep_index *x = index_get(cd);
	const char *name = job_name(j);
	dep_group_t *g = group_find(x, j->user_id, name);
	if (!g) {
		if (x->count + 1 > x->size / 2) {
			uint32_t nsize = x->size * 2;
			dep_group_t **nt = xcalloc(nsize, sizeof(*nt));
			for (uint32_t i = 0; i < x->size; i++)
				for (dep_group_t *y = x->tab[i], *next; y; y = next) {
					next = y->next;
					uint32_t h = group_hash(y->uid, y->name, nsize);
					y->next = nt[h];
					nt[h] = y;
				}
			free(x->tab);
			x->tab = nt;
			x->size = nsize;
		}
		g = xcalloc(1, sizeof(*g));
		g->uid = j->user_id;
		g->name = xstrdup(name);
		uint32_t h = group_hash(g->uid, g->name, x->size);
		g->next = x->tab[h];
		x->tab[h] = g;
		x->count++;
	}
	g->v = xgrow(g->v, sizeof(job_t *), g->n + 1, &g->a);
	j->sidx = (uint32_t)g->n;
	g->v[g->n++] = j;
	g->stamp = 0;
}

void dep_index_remove(ctld_t *cd, job_t *j)
{
	if (!cd->depidx)
		return;
	struct dep_index *x = cd->depidx;
	const char *name = job_name(j);
	dep_group_t **pp = &x->tab[group_hash(j->user_id, name, x->size)];
	for (; *pp; pp = &(*pp)->next) {
		dep_group_t *g = *pp;
		if (g->uid != j->user_id || strcmp(g->name, name))
			continue;
		if (j->sidx >= g->n || g->v[j->sidx] != j)
			return;                   /* not in it */
		g->v[j->sidx] = g->v[--g->n];
		g->v[j->sidx]->sidx = j->sidx;
		g->stamp = 0;
		if (!g->n) {
			*pp = g->next;
			free(g->name);
			free(g->v);
			free(g);
			x->count--;
		}
		return;
	}
}

void job_deps_turn(ctld_t *cd)
{
	index_get(cd)->turn++;
}

/* Is j blocked by another job of its name and user? */
static int singleton_blocked(ctld_t *cd, const job_t *j)
{
	struct dep_index *x = index_get(cd);
	dep_group_t *g = group_find(x, j->user_id, job_name(j));
	if (!g)
		return 0;
	if (g->stamp != x->turn) {
		g->running = 0;
		g->min_pending = 0;
		for (size_t i = 0; i < g->n; i++) {
			uint32_t st = g->v[i]->state & JOB_STATE_BASE;
			if (st == JOB_RUNNING || st == JOB_SUSPENDED)
				g->running = 1;
			else if (st == JOB_PENDING &&
				 (!g->min_pending || g->v[i]->job_id < g->min_pending))
				g->min_pending = g->v[i]->job_id;
		}
		g->stamp = x->turn;
	}
	if (g->running && (j->state & JOB_STATE_BASE) == JOB_PENDING)
		return 1;
	return g->min_pending && g->min_pending < j->job_id;
}

/* ---- resolution ---- */

static int ended_ok(const job_t *t)
{
	return (t->state & JOB_STATE_BASE) == JOB_COMPLETE && t->exit_code == 0;
}

/* Met once MIN minutes have passed since when (0: no delay). */
static uint8_t after_delay(const dep_t *d, int64_t when, int64_t now)
{
	if (!d->time_min || now - when >= (int64_t)d->time_min * 60)
		return DEP_FULFILLED;
	return DEP_UNFULFILLED;
}

uint8_t dep_target_state(ctld_t *cd, const job_t *j, const dep_t *d, int64_t now)
{
	if (d->type == DEP_SINGLETON)
		return singleton_blocked(cd, j) ? DEP_UNFULFILLED : DEP_FULFILLED;
	/* Array targets ("_N", "_*", a whole array, aftercorr's task by
	 * task) are resolved by the array code; a plain job here. */
	const job_t *t = job_find(cd, d->job_id);
	if (!t)
		return DEP_FULFILLED;               /* gone: lifted, as Slurm */
	uint32_t st = t->state & JOB_STATE_BASE;
	int done = JOB_IS_FINISHED(t->state);
	switch (d->type) {
	case DEP_AFTER:
		if (st == JOB_PENDING)
			return DEP_UNFULFILLED;
		return after_delay(d, t->start_time ? t->start_time : t->end_time, now);
	case DEP_AFTERANY:
	case DEP_AFTERBB:             /* no burst buffers: its end is the end */
		return done ? after_delay(d, t->end_time, now) : DEP_UNFULFILLED;
	case DEP_AFTEROK:
	case DEP_AFTERCORR:
		if (!done)
			return DEP_UNFULFILLED;
		return ended_ok(t) ? after_delay(d, t->end_time, now) : DEP_FAILED;
	case DEP_AFTERNOTOK:
		if (!done)
			return DEP_UNFULFILLED;
		return !ended_ok(t) ? after_delay(d, t->end_time, now) : DEP_FAILED;
	}
	return DEP_FAILED;
}

static const char *state_word(uint8_t s)
{
	return s == DEP_FAILED ? "failed" : "unfulfilled";
}

/* j->dep_str from its elements: those not yet met, as Slurm prints them. */
static void deps_format(job_t *j)
{
	free(j->dep_str);
	j->dep_str = NULL;
	if (!j->ndeps || !j->dep_state)
		return;
	strbuf_t sb = STRBUF_INIT;
	const char *sep = "";
	for (uint32_t i = 0; i < j->ndeps; i++) {
		const dep_t *d = &j->deps[i];
		if (d->state == DEP_FULFILLED)
			continue;
		if (d->type == DEP_SINGLETON) {
			strbuf_addf(&sb, "%ssingleton(%s)", sep, state_word(d->state));
		} else {
			strbuf_addf(&sb, "%s%s:%u", sep, dep_type_name(d->type), d->job_id);
			if (d->task_id == DEP_TASK_ALL)
				strbuf_addstr(&sb, "_*");
			else if (d->task_id != DEP_TASK_NONE)
				strbuf_addf(&sb, "_%u", d->task_id);
			if (d->time_min)
				strbuf_addf(&sb, "+%u", d->time_min);
			strbuf_addf(&sb, "(%s)", state_word(d->state));
		}
		sep = j->dep_or ? "?" : ",";
	}
	j->dep_str = strbuf_detach(&sb);
}

int job_resolve_deps(ctld_t *cd, job_t *j)
{
	uint8_t was = j->dep_state;
	if (!j->ndeps) {
		j->dep_state = 0;
		if (j->dep_str) {
			free(j->dep_str);
			j->dep_str = NULL;
			return 1;
		}
		return was != 0;
	}
	int64_t now = ctld_now();
	int changed = 0;
	uint32_t met = 0, failed = 0;
	for (uint32_t i = 0; i < j->ndeps; i++) {
		dep_t *d = &j->deps[i];
		/* A met element stays met (Slurm drops it from the list), so
		 * "after" holds even if its target is requeued later. */
		if (d->state != DEP_FULFILLED) {
			uint8_t s = dep_target_state(cd, j, d, now);
			if (s != d->state) {
				d->state = s;
				changed = 1;
			}
		}
		met += d->state == DEP_FULFILLED;
		failed += d->state == DEP_FAILED;
	}
	if (j->dep_or)
		j->dep_state = met ? 0 : failed == j->ndeps ? 2 : 1;
	else
		j->dep_state = met == j->ndeps ? 0 : failed ? 2 : 1;
	if (changed || was != j->dep_state || (j->dep_state && !j->dep_str))
		deps_format(j);
	return changed || was != j->dep_state;
}

int job_set_deps(ctld_t *cd, job_t *j, const char *s)
{
	dep_t *deps = NULL;
	uint32_t n = 0;
	int or_flag = 0;
	int rc = dep_parse(s, j->job_id, &deps, &n, &or_flag);
	if (rc)
		return rc;
	free(j->deps);
	j->deps = deps;
	j->ndeps = n;
	j->dep_or = (uint8_t)or_flag;
	/* Unresolved until the next look: waiting if there is anything. */
	j->dep_state = n ? 1 : 0;
	deps_format(j);
	(void)cd;
	return 0;
}

int job_deps_kill_invalid(const ctld_t *cd, const job_t *j)
{
	uint32_t f = j->desc ? j->desc->flags : 0;
	if (f & JOB_F_KILL_INV_DEP)
		return 1;
	if (f & JOB_F_NO_KILL_INV_DEP)
		return 0;
	if (j->desc && j->desc->kill_on_invalid_dep)
		return 1;
	const char *p = conf_get(cd->conf, "DependencyParameters");
	if (!p)
		return 0;
	/* a comma separated list of options */
	size_t len = strlen("kill_invalid_depend");
	for (const char *s = p; (s = strcasestr(s, "kill_invalid_depend")); s += len)
		if ((s == p || s[-1] == ',') && (s[len] == 0 || s[len] == ','))
			return 1;
	return 0;
}
