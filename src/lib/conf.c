/*
 * conf: the slurm.conf reader (see conf.h for the contract).
 *
 * Reading is in two passes. The first pass reads slurm.conf and its
 * Includes line by line, checks every key against the tables of
 * conf_keys.c, keeps global keys as key=value records, and expands each
 * NodeName line into nodes at once (NodeName=DEFAULT values are those in
 * force at that line, as in Slurm). Partition, NodeSet and DownNodes lines
 * only refer to nodes, which may be declared later in the file, so they are
 * kept as records and resolved in the second pass, together with the typed
 * global fields, gres.conf, topology.conf and cgroup.conf (conf_extra.c).
 *
 * Errors never stop the reader: each is collected as "file:line: message"
 * so that `sluice check-config` can show them all at once.
 */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "conf_int.h"
#include "conf_keys.h"
#include "hostlist.h"
#include "log.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

#define INCLUDE_DEPTH_MAX 16

/* ---- small string -> index hash table (open addressing) ---- */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void strmap_release(struct strmap *m)
{
	xfree(m->keys);
	xfree(m->vals);
	m->cap = m->n = 0;
}

long strmap_get(const struct strmap *m, const char *key)
{
	if (!m->cap)
		return -1;
	size_t mask = m->cap - 1;
	for (size_t i = str_hash(key) & mask;; i = (i + 1) & mask) {
		if (!m->keys[i])
			return -1;
		if (!strcmp(m->keys[i], key))
			return (long)m->vals[i];
	}
}

/* Insert key (not copied: it must outlive the map). Returns the existing
 * value when the key is already there, else -1. */
long strmap_put(struct strmap *m, const char *key, size_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		const char **nk = xcalloc(ncap, sizeof(*nk));
		size_t *nv = xcalloc(ncap, sizeof(*nv));
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->keys[i])
				continue;
			size_t j = str_hash(m->keys[i]) & (ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = m->keys[i];
			nv[j] = m->vals[i];
		}
		free(m->keys);
		free(m->vals);
		m->keys = nk;
		m->vals = nv;
		m->cap = ncap;
	}
	size_t mask = m->cap - 1;
	size_t i = str_hash(key) & mask;
	for (; m->keys[i]; i = (i + 1) & mask)
		if (!strcmp(m->keys[i], key))
			return (long)m->vals[i];
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return -1;
}

/* ---- errors ---- */

void conf_err(conf_t *conf, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	strbuf_t sb = STRBUF_INIT;
	if (line > 0)
		strbuf_addf(&sb, "%s:%d: ", file, line);
	else
		strbuf_addf(&sb, "%s: ", file);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* Cap the list: a fuzzed or binary file must not make millions. */
	if (conf->nerrors >= 1000) {
		strbuf_release(&sb);
		return;
	}
	conf->errors = xrealloc(conf->errors, (conf->nerrors + 1) * sizeof(char *));
	conf->errors[conf->nerrors++] = strbuf_detach(&sb);
}

void conf_note_unsupported(conf_t *conf, const char *key)
{
	for (size_t i = 0; i < conf->nunsupported; i++)
		if (!strcasecmp(conf->unsupported[i], key))
			return;
	conf->unsupported = xrealloc(conf->unsupported, (conf->nunsupported + 1) * sizeof(char *));
	conf->unsupported[conf->nunsupported++] = xstrdup(key);
}

const char *conf_intern_path(struct conf_priv *p, const char *path)
{
	for (size_t i = 0; i < p->nfiles; i++)
		if (!strcmp(p->files[i], path))
			return p->files[i];
	p->files = xrealloc(p->files, (p->nfiles + 1) * sizeof(char *));
	p->files[p->nfiles] = xstrdup(path);
	return p->files[p->nfiles++];
}

/* ---- lexing ---- */

int conf_read_file(const char *path, strbuf_t *sb)
{
	FILE *fp = fopen(path, "re");
	if (!fp)
		return -1;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		strbuf_add(sb, buf, n);
	int err = ferror(fp);
	fclose(fp);
	if (err) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* Next logical line from *pos: joins lines ending in '\', drops comments
 * ('#' outside quotes; "\#" is a literal '#'). Returns 0 at end of text.
 * *lineno is advanced; *start_line gets the first physical line. */
int conf_next_line(const char **pos, const char *end, int *lineno, int *start_line, strbuf_t *out)
{
	const char *p = *pos;
	if (p >= end)
		return 0;
	strbuf_reset(out);
	*start_line = *lineno + 1;
	for (;;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		(*lineno)++;
		int inq = 0;
		size_t base = out->len;
		for (const char *q = p; q < le; q++) {
			char c = *q;
			if (c == '\r' && q + 1 == le)
				break;
			if (c == '\0')
				c = ' ';
			if (c == '\\' && q + 1 < le && q[1] == '#') {
				strbuf_addch(out, '#');
				q++;
				continue;
			}
			if (c == '"')
				inq = !inq;
			if (c == '#' && !inq)
				break;
			strbuf_addch(out, c);
		}
		/* Trailing whitespace, then a continuation backslash. */
		while (out->len > base && isspace((unsigned char)out->buf[out->len - 1]))
			strbuf_setlen(out, out->len - 1);
		p = nl ? nl + 1 : end;
		if (out->len > base && out->buf[out->len - 1] == '\\' && p < end) {
			strbuf_setlen(out, out->len - 1);
			strbuf_addch(out, ' ');
			continue;
		}
		if (out->len > base && out->buf[out->len - 1] == '\\')
			strbuf_setlen(out, out->len - 1);
		break;
	}
	*pos = p;
	return 1;
}

void conf_pairs_release(struct conf_pairs *kp)
{
	for (size_t i = 0; i < kp->n; i++) {
		free(kp->key[i]);
		free(kp->val[i]);
	}
	kp->n = 0;
}

void conf_pairs_free(struct conf_pairs *kp)
{
	conf_pairs_release(kp);
	xfree(kp->key);
	xfree(kp->val);
	kp->alloc = 0;
}

/* Split a logical line into key=value pairs. Values may be quoted ("a b");
 * whitespace around '=' is allowed. Returns 0, or -1 with *bad set to the
 * offending word (malloc'd). */
int conf_split_pairs(const char *s, struct conf_pairs *kp, char **bad)
{
	conf_pairs_release(kp);
	*bad = NULL;
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return 0;
		const char *k = s;
		while (*s && *s != '=' && !isspace((unsigned char)*s))
			s++;
		size_t klen = (size_t)(s - k);
		const char *t = s;
		while (isspace((unsigned char)*t))
			t++;
		if (*t != '=' || klen == 0) {
			const char *w = k;
			while (*w && !isspace((unsigned char)*w))
				w++;
			*bad = xstrndup(k, (size_t)(w - k) ? (size_t)(w - k) : 1);
			return -1;
		}
		s = t + 1;
		/* "Key = Value" is allowed, but in "Gres= Feature=x" the value
		 * is empty: the next word is a pair of its own. */
		t = s;
		while (*t == ' ' || *t == '\t')
			t++;
		if (t != s) {
			const char *w = t;
			while (*w && !isspace((unsigned char)*w) && *w != '=')
				w++;
			if (*t && *w != '=')
				s = t;
		}
		strbuf_t v = STRBUF_INIT;
		if (*s == '"') {
			const char *q = strchr(s + 1, '"');
			if (!q) {
				*bad = xstrndup(k, klen);
				strbuf_release(&v);
				return -2;
			}
			strbuf_add(&v, s + 1, (size_t)(q - s - 1));
			s = q + 1;
		} else {
			const char *vs = s;
			while (*s && !isspace((unsigned char)*s)) {
				/* Quotes inside a value (Reason="a b" after x=) keep spaces. */
				if (*s == '"') {
					const char *q = strchr(s + 1, '"');
					if (q) {
						strbuf_add(&v, vs, (size_t)(s - vs));
						strbuf_add(&v, s + 1, (size_t)(q - s - 1));
						s = vs = q + 1;
						continue;
					}
				}
				s++;
			}
			strbuf_add(&v, vs, (size_t)(s - vs));
		}
		kp->key = xgrow(kp->key, sizeof(char *), kp->n + 1, &kp->alloc);
		size_t a2 = kp->alloc;
		kp->val = xrealloc(kp->val, a2 * sizeof(char *));
		kp->key[kp->n] = xstrndup(k, klen);
		kp->val[kp->n] = strbuf_detach(&v);
		kp->n++;
	}
}

/* Check key against tab. Returns its definition or NULL (error reported).
 * Notes keys Sluice does not act on. */
const struct conf_keydef *conf_check_key(conf_t *conf, const struct conf_keytab *tab,
					 const char *file, int line, const char *key, const char *val)
{
	const struct conf_keydef *def = conf_key_lookup(tab, key);
	if (!def) {
		const char *sug = conf_key_suggest(tab, key);
		/* A node or partition option written as a line of its own. */
		if (!sug && tab == &conf_global_tab)
			sug = conf_key_suggest(&conf_part_tab, key);
		if (!sug && tab == &conf_global_tab)
			sug = conf_key_suggest(&conf_node_tab, key);
		if (sug)
			conf_err(conf, file, line, "unknown %s '%s'; did you mean '%s'?", tab->what, key, sug);
		else
			conf_err(conf, file, line, "unknown %s '%s'", tab->what, key);
		return NULL;
	}
	const char *want = conf_key_check(def, val);
	if (want) {
		if (def->type == CV_ENUM || def->type == CV_LIST) {
			strbuf_t sb = STRBUF_INIT;
			for (const char *c = want; *c; c++) {
				if (*c == '|')
					strbuf_addstr(&sb, ", ");
				else
					strbuf_addch(&sb, *c);
			}
			conf_err(conf, file, line, "bad value '%s' for '%s': expected %s%s", val, def->name,
				 def->type == CV_LIST ? "a comma list of " : "one of ", sb.buf);
			strbuf_release(&sb);
		} else {
			conf_err(conf, file, line, "bad value '%s' for '%s': expected %s", val, def->name, want);
		}
		return NULL;
	}
	/* "jobcomp/none" and the like ask for nothing, so need no note. */
	size_t vl = strlen(val);
	int is_none = !strcasecmp(val, "none") || (vl >= 5 && !strcasecmp(val + vl - 5, "/none"));
	if (!(def->flags & CK_ACTED) && !is_none)
		conf_note_unsupported(conf, def->name);
	return def;
}

/* ---- records of lines resolved later ---- */

static char **vals_new(const struct conf_keytab *tab)
{
	return xcalloc(tab->nkeys, sizeof(char *));
}

static void vals_free(const struct conf_keytab *tab, char **vals)
{
	if (!vals)
		return;
	for (size_t i = 0; i < tab->nkeys; i++)
		free(vals[i]);
	free(vals);
}

static char **vals_copy(const struct conf_keytab *tab, char *const *src)
{
	char **v = vals_new(tab);
	for (size_t i = 0; i < tab->nkeys; i++)
		v[i] = src ? xstrdup(src[i]) : NULL;
	return v;
}

static size_t key_index(const struct conf_keytab *tab, const struct conf_keydef *def)
{
	return (size_t)(def - tab->keys);
}

static const char *vget(const struct conf_keytab *tab, char *const *vals, const char *key)
{
	const struct conf_keydef *def = conf_key_lookup(tab, key);
	return def ? vals[key_index(tab, def)] : NULL;
}

/* Parse the pairs of a NodeName/PartitionName/... line into vals (on top
 * of what is there). Returns the number of bad keys. */
static int line_vals(conf_t *conf, const struct conf_keytab *tab, const char *file, int line,
		     const struct conf_pairs *kp, char **vals)
{
	int bad = 0;
	for (size_t i = 0; i < kp->n; i++) {
		const struct conf_keydef *def = conf_check_key(conf, tab, file, line, kp->key[i], kp->val[i]);
		if (!def) {
			bad++;
			continue;
		}
		size_t k = key_index(tab, def);
		free(vals[k]);
		vals[k] = xstrdup(kp->val[i]);
	}
	return bad;
}

static void rec_add(struct conf_recs *r, const char *file, int line, char **vals)
{
	r->v = xgrow(r->v, sizeof(*r->v), r->n + 1, &r->alloc);
	r->v[r->n].file = file;
	r->v[r->n].line = line;
	r->v[r->n].vals = vals;
	r->n++;
}

/* ---- nodes ---- */

static uint32_t getu(const struct conf_keytab *tab, char *const *vals, const char *key, uint32_t def)
{
	const char *s = vget(tab, vals, key);
	uint64_t v;
	if (!s || conf_parse_uint(s, UINT32_MAX, &v))
		return def;
	return (uint32_t)v;
}

/* Port= may be one number or a list/range ("[16901-16932]", "1-4"),
 * expanded in parallel with the names. */
static int node_ports(const char *s, size_t count, uint16_t **ports, char **err)
{
	uint64_t v;
	*ports = NULL;
	if (!conf_parse_uint(s, 65535, &v)) {
		*ports = xmalloc(count * sizeof(uint16_t));
		for (size_t i = 0; i < count; i++)
			(*ports)[i] = (uint16_t)v;
		return 0;
	}
	/* Reuse the hostlist grammar: "p[1-4]" style with an empty prefix. */
	char *expr = s[0] == '[' ? xstrdup(s) : xasprintf("[%s]", s);
	hostlist_t *hl = hostlist_create(expr, NULL);
	free(expr);
	if (!hl || hostlist_count(hl) != count) {
		*err = hl ? xasprintf("Port count (%zu) does not match NodeName count (%zu)", hostlist_count(hl), count)
			  : xasprintf("bad value '%s' for 'Port': expected a port number or range", s);
		hostlist_destroy(hl);
		return -1;
	}
	*ports = xmalloc(count * sizeof(uint16_t));
	for (size_t i = 0; i < count; i++) {
		if (conf_parse_uint(hostlist_nth(hl, i), 65535, &v)) {
			*err = xasprintf("bad value '%s' for 'Port': expected a port number or range", s);
			xfree(*ports);
			hostlist_destroy(hl);
			return -1;
		}
		(*ports)[i] = (uint16_t)v;
	}
	hostlist_destroy(hl);
	return 0;
}

/* Parse "gpu:h100:8,gpu:a100:2,mps:100" into g. Returns 0 or -1 (*err). */
int conf_parse_gres(const char *s, conf_gres_t **g, size_t *ng, char **err)
{
	*g = NULL;
	*ng = 0;
	if (!*s || !strcasecmp(s, "(null)"))
		return 0;
	char *dup = xstrdup(s), *save = NULL;
	for (char *item = strtok_r(dup, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *f[4];
		int nf = 0;
		char *save2 = NULL;
		for (char *t = strtok_r(item, ":", &save2); t; t = strtok_r(NULL, ":", &save2)) {
			if (nf == 4)
				goto bad;
			f[nf++] = t;
		}
		if (nf == 0)
			goto bad;
		/* The last field is the count when it starts with a digit. */
		uint64_t count = 1;
		const char *type = NULL;
		int last = nf - 1;
		if (nf > 1 && isdigit((unsigned char)f[last][0])) {
			char *c = f[last];
			size_t l = strlen(c);
			uint64_t mult = 1;
			switch (toupper((unsigned char)c[l - 1])) {
			case 'K': mult = 1024; c[--l] = '\0'; break;
			case 'M': mult = 1024 * 1024; c[--l] = '\0'; break;
			case 'G': mult = 1024ull * 1024 * 1024; c[--l] = '\0'; break;
			default: break;
			}
			if (conf_parse_uint(c, UINT32_MAX, &count) || count * mult > UINT32_MAX)
				goto bad;
			count *= mult;
			last--;
		}
		for (int i = 1; i <= last; i++) {
			if (!strcasecmp(f[i], "no_consume"))
				continue;
			if (type)
				goto bad;
			type = f[i];
		}
		for (const char *c = f[0]; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '_' && *c != '/')
				goto bad;
		*g = xrealloc(*g, (*ng + 1) * sizeof(**g));
		conf_gres_t *e = &(*g)[(*ng)++];
		memset(e, 0, sizeof(*e));
		e->name = xstrdup(f[0]);
		e->type = xstrdup(type);
		e->count = (uint32_t)count;
	}
	free(dup);
	return 0;
bad:
	free(dup);
	for (size_t i = 0; i < *ng; i++) {
		free((*g)[i].name);
		free((*g)[i].type);
	}
	xfree(*g);
	*ng = 0;
	*err = xasprintf("bad value '%s' for 'Gres': expected name[:type]:count[,...] (e.g. gpu:h100:8)", s);
	return -1;
}

static void node_release(conf_node_t *n)
{
	free(n->name);
	free(n->addr);
	free(n->hostname);
	free(n->features);
	free(n->state);
	free(n->reason);
	for (size_t i = 0; i < n->ngres; i++) {
		free(n->gres[i].name);
		free(n->gres[i].type);
		free(n->gres[i].file);
		free(n->gres[i].cores);
		for (size_t l = 0; l < n->gres[i].nlines; l++)
			free(n->gres[i].line_cores[l]);
		free(n->gres[i].line_cores);
		free(n->gres[i].line_count);
	}
	free(n->gres);
}

static void nodes_from_line(struct conf_priv *p, const char *file, int line, char **vals)
{
	conf_t *conf = &p->pub;
	const struct conf_keytab *T = &conf_node_tab;
	char *err = NULL;
	const char *names_s = vget(T, vals, "NodeName");
	hostlist_t *names = hostlist_create(names_s, &err), *addrs = NULL, *hosts = NULL;
	uint16_t *ports = NULL;
	conf_gres_t *gres = NULL;
	size_t ngres = 0;
	if (!names) {
		conf_err(conf, file, line, "bad NodeName '%s': %s", names_s, err ? err : "bad hostlist");
		goto out;
	}
	size_t count = hostlist_count(names);
	if (count == 0) {
		conf_err(conf, file, line, "empty NodeName");
		goto out;
	}
	const char *a = vget(T, vals, "NodeAddr"), *h = vget(T, vals, "NodeHostname");
	if (a) {
		addrs = hostlist_create(a, &err);
		if (!addrs || hostlist_count(addrs) != count) {
			if (addrs)
				conf_err(conf, file, line, "NodeAddr count (%zu) does not match NodeName count (%zu)",
					 hostlist_count(addrs), count);
			else
				conf_err(conf, file, line, "bad NodeAddr '%s': %s", a, err ? err : "bad hostlist");
			goto out;
		}
	}
	if (h) {
		hosts = hostlist_create(h, &err);
		if (!hosts || hostlist_count(hosts) != count) {
			if (hosts)
				conf_err(conf, file, line, "NodeHostname count (%zu) does not match NodeName count (%zu)",
					 hostlist_count(hosts), count);
			else
				conf_err(conf, file, line, "bad NodeHostname '%s': %s", h, err ? err : "bad hostlist");
			goto out;
		}
	}
	const char *port_s = vget(T, vals, "Port");
	if (port_s && node_ports(port_s, count, &ports, &err)) {
		conf_err(conf, file, line, "%s", err);
		goto out;
	}
	const char *gres_s = vget(T, vals, "Gres");
	if (gres_s && conf_parse_gres(gres_s, &gres, &ngres, &err)) {
		conf_err(conf, file, line, "%s", err);
		goto out;
	}

	/* Topology: Sockets= is the total, SocketsPerBoard= per board; with
	 * only CPUs= given Slurm takes each CPU as a socket. */
	uint32_t boards = getu(T, vals, "Boards", 1);
	const char *spb_s = vget(T, vals, "SocketsPerBoard"), *sock_s = vget(T, vals, "Sockets");
	const char *cps_s = vget(T, vals, "CoresPerSocket"), *tpc_s = vget(T, vals, "ThreadsPerCore");
	const char *cpus_s = vget(T, vals, "CPUs");
	if (!cpus_s)
		cpus_s = vget(T, vals, "Procs");
	uint32_t spb = 1;
	if (boards == 0)
		boards = 1;
	if (spb_s)
		spb = getu(T, vals, "SocketsPerBoard", 1);
	else if (sock_s)
		spb = getu(T, vals, "Sockets", 1) / boards;
	uint32_t cps = getu(T, vals, "CoresPerSocket", 1), tpc = getu(T, vals, "ThreadsPerCore", 1);
	if (!spb)
		spb = 1;
	if (!cps)
		cps = 1;
	if (!tpc)
		tpc = 1;
	uint64_t cpus;
	if (cpus_s) {
		cpus = getu(T, vals, cpus_s == vget(T, vals, "CPUs") ? "CPUs" : "Procs", 1);
		if (!spb_s && !sock_s && !cps_s && !tpc_s && !vget(T, vals, "Boards")) {
			spb = (uint32_t)(cpus > 65535 ? 65535 : cpus);
		}
	} else {
		cpus = (uint64_t)boards * spb * cps * tpc;
	}
	if (cpus > UINT32_MAX || boards > 65535 || spb > 65535 || cps > 65535 || tpc > 65535) {
		conf_err(conf, file, line, "node CPU count out of range");
		goto out;
	}
	uint64_t mem = 1, tmp = 0;
	const char *mem_s = vget(T, vals, "RealMemory"), *tmp_s = vget(T, vals, "TmpDisk");
	if (mem_s && conf_parse_mem(mem_s, &mem) == 0 && mem == UINT64_MAX)
		mem = 1;
	if (tmp_s && conf_parse_mem(tmp_s, &tmp) == 0 && tmp == UINT64_MAX)
		tmp = 0;
	const char *feat = vget(T, vals, "Features");
	if (!feat)
		feat = vget(T, vals, "Feature");
	const char *state = vget(T, vals, "State");
	const char *reason = vget(T, vals, "Reason");

	conf->nodes = xgrow(conf->nodes, sizeof(conf_node_t), conf->nnodes + count, &p->nodes_alloc);
	for (size_t i = 0; i < count; i++) {
		const char *name = hostlist_nth(names, i);
		long dup = strmap_get(&p->node_map, name);
		if (dup >= 0) {
			const conf_node_t *o = &conf->nodes[dup];
			conf_err(conf, file, line, "duplicate node '%s' (first declared at %s:%d)", name, o->file, o->line);
			continue;
		}
		conf_node_t *n = &conf->nodes[conf->nnodes];
		memset(n, 0, sizeof(*n));
		n->name = xstrdup(name);
		n->addr = xstrdup(addrs ? hostlist_nth(addrs, i) : name);
		n->hostname = xstrdup(hosts ? hostlist_nth(hosts, i) : name);
		n->port = ports ? ports[i] : 0;   /* 0: SlurmdPort, filled in later */
		n->cpus = (uint32_t)cpus;
		n->boards = (uint16_t)boards;
		n->sockets = (uint16_t)spb;
		n->cores_per_socket = (uint16_t)cps;
		n->threads_per_core = (uint16_t)tpc;
		n->real_memory = mem;
		n->tmp_disk = tmp;
		n->weight = getu(T, vals, "Weight", 1);
		n->features = xstrdup(feat);
		n->state = xstrdup(state ? state : "UNKNOWN");
		for (char *c = n->state; *c; c++)
			*c = (char)toupper((unsigned char)*c);
		n->reason = xstrdup(reason);
		if (ngres) {
			n->gres = xcalloc(ngres, sizeof(conf_gres_t));
			n->ngres = ngres;
			for (size_t g = 0; g < ngres; g++) {
				n->gres[g].name = xstrdup(gres[g].name);
				n->gres[g].type = xstrdup(gres[g].type);
				n->gres[g].count = gres[g].count;
			}
		}
		n->file = file;
		n->line = line;
		strmap_put(&p->node_map, n->name, conf->nnodes);
		conf->nnodes++;
	}
out:
	free(err);
	free(ports);
	for (size_t g = 0; g < ngres; g++) {
		free(gres[g].name);
		free(gres[g].type);
	}
	free(gres);
	hostlist_destroy(names);
	hostlist_destroy(addrs);
	hostlist_destroy(hosts);
}

/* ---- the first pass ---- */

static int starts_word(const char *s, const char *w)
{
	size_t l = strlen(w);
	return !strncasecmp(s, w, l) && (s[l] == '=' || isspace((unsigned char)s[l]));
}

static void read_slurm_conf(struct conf_priv *p, const char *path, int depth);

static void do_include(struct conf_priv *p, const char *file, int line, const char *arg, int depth)
{
	conf_t *conf = &p->pub;
	while (isspace((unsigned char)*arg))
		arg++;
	strbuf_t name = STRBUF_INIT;
	size_t alen = strlen(arg);
	if (alen >= 2 && arg[0] == '"' && arg[alen - 1] == '"') {
		arg++;
		alen -= 2;
	}
	/* %c: the cluster name known so far. */
	for (size_t i = 0; i < alen; i++) {
		if (arg[i] == '%' && i + 1 < alen && arg[i + 1] == 'c') {
			const char *cn = conf_get(conf, "ClusterName");
			strbuf_addstr(&name, cn ? cn : "");
			i++;
		} else {
			strbuf_addch(&name, arg[i]);
		}
	}
	if (!name.len) {
		conf_err(conf, file, line, "Include needs a file name");
		strbuf_release(&name);
		return;
	}
	if (depth >= INCLUDE_DEPTH_MAX) {
		conf_err(conf, file, line, "Include nested too deeply (recursive include of '%s'?)", name.buf);
		strbuf_release(&name);
		return;
	}
	char *full;
	const char *slash = strrchr(file, '/');
	if (name.buf[0] == '/' || !slash)
		full = xstrdup(name.buf);
	else
		full = xasprintf("%.*s%s", (int)(slash - file + 1), file, name.buf);
	glob_t g;
	int rc = glob(full, 0, NULL, &g);
	if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
		conf_err(conf, file, line, "Include: no file matches '%s'", full);
	} else if (rc != 0) {
		conf_err(conf, file, line, "Include: cannot expand '%s'", full);
	} else {
		for (size_t i = 0; i < g.gl_pathc; i++)
			read_slurm_conf(p, g.gl_pathv[i], depth + 1);
	}
	if (rc == 0 || rc == GLOB_NOMATCH)
		globfree(&g);
	free(full);
	strbuf_release(&name);
}

static void global_line(struct conf_priv *p, const char *file, int line, const struct conf_pairs *kp)
{
	conf_t *conf = &p->pub;
	for (size_t i = 0; i < kp->n; i++) {
		const struct conf_keydef *def = conf_check_key(conf, &conf_global_tab, file, line, kp->key[i], kp->val[i]);
		if (!def)
			continue;
		conf->kv = xgrow(conf->kv, sizeof(conf_kv_t), conf->nkv + 1, &p->kv_alloc);
		conf_kv_t *kv = &conf->kv[conf->nkv++];
		kv->key = def->name;
		kv->value = xstrdup(kp->val[i]);
		kv->file = file;
		kv->line = line;
	}
}

static void parse_line(struct conf_priv *p, const char *file, int line, const char *s, int depth)
{
	conf_t *conf = &p->pub;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return;
	if (!strncasecmp(s, "include", 7) && isspace((unsigned char)s[7])) {
		do_include(p, file, line, s + 8, depth);
		return;
	}
	const struct conf_keytab *tab = NULL;
	struct conf_recs *recs = NULL;
	char ***defaults = NULL;
	if (starts_word(s, "NodeName"))
		tab = &conf_node_tab, defaults = &p->node_def;
	else if (starts_word(s, "PartitionName"))
		tab = &conf_part_tab, recs = &p->parts, defaults = &p->part_def;
	else if (starts_word(s, "DownNodes"))
		tab = &conf_down_tab, recs = &p->downs;
	else if (starts_word(s, "NodeSet"))
		tab = &conf_nodeset_tab, recs = &p->nodesets;
	else if (starts_word(s, "FrontendName"))
		tab = &conf_frontend_tab;
	/* Commands need none of the node/partition lines. */
	if (tab && p->mode == CONF_CLIENT)
		return;

	char *bad = NULL;
	int rc = conf_split_pairs(s, &p->kp, &bad);
	if (rc == -2) {
		conf_err(conf, file, line, "unterminated quote in value of '%s'", bad);
		free(bad);
		return;
	}
	if (rc < 0) {
		conf_err(conf, file, line, "expected key=value, got '%s'", bad);
		free(bad);
		return;
	}
	if (!tab) {
		global_line(p, file, line, &p->kp);
		return;
	}
	if (tab == &conf_frontend_tab)
		conf_note_unsupported(conf, "FrontendName");
	const char *first = p->kp.val[0];
	int is_default = defaults && !strcasecmp(first, "DEFAULT");
	if (!*first) {
		conf_err(conf, file, line, "empty %s", tab->keys[0].name);
		return;
	}
	char **vals = vals_copy(tab, (defaults && *defaults) ? *defaults : NULL);
	line_vals(conf, tab, file, line, &p->kp, vals);
	if (is_default) {
		vals_free(tab, *defaults);
		/* The name itself is not a default. */
		xfree(vals[0]);
		*defaults = vals;
		return;
	}
	if (tab == &conf_node_tab) {
		nodes_from_line(p, file, line, vals);
		vals_free(tab, vals);
	} else if (recs) {
		rec_add(recs, file, line, vals);
	} else {
		vals_free(tab, vals);
	}
}

/* Client mode: skip a NodeName/PartitionName/... line (and its
 * continuations) without copying it, so that a 10,000-node slurm.conf
 * costs a command little more than a scan for newlines. */
static int skip_record_line(const char **pos, const char *end, int *lineno)
{
	static const char *const words[] = { "NodeName", "PartitionName", "DownNodes", "NodeSet", "FrontendName" };
	const char *s = *pos;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (end - s < 16)
		return 0;
	int hit = 0;
	for (size_t i = 0; i < ARRAY_SIZE(words) && !hit; i++)
		hit = starts_word(s, words[i]);
	if (!hit)
		return 0;
	for (;;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		(*lineno)++;
		if (!nl) {
			*pos = end;
			return 1;
		}
		const char *e = nl;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		s = nl + 1;
		/* A comment ending in '\' does not continue; rare enough to ignore. */
		if (e == nl || e[-1] != '\\' || s >= end)
			break;
	}
	*pos = s;
	return 1;
}

static void read_slurm_conf(struct conf_priv *p, const char *path, int depth)
{
	conf_t *conf = &p->pub;
	const char *file = conf_intern_path(p, path);
	strbuf_t text = STRBUF_INIT, line = STRBUF_INIT;
	struct stat st;
	/* An Include of /dev/zero or a directory must not hang the reader. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		conf_err(conf, file, 0, "cannot read: not a regular file");
		return;
	}
	if (conf_read_file(path, &text) < 0) {
		conf_err(conf, file, 0, "cannot read: %s", strerror(errno));
		strbuf_release(&text);
		return;
	}
	const char *pos = text.buf, *end = text.buf + text.len;
	int lineno = 0, start;
	for (;;) {
		if (p->mode == CONF_CLIENT && skip_record_line(&pos, end, &lineno))
			continue;
		if (!conf_next_line(&pos, end, &lineno, &start, &line))
			break;
		parse_line(p, file, start, line.buf, depth);
	}
	strbuf_release(&line);
	strbuf_release(&text);
}

/* ---- the second pass: typed globals ---- */

const char *conf_get(const conf_t *conf, const char *key)
{
	if (!conf)
		return NULL;
	for (size_t i = conf->nkv; i-- > 0;)
		if (!strcasecmp(conf->kv[i].key, key))
			return conf->kv[i].value;
	return NULL;
}

static const conf_kv_t *kv_find(const conf_t *conf, const char *key)
{
	for (size_t i = conf->nkv; i-- > 0;)
		if (!strcasecmp(conf->kv[i].key, key))
			return &conf->kv[i];
	return NULL;
}


static char *sdef(const conf_t *conf, const char *key, const char *def)
{
	const char *v = conf_get(conf, key);
	return xstrdup(v ? v : def);
}

static uint32_t udef(const conf_t *conf, const char *key, uint32_t def)
{
	const char *v = conf_get(conf, key);
	uint64_t u;
	if (!v)
		return def;
	if (!strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE") || !strcmp(v, "-1"))
		return UINT32_MAX;
	if (conf_parse_uint(v, UINT32_MAX, &u))
		return def;
	return (uint32_t)u;
}

static uint64_t mdef(const conf_t *conf, const char *key)
{
	const char *v = conf_get(conf, key);
	uint64_t u;
	if (!v || conf_parse_mem(v, &u))
		return 0;
	return u == UINT64_MAX ? 0 : u;
}

static int debug_level(const conf_t *conf, const char *key)
{
	const char *v = conf_get(conf, key);
	int l = v ? log_level_parse(v) : -1;
	return l < 0 ? LOG_LVL_INFO : l;
}

static void add_ctld(conf_t *conf, const char *host, const char *addr)
{
	conf->ctld_hosts = xrealloc(conf->ctld_hosts, (conf->nctld_hosts + 1) * sizeof(char *));
	conf->ctld_addrs = xrealloc(conf->ctld_addrs, (conf->nctld_hosts + 1) * sizeof(char *));
	conf->ctld_hosts[conf->nctld_hosts] = xstrdup(host);
	conf->ctld_addrs[conf->nctld_hosts] = xstrdup(addr && *addr ? addr : host);
	conf->nctld_hosts++;
}

static void finish_globals(struct conf_priv *p)
{
	conf_t *conf = &p->pub;
	conf->cluster_name = xstrdup(conf_get(conf, "ClusterName"));

	/* SlurmctldHost=name(addr), once per controller; else the legacy
	 * ControlMachine/BackupController pair. */
	for (size_t i = 0; i < conf->nkv; i++) {
		const conf_kv_t *kv = &conf->kv[i];
		if (strcmp(kv->key, "SlurmctldHost"))
			continue;
		const char *v = kv->value, *lp = strchr(v, '(');
		if (lp) {
			const char *rp = strchr(lp, ')');
			if (!rp || rp[1] || lp == v) {
				conf_err(conf, kv->file, kv->line, "bad value '%s' for 'SlurmctldHost': expected host or host(address)", v);
				continue;
			}
			char *h = xstrndup(v, (size_t)(lp - v));
			char *a = xstrndup(lp + 1, (size_t)(rp - lp - 1));
			add_ctld(conf, h, a);
			free(h);
			free(a);
		} else if (*v) {
			add_ctld(conf, v, NULL);
		}
	}
	if (!conf->nctld_hosts) {
		const char *cm = conf_get(conf, "ControlMachine");
		if (cm)
			add_ctld(conf, cm, conf_get(conf, "ControlAddr"));
		const char *bc = conf_get(conf, "BackupController");
		if (bc)
			add_ctld(conf, bc, conf_get(conf, "BackupAddr"));
	}
	if (!conf->nctld_hosts)
		conf_err(conf, conf->path, 0, "no SlurmctldHost (or ControlMachine) defined");

	const char *port = conf_get(conf, "SlurmctldPort");
	uint64_t u;
	conf->ctld_port = 6817;
	if (port) {
		char buf[16];
		size_t l = strcspn(port, "-");
		if (l < sizeof(buf)) {
			memcpy(buf, port, l);
			buf[l] = '\0';
			if (!conf_parse_uint(buf, 65535, &u) && u)
				conf->ctld_port = (uint16_t)u;
		}
	}
	conf->slurmd_port = (uint16_t)udef(conf, "SlurmdPort", 6818);
	if (!conf->slurmd_port)
		conf->slurmd_port = 6818;
	conf->auth_type = sdef(conf, "AuthType", "auth/munge");
	conf->auth_info = sdef(conf, "AuthInfo", NULL);
	conf->slurm_user = sdef(conf, "SlurmUser", "root");
	conf->state_save_location = sdef(conf, "StateSaveLocation", "/var/spool/slurmctld");
	conf->slurmd_spool_dir = sdef(conf, "SlurmdSpoolDir", "/var/spool/slurmd");
	conf->slurmctld_log_file = sdef(conf, "SlurmctldLogFile", NULL);
	conf->slurmd_log_file = sdef(conf, "SlurmdLogFile", NULL);
	conf->slurmctld_pid_file = sdef(conf, "SlurmctldPidFile", "/var/run/slurmctld.pid");
	conf->slurmd_pid_file = sdef(conf, "SlurmdPidFile", "/var/run/slurmd.pid");
	conf->slurmctld_debug = debug_level(conf, "SlurmctldDebug");
	conf->slurmd_debug = debug_level(conf, "SlurmdDebug");
	conf->slurmd_timeout = udef(conf, "SlurmdTimeout", 300);
	conf->slurmctld_timeout = udef(conf, "SlurmctldTimeout", 120);
	conf->kill_wait = udef(conf, "KillWait", 30);
	conf->min_job_age = udef(conf, "MinJobAge", 300);
	conf->max_job_count = udef(conf, "MaxJobCount", 10000);
	conf->first_job_id = udef(conf, "FirstJobId", 1);
	conf->max_job_id = udef(conf, "MaxJobId", 0x03ff0000);
	conf->message_timeout = udef(conf, "MessageTimeout", 10);
	conf->return_to_service = udef(conf, "ReturnToService", 0);
	conf->inactive_limit = udef(conf, "InactiveLimit", 0);
	conf->wait_time = udef(conf, "WaitTime", 0);
	conf->over_time_limit = udef(conf, "OverTimeLimit", 0);
	conf->def_mem_per_cpu = mdef(conf, "DefMemPerCPU");
	conf->max_mem_per_cpu = mdef(conf, "MaxMemPerCPU");
	conf->def_mem_per_node = mdef(conf, "DefMemPerNode");
	conf->max_mem_per_node = mdef(conf, "MaxMemPerNode");
	conf->select_type_parameters = sdef(conf, "SelectTypeParameters", "CR_Core_Memory");
	conf->gres_types = sdef(conf, "GresTypes", NULL);
	conf->proctrack_type = sdef(conf, "ProctrackType", "proctrack/cgroup");
	conf->task_plugin = sdef(conf, "TaskPlugin", "task/none");
	conf->scheduler_type = sdef(conf, "SchedulerType", "sched/backfill");
	conf->select_type = sdef(conf, "SelectType", "select/cons_tres");
	conf->priority_type = sdef(conf, "PriorityType", "priority/basic");
	conf->topology_plugin = sdef(conf, "TopologyPlugin", "topology/none");
	conf->prolog = sdef(conf, "Prolog", NULL);
	conf->epilog = sdef(conf, "Epilog", NULL);
	conf->scheduler_parameters = sdef(conf, "SchedulerParameters", NULL);
	if (conf->scheduler_parameters) {
		const conf_kv_t *kv = kv_find(conf, "SchedulerParameters");
		conf_check_sched_params(conf, kv ? kv->file : conf->path, kv ? kv->line : 0,
					conf->scheduler_parameters);
	}
	const char *epl = conf_get(conf, "EnforcePartLimits");
	conf->enforce_part_limits = !epl || !strcasecmp(epl, "NO") ? 0 : !strcasecmp(epl, "ANY") ? 2 : 1;
	const char *mp = conf_get(conf, "SlurmdMetricsPort");
	if (mp && conf_metrics_port_parse(mp, NULL) < 0) {
		const conf_kv_t *kv = kv_find(conf, "SlurmdMetricsPort");
		conf_err(conf, kv ? kv->file : conf->path, kv ? kv->line : 0,
			 "SlurmdMetricsPort '%s': expected a port (1-65535) or +OFFSET from each node's Port", mp);
	}
	if (conf->first_job_id == 0)
		conf->first_job_id = 1;
	if (conf->first_job_id > conf->max_job_id) {
		const conf_kv_t *kv = kv_find(conf, "FirstJobId");
		conf_err(conf, kv ? kv->file : conf->path, kv ? kv->line : 0,
			 "FirstJobId (%u) is larger than MaxJobId (%u)", conf->first_job_id, conf->max_job_id);
	}
}

/* ---- the second pass: nodes, nodesets, partitions, DownNodes ---- */

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort and remove duplicates; returns the new count. */
size_t conf_idx_uniq(size_t *v, size_t n)
{
	if (n < 2)
		return n;
	qsort(v, n, sizeof(*v), cmp_size);
	size_t o = 1;
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[o - 1])
			v[o++] = v[i];
	return o;
}

static int has_feature(const char *features, const char *f)
{
	if (!features)
		return 0;
	size_t fl = strlen(f);
	for (const char *p = features; *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == fl && !strncmp(p, f, l))
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

struct idxvec { size_t *v; size_t n, alloc; };

static void idx_push(struct idxvec *iv, size_t x)
{
	iv->v = xgrow(iv->v, sizeof(size_t), iv->n + 1, &iv->alloc);
	iv->v[iv->n++] = x;
}

/* Expand a Nodes= expression of a partition or nodeset: node names,
 * nodeset names, or ALL. Unknown names are reported. */
static void resolve_nodes(struct conf_priv *p, const char *file, int line, const char *what,
			  const char *expr, struct idxvec *out, size_t max_nodeset)
{
	conf_t *conf = &p->pub;
	if (!strcasecmp(expr, "ALL")) {
		for (size_t i = 0; i < conf->nnodes; i++)
			idx_push(out, i);
		return;
	}
	char *err = NULL;
	hostlist_t *hl = hostlist_create(expr, &err);
	if (!hl) {
		conf_err(conf, file, line, "%s: bad Nodes '%s': %s", what, expr, err ? err : "bad hostlist");
		free(err);
		return;
	}
	size_t unknown = 0;
	for (size_t i = 0; i < hostlist_count(hl); i++) {
		const char *n = hostlist_nth(hl, i);
		long idx = strmap_get(&p->node_map, n);
		if (idx >= 0) {
			idx_push(out, (size_t)idx);
			continue;
		}
		int found = 0;
		for (size_t s = 0; s < max_nodeset; s++) {
			if (!strcmp(p->nodeset_names[s], n)) {
				for (size_t k = 0; k < p->nodeset_idx[s].n; k++)
					idx_push(out, p->nodeset_idx[s].v[k]);
				found = 1;
				break;
			}
		}
		if (!found && !strcasecmp(n, "ALL")) {
			for (size_t k = 0; k < conf->nnodes; k++)
				idx_push(out, k);
			found = 1;
		}
		if (!found && unknown++ < 5)
			conf_err(conf, file, line, "%s: unknown node '%s'", what, n);
	}
	hostlist_destroy(hl);
}

static void finish_nodesets(struct conf_priv *p)
{
	conf_t *conf = &p->pub;
	const struct conf_keytab *T = &conf_nodeset_tab;
	p->nodeset_names = xcalloc(p->nodesets.n + 1, sizeof(char *));
	p->nodeset_idx = xcalloc(p->nodesets.n + 1, sizeof(struct conf_idxv));
	for (size_t s = 0; s < p->nodesets.n; s++) {
		struct conf_rec *r = &p->nodesets.v[s];
		const char *name = vget(T, r->vals, "NodeSet");
		const char *nodes = vget(T, r->vals, "Nodes"), *feat = vget(T, r->vals, "Feature");
		char *what = xasprintf("nodeset '%s'", name);
		struct idxvec iv = { 0 };
		if (nodes)
			resolve_nodes(p, r->file, r->line, what, nodes, &iv, s);
		if (feat)
			for (size_t i = 0; i < conf->nnodes; i++)
				if (has_feature(conf->nodes[i].features, feat))
					idx_push(&iv, i);
		if (!nodes && !feat)
			conf_err(conf, r->file, r->line, "%s needs Nodes= or Feature=", what);
		iv.n = conf_idx_uniq(iv.v, iv.n);
		p->nodeset_names[s] = name;
		p->nodeset_idx[s].v = iv.v;
		p->nodeset_idx[s].n = iv.n;
		free(what);
	}
}

static int getb(const struct conf_keytab *tab, char *const *vals, const char *key, int def)
{
	const char *s = vget(tab, vals, key);
	int b;
	if (!s || conf_parse_bool(s, &b))
		return def;
	return b;
}

static uint32_t get_unl(const struct conf_keytab *tab, char *const *vals, const char *key, uint32_t def)
{
	const char *s = vget(tab, vals, key);
	uint64_t v;
	if (!s)
		return def;
	if (!strcasecmp(s, "UNLIMITED") || !strcasecmp(s, "INFINITE") || !strcmp(s, "-1"))
		return UINT32_MAX;
	if (conf_parse_uint(s, UINT32_MAX, &v))
		return def;
	return (uint32_t)v;
}

static uint64_t get_mem(const struct conf_keytab *tab, char *const *vals, const char *key)
{
	const char *s = vget(tab, vals, key);
	uint64_t v;
	if (!s || conf_parse_mem(s, &v) || v == UINT64_MAX)
		return 0;
	return v;
}

static void finish_parts(struct conf_priv *p)
{
	conf_t *conf = &p->pub;
	const struct conf_keytab *T = &conf_part_tab;
	int global_drj = 0;
	const char *drj = conf_get(conf, "DisableRootJobs");
	if (drj)
		conf_parse_bool(drj, &global_drj);
	conf->parts = xcalloc(p->parts.n + 1, sizeof(conf_part_t));
	for (size_t i = 0; i < p->parts.n; i++) {
		struct conf_rec *r = &p->parts.v[i];
		char **v = r->vals;
		const char *name = vget(T, v, "PartitionName");
		long dup = strmap_get(&p->part_map, name);
		if (dup >= 0) {
			conf_err(conf, r->file, r->line, "duplicate partition '%s' (first declared at %s:%d)",
				 name, conf->parts[dup].file, conf->parts[dup].line);
			continue;
		}
		conf_part_t *pt = &conf->parts[conf->nparts];
		pt->name = xstrdup(name);
		pt->file = r->file;
		pt->line = r->line;
		const char *nodes = vget(T, v, "Nodes");
		struct idxvec iv = { 0 };
		if (nodes) {
			char *what = xasprintf("partition '%s'", name);
			resolve_nodes(p, r->file, r->line, what, nodes, &iv, p->nodesets.n);
			free(what);
		}
		iv.n = conf_idx_uniq(iv.v, iv.n);
		pt->node_idx = iv.v;
		pt->nnodes = iv.n;
		if (nodes && strcasecmp(nodes, "ALL")) {
			pt->nodes = xstrdup(nodes);
		} else {
			const char **names = xmalloc((iv.n + 1) * sizeof(char *));
			for (size_t k = 0; k < iv.n; k++)
				names[k] = conf->nodes[iv.v[k]].name;
			pt->nodes = hostlist_compress(names, iv.n);
			free(names);
		}
		pt->is_default = getb(T, v, "Default", 0);
		if (pt->is_default)
			conf->default_part = (long)conf->nparts;
		const char *st = vget(T, v, "State");
		pt->state = !st || !strcasecmp(st, "UP") ? CONF_PART_UP
			: !strcasecmp(st, "DOWN") ? CONF_PART_DOWN
			: !strcasecmp(st, "DRAIN") ? CONF_PART_DRAIN : CONF_PART_INACTIVE;
		uint32_t m;
		const char *mt = vget(T, v, "MaxTime"), *dt = vget(T, v, "DefaultTime");
		pt->max_time = mt && !conf_parse_time(mt, &m) ? m : TIME_INFINITE;
		pt->default_time = dt && !conf_parse_time(dt, &m) ? m : TIME_NO_VAL;
		pt->max_nodes = get_unl(T, v, "MaxNodes", UINT32_MAX);
		pt->min_nodes = getu(T, v, "MinNodes", 0);
		pt->priority_job_factor = (uint16_t)getu(T, v, "PriorityJobFactor", 1);
		pt->priority_tier = (uint16_t)getu(T, v, "PriorityTier", 1);
		const char *os = vget(T, v, "OverSubscribe");
		if (!os)
			os = vget(T, v, "Shared");
		pt->oversubscribe = xstrdup(os ? os : "NO");
		for (char *c = pt->oversubscribe; *c; c++)
			*c = (char)toupper((unsigned char)*c);
		const char *ag = vget(T, v, "AllowGroups"), *aa = vget(T, v, "AllowAccounts"), *aq = vget(T, v, "AllowQos");
		pt->allow_groups = xstrdup(ag ? ag : "ALL");
		pt->allow_accounts = xstrdup(aa ? aa : "ALL");
		pt->allow_qos = xstrdup(aq ? aq : "ALL");
		pt->hidden = getb(T, v, "Hidden", 0);
		pt->root_only = getb(T, v, "RootOnly", 0);
		pt->exclusive_user = getb(T, v, "ExclusiveUser", 0);
		pt->lln = getb(T, v, "LLN", 0);
		pt->req_resv = getb(T, v, "ReqResv", 0);
		pt->disable_root_jobs = getb(T, v, "DisableRootJobs", global_drj);
		pt->def_mem_per_cpu = get_mem(T, v, "DefMemPerCPU");
		pt->max_mem_per_cpu = get_mem(T, v, "MaxMemPerCPU");
		pt->def_mem_per_node = get_mem(T, v, "DefMemPerNode");
		pt->max_mem_per_node = get_mem(T, v, "MaxMemPerNode");
		pt->max_cpus_per_node = get_unl(T, v, "MaxCPUsPerNode", UINT32_MAX);
		pt->grace_time = getu(T, v, "GraceTime", 0);
		strmap_put(&p->part_map, pt->name, conf->nparts);
		conf->nparts++;
	}
}

static void finish_downs(struct conf_priv *p)
{
	conf_t *conf = &p->pub;
	const struct conf_keytab *T = &conf_down_tab;
	for (size_t i = 0; i < p->downs.n; i++) {
		struct conf_rec *r = &p->downs.v[i];
		const char *st = vget(T, r->vals, "State"), *reason = vget(T, r->vals, "Reason");
		struct idxvec iv = { 0 };
		resolve_nodes(p, r->file, r->line, "DownNodes", vget(T, r->vals, "DownNodes"), &iv, 0);
		for (size_t k = 0; k < iv.n; k++) {
			conf_node_t *n = &conf->nodes[iv.v[k]];
			free(n->state);
			n->state = xstrdup(st ? st : "DOWN");
			for (char *c = n->state; *c; c++)
				*c = (char)toupper((unsigned char)*c);
			if (reason) {
				free(n->reason);
				n->reason = xstrdup(reason);
			}
		}
		free(iv.v);
	}
}

static int in_list(const char *list, const char *item)
{
	return has_feature(list, item);
}

static void finish_nodes(struct conf_priv *p)
{
	conf_t *conf = &p->pub;
	const char *last_file = NULL;
	int last_line = -1;
	for (size_t i = 0; i < conf->nnodes; i++) {
		conf_node_t *n = &conf->nodes[i];
		if (!n->port)
			n->port = conf->slurmd_port;
		for (size_t g = 0; g < n->ngres; g++) {
			if (in_list(conf->gres_types, n->gres[g].name))
				continue;
			if (n->file == last_file && n->line == last_line)
				continue;
			last_file = n->file;
			last_line = n->line;
			conf_err(conf, n->file, n->line, "Gres '%s' is not listed in GresTypes", n->gres[g].name);
		}
	}
}

/* ---- public API ---- */

const char *conf_default_path(void)
{
	const char *e = getenv("SLURM_CONF");
	return e && *e ? e : CONF_DEFAULT_PATH;
}

conf_t *conf_load(const char *path, enum conf_mode mode)
{
	struct conf_priv *p = xcalloc(1, sizeof(*p));
	conf_t *conf = &p->pub;
	p->mode = mode;
	if (!path)
		path = conf_default_path();
	conf->path = xstrdup(path);
	const char *slash = strrchr(path, '/');
	conf->dir = slash ? (slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path))) : xstrdup(".");
	conf->default_part = -1;

	read_slurm_conf(p, path, 0);
	finish_globals(p);
	if (mode == CONF_FULL) {
		finish_nodes(p);
		finish_nodesets(p);
		finish_parts(p);
		finish_downs(p);
		conf_read_extra(p);
	}
	/* Records and defaults are only needed while reading. */
	for (size_t i = 0; i < p->parts.n; i++)
		vals_free(&conf_part_tab, p->parts.v[i].vals);
	for (size_t i = 0; i < p->nodesets.n; i++)
		vals_free(&conf_nodeset_tab, p->nodesets.v[i].vals);
	for (size_t i = 0; i < p->downs.n; i++)
		vals_free(&conf_down_tab, p->downs.v[i].vals);
	if (p->nodeset_idx)
		for (size_t i = 0; i < p->nodesets.n; i++)
			free(p->nodeset_idx[i].v);
	xfree(p->nodeset_idx);
	xfree(p->nodeset_names);
	xfree(p->parts.v);
	xfree(p->nodesets.v);
	xfree(p->downs.v);
	p->parts.n = p->nodesets.n = p->downs.n = 0;
	vals_free(&conf_node_tab, p->node_def);
	vals_free(&conf_part_tab, p->part_def);
	p->node_def = p->part_def = NULL;
	conf_pairs_free(&p->kp);
	return conf;
}

conf_t *conf_bootstrap(const char *auth_type, const char *auth_info)
{
	struct conf_priv *p = xcalloc(1, sizeof(*p));
	conf_t *conf = &p->pub;
	p->mode = CONF_CLIENT;
	conf->path = xstrdup("(none)");
	conf->dir = xstrdup("/etc/slurm");
	conf->default_part = -1;
	finish_globals(p);
	conf_pairs_free(&p->kp);
	free(conf->auth_type);
	free(conf->auth_info);
	conf->auth_type = xstrdup(auth_type);
	conf->auth_info = auth_info ? xstrdup(auth_info) : NULL;
	return conf;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void conf_destroy(conf_t *conf)
{
	if (!conf)
		return;
	struct conf_priv *p = (struct conf_priv *)conf;
	free(conf->path);
	free(conf->dir);
	free(conf->cluster_name);
	free_strv(conf->ctld_hosts, conf->nctld_hosts);
	free_strv(conf->ctld_addrs, conf->nctld_hosts);
	char **strs[] = {
		&conf->auth_type, &conf->auth_info, &conf->slurm_user, &conf->state_save_location,
		&conf->slurmd_spool_dir, &conf->slurmctld_log_file, &conf->slurmd_log_file,
		&conf->slurmctld_pid_file, &conf->slurmd_pid_file, &conf->select_type_parameters,
		&conf->gres_types, &conf->proctrack_type, &conf->task_plugin, &conf->scheduler_type,
		&conf->select_type, &conf->priority_type, &conf->topology_plugin, &conf->prolog,
		&conf->epilog, &conf->scheduler_parameters, &conf->cgroup_plugin, &conf->gres_autodetect,
		&conf->cgroup_mountpoint,
	};
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		xfree(*strs[i]);
	for (size_t i = 0; i < conf->nkv; i++)
		free(conf->kv[i].value);
	free(conf->kv);
	free_strv(conf->unsupported, conf->nunsupported);
	for (size_t i = 0; i < conf->nnodes; i++)
		node_release(&conf->nodes[i]);
	free(conf->nodes);
	for (size_t i = 0; i < conf->nparts; i++) {
		conf_part_t *pt = &conf->parts[i];
		free(pt->name);
		free(pt->nodes);
		free(pt->node_idx);
		free(pt->oversubscribe);
		free(pt->allow_groups);
		free(pt->allow_accounts);
		free(pt->allow_qos);
	}
	free(conf->parts);
	for (size_t i = 0; i < conf->nswitches; i++) {
		conf_switch_t *s = &conf->switches[i];
		free(s->name);
		free(s->nodes);
		free(s->switches);
		free(s->node_idx);
		free(s->child_idx);
	}
	free(conf->switches);
	free_strv(conf->errors, conf->nerrors);
	free_strv(p->files, p->nfiles);
	strmap_release(&p->node_map);
	strmap_release(&p->part_map);
	free(p);
}
