/*
 * conf_extra: the files next to slurm.conf: gres.conf (device details and
 * counts for the Gres= of each node), topology.conf (the switch tree the
 * scheduler packs jobs into) and cgroup.conf (what noded constrains).
 * Each is optional; a missing file is not an error. Read after slurm.conf's
 * nodes are known, since all three refer to them.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf_int.h"
#include "hostlist.h"
#include "xalloc.h"

/* Calls fn for each logical line of dir/name; returns -1 if the file is
 * absent (not an error), 0 otherwise. */
typedef void (*conf_line_f)(struct conf_priv *p, const char *file, int line, struct conf_pairs *kp, void *arg);

static int each_line(struct conf_priv *p, const char *name, conf_line_f fn, void *arg)
{
	conf_t *conf = &p->pub;
	char *path = xasprintf("%s/%s", conf->dir, name);
	strbuf_t text = STRBUF_INIT, line = STRBUF_INIT;
	if (conf_read_file(path, &text) < 0) {
		if (errno != ENOENT)
			conf_err(conf, conf_intern_path(p, path), 0, "cannot read: %s", strerror(errno));
		free(path);
		strbuf_release(&text);
		return errno == ENOENT ? -1 : 0;
	}
	const char *file = conf_intern_path(p, path);
	free(path);
	const char *pos = text.buf, *end = text.buf + text.len;
	int lineno = 0, start;
	while (conf_next_line(&pos, end, &lineno, &start, &line)) {
		char *bad = NULL;
		int rc = conf_split_pairs(line.buf, &p->kp, &bad);
		if (rc == -2)
			conf_err(conf, file, start, "unterminated quote in value of '%s'", bad);
		else if (rc < 0)
			conf_err(conf, file, start, "expected key=value, got '%s'", bad);
		else if (p->kp.n)
			fn(p, file, start, &p->kp, arg);
		free(bad);
	}
	strbuf_release(&line);
	strbuf_release(&text);
	return 0;
}

/* ---- cgroup.conf ---- */

static void cgroup_line(struct conf_priv *p, const char *file, int line, struct conf_pairs *kp, void *arg)
{
	conf_t *conf = &p->pub;
	for (size_t i = 0; i < kp->n; i++) {
		const struct conf_keydef *def = conf_check_key(conf, &conf_cgroup_tab, file, line, kp->key[i], kp->val[i]);
		if (!def)
			continue;
		int b = 0;
		if (!strcmp(def->name, "CgroupPlugin")) {
			free(conf->cgroup_plugin);
			conf->cgroup_plugin = xstrdup(kp->val[i]);
		} else if (!strcmp(def->name, "ConstrainCores") && !conf_parse_bool(kp->val[i], &b)) {
			conf->constrain_cores = b;
		} else if (!strcmp(def->name, "ConstrainRAMSpace") && !conf_parse_bool(kp->val[i], &b)) {
			conf->constrain_ram = b;
		} else if (!strcmp(def->name, "ConstrainDevices") && !conf_parse_bool(kp->val[i], &b)) {
			conf->constrain_devices = b;
		} else if (!strcmp(def->name, "ConstrainSwapSpace") && !conf_parse_bool(kp->val[i], &b)) {
			conf->constrain_swap = b;
		} else if (!strcmp(def->name, "CgroupMountpoint")) {
			free(conf->cgroup_mountpoint);
			conf->cgroup_mountpoint = xstrdup(kp->val[i]);
		} else if (!strcmp(def->name, "AllowedRAMSpace")) {
			conf->allowed_ram_pct = (uint32_t)strtoul(kp->val[i], NULL, 10);
		} else if (!strcmp(def->name, "AllowedSwapSpace")) {
			conf->allowed_swap_pct = (uint32_t)strtoul(kp->val[i], NULL, 10);
		} else if (!strcmp(def->name, "MaxRAMPercent")) {
			conf->max_ram_pct = (uint32_t)strtoul(kp->val[i], NULL, 10);
		} else if (!strcmp(def->name, "MaxSwapPercent")) {
			conf->max_swap_pct = (uint32_t)strtoul(kp->val[i], NULL, 10);
		} else if (!strcmp(def->name, "MinRAMSpace")) {
			conf->min_ram_mb = strtoull(kp->val[i], NULL, 10);
		} else if (!strcmp(def->name, "PidsLimit")) {
			/* the kernel refuses a pids.max past PID_MAX_LIMIT: say
			 * so here rather than at each job's start */
			unsigned long v = strtoul(kp->val[i], NULL, 10);
			if (v > CONF_PIDS_LIMIT_MAX)
				conf_err(conf, file, line, "bad value '%s' for 'PidsLimit': expected at most %u "
					 "(0: no limit)", kp->val[i], CONF_PIDS_LIMIT_MAX);
			else
				conf->pids_limit = (uint32_t)v;
		}
	}
}

/* ---- gres.conf ---- */

/* Per node and gres kind: the count gres.conf gives, and where. */
struct gres_acc {
	uint64_t **count;      /* [node][gres], UINT64_MAX = none seen */
	const char ***file;    /* [node][gres] gres.conf file of the first line */
	int **line;
	const char *err_file;  /* last conflict reported (one error per line pair) */
	int err_line;
	const char *err_nfile;
	int err_nline;
};

static conf_gres_t *node_gres(conf_node_t *n, const char *name, const char *type, size_t *gi)
{
	conf_gres_t *fallback = NULL;
	size_t fi = 0, matches = 0;
	for (size_t i = 0; i < n->ngres; i++) {
		conf_gres_t *g = &n->gres[i];
		if (strcmp(g->name, name))
			continue;
		if (type && g->type && !strcmp(g->type, type)) {
			*gi = i;
			return g;
		}
		if (!type || !g->type) {
			fallback = g;
			fi = i;
			matches++;
		}
	}
	/* An untyped gres.conf line names a typed Gres only when unambiguous. */
	if (fallback && (matches == 1 || !type)) {
		*gi = fi;
		return fallback;
	}
	return NULL;
}

static void append_str(char **dst, const char *s)
{
	if (!s)
		return;
	if (!*dst) {
		*dst = xstrdup(s);
		return;
	}
	char *n = xasprintf("%s,%s", *dst, s);
	free(*dst);
	*dst = n;
}

static void gres_line(struct conf_priv *p, const char *file, int line, struct conf_pairs *kp, void *arg)
{
	conf_t *conf = &p->pub;
	struct gres_acc *acc = arg;
	const char *nodes = NULL, *name = NULL, *type = NULL, *fexpr = NULL, *count_s = NULL, *cores = NULL;
	int bad = 0;
	for (size_t i = 0; i < kp->n; i++) {
		const struct conf_keydef *def = conf_check_key(conf, &conf_gres_tab, file, line, kp->key[i], kp->val[i]);
		if (!def) {
			bad = 1;
			continue;
		}
		const char *v = kp->val[i];
		if (!strcmp(def->name, "AutoDetect")) {
			/* Alone on a line it is global; on a node line it applies
			 * to those nodes, which Sluice treats the same way. */
			free(conf->gres_autodetect);
			conf->gres_autodetect = xstrdup(v);
		} else if (!strcmp(def->name, "NodeName")) {
			nodes = v;
		} else if (!strcmp(def->name, "Name")) {
			name = v;
		} else if (!strcmp(def->name, "Type")) {
			type = v;
		} else if (!strcmp(def->name, "File") || !strcmp(def->name, "MultipleFiles")) {
			fexpr = v;
		} else if (!strcmp(def->name, "Count")) {
			count_s = v;
		} else if (!strcmp(def->name, "Cores")) {
			cores = v;
		}
	}
	if (bad)
		return;
	if (!name) {
		if (nodes || type || fexpr || count_s || cores)
			conf_err(conf, file, line, "missing Name= (e.g. Name=gpu)");
		return;
	}
	/* Count from Count= (with K/M/G) or the number of device files. */
	uint64_t count = 0;
	int have_count = 0;
	if (count_s) {
		conf_gres_t *g = NULL;
		size_t ng = 0;
		char *err = NULL;
		char *spec = xasprintf("x:%s", count_s);
		if (conf_parse_gres(spec, &g, &ng, &err) || ng != 1 || g[0].type) {
			conf_err(conf, file, line, "bad value '%s' for 'Count': expected a number", count_s);
			free(err);
			free(spec);
			for (size_t i = 0; i < ng; i++) {
				free(g[i].name);
				free(g[i].type);
			}
			free(g);
			return;
		}
		count = g[0].count;
		have_count = 1;
		free(g[0].name);
		free(g);
		free(spec);
	}
	if (fexpr) {
		char *err = NULL;
		hostlist_t *hl = hostlist_create(fexpr, &err);
		if (!hl) {
			conf_err(conf, file, line, "bad File '%s': %s", fexpr, err ? err : "bad expression");
			free(err);
			return;
		}
		uint64_t nf = hostlist_count(hl);
		hostlist_destroy(hl);
		/* Sharing gres (mps, shard) give Count= on top of the devices. */
		if (have_count && count != nf && strcmp(name, "mps") && strcmp(name, "shard")) {
			conf_err(conf, file, line, "Count=%llu does not match the %llu device files of File=%s",
				 (unsigned long long)count, (unsigned long long)nf, fexpr);
			return;
		}
		if (!have_count)
			count = nf;
		have_count = 1;
	}
	if (!have_count)
		count = 1;

	size_t *targets = NULL, nt = 0;
	if (nodes) {
		char *err = NULL;
		hostlist_t *hl = hostlist_create(nodes, &err);
		if (!hl) {
			conf_err(conf, file, line, "bad NodeName '%s': %s", nodes, err ? err : "bad hostlist");
			free(err);
			return;
		}
		targets = xmalloc((hostlist_count(hl) + 1) * sizeof(size_t));
		size_t unknown = 0;
		for (size_t i = 0; i < hostlist_count(hl); i++) {
			long idx = conf_node_find(conf, hostlist_nth(hl, i));
			if (idx < 0) {
				if (unknown++ < 5)
					conf_err(conf, file, line, "unknown node '%s'", hostlist_nth(hl, i));
				continue;
			}
			targets[nt++] = (size_t)idx;
		}
		hostlist_destroy(hl);
	} else {
		targets = xmalloc((conf->nnodes + 1) * sizeof(size_t));
		for (size_t i = 0; i < conf->nnodes; i++)
			targets[nt++] = i;
	}
	int missing_reported = 0;
	for (size_t t = 0; t < nt; t++) {
		conf_node_t *n = &conf->nodes[targets[t]];
		size_t gi;
		conf_gres_t *g = node_gres(n, name, type, &gi);
		if (!g) {
			/* Without NodeName= the line is for whichever nodes have it. */
			if (nodes && !missing_reported++)
				conf_err(conf, file, line, "node '%s' has no Gres=%s%s%s in slurm.conf (%s:%d)",
					 n->name, name, type ? ":" : "", type ? type : "", n->file, n->line);
			continue;
		}
		size_t ni = targets[t];
		if (!acc->count[ni]) {
			acc->count[ni] = xmalloc(n->ngres * sizeof(uint64_t));
			acc->file[ni] = xcalloc(n->ngres, sizeof(char *));
			acc->line[ni] = xcalloc(n->ngres, sizeof(int));
			for (size_t k = 0; k < n->ngres; k++)
				acc->count[ni][k] = UINT64_MAX;
		}
		if (acc->count[ni][gi] == UINT64_MAX) {
			acc->count[ni][gi] = 0;
			acc->file[ni][gi] = file;
			acc->line[ni][gi] = line;
		}
		acc->count[ni][gi] += count;
		append_str(&g->file, fexpr);
		append_str(&g->cores, cores);
		g->line_count = xrealloc(g->line_count, (g->nlines + 1) * sizeof(uint32_t));
		g->line_cores = xrealloc(g->line_cores, (g->nlines + 1) * sizeof(char *));
		g->line_count[g->nlines] = (uint32_t)count;
		g->line_cores[g->nlines] = cores ? xstrdup(cores) : NULL;
		g->nlines++;
	}
	free(targets);
}

static void gres_check(struct conf_priv *p, struct gres_acc *acc)
{
	conf_t *conf = &p->pub;
	for (size_t i = 0; i < conf->nnodes; i++) {
		conf_node_t *n = &conf->nodes[i];
		if (!acc->count[i])
			continue;
		for (size_t g = 0; g < n->ngres; g++) {
			uint64_t c = acc->count[i][g];
			if (c == UINT64_MAX || c == n->gres[g].count)
				continue;
			const char *gf = acc->file[i][g];
			int gl = acc->line[i][g];
			/* One error per pair of lines, not one per node. */
			if (gf == acc->err_file && gl == acc->err_line && n->file == acc->err_nfile && n->line == acc->err_nline)
				continue;
			acc->err_file = gf;
			acc->err_line = gl;
			acc->err_nfile = n->file;
			acc->err_nline = n->line;
			conf_gres_t *e = &n->gres[g];
			conf_err(conf, gf, gl, "%s has %llu %s%s%s here but %s:%d says Gres=%s%s%s:%u",
				 n->name, (unsigned long long)c, e->name, e->type ? ":" : "", e->type ? e->type : "",
				 n->file, n->line, e->name, e->type ? ":" : "", e->type ? e->type : "", e->count);
		}
	}
}

/* ---- topology.conf ---- */

struct topo_line { const char *file; int line; };

struct topo_state {
	struct topo_line *where;   /* per switch */
	size_t alloc;
	struct strmap map;
};

static void topo_line(struct conf_priv *p, const char *file, int line, struct conf_pairs *kp, void *arg)
{
	conf_t *conf = &p->pub;
	struct topo_state *ts = arg;
	const char *name = NULL, *nodes = NULL, *sw = NULL, *ls = NULL;
	int bad = 0;
	for (size_t i = 0; i < kp->n; i++) {
		const struct conf_keydef *def = conf_check_key(conf, &conf_topo_tab, file, line, kp->key[i], kp->val[i]);
		if (!def) {
			bad = 1;
			continue;
		}
		if (!strcmp(def->name, "SwitchName"))
			name = kp->val[i];
		else if (!strcmp(def->name, "Nodes"))
			nodes = kp->val[i];
		else if (!strcmp(def->name, "Switches"))
			sw = kp->val[i];
		else
			ls = kp->val[i];
	}
	if (bad)
		return;
	if (!name || !*name) {
		conf_err(conf, file, line, "missing SwitchName=");
		return;
	}
	long dup = strmap_get(&ts->map, name);
	if (dup >= 0) {
		conf_err(conf, file, line, "duplicate switch '%s' (first declared at %s:%d)", name,
			 ts->where[dup].file, ts->where[dup].line);
		return;
	}
	size_t cap = ts->alloc;
	conf->switches = xgrow(conf->switches, sizeof(conf_switch_t), conf->nswitches + 1, &cap);
	ts->where = xrealloc(ts->where, cap * sizeof(*ts->where));
	ts->alloc = cap;
	conf_switch_t *s = &conf->switches[conf->nswitches];
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->nodes = xstrdup(nodes);
	s->switches = xstrdup(sw);
	s->link_speed = 1;
	uint64_t v;
	if (ls && !conf_parse_uint(ls, UINT32_MAX, &v))
		s->link_speed = (uint32_t)v;
	s->parent = -1;
	s->level = -1;
	ts->where[conf->nswitches].file = file;
	ts->where[conf->nswitches].line = line;
	strmap_put(&ts->map, s->name, conf->nswitches);
	conf->nswitches++;
}

/* Depth-first: level and the nodes below. color: 0 new, 1 on the stack,
 * 2 done. Returns -1 on a cycle (reported once). */
static int topo_visit(conf_t *conf, struct topo_state *ts, size_t i, int *color)
{
	conf_switch_t *s = &conf->switches[i];
	if (color[i] == 2)
		return 0;
	if (color[i] == 1) {
		conf_err(conf, ts->where[i].file, ts->where[i].line, "switch '%s' is part of a cycle", s->name);
		return -1;
	}
	color[i] = 1;
	int level = 0, rc = 0;
	size_t n = s->nnodes;
	for (size_t c = 0; c < s->nchildren; c++) {
		if (topo_visit(conf, ts, s->child_idx[c], color) < 0) {
			rc = -1;
			continue;
		}
		conf_switch_t *ch = &conf->switches[s->child_idx[c]];
		if (ch->level + 1 > level)
			level = ch->level + 1;
		n += ch->nnodes;
	}
	if (rc == 0 && s->nchildren) {
		s->node_idx = xrealloc(s->node_idx, (n + 1) * sizeof(size_t));
		for (size_t c = 0; c < s->nchildren; c++) {
			conf_switch_t *ch = &conf->switches[s->child_idx[c]];
			memcpy(s->node_idx + s->nnodes, ch->node_idx, ch->nnodes * sizeof(size_t));
			s->nnodes += ch->nnodes;
		}
		s->nnodes = conf_idx_uniq(s->node_idx, s->nnodes);
	}
	s->level = level;
	color[i] = 2;
	return rc;
}

static void topo_finish(struct conf_priv *p, struct topo_state *ts)
{
	conf_t *conf = &p->pub;
	long *leaf_of = xmalloc((conf->nnodes + 1) * sizeof(long));
	for (size_t i = 0; i < conf->nnodes; i++)
		leaf_of[i] = -1;
	for (size_t i = 0; i < conf->nswitches; i++) {
		conf_switch_t *s = &conf->switches[i];
		const char *f = ts->where[i].file;
		int l = ts->where[i].line;
		char *err = NULL;
		if (s->nodes) {
			hostlist_t *hl = hostlist_create(s->nodes, &err);
			if (!hl) {
				conf_err(conf, f, l, "bad Nodes '%s': %s", s->nodes, err ? err : "bad hostlist");
				xfree(err);
			}
			size_t unknown = 0;
			s->node_idx = xmalloc(((hl ? hostlist_count(hl) : 0) + 1) * sizeof(size_t));
			for (size_t k = 0; hl && k < hostlist_count(hl); k++) {
				const char *nn = hostlist_nth(hl, k);
				long idx = conf_node_find(conf, nn);
				if (idx < 0) {
					if (unknown++ < 5)
						conf_err(conf, f, l, "switch '%s': unknown node '%s'", s->name, nn);
					continue;
				}
				if (leaf_of[idx] >= 0 && leaf_of[idx] != (long)i) {
					conf_err(conf, f, l, "node '%s' is under switch '%s' and switch '%s' (%s:%d)",
						 nn, s->name, conf->switches[leaf_of[idx]].name,
						 ts->where[leaf_of[idx]].file, ts->where[leaf_of[idx]].line);
					continue;
				}
				leaf_of[idx] = (long)i;
				s->node_idx[s->nnodes++] = (size_t)idx;
			}
			s->nnodes = conf_idx_uniq(s->node_idx, s->nnodes);
			hostlist_destroy(hl);
		}
		if (s->switches) {
			hostlist_t *hl = hostlist_create(s->switches, &err);
			if (!hl) {
				conf_err(conf, f, l, "bad Switches '%s': %s", s->switches, err ? err : "bad list");
				xfree(err);
			}
			s->child_idx = xmalloc(((hl ? hostlist_count(hl) : 0) + 1) * sizeof(size_t));
			for (size_t k = 0; hl && k < hostlist_count(hl); k++) {
				const char *cn = hostlist_nth(hl, k);
				long idx = strmap_get(&ts->map, cn);
				if (idx < 0) {
					conf_err(conf, f, l, "switch '%s': unknown child switch '%s'", s->name, cn);
					continue;
				}
				int seen = 0;
				for (size_t c = 0; c < s->nchildren; c++)
					seen |= s->child_idx[c] == (size_t)idx;
				if (seen)
					continue;
				s->child_idx[s->nchildren++] = (size_t)idx;
				if (conf->switches[idx].parent < 0)
					conf->switches[idx].parent = (long)i;
			}
			hostlist_destroy(hl);
		}
	}
	int *color = xcalloc(conf->nswitches + 1, sizeof(int));
	for (size_t i = 0; i < conf->nswitches; i++)
		if (!color[i] && topo_visit(conf, ts, i, color) < 0)
			break;
	free(color);
	free(leaf_of);
}

void conf_read_extra(struct conf_priv *p)
{
	conf_t *conf = &p->pub;
	conf->allowed_ram_pct = 100;
	conf->allowed_swap_pct = 0;
	conf->max_ram_pct = conf->max_swap_pct = 100;
	conf->min_ram_mb = 30;
	if (each_line(p, "cgroup.conf", cgroup_line, NULL) == 0 && !conf->cgroup_plugin)
		conf->cgroup_plugin = xstrdup("autodetect");

	struct gres_acc acc = { 0 };
	acc.count = xcalloc(conf->nnodes + 1, sizeof(*acc.count));
	acc.file = xcalloc(conf->nnodes + 1, sizeof(*acc.file));
	acc.line = xcalloc(conf->nnodes + 1, sizeof(*acc.line));
	if (each_line(p, "gres.conf", gres_line, &acc) == 0)
		gres_check(p, &acc);
	for (size_t i = 0; i < conf->nnodes; i++) {
		free(acc.count[i]);
		free(acc.file[i]);
		free(acc.line[i]);
	}
	free(acc.count);
	free(acc.file);
	free(acc.line);

	struct topo_state ts = { 0 };
	if (each_line(p, "topology.conf", topo_line, &ts) == 0)
		topo_finish(p, &ts);
	free(ts.where);
	strmap_release(&ts.map);
}
