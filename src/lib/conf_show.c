/*
 * conf_show: the key/value list of `scontrol show config`, in Slurm 22.05's
 * order and spelling, with the values of this config or Slurm's defaults
 * formatted as Slurm prints them ("10 sec", "Yes", "(null)", "root(0)").
 * The table is conf_show_keys in conf_keys.c; the few computed entries are
 * here. Dynamic controller values (BOOT_TIME) are left to the controller.
 */
#include <ctype.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conf_int.h"
#include "timefmt.h"
#include "xalloc.h"

struct show { char **k, **v; size_t n, alloc; };

static void add(struct show *s, const char *k, char *v)
{
	s->k = xgrow(s->k, sizeof(char *), s->n + 1, &s->alloc);
	s->v = xrealloc(s->v, s->alloc * sizeof(char *));
	s->k[s->n] = xstrdup(k);
	s->v[s->n] = v;
	s->n++;
}

static char *fmt_time_mins(uint32_t mins)
{
	if (mins == TIME_INFINITE)
		return xstrdup("UNLIMITED");
	uint64_t secs = (uint64_t)mins * 60;
	uint64_t d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, sec = secs % 60;
	if (d)
		return xasprintf("%llu-%02llu:%02llu:%02llu", (unsigned long long)d, (unsigned long long)h,
				 (unsigned long long)m, (unsigned long long)sec);
	return xasprintf("%02llu:%02llu:%02llu", (unsigned long long)h, (unsigned long long)m, (unsigned long long)sec);
}

static char *fmt_user(const char *name)
{
	struct passwd *pw = getpwnam(name);
	if (pw)
		return xasprintf("%s(%u)", name, (unsigned)pw->pw_uid);
	uint64_t uid;
	if (!conf_parse_uint(name, UINT32_MAX, &uid) && (pw = getpwuid((uid_t)uid)))
		return xasprintf("%s(%u)", pw->pw_name, (unsigned)uid);
	return xstrdup(name);
}

static char *upper(const char *s)
{
	char *u = xstrdup(s);
	for (char *c = u; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	return u;
}

/* Slurm prints "localhost" controllers under the machine's short name. */
static char *ctld_host_name(const char *h)
{
	if (strcmp(h, "localhost"))
		return xstrdup(h);
	char buf[256];
	if (gethostname(buf, sizeof(buf)) < 0)
		return xstrdup(h);
	buf[sizeof(buf) - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
	return xstrdup(buf);
}

static void special(const conf_t *conf, struct show *s, const struct conf_showdef *d)
{
	const char *k = d->show;
	const char *raw;
	if (!strcmp(k, "SlurmctldHost[0]")) {
		for (size_t i = 0; i < conf->nctld_hosts; i++) {
			char key[48];
			char *h = ctld_host_name(conf->ctld_hosts[i]);
			snprintf(key, sizeof(key), "SlurmctldHost[%zu]", i);
			if (strcmp(conf->ctld_addrs[i], conf->ctld_hosts[i]))
				add(s, key, xasprintf("%s(%s)", h, conf->ctld_addrs[i]));
			else
				add(s, key, xstrdup(h));
			free(h);
		}
	} else if (!strcmp(k, "AccountingStorageTRES")) {
		strbuf_t sb = STRBUF_INIT;
		strbuf_addstr(&sb, d->def);
		raw = conf_get(conf, k);
		char *dup = xstrdup(raw ? raw : ""), *save = NULL;
		for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			char *probe = xasprintf(",%s,", t), *have = xasprintf(",%s,", sb.buf);
			if (!strstr(have, probe)) {
				strbuf_addch(&sb, ',');
				strbuf_addstr(&sb, t);
			}
			free(probe);
			free(have);
		}
		free(dup);
		add(s, k, strbuf_detach(&sb));
	} else if (!strcmp(k, "DefMemPerCPU") || !strcmp(k, "MaxMemPerNode")) {
		const char *pre = k[0] == 'D' ? "Def" : "Max";
		char cpu[32], node[32];
		snprintf(cpu, sizeof(cpu), "%sMemPerCPU", pre);
		snprintf(node, sizeof(node), "%sMemPerNode", pre);
		uint64_t mb;
		if ((raw = conf_get(conf, cpu)) && !conf_parse_mem(raw, &mb) && mb != UINT64_MAX)
			add(s, cpu, xasprintf("%llu", (unsigned long long)mb));
		else if ((raw = conf_get(conf, node)) && !conf_parse_mem(raw, &mb) && mb != UINT64_MAX)
			add(s, node, xasprintf("%llu", (unsigned long long)mb));
		else
			add(s, node, xstrdup("UNLIMITED"));
	} else if (!strcmp(k, "MaxNodeCount")) {
		raw = conf_get(conf, k);
		add(s, k, raw ? xstrdup(raw) : xasprintf("%zu", conf->nnodes));
	} else if (!strcmp(k, "MaxDBDMsgs")) {
		raw = conf_get(conf, k);
		uint64_t v = (uint64_t)conf->max_job_count * 2 + conf->nnodes * 4;
		add(s, k, raw ? xstrdup(raw) : xasprintf("%llu", (unsigned long long)(v > 10000 ? v : 10000)));
	} else if (!strcmp(k, "NEXT_JOB_ID")) {
		add(s, k, xasprintf("%u", conf->first_job_id));
	} else if (!strcmp(k, "SLURM_CONF")) {
		add(s, k, xstrdup(conf->path));
	} else if (!strcmp(k, "SuspendTime")) {
		raw = conf_get(conf, k);
		if (!raw || !strcasecmp(raw, "NONE") || !strcasecmp(raw, "INFINITE") ||
		    !strcasecmp(raw, "UNLIMITED") || !strcmp(raw, "-1"))
			add(s, k, xstrdup("INFINITE"));
		else
			add(s, k, xasprintf("%s sec", raw));
	} else {
		/* HASH_VAL, MULTIPLE_SLURMD, SLURM_VERSION: fixed. */
		add(s, k, xstrdup(d->def));
	}
}

size_t conf_show_lines(const conf_t *conf, char ***keys, char ***vals)
{
	struct show s = { 0 };
	for (size_t i = 0; i < conf_nshow_keys; i++) {
		const struct conf_showdef *d = &conf_show_keys[i];
		if (d->fmt == SF_SPECIAL) {
			special(conf, &s, d);
			continue;
		}
		const char *raw = conf_get(conf, d->show);
		const char *v = raw ? raw : d->def;
		if (d->fmt == SF_IFSET && !raw)
			continue;
		int b;
		uint32_t m;
		switch (d->fmt) {
		case SF_SEC: add(&s, d->show, xasprintf("%s sec", v)); break;
		case SF_MIN: add(&s, d->show, xasprintf("%s min", v)); break;
		case SF_USEC: add(&s, d->show, xasprintf("%s usec", v)); break;
		case SF_PCT: add(&s, d->show, xasprintf("%s percent", v)); break;
		case SF_RATE: add(&s, d->show, xasprintf("%s nodes/min", v)); break;
		case SF_YESNO:
			if (raw && !conf_parse_bool(raw, &b))
				v = b ? "Yes" : "No";
			add(&s, d->show, xstrdup(v));
			break;
		case SF_NUMBOOL:
			if (raw && !conf_parse_bool(raw, &b))
				v = b ? "1" : "0";
			add(&s, d->show, xstrdup(v));
			break;
		case SF_UPPER:
			if (raw && !strcmp(d->show, "EnforcePartLimits") && !strcasecmp(raw, "YES"))
				v = "ALL";
			add(&s, d->show, upper(v));
			break;
		case SF_USER: add(&s, d->show, fmt_user(v)); break;
		case SF_TIME:
			if (raw && !conf_parse_time(raw, &m))
				add(&s, d->show, fmt_time_mins(m));
			else if (raw)
				add(&s, d->show, xstrdup(raw));
			else
				add(&s, d->show, fmt_time_mins((uint32_t)strtoul(d->def, NULL, 10)));
			break;
		default: add(&s, d->show, xstrdup(v)); break;
		}
	}
	*keys = s.k;
	*vals = s.v;
	return s.n;
}
