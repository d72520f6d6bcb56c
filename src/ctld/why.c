/*
 * why: `sluice why JOB|NODE`, the controller side (ACCT_OP_WHY, a loop
 * operation of MSG_ACCT_REQ). The answer is one JSON document in the
 * reply's msg: the command prints it with --json or renders it as text.
 *
 * For a pending job: its request, Slurm's reason and what it means here,
 * every blocker found (hold, dependency, begin time, partition state and
 * limits, accounting limits), its rank among the pending jobs of its
 * partition and the jobs ahead, the expected start from the backfill
 * plan, every node of its partition judged by the scheduler core
 * (sched_why_node: could it ever hold the job, could it now, what falls
 * short and who holds it until when), grouped by identical answers, and
 * the commands that would change the answer. For a running or ended job:
 * where and how long, how it ended (exit code, signal, time limit, OOM,
 * node failure, cancellation, requeues) and its stderr path (the command
 * reads the file itself, as the calling user). For a node: its state, the
 * reason, who set it and when, whether it responds, and the jobs on it.
 *
 * Only the controller's state is read: nothing is guessed from logs.
 * Cost: O(jobs + nodes x (partitions a suggestion looks at)), no
 * allocation per job beyond the holders table (one entry per node).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "ctld/ctld.h"
#include "ctld/job_nccl.h"
#include "ctld/names.h"
#include "errors.h"
#include "hostlist.h"
#include "sched/sched_why.h"
#include "states.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

#define WHY_AHEAD_MAX 5      /* jobs ahead listed by id */
#define WHY_GROUPS_MAX 24    /* node groups listed; the rest are counted */

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jtime(int64_t t)
{
	if (t <= 0)
		return json_null();
	char buf[32];
	time_fmt_iso((time_t)t, buf, sizeof(buf));
	return json_string(buf);
}

static void add_blocker(json_t *arr, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_blocker(json_t *arr, const char *code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *t = NULL;
	if (vasprintf(&t, fmt, ap) < 0)
		t = NULL;
	va_end(ap);
	json_array_append_new(arr, json_pack("{s:s,s:s}", "code", code, "text", t ? t : ""));
	free(t);
}

static void add_fix(json_t *arr, const char *cmd, const char *effect)
{
	json_array_append_new(arr, json_pack("{s:s,s:s}", "command", cmd, "effect", effect));
}

static const char *user_name(uint32_t uid, char *buf, size_t len)
{
	char *u = names_user(uid);
	snprintf(buf, len, "%s", u ? u : "?");
	free(u);
	return buf;
}

static void fmt_hm(int64_t t, int64_t now, char *buf, size_t len)
{
	/* "14:20" today, "Dec 02 14:20" later */
	time_t tt = (time_t)t, tn = (time_t)now;
	struct tm a, b;
	localtime_r(&tt, &a);
	localtime_r(&tn, &b);
	if (a.tm_year == b.tm_year && a.tm_yday == b.tm_yday)
		strftime(buf, len, "%H:%M", &a);
	else
		strftime(buf, len, "%b %d %H:%M", &a);
}

static void fmt_ago(int64_t t, int64_t now, char *buf, size_t len)
{
	int64_t d = now - t;
	if (t <= 0)
		snprintf(buf, len, "at an unknown time");
	else if (d < 120)
		snprintf(buf, len, "%" PRId64 " s ago", d < 0 ? 0 : d);
	else if (d < 7200)
		snprintf(buf, len, "%" PRId64 " min ago", d / 60);
	else if (d < 2 * 86400)
		snprintf(buf, len, "%" PRId64 " h ago", d / 3600);
	else
		snprintf(buf, len, "%" PRId64 " days ago", d / 86400);
}

/* ---- who holds each node ---- */

typedef struct holder {
	uint32_t njobs;
	uint32_t first_job;       /* the job ending last */
	int64_t until;            /* the latest expected end, 0 = unknown */
	int unlimited;
} holder_t;

static holder_t *holders_build(ctld_t *cd)
{
	holder_t *h = xcalloc(cd->nnodes ? cd->nnodes : 1, sizeof(*h));
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		if (!j->alloc.nnodes || (!j->alloc_held && JOB_IS_FINISHED(j->state)))
			continue;
		int unl = j->time_limit == TIME_INFINITE;
		for (uint32_t k = 0; k < j->alloc.nnodes; k++) {
			uint32_t x = j->alloc.nodes[k];
			if (x >= cd->nnodes)
				continue;
			holder_t *hx = &h[x];
			hx->njobs++;
			if (unl)
				hx->unlimited = 1;
			if (!hx->first_job || j->end_time > hx->until) {
				hx->until = j->end_time;
				hx->first_job = j->job_id;
			}
		}
	}
	return h;
}

static void holder_text(strbuf_t *sb, const holder_t *h, int64_t now)
{
	if (!h->njobs)
		return;
	char t[32];
	if (h->njobs == 1)
		strbuf_addf(sb, "; held by job %u", h->first_job);
	else
		strbuf_addf(sb, "; held by %u jobs", h->njobs);
	if (h->unlimited)
		strbuf_addstr(sb, " with no time limit");
	else if (h->until > now) {
		fmt_hm(h->until, now, t, sizeof(t));
		strbuf_addf(sb, h->njobs == 1 ? " until %s (its time limit)"
					      : " until %s at the latest (job %u's time limit)",
			    t, h->first_job);
	} else if (h->until)
		strbuf_addstr(sb, ", past its time limit (ending)");
}

/* ---- node judgement text ---- */

static void mem_text(strbuf_t *sb, uint64_t mb)
{
	char b[32];
	mem_fmt_mb(mb, b, sizeof(b));
	strbuf_addstr(sb, b);
}

static void node_state_text(ctld_t *cd, node_t *n, int64_t now, strbuf_t *sb)
{
	char st[64], who[64], ago[32];
	node_state_string(node_state(cd, n), st, sizeof(st));
	strbuf_addf(sb, "%s", st);
	if (n->reason && *n->reason) {
		fmt_ago(n->reason_time, now, ago, sizeof(ago));
		strbuf_addf(sb, " \"%s\" set by %s %s", n->reason,
			    user_name(n->reason_uid, who, sizeof(who)), ago);
	}
	if (n->flags & NODE_FLAG_NO_RESPOND) {
		fmt_ago(n->last_heard, now, ago, sizeof(ago));
		strbuf_addf(sb, "; not responding, last heard %s", ago);
	}
}

/* The text for node n's answer w (grouping key: identical texts). */
static char *node_text(ctld_t *cd, const job_t *j, node_t *n, const sched_why_node_t *w,
		       const holder_t *h, const char *planned_for, int64_t now)
{
	strbuf_t sb = STRBUF_INIT;
	const char *gt = j->gpu_type[0] ? j->gpu_type : NULL;
	switch (w->code) {
	case SCHED_WHY_FITS:
		if (planned_for)
			strbuf_addf(&sb, "free now, but kept for %s", planned_for);
		else
			strbuf_addf(&sb, "could start %u task(s) now", w->tasks_now);
		break;
	case SCHED_WHY_EXCLUDED:
		strbuf_addstr(&sb, "excluded by the job's -x/--exclude");
		break;
	case SCHED_WHY_NOT_LISTED:
		strbuf_addstr(&sb, "not in the job's -w/--nodelist");
		break;
	case SCHED_WHY_FEATURES:
		strbuf_addf(&sb, "has features \"%s\", the job asks \"%s\"",
			    n->cf->features ? n->cf->features : "", j->desc->features);
		break;
	case SCHED_WHY_CPUS:
		strbuf_addf(&sb, "has %u CPUs, the job needs %u on a node", w->cpus_total, w->cpus_need);
		break;
	case SCHED_WHY_MEMORY:
		strbuf_addstr(&sb, "has ");
		mem_text(&sb, w->mem_total);
		strbuf_addstr(&sb, " of memory, the job asks ");
		mem_text(&sb, w->mem_need);
		strbuf_addstr(&sb, " per node");
		break;
	case SCHED_WHY_GPUS:
		strbuf_addf(&sb, "has %u GPU(s)%s%s, the job asks %u per node", w->gpus_total,
			    gt ? " of type " : "", gt ? gt : "", w->gpus_need);
		break;
	case SCHED_WHY_SHAPE:
		strbuf_addstr(&sb, "cannot hold the job's per-node request as a whole");
		break;
	case SCHED_WHY_UNUSABLE:
		node_state_text(cd, n, now, &sb);
		break;
	case SCHED_WHY_NOT_IN_RESV:
		strbuf_addf(&sb, "not in the job's reservation %s", w->resv ? w->resv->name : "");
		break;
	case SCHED_WHY_RESV_LATER: {
		char t[32] = "";
		if (w->resv && now < w->resv->start)
			fmt_hm(w->resv->start, now, t, sizeof(t));
		if (*t)
			strbuf_addf(&sb, "the job's reservation %s starts at %s", w->resv->name, t);
		else
			strbuf_addf(&sb, "the job's reservation %s is not active",
				    w->resv ? w->resv->name : "");
		break;
	}
	case SCHED_WHY_RESERVED: {
		char a[32] = "", b[32] = "";
		fmt_hm(w->resv->start, now, a, sizeof(a));
		if (w->resv->end != INT64_MAX)
			fmt_hm(w->resv->end, now, b, sizeof(b));
		if (w->resv->start <= now)
			strbuf_addf(&sb, "in reservation %s%s%s", w->resv->name, *b ? " until " : "", b);
		else
			strbuf_addf(&sb, "reservation %s holds it from %s%s%s, before the job's time limit"
				    " would end", w->resv->name, a, *b ? " to " : "", b);
		break;
	}
	case SCHED_WHY_EXCLUSIVE:
		strbuf_addstr(&sb, "allocated whole (--exclusive)");
		holder_text(&sb, h, now);
		break;
	case SCHED_WHY_OTHER_USER:
		strbuf_addstr(&sb, "used by another user's --exclusive=user job");
		holder_text(&sb, h, now);
		break;
	case SCHED_WHY_BUSY_CPUS:
		strbuf_addf(&sb, "%u of %u CPUs free, needs %u", w->cpus_free, w->cpus_total,
			    w->cpus_need);
		holder_text(&sb, h, now);
		break;
	case SCHED_WHY_BUSY_MEMORY:
		mem_text(&sb, w->mem_free);
		strbuf_addstr(&sb, " of ");
		mem_text(&sb, w->mem_total);
		strbuf_addstr(&sb, " memory free, needs ");
		mem_text(&sb, w->mem_need);
		holder_text(&sb, h, now);
		break;
	case SCHED_WHY_BUSY_GPUS:
		strbuf_addf(&sb, "%u of %u GPU(s) free, needs %u", w->gpus_free, w->gpus_total,
			    w->gpus_need);
		holder_text(&sb, h, now);
		break;
	default:
		strbuf_addstr(&sb, "busy");
		holder_text(&sb, h, now);
		break;
	}
	return strbuf_detach(&sb);
}

static const char *code_key(uint32_t c)
{
	static const char *const k[SCHED_WHY_NCODES] = {
		[SCHED_WHY_FITS] = "fits", [SCHED_WHY_NOT_IN_PART] = "not_in_partition",
		[SCHED_WHY_EXCLUDED] = "excluded", [SCHED_WHY_NOT_LISTED] = "not_listed",
		[SCHED_WHY_NOT_IN_RESV] = "not_in_reservation", [SCHED_WHY_FEATURES] = "features",
		[SCHED_WHY_CPUS] = "cpus", [SCHED_WHY_MEMORY] = "memory", [SCHED_WHY_GPUS] = "gpus",
		[SCHED_WHY_SHAPE] = "shape", [SCHED_WHY_UNUSABLE] = "unusable",
		[SCHED_WHY_RESV_LATER] = "reservation_not_started",
		[SCHED_WHY_RESERVED] = "reserved", [SCHED_WHY_EXCLUSIVE] = "exclusive",
		[SCHED_WHY_OTHER_USER] = "other_user", [SCHED_WHY_BUSY_CPUS] = "busy_cpus",
		[SCHED_WHY_BUSY_MEMORY] = "busy_memory", [SCHED_WHY_BUSY_GPUS] = "busy_gpus",
		[SCHED_WHY_BUSY] = "busy",
	};
	return c < SCHED_WHY_NCODES ? k[c] : "unknown";
}

/* ---- planned (backfill) reservations ---- */

/* Per node, the pending job a backfill plan holds it for (0: none). */
static uint32_t *planned_build(ctld_t *cd, const job_t *self)
{
	uint32_t *p = NULL;
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		if (j == self || (j->state & JOB_STATE_BASE) != JOB_PENDING || !j->sched_nodes)
			continue;
		hostlist_t *hl = hostlist_create(j->sched_nodes, NULL);
		if (!hl)
			continue;
		if (!p)
			p = xcalloc(cd->nnodes ? cd->nnodes : 1, sizeof(*p));
		for (size_t k = 0; k < hostlist_count(hl); k++) {
			long x = conf_node_find(cd->conf, hostlist_nth(hl, k));
			if (x >= 0 && (uint32_t)x < cd->nnodes && !p[x])
				p[x] = j->job_id;
		}
		hostlist_destroy(hl);
	}
	return p;
}

/* ---- pending job ---- */

typedef struct group {
	uint32_t code;
	char *text;
	hostlist_t *hl;
	uint32_t count;
} group_t;

static int group_cmp(const void *a, const void *b)
{
	const group_t *x = a, *y = b;
	/* usable answers first (fits, then busy), then not-now, then never */
	int rx = x->code == SCHED_WHY_FITS ? 0 : SCHED_WHY_NEVER(x->code) ? 3
		: x->code == SCHED_WHY_UNUSABLE ? 2 : 1;
	int ry = y->code == SCHED_WHY_FITS ? 0 : SCHED_WHY_NEVER(y->code) ? 3
		: y->code == SCHED_WHY_UNUSABLE ? 2 : 1;
	if (rx != ry)
		return rx - ry;
	return x->count > y->count ? -1 : x->count < y->count;
}

/* Judge every node of the job's partition; fills the "nodes" object and
 * returns the number that could run the job now / ever. */
static json_t *judge_nodes(ctld_t *cd, const job_t *j, const sched_job_t *sj, int64_t now,
			   uint32_t *n_ever, uint32_t *n_now, uint32_t *n_planned_free,
			   uint32_t *planned_job)
{
	holder_t *h = holders_build(cd);
	uint32_t *planned = planned_build(cd, j);
	group_t *g = NULL;
	size_t ng = 0, ag = 0;
	*n_ever = *n_now = *n_planned_free = 0;
	*planned_job = 0;
	const sched_part_t *sp = j->part < cd->sched.nparts ? &cd->sched.parts[j->part] : NULL;
	uint32_t total = sp ? sp->nnodes : 0;
	for (uint32_t i = 0; i < total; i++) {
		uint32_t x = sp->nodes[i];
		if (x >= cd->nnodes)
			continue;
		sched_why_node_t w;
		sched_why_node(&cd->sched, sj, x, 1, ctld_now(), &w);
		char pf[64] = "";
		const char *planned_for = NULL;
		if (!SCHED_WHY_NEVER(w.code))
			(*n_ever)++;
		if (w.code == SCHED_WHY_FITS) {
			if (planned && planned[x]) {
				job_t *o = job_find(cd, planned[x]);
				if (o && o->priority >= j->priority) {
					char t[32];
					fmt_hm(o->start_time, now, t, sizeof(t));
					snprintf(pf, sizeof(pf), "job %u (expected start %s)", o->job_id, t);
					planned_for = pf;
					(*n_planned_free)++;
					if (!*planned_job)
						*planned_job = o->job_id;
				}
			}
			if (!planned_for)
				(*n_now)++;
		}
		char *text = node_text(cd, j, &cd->nodes[x], &w, &h[x], planned_for, now);
		size_t k = 0;
		while (k < ng && (g[k].code != w.code || strcmp(g[k].text, text)))
			k++;
		if (k == ng) {
			g = xgrow(g, sizeof(*g), ng + 1, &ag);
			g[ng++] = (group_t){ w.code, text, hostlist_create_empty(), 0 };
		} else {
			free(text);
		}
		hostlist_push_host(g[k].hl, cd->nodes[x].cf->name);
		g[k].count++;
	}
	qsort(g, ng, sizeof(*g), group_cmp);
	json_t *groups = json_array();
	uint32_t more = 0;
	for (size_t k = 0; k < ng; k++) {
		if (k < WHY_GROUPS_MAX) {
			char *names = hostlist_ranged_string(g[k].hl);
			json_array_append_new(groups, json_pack("{s:s,s:i,s:s,s:s,s:b}", "nodes", names,
								"count", (int)g[k].count, "code",
								code_key(g[k].code), "text", g[k].text,
								"never", SCHED_WHY_NEVER(g[k].code)));
			free(names);
		} else {
			more += g[k].count;
		}
		hostlist_destroy(g[k].hl);
		free(g[k].text);
	}
	free(g);
	free(h);
	free(planned);
	json_t *o = json_pack("{s:i,s:i,s:i,s:i,s:o}", "partition_nodes", (int)total,
			      "could_ever", (int)*n_ever, "could_now", (int)*n_now, "needed",
			      (int)sched_why_min_nodes(&cd->sched, sj), "groups", groups);
	if (more)
		json_object_set_new(o, "more_nodes", json_integer(more));
	return o;
}

/* Other partitions where the job could run (its user may submit there). */
static void other_parts(ctld_t *cd, const job_t *j, const sched_job_t *sj, json_t *fixes)
{
	for (uint32_t p = 0; p < cd->sched.nparts && p < cd->nparts; p++) {
		if (p == j->part || !cd->sched.parts[p].up)
			continue;
		sched_job_t alt = *sj;
		alt.part = p;
		const sched_part_t *sp = &cd->sched.parts[p];
		if (sp->max_time != TIME_INFINITE && j->time_limit != TIME_INFINITE &&
		    j->time_limit > sp->max_time)
			continue;
		uint32_t ever = 0;
		for (uint32_t i = 0; i < sp->nnodes; i++) {
			sched_why_node_t w;
			sched_why_node(&cd->sched, &alt, sp->nodes[i], 1, ctld_now(), &w);
			if (!SCHED_WHY_NEVER(w.code))
				ever++;
		}
		if (ever >= sched_why_min_nodes(&cd->sched, &alt)) {
			char *cmd = xasprintf("scontrol update jobid=%u Partition=%s", j->job_id,
					      cd->parts[p].cf->name);
			char *eff = xasprintf("partition %s has %u node(s) that could run it", cd->parts[p].cf->name,
					      ever);
			add_fix(fixes, cmd, eff);
			free(cmd);
			free(eff);
		}
	}
}

/* "Assoc"/"QOS" limit reasons: which entity, what limit. */
static void limit_blocker(ctld_t *cd, const job_t *j, const char *rs, json_t *blockers,
			  json_t *fixes)
{
	const char *acct = j->desc->account ? j->desc->account : "";
	char who[64];
	user_name(j->user_id, who, sizeof(who));
	int qos = !strncmp(rs, "QOS", 3);
	const char *what = strstr(rs, "Grp") ? "a group limit (Grp*), shared by every job under it"
			 : strstr(rs, "Min") && !strstr(rs, "Mins") ? "a minimum size (MinTRES)"
			 : "a per-job or per-user limit (Max*)";
	add_blocker(blockers, "limit", "%s: the job's %s%s%s hits %s; it starts when usage under "
		    "that limit drops, or an administrator raises it", rs,
		    qos ? "QOS " : "association (user ", qos ? (j->desc->qos ? j->desc->qos : "normal") : who,
		    qos ? "" : ", account", what);
	char *cmd = qos ? xasprintf("sacctmgr show qos %s", j->desc->qos ? j->desc->qos : "normal")
			: xasprintf("sacctmgr show assoc where user=%s account=%s", who, acct);
	add_fix(fixes, cmd, "shows the limits that apply");
	free(cmd);
	(void)cd;
}

/* Pending jobs of the same partition ahead of j (higher priority, or
 * equal and older), not themselves blocked by a hold or dependency. */
static json_t *rank_of(ctld_t *cd, const job_t *j)
{
	uint32_t ahead = 0, pending = 0;
	job_t *top[WHY_AHEAD_MAX];
	uint32_t ntop = 0;
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *o = cd->jobs[i];
		if ((o->state & JOB_STATE_BASE) != JOB_PENDING || o->part != j->part)
			continue;
		pending++;
		if (o == j || o->hold || o->dep_state)
			continue;
		if (o->priority > j->priority || (o->priority == j->priority && o->job_id < j->job_id)) {
			ahead++;
			/* keep the WHY_AHEAD_MAX highest */
			if (ntop < WHY_AHEAD_MAX)
				top[ntop++] = o;
			else {
				uint32_t lo = 0;
				for (uint32_t k = 1; k < ntop; k++)
					if (top[k]->priority < top[lo]->priority)
						lo = k;
				if (o->priority > top[lo]->priority)
					top[lo] = o;
			}
		}
	}
	/* sort the kept ones by priority, descending */
	for (uint32_t a = 1; a < ntop; a++)
		for (uint32_t b = a; b > 0 && (top[b]->priority > top[b - 1]->priority ||
					       (top[b]->priority == top[b - 1]->priority &&
						top[b]->job_id < top[b - 1]->job_id)); b--) {
			job_t *t = top[b];
			top[b] = top[b - 1];
			top[b - 1] = t;
		}
	json_t *arr = json_array();
	for (uint32_t k = 0; k < ntop; k++) {
		char u[64];
		json_array_append_new(arr, json_pack("{s:i,s:s,s:I,s:s}", "job_id", (int)top[k]->job_id,
						     "user", user_name(top[k]->user_id, u, sizeof(u)),
						     "priority", (json_int_t)top[k]->priority, "state_reason",
						     job_reason_string(top[k]->reason)));
	}
	return json_pack("{s:i,s:i,s:o}", "position", (int)ahead + 1, "pending_in_partition",
			 (int)pending, "ahead", arr);
}

static void why_pending(ctld_t *cd, job_t *j, int64_t now, json_t *o)
{
	json_t *blockers = json_array(), *fixes = json_array();
	part_t *p = j->part < cd->nparts ? &cd->parts[j->part] : NULL;
	const char *pname = p ? p->cf->name : "?";
	char buf[64];

	if (j->hold == WAIT_HELD_USER) {
		add_blocker(blockers, "held", "held by its user (JobHeldUser)");
		snprintf(buf, sizeof(buf), "scontrol release %u", j->job_id);
		add_fix(fixes, buf, "releases the hold");
	} else if (j->hold) {
		add_blocker(blockers, "held", "held by an administrator (JobHeldAdmin): only an "
			    "operator can release it");
		snprintf(buf, sizeof(buf), "scontrol release %u", j->job_id);
		add_fix(fixes, buf, "releases the hold (operators only)");
	}
	if (j->dep_state) {
		json_t *deps = json_array();
		for (uint32_t i = 0; i < j->ndeps; i++) {
			/* met elements no longer hold it; singleton names no job */
			if (j->deps[i].state == DEP_FULFILLED || j->deps[i].type == DEP_SINGLETON)
				continue;
			job_t *t = job_find(cd, j->deps[i].job_id);
			json_array_append_new(deps, json_pack("{s:i,s:s}", "job_id", (int)j->deps[i].job_id,
							      "state", t ? job_state_string(t->state)
									 : "PURGED"));
		}
		json_object_set_new(o, "dependencies", deps);
		if (j->dep_state == 2) {
			add_blocker(blockers, "dependency_never",
				    "its dependency \"%s\" can never be satisfied (DependencyNeverSatisfied)",
				    j->dep_str ? j->dep_str : "");
			snprintf(buf, sizeof(buf), "scancel %u", j->job_id);
			add_fix(fixes, buf, "removes the job, which will never start as it is");
			char *c = xasprintf("scontrol update jobid=%u Dependency=", j->job_id);
			add_fix(fixes, c, "drops the dependency");
			free(c);
		} else {
			add_blocker(blockers, "dependency", "waits for its dependency \"%s\"",
				    j->dep_str ? j->dep_str : "");
		}
	}
	if (j->eligible_time > now || j->desc->begin_time > now) {
		int64_t t = j->eligible_time > now ? j->eligible_time : j->desc->begin_time;
		char ts[32];
		time_fmt_iso((time_t)t, ts, sizeof(ts));
		add_blocker(blockers, "begin_time", "not eligible before %s (BeginTime)", ts);
	}
	if (p && p->state != CONF_PART_UP && p->state != CONF_PART_DRAIN) {
		add_blocker(blockers, "partition_state", "partition %s is %s: no job starts there",
			    pname, p->state == CONF_PART_INACTIVE ? "INACTIVE" : "DOWN");
		char *c = xasprintf("scontrol update partitionname=%s State=UP", pname);
		add_fix(fixes, c, "an operator brings the partition up");
		free(c);
	}
	if (p && p->max_time != TIME_INFINITE && j->time_limit != TIME_INFINITE &&
	    j->time_limit > p->max_time) {
		char a[32], m[32];
		mins_fmt_limit(j->time_limit, a, sizeof(a));
		mins_fmt_limit(p->max_time, m, sizeof(m));
		add_blocker(blockers, "partition_time_limit",
			    "it asks -t %s in partition %s, over its MaxTime=%s (PartitionTimeLimit)", a,
			    pname, m);
		char *c = xasprintf("scontrol update jobid=%u TimeLimit=%s", j->job_id, m);
		add_fix(fixes, c, "fits the partition's MaxTime");
		free(c);
	}
	uint32_t need_nodes = j->desc->min_nodes;
	if (p && p->max_nodes && p->max_nodes != UINT32_MAX && need_nodes > p->max_nodes) {
		add_blocker(blockers, "partition_node_limit",
			    "it asks %u nodes, partition %s allows MaxNodes=%u (PartitionNodeLimit)",
			    need_nodes, pname, p->max_nodes);
		char *c = xasprintf("scontrol update jobid=%u NumNodes=%u", j->job_id, p->max_nodes);
		add_fix(fixes, c, "fits the partition's MaxNodes");
		free(c);
	}
	const char *rs = job_reason_string(j->reason);
	if (!strncmp(rs, "Assoc", 5) || !strncmp(rs, "QOS", 3))
		limit_blocker(cd, j, rs, blockers, fixes);
	/* Blockers that hold the job whatever the nodes do: the node answers
	 * below still show what it would meet once they are lifted. */
	size_t hard = json_array_size(blockers);

	sched_job_t sj;
	sched_glue_job(cd, j, &sj);
	uint32_t ever, now_ok, planned_free, planned_job;
	json_t *nodes = judge_nodes(cd, j, &sj, now, &ever, &now_ok, &planned_free, &planned_job);
	uint32_t need = sched_why_min_nodes(&cd->sched, &sj);
	json_object_set_new(o, "nodes", nodes);
	if (ever < need || j->reason == WAIT_PART_TIME_LIMIT || j->reason == WAIT_PART_NODE_LIMIT ||
	    (p && p->state != CONF_PART_UP && p->state != CONF_PART_DRAIN))
		other_parts(cd, j, &sj, fixes);
	if (ever < need) {
		add_blocker(blockers, "never",
			    "only %u node(s) of partition %s could ever run it as asked, it needs %u: it "
			    "will not start until the request or the nodes change", ever, pname, need);
	} else if (hard) {
		/* the nodes are not what it waits for */
	} else if (now_ok >= need) {
		add_blocker(blockers, "next_pass", "enough nodes are free now: it should start at the "
			    "next scheduling pass (Reason=%s)", rs);
	} else if (now_ok + planned_free >= need && planned_job && j->time_limit != TIME_INFINITE) {
		job_t *o2 = job_find(cd, planned_job);
		if (o2 && o2->start_time > now + 120) {
			uint32_t mins = (uint32_t)((o2->start_time - now) / 60) - 1;
			char lim[32];
			mins_fmt_limit(mins, lim, sizeof(lim));
			add_blocker(blockers, "reserved",
				    "free nodes are kept for higher-priority job %u, expected to start "
				    "in %u min", planned_job, mins + 1);
			if (mins < j->time_limit) {
				char *c = xasprintf("scontrol update jobid=%u TimeLimit=%s", j->job_id, lim);
				add_fix(fixes, c, "ends before that job starts: backfill could start it now");
				free(c);
			}
		}
	}
	if (!hard && ever >= need && now_ok < need) {
		if (j->reason == WAIT_PRIORITY)
			add_blocker(blockers, "priority", "jobs of higher priority in partition %s are "
				    "waiting for the same resources (Priority)", pname);
		else if (j->reason == WAIT_RESOURCES)
			add_blocker(blockers, "resources", "not enough of its partition's nodes are free "
				    "now (Resources): %u could now, it needs %u", now_ok, need);
	}
	if (!hard && j->reason == WAIT_NODE_NOT_AVAIL && j->reason_detail &&
	    !strncmp(j->reason_detail, "UnavailableNodes:", 17))
		add_blocker(blockers, "nodes_unavailable",
			    "it cannot run without nodes that are down, drained, not responding or "
			    "kept for a job ahead of it: %s (ReqNodeNotAvail)", j->reason_detail + 17);
	json_object_set_new(o, "rank", rank_of(cd, j));
	if (j->start_time > now) {
		json_object_set_new(o, "expected_start", jtime(j->start_time));
		json_object_set_new(o, "planned_nodes", jstr(j->sched_nodes));
	}
	json_object_set_new(o, "blockers", blockers);
	json_object_set_new(o, "fixes", fixes);
}

/* How a job ended, in words. */
static void why_ended(ctld_t *cd, job_t *j, json_t *o)
{
	json_t *facts = json_array();
	uint32_t st = j->state & JOB_STATE_BASE;
	int status = (int)j->exit_code;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	json_object_set_new(o, "exit_code", json_integer(code));
	json_object_set_new(o, "signal", json_integer(sig));
	char u[64];
	switch (st) {
	case JOB_COMPLETE:
		add_blocker(facts, "completed", "completed with exit code 0");
		break;
	case JOB_FAILED:
		if (sig)
			add_blocker(facts, "failed", "failed: killed by signal %d (%s)", sig, strsignal(sig));
		else
			add_blocker(facts, "failed", "failed with exit code %d (NonZeroExitCode)", code);
		break;
	case JOB_TIMEOUT: {
		char l[32];
		mins_fmt_limit(j->time_limit, l, sizeof(l));
		add_blocker(facts, "timeout", "reached its time limit of %s and was killed (TimeLimit)",
			    l);
		break;
	}
	case JOB_CANCELLED:
		if (j->cancelled_by)
			add_blocker(facts, "cancelled", "cancelled by %s",
				    user_name(j->cancel_uid, u, sizeof(u)));
		else
			add_blocker(facts, "cancelled", "cancelled");
		break;
	case JOB_NODE_FAIL:
		add_blocker(facts, "node_fail", "ended by the failure of node(s) %s (NodeFail)",
			    j->nodes ? j->nodes : "?");
		break;
	case JOB_OOM:
		add_blocker(facts, "oom", "killed by the out-of-memory handler (OutOfMemory): it used "
			    "more memory than it asked for");
		break;
	case JOB_PREEMPTED:
		add_blocker(facts, "preempted", "preempted by a job of a higher QOS");
		break;
	case JOB_BOOT_FAIL:
		add_blocker(facts, "boot_fail", "its nodes failed to boot");
		break;
	case JOB_DEADLINE: {
		/* ended pending: its time limit (or TimeMin) from then on would
		 * have run past --deadline (job_deadline.c) */
		char dl[32], l[32];
		time_fmt_iso((time_t)(j->desc ? j->desc->deadline : 0), dl, sizeof(dl));
		mins_fmt_limit(j->time_limit, l, sizeof(l));
		add_blocker(facts, "deadline", "could not end by its deadline %s with a time limit of "
			    "%s, so it was never started (DeadLine)", dl, l);
		break;
	}
	default:
		break;
	}
	if (j->restarts)
		add_blocker(facts, "requeued", "requeued %u time(s) before", j->restarts);
	json_object_set_new(o, "facts", facts);
	(void)cd;
}

static void why_job(ctld_t *cd, job_t *j, int64_t now, json_t *o)
{
	const job_desc_t *d = j->desc;
	char u[64], tl[32];
	json_object_set_new(o, "kind", json_string("job"));
	json_object_set_new(o, "job_id", json_integer(j->job_id));
	json_object_set_new(o, "name", jstr(d->name));
	json_object_set_new(o, "user", json_string(user_name(j->user_id, u, sizeof(u))));
	json_object_set_new(o, "state", json_string(job_state_string(j->state)));
	json_object_set_new(o, "reason", json_string(job_reason_string(j->reason)));
	json_object_set_new(o, "reason_detail", jstr(j->reason_detail));
	json_object_set_new(o, "partition", jstr(j->part < cd->nparts ? cd->parts[j->part].cf->name : NULL));
	json_object_set_new(o, "account", jstr(d->account));
	json_object_set_new(o, "qos", jstr(d->qos));
	json_object_set_new(o, "priority", json_integer((json_int_t)j->priority));
	mins_fmt_limit(j->time_limit, tl, sizeof(tl));
	json_object_set_new(o, "time_limit", json_string(tl));
	json_object_set_new(o, "submit_time", jtime(j->submit_time));
	json_object_set_new(o, "start_time", (j->state & JOB_STATE_BASE) != JOB_PENDING
						     ? jtime(j->start_time) : json_null());
	json_object_set_new(o, "end_time", JOB_IS_FINISHED(j->state) || (j->state & JOB_STATE_BASE) ==
							     JOB_RUNNING ? jtime(j->end_time) : json_null());
	json_object_set_new(o, "nodes_allocated", jstr(j->nodes));
	json_object_set_new(o, "restarts", json_integer(j->restarts));
	json_object_set_new(o, "request", json_pack(
		"{s:i,s:i,s:i,s:i,s:I,s:I,s:i,s:i,s:s?,s:s?,s:s?,s:s?,s:b}",
		"nodes_min", (int)d->min_nodes, "nodes_max", (int)d->max_nodes,
		"tasks", (int)d->ntasks, "cpus_per_task", (int)(d->cpus_per_task ? d->cpus_per_task : 1),
		"mem_per_node_mb", (json_int_t)d->mem_per_node, "mem_per_cpu_mb", (json_int_t)d->mem_per_cpu,
		"gpus_per_node", (int)j->gpus_per_node, "gpus_per_job", (int)j->gpus_per_job,
		"gpu_type", j->gpu_type[0] ? j->gpu_type : NULL, "features", d->features,
		"nodelist", d->req_nodes, "exclude", d->exc_nodes,
		"exclusive", (d->flags & JOB_F_EXCLUSIVE) != 0));
	json_object_set_new(o, "work_dir", jstr(d->work_dir));
	json_object_set_new(o, "std_err", jstr(d->std_err ? d->std_err : d->std_out));
	json_object_set_new(o, "batch_host", jstr(j->alloc.nnodes && j->alloc.nodes[0] < cd->nnodes
							   ? cd->nodes[j->alloc.nodes[0]].cf->name : NULL));
	json_t *nccl = job_nccl_why(j);   /* the NCCL transport check */
	if (nccl)
		json_object_set_new(o, "nccl", nccl);
	uint32_t st = j->state & JOB_STATE_BASE;
	if (st == JOB_PENDING)
		why_pending(cd, j, now, o);
	else if (JOB_IS_FINISHED(j->state))
		why_ended(cd, j, o);
}

static void why_node(ctld_t *cd, node_t *n, int64_t now, json_t *o)
{
	char st[64], u[64];
	json_object_set_new(o, "kind", json_string("node"));
	json_object_set_new(o, "node", json_string(n->cf->name));
	node_state_string(node_state(cd, n), st, sizeof(st));
	json_object_set_new(o, "state", json_string(st));
	json_object_set_new(o, "reason", jstr(n->reason));
	json_object_set_new(o, "reason_set_by", n->reason ? json_string(user_name(n->reason_uid, u, sizeof(u)))
							  : json_null());
	json_object_set_new(o, "reason_time", jtime(n->reason_time));
	json_object_set_new(o, "last_heard", jtime(n->last_heard));
	json_object_set_new(o, "boot_time", jtime(n->boot_time));
	json_object_set_new(o, "partitions", jstr(n->partitions));
	json_t *facts = json_array(), *fixes = json_array();
	strbuf_t sb = STRBUF_INIT;
	node_state_text(cd, n, now, &sb);
	add_blocker(facts, "state", "%s", sb.buf);
	strbuf_release(&sb);
	if (n->flags & NODE_FLAG_DRAIN || n->base == NODE_DOWN) {
		char *c = xasprintf("scontrol update nodename=%s State=RESUME", n->cf->name);
		add_fix(fixes, c, "an operator returns it to service once the cause is fixed");
		free(c);
	}
	if (n->flags & NODE_FLAG_INVALID_REG)
		add_blocker(facts, "invalid_registration", "its registration did not match slurm.conf "
			    "(fewer CPUs, memory or GPUs than configured): see the controller log");
	if (n->base == NODE_DOWN && (n->flags & NODE_FLAG_NO_RESPOND))
		add_blocker(facts, "not_responding", "set DOWN because it stopped answering "
			    "(SlurmdTimeout)");
	json_t *jobs = json_array();
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		if (!j->alloc.nnodes || (!j->alloc_held && JOB_IS_FINISHED(j->state)))
			continue;
		for (uint32_t k = 0; k < j->alloc.nnodes; k++)
			if (j->alloc.nodes[k] == n->idx) {
				json_array_append_new(jobs, json_pack(
					"{s:i,s:s,s:s,s:o}", "job_id", (int)j->job_id, "user",
					user_name(j->user_id, u, sizeof(u)), "state",
					job_state_string(j->state), "end_time", jtime(j->end_time)));
				break;
			}
	}
	json_object_set_new(o, "jobs", jobs);
	json_object_set_new(o, "facts", facts);
	json_object_set_new(o, "fixes", fixes);
}

void why_op(ctld_t *cd, const msg_acct_req_t *req, uint32_t uid, msg_acct_reply_t *out)
{
	const char *js = acct_arg(req, "job"), *ns = acct_arg(req, "node");
	int64_t now = ctld_now();
	json_t *o = json_object();
	if (js) {
		char *end;
		unsigned long id = strtoul(js, &end, 10);
		job_t *j = *js && !*end && id && id <= UINT32_MAX ? job_find(cd, (uint32_t)id) : NULL;
		if (!j) {
			out->rc = ESLURM_INVALID_JOB_ID;
			out->msg = xasprintf("job %s is not known to the controller (finished jobs leave "
					     "it after MinJobAge; try sacct -j %s)", js, js);
			json_decref(o);
			return;
		}
		why_job(cd, j, now, o);
	} else if (ns) {
		long x = conf_node_find(cd->conf, ns);
		if (x < 0 || (uint32_t)x >= cd->nnodes) {
			out->rc = ESLURM_INVALID_NODE_NAME;
			out->msg = xasprintf("no node named %s", ns);
			json_decref(o);
			return;
		}
		why_node(cd, &cd->nodes[x], now, o);
	} else {
		out->rc = SLUICE_E_PROTOCOL;
		out->msg = xstrdup("why: job= or node= expected");
		json_decref(o);
		return;
	}
	(void)uid;
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	out->msg = xstrdup(s ? s : "{}");
	free(s);
}
