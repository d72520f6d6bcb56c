/*
 * metrics.c: the controller's metrics endpoint (MetricsType=
 * metrics/openmetrics): the HTTP server (lib/http.c) on MetricsPort, and
 * the families it serves, rendered in the loop from the live state at each
 * scrape (no copy, no lock: the loop is the only thread that touches it).
 *
 * Names follow Slurm 25.11's openmetrics plugin where it has the family
 * (slurm_jobs_pending, slurm_nodes_idle, slurm_partition_jobs_running,
 * slurm_bf_cycle_cnt, ...; its cycle times are microseconds, as sdiag's),
 * the widely used exporters where it has none (slurm_cpus_total,
 * slurm_gpus_alloc, slurm_rpc_stats{operation}, slurm_node_state{state}),
 * and sluice_* for what neither has (histograms in seconds, commit and
 * loop latency, monotonic job counters). The scheduler families read the
 * very counters sdiag reports (cd->stats, rpc_sched.c): one source.
 *
 * Cost of a scrape: one pass over the jobs, one over the nodes, one over
 * each partition's node list, and the user and account tables (hashed):
 * O(jobs + nodes + partition memberships + output).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/ctld.h"
#include "ctld/job_nccl.h"
#include "ctld/names.h"

#include "http.h"
#include "log.h"
#include "prom.h"
#include "states.h"
#include "xalloc.h"

/* ---- histogram bounds (seconds) ---- */

static const double cycle_bounds[] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
	0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10 };
static const double commit_bounds[] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
	0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5 };
static const double turn_bounds[] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
	0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5 };
static const double wait_bounds[] = { 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200,
	14400, 28800, 86400, 172800, 604800 };

void ctld_metrics_init(ctld_t *cd)
{
	ctld_mstats_t *m = &cd->mstats;
	prom_hist_init(&m->sched_cycle, cycle_bounds, ARRAY_SIZE(cycle_bounds));
	prom_hist_init(&m->bf_cycle, cycle_bounds, ARRAY_SIZE(cycle_bounds));
	prom_hist_init(&m->commit, commit_bounds, ARRAY_SIZE(commit_bounds));
	prom_hist_init(&m->turn, turn_bounds, ARRAY_SIZE(turn_bounds));
}

/* ---- observations (called from the loop, whether serving or not) ---- */

void ctld_metrics_cycle(ctld_t *cd, uint64_t us, int backfill)
{
	prom_hist_observe(backfill ? &cd->mstats.bf_cycle : &cd->mstats.sched_cycle, (double)us / 1e6);
}

void ctld_metrics_commit(ctld_t *cd, uint64_t us, int rc)
{
	ctld_mstats_t *m = &cd->mstats;
	if (rc) {
		m->commit_failures++;
		return;
	}
	prom_hist_observe(&m->commit, (double)us / 1e6);
	m->commit_last_us = (uint32_t)us;
	if (us > m->commit_max_us)
		m->commit_max_us = (uint32_t)us;
}

void ctld_metrics_turn(ctld_t *cd, uint64_t us)
{
	ctld_mstats_t *m = &cd->mstats;
	prom_hist_observe(&m->turn, (double)us / 1e6);
	if (us > m->turn_max_us)
		m->turn_max_us = (uint32_t)us;
}

static prom_hist_t *wait_hist(ctld_mstats_t *m, const char *part)
{
	for (size_t i = 0; i < m->nwait; i++)
		if (!strcmp(m->wait[i].part, part))
			return &m->wait[i].h;
	m->wait = xgrow(m->wait, sizeof(*m->wait), m->nwait + 1, &m->await);
	m->wait[m->nwait].part = xstrdup(part);
	prom_hist_init(&m->wait[m->nwait].h, wait_bounds, ARRAY_SIZE(wait_bounds));
	return &m->wait[m->nwait++].h;
}

void ctld_metrics_job_start(ctld_t *cd, const job_t *j, int64_t now)
{
	int64_t from = j->submit_time;
	double w = now > from ? (double)(now - from) : 0;
	cd->mstats.jobs_started++;
	prom_hist_observe(wait_hist(&cd->mstats, cd->parts[j->part].cf->name), w);
}

void ctld_metrics_job_end(ctld_t *cd, uint32_t state)
{
	uint32_t b = state & JOB_STATE_BASE;
	if (b < JOB_END)
		cd->mstats.jobs_ended[b]++;
}

/* ---- jobs ---- */

/* The job states counted per job, partition, user and account, with
 * Slurm 25.11's family suffixes. Base states first (index = base). */
enum {
	JS_COMPLETING = JOB_END, JS_CONFIGURING, JS_REQUEUED, JS_HOLD, JS_FINISHED, JS_N
};
static const char *const js_name[JS_N] = {
	[JOB_PENDING] = "pending", [JOB_RUNNING] = "running", [JOB_SUSPENDED] = "suspended",
	[JOB_COMPLETE] = "completed", [JOB_CANCELLED] = "cancelled", [JOB_FAILED] = "failed",
	[JOB_TIMEOUT] = "timeout", [JOB_NODE_FAIL] = "node_failed", [JOB_PREEMPTED] = "preempted",
	[JOB_BOOT_FAIL] = "bootfail", [JOB_DEADLINE] = "deadline", [JOB_OOM] = "outofmemory",
	[JS_COMPLETING] = "completing", [JS_CONFIGURING] = "configuring",
	[JS_REQUEUED] = "requeued", [JS_HOLD] = "hold", [JS_FINISHED] = "finished",
};
static const char *const js_help[JS_N] = {
	[JOB_PENDING] = "pending", [JOB_RUNNING] = "running", [JOB_SUSPENDED] = "suspended",
	[JOB_COMPLETE] = "completed", [JOB_CANCELLED] = "cancelled", [JOB_FAILED] = "failed",
	[JOB_TIMEOUT] = "ended at their time limit", [JOB_NODE_FAIL] = "ended by a node failure",
	[JOB_PREEMPTED] = "preempted", [JOB_BOOT_FAIL] = "ended by a boot failure",
	[JOB_DEADLINE] = "ended at their deadline", [JOB_OOM] = "ended out of memory",
	[JS_COMPLETING] = "completing (cleanup running)", [JS_CONFIGURING] = "configuring",
	[JS_REQUEUED] = "being requeued", [JS_HOLD] = "pending and held",
	[JS_FINISHED] = "finished (any end state)",
};

typedef struct jagg {
	uint32_t n[JS_N];
	uint32_t total;
	uint64_t cpus, mem_mb, gpus, nodes;
} jagg_t;

static void jagg_add(jagg_t *a, const job_t *j, uint32_t cpus, uint64_t mem, uint64_t gpus)
{
	uint32_t s = j->state, b = s & JOB_STATE_BASE;
	a->total++;
	if (b < JOB_END)
		a->n[b]++;
	if (s & JOB_COMPLETING)
		a->n[JS_COMPLETING]++;
	if (s & JOB_CONFIGURING)
		a->n[JS_CONFIGURING]++;
	if (s & JOB_REQUEUE)
		a->n[JS_REQUEUED]++;
	if (b == JOB_PENDING && j->hold)
		a->n[JS_HOLD]++;
	if (JOB_IS_FINISHED(s))
		a->n[JS_FINISHED]++;
	if (j->alloc_held) {
		a->cpus += cpus;
		a->mem_mb += mem;
		a->gpus += gpus;
		a->nodes += j->alloc.nnodes;
	}
}

/* A keyed table of aggregates (users by uid, accounts by name). */
typedef struct agg_ent {
	uint32_t uid;
	const char *key;          /* borrowed: a job's account name */
	const char *name;         /* users: the user name of one of their jobs */
	jagg_t a;
} agg_ent_t;

typedef struct agg_tab {
	agg_ent_t *v;
	size_t n, alloc;
	uint32_t *slot;           /* open addressing: index + 1, 0 = empty */
	size_t nslot;             /* power of two */
} agg_tab_t;

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static agg_ent_t *agg_get(agg_tab_t *t, uint32_t uid, const char *key)
{
	if ((t->n + 1) * 2 > t->nslot) {
		size_t ns = t->nslot ? t->nslot * 2 : 64;
		uint32_t *slot = xcalloc(ns, sizeof(uint32_t));
		for (size_t i = 0; i < t->n; i++) {
			uint32_t h = t->v[i].key ? str_hash(t->v[i].key) : t->v[i].uid * 2654435761u;
			size_t k = h & (ns - 1);
			while (slot[k])
				k = (k + 1) & (ns - 1);
			slot[k] = (uint32_t)i + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->nslot = ns;
	}
	uint32_t h = key ? str_hash(key) : uid * 2654435761u;
	size_t k = h & (t->nslot - 1);
	while (t->slot[k]) {
		agg_ent_t *e = &t->v[t->slot[k] - 1];
		if (key ? (e->key && !strcmp(e->key, key)) : (!e->key && e->uid == uid))
			return e;
		k = (k + 1) & (t->nslot - 1);
	}
	t->v = xgrow(t->v, sizeof(*t->v), t->n + 1, &t->alloc);
	agg_ent_t *e = &t->v[t->n];
	memset(e, 0, sizeof(*e));
	e->uid = uid;
	e->key = key;
	t->slot[k] = (uint32_t)++t->n;
	return e;
}

static void agg_free(agg_tab_t *t)
{
	free(t->v);
	free(t->slot);
}

typedef struct pagg {
	jagg_t a;
	uint32_t max_nodes, min_nodes, max_nodes_nohold, min_nodes_nohold;
	uint32_t reasons[WAIT_REASON_END];
} pagg_t;

typedef struct scrape {
	ctld_t *cd;
	strbuf_t *sb;
	jagg_t all;
	pagg_t *parts;
	agg_tab_t users, accts;
	const char **user_name;   /* per users.v entry: its name (borrowed or owned) */
	char **owned;             /* names made here (uid numbers, names_user) */
	size_t nowned;
} scrape_t;

static void jobs_collect(scrape_t *s)
{
	ctld_t *cd = s->cd;
	s->parts = xcalloc(cd->nparts ? cd->nparts : 1, sizeof(pagg_t));
	for (size_t i = 0; i < cd->njobs; i++) {
		const job_t *j = cd->jobs[i];
		uint32_t cpus = 0;
		uint64_t mem = 0, gpus = 0;
		if (j->alloc_held)
			for (uint32_t k = 0; k < j->alloc.nnodes; k++) {
				cpus += j->alloc.cpus ? j->alloc.cpus[k] : 0;
				mem += j->alloc.mem ? j->alloc.mem[k] : 0;
				gpus += j->alloc.gpus ? (uint64_t)__builtin_popcountll(j->alloc.gpus[k]) : 0;
			}
		jagg_add(&s->all, j, cpus, mem, gpus);
		if (j->part < cd->nparts) {
			pagg_t *p = &s->parts[j->part];
			jagg_add(&p->a, j, cpus, mem, gpus);
			if ((j->state & JOB_STATE_BASE) == JOB_PENDING) {
				uint32_t mn = j->desc->min_nodes ? j->desc->min_nodes : 1;
				uint32_t mx = j->desc->max_nodes ? j->desc->max_nodes : mn;
				if (mx > p->max_nodes)
					p->max_nodes = mx;
				if (mn > p->min_nodes)
					p->min_nodes = mn;
				if (!j->hold) {
					if (mx > p->max_nodes_nohold)
						p->max_nodes_nohold = mx;
					if (mn > p->min_nodes_nohold)
						p->min_nodes_nohold = mn;
				}
				if (j->reason < WAIT_REASON_END)
					p->reasons[j->reason]++;
			}
		}
		/* User names: the name the controller recorded at submission,
		 * so no lookup per scrape. */
		agg_ent_t *u = agg_get(&s->users, j->user_id, NULL);
		jagg_add(&u->a, j, cpus, mem, gpus);
		if (!u->name && j->desc->user_name && *j->desc->user_name)
			u->name = j->desc->user_name;
		const char *acct = j->desc->account && *j->desc->account ? j->desc->account : "";
		jagg_add(&agg_get(&s->accts, 0, acct)->a, j, cpus, mem, gpus);
	}
	s->user_name = xcalloc(s->users.n + 1, sizeof(char *));
	s->owned = xcalloc(s->users.n + 1, sizeof(char *));
	for (size_t i = 0; i < s->users.n; i++)
		s->user_name[i] = s->users.v[i].name ? s->users.v[i].name :
			(s->owned[s->nowned++] = xasprintf("%u", s->users.v[i].uid));
}

static void jobs_write(scrape_t *s)
{
	strbuf_t *sb = s->sb;
	char name[128], help[160];
	prom_gauge(sb, "slurm_jobs", "Jobs the controller holds (pending, running and recently ended)",
		   s->all.total);
	for (int k = 0; k < JS_N; k++) {
		snprintf(name, sizeof(name), "slurm_jobs_%s", js_name[k]);
		snprintf(help, sizeof(help), "Jobs %s", js_help[k]);
		prom_gauge(sb, name, help, s->all.n[k]);
	}
	prom_gauge(sb, "slurm_jobs_cpus_alloc", "CPUs allocated to jobs", (double)s->all.cpus);
	prom_gauge(sb, "slurm_jobs_memory_alloc", "Memory allocated to jobs, bytes",
		   (double)s->all.mem_mb * 1048576.0);
	prom_gauge(sb, "slurm_jobs_gpus_alloc", "GPUs allocated to jobs", (double)s->all.gpus);
	prom_gauge(sb, "slurm_jobs_nodes_alloc", "Nodes allocated to jobs (summed over jobs)",
		   (double)s->all.nodes);

	ctld_t *cd = s->cd;
	prom_family(sb, "slurm_jobs_pending_reason", "gauge",
		    "Pending jobs by partition and reason (the Reason squeue shows)");
	for (uint32_t p = 0; p < cd->nparts; p++)
		for (uint32_t r = 0; r < WAIT_REASON_END; r++)
			if (s->parts[p].reasons[r])
				prom_sample(sb, "slurm_jobs_pending_reason", s->parts[p].reasons[r],
					    "partition", cd->parts[p].cf->name,
					    "reason", job_reason_string(r), NULL);

	const ctld_mstats_t *m = &cd->mstats;
	prom_family(sb, "sluice_jobs_submitted_total", "counter", "Jobs accepted since the controller started");
	prom_sample_u(sb, "sluice_jobs_submitted_total", m->jobs_submitted, NULL);
	prom_family(sb, "sluice_jobs_started_total", "counter", "Jobs started since the controller started");
	prom_sample_u(sb, "sluice_jobs_started_total", m->jobs_started, NULL);
	prom_family(sb, "sluice_jobs_ended_total", "counter",
		    "Jobs ended since the controller started, by end state");
	for (uint32_t b = JOB_COMPLETE; b < JOB_END; b++)
		prom_sample_u(sb, "sluice_jobs_ended_total", m->jobs_ended[b], "state", js_name[b], NULL);
	prom_family(sb, "sluice_job_wait_seconds", "histogram",
		    "Time from submission to start of the jobs started since the controller started, by partition");
	for (size_t i = 0; i < m->nwait; i++)
		prom_hist_write(sb, "sluice_job_wait_seconds", &m->wait[i].h, "partition", m->wait[i].part,
				NULL);
}

/* slurm_user_jobs_* / slurm_account_jobs_* */
static void ua_write(scrape_t *s, const agg_tab_t *t, const char *what, const char *label,
		     const char **names)
{
	strbuf_t *sb = s->sb;
	char name[128], help[160];
	for (int k = 0; k < JS_N + 5; k++) {
		const char *type = k < JS_N ? js_name[k] :
			(const char *[]){ "cpus_alloc", "memory_alloc", "gpus_alloc", "nodes_alloc", NULL }[k - JS_N];
		if (!type)
			snprintf(name, sizeof(name), "slurm_%s_jobs", what);
		else
			snprintf(name, sizeof(name), "slurm_%s_jobs_%s", what, type);
		snprintf(help, sizeof(help), "Per %s: %s", what,
			 k < JS_N ? js_help[k] : !type ? "jobs" : type);
		prom_family(sb, name, "gauge", help);
		for (size_t i = 0; i < t->n; i++) {
			const jagg_t *a = &t->v[i].a;
			double v = k < JS_N ? a->n[k] : k == JS_N ? (double)a->cpus :
				k == JS_N + 1 ? (double)a->mem_mb * 1048576.0 : k == JS_N + 2 ? (double)a->gpus :
				k == JS_N + 3 ? (double)a->nodes : a->total;
			prom_sample(sb, name, v, label, names ? names[i] : t->v[i].key, NULL);
		}
	}
}

/* ---- nodes ---- */

enum {
	NS_IDLE, NS_ALLOC, NS_MIXED, NS_DOWN, NS_UNKNOWN, NS_FUTURE, NS_ERROR,
	NS_DRAIN, NS_DRAINED, NS_DRAINING, NS_COMPLETING, NS_FAIL, NS_NORESP, NS_PLANNED,
	NS_MAINT, NS_REBOOT, NS_RESV, NS_POWERED_DOWN, NS_POWERING_UP, NS_POWER_DOWN,
	NS_INVALID_REG, NS_N
};
/* Slurm 25.11's suffixes: slurm_nodes_X and slurm_partition_nodes_Y. */
static const char *const ns_name[NS_N] = { "idle", "alloc", "mixed", "down", "unknown", "future",
	"error", "drain", "drained", "draining", "completing", "fail", "noresp", "planned", "maint",
	"reboot_req", "resv", "powered_down", "powering_up", "power_down", "invalid_reg" };
static const char *const ns_part_name[NS_N] = { "idle", "alloc", "mixed", "down", "unknown",
	"future", "error", "drain", "drained", "draining", "cg", "fail", "no_resp", "planned", "maint",
	"reboot_requested", "resv", "powered_down", "powering_up", "power_down", "invalid_reg" };

static void node_classes(uint32_t st, const sched_node_t *sn, uint32_t *c)
{
	uint32_t b = st & NODE_STATE_BASE;
	static const int base_cls[NODE_BASE_END] = { NS_UNKNOWN, NS_DOWN, NS_IDLE, NS_ALLOC, NS_ERROR,
		NS_MIXED, NS_FUTURE };
	if (b < NODE_BASE_END)
		c[base_cls[b]]++;
	if (st & NODE_FLAG_DRAIN) {
		c[NS_DRAIN]++;
		c[sn->njobs ? NS_DRAINING : NS_DRAINED]++;
	}
	static const struct { uint32_t flag; int cls; } fl[] = {
		{ NODE_FLAG_COMPLETING, NS_COMPLETING }, { NODE_FLAG_FAIL, NS_FAIL },
		{ NODE_FLAG_NO_RESPOND, NS_NORESP }, { NODE_FLAG_PLANNED, NS_PLANNED },
		{ NODE_FLAG_MAINT, NS_MAINT }, { NODE_FLAG_REBOOT, NS_REBOOT },
		{ NODE_FLAG_RESERVED, NS_RESV }, { NODE_FLAG_POWERED_DOWN, NS_POWERED_DOWN },
		{ NODE_FLAG_POWERING_UP, NS_POWERING_UP }, { NODE_FLAG_POWER_DOWN, NS_POWER_DOWN },
		{ NODE_FLAG_INVALID_REG, NS_INVALID_REG },
	};
	for (size_t i = 0; i < ARRAY_SIZE(fl); i++)
		if (st & fl[i].flag)
			c[fl[i].cls]++;
}

/* GPUs of one type: total and allocated. */
typedef struct gagg {
	char type[32];
	uint64_t total, alloc;
} gagg_t;

static void gpu_add(gagg_t **v, size_t *n, size_t *alloc, const sched_node_t *sn)
{
	for (uint32_t t = 0; t < sn->ngpu_types; t++) {
		const sched_gpu_type_t *g = &sn->gpu_types[t];
		uint64_t mask = g->count >= 64 ? ~0ull : ((1ull << g->count) - 1) << g->first;
		uint64_t used = (uint64_t)__builtin_popcountll(sn->gpus_used & mask);
		size_t i = 0;
		while (i < *n && strcmp((*v)[i].type, g->type))
			i++;
		if (i == *n) {
			*v = xgrow(*v, sizeof(**v), *n + 1, alloc);
			memset(&(*v)[i], 0, sizeof(gagg_t));
			snprintf((*v)[i].type, sizeof((*v)[i].type), "%s", g->type);
			(*n)++;
		}
		(*v)[i].total += g->count;
		(*v)[i].alloc += used;
	}
}

static void nodes_write(scrape_t *s)
{
	ctld_t *cd = s->cd;
	strbuf_t *sb = s->sb;
	char name[128], help[160], buf[64];
	uint32_t *st = xcalloc(cd->nnodes ? cd->nnodes : 1, sizeof(uint32_t));
	uint32_t cls[NS_N] = { 0 };
	uint64_t cpus = 0, cpus_alloc = 0, mem = 0, mem_alloc = 0;
	gagg_t *g = NULL;
	size_t ng = 0, ag = 0;
	for (uint32_t i = 0; i < cd->nnodes; i++) {
		const sched_node_t *sn = &cd->sched.nodes[i];
		st[i] = node_state(cd, &cd->nodes[i]);
		node_classes(st[i], sn, cls);
		cpus += sn->cpus;
		cpus_alloc += sn->cpus_used;
		mem += sn->mem;
		mem_alloc += sn->mem_used;
		gpu_add(&g, &ng, &ag, sn);
	}
	prom_gauge(sb, "slurm_nodes", "Nodes in the configuration", cd->nnodes);
	for (int k = 0; k < NS_N; k++) {
		snprintf(name, sizeof(name), "slurm_nodes_%s", ns_name[k]);
		snprintf(help, sizeof(help), "Nodes in state or with flag %s", ns_name[k]);
		prom_gauge(sb, name, help, cls[k]);
	}
	prom_gauge(sb, "slurm_cpus", "CPUs of all nodes", (double)cpus);
	prom_gauge(sb, "slurm_cpus_alloc", "CPUs allocated to jobs", (double)cpus_alloc);
	prom_gauge(sb, "slurm_cpus_idle", "CPUs not allocated", (double)(cpus - cpus_alloc));
	prom_gauge(sb, "slurm_memory_total_bytes", "Memory of all nodes (RealMemory), bytes",
		   (double)mem * 1048576.0);
	prom_gauge(sb, "slurm_memory_alloc_bytes", "Memory allocated to jobs, bytes",
		   (double)mem_alloc * 1048576.0);
	uint64_t gt = 0, ga = 0;
	for (size_t i = 0; i < ng; i++) {
		gt += g[i].total;
		ga += g[i].alloc;
	}
	prom_gauge(sb, "slurm_gpus", "GPUs of all nodes", (double)gt);
	prom_gauge(sb, "slurm_gpus_alloc", "GPUs allocated to jobs", (double)ga);
	prom_gauge(sb, "slurm_gpus_idle", "GPUs not allocated", (double)(gt - ga));
	static const char *const gk[3] = { "", "_alloc", "_idle" };
	for (int k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "slurm_gpus_type%s", gk[k]);
		snprintf(help, sizeof(help), "GPUs by type (gres type, \"\" when untyped)%s", k == 0 ? "" : k == 1 ? ", allocated" : ", not allocated");
		prom_family(sb, name, "gauge", help);
		for (size_t i = 0; i < ng; i++)
			prom_sample_u(sb, name, k == 0 ? g[i].total : k == 1 ? g[i].alloc :
				      g[i].total - g[i].alloc, "type", g[i].type, NULL);
	}
	free(g);

	/* Per node. */
	prom_family(sb, "slurm_node_state", "gauge",
		    "1 per node, labelled with its state as sinfo %T prints it (without the * of not responding)");
	for (uint32_t i = 0; i < cd->nnodes; i++) {
		node_state_string(st[i] & ~NODE_FLAG_NO_RESPOND, buf, sizeof(buf));
		prom_sample(sb, "slurm_node_state", 1, "node", cd->nodes[i].cf->name, "state", buf, NULL);
	}
	prom_family(sb, "slurm_node_reason", "gauge",
		    "1 per node with a reason (drained, down, failing), labelled with it");
	for (uint32_t i = 0; i < cd->nnodes; i++)
		if (cd->nodes[i].reason)
			prom_sample(sb, "slurm_node_reason", 1, "node", cd->nodes[i].cf->name,
				    "reason", cd->nodes[i].reason, NULL);
	node_health_metrics(cd, sb);
	static const char *const nf[] = { "slurm_node_cpus", "slurm_node_cpus_alloc", "slurm_node_cpus_idle",
		"slurm_node_memory_bytes", "slurm_node_memory_alloc_bytes", "slurm_node_memory_free_bytes",
		"slurm_node_gpus", "slurm_node_gpus_alloc" };
	static const char *const nh[] = { "CPUs of the node", "CPUs allocated on the node",
		"CPUs not allocated on the node", "Memory of the node (RealMemory), bytes",
		"Memory allocated on the node, bytes", "Free memory the node reported, bytes",
		"GPUs of the node", "GPUs allocated on the node" };
	/* Each node's {node="..."} once for all its families. */
	strbuf_t lb = STRBUF_INIT;
	size_t *lo = xcalloc(cd->nnodes + 1, sizeof(size_t));
	for (uint32_t i = 0; i < cd->nnodes; i++) {
		lo[i] = lb.len;
		prom_labels(&lb, "node", cd->nodes[i].cf->name, NULL);
		strbuf_addch(&lb, 0);
	}
	for (size_t k = 0; k < ARRAY_SIZE(nf); k++) {
		prom_family(sb, nf[k], "gauge", nh[k]);
		for (uint32_t i = 0; i < cd->nnodes; i++) {
			const sched_node_t *sn = &cd->sched.nodes[i];
			const node_t *n = &cd->nodes[i];
			double v;
			switch (k) {
			case 0: v = sn->cpus; break;
			case 1: v = sn->cpus_used; break;
			case 2: v = sn->cpus - sn->cpus_used; break;
			case 3: v = (double)sn->mem * 1048576.0; break;
			case 4: v = (double)sn->mem_used * 1048576.0; break;
			case 5: if (!n->conn && !n->free_mem) continue;
				v = (double)n->free_mem * 1048576.0; break;
			case 6: if (!sn->ngpus) continue;
				v = sn->ngpus; break;
			default: if (!sn->ngpus) continue;
				v = __builtin_popcountll(sn->gpus_used); break;
			}
			prom_sample_lbl(sb, nf[k], lb.buf + lo[i], v);
		}
	}
	strbuf_release(&lb);
	free(lo);

	/* Per partition. */
	prom_gauge(sb, "slurm_partitions", "Partitions", cd->nparts);
	uint32_t (*pc)[NS_N] = xcalloc(cd->nparts ? cd->nparts : 1, sizeof(*pc));
	uint64_t (*pr)[6] = xcalloc(cd->nparts ? cd->nparts : 1, sizeof(*pr));
	gagg_t **pg = xcalloc(cd->nparts ? cd->nparts : 1, sizeof(gagg_t *));
	size_t *png = xcalloc(cd->nparts ? cd->nparts : 1, sizeof(size_t));
	for (uint32_t p = 0; p < cd->nparts; p++) {
		const conf_part_t *cp = cd->parts[p].cf;
		size_t pa = 0;
		for (size_t k = 0; k < cp->nnodes; k++) {
			size_t i = cp->node_idx[k];
			if (i >= cd->nnodes)
				continue;
			const sched_node_t *sn = &cd->sched.nodes[i];
			node_classes(st[i], sn, pc[p]);
			pr[p][0] += sn->cpus;
			pr[p][1] += sn->cpus_used;
			pr[p][2] += sn->mem;
			pr[p][3] += sn->mem_used;
			pr[p][4] += cd->nodes[i].free_mem;
			pr[p][5]++;
			gpu_add(&pg[p], &png[p], &pa, sn);
		}
	}
#define PART_FAMILY(fname, fhelp, expr) do { \
		prom_family(sb, fname, "gauge", fhelp); \
		for (uint32_t p = 0; p < cd->nparts; p++) \
			prom_sample(sb, fname, (double)(expr), "partition", cd->parts[p].cf->name, NULL); \
	} while (0)
	PART_FAMILY("slurm_partition_nodes", "Nodes of the partition", pr[p][5]);
	PART_FAMILY("slurm_partition_cpus", "CPUs of the partition's nodes", pr[p][0]);
	PART_FAMILY("slurm_partition_nodes_cpus_alloc", "CPUs allocated on the partition's nodes", pr[p][1]);
	PART_FAMILY("slurm_partition_nodes_cpus_idle", "CPUs not allocated on the partition's nodes",
		    pr[p][0] - pr[p][1]);
	PART_FAMILY("slurm_partition_nodes_mem_tot", "Memory of the partition's nodes, bytes",
		    (double)pr[p][2] * 1048576.0);
	PART_FAMILY("slurm_partition_nodes_mem_alloc", "Memory allocated on the partition's nodes, bytes",
		    (double)pr[p][3] * 1048576.0);
	PART_FAMILY("slurm_partition_nodes_mem_free", "Free memory the partition's nodes reported, bytes",
		    (double)pr[p][4] * 1048576.0);
	for (int k = 0; k < NS_N; k++) {
		snprintf(name, sizeof(name), "slurm_partition_nodes_%s", ns_part_name[k]);
		snprintf(help, sizeof(help), "Nodes of the partition in state or with flag %s", ns_name[k]);
		PART_FAMILY(name, help, pc[p][k]);
	}
	for (int k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "slurm_partition_gpus%s", gk[k]);
		snprintf(help, sizeof(help), "GPUs of the partition's nodes by type%s", k == 0 ? "" : k == 1 ? ", allocated" : ", not allocated");
		prom_family(sb, name, "gauge", help);
		for (uint32_t p = 0; p < cd->nparts; p++)
			for (size_t i = 0; i < png[p]; i++)
				prom_sample_u(sb, name, k == 0 ? pg[p][i].total : k == 1 ? pg[p][i].alloc :
					      pg[p][i].total - pg[p][i].alloc, "partition", cd->parts[p].cf->name,
					      "type", pg[p][i].type, NULL);
	}
	for (uint32_t p = 0; p < cd->nparts; p++)
		free(pg[p]);
	free(pg);
	free(png);
	free(pc);
	free(pr);
	free(st);
}

static void partitions_jobs_write(scrape_t *s)
{
	ctld_t *cd = s->cd;
	strbuf_t *sb = s->sb;
	char name[128], help[160];
	PART_FAMILY("slurm_partition_jobs", "Jobs of the partition", s->parts[p].a.total);
	for (int k = 0; k < JS_N; k++) {
		snprintf(name, sizeof(name), "slurm_partition_jobs_%s", js_name[k]);
		snprintf(help, sizeof(help), "Jobs of the partition %s", js_help[k]);
		PART_FAMILY(name, help, s->parts[p].a.n[k]);
	}
	PART_FAMILY("slurm_partition_jobs_cpus_alloc", "CPUs allocated to the partition's jobs",
		    s->parts[p].a.cpus);
	PART_FAMILY("slurm_partition_jobs_memory_alloc", "Memory allocated to the partition's jobs, bytes",
		    (double)s->parts[p].a.mem_mb * 1048576.0);
	PART_FAMILY("slurm_partition_jobs_gpus_alloc", "GPUs allocated to the partition's jobs",
		    s->parts[p].a.gpus);
	PART_FAMILY("slurm_partition_jobs_max_job_nodes", "Largest node count a pending job of the partition asks for",
		    s->parts[p].max_nodes);
	PART_FAMILY("slurm_partition_jobs_max_job_nodes_nohold",
		    "Largest node count a pending, not held job of the partition asks for",
		    s->parts[p].max_nodes_nohold);
	PART_FAMILY("slurm_partition_jobs_min_job_nodes", "Largest minimum node count of the partition's pending jobs",
		    s->parts[p].min_nodes);
	PART_FAMILY("slurm_partition_jobs_min_job_nodes_nohold",
		    "Largest minimum node count of the partition's pending, not held jobs",
		    s->parts[p].min_nodes_nohold);
}
#undef PART_FAMILY

/* ---- scheduler, RPCs, controller ---- */

static void scheduler_write(scrape_t *s)
{
	ctld_t *cd = s->cd;
	strbuf_t *sb = s->sb;
	const ctld_stats_t *st = &cd->stats;
	msg_stats_t d;
	ctld_stats_fill(cd, &d);
	prom_gauge(sb, "slurm_schedule_cycle_cnt", "Main scheduling cycles since the last sdiag reset", d.sched_cycles);
	prom_gauge(sb, "slurm_sched_cycle_cnt", "Main scheduling cycles since the last sdiag reset (the name in Slurm's metrics guide)",
		   d.sched_cycles);
	prom_gauge(sb, "slurm_schedule_cycle_last", "Last main scheduling cycle, microseconds", d.sched_last);
	prom_gauge(sb, "slurm_sched_cycle_last", "Last main scheduling cycle, microseconds (the name in Slurm's metrics guide)",
		   d.sched_last);
	prom_gauge(sb, "slurm_schedule_cycle_max", "Longest main scheduling cycle, microseconds", d.sched_max);
	prom_gauge(sb, "slurm_schedule_cycle_tot", "Sum of main scheduling cycles, microseconds", (double)st->sched_sum_us);
	prom_gauge(sb, "slurm_sched_mean_cycle", "Mean main scheduling cycle, microseconds", d.sched_mean);
	prom_gauge(sb, "slurm_schedule_cycle_depth", "Jobs examined by main cycles, summed", (double)st->sched_depth_sum);
	prom_gauge(sb, "slurm_sched_mean_depth_cycle", "Mean jobs examined per main cycle", d.sched_mean_depth);
	prom_gauge(sb, "slurm_schedule_queue_len", "Pending jobs the last main cycle was given", d.sched_queue_len);
	prom_gauge(sb, "slurm_bf_active", "Whether a backfill cycle is running now (never while a scrape is answered)", 0);
	prom_gauge(sb, "slurm_bf_cycle_cnt", "Backfill cycles since the last sdiag reset", d.bf_cycles);
	prom_gauge(sb, "slurm_bf_cycle_last", "Last backfill cycle, microseconds", d.bf_last);
	prom_gauge(sb, "slurm_bf_cycle_max", "Longest backfill cycle, microseconds", d.bf_max);
	prom_gauge(sb, "slurm_bf_cycle_tot", "Sum of backfill cycles, microseconds", (double)st->bf_sum_us);
	prom_gauge(sb, "slurm_bf_mean_cycle", "Mean backfill cycle, microseconds", d.bf_mean);
	prom_gauge(sb, "slurm_bf_last_depth", "Jobs the last backfill cycle examined", d.bf_last_depth);
	prom_gauge(sb, "slurm_bf_last_depth_try", "Jobs the last backfill cycle tried to place", d.bf_last_depth_try);
	prom_gauge(sb, "slurm_bf_depth_tot", "Jobs examined by backfill cycles, summed", (double)st->bf_depth_sum);
	prom_gauge(sb, "slurm_bf_depth_try_tot", "Jobs backfill tried to place, summed", (double)st->bf_depth_try_sum);
	prom_gauge(sb, "slurm_bf_depth_mean", "Mean jobs examined per backfill cycle", d.bf_depth_mean);
	prom_gauge(sb, "slurm_bf_try_depth_mean", "Mean jobs tried per backfill cycle", d.bf_depth_try_mean);
	prom_gauge(sb, "slurm_bf_queue_len", "Pending jobs the last backfill cycle was given", d.bf_queue_len);
	prom_gauge(sb, "slurm_bf_queue_len_tot", "Pending jobs given to backfill cycles, summed", (double)st->bf_queue_sum);
	prom_gauge(sb, "slurm_bf_queue_len_mean", "Mean pending jobs per backfill cycle", d.bf_queue_mean);
	prom_gauge(sb, "slurm_bf_table_size", "Time slots of the last backfill plan", d.bf_table_size);
	prom_gauge(sb, "slurm_bf_table_size_tot", "Time slots of backfill plans, summed", (double)st->bf_table_sum);
	prom_gauge(sb, "slurm_bf_mean_table_sz", "Mean time slots per backfill plan", d.bf_table_mean);
	prom_gauge(sb, "slurm_bf_when_last_cycle", "When the last backfill cycle ran, Unix time (0: never)",
		   (double)d.bf_last_when);
	prom_gauge(sb, "slurm_backfilled_jobs", "Jobs started by backfill since the last sdiag reset", d.bf_backfilled);
	prom_gauge(sb, "slurm_last_backfilled_jobs", "Jobs started by backfill since the controller started",
		   d.bf_backfilled_total);
	prom_gauge(sb, "slurm_sdiag_jobs_submitted", "Jobs submitted since the last sdiag reset", d.jobs_submitted);
	prom_gauge(sb, "slurm_sdiag_jobs_started", "Jobs started since the last sdiag reset", d.jobs_started);
	prom_gauge(sb, "slurm_sdiag_jobs_completed", "Jobs completed since the last sdiag reset", d.jobs_completed);
	prom_gauge(sb, "slurm_sdiag_jobs_canceled", "Jobs cancelled since the last sdiag reset", d.jobs_canceled);
	prom_gauge(sb, "slurm_sdiag_jobs_failed", "Jobs failed since the last sdiag reset", d.jobs_failed);
	prom_gauge(sb, "slurm_sdiag_jobs_pending", "Jobs pending now", d.jobs_pending);
	prom_gauge(sb, "slurm_sdiag_jobs_running", "Jobs running now", d.jobs_running);
	prom_gauge(sb, "slurm_sdiag_latency", "Microseconds of 1000 gettimeofday() calls (sdiag)", d.gtod_latency);
	prom_gauge(sb, "slurm_server_thread_cnt", "Threads serving requests (one event loop)", d.server_threads);
	prom_gauge(sb, "slurm_sched_stats_timestamp", "When the counters were last reset, Unix time",
		   (double)d.req_time_start);

	/* RPCs, as sdiag lists them (the exporters' names). */
	prom_family(sb, "slurm_rpc_stats", "gauge", "Requests handled since the last sdiag reset, by message type");
	for (uint32_t i = 0; i < d.nrpc_types; i++)
		prom_sample(sb, "slurm_rpc_stats", d.rpc_types[i].count, "operation", d.rpc_types[i].name, NULL);
	prom_family(sb, "slurm_rpc_stats_total_time", "gauge", "Time handling requests, microseconds, by message type");
	for (uint32_t i = 0; i < d.nrpc_types; i++)
		prom_sample(sb, "slurm_rpc_stats_total_time", (double)d.rpc_types[i].time_us, "operation",
			    d.rpc_types[i].name, NULL);
	prom_family(sb, "slurm_rpc_stats_avg_time", "gauge", "Mean time handling a request, microseconds, by message type");
	for (uint32_t i = 0; i < d.nrpc_types; i++)
		prom_sample(sb, "slurm_rpc_stats_avg_time", d.rpc_types[i].count ?
			    (double)(d.rpc_types[i].time_us / d.rpc_types[i].count) : 0, "operation",
			    d.rpc_types[i].name, NULL);
	char **un = xcalloc(d.nrpc_users + 1, sizeof(char *));
	for (uint32_t i = 0; i < d.nrpc_users; i++)
		un[i] = names_user(d.rpc_users[i].id);
	prom_family(sb, "slurm_user_rpc_stats", "gauge", "Requests handled since the last sdiag reset, by user");
	for (uint32_t i = 0; i < d.nrpc_users; i++)
		prom_sample(sb, "slurm_user_rpc_stats", d.rpc_users[i].count, "user", un[i], NULL);
	prom_family(sb, "slurm_user_rpc_stats_total_time", "gauge", "Time handling requests, microseconds, by user");
	for (uint32_t i = 0; i < d.nrpc_users; i++)
		prom_sample(sb, "slurm_user_rpc_stats_total_time", (double)d.rpc_users[i].time_us, "user", un[i], NULL);
	prom_family(sb, "slurm_user_rpc_stats_avg_time", "gauge", "Mean time handling a request, microseconds, by user");
	for (uint32_t i = 0; i < d.nrpc_users; i++)
		prom_sample(sb, "slurm_user_rpc_stats_avg_time", d.rpc_users[i].count ?
			    (double)(d.rpc_users[i].time_us / d.rpc_users[i].count) : 0, "user", un[i], NULL);
	for (uint32_t i = 0; i < d.nrpc_users; i++)
		free(un[i]);
	free(un);
	proto_free(MSG_STATS, &d);

	/* Ours: histograms in seconds and the controller's own health. */
	const ctld_mstats_t *m = &cd->mstats;
	prom_family(sb, "sluice_sched_cycle_seconds", "histogram",
		    "Scheduling passes (kind=main: every pass, as sdiag counts main cycles; kind=backfill: "
		    "the passes that ran a backfill cycle)");
	prom_hist_write(sb, "sluice_sched_cycle_seconds", &m->sched_cycle, "kind", "main", NULL);
	prom_hist_write(sb, "sluice_sched_cycle_seconds", &m->bf_cycle, "kind", "backfill", NULL);
	prom_family(sb, "sluice_state_commit_seconds", "histogram",
		    "State database commits (one per loop turn that changed state), including fsync");
	prom_hist_write(sb, "sluice_state_commit_seconds", &m->commit, NULL);
	prom_gauge(sb, "sluice_state_commit_last_seconds", "The last state commit", m->commit_last_us / 1e6);
	prom_gauge(sb, "sluice_state_commit_max_seconds", "The longest state commit since start", m->commit_max_us / 1e6);
	prom_family(sb, "sluice_state_commit_failures_total", "counter", "State commits that failed (disk full, I/O error)");
	prom_sample_u(sb, "sluice_state_commit_failures_total", m->commit_failures, NULL);
	prom_gauge(sb, "sluice_state_store_failing", "1 while the state database cannot be written", cd->store_failing != 0);
	prom_family(sb, "sluice_loop_turn_seconds", "histogram",
		    "Busy time of each controller loop turn (handling events, scheduling, committing)");
	prom_hist_write(sb, "sluice_loop_turn_seconds", &m->turn, NULL);
	prom_gauge(sb, "sluice_loop_turn_max_seconds", "The longest loop turn since start", m->turn_max_us / 1e6);
	prom_gauge(sb, "sluice_connections", "Open connections of the controller (commands, node daemons)",
		   (double)net_conn_count());
	prom_gauge(sb, "sluice_start_time_seconds", "When the controller started, Unix time", (double)cd->boot_time);
	if (m->http) {
		const http_stats_t *h = http_get_stats(m->http);
		prom_family(sb, "sluice_metrics_scrapes_total", "counter", "Requests answered on the metrics port");
		prom_sample_u(sb, "sluice_metrics_scrapes_total", h->requests, NULL);
		prom_family(sb, "sluice_metrics_refused_total", "counter", "Requests refused on the metrics port, by reason");
		prom_sample_u(sb, "sluice_metrics_refused_total", h->refused_addr, "reason", "address", NULL);
		prom_sample_u(sb, "sluice_metrics_refused_total", h->refused_token, "reason", "token", NULL);
		prom_sample_u(sb, "sluice_metrics_refused_total", h->refused_method, "reason", "method", NULL);
		prom_sample_u(sb, "sluice_metrics_refused_total", h->timed_out, "reason", "timeout", NULL);
		prom_gauge(sb, "sluice_metrics_connections", "Open connections on the metrics port", h->conns);
		prom_gauge(sb, "sluice_metrics_last_scrape_seconds", "Time to render the previous /metrics answer",
			   m->scrape_last_us / 1e6);
		prom_gauge(sb, "sluice_metrics_last_scrape_bytes", "Size of the previous /metrics answer",
			   (double)m->scrape_last_bytes);
	}
}

/* ---- rendering and serving ---- */

void ctld_metrics_render(ctld_t *cd, const char *what, strbuf_t *sb)
{
	int all = !what || !*what;
	int jobs = all || !strcmp(what, "jobs"), nodes = all || !strcmp(what, "nodes");
	int parts = all || !strcmp(what, "partitions"), sched = all || !strcmp(what, "scheduler");
	int ua = all || !strcmp(what, "jobs-users-accts");
	scrape_t s = { .cd = cd, .sb = sb };
	if (jobs || parts || ua)
		jobs_collect(&s);
	if (jobs) {
		jobs_write(&s);
		job_nccl_metrics(cd, sb);
	}
	if (nodes || parts)
		nodes_write(&s);   /* the per-partition node families come with it */
	if (parts)
		partitions_jobs_write(&s);
	if (ua) {
		ua_write(&s, &s.users, "user", "username", s.user_name);
		ua_write(&s, &s.accts, "account", "account", NULL);
	}
	if (sched)
		scheduler_write(&s);
	for (size_t i = 0; i < s.nowned; i++)
		free(s.owned[i]);
	free(s.owned);
	free(s.user_name);
	agg_free(&s.users);
	agg_free(&s.accts);
	free(s.parts);
}

/* Ready: state recovered (always, once serving) and the nodes known: at
 * least one has registered since start, or there are none configured. */
static int ready(const ctld_t *cd, const char **why)
{
	if (!cd->nnodes)
		return 1;
	for (uint32_t i = 0; i < cd->nnodes; i++)
		if (cd->nodes[i].conn)
			return 1;
	*why = "no node daemon has registered yet";
	return 0;
}

static void handle(void *arg, const char *path, http_reply_t *r)
{
	ctld_t *cd = arg;
	const char *why = NULL;
	if (!strcmp(path, "/metrics") || !strncmp(path, "/metrics/", 9)) {
		const char *what = path[8] ? path + 9 : NULL;
		static const char *const known[] = { "jobs", "nodes", "partitions", "scheduler",
			"jobs-users-accts" };
		int ok = !what;
		for (size_t i = 0; !ok && i < ARRAY_SIZE(known); i++)
			ok = !strcmp(what, known[i]);
		if (!ok) {
			r->status = 404;
			strbuf_addstr(&r->body, "404 not found: /metrics, /metrics/jobs, /metrics/nodes, "
				      "/metrics/partitions, /metrics/scheduler, /metrics/jobs-users-accts\n");
			return;
		}
		uint64_t t0 = ctld_stats_us();
		ctld_metrics_render(cd, what, &r->body);
		r->content_type = PROM_CONTENT_TYPE;
		if (!what) {
			cd->mstats.scrape_last_us = (uint32_t)(ctld_stats_us() - t0);
			cd->mstats.scrape_last_bytes = r->body.len;
		}
	} else if (!strcmp(path, "/livez")) {
		strbuf_addstr(&r->body, "ok\n");
	} else if (!strcmp(path, "/readyz")) {
		if (ready(cd, &why)) {
			strbuf_addstr(&r->body, "ok\n");
		} else {
			r->status = 503;
			strbuf_addf(&r->body, "not ready: %s\n", why);
		}
	} else if (!strcmp(path, "/healthz")) {
		if (cd->store_failing) {
			char *msg = store_error_msg(cd);
			r->status = 503;
			strbuf_addf(&r->body, "unhealthy: %s\n", msg);
			free(msg);
		} else if (!ready(cd, &why)) {
			r->status = 503;
			strbuf_addf(&r->body, "unhealthy: %s\n", why);
		} else {
			strbuf_addstr(&r->body, "ok\n");
		}
	} else if (!strcmp(path, "/")) {
		strbuf_addstr(&r->body, "sluice ctld: /metrics /metrics/jobs /metrics/nodes /metrics/partitions "
			      "/metrics/scheduler /metrics/jobs-users-accts /livez /readyz /healthz\n");
	} else {
		r->status = 404;
		strbuf_addstr(&r->body, "404 not found\n");
	}
}

int ctld_metrics_start(ctld_t *cd, char **err)
{
	const conf_t *conf = cd->conf;
	const char *type = conf_get(conf, "MetricsType");
	if (!type || !strcasecmp(type, "metrics/none"))
		return 0;
	if (strcasecmp(type, "metrics/openmetrics")) {
		*err = xasprintf("MetricsType=%s is not supported (metrics/openmetrics or metrics/none)", type);
		return -1;
	}
	const char *port = conf_get(conf, "MetricsPort");
	if (!port) {
		*err = xstrdup("MetricsType=metrics/openmetrics needs MetricsPort (the HTTP port of /metrics)");
		return -1;
	}
	unsigned long pn = strtoul(port, NULL, 10);
	if (pn > 65535) {
		*err = xasprintf("MetricsPort=%s is not a port number", port);
		return -1;
	}
	http_opts_t o = {
		.name = "metrics port",
		.addr = conf_get(conf, "MetricsAddress"),
		.port = (uint16_t)pn,
		.token_file = conf_get(conf, "MetricsTokenFile"),
		.allow = conf_get(conf, "MetricsAllowFrom"),
	};
	cd->mstats.http = http_start(cd->loop, &o, handle, cd, err);
	if (!cd->mstats.http)
		return -1;
	info("metrics on http://%s:%u/metrics%s%s", o.addr && *o.addr ? o.addr : "*",
	     (unsigned)http_port(cd->mstats.http), o.token_file ? " (bearer token)" : "",
	     o.allow ? " (allow-list)" : "");
	return 0;
}
