/*
 * prom.c: the Prometheus text format (see prom.h). Values are written
 * with %.17g (integers exactly), +Inf/-Inf/NaN as the format spells them.
 */
#include "prom.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* A scrape writes millions of bytes: runs without special characters go
 * in one copy, numbers are formatted here rather than by printf. */
void prom_escape(strbuf_t *sb, const char *s)
{
	while (s && *s) {
		size_t n = strcspn(s, "\\\"\n");
		strbuf_add(sb, s, n);
		s += n;
		if (!*s)
			break;
		strbuf_add(sb, *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : "\\n", 2);
		s++;
	}
}

static void add_u64(strbuf_t *sb, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	strbuf_add(sb, p, (size_t)(buf + sizeof(buf) - p));
}

void prom_family(strbuf_t *sb, const char *name, const char *type, const char *help)
{
	strbuf_addf(sb, "# HELP %s ", name);
	for (const char *s = help; s && *s; s++) {
		if (*s == '\\')
			strbuf_add(sb, "\\\\", 2);
		else if (*s == '\n')
			strbuf_add(sb, "\\n", 2);
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addf(sb, "\n# TYPE %s %s\n", name, type);
}

static void labels(strbuf_t *sb, va_list ap, const char *le)
{
	const char *k = va_arg(ap, const char *);
	int any = 0;
	for (; k; k = va_arg(ap, const char *)) {
		const char *v = va_arg(ap, const char *);
		strbuf_addch(sb, any ? ',' : '{');
		strbuf_addstr(sb, k);
		strbuf_add(sb, "=\"", 2);
		prom_escape(sb, v);
		strbuf_addch(sb, '"');
		any = 1;
	}
	if (le) {
		strbuf_addstr(sb, any ? ",le=\"" : "{le=\"");
		strbuf_addstr(sb, le);
		strbuf_addch(sb, '"');
		any = 1;
	}
	if (any)
		strbuf_addch(sb, '}');
}

/* The shortest of %.15g and %.17g that reads back as v. */
static void fmt_double(char *buf, size_t n, double v)
{
	snprintf(buf, n, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, n, "%.17g", v);
}

static void value(strbuf_t *sb, double v)
{
	char buf[64];
	if (isnan(v))
		strbuf_addstr(sb, " NaN\n");
	else if (isinf(v))
		strbuf_addstr(sb, v > 0 ? " +Inf\n" : " -Inf\n");
	else if (v == (double)(int64_t)v && fabs(v) < 9007199254740992.0) {
		strbuf_addch(sb, ' ');
		if (v < 0)
			strbuf_addch(sb, '-');
		add_u64(sb, (uint64_t)fabs(v));
		strbuf_addch(sb, '\n');
	}
	else {
		fmt_double(buf, sizeof(buf), v);
		strbuf_addf(sb, " %s\n", buf);
	}
}

void prom_sample(strbuf_t *sb, const char *name, double v, ...)
{
	va_list ap;
	strbuf_addstr(sb, name);
	va_start(ap, v);
	labels(sb, ap, NULL);
	va_end(ap);
	value(sb, v);
}

void prom_sample_u(strbuf_t *sb, const char *name, uint64_t v, ...)
{
	va_list ap;
	strbuf_addstr(sb, name);
	va_start(ap, v);
	labels(sb, ap, NULL);
	va_end(ap);
	strbuf_addch(sb, ' ');
	add_u64(sb, v);
	strbuf_addch(sb, '\n');
}

void prom_sample_lbl(strbuf_t *sb, const char *name, const char *lbl, double v)
{
	strbuf_addstr(sb, name);
	strbuf_addstr(sb, lbl);
	value(sb, v);
}

void prom_labels(strbuf_t *sb, ...)
{
	va_list ap;
	va_start(ap, sb);
	labels(sb, ap, NULL);
	va_end(ap);
}

void prom_gauge(strbuf_t *sb, const char *name, const char *help, double v)
{
	prom_family(sb, name, "gauge", help);
	prom_sample(sb, name, v, NULL);
}

void prom_hist_init(prom_hist_t *h, const double *bounds, uint32_t nbounds)
{
	memset(h, 0, sizeof(*h));
	h->bounds = bounds;
	h->nbounds = nbounds;
	h->counts = xcalloc(nbounds + 1, sizeof(uint64_t));
}

void prom_hist_release(prom_hist_t *h)
{
	xfree(h->counts);
}

void prom_hist_observe(prom_hist_t *h, double v)
{
	if (!h->counts)           /* never set up (a daemon without metrics) */
		return;
	uint32_t i = 0;
	while (i < h->nbounds && v > h->bounds[i])
		i++;
	h->counts[i]++;
	h->count++;
	h->sum += v;
}

void prom_hist_write(strbuf_t *sb, const char *name, const prom_hist_t *h, ...)
{
	va_list ap;
	uint64_t cum = 0;
	char le[64];
	for (uint32_t i = 0; i <= h->nbounds; i++) {
		cum += h->counts[i];
		if (i < h->nbounds)
			fmt_double(le, sizeof(le), h->bounds[i]);
		else
			strcpy(le, "+Inf");
		strbuf_addstr(sb, name);
		strbuf_addstr(sb, "_bucket");
		va_start(ap, h);
		labels(sb, ap, le);
		va_end(ap);
		strbuf_addch(sb, ' ');
		add_u64(sb, cum);
		strbuf_addch(sb, '\n');
	}
	strbuf_addf(sb, "%s_sum", name);
	va_start(ap, h);
	labels(sb, ap, NULL);
	va_end(ap);
	value(sb, h->sum);
	strbuf_addf(sb, "%s_count", name);
	va_start(ap, h);
	labels(sb, ap, NULL);
	va_end(ap);
	strbuf_addf(sb, " %llu\n", (unsigned long long)h->count);
}
