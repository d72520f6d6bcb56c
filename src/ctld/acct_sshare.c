/*
 * acct_sshare.c: ACCT_OP_SSHARE, the rows of sshare (a loop operation: it
 * reads the association tree and the fair-share values acct_usage.c keeps).
 *
 * Arguments: all=1 (every user, sshare -a), users=a,b (sshare -u),
 * accounts=x,y (sshare -A), cols=depth,account,... (only these columns, in
 * the answer's own order: what the command prints; every column without
 * it), tres=0 (leave the TRES usage columns empty). Without all/users the caller's own user rows
 * are shown, as Slurm does; account rows are always shown unless accounts=
 * restricts them (to the associations whose account is listed: the
 * accounts and the user rows under them). PrivateData=usage limits a user
 * who is not an operator to their own user rows.
 *
 * The answer: one row per association in tree order (under an account its
 * users by name, then its sub-accounts by name), with the depth and every
 * sshare column already formatted as Slurm prints it; the command picks
 * the columns and pads them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld.h"
#include "states.h"
#include "strbuf.h"
#include "xalloc.h"

#include "sched/sched_fairshare.h"

/* The TRES sshare lists (the cluster's: AccountingStorageTRES's default
 * list, plus gres/gpu when GPUs are configured), as usage indexes (-1: a
 * TRES Sluice does not count, always 0). */
static const struct { const char *name; int idx; } tres_list[] = {
	{ "cpu", LIM_TRES_CPU }, { "mem", LIM_TRES_MEM }, { "energy", -1 },
	{ "node", LIM_TRES_NODE }, { "billing", LIM_TRES_BILLING }, { "fs/disk", -1 },
	{ "vmem", -1 }, { "pages", -1 }, { "gres/gpu", LIM_TRES_GPU },
};

static int with_gpus(ctld_t *cd)
{
	const char *g = conf_get(cd->conf, "GresTypes");
	const char *a = conf_get(cd->conf, "AccountingStorageTRES");
	return (g && strstr(g, "gpu")) || (a && strstr(a, "gres/gpu"));
}

static void tres_fmt(strbuf_t *sb, const double *v, int gpus)
{
	for (size_t k = 0; k < sizeof(tres_list) / sizeof(tres_list[0]); k++) {
		if (tres_list[k].idx == LIM_TRES_GPU && !gpus)
			continue;
		double x = tres_list[k].idx >= 0 ? v[tres_list[k].idx] : 0;
		/* 1,000 rows x 2 lists x 9 TRES: no printf per number */
		char num[24], *p = num + sizeof(num);
		uint64_t u = x > 0 ? (uint64_t)x : 0;
		*--p = 0;
		do
			*--p = (char)('0' + u % 10);
		while ((u /= 10));
		if (k)
			strbuf_addch(sb, ',');
		strbuf_addstr(sb, tres_list[k].name);
		strbuf_addch(sb, '=');
		strbuf_addstr(sb, p);
	}
}

/* GrpTRESMins as set ("cpu=100,gres/gpu=10"; "" when none). */
static void lim_fmt(strbuf_t *sb, const lim_tres_t *l)
{
	static const struct { const char *name; int idx; } order[] = {
		{ "cpu", LIM_TRES_CPU }, { "mem", LIM_TRES_MEM }, { "node", LIM_TRES_NODE },
		{ "billing", LIM_TRES_BILLING }, { "gres/gpu", LIM_TRES_GPU },
	};
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		if (l->v[order[k].idx] != LIM_UNSET)
			strbuf_addf(sb, "%s%s=%" PRIu64, sb->len ? "," : "", order[k].name,
				    l->v[order[k].idx]);
}

static int in_list(const strv_t *l, const char *s)
{
	for (uint32_t i = 0; s && i < l->n; i++)
		if (!strcasecmp(l->v[i], s))
			return 1;
	return 0;
}

static void split(strv_t *out, const char *csv)
{
	if (!csv)
		return;
	char *dup = xstrdup(csv), *save = NULL;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (*t)
			strv_push(out, t);
	free(dup);
}

typedef struct ss_ctx {
	ctld_t *cd;
	const sched_assoc_t *fs;
	uint32_t n;
	uint32_t *first, *kids;     /* children, sorted */
	double *run;                /* TRESRunMins: n x LIM_TRES_N */
} ss_ctx_t;

static ss_ctx_t *sort_ctx;

static const char *assoc_name(const acct_assoc_t *a)
{
	return a->user ? a->user : a->account ? a->account : "";
}

static int kid_cmp(const void *x, const void *y)
{
	const acct_assoc_t *a = &sort_ctx->cd->acct.assocs[*(const uint32_t *)x];
	const acct_assoc_t *b = &sort_ctx->cd->acct.assocs[*(const uint32_t *)y];
	if (!a->user != !b->user)
		return a->user ? -1 : 1;
	int c = strcmp(assoc_name(a), assoc_name(b));
	if (c)
		return c;
	c = strcmp(a->partition ? a->partition : "", b->partition ? b->partition : "");
	if (c)
		return c;
	return a->id < b->id ? -1 : a->id > b->id;
}

static void children(ss_ctx_t *x)
{
	uint32_t n = x->n;
	x->first = xcalloc(n + 1, sizeof(uint32_t));
	x->kids = xcalloc(n ? n : 1, sizeof(uint32_t));
	for (uint32_t i = 1; i < n; i++)
		x->first[x->fs[i].parent + 1]++;
	for (uint32_t i = 0; i < n; i++)
		x->first[i + 1] += x->first[i];
	uint32_t *fill = xcalloc(n ? n : 1, sizeof(uint32_t));
	for (uint32_t i = 1; i < n; i++) {
		uint32_t p = (uint32_t)x->fs[i].parent;
		x->kids[x->first[p] + fill[p]++] = i;
	}
	free(fill);
	sort_ctx = x;
	for (uint32_t i = 0; i < n; i++)
		qsort(x->kids + x->first[i], x->first[i + 1] - x->first[i], sizeof(uint32_t), kid_cmp);
	sort_ctx = NULL;
}

/* TRES x remaining minutes of the running jobs, per association and its
 * ancestors. */
static void run_mins(ss_ctx_t *x, int64_t now)
{
	x->run = xcalloc((size_t)x->n * LIM_TRES_N + 1, sizeof(double));
	ctld_t *cd = x->cd;
	for (size_t k = 0; k < cd->njobs; k++) {
		const job_t *j = cd->jobs[k];
		if ((j->state & JOB_STATE_BASE) != JOB_RUNNING || !j->assoc_id)
			continue;
		uint32_t i = acct_usage_assoc_index(cd, j->assoc_id);
		if (i >= x->n)
			continue;
		double tres[LIM_TRES_N], mins = j->end_time > now ? (double)(j->end_time - now) / 60 : 0;
		acct_usage_job_tres(cd, j, tres);
		for (uint32_t hops = 0; hops <= x->n; hops++) {
			for (int t = 0; t < LIM_TRES_N; t++)
				x->run[(size_t)i * LIM_TRES_N + t] += tres[t] * mins;
			if (x->fs[i].parent < 0)
				break;
			i = (uint32_t)x->fs[i].parent;
		}
	}
}

typedef struct ss_req {
	int all;
	strv_t users, accounts;
	uint32_t uid;
	int own_only;       /* PrivateData=usage for a plain user */
} ss_req_t;

static void req_parse(ctld_t *cd, const msg_acct_req_t *req, uint32_t uid, ss_req_t *q)
{
	memset(q, 0, sizeof(*q));
	q->uid = uid;
	const char *v = acct_arg(req, "all");
	q->all = v && strcmp(v, "0");
	split(&q->users, acct_arg(req, "users"));
	split(&q->accounts, acct_arg(req, "accounts"));
	const char *pd = conf_get(cd->conf, "PrivateData");
	q->own_only = pd && strcasestr(pd, "usage") &&
		      acct_admin_level(cd, uid) < ACCT_ADMIN_OPERATOR;
}

static void req_free(ss_req_t *q)
{
	strv_free(&q->users);
	strv_free(&q->accounts);
}

static int shown(const ss_ctx_t *x, const ss_req_t *q, uint32_t i)
{
	const acct_assoc_t *a = &x->cd->acct.assocs[i];
	if (q->accounts.n && !in_list(&q->accounts, a->account))
		return 0;
	if (!a->user)
		return 1;
	if (q->own_only && a->uid != q->uid)
		return 0;
	if (q->users.n)
		return in_list(&q->users, a->user);
	return q->all || a->uid == q->uid;
}

/* The answer's columns, in this order (the command finds them by name). */
enum ss_col {
	SC_DEPTH, SC_ID, SC_CLUSTER, SC_ACCOUNT, SC_USER, SC_PARTITION, SC_RAW_SHARES,
	SC_NORM_SHARES, SC_RAW_USAGE, SC_NORM_USAGE, SC_EFF_USAGE, SC_FAIRSHARE, SC_LEVEL_FS,
	SC_GRP_TRES_MINS, SC_GRP_TRES_RAW, SC_TRES_RUN_MINS, SC_IS_USER, SC_N
};
static const char *const col_names[SC_N] = { "depth", "id", "cluster", "account", "user",
	"partition", "raw_shares", "norm_shares", "raw_usage", "norm_usage", "eff_usage",
	"fairshare", "level_fs", "grp_tres_mins", "grp_tres_raw", "tres_run_mins", "is_user" };
#define SC_TRES ((1u << SC_GRP_TRES_RAW) | (1u << SC_TRES_RUN_MINS))

static void cell(ss_ctx_t *x, msg_acct_reply_t *out, enum ss_col c, uint32_t i, uint32_t depth,
		 int algo, int gpus, strbuf_t *sb)
{
	const acct_assoc_t *a = &x->cd->acct.assocs[i];
	const sched_assoc_t *s = &x->fs[i];
	int root = i == 0;
	double mins[LIM_TRES_N];
	switch (c) {
	case SC_DEPTH: acct_reply_cellf(out, "%u", depth); return;
	case SC_ID: acct_reply_cellf(out, "%u", a->id); return;
	case SC_CLUSTER: acct_reply_cell(out, x->cd->acct.cluster); return;
	case SC_ACCOUNT: acct_reply_cell(out, a->account); return;
	case SC_USER: acct_reply_cell(out, a->user); return;
	case SC_PARTITION: acct_reply_cell(out, a->partition); return;
	case SC_RAW_SHARES:
		if (root)
			acct_reply_cell(out, "");
		else if (a->shares_raw == SCHED_SHARES_PARENT)
			acct_reply_cell(out, "parent");
		else
			acct_reply_cellf(out, "%u", a->shares_raw);
		return;
	case SC_NORM_SHARES:
		acct_reply_cell_f6(out, root && algo == SCHED_FS_FAIR_TREE ? 0.0 : s->fs_norm_shares);
		return;
	case SC_RAW_USAGE:
		acct_reply_cellf(out, "%" PRIu64, s->usage_raw > 0 ? (uint64_t)s->usage_raw : 0);
		return;
	case SC_NORM_USAGE:
		if (root)
			acct_reply_cell(out, "");
		else
			acct_reply_cell_f6(out, s->fs_norm_usage);
		return;
	case SC_EFF_USAGE: acct_reply_cell_f6(out, s->fs_eff_usage); return;
	case SC_FAIRSHARE:
		if (a->user)
			acct_reply_cell_f6(out, s->fs_factor);
		else
			acct_reply_cell(out, "");
		return;
	case SC_LEVEL_FS:
		if (root || algo != SCHED_FS_FAIR_TREE || s->fs_level == SCHED_FS_LEVEL_NONE)
			acct_reply_cell(out, "");
		else if (isinf(s->fs_level))
			acct_reply_cell(out, "inf");
		else
			acct_reply_cell_f6(out, s->fs_level);
		return;
	case SC_GRP_TRES_MINS:
		strbuf_reset(sb);
		lim_fmt(sb, &a->lim.grp_tres_mins);
		acct_reply_cell(out, sb->buf);
		return;
	case SC_GRP_TRES_RAW:
		strbuf_reset(sb);
		for (int t = 0; t < LIM_TRES_N; t++)
			mins[t] = s->usage_tres[t] / 60;
		tres_fmt(sb, mins, gpus);
		acct_reply_cell(out, sb->buf);
		return;
	case SC_TRES_RUN_MINS:
		strbuf_reset(sb);
		tres_fmt(sb, &x->run[(size_t)i * LIM_TRES_N], gpus);
		acct_reply_cell(out, sb->buf);
		return;
	case SC_IS_USER: acct_reply_cell(out, a->user ? "1" : "0"); return;
	case SC_N: return;
	}
}

/* The columns asked for: cols=name,name (every one without it); tres=0
 * (an older form) leaves the TRES usage columns empty. */
static uint32_t wanted(const msg_acct_req_t *req, uint32_t *empty)
{
	const char *cv = acct_arg(req, "cols"), *tv = acct_arg(req, "tres");
	uint32_t want = (1u << SC_N) - 1;
	*empty = tv && !strcmp(tv, "0") ? SC_TRES : 0;
	if (!cv)
		return want;
	strv_t l = { 0 };
	split(&l, cv);
	want = 0;
	for (int c = 0; c < SC_N; c++)
		if (in_list(&l, col_names[c]))
			want |= 1u << c;
	strv_free(&l);
	return want;
}

void acct_sshare(ctld_t *cd, const msg_acct_req_t *req, uint32_t uid, msg_acct_reply_t *out)
{
	uint32_t empty, want = wanted(req, &empty);
	for (int c = 0; c < SC_N; c++)
		if (want & (1u << c))
			acct_reply_col(out, col_names[c]);
	ss_req_t q;
	req_parse(cd, req, uid, &q);
	ss_ctx_t x = { .cd = cd };
	x.fs = acct_usage_tree(cd, &x.n, NULL);
	if (!x.fs || x.n != cd->acct.nassocs) {
		req_free(&q);
		return;      /* no tree (accounting not set up): no rows */
	}
	children(&x);
	x.run = NULL;
	if (want & ~empty & (1u << SC_TRES_RUN_MINS))
		run_mins(&x, ctld_now());
	const char *f = conf_get(cd->conf, "PriorityFlags");
	int algo = f && strcasestr(f, "NO_FAIR_TREE") ? SCHED_FS_CLASSIC : SCHED_FS_FAIR_TREE;
	int gpus = with_gpus(cd);
	/* depth first, iteratively (the tree may be deep) */
	uint32_t *stack = xcalloc(x.n + 1, sizeof(uint32_t)), *depth = xcalloc(x.n + 1, sizeof(uint32_t));
	uint32_t sp = 0;
	strbuf_t sb = STRBUF_INIT;
	stack[sp] = 0;
	depth[sp++] = 0;
	while (sp) {
		sp--;
		uint32_t i = stack[sp], d = depth[sp];
		int show = shown(&x, &q, i);
		for (int c = 0; c < SC_N && show; c++) {
			if (!(want & (1u << c)))
				continue;
			if (empty & (1u << c))
				acct_reply_cell(out, "");
			else
				cell(&x, out, (enum ss_col)c, i, d, algo, gpus, &sb);
		}
		/* push in reverse so the first child comes out first */
		for (uint32_t k = x.first[i + 1]; k > x.first[i]; k--) {
			stack[sp] = x.kids[k - 1];
			depth[sp++] = d + 1;
		}
	}
	strbuf_release(&sb);
	free(stack);
	free(depth);
	free(x.first);
	free(x.kids);
	free(x.run);
	req_free(&q);
}

/* ---- recent answers ----
 *
 * sshare -a is what exporters and portals poll, and its answer changes only
 * with the association tree (acct.gen), the fair-share values (computed
 * again after usage moved: a job's end, each PriorityCalcPeriod) or the
 * configuration; TRESRunMins, which moves with the clock, is never kept.
 * The last few answers are kept encoded, keyed by the request's words and,
 * where the rows depend on who asks, the caller. */

#define SS_CACHE_N 4

struct ss_cache {
	struct ss_entry {
		uint64_t acct_gen, fs_gen, conf_gen, used;
		uint32_t uid;        /* UINT32_MAX: the same for every caller */
		char *key;           /* the request's words, each after its length */
		strbuf_t frame;
	} e[SS_CACHE_N];
	uint64_t clock;
};

/* The answer, packed and encoded into frame. */
static void make_frame(ctld_t *cd, const msg_acct_req_t *req, uint32_t uid, strbuf_t *frame)
{
	msg_acct_reply_t r = { 0 };
	acct_sshare(cd, req, uid, &r);
	acct_reply_pack(&r);
	acct_reply_frame(frame, &r);
	proto_free(MSG_ACCT_REPLY, &r);
}

void acct_sshare_frame(ctld_t *cd, const msg_acct_req_t *req, uint32_t uid, strbuf_t *frame)
{
	uint32_t empty, want = wanted(req, &empty), n;
	uint64_t fs_gen;
	if ((want & ~empty & (1u << SC_TRES_RUN_MINS)) || !acct_usage_tree(cd, &n, &fs_gen)) {
		make_frame(cd, req, uid, frame);   /* not kept */
		return;
	}
	ss_req_t q;
	req_parse(cd, req, uid, &q);
	uint32_t kuid = q.own_only || (!q.all && !q.users.n) ? uid : UINT32_MAX;
	req_free(&q);
	/* each word with its length: no two lists of words share a key
	 * (a word may hold the separator) */
	strbuf_t key = STRBUF_INIT;
	for (uint32_t i = 0; i < req->args.n; i++) {
		const char *a = req->args.v[i] ? req->args.v[i] : "";
		strbuf_addf(&key, "%zu:%s", strlen(a), a);
	}
	if (!cd->sshare_cache)
		cd->sshare_cache = xcalloc(1, sizeof(*cd->sshare_cache));
	struct ss_cache *c = cd->sshare_cache;
	struct ss_entry *hit = NULL, *lru = &c->e[0];
	for (int k = 0; k < SS_CACHE_N; k++) {
		struct ss_entry *e = &c->e[k];
		if (e->key && e->uid == kuid && e->acct_gen == cd->acct.gen && e->fs_gen == fs_gen &&
		    e->conf_gen == cd->conf_gen && !strcmp(e->key, key.buf))
			hit = e;
		if (e->used < lru->used)
			lru = e;
	}
	if (!hit) {
		strbuf_t f = STRBUF_INIT;
		make_frame(cd, req, uid, &f);
		free(lru->key);
		strbuf_release(&lru->frame);
		*lru = (struct ss_entry){ .acct_gen = cd->acct.gen, .fs_gen = fs_gen,
			.conf_gen = cd->conf_gen, .uid = kuid, .key = strbuf_detach(&key), .frame = f };
		hit = lru;
	}
	strbuf_release(&key);
	hit->used = ++c->clock;
	strbuf_add(frame, hit->frame.buf, hit->frame.len);
}

void acct_sshare_cache_free(ctld_t *cd)
{
	struct ss_cache *c = cd->sshare_cache;
	if (!c)
		return;
	for (int k = 0; k < SS_CACHE_N; k++) {
		free(c->e[k].key);
		strbuf_release(&c->e[k].frame);
	}
	free(c);
	cd->sshare_cache = NULL;
}
