/*
 * sreport: reports from the usage rollups, as Slurm 22.05's sreport prints
 * them (../shared/compat/slurm-22.05/sreport_*): cluster Utilization,
 * cluster AccountUtilizationByUser (and Tree), cluster
 * UserUtilizationByAccount, user TopUsage, job SizesByAccount (from
 * the job records, not the rollups), reservation Utilization (from the
 * reservation and job records: report=resv, acct_sreport_resv.c).
 *
 * The range: start= (default yesterday 00:00) and end= (default today
 * 00:00, no later than now), each at the nearest whole hour as Slurm
 * rounds them; the title shows end - 1 s. One MSG_ACCT_REQ (ACCT_OP_SREPORT) returns the
 * summed TRES-seconds; the times are printed per -t as Slurm does ("%.0f"
 * of minutes or hours, percentages of the cluster's Reported time), in
 * print_fields' layout (right-justified, cut to the width; -p/-P '|').
 */
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "errors.h"
#include "log.h"
#include "net.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

/* LIM_TRES_* order of the controller: cpu, mem, node, gres/gpu, billing */
static const char *const tres_names[] = { "cpu", "mem", "node", "gres/gpu", "billing" };
#define NTRES 5

enum tfmt { T_SECS, T_MINS, T_HOURS, T_PERCENT, T_SECS_PER, T_MINS_PER, T_HOURS_PER };

typedef struct rep {
	int parsable;          /* 1: -p, 2: -P */
	int noheader;
	enum tfmt tf;
	int tres[NTRES];       /* TRES reported, in order */
	int ntres;
	int cpu_only;
	int64_t start, end;
	int tree;
	uint32_t top;
	strv_t users, accounts;
	const char *cluster;
	strbuf_t out;
} rep_t;

static int parse_tfmt(const char *s, enum tfmt *t)
{
	static const struct { const char *name; enum tfmt t; } names[] = {
		{ "s", T_SECS }, { "sec", T_SECS }, { "secs", T_SECS }, { "seconds", T_SECS },
		{ "m", T_MINS }, { "min", T_MINS }, { "mins", T_MINS }, { "minutes", T_MINS },
		{ "h", T_HOURS }, { "hour", T_HOURS }, { "hours", T_HOURS },
		{ "p", T_PERCENT }, { "percent", T_PERCENT },
		{ "sper", T_SECS_PER }, { "secper", T_SECS_PER }, { "secondsper", T_SECS_PER },
		{ "mper", T_MINS_PER }, { "minper", T_MINS_PER }, { "minutesper", T_MINS_PER },
		{ "hper", T_HOURS_PER }, { "hourper", T_HOURS_PER }, { "hoursper", T_HOURS_PER },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].name)) {
			*t = names[i].t;
			return 0;
		}
	return -1;
}

static const char *tf_unit(enum tfmt t)
{
	switch (t) {
	case T_SECS: return "Seconds";
	case T_HOURS: return "Hours";
	case T_PERCENT: return "Percentage of Total";
	case T_SECS_PER: return "Seconds/Percentage of Total";
	case T_MINS_PER: return "Minutes/Percentage of Total";
	case T_HOURS_PER: return "Hours/Percentage of Total";
	default: return "Minutes";
	}
}

static int tf_per(enum tfmt t)
{
	return t == T_SECS_PER || t == T_MINS_PER || t == T_HOURS_PER;
}

/* One time value as Slurm's sreport prints it. */
static char *time_str(const rep_t *r, double v, double total)
{
	double pct = total > 0 ? v * 100 / total : 0;
	switch (r->tf) {
	case T_SECS: return xasprintf("%.0f", v);
	case T_HOURS: return xasprintf("%.0f", v / 3600);
	case T_PERCENT: return xasprintf("%.2f%%", pct);
	case T_SECS_PER: return xasprintf("%.0f(%.2f%%)", v, pct);
	case T_MINS_PER: return xasprintf("%.0f(%.2f%%)", v / 60, pct);
	case T_HOURS_PER: return xasprintf("%.0f(%.2f%%)", v / 3600, pct);
	default: return xasprintf("%.0f", v / 60);
	}
}

/* print_fields: right-justified, cut to the width (negative width: left);
 * parsable: '|' after (2: not after the last). */
static void put(rep_t *r, const char *v, int width, int last)
{
	if (r->parsable) {
		strbuf_addstr(&r->out, v);
		if (r->parsable == 1 || !last)
			strbuf_addch(&r->out, '|');
		return;
	}
	int w = width < 0 ? -width : width;
	int n = (int)cmd_cut_len(v, strlen(v), (size_t)w);
	strbuf_addf(&r->out, width < 0 ? "%-*.*s " : "%*.*s ", w, n, v);
}

typedef struct colspec {
	const char *name;
	int width;
} colspec_t;

static void banner(rep_t *r, const char *title, int secs)
{
	if (r->noheader)
		return;
	char a[32], b[32];
	time_fmt_iso((time_t)r->start, a, sizeof(a));
	time_fmt_iso((time_t)(r->end - 1), b, sizeof(b));
	strbuf_addstr(&r->out, "--------------------------------------------------------------------------------\n");
	strbuf_addf(&r->out, "%s %s - %s", title, a, b);
	if (secs)
		strbuf_addf(&r->out, " (%lld secs)", (long long)(r->end - r->start));
	strbuf_addf(&r->out, "\nUsage reported in %s %s\n", r->cpu_only ? "CPU" : "TRES",
		    tf_unit(r->tf));
	strbuf_addstr(&r->out, "--------------------------------------------------------------------------------\n");
}

static void header(rep_t *r, const colspec_t *c, size_t n)
{
	if (r->noheader)
		return;
	for (size_t i = 0; i < n; i++)
		put(r, c[i].name, c[i].width, i + 1 == n);
	strbuf_addch(&r->out, '\n');
	if (r->parsable)
		return;
	for (size_t i = 0; i < n; i++) {
		int w = c[i].width < 0 ? -c[i].width : c[i].width;
		for (int k = 0; k < w; k++)
			strbuf_addch(&r->out, '-');
		strbuf_addch(&r->out, ' ');
	}
	strbuf_addch(&r->out, '\n');
}

/* ---- the reply ---- */

typedef struct row {
	const char *kind, *account, *user, *lineage;
	int tres;
	double v[6];            /* alloc, down, pdown, idle, planned, reported */
} row_t;

typedef struct rows {
	row_t *r;
	uint32_t n;
	double reported[NTRES];
} rows_t;

/* Ask the controller for report over r's range, with more "key=value"
 * arguments (NULL-terminated, may be NULL). Errors are printed (a failed
 * call as "Problem with query", the controller's refusal after
 * refused_prefix) and give NULL; the caller destroys the reply. */
static msg_acct_reply_t *query(const rep_t *r, const char *report, const char *const *extra,
			       const char *refused_prefix)
{
	msg_acct_req_t req = { .op = ACCT_OP_SREPORT };
	char *a = xasprintf("report=%s", report);
	strv_push(&req.args, a);
	free(a);
	a = xasprintf("start=%lld", (long long)r->start);
	strv_push(&req.args, a);
	free(a);
	a = xasprintf("end=%lld", (long long)r->end);
	strv_push(&req.args, a);
	free(a);
	for (size_t i = 0; extra && extra[i]; i++)
		strv_push(&req.args, extra[i]);
	void *reply = NULL;
	int err = cmd_call(MSG_ACCT_REQ, &req, MSG_ACCT_REPLY, &reply, NULL);
	strv_free(&req.args);
	if (err) {
		fprintf(stderr, "sreport: error: Problem with query: %s\n", slurm_strerror(err));
		return NULL;
	}
	msg_acct_reply_t *m = reply;
	if (m->rc) {
		fprintf(stderr, "%s%s\n", refused_prefix, m->msg ? m->msg : slurm_strerror(m->rc));
		proto_msg_destroy(MSG_ACCT_REPLY, reply);
		return NULL;
	}
	return m;
}

static int fetch(rep_t *r, const char *report, rows_t *out, void **reply)
{
	msg_acct_reply_t *m = query(r, report, NULL, "sreport: error: ");
	*reply = m;
	if (!m)
		return -1;
	uint32_t nc = m->cols.n;
	if (nc < 12)
		return 0;
	uint32_t n = m->cells.n / nc;
	out->r = xcalloc(n ? n : 1, sizeof(row_t));
	for (uint32_t i = 0; i < n; i++) {
		char **c = &m->cells.v[i * nc];
		row_t *x = &out->r[out->n++];
		x->kind = c[0];
		x->tres = atoi(c[1]);
		x->account = c[3];
		x->user = c[4];
		x->lineage = c[5];
		for (int k = 0; k < 6; k++)
			x->v[k] = strtod(c[6 + k], NULL);
		if (!strcmp(x->kind, "cluster") && x->tres >= 0 && x->tres < NTRES)
			out->reported[x->tres] = x->v[5];
	}
	return 0;
}

/* ---- cluster Utilization ---- */

static void cluster_util(rep_t *r, const rows_t *rows)
{
	int per = tf_per(r->tf);
	colspec_t c[8];
	size_t n = 0;
	c[n++] = (colspec_t){ "Cluster", 9 };
	if (!r->cpu_only)
		c[n++] = (colspec_t){ "TRES Name", 14 };
	int w = per ? 17 : 8;
	const char *names[] = { "Allocated", "Down", "PLND Down", "Idle", "Planned", "Reported" };
	for (int k = 0; k < 6; k++)
		c[n++] = (colspec_t){ names[k], w };
	banner(r, "Cluster Utilization", 0);
	header(r, c, n);
	for (int t = 0; t < r->ntres; t++) {
		const row_t *x = NULL;
		for (uint32_t i = 0; i < rows->n; i++)
			if (!strcmp(rows->r[i].kind, "cluster") && rows->r[i].tres == r->tres[t])
				x = &rows->r[i];
		if (!x)
			continue;
		size_t col = 0;
		put(r, r->cluster, 9, ++col == n);
		if (!r->cpu_only)
			put(r, tres_names[x->tres], 14, ++col == n);
		/* columns: Allocated Down PLND-Down Idle Planned Reported */
		const int order[] = { 0, 1, 2, 3, 4, 5 };
		for (int k = 0; k < 6; k++) {
			char *s = time_str(r, x->v[order[k]], x->v[5]);
			put(r, s, w, ++col == n);
			free(s);
		}
		strbuf_addch(&r->out, '\n');
	}
}

/* ---- associations ---- */

/* The passwd names and GECOS names, read once (a report of 1,000 users
 * would otherwise scan the passwd database 1,000 times). */
typedef struct pw_ent {
	char *name, *gecos;
} pw_ent_t;
static pw_ent_t *pw_tab;
static size_t pw_n;

static int pw_cmp(const void *a, const void *b)
{
	return strcmp(((const pw_ent_t *)a)->name, ((const pw_ent_t *)b)->name);
}

static const char *proper_name(const char *login, char *buf, size_t len)
{
	static int loaded;
	buf[0] = 0;
	if (!loaded) {
		size_t cap = 0;
		struct passwd *pw;
		loaded = 1;
		setpwent();
		while ((pw = getpwent())) {
			pw_tab = xgrow(pw_tab, sizeof(*pw_tab), pw_n + 1, &cap);
			pw_tab[pw_n].name = xstrdup(pw->pw_name);
			pw_tab[pw_n].gecos = xstrdup(pw->pw_gecos ? pw->pw_gecos : "");
			pw_n++;
		}
		endpwent();
		qsort(pw_tab, pw_n, sizeof(*pw_tab), pw_cmp);
	}
	pw_ent_t key = { (char *)login, NULL };
	const pw_ent_t *e = login && *login && pw_n ? bsearch(&key, pw_tab, pw_n, sizeof(*pw_tab), pw_cmp)
						   : NULL;
	if (e) {
		snprintf(buf, len, "%s", e->gecos);
		char *comma = strchr(buf, ',');
		if (comma)
			*comma = 0;
	}
	return buf;
}

typedef struct acct_sum {
	char *lineage;          /* "root/a" */
	const char *account;    /* last part */
	int depth;
	double used[NTRES];
} acct_sum_t;

static int in_list(const strv_t *l, const char *s)
{
	if (!l->n)
		return 1;
	for (uint32_t i = 0; i < l->n; i++)
		if (!strcasecmp(l->v[i], s))
			return 1;
	return 0;
}

static int lin_cmp(const void *a, const void *b)
{
	const acct_sum_t *x = a, *y = b;
	return strcmp(x->lineage, y->lineage);
}

/* The association rows of the reply, sorted by (lineage, user, tres) or
 * by (user, lineage, tres): one association's rows, an account's users
 * and a user's associations are then runs, found without a scan. */
static int by_lin_user(const void *a, const void *b)
{
	const row_t *x = *(const row_t *const *)a, *y = *(const row_t *const *)b;
	int c = strcmp(x->lineage, y->lineage);
	if (!c)
		c = strcmp(x->user, y->user);
	return c ? c : x->tres - y->tres;
}

static int by_user_lin(const void *a, const void *b)
{
	const row_t *x = *(const row_t *const *)a, *y = *(const row_t *const *)b;
	int c = strcmp(x->user, y->user);
	if (!c)
		c = strcmp(x->lineage, y->lineage);
	return c ? c : x->tres - y->tres;
}

static uint32_t assoc_rows(const rows_t *rows, int (*cmp)(const void *, const void *),
			   const row_t ***out)
{
	const row_t **v = xcalloc(rows->n + 1, sizeof(*v));
	uint32_t n = 0;
	for (uint32_t i = 0; i < rows->n; i++)
		if (!strcmp(rows->r[i].kind, "assoc") && rows->r[i].tres >= 0 && rows->r[i].tres < NTRES)
			v[n++] = &rows->r[i];
	qsort(v, n, sizeof(*v), cmp);
	*out = v;
	return n;
}

/* The accounts (every prefix of a lineage that has usage) with their
 * subtree's usage, in tree order: each association's usage is added to
 * every account on its lineage, found by bisection (n x depth x log n). */
static uint32_t account_sums(const row_t *const *as, uint32_t nas, acct_sum_t **out)
{
	acct_sum_t *a = NULL;
	uint32_t n = 0;
	size_t cap = 0;
	for (uint32_t i = 0; i < nas; i++) {
		if (i && !strcmp(as[i]->lineage, as[i - 1]->lineage))
			continue;
		const char *lin = as[i]->lineage;
		for (const char *p = lin;; p++)
			if (!*p || *p == '/') {
				a = xgrow(a, sizeof(*a), n + 1, &cap);
				memset(&a[n], 0, sizeof(a[n]));
				a[n++].lineage = xstrndup(lin, (size_t)(p - lin));
				if (!*p)
					break;
			}
	}
	qsort(a, n, sizeof(*a), lin_cmp);
	uint32_t u = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (u && !strcmp(a[u - 1].lineage, a[k].lineage)) {
			free(a[k].lineage);
			continue;
		}
		a[u++] = a[k];
	}
	n = u;
	for (uint32_t k = 0; k < n; k++) {
		const char *slash = strrchr(a[k].lineage, '/');
		a[k].account = slash ? slash + 1 : a[k].lineage;
		for (const char *p = a[k].lineage; *p; p++)
			a[k].depth += *p == '/';
	}
	char *buf = NULL;
	for (uint32_t i = 0; i < nas; i++) {
		free(buf);
		buf = xstrdup(as[i]->lineage);
		for (char *p = buf;; p++)
			if (!*p || *p == '/') {
				char keep = *p;
				*p = 0;
				acct_sum_t key = { .lineage = buf };
				acct_sum_t *e = bsearch(&key, a, n, sizeof(*a), lin_cmp);
				if (e)
					e->used[as[i]->tres] += as[i]->v[0];
				*p = keep;
				if (!keep)
					break;
			}
	}
	free(buf);
	*out = a;
	return n;
}

/* The cluster's Reported per TRES (percentages are of it). */
static double sreport_total[NTRES];

/* The lead cells, then Used and Energy (CPU only) or one line per TRES
 * with its name and Used. */
static void assoc_line(rep_t *r, const char *const *lead, const int *lw, size_t nlead,
		       const double *used)
{
	int w = tf_per(r->tf) ? 17 : 8;
	for (int t = 0; t < r->ntres; t++) {
		int k = r->tres[t];
		size_t ncol = nlead + 2, col = 0;
		for (size_t i = 0; i < nlead; i++)
			put(r, lead[i], lw[i], ++col == ncol);
		char *s = time_str(r, used[k], sreport_total[k]);
		if (r->cpu_only) {
			put(r, s, w, ++col == ncol);
			char *e = time_str(r, 0, sreport_total[k]);
			put(r, e, w, ++col == ncol);
			free(e);
		} else {
			put(r, tres_names[k], 14, ++col == ncol);
			put(r, s, w, ++col == ncol);
		}
		free(s);
		strbuf_addch(&r->out, '\n');
	}
}

static int by_used_desc(const void *a, const void *b)
{
	const row_t *x = *(const row_t *const *)a, *y = *(const row_t *const *)b;
	double u = x->v[0], v = y->v[0];
	if (u != v)
		return u < v ? 1 : -1;
	return strcmp(x->user, y->user);
}

static void lead_cols(rep_t *r, colspec_t *c, size_t *n, const char *const *names, const int *w,
		      size_t k)
{
	for (size_t i = 0; i < k; i++)
		c[(*n)++] = (colspec_t){ names[i], w[i] };
	int uw = tf_per(r->tf) ? 17 : 8;
	if (r->cpu_only) {
		c[(*n)++] = (colspec_t){ "Used", uw };
		c[(*n)++] = (colspec_t){ "Energy", uw };
	} else {
		c[(*n)++] = (colspec_t){ "TRES Name", 14 };
		c[(*n)++] = (colspec_t){ "Used", uw };
	}
}

static void account_by_user(rep_t *r, const rows_t *rows)
{
	colspec_t c[8];
	size_t n = 0;
	const char *names[] = { "Cluster", "Account", "Login", "Proper Name" };
	int w[] = { 9, r->tree ? -20 : 15, 9, 15 };
	lead_cols(r, c, &n, names, w, 4);
	banner(r, "Cluster/Account/User Utilization", 1);
	header(r, c, n);
	const row_t **as;
	uint32_t nas = assoc_rows(rows, by_lin_user, &as);
	acct_sum_t *a;
	uint32_t na = account_sums(as, nas, &a);
	uint32_t i = 0;       /* as[i]: the first row of a[k]'s lineage or later */
	for (uint32_t k = 0; k < na; k++) {
		while (i < nas && strcmp(as[i]->lineage, a[k].lineage) < 0)
			i++;
		if (!in_list(&r->accounts, a[k].account))
			continue;
		char *acc = r->tree ? xasprintf("%*s%s", a[k].depth, "", a[k].account) : xstrdup(a[k].account);
		const char *lead[] = { r->cluster, acc, "", "" };
		if (!r->users.n)
			assoc_line(r, lead, w, 4, a[k].used);
		/* its users, by name: the run of its lineage, sorted by user */
		for (uint32_t j = i; j < nas && !strcmp(as[j]->lineage, a[k].lineage);) {
			const row_t *x = as[j];
			double used[NTRES] = { 0 };
			for (; j < nas && !strcmp(as[j]->lineage, x->lineage) && !strcmp(as[j]->user, x->user); j++)
				used[as[j]->tres] += as[j]->v[0];
			if (!*x->user || !in_list(&r->users, x->user))
				continue;
			char pn[128];
			const char *ul[] = { r->cluster, acc, x->user, proper_name(x->user, pn, sizeof(pn)) };
			assoc_line(r, ul, w, 4, used);
		}
		free(acc);
	}
	for (uint32_t k = 0; k < na; k++)
		free(a[k].lineage);
	free(a);
	free(as);
}

/* Whether the comma-separated list has the item. */
static int has_item(const char *list, const char *item)
{
	size_t l = strlen(item);
	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, item, l) && (p[l] == ',' || !p[l]))
			return 1;
	return 0;
}

/* user rows: (user, account) pairs, or per user with top (TopUsage). */
static void user_rows(rep_t *r, const rows_t *rows, int top)
{
	colspec_t c[8];
	size_t n = 0;
	const char *names[] = { "Cluster", "Login", "Proper Name", "Account" };
	int w[] = { 9, 9, 15, 15 };
	lead_cols(r, c, &n, names, w, 4);
	if (top) {
		char *t = xasprintf("Top %u Users", r->top);
		banner(r, t, 1);
		free(t);
	} else {
		banner(r, "Cluster/User/Account Utilization", 1);
	}
	header(r, c, n);
	/* one entry per (user, lineage) or per user, by the first TRES: runs
	 * of the rows sorted by (user, lineage) */
	typedef struct ent { row_t r; char accts[256]; double used[NTRES]; } ent_t;
	const row_t **as;
	uint32_t nas = assoc_rows(rows, by_user_lin, &as);
	ent_t *e = xcalloc(nas + 1, sizeof(*e));
	uint32_t ne = 0;
	for (uint32_t i = 0; i < nas; i++) {
		const row_t *x = as[i];
		if (!*x->user || !in_list(&r->users, x->user) || !in_list(&r->accounts, x->account))
			continue;
		ent_t *cur = ne ? &e[ne - 1] : NULL;
		if (!cur || strcmp(cur->r.user, x->user) || (!top && strcmp(cur->r.lineage, x->lineage))) {
			cur = &e[ne++];
			cur->r = *x;
			snprintf(cur->accts, sizeof(cur->accts), "%s", x->account);
		} else if (top && strcmp(cur->r.lineage, x->lineage) && !has_item(cur->accts, x->account)) {
			size_t l = strlen(cur->accts);
			snprintf(cur->accts + l, sizeof(cur->accts) - l, ",%s", x->account);
			cur->r.lineage = x->lineage;
		}
		cur->used[x->tres] += x->v[0];
	}
	free(as);
	for (uint32_t j = 0; j < ne; j++)
		e[j].r.v[0] = e[j].used[r->tres[0]];
	const row_t **order = xcalloc(ne + 1, sizeof(*order));
	for (uint32_t j = 0; j < ne; j++)
		order[j] = &e[j].r;
	qsort(order, ne, sizeof(*order), by_used_desc);
	for (uint32_t j = 0; j < ne && (!top || j < r->top); j++) {
		const ent_t *x = (const ent_t *)(const void *)order[j];
		char pn[128];
		const char *lead[] = { r->cluster, x->r.user, proper_name(x->r.user, pn, sizeof(pn)),
				       x->accts };
		assoc_line(r, lead, w, 4, x->used);
	}
	free(order);
	free(e);
}

/* ---- job SizesByAccount ---- */

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int sreport_grouping(const char *s, uint32_t *edges, int max)
{
	int n = 0;
	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		if (end == s || (*end && *end != ',') || v > UINT32_MAX)
			return -1;
		if (v && n < max)
			edges[n++] = (uint32_t)v;
		s = *end ? end + 1 : end;
	}
	qsort(edges, (size_t)n, sizeof(*edges), u32_cmp);
	int m = 0;
	for (int i = 0; i < n; i++)
		if (!m || edges[m - 1] != edges[i])
			edges[m++] = edges[i];
	return m;
}

int sreport_size_bucket(const uint32_t *edges, int n, uint32_t cpus)
{
	int b = 0;
	while (b < n && edges[b] <= cpus)
		b++;
	return b;
}

char *sreport_size_label(const uint32_t *edges, int n, int b)
{
	if (b >= n)
		return xasprintf(">= %u CPUs", n ? edges[n - 1] : 0);
	return xasprintf("%u-%u CPUs", b ? edges[b - 1] : 0, edges[b] - 1);
}

#define MAX_EDGES 32

typedef struct size_opts {
	uint32_t edges[MAX_EDGES];
	int nedges;
	int flat, count;
	strv_t partitions;
} size_opts_t;

typedef struct size_row {
	char *account;
	double v[MAX_EDGES + 1];
	double total;
} size_row_t;

/* The account a job's usage is reported under: its own (FlatView), else
 * the shallowest of Accounts= on its lineage, else the child of root on
 * its lineage. NULL: not reported. Returns an xmalloc'd name. */
static char *size_account(const rep_t *r, const size_opts_t *o, const char *account,
			  const char *lineage)
{
	if (o->flat || !*lineage)
		return in_list(&r->accounts, account) ? xstrdup(account) : NULL;
	char *lin = xstrdup(lineage), *save = NULL, *out = NULL;
	int depth = 0;
	for (char *p = strtok_r(lin, "/", &save); p && !out; p = strtok_r(NULL, "/", &save), depth++) {
		if (r->accounts.n ? in_list(&r->accounts, p) : depth == 1 || !strchr(lineage, '/'))
			out = xstrdup(p);
	}
	free(lin);
	return out;
}

static int size_cmp(const void *a, const void *b)
{
	return strcmp(((const size_row_t *)a)->account, ((const size_row_t *)b)->account);
}

static int job_sizes(rep_t *r, const size_opts_t *o)
{
	msg_acct_reply_t *m = query(r, "sizes", NULL, "sreport: error: ");
	if (!m)
		return 1;
	void *reply = m;
	uint32_t nc = m->cols.n, n = nc >= 7 ? m->cells.n / nc : 0, na = 0;
	size_row_t *rows = xcalloc(n + 1, sizeof(*rows));
	double all = 0;
	for (uint32_t i = 0; i < n; i++) {
		char **c = &m->cells.v[i * nc];
		if (!in_list(&r->users, c[2]) || !in_list(&o->partitions, c[3]))
			continue;
		char *acc = size_account(r, o, c[0], c[1]);
		if (!acc)
			continue;
		uint32_t k;
		for (k = 0; k < na && strcmp(rows[k].account, acc); k++)
			;
		if (k == na)
			rows[na++].account = acc;
		else
			free(acc);
		double v = o->count ? strtod(c[5], NULL) : strtod(c[6], NULL);
		int b = sreport_size_bucket(o->edges, o->nedges, (uint32_t)strtoul(c[4], NULL, 10));
		rows[k].v[b] += v;
		rows[k].total += v;
		all += v;
	}
	qsort(rows, na, sizeof(*rows), size_cmp);
	int nb = o->nedges + 1;
	colspec_t *cs = xcalloc((size_t)nb + 3, sizeof(*cs));
	char **labels = xcalloc((size_t)nb, sizeof(*labels));
	size_t ncol = 0;
	cs[ncol++] = (colspec_t){ "Cluster", 9 };
	cs[ncol++] = (colspec_t){ "Account", 9 };
	for (int b = 0; b < nb; b++) {
		labels[b] = sreport_size_label(o->edges, o->nedges, b);
		cs[ncol++] = (colspec_t){ labels[b], 13 };
	}
	cs[ncol++] = (colspec_t){ "% of cluster", 12 };
	if (!r->noheader) {
		char t0[32], t1[32];
		time_fmt_iso((time_t)r->start, t0, sizeof(t0));
		time_fmt_iso((time_t)(r->end - 1), t1, sizeof(t1));
		strbuf_addstr(&r->out, "--------------------------------------------------------------------------------\n");
		strbuf_addf(&r->out, "Job Sizes %s - %s (%lld secs)\n", t0, t1, (long long)(r->end - r->start));
		if (o->count)
			strbuf_addstr(&r->out, "Units are in number of jobs ran\n");
		else
			strbuf_addf(&r->out, "Time reported in %s\n", tf_unit(r->tf));
		strbuf_addstr(&r->out, "--------------------------------------------------------------------------------\n");
	}
	header(r, cs, ncol);
	for (uint32_t k = 0; k < na; k++) {
		size_t col = 0;
		put(r, r->cluster, 9, ++col == ncol);
		put(r, rows[k].account, 9, ++col == ncol);
		for (int b = 0; b < nb; b++) {
			char *s = o->count ? xasprintf("%.0f", rows[k].v[b]) : time_str(r, rows[k].v[b], all);
			put(r, s, 13, ++col == ncol);
			free(s);
		}
		char *pct = xasprintf("%.2f%%", all > 0 ? rows[k].total * 100 / all : 0);
		put(r, pct, 12, ++col == ncol);
		free(pct);
		strbuf_addch(&r->out, '\n');
		free(rows[k].account);
	}
	for (int b = 0; b < nb; b++)
		free(labels[b]);
	free(labels);
	free(cs);
	free(rows);
	proto_msg_destroy(MSG_ACCT_REPLY, reply);
	return 0;
}

/* ---- reservation Utilization ---- */

/* The fields of reservation Utilization as Slurm names them, each with
 * the shortest prefix it takes, in Slurm's order of matching (so "Id"
 * is Idle). */
enum rf { RF_ALLOC, RF_ASSOCS, RF_CLUSTER, RF_END, RF_FLAGS, RF_IDLE, RF_NAME, RF_NODES, RF_ID,
	  RF_START, RF_TOTAL, RF_COUNT, RF_TNAME, RF_TTIME };

static const struct rfield {
	const char *name;   /* as typed */
	int min;            /* shortest prefix */
	enum rf f;
} rfields[] = {
	{ "Allocated", 2, RF_ALLOC }, { "Associations", 2, RF_ASSOCS }, { "Cluster", 2, RF_CLUSTER },
	{ "End", 2, RF_END }, { "Flags", 2, RF_FLAGS }, { "Idle", 1, RF_IDLE }, { "Name", 2, RF_NAME },
	{ "Nodes", 2, RF_NODES }, { "ReservationId", 2, RF_ID }, { "Start", 2, RF_START },
	{ "TotalTime", 2, RF_TOTAL }, { "TresCount", 5, RF_COUNT }, { "CpuCount", 2, RF_COUNT },
	{ "count", 2, RF_COUNT }, { "TresName", 5, RF_TNAME }, { "TresTime", 2, RF_TTIME },
	{ "CpuTime", 5, RF_TTIME },
};

/* header and width of each field (times: wider with -t ...per) */
static void rf_head(enum rf f, int per, const char **name, int *w)
{
	static const struct { const char *name; int w; } h[] = {
		[RF_ALLOC] = { "Allocated", 20 }, [RF_ASSOCS] = { "Associations", 15 },
		[RF_CLUSTER] = { "Cluster", 9 }, [RF_END] = { "End", 19 }, [RF_FLAGS] = { "Flags", 20 },
		[RF_IDLE] = { "Idle", 20 }, [RF_NAME] = { "Name", 9 }, [RF_NODES] = { "Nodes", 15 },
		[RF_ID] = { "Id", 8 }, [RF_START] = { "Start", 19 }, [RF_TOTAL] = { "TotalTime", 9 },
		[RF_COUNT] = { "TRES count", 10 }, [RF_TNAME] = { "TRES Name", 14 },
		[RF_TTIME] = { "TRES Time", 9 },
	};
	*name = h[f].name;
	*w = h[f].w;
	if (per && (f == RF_ALLOC || f == RF_IDLE))
		*w = 29;
}

/* A string field: cut to the width with a '+' where it is cut, as
 * Slurm's print_fields does for names; numbers and times are never cut. */
static void put_rf(rep_t *r, const char *v, int w, int cut, int last)
{
	if (!r->parsable && cut && (int)strlen(v) > w) {
		cmd_add_cut_plus(&r->out, v, strlen(v), w > 0 ? (size_t)w : 0, 0);
		strbuf_addch(&r->out, ' ');
		return;
	}
	if (r->parsable) {
		put(r, v, w, last);
		return;
	}
	strbuf_addf(&r->out, "%*s ", w, v);
}

typedef struct resv_row {
	const char *id, *name, *nodes, *flags, *assocs, *tres, *alloc;
	int64_t start, end;
} resv_row_t;

static int resv_cmp(const void *a, const void *b)
{
	const resv_row_t *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The value of name in a "name=value,..." list; -1 if absent. */
static double tres_val(const char *list, const char *name)
{
	size_t l = strlen(name);
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncasecmp(p, name, l) && p[l] == '=')
			return strtod(p + l + 1, NULL);
	return -1;
}

/* Slurm's TRES ids order the rows of a reservation: cpu, mem, energy,
 * node, billing, fs/disk, vmem, pages, then the rest (gres/...). */
static int tres_rank(const char *name, size_t len)
{
	static const char *const order[] = { "cpu", "mem", "energy", "node", "billing", "fs/disk",
		"vmem", "pages" };
	for (int i = 0; i < 8; i++)
		if (strlen(order[i]) == len && !strncmp(order[i], name, len))
			return i;
	return 8;
}

/* A TRES name Slurm knows (its TRES table: the fixed ones, and gres/,
 * license/ and bb/ ones), any case. */
static int tres_known(const char *name)
{
	static const char *const fixed[] = { "cpu", "mem", "energy", "node", "billing", "fs/disk",
		"vmem", "pages" };
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcasecmp(name, fixed[i]))
			return 1;
	return (!strncasecmp(name, "gres/", 5) && name[5]) || (!strncasecmp(name, "license/", 8) && name[8]) ||
	       (!strncasecmp(name, "bb/", 3) && name[3]);
}

static int resv_util(rep_t *r, const char *tres, const char *names, const char *nodes,
		     const char *format)
{
	int rc = 0, per = tf_per(r->tf);
	/* the TRES asked for: -T's names Slurm knows (others are left out;
	 * none: fatal, as Slurm), or ALL / no -T: each TRES the reservation
	 * holds, in Slurm's order */
	strv_t want = { 0 };
	if (tres && strcasecmp(tres, "all")) {
		strv_t given = { 0 };
		cmd_split(&given, tres);
		for (uint32_t i = 0; i < given.n; i++)
			if (tres_known(given.v[i]))
				strv_push(&want, given.v[i]);
		strv_free(&given);
		if (!want.n) {
			fprintf(stderr, "sreport: fatal: No valid TRES given\n");
			return 1;
		}
	}
	/* the fields */
	enum rf f[32];
	int fw[32], nf = 0;
	strv_t fl = { 0 };
	cmd_split(&fl, format && *format ? format : "Cl,name,start,end,TresName,al,i");
	for (uint32_t i = 0; i < fl.n && nf < 32; i++) {
		char *o = fl.v[i], *pct = strchr(o, '%');
		int neww = 0;
		if (pct) {
			neww = atoi(pct + 1);
			*pct = 0;
		}
		size_t ol = strlen(o);
		size_t k;
		for (k = 0; k < sizeof(rfields) / sizeof(rfields[0]); k++) {
			size_t m = ol > (size_t)rfields[k].min ? ol : (size_t)rfields[k].min;
			if (!strncasecmp(rfields[k].name, o, m))
				break;
		}
		if (k == sizeof(rfields) / sizeof(rfields[0])) {
			fprintf(stderr, " Unknown field '%s'\n", o);
			rc = 1;
			continue;
		}
		const char *hn;
		f[nf] = rfields[k].f;
		rf_head(f[nf], per, &hn, &fw[nf]);
		if (neww)
			fw[nf] = neww;
		nf++;
	}
	strv_free(&fl);
	/* the rows */
	char *na = xasprintf("names=%s", names ? names : "");
	char *no = xasprintf("nodes=%s", nodes ? nodes : "");
	const char *const extra[] = { na, no, NULL };
	msg_acct_reply_t *m = query(r, "resv", extra, " Problem with reservation query: ");
	free(na);
	free(no);
	if (!m) {
		strv_free(&want);
		return 1;
	}
	void *reply = m;
	uint32_t nc = m->cols.n, n = nc >= 9 ? m->cells.n / nc : 0;
	resv_row_t *rv = xcalloc(n + 1, sizeof(*rv));
	for (uint32_t i = 0; i < n; i++) {
		char **c = &m->cells.v[i * nc];
		rv[i] = (resv_row_t){ c[0], c[1], c[4], c[5], c[6], c[7], c[8], strtoll(c[2], NULL, 10),
				      strtoll(c[3], NULL, 10) };
	}
	qsort(rv, n, sizeof(*rv), resv_cmp);
	/* banner and header */
	if (!r->noheader) {
		char s1[32], s2[32];
		time_fmt_iso((time_t)r->start, s1, sizeof(s1));
		time_fmt_iso((time_t)(r->end - 1), s2, sizeof(s2));
		strbuf_addstr(&r->out, "--------------------------------------------------------------------------------\n");
		strbuf_addf(&r->out, "Reservation Utilization %s - %s\n", s1, s2);
		strbuf_addf(&r->out, "Usage reported in %s%s\n", r->tf == T_PERCENT ? "" : "TRES ",
			    tf_unit(r->tf));
		strbuf_addstr(&r->out, "--------------------------------------------------------------------------------\n");
		for (int i = 0; i < nf; i++) {
			const char *hn;
			int w;
			rf_head(f[i], per, &hn, &w);
			put(r, hn, fw[i], i + 1 == nf);
		}
		strbuf_addch(&r->out, '\n');
		if (!r->parsable) {
			for (int i = 0; i < nf; i++) {
				for (int k = 0; k < fw[i]; k++)
					strbuf_addch(&r->out, '-');
				strbuf_addch(&r->out, ' ');
			}
			strbuf_addch(&r->out, '\n');
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		const resv_row_t *x = &rv[i];
		int64_t total = x->end - x->start;
		if (total <= 0)
			continue;
		/* the reservation's TRES names, ordered */
		const char *tn[32];
		size_t tl[32];
		int nt = 0;
		for (const char *p = x->tres; p && *p && nt < 32; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
			const char *eq = strchr(p, '=');
			if (!eq)
				break;
			tn[nt] = p;
			tl[nt++] = (size_t)(eq - p);
		}
		for (int s = 1; s < nt; s++)    /* insertion sort by rank (stable) */
			for (int k = s; k > 0 && tres_rank(tn[k], tl[k]) < tres_rank(tn[k - 1], tl[k - 1]); k--) {
				const char *t0 = tn[k];
				size_t l0 = tl[k];
				tn[k] = tn[k - 1], tl[k] = tl[k - 1];
				tn[k - 1] = t0, tl[k - 1] = l0;
			}
		uint32_t nrows = want.n ? want.n : (uint32_t)nt;
		for (uint32_t t = 0; t < nrows; t++) {
			char name[64];
			int own = -1;   /* the reservation's spelling of the name */
			for (int k = 0; want.n && k < nt; k++)
				if (strlen(want.v[t]) == tl[k] && !strncasecmp(want.v[t], tn[k], tl[k]))
					own = k;
			if (want.n && own < 0)
				continue;       /* not a TRES of this reservation */
			if (own < 0)
				own = (int)t;
			/* only the TRES a Slurm reservation holds: cpu,
			 * licenses, burst buffers (the records list every TRES
			 * of the nodes) */
			if (!(tl[own] == 3 && !strncmp(tn[own], "cpu", 3)) &&
			    strncmp(tn[own], "license/", 8) && strncmp(tn[own], "bb/", 3))
				continue;
			snprintf(name, sizeof(name), "%.*s", (int)tl[own], tn[own]);
			double count = tres_val(x->tres, name);
			if (count < 0)
				continue;       /* not a TRES of this reservation */
			double alloc = tres_val(x->alloc, name);
			if (alloc < 0)
				alloc = 0;
			double reported = (double)total * count;
			double idle = reported > alloc ? reported - alloc : 0;
			for (int k = 0; k < nf; k++) {
				int last = k + 1 == nf;
				char buf[64], *v = NULL;
				switch (f[k]) {
				case RF_ALLOC: v = time_str(r, alloc, reported); break;
				case RF_IDLE: v = time_str(r, idle, reported); break;
				case RF_CLUSTER: put_rf(r, r->cluster, fw[k], 1, last); break;
				case RF_NAME: put_rf(r, x->name, fw[k], 1, last); break;
				case RF_NODES: put_rf(r, x->nodes, fw[k], 1, last); break;
				case RF_FLAGS: put_rf(r, x->flags, fw[k], 1, last); break;
				case RF_ASSOCS: put_rf(r, x->assocs, fw[k], 1, last); break;
				case RF_ID: put_rf(r, x->id, fw[k], 0, last); break;
				case RF_START: case RF_END:
					time_fmt_iso((time_t)(f[k] == RF_START ? x->start : x->end), buf, sizeof(buf));
					put_rf(r, buf, fw[k], 0, last);
					break;
				case RF_TOTAL:
					secs_fmt_hms((long)total, buf, sizeof(buf));
					put_rf(r, buf, fw[k], 0, last);
					break;
				case RF_TTIME:
					secs_fmt_hms((long)reported, buf, sizeof(buf));
					put_rf(r, buf, fw[k], 0, last);
					break;
				case RF_COUNT:
					snprintf(buf, sizeof(buf), "%.0f", count);
					put_rf(r, buf, fw[k], 0, last);
					break;
				case RF_TNAME: put_rf(r, name, fw[k], 1, last); break;
				}
				if (v) {
					put_rf(r, v, fw[k], 0, last);
					free(v);
				}
			}
			strbuf_addch(&r->out, '\n');
		}
	}
	strv_free(&want);
	free(rv);
	proto_msg_destroy(MSG_ACCT_REPLY, reply);
	return rc;
}

/* ---- options ---- */

static int parse_when(const char *v, int64_t *t)
{
	time_t out;
	if (time_abs_parse(v, time(NULL), &out)) {
		fprintf(stderr, "Invalid time specification (pos=0): %s\n", v);
		return -1;
	}
	*t = out;
	return 0;
}

static int64_t midnight_of(int64_t t, int days)
{
	time_t tt = (time_t)t;
	struct tm tm;
	localtime_r(&tt, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_mday += days;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

static void split_list(strv_t *l, const char *v)
{
	strv_free(l);
	cmd_split(l, v);
}

static void help(void)
{
	printf(
"Usage: sreport [OPTIONS] TYPE REPORT [CONDITIONS]\n"
"  TYPE REPORT: cluster Utilization | cluster AccountUtilizationByUser |\n"
"               cluster UserUtilizationByAccount | user TopUsage |\n"
"               job SizesByAccount | reservation Utilization\n"
"  CONDITIONS:  start=TIME end=TIME Tree Users=LIST Accounts=LIST TopCount=N\n"
"               (job) Grouping=N,N.. FlatView PrintJobCount Partitions=LIST\n"
"               (reservation) Names=LIST Nodes=LIST Format=LIST\n"
"  -n, --noheader        no banner or header\n"
"  -p, --parsable        '|' after every field\n"
"  -P, --parsable2       '|' between fields\n"
"  -t FORMAT             s, m, h, p (percent), sper, mper, hper\n"
"  -T, --tres=LIST       TRES to report (cpu, mem, node, billing, gres/gpu)\n"
"  -V, --version         print the version and exit\n"
"  -h, --help, --usage   this text\n");
}

enum { OPT_USAGE = 0x100 };


/* t at the nearest whole local hour, as Slurm's sreport rounds its range:
 * seconds >= 30 round the minute up, then minutes >= 30 the hour. */
static int64_t round_hour(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	localtime_r(&tt, &tm);
	if (tm.tm_sec >= 30)
		tm.tm_min++;
	if (tm.tm_min >= 30)
		tm.tm_hour++;
	tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

int cmd_sreport(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all_clusters", no_argument, NULL, 'a' },
		{ "cluster", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "noheader", no_argument, NULL, 'n' },
		{ "parsable", no_argument, NULL, 'p' },
		{ "parsable2", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "tres", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "usage", no_argument, NULL, OPT_USAGE },
		{ NULL, 0, NULL, 0 }
	};
	rep_t r = { .tf = T_MINS, .top = 10, .out = STRBUF_INIT };
	const char *tres = "cpu";
	int c, rc = 0, tres_given = 0;
	log_init("sreport", 0, LOG_LVL_INFO, NULL);
	argv[0] = (char *)"sreport";
	optind = 0;
	opterr = 1;
	/* permuting: options may follow the report words, as in Slurm */
	while ((c = getopt_long(argc, argv, "ahM:npPQt:T:vV", opts, NULL)) != -1) {
		switch (c) {
		case 'a': case 'M': case 'Q': case 'v': break;
		case 'h': case OPT_USAGE: help(); return 0;
		case 'n': r.noheader = 1; break;
		case 'p': r.parsable = 1; break;
		case 'P': r.parsable = 2; break;
		case 't':
			if (parse_tfmt(optarg, &r.tf))
				fprintf(stderr, "unknown time format %s", optarg);
			break;
		case 'T': tres = optarg; tres_given = 1; break;
		case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); return 0;
		default:
			fprintf(stderr, "Try \"sreport --help\" for more information\n");
			return 1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "sreport: error: no command given (interactive mode is not supported)\n");
		return 1;
	}
	const char *type = argv[optind++];
	int which = 0;   /* 1 util, 2 acct-by-user, 3 user-by-acct, 4 top, 5 sizes, 6 resv */
	const char *report = optind < argc ? argv[optind++] : "";
	if (!strncasecmp(type, "cluster", strlen(type) > 2 ? strlen(type) : 3)) {
		if (!strncasecmp(report, "Utilization", 2) || !strcasecmp(report, "u"))
			which = 1;
		else if (!strncasecmp(report, "AccountUtilizationByUser", 1) && strlen(report) > 1)
			which = 2;
		else if (!strncasecmp(report, "UserUtilizationByAccount", 5) ||
			 !strcasecmp(report, "UA"))
			which = 3;
		if (!which) {
			fprintf(stderr, "Not valid report %s\nValid cluster reports are, "
				"\"AccountUtilizationByUser\", \"UserUtilizationByAccount\", "
				"\"UserUtilizationByWckey\", \"Utilization\", and \"WCKeyUtilizationByUser\"\n",
				report);
			return 1;
		}
	} else if (!strncasecmp(type, "user", strlen(type) > 1 ? strlen(type) : 2)) {
		if (!strncasecmp(report, "TopUsage", 1) && *report)
			which = 4;
		else {
			fprintf(stderr, "Not valid report %s\nValid user reports are, \"TopUsage\"\n", report);
			return 1;
		}
	} else if (!strncasecmp(type, "job", strlen(type) > 1 ? strlen(type) : 1)) {
		if (*report && !strncasecmp(report, "SizesByAccount", strlen(report)))
			which = 5;
		else {
			fprintf(stderr, "Not valid report %s\nValid job reports are, \"SizesByAccount\"\n",
				report);
			return 1;
		}
	} else if (strlen(type) >= 2 && !strncasecmp(type, "reservation", strlen(type))) {
		if (*report && !strncasecmp(report, "Utilization", strlen(report)))
			which = 6;
		else {
			fprintf(stderr, "Not valid report %s\nValid reservation reports are, "
				"\"Utilization\"\n", report);
			return 1;
		}
	} else {
		fprintf(stderr, "invalid keyword: %s\n", type);
		return 1;
	}
	/* the TRES list (reservation Utilization takes any, and ALL) */
	strv_t tl = { 0 };
	if (which != 6)
		cmd_split(&tl, tres);
	for (uint32_t i = 0; i < tl.n; i++) {
		int k;
		for (k = 0; k < NTRES && strcasecmp(tl.v[i], tres_names[k]); k++)
			;
		if (k == NTRES) {
			fprintf(stderr, "sreport: error: Invalid TRES type: %s\n", tl.v[i]);
			strv_free(&tl);
			return 1;
		}
		if (r.ntres < NTRES)
			r.tres[r.ntres++] = k;
	}
	strv_free(&tl);
	if (!r.ntres)
		r.tres[r.ntres++] = 0;
	r.cpu_only = r.ntres == 1 && r.tres[0] == 0;

	size_opts_t so = { .edges = { 50, 250, 500, 1000 }, .nedges = 4 };
	const char *rnames = NULL, *rnodes = NULL, *rformat = NULL;
	int64_t now = time(NULL);
	r.start = midnight_of(now, -1);
	r.end = midnight_of(now, 0);
	for (; optind < argc; optind++) {
		const char *a = argv[optind], *eq = strchr(a, '=');
		size_t kl = eq ? (size_t)(eq - a) : strlen(a);
		const char *v = eq ? eq + 1 : "";
		if (!eq && !strncasecmp(a, "tree", 4))
			r.tree = 1;
		else if (!eq && which == 5 && !strncasecmp(a, "FlatView", strlen(a) > 1 ? strlen(a) : 2))
			so.flat = 1;
		else if (!eq && which == 5 && !strncasecmp(a, "PrintJobCount", strlen(a) > 1 ? strlen(a) : 2))
			so.count = 1;
		else if (eq && which == 5 && !strncasecmp(a, "grouping", kl) && kl >= 1) {
			if ((so.nedges = sreport_grouping(v, so.edges, MAX_EDGES)) < 0) {
				fprintf(stderr, " Bad Grouping: %s\n", v);
				return 1;
			}
		} else if (eq && which == 5 && !strncasecmp(a, "partitions", kl) && kl >= 2)
			split_list(&so.partitions, v);
		else if (eq && which == 6 && !strncasecmp(a, "names", kl) && kl >= 2)
			rnames = v;
		else if (eq && which == 6 && !strncasecmp(a, "nodes", kl) && kl >= 2)
			rnodes = v;
		else if (eq && which == 6 && !strncasecmp(a, "format", kl) && kl >= 1)
			rformat = v;
		else if (eq && !strncasecmp(a, "start", kl) && kl >= 1)
			parse_when(v, &r.start);
		else if (eq && !strncasecmp(a, "end", kl) && kl >= 1)
			parse_when(v, &r.end);
		else if (eq && (!strncasecmp(a, "users", kl) && kl >= 1))
			split_list(&r.users, v);
		else if (eq && (!strncasecmp(a, "accounts", kl) && kl >= 2))
			split_list(&r.accounts, v);
		else if (eq && !strncasecmp(a, "topcount", kl) && kl >= 2)
			r.top = (uint32_t)strtoul(v, NULL, 10);
		else if (eq && !strncasecmp(a, "clusters", kl) && kl >= 1)
			;
		else {
			fprintf(stderr, " Unknown condition: %s\nUse keyword set to modify value\n", a);
			rc = 1;
		}
	}
	/* the range: the end no later than now, both at the nearest whole
	 * hour as Slurm rounds them (30 s and more count as a minute, 30
	 * minutes and more as an hour: 10:29:30 is 11:00, 12:00:59 is 12:00) */
	if (r.end > now)
		r.end = now;
	r.start = round_hour(r.start);
	r.end = round_hour(r.end);
	if (r.end <= r.start)
		r.end = r.start + 3600;
	r.cluster = cmd_conf()->cluster_name ? cmd_conf()->cluster_name : "cluster";
	rows_t rows = { 0 };
	void *reply = NULL;
	if (which == 6) {
		if (resv_util(&r, tres_given ? tres : NULL, rnames, rnodes, rformat))
			rc = 1;
		fwrite(r.out.buf, 1, r.out.len, stdout);
		goto out;
	}
	if (which == 5) {
		if (job_sizes(&r, &so))
			rc = 1;
		else
			fwrite(r.out.buf, 1, r.out.len, stdout);
		strv_free(&so.partitions);
		goto out;
	}
	if (fetch(&r, which == 1 ? "cluster" : "assoc", &rows, &reply)) {
		rc = 1;
		goto out;
	}
	memcpy(sreport_total, rows.reported, sizeof(sreport_total));
	switch (which) {
	case 1: cluster_util(&r, &rows); break;
	case 2: account_by_user(&r, &rows); break;
	case 3: user_rows(&r, &rows, 0); break;
	case 4: user_rows(&r, &rows, 1); break;
	}
	fwrite(r.out.buf, 1, r.out.len, stdout);
out:
	free(rows.r);
	if (reply)
		proto_msg_destroy(MSG_ACCT_REPLY, reply);
	strbuf_release(&r.out);
	strv_free(&r.users);
	strv_free(&r.accounts);
	return rc;
}
