/*
 * print_node: sinfo's grouping of nodes into rows and its % fields, and
 * `scontrol show node`, as Slurm 22.05 prints them.
 *
 * sinfo groups, per partition (in configuration order), the nodes that agree
 * on every node field of the format (state, features, reason, ...); numeric
 * resources (CPUs, memory, ...) split groups only with -e and otherwise print
 * as "min+" ranges. Rows are then sorted by Slurm's default "#P,-t"
 * (configuration order, then decreasing state value) or "N" with -N.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmds.h"
#include "cmd/print.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

struct nfield {
	int code;
	const char *name;      /* -O name */
	const char *header;
	int part_field;        /* distinguishes partitions */
	int node_field;        /* distinguishes nodes (always) */
	int exact_field;       /* distinguishes nodes with -e only */
};

enum { NF_GRES_USED = 256, NF_CPUS_STATE, NF_NODE_AI, NF_ALLOC_MEM, NF_COMMENT, NF_EXTRA,
       NF_PORT, NF_STATE_COMPLETE };

static const struct nfield nfields[] = {
	{ 'a', "Available", "AVAIL", 1, 0, 0 },
	{ 'A', "NodeAI", "NODES(A/I)", 0, 0, 0 },
	{ 'b', "features_act", "ACTIVE_FEATURES", 0, 1, 0 },
	{ 'B', "MaxCPUsPerNode", "MAX_CPUS_PER_NODE", 1, 0, 0 },
	{ 'c', "CPUs", "CPUS", 0, 0, 1 },
	{ 'C', "CPUsState", "CPUS(A/I/O/T)", 0, 0, 0 },
	{ 'd', "Disk", "TMP_DISK", 0, 0, 1 },
	{ 'D', "Nodes", "NODES", 0, 0, 0 },
	{ 'e', "FreeMem", "FREE_MEM", 0, 0, 1 },
	{ 'E', "Reason", "REASON", 0, 1, 0 },
	{ 'f', "Features", "AVAIL_FEATURES", 0, 1, 0 },
	{ 'F', "NodeAIOT", "NODES(A/I/O/T)", 0, 0, 0 },
	{ 'g', "Groups", "GROUPS", 1, 0, 0 },
	{ 'G', "Gres", "GRES", 0, 1, 0 },
	{ 'h', "OverSubscribe", "OVERSUBSCRIBE", 1, 0, 0 },
	{ 'H', "Timestamp", "TIMESTAMP", 0, 1, 0 },
	{ 'I', "PriorityJobFactor", "PRIO_JOB_FACTOR", 1, 0, 0 },
	{ 'l', "Time", "TIMELIMIT", 1, 0, 0 },
	{ 'L', "DefaultTime", "DEFAULTTIME", 1, 0, 0 },
	{ 'm', "Memory", "MEMORY", 0, 0, 1 },
	{ 'M', "PreemptMode", "PREEMPT_MODE", 1, 0, 0 },
	{ 'n', "NodeHost", "HOSTNAMES", 0, 1, 0 },
	{ 'N', "NodeList", "NODELIST", 0, 0, 0 },
	{ 'o', "NodeAddr", "NODE_ADDR", 0, 1, 0 },
	{ 'O', "CPUsLoad", "CPU_LOAD", 0, 0, 1 },
	{ 'p', "PriorityTier", "PRIO_TIER", 1, 0, 0 },
	{ 'P', "Partition", "PARTITION", 1, 0, 0 },
	{ 'r', "Root", "ROOT", 1, 0, 0 },
	{ 'R', "PartitionName", "PARTITION", 1, 0, 0 },
	{ 's', "Size", "JOB_SIZE", 1, 0, 0 },
	{ 'S', "AllocNodes", "ALLOCNODES", 1, 0, 0 },
	{ 't', "StateCompact", "STATE", 0, 1, 0 },
	{ 'T', "StateLong", "STATE", 0, 1, 0 },
	{ 'u', "User", "USER", 0, 1, 0 },
	{ 'U', "UserLong", "USER", 0, 1, 0 },
	{ 'v', "Version", "VERSION", 0, 1, 0 },
	{ 'V', "Cluster", "CLUSTER", 0, 0, 0 },
	{ 'w', "Weight", "WEIGHT", 0, 0, 1 },
	{ 'X', "Sockets", "SOCKETS", 0, 0, 1 },
	{ 'Y', "Cores", "CORES", 0, 0, 1 },
	{ 'Z', "Threads", "THREADS", 0, 0, 1 },
	{ 'z', "SocketCoreThread", "S:C:T", 0, 0, 1 },
	{ NF_GRES_USED, "GresUsed", "GRES_USED", 0, 1, 0 },
	{ NF_ALLOC_MEM, "AllocMem", "ALLOCMEM", 0, 0, 1 },
	{ NF_COMMENT, "Comment", "COMMENT", 0, 1, 0 },
	{ NF_EXTRA, "Extra", "EXTRA", 0, 1, 0 },
	{ NF_PORT, "Port", "PORT", 0, 1, 0 },
	{ NF_STATE_COMPLETE, "StateComplete", "STATECOMPLETE", 0, 1, 0 },
	{ 'i', "Reservation", "RESERVATION", 0, 0, 0 },
	{ 'h', "Share", "OVERSUBSCRIBE", 1, 0, 0 },
	{ 'T', "State", "STATE", 0, 1, 0 },
};

static const struct nfield *nfield_find(int code)
{
	for (size_t i = 0; i < ARRAY_SIZE(nfields); i++)
		if (nfields[i].code == code)
			return &nfields[i];
	return NULL;
}

int node_fmt_valid(int c)
{
	return c < 256 && nfield_find(c) != NULL;
}

int node_fmt_lookup(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(nfields); i++)
		if (!strcasecmp(nfields[i].name, name))
			return nfields[i].code;
	return -1;
}

static const char *nz(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

static int strcmp0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* Does node n belong in row r for the given format? */
static int node_matches(const sinfo_row_t *r, const node_info_t *n, const fmt_t *f, int exact)
{
	const node_info_t *m = r->node;
	char b1[64], b2[64];
	if (!m)
		return 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct nfield *nf = f->f[i].code >= 0 ? nfield_find(f->f[i].code) : NULL;
		if (!nf || (!nf->node_field && !(nf->exact_field && exact)))
			continue;
		switch (nf->code) {
		case 't':
			if (strcmp(node_state_string_compact(m->state, b1, sizeof(b1)),
				   node_state_string_compact(n->state, b2, sizeof(b2))))
				return 0;
			break;
		case 'T':
			if (strcmp(node_state_string(m->state, b1, sizeof(b1)),
				   node_state_string(n->state, b2, sizeof(b2))))
				return 0;
			break;
		case 'b': if (strcmp0(m->features_active, n->features_active)) return 0; break;
		case 'f': if (strcmp0(m->features, n->features)) return 0; break;
		case 'E': if (strcmp0(m->reason, n->reason)) return 0; break;
		case 'G': if (strcmp0(m->gres, n->gres)) return 0; break;
		case NF_GRES_USED: if (strcmp0(m->gres_used, n->gres_used)) return 0; break;
		case NF_COMMENT: if (strcmp0(m->comment, n->comment)) return 0; break;
		case NF_EXTRA: if (strcmp0(m->extra, n->extra)) return 0; break;
		case NF_STATE_COMPLETE:
			if (strcmp(node_state_string_scontrol(m->state, b1, sizeof(b1)),
				   node_state_string_scontrol(n->state, b2, sizeof(b2))))
				return 0;
			break;
		case NF_PORT: if (m->port != n->port) return 0; break;
		case NF_ALLOC_MEM: if (m->alloc_mem != n->alloc_mem) return 0; break;
		case 'H': if (m->reason_time != n->reason_time) return 0; break;
		case 'u': case 'U': if (m->reason_uid != n->reason_uid) return 0; break;
		case 'v': if (strcmp0(m->version, n->version)) return 0; break;
		case 'n': case 'o': return 0;  /* per-host fields: one row each */
		case 'c': if (m->cpus != n->cpus) return 0; break;
		case 'd': if (m->tmp_disk != n->tmp_disk) return 0; break;
		case 'e': if (m->free_mem != n->free_mem) return 0; break;
		case 'm': if (m->real_memory != n->real_memory) return 0; break;
		case 'O': if (m->cpu_load != n->cpu_load) return 0; break;
		case 'w': if (m->weight != n->weight) return 0; break;
		case 'X': case 'Y': case 'Z': case 'z':
			if (m->sockets != n->sockets || m->cores != n->cores || m->threads != n->threads)
				return 0;
			break;
		}
	}
	return 1;
}

static void row_add_node(sinfo_row_t *r, const node_info_t *n)
{
	uint32_t base = n->state & NODE_STATE_BASE;
	if (!r->nnodes) {
		r->node = n;
		r->state = n->state;
		r->cpus_min = r->cpus_max = n->cpus;
		r->mem_min = r->mem_max = n->real_memory;
		r->disk_min = r->disk_max = n->tmp_disk;
		r->free_min = r->free_max = n->free_mem;
		r->load_min = r->load_max = n->cpu_load;
		r->weight_min = r->weight_max = n->weight;
	}
#define MINMAX(lo, hi, v) do { if ((v) < (lo)) (lo) = (v); if ((v) > (hi)) (hi) = (v); } while (0)
	MINMAX(r->cpus_min, r->cpus_max, n->cpus);
	MINMAX(r->mem_min, r->mem_max, n->real_memory);
	MINMAX(r->disk_min, r->disk_max, n->tmp_disk);
	MINMAX(r->free_min, r->free_max, n->free_mem);
	MINMAX(r->load_min, r->load_max, n->cpu_load);
	MINMAX(r->weight_min, r->weight_max, n->weight);
#undef MINMAX
	hostlist_push_host(r->nodes, n->name);
	r->nnodes++;

	int unavail = base == NODE_DOWN || (n->state & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL |
							 NODE_FLAG_NO_RESPOND)) ||
		      base == NODE_FUTURE || base == NODE_UNKNOWN || base == NODE_ERROR;
	r->nodes_total++;
	r->cpus_total += n->cpus;
	if (unavail) {
		r->nodes_other++;
		r->cpus_other += n->cpus;
	} else {
		if (base == NODE_ALLOCATED || base == NODE_MIXED || n->cpus_alloc)
			r->nodes_alloc++;
		else
			r->nodes_idle++;
		r->cpus_alloc += n->cpus_alloc;
		r->cpus_idle += n->cpus > n->cpus_alloc ? n->cpus - n->cpus_alloc : 0;
	}
}

/* A -t name as Slurm's sinfo reads it (a prefix of a long or compact
 * name): a base state, a flag, or DRAIN|IDLE ("drained") / DRAIN|ALLOCATED
 * ("draining"). -1 when unknown. */
static long state_id(const char *s)
{
	static const struct { const char *lng, *cmp; uint32_t id; } bases[] = {
		{ "UNKNOWN", "UNK", NODE_UNKNOWN }, { "DOWN", "DOWN", NODE_DOWN },
		{ "IDLE", "IDLE", NODE_IDLE }, { "ALLOCATED", "ALLOC", NODE_ALLOCATED },
		{ "ERROR", "ERR", NODE_ERROR }, { "MIXED", "MIX", NODE_MIXED },
		{ "FUTURE", "FUTR", NODE_FUTURE },
	};
	static const struct { const char *a, *b; uint32_t id; } others[] = {
		{ "PLANNED", "PLND", NODE_FLAG_PLANNED },
		{ "DRAIN", NULL, NODE_FLAG_DRAIN },
		{ "DRAINED", NULL, NODE_FLAG_DRAIN | NODE_IDLE },
		{ "RESV", "RESERVED", NODE_FLAG_RESERVED },
		{ "DRAINING", "DRNG", NODE_FLAG_DRAIN | NODE_ALLOCATED },
		{ "COMPLETING", "COMP", NODE_FLAG_COMPLETING },
		{ "NO_RESPOND", NULL, NODE_FLAG_NO_RESPOND },
		{ "POWERING_DOWN", NULL, NODE_FLAG_POWER_DOWN },
		{ "POWERED_DOWN", NULL, NODE_FLAG_POWERED_DOWN },
		{ "POWER_DOWN", NULL, NODE_FLAG_POWER_DOWN },
		{ "POWERING_UP", "POW_UP", NODE_FLAG_POWERING_UP },
		{ "FAIL", NULL, NODE_FLAG_FAIL },
		{ "MAINT", NULL, NODE_FLAG_MAINT },
		{ "REBOOT_REQUESTED", "REBOOT", NODE_FLAG_REBOOT },
		{ "INVAL", "INVALID_REG", NODE_FLAG_INVALID_REG },
	};
	size_t len = strlen(s);
	if (!len)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(bases); i++)
		if (!strncasecmp(bases[i].lng, s, len) || !strncasecmp(bases[i].cmp, s, len))
			return bases[i].id;
	for (size_t i = 0; i < ARRAY_SIZE(others); i++)
		if (!strncasecmp(others[i].a, s, len) ||
		    (others[i].b && !strncasecmp(others[i].b, s, len)))
			return others[i].id;
	return -1;
}

/* Slurm's sinfo state filter: DRAIN matches any drained or draining node;
 * a draining (drained) node matches only DRAIN and DRAINING (DRAINED);
 * a flag matches nodes with it; a base state matches that base. */
static int state_match(const node_info_t *n, long id)
{
	uint32_t st = n->state, base = st & NODE_STATE_BASE;
	int busy = base == NODE_ALLOCATED || base == NODE_MIXED || (st & NODE_FLAG_COMPLETING);
	const uint32_t flags_mask = ~NODE_STATE_BASE;
	if (id < 0)
		return 0;
	if ((uint32_t)id == NODE_FLAG_DRAIN)
		return (st & NODE_FLAG_DRAIN) != 0;
	if ((st & NODE_FLAG_DRAIN) && busy)
		return (uint32_t)id == (NODE_FLAG_DRAIN | NODE_ALLOCATED);
	if (st & NODE_FLAG_DRAIN)
		return (uint32_t)id == (NODE_FLAG_DRAIN | NODE_IDLE);
	if ((uint32_t)id & flags_mask)
		return (st & (uint32_t)id & flags_mask) && !((uint32_t)id & NODE_STATE_BASE);
	return base == (uint32_t)id;
}

static int state_wanted(const node_info_t *n, const sinfo_opts_t *o)
{
	uint32_t base = n->state & NODE_STATE_BASE;
	if (o->responding && (n->state & NODE_FLAG_NO_RESPOND))
		return 0;
	if (o->dead && !(n->state & NODE_FLAG_NO_RESPOND))
		return 0;
	if (o->list_reasons && (!o->states || !o->states->n)) {
		/* -R: Slurm's implied -t down,fail,drain */
		return base == NODE_DOWN || (n->state & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL));
	}
	if (!o->states || !o->states->n)
		return 1;
	int any = 0, all = 1;
	for (uint32_t i = 0; i < o->states->n; i++) {
		const char *s = o->states->v[i];
		int m = !strcasecmp(s, "all") || state_match(n, state_id(s));
		any |= m;
		all &= m;
	}
	return o->states_and ? all : any;
}

struct rowv { sinfo_row_t *v; size_t n, alloc; };

/* Is name one of the items of the comma-separated list? */
static int in_csv(const char *list, const char *name)
{
	size_t nl = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == nl && !memcmp(p, name, nl))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

static sinfo_row_t *row_new(struct rowv *rv, const part_info_t *p)
{
	rv->v = xgrow(rv->v, sizeof(*rv->v), rv->n + 1, &rv->alloc);
	sinfo_row_t *r = &rv->v[rv->n++];
	memset(r, 0, sizeof(*r));
	r->part = p;
	r->nodes = hostlist_create_empty();
	r->default_part = p && (p->flags & PART_F_DEFAULT);
	return r;
}

static int fmt_has_part_field(const fmt_t *f)
{
	for (size_t i = 0; i < f->n; i++) {
		const struct nfield *nf = f->f[i].code >= 0 ? nfield_find(f->f[i].code) : NULL;
		if (nf && nf->part_field)
			return 1;
	}
	return 0;
}

/* Sort context: keys precomputed per row. */
struct sort_ent { sinfo_row_t *r; size_t idx; long part_idx; };
static const char *sort_spec;

static int cmp_num(long long a, long long b) { return a < b ? -1 : a > b; }

static int row_cmp(const void *va, const void *vb)
{
	const struct sort_ent *a = va, *b = vb;
	const char *s = sort_spec;
	size_t len = strlen(s);
	for (size_t i = 0; i < len; i++) {
		int rev = 0, hash = 0;
		while (i < len && (s[i] == ',' || s[i] == '+' || s[i] == '-' || s[i] == '#')) {
			if (s[i] == '-') rev = 1;
			if (s[i] == '#') hash = 1;
			i++;
		}
		if (i >= len)
			break;
		int d = 0;
		switch (s[i]) {
		case 'P': case 'R':
			if (hash)
				d = cmp_num(a->part_idx, b->part_idx);
			else
				d = strcmp0(a->r->part ? a->r->part->name : "", b->r->part ? b->r->part->name : "");
			break;
		case 't': case 'T':
			d = cmp_num(a->r->state, b->r->state);
			break;
		case 'N': case 'n': {
			const char *na = a->r->nnodes ? hostlist_nth(a->r->nodes, 0) : "";
			const char *nb = b->r->nnodes ? hostlist_nth(b->r->nodes, 0) : "";
			/* prefix, then numeric suffix, as hostlist order */
			size_t pa = strcspn(na, "0123456789"), pb = strcspn(nb, "0123456789");
			d = strncmp(na, nb, pa < pb ? pa : pb);
			if (!d && pa != pb)
				d = cmp_num((long long)pa, (long long)pb);
			if (!d)
				d = cmp_num(atoll(na + pa), atoll(nb + pb));
			if (!d)
				d = strcmp(na, nb);
			break;
		}
		case 'c': d = cmp_num(a->r->cpus_min, b->r->cpus_min); break;
		case 'm': d = cmp_num((long long)a->r->mem_min, (long long)b->r->mem_min); break;
		case 'd': d = cmp_num((long long)a->r->disk_min, (long long)b->r->disk_min); break;
		case 'w': d = cmp_num(a->r->weight_min, b->r->weight_min); break;
		case 'D': d = cmp_num(a->r->nnodes, b->r->nnodes); break;
		case 'E': d = strcmp0(a->r->node ? a->r->node->reason : "", b->r->node ? b->r->node->reason : ""); break;
		case 'l':
			d = cmp_num(a->r->part ? a->r->part->max_time : 0, b->r->part ? b->r->part->max_time : 0);
			break;
		default: break;
		}
		if (rev)
			d = -d;
		if (d)
			return d;
	}
	return cmp_num((long long)a->idx, (long long)b->idx);   /* stable */
}

size_t sinfo_build(const msg_part_info_t *pi, const msg_node_info_t *ni,
		   const fmt_t *f, const sinfo_opts_t *o,
		   const strv_t *part_filter, hostlist_t *node_filter,
		   sinfo_row_t **out)
{
	struct rowv rv = { 0 };
	int by_part = fmt_has_part_field(f) || o->node_flag;
	hostlist_t *seen_all = hostlist_create_empty();   /* dedupe when merging partitions */
	char *seen = xcalloc(ni->nnodes ? ni->nnodes : 1, 1);

	/* Map node names to indexes once: linear over a partition's hosts. */
	for (uint32_t pidx = 0; pidx < pi->nparts; pidx++) {
		const part_info_t *p = &pi->parts[pidx];
		if (part_filter && part_filter->n && !cmd_strv_has(part_filter, p->name))
			continue;
		if (!part_filter && (p->flags & PART_F_HIDDEN))
			continue;
		hostlist_t *hl = hostlist_create(p->nodes ? p->nodes : "", NULL);
		size_t first_row = rv.n;
		size_t matched = 0;
		for (uint32_t k = 0; k < ni->nnodes; k++) {
			const node_info_t *n = &ni->nodes[k];
			/* The node's own partition list answers membership in a
			 * few compares; the partition's hostlist is the fallback. */
			if (n->partitions && *n->partitions) {
				if (!in_csv(n->partitions, p->name))
					continue;
			} else if (!hl || hostlist_find(hl, n->name) < 0) {
				continue;
			}
			if (node_filter && hostlist_find(node_filter, n->name) < 0)
				continue;
			matched++;
			if (!state_wanted(n, o))
				continue;
			if (!by_part) {
				if (seen[k])
					continue;
				seen[k] = 1;
			}
			sinfo_row_t *r = NULL;
			size_t from = by_part ? first_row : 0;
			if (!o->node_flag) {
				for (size_t i = from; i < rv.n; i++)
					if (node_matches(&rv.v[i], n, f, o->exact)) {
						r = &rv.v[i];
						break;
					}
			}
			if (!r)
				r = row_new(&rv, by_part ? p : NULL);
			row_add_node(r, n);
		}
		/* sinfo -n NAME: a partition without that node shows "0 n/a";
		 * so does, in the partition view, one that has no node left
		 * after the other filters (-t, -d, -r; FUTURE nodes hidden). */
		if (by_part && !o->list_reasons &&
		    ((node_filter && !matched) || (!o->node_flag && rv.n == first_row)))
			row_new(&rv, p);
		hostlist_destroy(hl);
	}
	free(seen);
	hostlist_destroy(seen_all);

	/* Sort. */
	struct sort_ent *se = xcalloc(rv.n ? rv.n : 1, sizeof(*se));
	for (size_t i = 0; i < rv.n; i++) {
		se[i].r = &rv.v[i];
		se[i].idx = i;
		se[i].part_idx = -1;
		for (uint32_t k = 0; rv.v[i].part && k < pi->nparts; k++)
			if (&pi->parts[k] == rv.v[i].part)
				se[i].part_idx = k;
	}
	sort_spec = o->sort ? o->sort : (o->node_flag ? "N" : "#P,-t");
	qsort(se, rv.n, sizeof(*se), row_cmp);
	sinfo_row_t *sorted = xcalloc(rv.n ? rv.n : 1, sizeof(*sorted));
	for (size_t i = 0; i < rv.n; i++)
		sorted[i] = *se[i].r;
	free(se);
	free(rv.v);
	*out = sorted;
	return rv.n;
}

void sinfo_rows_free(sinfo_row_t *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hostlist_destroy(rows[i].nodes);
	free(rows);
}

static void part_name(char *buf, size_t len, const sinfo_row_t *r, int star)
{
	if (!r->part)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%s%s", r->part->name, star && r->default_part ? "*" : "");
}

void sinfo_fix_widths(fmt_t *f, const sinfo_row_t *rows, size_t n)
{
	for (size_t i = 0; i < f->n; i++) {
		if (f->f[i].width != -1)
			continue;
		size_t w = 9;
		for (size_t k = 0; k < n; k++) {
			size_t l = 0;
			if (f->f[i].code == 'P') {
				char b[256];
				part_name(b, sizeof(b), &rows[k], 1);
				l = strlen(b);
			} else if (f->f[i].code == 'N') {
				char *s = hostlist_ranged_string(rows[k].nodes);
				l = strlen(s);
				free(s);
			}
			if (l > w)
				w = l;
		}
		f->f[i].width = (int)w;
	}
}

void print_sinfo_header(strbuf_t *sb, const fmt_t *f)
{
	for (size_t i = 0; i < f->n; i++) {
		const fmt_field_t *ff = &f->f[i];
		const struct nfield *nf = ff->code >= 0 ? nfield_find(ff->code) : NULL;
		if (nf)
			fmt_add(sb, nf->header, ff->width, ff->right);
		strbuf_addstr(sb, ff->suffix ? ff->suffix : "");
	}
	strbuf_addch(sb, '\n');
}

static void add_range64(strbuf_t *sb, uint64_t lo, uint64_t hi, int w, int r)
{
	char buf[64];
	if (lo == hi)
		snprintf(buf, sizeof(buf), "%" PRIu64, lo);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64 "+", lo);
	fmt_add(sb, buf, w, r);
}

static const char *part_state_str(uint32_t st)
{
	switch (st) {
	case CONF_PART_UP: return "up";
	case CONF_PART_DOWN: return "down";
	case CONF_PART_DRAIN: return "drain";
	case CONF_PART_INACTIVE: return "inact";
	}
	return "unknown";
}

static void node_field(strbuf_t *sb, const fmt_field_t *ff, const sinfo_row_t *r)
{
	char buf[512];
	int w = ff->width, rj = ff->right;
	const node_info_t *n = r->node;
	const part_info_t *p = r->part;

	switch (ff->code) {
	case 'a': fmt_add(sb, p ? part_state_str(p->state) : "n/a", w, rj); break;
	case 'A':
		snprintf(buf, sizeof(buf), "%u/%u", r->nodes_alloc, r->nodes_idle);
		fmt_add(sb, buf, w, rj);
		break;
	case 'b': fmt_add(sb, n ? nz(n->features_active, "(null)") : "(null)", w, rj); break;
	case 'B':
		if (!p || p->max_cpus_per_node == UINT32_MAX || !p->max_cpus_per_node)
			fmt_add(sb, "UNLIMITED", w, rj);
		else
			fmt_add_u(sb, p->max_cpus_per_node, w, rj);
		break;
	case 'c': add_range64(sb, r->cpus_min, r->cpus_max, w, rj); break;
	case 'C':
		snprintf(buf, sizeof(buf), "%u/%u/%u/%u", r->cpus_alloc, r->cpus_idle,
			 r->cpus_other, r->cpus_total);
		fmt_add(sb, buf, w, rj);
		break;
	case 'd': add_range64(sb, r->disk_min, r->disk_max, w, rj); break;
	case 'D': fmt_add_u(sb, r->nnodes, w, rj); break;
	case 'e':
		if (!n)
			fmt_add(sb, "N/A", w, rj);
		else
			add_range64(sb, r->free_min, r->free_max, w, rj);
		break;
	case 'E': fmt_add(sb, n ? nz(n->reason, "none") : "none", w, rj); break;
	case 'f': fmt_add(sb, n ? nz(n->features, "(null)") : "(null)", w, rj); break;
	case 'F':
		snprintf(buf, sizeof(buf), "%u/%u/%u/%u", r->nodes_alloc, r->nodes_idle,
			 r->nodes_other, r->nodes_total);
		fmt_add(sb, buf, w, rj);
		break;
	case 'g': fmt_add(sb, p ? (p->allow_groups && strcasecmp(p->allow_groups, "ALL") ? p->allow_groups : "all") : "all", w, rj); break;
	case 'G': fmt_add(sb, n ? nz(n->gres, "(null)") : "(null)", w, rj); break;
	case NF_GRES_USED: fmt_add(sb, n ? nz(n->gres_used, "(null)") : "(null)", w, rj); break;
	case NF_ALLOC_MEM: fmt_add_u(sb, n ? n->alloc_mem : 0, w, rj); break;
	case NF_COMMENT: fmt_add(sb, n ? nz(n->comment, "(null)") : "(null)", w, rj); break;
	case NF_EXTRA: fmt_add(sb, n ? nz(n->extra, "(null)") : "(null)", w, rj); break;
	case NF_PORT: fmt_add_u(sb, n ? n->port : 0, w, rj); break;
	case 'i': fmt_add(sb, "(null)", w, rj); break;
	case NF_STATE_COMPLETE:
		if (!n) {
			fmt_add(sb, "n/a", w, rj);
		} else {
			/* "idle+drain": the scontrol form in lower case */
			node_state_string_scontrol(r->state, buf, sizeof(buf));
			for (char *q = buf; *q; q++)
				*q = (char)tolower((unsigned char)*q);
			fmt_add(sb, buf, w, rj);
		}
		break;
	case 'h': fmt_add(sb, p ? nz(p->oversubscribe, "NO") : "NO", w, rj); break;
	case 'H':
		if (n && n->reason_time)
			time_fmt_iso((time_t)n->reason_time, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "Unknown");
		fmt_add(sb, buf, w, rj);
		break;
	case 'I': fmt_add_u(sb, p ? p->priority_job_factor : 0, w, rj); break;
	case 'l':
		if (!p)
			fmt_add(sb, "n/a", w, rj);
		else {
			mins_fmt_sinfo(p->max_time, buf, sizeof(buf));
			fmt_add(sb, buf, w, rj);
		}
		break;
	case 'L':
		if (!p || p->default_time == TIME_NO_VAL || !p->default_time)
			fmt_add(sb, "n/a", w, rj);
		else {
			mins_fmt_sinfo(p->default_time, buf, sizeof(buf));
			fmt_add(sb, buf, w, rj);
		}
		break;
	case 'm': add_range64(sb, r->mem_min, r->mem_max, w, rj); break;
	case 'M': fmt_add(sb, "OFF", w, rj); break;
	case 'n': fmt_add(sb, n ? nz(n->hostname, n->name) : "", w, rj); break;
	case 'N': {
		char *s = hostlist_ranged_string(r->nodes);
		fmt_add(sb, s, w, rj);
		free(s);
		break;
	}
	case 'o': fmt_add(sb, n ? nz(n->addr, n->name) : "", w, rj); break;
	case 'O':
		if (!n)
			fmt_add(sb, "N/A", w, rj);
		else {
			if (r->load_min == r->load_max)
				snprintf(buf, sizeof(buf), "%.2f", r->load_min / 100.0);
			else
				snprintf(buf, sizeof(buf), "%.2f-%.2f", r->load_min / 100.0, r->load_max / 100.0);
			fmt_add(sb, buf, w, rj);
		}
		break;
	case 'p': fmt_add_u(sb, p ? p->priority_tier : 0, w, rj); break;
	case 'P': part_name(buf, sizeof(buf), r, 1); fmt_add(sb, buf, w, rj); break;
	case 'R': part_name(buf, sizeof(buf), r, 0); fmt_add(sb, buf, w, rj); break;
	case 'r': fmt_add(sb, p && (p->flags & PART_F_ROOT_ONLY) ? "yes" : "no", w, rj); break;
	case 's':
		if (!p)
			snprintf(buf, sizeof(buf), "n/a");
		else {
			char mx[32];
			if (p->max_nodes == UINT32_MAX)
				snprintf(mx, sizeof(mx), "infinite");
			else
				snprintf(mx, sizeof(mx), "%u", p->max_nodes);
			uint32_t mn = p->min_nodes ? p->min_nodes : 1;
			if (p->max_nodes != UINT32_MAX && p->max_nodes == mn)
				snprintf(buf, sizeof(buf), "%u", mn);
			else
				snprintf(buf, sizeof(buf), "%u-%s", mn, mx);
		}
		fmt_add(sb, buf, w, rj);
		break;
	case 'S': fmt_add(sb, "all", w, rj); break;
	case 't':
		if (!n)
			fmt_add(sb, "n/a", w, rj);
		else
			fmt_add(sb, node_state_string_compact(r->state, buf, sizeof(buf)), w, rj);
		break;
	case 'T':
		if (!n)
			fmt_add(sb, "n/a", w, rj);
		else
			fmt_add(sb, node_state_string(r->state, buf, sizeof(buf)), w, rj);
		break;
	case 'u':
		if (n && n->reason && *n->reason)
			fmt_add(sb, n->reason_user ? n->reason_user : cmd_user_name(n->reason_uid), w, rj);
		else
			fmt_add(sb, "Unknown", w, rj);
		break;
	case 'U':
		if (n && n->reason && *n->reason) {
			snprintf(buf, sizeof(buf), "%s(%u)",
				 n->reason_user ? n->reason_user : cmd_user_name(n->reason_uid),
				 n->reason_uid);
			fmt_add(sb, buf, w, rj);
		} else {
			fmt_add(sb, "Unknown", w, rj);
		}
		break;
	case 'v': fmt_add(sb, n ? nz(n->version, "N/A") : "N/A", w, rj); break;
	case 'V': fmt_add(sb, "N/A", w, rj); break;
	case 'w': add_range64(sb, r->weight_min, r->weight_max, w, rj); break;
	case 'X': fmt_add_u(sb, n ? n->sockets : 0, w, rj); break;
	case 'Y': fmt_add_u(sb, n ? n->cores : 0, w, rj); break;
	case 'Z': fmt_add_u(sb, n ? n->threads : 0, w, rj); break;
	case 'z':
		if (n)
			snprintf(buf, sizeof(buf), "%u:%u:%u", n->sockets, n->cores, n->threads);
		else
			snprintf(buf, sizeof(buf), "0:0:0");
		fmt_add(sb, buf, w, rj);
		break;
	default: break;
	}
}

void print_sinfo_row(strbuf_t *sb, const fmt_t *f, const sinfo_row_t *r)
{
	for (size_t i = 0; i < f->n; i++) {
		node_field(sb, &f->f[i], r);
		strbuf_addstr(sb, f->f[i].suffix ? f->f[i].suffix : "");
	}
	strbuf_addch(sb, '\n');
}

void print_date_line(strbuf_t *sb, time_t now)
{
	char buf[64];
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
	strbuf_addstr(sb, buf);
	strbuf_addch(sb, '\n');
}

/* ---- sinfo -v ---- */

/* The match flags of Slurm's sinfo that -v shows, in its order. */
enum {
	VF_ALLOC_MEM, VF_AVAIL, VF_COMMENT, VF_CPUS, VF_DEFAULT_TIME, VF_DISK, VF_EXTRA,
	VF_FEATURES, VF_FEATURES_ACT, VF_GROUPS, VF_GRES, VF_GRES_USED, VF_JOB_SIZE,
	VF_MAX_TIME, VF_MEMORY, VF_PARTITION, VF_PORT, VF_PRIO_JOB_FACTOR, VF_PRIO_TIER,
	VF_REASON, VF_REASON_TIME, VF_REASON_USER, VF_ROOT, VF_OVERSUBSCRIBE, VF_STATE,
	VF_STATE_COMPLETE, VF_WEIGHT, VF_N
};

/* Which flag a -o letter sets (-1: none that -v shows). */
static int vflag_letter(int c)
{
	switch (c) {
	case 'a': return VF_AVAIL;
	case 'b': return VF_FEATURES_ACT;
	case 'c': case 'C': return VF_CPUS;
	case 'd': return VF_DISK;
	case 'E': return VF_REASON;
	case 'f': return VF_FEATURES;
	case 'g': return VF_GROUPS;
	case 'G': return VF_GRES;
	case 'h': return VF_OVERSUBSCRIBE;
	case 'H': return VF_REASON_TIME;
	case 'I': return VF_PRIO_JOB_FACTOR;
	case 'l': return VF_MAX_TIME;
	case 'L': return VF_DEFAULT_TIME;
	case 'm': return VF_MEMORY;
	case 'p': return VF_PRIO_TIER;
	case 'P': case 'R': return VF_PARTITION;
	case 'r': return VF_ROOT;
	case 's': return VF_JOB_SIZE;
	case 't': case 'T': return VF_STATE;
	case 'u': case 'U': return VF_REASON_USER;
	case 'w': return VF_WEIGHT;
	default: return -1;
	}
}

/* Which flag a -O name sets (-1: none that -v shows). */
static int vflag_name(const char *name, size_t len)
{
	static const struct { const char *name; int flag; } names[] = {
		{ "allocmem", VF_ALLOC_MEM }, { "available", VF_AVAIL },
		{ "comment", VF_COMMENT }, { "cpus", VF_CPUS }, { "cpusstate", VF_CPUS },
		{ "defaulttime", VF_DEFAULT_TIME }, { "disk", VF_DISK }, { "extra", VF_EXTRA },
		{ "features", VF_FEATURES }, { "features_act", VF_FEATURES_ACT },
		{ "groups", VF_GROUPS }, { "gres", VF_GRES }, { "gresused", VF_GRES_USED },
		{ "size", VF_JOB_SIZE }, { "time", VF_MAX_TIME }, { "memory", VF_MEMORY },
		{ "partition", VF_PARTITION }, { "partitionname", VF_PARTITION },
		{ "port", VF_PORT }, { "priorityjobfactor", VF_PRIO_JOB_FACTOR },
		{ "prioritytier", VF_PRIO_TIER }, { "reason", VF_REASON },
		{ "timestamp", VF_REASON_TIME }, { "user", VF_REASON_USER },
		{ "userlong", VF_REASON_USER }, { "root", VF_ROOT },
		{ "oversubscribe", VF_OVERSUBSCRIBE }, { "statecompact", VF_STATE },
		{ "statelong", VF_STATE }, { "statecomplete", VF_STATE_COMPLETE },
		{ "weight", VF_WEIGHT },
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i].name) == len && !strncasecmp(names[i].name, name, len))
			return names[i].flag;
	return -1;
}

/* "%all" / "all" set every flag a letter sets. */
static void vflags_all(int *fl)
{
	for (int c = 'A'; c <= 'z'; c++) {
		int f = vflag_letter(c);
		if (f >= 0)
			fl[f] = 1;
	}
}

static void vflags_from_format(const char *fmt, int is_long, int *fl)
{
	if (!fmt)
		return;
	if (!is_long) {
		if (!strcasecmp(fmt, "%all")) {
			vflags_all(fl);
			return;
		}
		for (const char *p = strchr(fmt, '%'); p; p = strchr(p, '%')) {
			p++;
			while (*p == '.' || (*p >= '0' && *p <= '9'))
				p++;
			int f = *p ? vflag_letter((unsigned char)*p) : -1;
			if (f >= 0)
				fl[f] = 1;
		}
		return;
	}
	for (const char *p = fmt; *p;) {
		size_t len = strcspn(p, ",");
		size_t name = strcspn(p, ":,");
		if (name > len)
			name = len;
		if (name == 3 && !strncasecmp(p, "all", 3)) {
			vflags_all(fl);
		} else {
			int f = vflag_name(p, name);
			if (f >= 0)
				fl[f] = 1;
		}
		p += len;
		if (*p == ',')
			p++;
	}
}

void print_sinfo_options(strbuf_t *sb, const sinfo_vopts_t *v)
{
	static const char rule[] = "-----------------------------\n";
	static const char *const names[VF_N] = {
		[VF_ALLOC_MEM] = "alloc_mem_flag  = ",
		[VF_AVAIL] = "avail_flag      = ",
		[VF_COMMENT] = "comment_flag    = ",
		[VF_CPUS] = "cpus_flag       = ",
		[VF_DEFAULT_TIME] = "default_time_flag =",
		[VF_DISK] = "disk_flag       = ",
		[VF_EXTRA] = "extra_flag      = ",
		[VF_FEATURES] = "features_flag   = ",
		[VF_FEATURES_ACT] = "features_flag_act = ",
		[VF_GROUPS] = "groups_flag     = ",
		[VF_GRES] = "gres_flag       = ",
		[VF_GRES_USED] = "gres_used_flag  = ",
		[VF_JOB_SIZE] = "job_size_flag   = ",
		[VF_MAX_TIME] = "max_time_flag   = ",
		[VF_MEMORY] = "memory_flag     = ",
		[VF_PARTITION] = "partition_flag  = ",
		[VF_PORT] = "port_flag       = ",
		[VF_PRIO_JOB_FACTOR] = "priority_job_factor_flag   = ",
		[VF_PRIO_TIER] = "priority_tier_flag   = ",
		[VF_REASON] = "reason_flag     = ",
		[VF_REASON_TIME] = "reason_timestamp_flag = ",
		[VF_REASON_USER] = "reason_user_flag = ",
		[VF_ROOT] = "root_flag       = ",
		[VF_OVERSUBSCRIBE] = "oversubscribe_flag      = ",
		[VF_STATE] = "state_flag      = ",
		[VF_STATE_COMPLETE] = "statecomplete_flag = ",
		[VF_WEIGHT] = "weight_flag     = ",
	};
	int fl[VF_N] = { 0 };
#define TF(x) ((x) ? "true" : "false")
	vflags_from_format(v->format, v->format_long, fl);
	strbuf_addstr(sb, rule);
	strbuf_addf(sb, "dead        = %s\n", TF(v->dead));
	strbuf_addf(sb, "exact       = %d\n", v->exact);
	strbuf_addf(sb, "filtering   = %s\n", TF(v->filtering));
	strbuf_addf(sb, "format      = %s\n", v->format ? v->format : "(null)");
	strbuf_addf(sb, "iterate     = %d\n", v->iterate);
	strbuf_addf(sb, "long        = %s\n", TF(v->long_fmt));
	strbuf_addf(sb, "no_header   = %s\n", TF(v->no_header));
	strbuf_addf(sb, "node_field  = %s\n", TF(v->node_field));
	strbuf_addf(sb, "node_format = %s\n", TF(v->node_flag));
	strbuf_addf(sb, "nodes       = %s\n", v->nodes ? v->nodes : "n/a");
	strbuf_addf(sb, "part_field  = %s\n", TF(v->part_field));
	strbuf_addf(sb, "partition   = %s\n", v->partition ? v->partition : "n/a");
	strbuf_addf(sb, "responding  = %s\n", TF(v->responding));
	strbuf_addf(sb, "states      = %s\n", v->states ? v->states : "(null)");
	strbuf_addf(sb, "sort        = %s\n", v->sort ? v->sort : "(null)");
	strbuf_addf(sb, "summarize   = %s\n", TF(v->summarize));
	strbuf_addf(sb, "verbose     = %d\n", v->verbose);
	strbuf_addstr(sb, rule);
	strbuf_addf(sb, "all_flag        = %s\n", TF(v->all_flag));
	for (int i = 0; i < VF_N; i++) {
		/* reservation_flag (-T) sits between reason_user and root */
		if (i == VF_ROOT)
			strbuf_addf(sb, "reservation_flag = %s\n", TF(v->reservation));
		strbuf_addf(sb, "%s%s\n", names[i], TF(fl[i]));
	}
#undef TF
	strbuf_addstr(sb, rule);
	strbuf_addch(sb, '\n');
}

/* ---- scontrol show node ---- */

static void sep(strbuf_t *sb, int one_liner)
{
	strbuf_addstr(sb, one_liner ? " " : "\n   ");
}

/* SlurmdPort of the config: Slurm prints a node's Port= only when it
 * differs from it. 0 (not set): always print it. */
static uint32_t default_slurmd_port;

void print_node_set_slurmd_port(uint32_t port)
{
	default_slurmd_port = port;
}

void print_node_scontrol(strbuf_t *sb, const node_info_t *n, int one_liner)
{
	print_node_scontrol_detail(sb, n, one_liner, 0);
}

void print_node_scontrol_detail(strbuf_t *sb, const node_info_t *n, int one_liner, int detail)
{
	char b1[64], b2[64];
	/* As Slurm: what only a registration tells (Arch, OS, Version, the
	 * load) is left out, or N/A, for a node that never registered. */
	int registered = n->slurmd_start_time || n->version;
	strbuf_addf(sb, "NodeName=%s ", n->name);
	if (n->arch && *n->arch)
		strbuf_addf(sb, "Arch=%s ", n->arch);
	strbuf_addf(sb, "CoresPerSocket=%u ", n->cores);
	sep(sb, one_liner);
	strbuf_addf(sb, "CPUAlloc=%u CPUEfctv=%u CPUTot=%u ", n->cpus_alloc,
		    n->cpus_efctv ? n->cpus_efctv : n->cpus, n->cpus);
	if (registered)
		strbuf_addf(sb, "CPULoad=%.2f", n->cpu_load / 100.0);
	else
		strbuf_addstr(sb, "CPULoad=N/A");
	sep(sb, one_liner);
	strbuf_addf(sb, "AvailableFeatures=%s", nz(n->features, "(null)"));
	sep(sb, one_liner);
	strbuf_addf(sb, "ActiveFeatures=%s", nz(n->features_active, nz(n->features, "(null)")));
	sep(sb, one_liner);
	strbuf_addf(sb, "Gres=%s", nz(n->gres, "(null)"));
	sep(sb, one_liner);
	if (detail) {
		strbuf_addstr(sb, "GresDrain=N/A");
		sep(sb, one_liner);
		strbuf_addf(sb, "GresUsed=%s", nz(n->gres_used, "(null)"));
		sep(sb, one_liner);
	}
	strbuf_addf(sb, "NodeAddr=%s NodeHostName=%s ", nz(n->addr, n->name),
		    nz(n->hostname, n->name));
	if (n->port != default_slurmd_port)
		strbuf_addf(sb, "Port=%u ", n->port);
	if (n->version && *n->version)
		strbuf_addf(sb, "Version=%s", n->version);
	sep(sb, one_liner);
	if (n->os && *n->os) {
		strbuf_addf(sb, "OS=%s ", n->os);
		sep(sb, one_liner);
	}
	strbuf_addf(sb, "RealMemory=%" PRIu64 " AllocMem=%" PRIu64 " FreeMem=", n->real_memory,
		    n->alloc_mem);
	if (n->free_mem)
		strbuf_addf(sb, "%" PRIu64, n->free_mem);
	else
		strbuf_addstr(sb, "N/A");
	strbuf_addf(sb, " Sockets=%u Boards=%u", n->sockets, n->boards ? n->boards : 1);
	sep(sb, one_liner);
	strbuf_addf(sb, "State=%s ThreadsPerCore=%u TmpDisk=%" PRIu64 " Weight=%u Owner=N/A MCS_label=N/A",
		    node_state_string_scontrol(n->state, b1, sizeof(b1)), n->threads,
		    n->tmp_disk, n->weight);
	if (n->partitions && *n->partitions) {
		sep(sb, one_liner);
		strbuf_addf(sb, "Partitions=%s ", n->partitions);
	}
	sep(sb, one_liner);
	if (n->boot_time)
		time_fmt_iso((time_t)n->boot_time, b1, sizeof(b1));
	else
		snprintf(b1, sizeof(b1), "None");
	if (n->slurmd_start_time)
		time_fmt_iso((time_t)n->slurmd_start_time, b2, sizeof(b2));
	else
		snprintf(b2, sizeof(b2), "None");
	strbuf_addf(sb, "BootTime=%s SlurmdStartTime=%s", b1, b2);
	sep(sb, one_liner);
	if (n->last_busy)
		time_fmt_iso((time_t)n->last_busy, b1, sizeof(b1));
	else
		snprintf(b1, sizeof(b1), "Unknown");
	strbuf_addf(sb, "LastBusyTime=%s", b1);
	sep(sb, one_liner);
	strbuf_addf(sb, "CfgTRES=%s", nz(n->cfg_tres, ""));
	sep(sb, one_liner);
	strbuf_addf(sb, "AllocTRES=%s", nz(n->alloc_tres, ""));
	sep(sb, one_liner);
	strbuf_addstr(sb, "CapWatts=n/a");
	sep(sb, one_liner);
	strbuf_addstr(sb, "CurrentWatts=0 AveWatts=0");
	sep(sb, one_liner);
	strbuf_addstr(sb, "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s");
	if (n->reason && *n->reason) {
		sep(sb, one_liner);
		if (n->reason_time)
			time_fmt_iso((time_t)n->reason_time, b1, sizeof(b1));
		else
			snprintf(b1, sizeof(b1), "Unknown");
		strbuf_addf(sb, "Reason=%s [%s@%s]", n->reason,
			    n->reason_user ? n->reason_user : cmd_user_name(n->reason_uid), b1);
	}
	/* Comment= and Extra= each on a line of their own, only when set */
	if (n->comment) {
		sep(sb, one_liner);
		strbuf_addf(sb, "Comment=%s", n->comment);
	}
	if (n->extra) {
		sep(sb, one_liner);
		strbuf_addf(sb, "Extra=%s", n->extra);
	}
	strbuf_addstr(sb, one_liner ? "\n" : "\n\n");
}

/* ---- JSON (sinfo --json, scontrol show node --json) ---- */

/* A writer for Slurm's serializer/json pretty layout: two-space indent,
 * "key": value, every container closed on a line of its own. */
struct jw {
	strbuf_t *sb;
	int depth;
	int first[16];
};

static void jw_indent(struct jw *w)
{
	for (int i = 0; i < w->depth; i++)
		strbuf_addstr(w->sb, "  ");
}

static void jw_item(struct jw *w, const char *key)
{
	strbuf_addstr(w->sb, w->first[w->depth] ? "\n" : ",\n");
	w->first[w->depth] = 0;
	jw_indent(w);
	if (key)
		strbuf_addf(w->sb, "\"%s\": ", key);
}

static void jw_open(struct jw *w, const char *key, char c)
{
	if (w->depth >= 0 && (key || w->depth))
		jw_item(w, key);
	strbuf_addch(w->sb, c);
	w->depth++;
	w->first[w->depth] = 1;
}

static void jw_close(struct jw *w, char c)
{
	w->depth--;
	strbuf_addch(w->sb, '\n');
	jw_indent(w);
	strbuf_addch(w->sb, c);
}

static void jw_str(struct jw *w, const char *key, const char *v)
{
	jw_item(w, key);
	if (!v) {
		strbuf_addstr(w->sb, "null");
		return;
	}
	strbuf_addch(w->sb, '"');
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		switch (*p) {
		case '"': strbuf_addstr(w->sb, "\\\""); break;
		case '\\': strbuf_addstr(w->sb, "\\\\"); break;
		case '/': strbuf_addstr(w->sb, "\\/"); break;
		case '\n': strbuf_addstr(w->sb, "\\n"); break;
		case '\t': strbuf_addstr(w->sb, "\\t"); break;
		case '\r': strbuf_addstr(w->sb, "\\r"); break;
		default:
			if (*p < 0x20)
				strbuf_addf(w->sb, "\\u%04x", *p);
			else
				strbuf_addch(w->sb, (char)*p);
		}
	}
	strbuf_addch(w->sb, '"');
}

static void jw_int(struct jw *w, const char *key, long long v)
{
	jw_item(w, key);
	strbuf_addf(w->sb, "%lld", v);
}

static void jw_null(struct jw *w, const char *key)
{
	jw_item(w, key);
	strbuf_addstr(w->sb, "null");
}

/* "cpu=6,mem=10G" -> the CPU count, which is what the billing-weighted
 * TRES of a node comes to with no TRESBillingWeights. */
static double tres_cpus(const char *tres)
{
	const char *p = tres ? strstr(tres, "cpu=") : NULL;
	return p ? strtod(p + 4, NULL) : 0.0;
}

void print_nodes_json(strbuf_t *sb, const node_info_t *nodes, size_t cnt)
{
	struct jw w = { .sb = sb, .depth = 0 };
	w.first[0] = 1;
	strbuf_addch(sb, '{');
	w.depth = 1;
	w.first[1] = 1;
	jw_open(&w, "meta", '{');
	jw_open(&w, "plugin", '{');
	jw_str(&w, "type", "openapi/v0.0.38");
	jw_str(&w, "name", "Slurm OpenAPI v0.0.38");
	jw_close(&w, '}');
	jw_open(&w, "Slurm", '{');
	jw_open(&w, "version", '{');
	jw_int(&w, "major", 22);
	jw_int(&w, "micro", 8);
	jw_int(&w, "minor", 5);
	jw_close(&w, '}');
	jw_str(&w, "release", SLURM_COMPAT_VERSION);
	jw_close(&w, '}');
	jw_close(&w, '}');
	jw_open(&w, "errors", '[');
	jw_close(&w, ']');
	jw_open(&w, "nodes", '[');
	for (size_t i = 0; i < cnt; i++) {
		const node_info_t *n = &nodes[i];
		char st[256];
		jw_open(&w, NULL, '{');
		jw_str(&w, "architecture", nz(n->arch, ""));
		jw_str(&w, "burstbuffer_network_address", "");
		jw_int(&w, "boards", n->boards ? n->boards : 1);
		jw_int(&w, "boot_time", n->boot_time);
		jw_str(&w, "comment", nz(n->comment, ""));
		jw_int(&w, "cores", n->cores);
		jw_int(&w, "cpu_binding", 0);
		jw_int(&w, "cpu_load", n->cpu_load);
		jw_str(&w, "extra", nz(n->extra, ""));
		jw_int(&w, "free_memory", (long long)n->free_mem);
		jw_int(&w, "cpus", n->cpus);
		jw_int(&w, "last_busy", n->last_busy);
		jw_str(&w, "features", nz(n->features, ""));
		jw_str(&w, "active_features", nz(n->features_active, nz(n->features, "")));
		jw_str(&w, "gres", nz(n->gres, ""));
		jw_str(&w, "gres_drained", "N/A");
		jw_str(&w, "gres_used", nz(n->gres_used, ""));
		jw_str(&w, "mcs_label", "");
		jw_str(&w, "name", n->name);
		jw_str(&w, "next_state_after_reboot", "invalid");
		jw_str(&w, "address", nz(n->addr, n->name));
		jw_str(&w, "hostname", nz(n->hostname, n->name));
		/* "IDLE+DRAIN+PLANNED": the base in lower case, then the flags */
		node_state_string_scontrol(n->state, st, sizeof(st));
		char *plus = strchr(st, '+');
		if (plus)
			*plus = '\0';
		for (char *p = st; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		jw_str(&w, "state", st);
		jw_open(&w, "state_flags", '[');
		if (plus) {
			char *save = NULL;
			for (char *t = strtok_r(plus + 1, "+", &save); t; t = strtok_r(NULL, "+", &save))
				jw_str(&w, NULL, t);
		}
		jw_close(&w, ']');
		jw_open(&w, "next_state_after_reboot_flags", '[');
		jw_close(&w, ']');
		jw_str(&w, "operating_system", nz(n->os, ""));
		jw_null(&w, "owner");
		jw_open(&w, "partitions", '[');
		if (n->partitions && *n->partitions) {
			char *copy = xstrdup(n->partitions), *save = NULL;
			for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
				jw_str(&w, NULL, t);
			free(copy);
		}
		jw_close(&w, ']');
		jw_int(&w, "port", n->port);
		jw_int(&w, "real_memory", (long long)n->real_memory);
		jw_str(&w, "reason", nz(n->reason, ""));
		jw_int(&w, "reason_changed_at", n->reason && *n->reason ? n->reason_time : 0);
		if (n->reason && *n->reason)
			jw_str(&w, "reason_set_by_user",
			       n->reason_user ? n->reason_user : cmd_user_name(n->reason_uid));
		else
			jw_null(&w, "reason_set_by_user");
		jw_int(&w, "slurmd_start_time", n->slurmd_start_time);
		jw_int(&w, "sockets", n->sockets);
		jw_int(&w, "threads", n->threads);
		jw_int(&w, "temporary_disk", (long long)n->tmp_disk);
		jw_int(&w, "weight", n->weight);
		jw_str(&w, "tres", nz(n->cfg_tres, ""));
		jw_str(&w, "slurmd_version", nz(n->version, ""));
		jw_int(&w, "alloc_memory", (long long)n->alloc_mem);
		jw_int(&w, "alloc_cpus", n->cpus_alloc);
		jw_int(&w, "idle_cpus", n->cpus > n->cpus_alloc ? n->cpus - n->cpus_alloc : 0);
		if (n->alloc_tres && *n->alloc_tres)
			jw_str(&w, "tres_used", n->alloc_tres);
		else
			jw_null(&w, "tres_used");
		jw_item(&w, "tres_weighted");
		strbuf_addf(sb, "%.1f", tres_cpus(n->alloc_tres));
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	w.depth = 0;
	strbuf_addstr(sb, "\n}");
}
