/*
 * pmi2_wire: see pmi2_wire.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmi2_wire.h"
#include "xalloc.h"

static void cmd_push(pmi_cmd_t *c, char *k, char *v, size_t *cap)
{
	if (c->n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		c->key = xrealloc(c->key, *cap * sizeof(*c->key));
		c->val = xrealloc(c->val, *cap * sizeof(*c->val));
	}
	c->key[c->n] = k;
	c->val[c->n++] = v;
}

/* PMI-1: blank separated key=value words over the lines in buf (NULs
 * in the text are no command). */
static int parse_v1(pmi_cmd_t *c)
{
	size_t cap = 0;
	char *p = c->buf;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		char *w = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
		if (!strcmp(w, "endcmd"))
			continue;       /* closes a multi-line command */
		char *eq = strchr(w, '=');
		if (!eq || eq == w)
			return -1;
		*eq = '\0';
		cmd_push(c, w, eq + 1, &cap);
	}
	return c->n ? 0 : -1;
}

/* PMI-2: key=value; pairs, ";;" a ';' of the value. */
static int parse_v2(pmi_cmd_t *c, size_t len)
{
	size_t cap = 0;
	char *p = c->buf, *end = c->buf + len;
	while (p < end) {
		char *k = p;
		while (p < end && *p != '=' && *p != ';')
			p++;
		if (p == end || *p != '=' || p == k)
			return -1;
		*p++ = '\0';
		char *v = p, *o = p;
		for (;;) {
			if (p == end)
				break;
			if (*p == ';') {
				if (p + 1 < end && p[1] == ';') {
					*o++ = ';';
					p += 2;
					continue;
				}
				p++;
				break;
			}
			*o++ = *p++;
		}
		*o = '\0';   /* o < p or o == end: buf has one byte past len */
		cmd_push(c, k, v, &cap);
	}
	return c->n ? 0 : -1;
}

ssize_t pmi_wire_take(const char *in, size_t len, int v2, pmi_cmd_t *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	size_t body = 0, blen = 0, took = 0;
	if (v2) {
		if (len < 6)
			return 0;
		size_t n = 0;
		int digits = 0;
		for (int i = 0; i < 6; i++) {
			if (in[i] == ' ' && !digits)
				continue;
			if (in[i] < '0' || in[i] > '9')
				return -1;
			n = n * 10 + (size_t)(in[i] - '0');
			digits++;
		}
		if (!digits || !n || n > PMI_CMD_MAX)
			return -1;
		if (len - 6 < n)
			return 0;
		body = 6, blen = n, took = 6 + n;
	} else {
		/* a line; "mcmd=" lines run to the one that is "endcmd" */
		const char *nl = memchr(in, '\n', len < PMI_CMD_MAX ? len : PMI_CMD_MAX);
		if (!nl)
			return len >= PMI_CMD_MAX ? -1 : 0;
		took = (size_t)(nl - in) + 1;
		if (len >= 5 && !memcmp(in, "mcmd=", 5)) {
			for (;;) {
				const char *line = in + took;
				size_t left = len - took, lim = PMI_CMD_MAX - took;
				const char *e = memchr(line, '\n', left < lim ? left : lim);
				if (!e)
					return left >= lim ? -1 : 0;
				took += (size_t)(e - line) + 1;
				if (e - line == 6 && !memcmp(line, "endcmd", 6))
					break;
			}
		}
		blen = took;
	}
	if (memchr(in + body, '\0', blen))
		return -1;
	cmd->buf = xmalloc(blen + 1);
	memcpy(cmd->buf, in + body, blen);
	cmd->buf[blen] = '\0';
	if ((v2 ? parse_v2(cmd, blen) : parse_v1(cmd)) < 0) {
		pmi_cmd_free(cmd);
		return -1;
	}
	return (ssize_t)took;
}

const char *pmi_cmd_get(const pmi_cmd_t *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->key[i], key))
			return c->val[i];
	return NULL;
}

const char *pmi_cmd_name(const pmi_cmd_t *c)
{
	const char *n = pmi_cmd_get(c, "cmd");
	if (!n)
		n = pmi_cmd_get(c, "mcmd");
	return n ? n : "";
}

void pmi_cmd_free(pmi_cmd_t *c)
{
	free(c->buf);
	free(c->key);
	free(c->val);
	memset(c, 0, sizeof(*c));
}

size_t pmi_v2_begin(strbuf_t *out)
{
	size_t start = out->len;
	strbuf_add(out, "      ", 6);
	return start;
}

void pmi_v2_add(strbuf_t *out, const char *key, const char *val)
{
	strbuf_addstr(out, key);
	strbuf_addch(out, '=');
	for (const char *p = val; *p; p++) {
		if (*p == ';')
			strbuf_addch(out, ';');
		strbuf_addch(out, *p);
	}
	strbuf_addch(out, ';');
}

void pmi_v2_end(strbuf_t *out, size_t start)
{
	char hdr[8];
	size_t n = out->len - start - 6;
	snprintf(hdr, sizeof(hdr), "%6zu", n > 999999 ? (size_t)999999 : n);
	memcpy(out->buf + start, hdr, 6);
}

static void put32(strbuf_t *out, uint32_t v)
{
	unsigned char b[4] = { (unsigned char)v, (unsigned char)(v >> 8),
			       (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
	strbuf_add(out, b, 4);
}

void pmi_kvs_pack(strbuf_t *out, const char *key, const char *val)
{
	size_t kl = strlen(key), vl = strlen(val);
	put32(out, (uint32_t)kl);
	strbuf_add(out, key, kl);
	put32(out, (uint32_t)vl);
	strbuf_add(out, val, vl);
}

static int take_str(const unsigned char **p, const unsigned char *end, char **out)
{
	if (end - *p < 4)
		return -1;
	uint32_t n = (uint32_t)(*p)[0] | (uint32_t)(*p)[1] << 8 | (uint32_t)(*p)[2] << 16 |
		     (uint32_t)(*p)[3] << 24;
	*p += 4;
	if ((size_t)(end - *p) < n || memchr(*p, '\0', n))
		return -1;
	*out = xstrndup((const char *)*p, n);
	*p += n;
	return 0;
}

int pmi_kvs_unpack(const void *data, size_t len,
		   void (*fn)(void *arg, const char *key, const char *val), void *arg)
{
	if (!len)
		return 0;
	const unsigned char *p = data, *end = p + len;
	while (p < end) {
		char *k = NULL, *v = NULL;
		if (take_str(&p, end, &k) < 0 || take_str(&p, end, &v) < 0) {
			free(k);
			return -1;
		}
		fn(arg, k, v);
		free(k);
		free(v);
	}
	return 0;
}

int pmi_counts_parse(const char *s, uint32_t *counts, uint32_t n)
{
	uint32_t i = 0;
	const char *p = s;
	while (p && *p) {
		char *end;
		unsigned long c = strtoul(p, &end, 10), rep = 1;
		if (end == p || c > 0xffffffffUL)
			return -1;
		p = end;
		if (!strncmp(p, "(x", 2)) {
			rep = strtoul(p + 2, &end, 10);
			if (end == p + 2 || *end != ')' || !rep)
				return -1;
			p = end + 1;
		}
		if (rep > n - i)
			return -1;
		for (unsigned long k = 0; k < rep; k++)
			counts[i++] = (uint32_t)c;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return i == n ? 0 : -1;
}

char *pmi_process_mapping(const uint32_t *counts, uint32_t n)
{
	strbuf_t sb = STRBUF_INIT;
	strbuf_addstr(&sb, "(vector");
	for (uint32_t i = 0; i < n;) {
		uint32_t k = i + 1;
		while (k < n && counts[k] == counts[i])
			k++;
		strbuf_addf(&sb, ",(%u,%u,%u)", i, k - i, counts[i]);
		i = k;
	}
	strbuf_addch(&sb, ')');
	return strbuf_detach(&sb);
}
