/*
 * health_conf: the parser of health.conf (see health_conf.h for the
 * syntax, docs/node-operations.md for every key) and the auth key digest
 * both daemons compare.
 */
#include "health_conf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conf.h"
#include "sha256.h"
#include "strbuf.h"
#include "xalloc.h"

static const char *const kind_names[HC_KINDS] = {
	"gpu", "ib", "fs", "memory", "clock", "procs", "authkey", "nccl",
};

const char *hc_kind_name(enum hc_kind k)
{
	return k < HC_KINDS ? kind_names[k] : "?";
}

/* The keys each check takes (NULL-terminated). */
static const char *const gpu_keys[] = { "count", "type", "ecc_volatile", "ecc_aggregate",
	"retired_pending", "xid", "max_temp", "throttle", "nvlink_down", "persistence", NULL };
static const char *const ib_keys[] = { "device", "port", "rate", "error_growth", NULL };
static const char *const fs_keys[] = { "path", "min_free", "writable", "mounted", NULL };
static const char *const mem_keys[] = { "min_free", NULL };
static const char *const clock_keys[] = { "max_offset", NULL };
static const char *const procs_keys[] = { NULL };
static const char *const key_keys[] = { "path", "drain", NULL };
static const char *const nccl_keys[] = { "log", "counters", "interval", "window", "min_rate",
	NULL };
static const char *const *const kind_keys[HC_KINDS] = {
	gpu_keys, ib_keys, fs_keys, mem_keys, clock_keys, procs_keys, key_keys, nccl_keys,
};

static void err(health_conf_t *hc, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void err(health_conf_t *hc, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	hc->errors = xrealloc(hc->errors, (hc->nerrors + 1) * sizeof(*hc->errors));
	hc->errors[hc->nerrors++] = xasprintf("%s:%d: %s", file, line, m);
	free(m);
}

int64_t health_parse_size(const char *s)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	int shift = 0;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'K': shift = 10; break;
	case 'M': shift = 20; break;
	case 'G': shift = 30; break;
	case 'T': shift = 40; break;
	default: return -1;
	}
	if (*end && end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2]))
		return -1;
	if (v > (unsigned long long)(INT64_MAX >> shift))
		return -1;
	return (int64_t)(v << shift);
}

static int parse_long(const char *v, long *out)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (!*v || *end || errno || x < 0)
		return -1;
	*out = x;
	return 0;
}

/* yes/no/on/off/1/0 -> 1/0, -1 otherwise */
static int parse_bool(const char *v)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "on") || !strcmp(v, "1") || !strcasecmp(v, "true"))
		return 1;
	if (!strcasecmp(v, "no") || !strcasecmp(v, "off") || !strcmp(v, "0") || !strcasecmp(v, "false"))
		return 0;
	return -1;
}

static void check_defaults(hc_check_t *c)
{
	c->gpu_count = -1;
	c->ecc_volatile = 0;
	c->ecc_aggregate = -1;
	c->retired_pending = 1;
	c->max_temp = 90;
	c->throttle = HC_THROTTLE_THERMAL;
	c->nvlink_down = 0;
	c->persistence = 1;
	/* The XIDs NVIDIA's guide says need a GPU reset or a node reboot
	 * (not those an application causes, as 13, 31, 43). */
	static const uint32_t bad[] = { 48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120 };
	c->nxids = sizeof(bad) / sizeof(bad[0]);
	c->xids = xmalloc(sizeof(bad));
	memcpy(c->xids, bad, sizeof(bad));
	c->port = -1;
	c->error_growth = 0;
	c->writable = 1;
	c->mounted = 0;
	c->max_offset = 5;
	c->key_drain = 1;
	c->nccl_log = 1;
	c->nccl_counters = 1;
	c->nccl_interval = 10;
	c->nccl_window = 300;
	c->nccl_min_rate = 1 << 20;
}

static void check_free(hc_check_t *c)
{
	free(c->gpu_type);
	free(c->xids);
	free(c->device);
	free(c->path);
	free(c->key_path);
}

/* Apply key=val to c; NULL or an error message (malloc'd). */
static char *apply(hc_check_t *c, const char *k, const char *v)
{
	long l;
	int b;
	int64_t sz;
	const char *kn = hc_kind_name(c->kind);
	if (!strcmp(k, "count")) {
		if (!strcasecmp(v, "auto"))
			c->gpu_count = -1;
		else if (parse_long(v, &c->gpu_count) < 0)
			return xasprintf("count '%s': a number or auto", v);
	} else if (!strcmp(k, "type")) {
		free(c->gpu_type);
		c->gpu_type = xstrdup(v);
	} else if (!strcmp(k, "ecc_volatile") || !strcmp(k, "ecc_aggregate") ||
		   !strcmp(k, "max_temp") || !strcmp(k, "nvlink_down") || !strcmp(k, "error_growth")) {
		if (!strcasecmp(v, "off"))
			l = -1;
		else if (parse_long(v, &l) < 0)
			return xasprintf("%s '%s': a number, or off", k, v);
		if (!strcmp(k, "ecc_volatile"))
			c->ecc_volatile = l;
		else if (!strcmp(k, "ecc_aggregate"))
			c->ecc_aggregate = l;
		else if (!strcmp(k, "max_temp"))
			c->max_temp = l;
		else if (!strcmp(k, "nvlink_down"))
			c->nvlink_down = l;
		else
			c->error_growth = l;
	} else if (!strcmp(k, "retired_pending") || !strcmp(k, "persistence") ||
		   !strcmp(k, "writable") || !strcmp(k, "mounted") || !strcmp(k, "drain")) {
		if ((b = parse_bool(v)) < 0)
			return xasprintf("%s '%s': yes or no", k, v);
		if (!strcmp(k, "retired_pending"))
			c->retired_pending = b;
		else if (!strcmp(k, "persistence"))
			c->persistence = b;
		else if (!strcmp(k, "writable"))
			c->writable = b;
		else if (!strcmp(k, "mounted"))
			c->mounted = b;
		else
			c->key_drain = b;
	} else if (!strcmp(k, "xid")) {
		free(c->xids);
		c->xids = NULL;
		c->nxids = 0;
		c->xid_all = 0;
		if (!strcasecmp(v, "any") || !strcasecmp(v, "all")) {
			c->xid_all = 1;
		} else if (strcasecmp(v, "none")) {
			char *copy = xstrdup(v), *save = NULL;
			for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				if (parse_long(t, &l) < 0 || l > 1000000) {
					free(copy);
					return xasprintf("xid '%s': XID codes separated by commas, any or none", v);
				}
				c->xids = xrealloc(c->xids, (c->nxids + 1) * sizeof(*c->xids));
				c->xids[c->nxids++] = (uint32_t)l;
			}
			free(copy);
		}
	} else if (!strcmp(k, "throttle")) {
		c->throttle = 0;
		char *copy = xstrdup(v), *save = NULL;
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (!strcasecmp(t, "thermal"))
				c->throttle |= HC_THROTTLE_THERMAL;
			else if (!strcasecmp(t, "power"))
				c->throttle |= HC_THROTTLE_POWER;
			else if (strcasecmp(t, "none")) {
				free(copy);
				return xasprintf("throttle '%s': thermal, power (comma-separated) or none", v);
			}
		}
		free(copy);
	} else if (!strcmp(k, "device")) {
		free(c->device);
		c->device = strcasecmp(v, "all") ? xstrdup(v) : NULL;
	} else if (!strcmp(k, "port")) {
		if (!strcasecmp(v, "all"))
			c->port = -1;
		else if (parse_long(v, &c->port) < 0 || !c->port)
			return xasprintf("port '%s': a port number or all", v);
	} else if (!strcmp(k, "rate")) {
		char *end;
		double r = strtod(v, &end);
		if (end == v || (*end && strcasecmp(end, "G") && strcasecmp(end, "Gb/s")) || r < 0)
			return xasprintf("rate '%s': the expected link rate in Gb/s (400, 200, ...)", v);
		c->rate_gbps = r;
	} else if (!strcmp(k, "path")) {
		if (v[0] != '/')
			return xasprintf("path '%s': an absolute path", v);
		if (c->kind == HC_AUTHKEY) {
			free(c->key_path);
			c->key_path = xstrdup(v);
		} else {
			free(c->path);
			c->path = xstrdup(v);
		}
	} else if (!strcmp(k, "min_free")) {
		if ((sz = health_parse_size(v)) < 0)
			return xasprintf("min_free '%s': a size such as 10G, 512M or 4096", v);
		c->min_free = (uint64_t)sz;
	} else if (!strcmp(k, "log") || !strcmp(k, "counters")) {
		if ((b = parse_bool(v)) < 0)
			return xasprintf("%s '%s': yes or no", k, v);
		*(!strcmp(k, "log") ? &c->nccl_log : &c->nccl_counters) = b;
	} else if (!strcmp(k, "interval") || !strcmp(k, "window")) {
		if (parse_long(v, &l) < 0 || l < 1 || l > 86400)
			return xasprintf("%s '%s': seconds, 1 to 86400", k, v);
		*(!strcmp(k, "interval") ? &c->nccl_interval : &c->nccl_window) = l;
	} else if (!strcmp(k, "min_rate")) {
		if ((sz = health_parse_size(v)) < 0)
			return xasprintf("min_rate '%s': bytes per second, such as 1M, 100k or 4096", v);
		c->nccl_min_rate = sz;
	} else if (!strcmp(k, "max_offset")) {
		char *end;
		double s = strtod(v, &end);
		if (end == v || *end || s <= 0)
			return xasprintf("max_offset '%s': seconds, more than 0", v);
		c->max_offset = s;
	} else {
		return xasprintf("'%s' is not a key of check '%s'", k, kn);
	}
	return NULL;
}

static int key_known(enum hc_kind kind, const char *k)
{
	for (const char *const *p = kind_keys[kind]; *p; p++)
		if (!strcmp(*p, k))
			return 1;
	return 0;
}

static void keys_list(enum hc_kind kind, strbuf_t *sb)
{
	for (const char *const *p = kind_keys[kind]; *p; p++)
		strbuf_addf(sb, "%s%s", p == kind_keys[kind] ? "" : ", ", *p);
}

/* One logical line (comment removed, not empty). */
static void parse_line(health_conf_t *hc, const char *file, int ln, char *line)
{
	char *save = NULL;
	char *word = strtok_r(line, " \t", &save);
	if (!word)
		return;
	if (!strcasecmp(word, "gate")) {
		/* gate [checks=gpu,memory]: run these before each job */
		unsigned mask = 1u << HC_GPU;
		for (char *t = strtok_r(NULL, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
			if (strncmp(t, "checks=", 7)) {
				err(hc, file, ln, "'%s' is not a key of 'gate' (it takes checks=LIST)", t);
				return;
			}
			mask = 0;
			char *s2 = NULL;
			for (char *c = strtok_r(t + 7, ",", &s2); c; c = strtok_r(NULL, ",", &s2)) {
				int k = 0;
				while (k < HC_KINDS && strcasecmp(kind_names[k], c))
					k++;
				if (k == HC_KINDS || k == HC_AUTHKEY || k == HC_CLOCK || k == HC_NCCL) {
					err(hc, file, ln, "gate: '%s' cannot gate a job (use gpu, ib, fs, memory or procs)", c);
					return;
				}
				mask |= 1u << k;
			}
		}
		hc->gate |= mask;
		return;
	}
	int kind = 0;
	while (kind < HC_KINDS && strcasecmp(kind_names[kind], word))
		kind++;
	if (kind == HC_KINDS) {
		err(hc, file, ln, "unknown check '%s' (gpu, ib, fs, memory, clock, procs, authkey, nccl or gate)", word);
		return;
	}
	hc_check_t c;
	memset(&c, 0, sizeof(c));
	c.kind = (enum hc_kind)kind;
	c.line = ln;
	check_defaults(&c);
	int bad = 0;
	for (char *t = strtok_r(NULL, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(t, '=');
		if (!eq || eq == t || !eq[1]) {
			err(hc, file, ln, "'%s': expected key=value", t);
			bad = 1;
			continue;
		}
		*eq = '\0';
		if (!key_known(c.kind, t)) {
			strbuf_t sb = STRBUF_INIT;
			keys_list(c.kind, &sb);
			err(hc, file, ln, "'%s' is not a key of check '%s' (%s%s)", t, word,
			    sb.len ? "keys: " : "it takes none", sb.len ? sb.buf : "");
			strbuf_release(&sb);
			bad = 1;
			continue;
		}
		char *m = apply(&c, t, eq + 1);
		if (m) {
			err(hc, file, ln, "%s", m);
			free(m);
			bad = 1;
		}
	}
	if (!bad && c.kind == HC_FS && !c.path) {
		err(hc, file, ln, "check 'fs' needs path=");
		bad = 1;
	}
	if (!bad && c.kind == HC_MEMORY && !c.min_free) {
		err(hc, file, ln, "check 'memory' needs min_free=");
		bad = 1;
	}
	if (!bad && (c.kind == HC_CLOCK || c.kind == HC_PROCS || c.kind == HC_AUTHKEY ||
		     c.kind == HC_GPU || c.kind == HC_MEMORY || c.kind == HC_NCCL) &&
	    health_conf_find(hc, c.kind)) {
		err(hc, file, ln, "check '%s' given twice (first on line %d)", word,
		    health_conf_find(hc, c.kind)->line);
		bad = 1;
	}
	if (bad) {
		check_free(&c);
		return;
	}
	hc->checks = xrealloc(hc->checks, (hc->n + 1) * sizeof(*hc->checks));
	hc->checks[hc->n++] = c;
}

health_conf_t *health_conf_parse(const char *text, const char *name)
{
	health_conf_t *hc = xcalloc(1, sizeof(*hc));
	hc->path = xstrdup(name);
	char *copy = xstrdup(text ? text : "");
	int ln = 0;
	char *p = copy;
	while (*p) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		ln++;
		char *hash = strchr(p, '#');
		if (hash)
			*hash = '\0';
		parse_line(hc, name, ln, p);
		if (!nl)
			break;
		p = nl + 1;
	}
	free(copy);
	return hc;
}

health_conf_t *health_conf_load(const char *path, int *missing)
{
	if (missing)
		*missing = 0;
	FILE *fp = fopen(path, "re");
	if (!fp) {
		health_conf_t *hc = health_conf_parse("", path);
		if (errno == ENOENT) {
			if (missing)
				*missing = 1;
		} else {
			hc->errors = xmalloc(sizeof(*hc->errors));
			hc->errors[hc->nerrors++] = xasprintf("%s: %s", path, strerror(errno));
		}
		return hc;
	}
	strbuf_t sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0 && sb.len < (1u << 20))
		strbuf_add(&sb, buf, n);
	fclose(fp);
	health_conf_t *hc = health_conf_parse(sb.buf ? sb.buf : "", path);
	strbuf_release(&sb);
	return hc;
}

void health_conf_free(health_conf_t *hc)
{
	if (!hc)
		return;
	for (size_t i = 0; i < hc->n; i++)
		check_free(&hc->checks[i]);
	free(hc->checks);
	for (size_t i = 0; i < hc->nerrors; i++)
		free(hc->errors[i]);
	free(hc->errors);
	free(hc->path);
	free(hc);
}

const hc_check_t *health_conf_find(const health_conf_t *hc, enum hc_kind k)
{
	for (size_t i = 0; hc && i < hc->n; i++)
		if (hc->checks[i].kind == k)
			return &hc->checks[i];
	return NULL;
}

char *health_conf_path(const conf_t *conf)
{
	const char *e = getenv("SLUICE_HEALTH_CONF");
	if (e && *e)
		return xstrdup(e);
	if (conf && conf->dir)
		return xasprintf("%s/health.conf", conf->dir);
	return xstrdup("health.conf");
}

char *health_key_path(const conf_t *conf, const health_conf_t *hc)
{
	const hc_check_t *c = health_conf_find(hc, HC_AUTHKEY);
	if (c && c->key_path)
		return xstrdup(c->key_path);
	if (conf && conf->auth_type && !strcmp(conf->auth_type, "auth/slurm")) {
		/* AuthInfo=key=PATH[,...] as auth.c reads it */
		const char *ai = conf->auth_info;
		for (const char *p = ai; p && *p;) {
			size_t len = strcspn(p, ",");
			if (len > 4 && !strncmp(p, "key=", 4))
				return xstrndup(p + 4, len - 4);
			p += len + (p[len] ? 1 : 0);
		}
		return xasprintf("%s/slurm.key", conf->dir ? conf->dir : ".");
	}
	return xstrdup("/etc/munge/munge.key");
}

int health_key_digest(const char *path, char out[65])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		strcpy(out, "unreadable");
		return -1;
	}
	/* Keys are small (munge.key 1 KiB, slurm.key 32 bytes): cap at 64 KiB. */
	enum { KEY_CAP = 65536 };
	uint8_t *buf = xmalloc(KEY_CAP);
	size_t len = 0;
	ssize_t r = 0;
	while (len < KEY_CAP && (r = read(fd, buf + len, KEY_CAP - len)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)r;
	}
	int bad = r < 0;
	close(fd);
	if (bad) {
		explicit_bzero(buf, KEY_CAP);
		free(buf);
		strcpy(out, "unreadable");
		return -1;
	}
	uint8_t d[32];
	digest_sha256(buf, len, d);
	explicit_bzero(buf, KEY_CAP);
	free(buf);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
	return 0;
}

void health_nccl_settings(const health_conf_t *hc, hc_check_t *out)
{
	const hc_check_t *c = hc ? health_conf_find(hc, HC_NCCL) : NULL;
	hc_check_t d;
	memset(&d, 0, sizeof(d));
	check_defaults(&d);
	if (!c)
		c = &d;
	memset(out, 0, sizeof(*out));
	out->kind = HC_NCCL;
	out->line = c->line;
	out->nccl_log = c->nccl_log;
	out->nccl_counters = c->nccl_counters;
	out->nccl_interval = c->nccl_interval;
	out->nccl_window = c->nccl_window;
	out->nccl_min_rate = c->nccl_min_rate;
	check_free(&d);
}
