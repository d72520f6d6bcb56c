/*
 * swf.c: the SWF v2 parser (swf.h), and reading a trace file through
 * zlib, which passes plain files through unchanged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "sim/swf.h"
#include "xalloc.h"

/* One number: -1 for unknown, else a non-negative integer with an
 * optional fraction (truncated). Advances *p past it. */
static int field(const char **p, const char *end, int64_t *v)
{
	const char *s = *p;
	int neg = 0;
	if (s < end && *s == '-') {
		neg = 1;
		s++;
	}
	if (s >= end || *s < '0' || *s > '9')
		return -1;
	int64_t x = 0;
	while (s < end && *s >= '0' && *s <= '9') {
		if (x > (INT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (*s++ - '0');
	}
	if (s < end && *s == '.') {
		s++;
		while (s < end && *s >= '0' && *s <= '9')
			s++;
	}
	if (s < end && *s != ' ' && *s != '\t' && *s != '\r')
		return -1;
	if (neg && x != 1)
		return -1;           /* the only negative SWF value is -1 */
	*v = neg ? -1 : x;
	*p = s;
	return 0;
}

static void header(swf_t *t, const char *s, const char *end)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "MaxNodes:", offsetof(swf_t, max_nodes) },
		{ "MaxProcs:", offsetof(swf_t, max_procs) },
	};
	s++;                         /* ';' */
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		size_t kl = strlen(keys[k].key);
		if ((size_t)(end - s) < kl || memcmp(s, keys[k].key, kl))
			continue;
		const char *v = s + kl;
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		int64_t x;
		if (field(&v, end, &x) == 0 && x > 0)
			*(int64_t *)((char *)t + keys[k].off) = x;
	}
}

int swf_parse(const char *text, size_t len, swf_t *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->max_nodes = out->max_procs = -1;
	size_t cap = 0;
	const char *p = text, *end = text + len;
	uint32_t line = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		line++;
		const char *s = p;
		p = nl ? nl + 1 : end;
		while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		if (s == le)
			continue;
		if (*s == ';') {
			header(out, s, le);
			continue;
		}
		int64_t f[SWF_FIELDS];
		int nf = 0;
		while (s < le) {
			if (nf == SWF_FIELDS) {
				snprintf(err, errlen, "line %u: more than %d fields", line, SWF_FIELDS);
				return -1;
			}
			if (field(&s, le, &f[nf])) {
				snprintf(err, errlen, "line %u: field %d is not a number or -1", line, nf + 1);
				return -1;
			}
			nf++;
			while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
				s++;
		}
		if (nf != SWF_FIELDS) {
			snprintf(err, errlen, "line %u: %d fields, SWF has %d", line, nf, SWF_FIELDS);
			return -1;
		}
		if (f[1] < 0) {
			snprintf(err, errlen, "line %u: no submit time", line);
			return -1;
		}
		out->jobs = xgrow(out->jobs, sizeof(swf_job_t), out->n + 1, &cap);
		out->jobs[out->n++] = (swf_job_t){
			.id = f[0], .submit = f[1], .wait = f[2], .run = f[3],
			.alloc_procs = f[4], .req_procs = f[7], .req_time = f[8],
			.req_mem = f[9], .status = f[10], .user = f[11], .group = f[12],
			.queue = f[14], .partition = f[15], .line = line,
		};
	}
	return 0;
}

int swf_load(const char *path, swf_t *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	gzFile gz = gzopen(path, "rb");
	if (!gz) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : ENOMEM));
		return -1;
	}
	size_t len = 0, cap = 0;
	char *buf = NULL;
	for (;;) {
		buf = xgrow(buf, 1, len + 65536, &cap);
		int r = gzread(gz, buf + len, 65536);
		if (r < 0) {
			int zerr;
			snprintf(err, errlen, "%s: %s", path, gzerror(gz, &zerr));
			gzclose(gz);
			free(buf);
			return -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	gzclose(gz);
	char inner[256];
	int rc = swf_parse(buf, len, out, inner, sizeof(inner));
	if (rc)
		snprintf(err, errlen, "%s: %s", path, inner);
	free(buf);
	return rc;
}

void swf_free(swf_t *t)
{
	free(t->jobs);
	memset(t, 0, sizeof(*t));
	t->max_nodes = t->max_procs = -1;
}
