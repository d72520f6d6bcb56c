/*
 * acct_lim.c: the limits of associations and QOS as sacctmgr names them
 * (MaxJobs, GrpTRES=cpu=8,gres/gpu=4, MaxWall=1:00:00, ...): the option
 * table, parsing a value onto a lim_set_t, printing one as sacctmgr shows
 * it, and the text form the state DB keeps them in.
 *
 * Pure functions (no ctld_t): unit tests drive them directly.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/acct_lim.h"

#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

#define OFF(f) offsetof(lim_set_t, f)

/* Order: as the DB text writes them. tres >= 0: a one-TRES legacy
 * option (GrpCPUs=, MaxNodes=) setting that TRES of a TRES limit. */
static const acct_lim_key_t keys[] = {
	{ "MaxJobs", NULL, LK_COUNT, 0, -1, OFF(max_jobs) },
	{ "MaxSubmitJobs", "MaxSubmit", LK_COUNT, 0, -1, OFF(max_submit) },
	{ "GrpJobs", NULL, LK_COUNT, 0, -1, OFF(grp_jobs) },
	{ "GrpSubmitJobs", "GrpSubmit", LK_COUNT, 0, -1, OFF(grp_submit) },
	{ "MaxWall", "MaxWallDurationPerJob", LK_WALL, 0, -1, OFF(max_wall) },
	{ "GrpWall", NULL, LK_WALL, 0, -1, OFF(grp_wall) },
	{ "MaxTRES", "MaxTRESPerJob", LK_TRES, 0, -1, OFF(max_tres_pj) },
	{ "MaxTRESPerNode", NULL, LK_TRES, 0, -1, OFF(max_tres_pn) },
	{ "MaxTRESMins", "MaxTRESMinsPerJob", LK_TRES_MINS, 0, -1, OFF(max_tres_mins_pj) },
	{ "GrpTRES", NULL, LK_TRES, 0, -1, OFF(grp_tres) },
	{ "GrpTRESMins", NULL, LK_TRES_MINS, 0, -1, OFF(grp_tres_mins) },
	{ "GrpTRESRunMins", NULL, LK_TRES_MINS, 0, -1, OFF(grp_tres_run_mins) },
	{ "MaxJobsPerUser", "MaxJobsPU", LK_COUNT, 1, -1, OFF(max_jobs_pu) },
	{ "MaxSubmitJobsPerUser", "MaxSubmitPU", LK_COUNT, 1, -1, OFF(max_submit_pu) },
	{ "MaxJobsPerAccount", "MaxJobsPA", LK_COUNT, 1, -1, OFF(max_jobs_pa) },
	{ "MaxSubmitJobsPerAccount", "MaxSubmitPA", LK_COUNT, 1, -1, OFF(max_submit_pa) },
	{ "MaxTRESPerUser", "MaxTRESPU", LK_TRES, 1, -1, OFF(max_tres_pu) },
	{ "MaxTRESPerAccount", "MaxTRESPA", LK_TRES, 1, -1, OFF(max_tres_pa) },
	{ "MinTRES", "MinTRESPerJob", LK_TRES, 1, -1, OFF(min_tres_pj) },
	/* the options before TRES limits (still accepted by sacctmgr) */
	{ "GrpCPUs", NULL, LK_TRES, 0, LIM_TRES_CPU, OFF(grp_tres) },
	{ "GrpNodes", NULL, LK_TRES, 0, LIM_TRES_NODE, OFF(grp_tres) },
	{ "GrpMem", NULL, LK_TRES, 0, LIM_TRES_MEM, OFF(grp_tres) },
	{ "GrpCPUMins", NULL, LK_TRES_MINS, 0, LIM_TRES_CPU, OFF(grp_tres_mins) },
	{ "GrpCPURunMins", NULL, LK_TRES_MINS, 0, LIM_TRES_CPU, OFF(grp_tres_run_mins) },
	{ "MaxCPUs", "MaxCPUsPerJob", LK_TRES, 0, LIM_TRES_CPU, OFF(max_tres_pj) },
	{ "MaxNodes", "MaxNodesPerJob", LK_TRES, 0, LIM_TRES_NODE, OFF(max_tres_pj) },
	{ "MaxCPUMins", "MaxCPUMinsPerJob", LK_TRES_MINS, 0, LIM_TRES_CPU, OFF(max_tres_mins_pj) },
	{ "MaxCPUsPerUser", "MaxCPUsPU", LK_TRES, 1, LIM_TRES_CPU, OFF(max_tres_pu) },
	{ "MaxNodesPerUser", "MaxNodesPU", LK_TRES, 1, LIM_TRES_NODE, OFF(max_tres_pu) },
};

/* Slurm's names of the TRES we count, in Slurm's id order (printing). */
static const struct { const char *name; int idx; } tres_names[] = {
	{ "cpu", LIM_TRES_CPU }, { "mem", LIM_TRES_MEM }, { "node", LIM_TRES_NODE },
	{ "billing", LIM_TRES_BILLING }, { "gres/gpu", LIM_TRES_GPU },
};

const acct_lim_key_t *acct_lim_key(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcasecmp(keys[i].name, name) || (keys[i].alias && !strcasecmp(keys[i].alias, name)))
			return &keys[i];
	return NULL;
}

const acct_lim_key_t *acct_lim_key_at(size_t i)
{
	return i < ARRAY_SIZE(keys) ? &keys[i] : NULL;
}

static uint64_t *u64_at(lim_set_t *l, const acct_lim_key_t *k)
{
	return (uint64_t *)(void *)((char *)l + k->off);
}

static const uint64_t *cu64_at(const lim_set_t *l, const acct_lim_key_t *k)
{
	return (const uint64_t *)(const void *)((const char *)l + k->off);
}

int acct_tres_index(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(tres_names); i++)
		if (!strcasecmp(tres_names[i].name, name))
			return tres_names[i].idx;
	return -1;
}

/* "-1" (and Slurm's other spellings of "none") clears a limit. */
static int is_clear(const char *v)
{
	return !strcmp(v, "-1") || !strcasecmp(v, "none") || !strcasecmp(v, "unlimited");
}

static int parse_count(const char *v, uint64_t *out)
{
	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	char *end;
	unsigned long long x = strtoull(v, &end, 10);
	if (errno || *end || x >= LIM_UNSET)
		return -1;
	*out = x;
	return 0;
}

/* One TRES value: mem takes a unit (MB default) unless mins. */
static int parse_tres_value(int idx, int mins, const char *v, uint64_t *out)
{
	if (is_clear(v)) {
		*out = LIM_UNSET;
		return 0;
	}
	if (idx == LIM_TRES_MEM && !mins)
		return mem_parse_mb(v, out);
	return parse_count(v, out);
}

int acct_tres_parse(lim_tres_t *t, const char *v, int mins, char **err)
{
	lim_tres_t n = *t;
	if (!*v) {
		*err = xstrdup("empty TRES list");
		return -1;
	}
	char *dup = xstrdup(v), *save = NULL;
	int rc = 0;
	for (char *w = strtok_r(dup, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(w, '=');
		if (!eq) {
			*err = xasprintf("Bad TRES format '%s', it should be name=value", w);
			rc = -1;
			break;
		}
		*eq = 0;
		int idx = acct_tres_index(w);
		if (idx < 0) {
			*err = xasprintf("Unknown TRES '%s' (this cluster counts cpu, mem, node, billing and gres/gpu)", w);
			rc = -1;
			break;
		}
		if (parse_tres_value(idx, mins, eq + 1, &n.v[idx])) {
			*err = xasprintf("Bad value '%s' for TRES %s", eq + 1, w);
			rc = -1;
			break;
		}
	}
	free(dup);
	if (!rc)
		*t = n;
	return rc;
}

int acct_lim_set(lim_set_t *l, const acct_lim_key_t *k, const char *v, char **err)
{
	uint64_t *p = u64_at(l, k);
	switch (k->kind) {
	case LK_COUNT:
		if (is_clear(v)) {
			*p = LIM_UNSET;
			return 0;
		}
		if (parse_count(v, p)) {
			*err = xasprintf("Bad value '%s' for %s", v, k->name);
			return -1;
		}
		return 0;
	case LK_WALL: {
		if (is_clear(v)) {
			*p = LIM_UNSET;
			return 0;
		}
		uint32_t m;
		if (time_limit_parse(v, &m) || m == TIME_INFINITE) {
			*err = xasprintf("Bad value '%s' for %s", v, k->name);
			return -1;
		}
		*p = m;
		return 0;
	}
	case LK_TRES:
	case LK_TRES_MINS: {
		lim_tres_t *t = (lim_tres_t *)(void *)p;
		if (k->tres >= 0) {
			uint64_t x;
			if (parse_tres_value(k->tres, k->kind == LK_TRES_MINS, v, &x)) {
				*err = xasprintf("Bad value '%s' for %s", v, k->name);
				return -1;
			}
			t->v[k->tres] = x;
			return 0;
		}
		char *e = NULL;
		if (acct_tres_parse(t, v, k->kind == LK_TRES_MINS, &e)) {
			*err = xasprintf("%s: %s", k->name, e);
			free(e);
			return -1;
		}
		return 0;
	}
	}
	*err = xstrdup("unknown limit kind");
	return -1;
}

void acct_tres_fmt(strbuf_t *sb, const lim_tres_t *t, int mins)
{
	int first = 1;
	for (size_t i = 0; i < ARRAY_SIZE(tres_names); i++) {
		uint64_t x = t->v[tres_names[i].idx];
		if (x == LIM_UNSET)
			continue;
		if (!first)
			strbuf_addch(sb, ',');
		first = 0;
		if (tres_names[i].idx == LIM_TRES_MEM && !mins) {
			char buf[32];
			mem_fmt_mb(x, buf, sizeof(buf));
			strbuf_addf(sb, "mem=%s", buf);
		} else {
			strbuf_addf(sb, "%s=%llu", tres_names[i].name, (unsigned long long)x);
		}
	}
}

void acct_lim_fmt(strbuf_t *sb, const lim_set_t *l, const acct_lim_key_t *k)
{
	const uint64_t *p = cu64_at(l, k);
	switch (k->kind) {
	case LK_COUNT:
		if (*p != LIM_UNSET)
			strbuf_addf(sb, "%llu", (unsigned long long)*p);
		break;
	case LK_WALL:
		if (*p != LIM_UNSET) {
			char buf[32];
			mins_fmt_limit((uint32_t)*p, buf, sizeof(buf));
			strbuf_addstr(sb, buf);
		}
		break;
	default: {
		const lim_tres_t *t = (const lim_tres_t *)(const void *)p;
		if (k->tres >= 0) {
			if (t->v[k->tres] != LIM_UNSET)
				strbuf_addf(sb, "%llu", (unsigned long long)t->v[k->tres]);
		} else {
			acct_tres_fmt(sb, t, k->kind == LK_TRES_MINS);
		}
		break;
	}
	}
}

static int tres_any(const lim_tres_t *t)
{
	for (int i = 0; i < LIM_TRES_N; i++)
		if (t->v[i] != LIM_UNSET)
			return 1;
	return 0;
}

char *acct_lim_encode(const lim_set_t *l)
{
	strbuf_t sb;
	strbuf_init(&sb);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const acct_lim_key_t *k = &keys[i];
		if (k->tres >= 0)
			continue;             /* covered by the TRES option */
		const uint64_t *p = cu64_at(l, k);
		if (k->kind == LK_COUNT || k->kind == LK_WALL) {
			if (*p != LIM_UNSET)
				strbuf_addf(&sb, "%s%s=%llu", sb.len ? " " : "", k->name,
					    (unsigned long long)*p);
			continue;
		}
		const lim_tres_t *t = (const lim_tres_t *)(const void *)p;
		if (!tres_any(t))
			continue;
		strbuf_addf(&sb, "%s%s=", sb.len ? " " : "", k->name);
		/* raw numbers (mem in MB without a unit): read back exactly */
		int first = 1;
		for (size_t j = 0; j < ARRAY_SIZE(tres_names); j++) {
			uint64_t x = t->v[tres_names[j].idx];
			if (x == LIM_UNSET)
				continue;
			strbuf_addf(&sb, "%s%s=%llu", first ? "" : ",", tres_names[j].name,
				    (unsigned long long)x);
			first = 0;
		}
	}
	return strbuf_detach(&sb);
}

int acct_lim_decode(lim_set_t *l, const char *s, char **err)
{
	lim_set_clear(l);
	if (!s || !*s)
		return 0;
	char *dup = xstrdup(s), *save = NULL;
	int rc = 0;
	for (char *w = strtok_r(dup, " ", &save); w && !rc; w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');
		const acct_lim_key_t *k = NULL;
		if (eq) {
			*eq = 0;
			k = acct_lim_key(w);
		}
		if (!k) {
			*err = xasprintf("bad stored limit '%s'", w);
			rc = -1;
		} else if (k->kind == LK_WALL) {
			/* stored as minutes (time_limit_parse would read "90" as
			 * 90 minutes too, but keep it exact) */
			uint64_t x;
			if (parse_count(eq + 1, &x)) {
				*err = xasprintf("bad stored limit %s=%s", w, eq + 1);
				rc = -1;
			} else {
				*u64_at(l, k) = x;
			}
		} else {
			rc = acct_lim_set(l, k, eq + 1, err);
		}
	}
	free(dup);
	return rc;
}
