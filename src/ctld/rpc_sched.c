/*
 * rpc_sched.c: the controller's scheduling diagnostics: the counters sdiag
 * shows (kept here, bumped by one-line calls from rpc.c's dispatch, the
 * scheduling pass in sched_glue.c and job_end in jobs.c) and the handlers
 * of MSG_STATS_REQ (sdiag) and MSG_PRIO_INFO_REQ (sprio).
 *
 * RPCs are counted under Slurm's message names and numbers
 * (REQUEST_SUBMIT_BATCH_JOB (4003), ...), as sdiag prints them, so scripts
 * that parse sdiag keep working; the few Sluice messages without a Slurm
 * counterpart get names of their own ("SLUICE_NODE_HEARTBEAT") and numbers
 * from 9000 up. Times are wall-clock microseconds of the handler (the
 * reply is only queued then: the commit and the write come after, as in
 * Slurm where the write is also outside the measured section).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "ctld/ctld.h"

#include "errors.h"
#include "log.h"
#include "states.h"
#include "xalloc.h"

uint64_t ctld_stats_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void ctld_stats_init(ctld_t *cd)
{
	ctld_stats_t *st = &cd->stats;
	st->since = ctld_now();
	/* sdiag's "Latency for 1000 calls to gettimeofday()". */
	struct timeval tv;
	uint64_t t0 = ctld_stats_us();
	for (int i = 0; i < 1000; i++)
		gettimeofday(&tv, NULL);
	st->gtod_latency_us = (uint32_t)(ctld_stats_us() - t0);
}

/* ---- RPC kinds ---- */

typedef struct rpc_kind {
	uint32_t id;
	const char *name;
} rpc_kind_t;

/* Slurm's number and name for a request (slurm_protocol_defs.h). */
static rpc_kind_t rpc_kind(enum msg_type type, const void *msg)
{
	switch (type) {
	case MSG_PING: return (rpc_kind_t){ 1008, "REQUEST_PING" };
	case MSG_SUBMIT:
		if (msg && (((const job_desc_t *)msg)->flags & JOB_F_INTERACTIVE))
			return (rpc_kind_t){ 4001, "REQUEST_RESOURCE_ALLOCATION" };
		return (rpc_kind_t){ 4003, "REQUEST_SUBMIT_BATCH_JOB" };
	case MSG_JOB_INFO_REQ:
		if (msg && ((const msg_info_req_t *)msg)->job_id)
			return (rpc_kind_t){ 2021, "REQUEST_JOB_INFO_SINGLE" };
		return (rpc_kind_t){ 2003, "REQUEST_JOB_INFO" };
	case MSG_NODE_INFO_REQ:
		if (msg && ((const msg_info_req_t *)msg)->name)
			return (rpc_kind_t){ 2040, "REQUEST_NODE_INFO_SINGLE" };
		return (rpc_kind_t){ 2007, "REQUEST_NODE_INFO" };
	case MSG_PART_INFO_REQ: return (rpc_kind_t){ 2009, "REQUEST_PARTITION_INFO" };
	case MSG_CONFIG_REQ: return (rpc_kind_t){ 2001, "REQUEST_BUILD_INFO" };
	case MSG_CANCEL: return (rpc_kind_t){ 5032, "REQUEST_KILL_JOB" };
	case MSG_UPDATE_NODE: return (rpc_kind_t){ 3002, "REQUEST_UPDATE_NODE" };
	case MSG_UPDATE_PART: return (rpc_kind_t){ 3005, "REQUEST_UPDATE_PARTITION" };
	case MSG_UPDATE_JOB: return (rpc_kind_t){ 3001, "REQUEST_UPDATE_JOB" };
	case MSG_JOB_WAIT: return (rpc_kind_t){ 4014, "REQUEST_JOB_ALLOCATION_INFO" };
	case MSG_STEP_CREATE: return (rpc_kind_t){ 5001, "REQUEST_JOB_STEP_CREATE" };
	case MSG_JOB_COMPLETE:
		if (msg && ((const msg_job_complete_t *)msg)->launch_seq == 0)
			return (rpc_kind_t){ 5017, "REQUEST_COMPLETE_JOB_ALLOCATION" };
		return (rpc_kind_t){ 5018, "REQUEST_COMPLETE_BATCH_SCRIPT" };
	case MSG_NODE_REGISTER: return (rpc_kind_t){ 1002, "MESSAGE_NODE_REGISTRATION_STATUS" };
	case MSG_NODE_HEARTBEAT: return (rpc_kind_t){ 9000 + MSG_NODE_HEARTBEAT, "SLUICE_NODE_HEARTBEAT" };
	case MSG_RECONFIGURE: return (rpc_kind_t){ 1003, "REQUEST_RECONFIGURE" };
	case MSG_SHUTDOWN: return (rpc_kind_t){ 1005, "REQUEST_SHUTDOWN" };
	case MSG_SET_DEBUG: return (rpc_kind_t){ 1010, "REQUEST_SET_DEBUG_LEVEL" };
	case MSG_PRIO_INFO_REQ: return (rpc_kind_t){ 2026, "REQUEST_PRIORITY_FACTORS" };
	case MSG_STATS_REQ: return (rpc_kind_t){ 2035, "REQUEST_STATS_INFO" };
	case MSG_STEP_INFO_REQ: return (rpc_kind_t){ 5005, "REQUEST_JOB_STEP_INFO" };
	case MSG_RESV_INFO_REQ: return (rpc_kind_t){ 2024, "REQUEST_RESERVATION_INFO" };
	case MSG_RESV_UPDATE: {
		uint32_t o = msg ? ((const msg_resv_update_t *)msg)->op : RESV_OP_UPDATE;
		if (o == RESV_OP_CREATE)
			return (rpc_kind_t){ 3006, "REQUEST_CREATE_RESERVATION" };
		if (o == RESV_OP_DELETE)
			return (rpc_kind_t){ 3008, "REQUEST_DELETE_RESERVATION" };
		return (rpc_kind_t){ 3009, "REQUEST_UPDATE_RESERVATION" };
	}
	default: return (rpc_kind_t){ 9000 + (uint32_t)type, NULL };
	}
}

static void stat_add(ctld_rpc_stat_t **v, size_t *n, size_t *alloc, uint32_t id, uint64_t us)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].id == id) {
			(*v)[i].count++;
			(*v)[i].time_us += us;
			return;
		}
	*v = xgrow(*v, sizeof(**v), *n + 1, alloc);
	(*v)[(*n)++] = (ctld_rpc_stat_t){ id, 1, us };
}

ctld_rpc_mark_t ctld_stats_begin(enum msg_type type, const void *msg)
{
	return (ctld_rpc_mark_t){ rpc_kind(type, msg).id, ctld_stats_us() };
}

void ctld_stats_rpc(ctld_t *cd, const ctld_rpc_mark_t *mark, uint32_t uid)
{
	ctld_stats_t *st = &cd->stats;
	uint64_t us = ctld_stats_us() - mark->t0;
	/* The kind's number is what sdiag groups by; the name is looked up
	 * again when reporting. */
	stat_add(&st->rpc_types, &st->nrpc_types, &st->arpc_types, mark->kind, us);
	stat_add(&st->rpc_users, &st->nrpc_users, &st->arpc_users, uid, us);
}

/* Name of a kind number (the reverse of rpc_kind). */
static char *rpc_kind_name(uint32_t id)
{
	static const enum msg_type probe[] = { MSG_PING, MSG_PART_INFO_REQ, MSG_CONFIG_REQ,
		MSG_CANCEL, MSG_UPDATE_NODE, MSG_UPDATE_PART, MSG_UPDATE_JOB, MSG_JOB_WAIT,
		MSG_STEP_CREATE, MSG_NODE_REGISTER, MSG_NODE_HEARTBEAT, MSG_RECONFIGURE,
		MSG_SHUTDOWN, MSG_PRIO_INFO_REQ, MSG_STATS_REQ, MSG_SET_DEBUG, MSG_STEP_INFO_REQ,
		MSG_RESV_INFO_REQ, MSG_RESV_UPDATE };
	static const rpc_kind_t extra[] = {
		{ 4001, "REQUEST_RESOURCE_ALLOCATION" }, { 4003, "REQUEST_SUBMIT_BATCH_JOB" },
		{ 2021, "REQUEST_JOB_INFO_SINGLE" }, { 2003, "REQUEST_JOB_INFO" },
		{ 2040, "REQUEST_NODE_INFO_SINGLE" }, { 2007, "REQUEST_NODE_INFO" },
		{ 5017, "REQUEST_COMPLETE_JOB_ALLOCATION" }, { 5018, "REQUEST_COMPLETE_BATCH_SCRIPT" },
		{ 3006, "REQUEST_CREATE_RESERVATION" }, { 3008, "REQUEST_DELETE_RESERVATION" },
	};
	for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
		rpc_kind_t k = rpc_kind(probe[i], NULL);
		if (k.id == id)
			return xstrdup(k.name);
	}
	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		if (extra[i].id == id)
			return xstrdup(extra[i].name);
	if (id >= 9000 && id < 9000 + MSG_TYPE_END) {
		const char *pn = proto_name((enum msg_type)(id - 9000));
		if (pn && !strncmp(pn, "MSG_", 4))
			return xasprintf("SLUICE_%s", pn + 4);
	}
	return xasprintf("%u", id);
}

/* ---- scheduling passes and job counts ---- */

void ctld_stats_pass(ctld_t *cd, uint64_t t0)
{
	ctld_stats_t *st = &cd->stats;
	const sched_pass_stats_t *p = &cd->sched.last;
	uint32_t us = (uint32_t)(ctld_stats_us() - t0);
	st->sched_cycles++;
	st->sched_last_us = us;
	if (us > st->sched_max_us)
		st->sched_max_us = us;
	st->sched_sum_us += us;
	st->sched_depth_sum += p->main_depth;
	st->sched_last_queue = p->queue_len;
	st->jobs_started += p->main_started + p->bf_started;
	ctld_metrics_cycle(cd, us, 0);
	if (!p->bf_ran)
		return;
	ctld_metrics_cycle(cd, us, 1);
	/* The core runs backfill inside the same pass and has no clock, so
	 * the backfill cycle's time is the whole pass it ran in. */
	st->bf_cycles++;
	st->bf_last_when = ctld_now();
	st->bf_last_us = us;
	if (us > st->bf_max_us)
		st->bf_max_us = us;
	st->bf_sum_us += us;
	st->bf_last_depth = p->bf_depth;
	st->bf_last_depth_try = p->bf_depth_try;
	st->bf_depth_sum += p->bf_depth;
	st->bf_depth_try_sum += p->bf_depth_try;
	st->bf_last_queue = p->queue_len;
	st->bf_queue_sum += p->queue_len;
	st->bf_last_table = p->bf_table_size;
	st->bf_table_sum += p->bf_table_size;
	st->bf_backfilled += p->bf_started;
	st->bf_backfilled_total += p->bf_started;
}

void ctld_stats_job_end(ctld_t *cd, uint32_t state)
{
	ctld_metrics_job_end(cd, state);
	/* As Slurm 22.05 counts them: "completed" is a job whose script
	 * ended by itself, whatever its exit code (Slurm counts the accepted
	 * completion report); "failed" is one the nodes failed to run. */
	switch (state & JOB_STATE_BASE) {
	case JOB_COMPLETE: case JOB_FAILED: cd->stats.jobs_completed++; break;
	case JOB_CANCELLED: cd->stats.jobs_canceled++; break;
	case JOB_NODE_FAIL: case JOB_BOOT_FAIL:
		cd->stats.jobs_failed++;
		break;
	default: break;
	}
}

static void stats_reset(ctld_t *cd)
{
	ctld_stats_t *st = &cd->stats;
	ctld_stats_t keep = *st;
	free(st->rpc_types);
	free(st->rpc_users);
	memset(st, 0, sizeof(*st));
	st->since = ctld_now();
	st->gtod_latency_us = keep.gtod_latency_us;
	st->bf_backfilled_total = keep.bf_backfilled_total;   /* "since last slurm start" */
}

static int cmp_rpc_stat(const void *a, const void *b)
{
	const rpc_stat_t *x = a, *y = b;
	return x->count < y->count ? 1 : x->count > y->count ? -1 :
	       x->id < y->id ? -1 : x->id > y->id;
}

void rpc_stats_info(ctld_t *cd, conn_t *c, const void *req, uint32_t uid)
{
	const msg_stats_req_t *r = req;
	if (r->flags & STATS_F_RESET) {
		if (!is_admin(cd, uid)) {
			conn_send_rc(c, ESLURM_ACCESS_DENIED, slurm_strerror(ESLURM_ACCESS_DENIED));
			return;
		}
		stats_reset(cd);
		info("sdiag counters reset by uid %u", uid);
		conn_send_rc(c, 0, NULL);
		return;
	}
	msg_stats_t m;
	ctld_stats_fill(cd, &m);
	conn_send(c, MSG_STATS, &m);
	proto_free(MSG_STATS, &m);
}

void ctld_stats_fill(ctld_t *cd, msg_stats_t *out)
{
	const ctld_stats_t *st = &cd->stats;
	int64_t now = ctld_now();
	msg_stats_t m = {
		.req_time = now,
		.req_time_start = st->since,
		.server_threads = 1,      /* one event loop serves every request */
		.jobs_submitted = st->jobs_submitted,
		.jobs_started = st->jobs_started,
		.jobs_completed = st->jobs_completed,
		.jobs_canceled = st->jobs_canceled,
		.jobs_failed = st->jobs_failed,
		.job_states_ts = now,
		.sched_last = st->sched_last_us,
		.sched_max = st->sched_max_us,
		.sched_cycles = st->sched_cycles,
		.sched_mean = st->sched_cycles ? (uint32_t)(st->sched_sum_us / st->sched_cycles) : 0,
		.sched_mean_depth = st->sched_cycles ? (uint32_t)(st->sched_depth_sum / st->sched_cycles) : 0,
		.sched_queue_len = st->sched_last_queue,
		.bf_backfilled_total = st->bf_backfilled_total,
		.bf_backfilled = st->bf_backfilled,
		.bf_cycles = st->bf_cycles,
		.bf_last_when = st->bf_last_when,
		.bf_last = st->bf_last_us,
		.bf_max = st->bf_max_us,
		.bf_mean = st->bf_cycles ? (uint32_t)(st->bf_sum_us / st->bf_cycles) : 0,
		.bf_last_depth = st->bf_last_depth,
		.bf_last_depth_try = st->bf_last_depth_try,
		.bf_depth_mean = st->bf_cycles ? (uint32_t)(st->bf_depth_sum / st->bf_cycles) : 0,
		.bf_depth_try_mean = st->bf_cycles ? (uint32_t)(st->bf_depth_try_sum / st->bf_cycles) : 0,
		.bf_queue_len = st->bf_last_queue,
		.bf_queue_mean = st->bf_cycles ? (uint32_t)(st->bf_queue_sum / st->bf_cycles) : 0,
		.bf_table_size = st->bf_last_table,
		.bf_table_mean = st->bf_cycles ? (uint32_t)(st->bf_table_sum / st->bf_cycles) : 0,
		.gtod_latency = st->gtod_latency_us,
	};
	for (size_t i = 0; i < cd->njobs; i++) {
		uint32_t b = cd->jobs[i]->state & JOB_STATE_BASE;
		m.jobs_pending += b == JOB_PENDING;
		m.jobs_running += b == JOB_RUNNING;
	}
	m.nrpc_types = (uint32_t)st->nrpc_types;
	m.rpc_types = xcalloc(st->nrpc_types + 1, sizeof(rpc_stat_t));
	for (size_t i = 0; i < st->nrpc_types; i++)
		m.rpc_types[i] = (rpc_stat_t){ st->rpc_types[i].id, rpc_kind_name(st->rpc_types[i].id),
					       st->rpc_types[i].count, st->rpc_types[i].time_us };
	m.nrpc_users = (uint32_t)st->nrpc_users;
	m.rpc_users = xcalloc(st->nrpc_users + 1, sizeof(rpc_stat_t));
	for (size_t i = 0; i < st->nrpc_users; i++)
		m.rpc_users[i] = (rpc_stat_t){ st->rpc_users[i].id, NULL, st->rpc_users[i].count,
					       st->rpc_users[i].time_us };
	qsort(m.rpc_types, m.nrpc_types, sizeof(rpc_stat_t), cmp_rpc_stat);
	qsort(m.rpc_users, m.nrpc_users, sizeof(rpc_stat_t), cmp_rpc_stat);
	*out = m;
}

/* ---- sprio ---- */

static int u32_in(const uint32_t *v, uint32_t n, uint32_t x)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static int name_in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == len && !strncmp(p, name, len))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

void rpc_prio_info(ctld_t *cd, conn_t *c, const void *req, uint32_t uid)
{
	static const char *tres_names[SCHED_PRIO_MAX_TRES] = {
		[SCHED_TRES_CPU] = "cpu", [SCHED_TRES_MEM] = "mem",
		[SCHED_TRES_NODE] = "node", [SCHED_TRES_GPU] = "gres/gpu",
	};
	const msg_prio_req_t *r = req;
	const sched_prio_conf_t *pc = &cd->sched.prio;
	msg_prio_info_t m = {
		.multifactor = pc->multifactor != 0,
		.priority_type = cd->conf->priority_type ? cd->conf->priority_type : (char *)"priority/basic",
		.w_age = pc->w_age, .w_assoc = pc->w_assoc, .w_fairshare = pc->w_fairshare,
		.w_jobsize = pc->w_jobsize, .w_part = pc->w_partition, .w_qos = pc->w_qos,
		.w_tres = (char *)conf_get(cd->conf, "PriorityWeightTRES"),
	};
	int64_t now = ctld_now();
	size_t alloc = 0;
	for (size_t i = 0; m.multifactor && i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		/* As Slurm: pending, not held, not waiting on a dependency,
		 * eligible now. */
		if ((j->state & JOB_STATE_BASE) != JOB_PENDING || j->hold || j->dep_state ||
		    (j->desc->begin_time && j->desc->begin_time > now))
			continue;
		if (r->njob_ids && !u32_in(r->job_ids, r->njob_ids, j->job_id))
			continue;
		if (r->nuser_ids && !u32_in(r->user_ids, r->nuser_ids, j->user_id))
			continue;
		const char *pname = cd->parts[j->part].cf->name;
		if (r->partitions && *r->partitions && !name_in_list(r->partitions, pname))
			continue;
		sched_prio_factors_t f;
		uint32_t prio = sched_glue_priority(cd, j, now, &f);
		m.jobs = xgrow(m.jobs, sizeof(prio_job_t), m.njobs + 1, &alloc);
		prio_job_t *pj = &m.jobs[m.njobs++];
		memset(pj, 0, sizeof(*pj));
		pj->job_id = j->job_id;
		pj->user_id = j->user_id;
		pj->partition = (char *)pname;
		pj->priority = prio;
		pj->site = f.site;
		pj->nice = f.nice;
		pj->age = proto_dbl_bits(f.age);
		pj->assoc = proto_dbl_bits(f.assoc);
		pj->fairshare = proto_dbl_bits(f.fairshare);
		pj->jobsize = proto_dbl_bits(f.jobsize);
		pj->part = proto_dbl_bits(f.partition);
		pj->qos = proto_dbl_bits(f.qos);
		for (int t = 0; t < SCHED_PRIO_MAX_TRES; t++) {
			if (!pc->w_tres[t] || !tres_names[t])
				continue;
			pj->tres = xrealloc(pj->tres, (pj->ntres + 1) * sizeof(prio_tres_t));
			pj->tres[pj->ntres++] = (prio_tres_t){ (char *)tres_names[t],
				proto_dbl_bits(f.tres[t]), proto_dbl_bits(pc->w_tres[t]) };
		}
	}
	conn_send(c, MSG_PRIO_INFO, &m);
	/* Strings were borrowed: free only the arrays. */
	for (uint32_t i = 0; i < m.njobs; i++)
		free(m.jobs[i].tres);
	free(m.jobs);
	(void)uid;
}
