/*
 * multiprog: srun --multi-prog configuration files. See multiprog.h.
 *
 * The text is parsed line by line each time it is asked (srun once, a
 * node once per task): a configuration has a line per task set, so the
 * cost is lines x tasks on the node, and a config is at most a few
 * hundred lines in practice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multiprog.h"
#include "strbuf.h"
#include "xalloc.h"

/* Split text into logical lines (backslash-newline continues). */
static void split_lines(const char *text, strv_t *out)
{
	strbuf_t sb = STRBUF_INIT;
	for (const char *p = text; ; p++) {
		if (*p == '\\' && p[1] == '\n') {
			p++;
			strbuf_addch(&sb, ' ');
			continue;
		}
		if (*p == '\n' || !*p) {
			strv_push(out, sb.buf ? sb.buf : "");
			strbuf_setlen(&sb, 0);
			if (!*p)
				break;
			continue;
		}
		strbuf_addch(&sb, *p);
	}
	strbuf_release(&sb);
}

/* Words of a line: blanks separate, single quotes group, '#' at the
 * start of a word ends the line. */
static void split_words(const char *line, strv_t *out)
{
	const char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			return;
		strbuf_t w = STRBUF_INIT;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r') {
			if (*p == '\'') {
				const char *q = strchr(p + 1, '\'');
				if (!q)
					q = p + strlen(p);
				strbuf_add(&w, p + 1, (size_t)(q - p - 1));
				p = *q ? q + 1 : q;
				continue;
			}
			strbuf_addch(&w, *p++);
		}
		strv_push(out, w.buf ? w.buf : "");
		strbuf_release(&w);
	}
}

/* Does rank list spec name rank? *offset: its position within the list.
 * -1 if spec is not a rank list (*bad: the offending part). */
static int ranks_match(const char *spec, uint32_t rank, uint32_t *offset, char **bad)
{
	if (!strcmp(spec, "*")) {
		*offset = rank;
		return 1;
	}
	uint32_t pos = 0;
	int hit = 0;
	char *copy = xstrdup(spec), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *e;
		unsigned long lo = strtoul(t, &e, 10), hi = lo;
		if (e == t)
			goto bad;
		if (*e == '-') {
			char *s = e + 1;
			hi = strtoul(s, &e, 10);
			if (e == s || hi < lo)
				goto bad;
		}
		if (*e || hi > 0x7fffffffUL)
			goto bad;
		if (!hit && rank >= lo && rank <= hi) {
			*offset = pos + (uint32_t)(rank - lo);
			hit = 1;
		}
		pos += (uint32_t)(hi - lo + 1);
	}
	free(copy);
	return hit;
bad:
	if (bad)
		*bad = xstrdup(spec);
	free(copy);
	return -1;
}

/* Largest rank a list names (for the "Invalid task id" check). */
static uint32_t ranks_max(const char *spec)
{
	uint32_t mx = 0;
	char *copy = xstrdup(spec), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const char *d = strchr(t, '-');
		unsigned long v = strtoul(d ? d + 1 : t, NULL, 10);
		if (v > mx)
			mx = (uint32_t)v;
	}
	free(copy);
	return mx;
}

int multiprog_check(const char *text, const char *fname, uint32_t ntasks, char **err)
{
	strv_t lines = { 0 };
	split_lines(text ? text : "", &lines);
	uint8_t *seen = xcalloc(ntasks ? ntasks : 1, 1);
	strbuf_t eb = STRBUF_INIT;
	int rc = 0;
	for (uint32_t l = 0; l < lines.n && !rc; l++) {
		strv_t w = { 0 };
		split_words(lines.v[l], &w);
		if (!w.n) {
			strv_free(&w);
			continue;
		}
		char *bad = NULL;
		if (w.n < 2) {
			rc = -1;
		} else if (!strcmp(w.v[0], "*")) {
			for (uint32_t t = 0; t < ntasks; t++)
				seen[t] = 1;
		} else {
			uint32_t off;
			if (ranks_match(w.v[0], 0, &off, &bad) < 0) {
				strbuf_addf(&eb, "Invalid task range specification (%s)\n", bad);
				rc = -1;
			} else if (ranks_max(w.v[0]) >= ntasks) {
				strbuf_addf(&eb, "Invalid task id, %u >= ntasks\n", ranks_max(w.v[0]));
				rc = -1;
			}
			for (uint32_t t = 0; !rc && t < ntasks; t++) {
				if (ranks_match(w.v[0], t, &off, NULL) != 1)
					continue;
				if (seen[t]) {
					strbuf_addf(&eb, "Duplicate record for task %u\n", t);
					rc = -1;
				}
				seen[t] = 1;
			}
		}
		if (rc)
			strbuf_addf(&eb, "Line %u of configuration file %s invalid", l + 1, fname);
		free(bad);
		strv_free(&w);
	}
	for (uint32_t t = 0; !rc && t < ntasks; t++)
		if (!seen[t]) {
			strbuf_addf(&eb, "Configuration file %s invalid, no record for task id %u",
				    fname, t);
			rc = -1;
		}
	free(seen);
	strv_free(&lines);
	if (rc && err)
		*err = strbuf_detach(&eb);
	strbuf_release(&eb);
	return rc;
}

/* An argument with %t and %o replaced. */
static char *subst(const char *arg, uint32_t rank, uint32_t offset)
{
	strbuf_t sb = STRBUF_INIT;
	for (const char *p = arg; *p; p++) {
		if (*p == '%' && p[1] == 't') {
			strbuf_addf(&sb, "%u", rank);
			p++;
		} else if (*p == '%' && p[1] == 'o') {
			strbuf_addf(&sb, "%u", offset);
			p++;
		} else {
			strbuf_addch(&sb, *p);
		}
	}
	return sb.buf ? strbuf_detach(&sb) : xstrdup("");
}

int multiprog_argv(const char *text, uint32_t rank, strv_t *argv)
{
	strv_t lines = { 0 };
	split_lines(text ? text : "", &lines);
	int rc = -1;
	for (uint32_t l = 0; l < lines.n && rc; l++) {
		strv_t w = { 0 };
		uint32_t off = 0;
		split_words(lines.v[l], &w);
		if (w.n >= 2 && ranks_match(w.v[0], rank, &off, NULL) == 1) {
			for (uint32_t k = 1; k < w.n; k++) {
				char *a = subst(w.v[k], rank, off);
				strv_push(argv, a);
				free(a);
			}
			rc = 0;
		}
		strv_free(&w);
	}
	strv_free(&lines);
	return rc;
}
