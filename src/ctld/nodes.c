/*
 * nodes.c: node and partition records of the controller.
 *
 * A node's stored base state is UNKNOWN (never registered), DOWN, FUTURE
 * or IDLE meaning "up"; an up node is shown IDLE, MIXED or ALLOCATED from
 * what the scheduler has allocated on it. Flags DRAIN and FAIL are set by
 * admins; NOT_RESPONDING while its noded is not connected. Registration,
 * heartbeats, connection loss, SlurmdTimeout, `scontrol update node` and
 * `scontrol update partition` all live here, as do the node_info_t and
 * part_info_t views.
 *
 * Transitions follow slurmctld's update_node(): DRAIN/FAIL set a flag and
 * need a reason; RESUME (or IDLE) clears DRAIN/FAIL and the reason and
 * brings a DOWN node back (not responding until its noded checks in);
 * UNDRAIN clears DRAIN only; DOWN ends or requeues the node's jobs; a
 * registration with fewer resources than configured drains the node with
 * slurmctld's reason and the INVALID_REG flag ("inval").
 *
 * Liveness (SlurmdTimeout): a node quiet for half of SlurmdTimeout is
 * pinged on its connection (MSG_NODE_PING; noded answers with a
 * heartbeat); it is declared DOWN ("Not responding") only when it has
 * been quiet for SlurmdTimeout and has not answered a ping sent at least
 * a ping wait earlier. Time the controller itself did not run (SIGSTOP, a
 * stalled loop: a gap between two nodes_periodic ticks much longer than
 * their period) does not count against nodes: their timers are shifted
 * by it and outstanding pings forgotten, so a node is judged only on a
 * ping sent after the controller resumed. A node heard from again on its
 * connection (heartbeat or ping answer) returns to service as a
 * registration does (ReturnToService). Every heartbeat is answered with
 * MSG_NODE_ACK, from which the node renews its lease (fencing, jobs.c).
 */
#include <inttypes.h>
#include <pwd.h>
#include <signal.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/ctld.h"
#include "ctld/resv.h"
#include "ctld/names.h"

#include "errors.h"
#include "hostlist.h"
#include "log.h"
#include "states.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

long part_find(const ctld_t *cd, const char *name)
{
	if (!name)
		return -1;
	for (uint32_t i = 0; i < cd->nparts; i++)
		if (!strcmp(cd->parts[i].cf->name, name))
			return i;
	return -1;
}

void node_dirty(ctld_t *cd, node_t *n)
{
	n->dirty = 1;
	cd->last_node_update = ctld_now();
	turn_node_changed(cd, n);
}

void part_dirty(ctld_t *cd, part_t *p)
{
	p->dirty = 1;
	cd->last_part_update = ctld_now();
	turn_part_changed(cd, p);
}

uint32_t node_conf_base(const conf_node_t *cf, uint32_t *flags)
{
	uint32_t base = NODE_UNKNOWN;
	*flags = 0;
	if (cf->state) {
		if (!strcasecmp(cf->state, "FUTURE"))
			base = NODE_FUTURE;
		else if (!strcasecmp(cf->state, "DOWN"))
			base = NODE_DOWN;
		else if (!strcasecmp(cf->state, "DRAIN"))
			*flags |= NODE_FLAG_DRAIN;
	}
	return base;
}

/* Usable for new work? Mirrors into the scheduler's node. */
void node_sync_sched(ctld_t *cd, node_t *n)
{
	sched_node_t *sn = &cd->sched.nodes[n->idx];
	int was = sn->usable;
	sn->usable = n->base == NODE_IDLE &&
		     !(n->flags & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL | NODE_FLAG_NO_RESPOND |
				   NODE_FLAG_POWERED_DOWN | NODE_FLAG_POWER_DOWN |
				   NODE_FLAG_POWERING_UP | NODE_FLAG_INVALID_REG));
	if (sn->usable && !was)
		ctld_sched_request(cd);
}

/* Jobs that ended (cancelled, node failure, ...) but still hold their
 * resources until the supervisor reports: their nodes are COMPLETING.
 * Counted per node in one pass over the jobs; the count is rebuilt once per
 * node listing (rpc.c fills nodes 0..N-1 in one go) and for any call out of
 * that sequence, so a single-node query is always current. */
static uint32_t *comp_cnt, comp_n, comp_last_idx = UINT32_MAX;
static uint64_t comp_built_ms = UINT64_MAX;

static void completing_rebuild(const ctld_t *cd)
{
	if (comp_n != cd->nnodes) {
		free(comp_cnt);
		comp_n = cd->nnodes;
		comp_cnt = xcalloc(comp_n ? comp_n : 1, sizeof(*comp_cnt));
	} else {
		memset(comp_cnt, 0, comp_n * sizeof(*comp_cnt));
	}
	for (size_t i = 0; i < cd->njobs; i++) {
		const job_t *j = cd->jobs[i];
		if (!j->alloc_held || !JOB_IS_FINISHED(j->state))
			continue;
		for (uint32_t k = 0; k < j->alloc.nnodes; k++)
			if (j->alloc.nodes[k] < comp_n)
				comp_cnt[j->alloc.nodes[k]]++;
	}
}

static uint32_t node_completing(const ctld_t *cd, const node_t *n)
{
	uint64_t now = cd->loop ? loop_now_ms(cd->loop) : 0;
	if (n->idx == 0 || n->idx != comp_last_idx + 1 || now != comp_built_ms ||
	    comp_n != cd->nnodes) {
		completing_rebuild(cd);
		comp_built_ms = now;
	}
	comp_last_idx = n->idx;
	return n->idx < comp_n ? comp_cnt[n->idx] : 0;
}

uint32_t node_state(const ctld_t *cd, const node_t *n)
{
	const sched_node_t *sn = &cd->sched.nodes[n->idx];
	uint32_t base = n->base, flags = n->flags;
	uint32_t comp = sn->njobs ? node_completing(cd, n) : 0;
	uint32_t running = sn->njobs > comp ? sn->njobs - comp : 0;
	if (comp)
		flags |= NODE_FLAG_COMPLETING;
	if (base == NODE_IDLE || (base == NODE_UNKNOWN && sn->njobs)) {
		if (!running)
			base = NODE_IDLE;
		else if (sn->exclusive || sn->cpus_used >= sn->cpus)
			base = NODE_ALLOCATED;
		else
			base = NODE_MIXED;
	}
	return base | (flags & ~NODE_FLAG_HEALTH_DRAIN);
}

static char *topo_addr(const conf_t *conf, long node_idx)
{
	for (size_t s = 0; s < conf->nswitches; s++) {
		const conf_switch_t *sw = &conf->switches[s];
		if (sw->level != 0)
			continue;
		for (size_t k = 0; k < sw->nnodes; k++) {
			if ((long)sw->node_idx[k] != node_idx)
				continue;
			char *path = xstrdup(conf->nodes[node_idx].name);
			for (long x = (long)s; x >= 0; x = conf->switches[x].parent) {
				char *np = xasprintf("%s.%s", conf->switches[x].name, path);
				free(path);
				path = np;
				if (conf->switches[x].parent == x)
					break;
			}
			return path;
		}
	}
	return NULL;
}

int nodes_init(ctld_t *cd)
{
	conf_t *conf = cd->conf;
	cd->nnodes = (uint32_t)conf->nnodes;
	cd->nodes = xcalloc(cd->nnodes ? cd->nnodes : 1, sizeof(node_t));
	cd->nparts = (uint32_t)conf->nparts;
	cd->parts = xcalloc(cd->nparts ? cd->nparts : 1, sizeof(part_t));
	for (uint32_t i = 0; i < cd->nnodes; i++) {
		node_t *n = &cd->nodes[i];
		const conf_node_t *cf = &conf->nodes[i];
		n->idx = i;
		n->cf = cf;
		n->port = cf->port;
		n->base = node_conf_base(cf, &n->flags);
		/* Until its noded registers after (re)start. */
		if (n->base != NODE_FUTURE)
			n->flags |= NODE_FLAG_NO_RESPOND;
		n->last_heard = cd->boot_time;
		n->topo_addr = topo_addr(conf, i);
		uint32_t g = conf_node_gpus(cf);
		strbuf_t gt = STRBUF_INIT;
		for (size_t k = 0; k < cf->ngres; k++)
			if (!strcmp(cf->gres[k].name, "gpu") && cf->gres[k].type) {
				strbuf_addf(&gt, "%s", cf->gres[k].type);
				break;
			}
		n->cfg_tres = tres_string(cf->cpus, cf->real_memory, 0, 1, g, gt.buf, g);
		strbuf_release(&gt);
	}
	uint32_t max_pjf = 0, total = 0;
	for (uint32_t i = 0; i < cd->nnodes; i++)
		total += conf->nodes[i].cpus;
	for (uint32_t p = 0; p < cd->nparts; p++) {
		part_t *pt = &cd->parts[p];
		const conf_part_t *cf = &conf->parts[p];
		pt->cf = cf;
		pt->state = (uint32_t)cf->state;
		pt->max_time = cf->max_time;
		pt->default_time = cf->default_time;
		pt->max_nodes = cf->max_nodes;
		pt->min_nodes = cf->min_nodes;
		pt->priority_job_factor = cf->priority_job_factor;
		pt->priority_tier = cf->priority_tier;
		if (pt->priority_job_factor > max_pjf)
			max_pjf = pt->priority_job_factor;
		uint64_t cpus = 0, mem = 0, gpus = 0;
		const char *gtype = NULL;
		for (size_t k = 0; k < cf->nnodes; k++) {
			const conf_node_t *cn = &conf->nodes[cf->node_idx[k]];
			cpus += cn->cpus;
			mem += cn->real_memory;
			gpus += conf_node_gpus(cn);
			for (size_t g = 0; g < cn->ngres && !gtype; g++)
				if (!strcmp(cn->gres[g].name, "gpu") && cn->gres[g].type)
					gtype = cn->gres[g].type;
			node_t *n = &cd->nodes[cf->node_idx[k]];
			char *np = n->partitions ? xasprintf("%s,%s", n->partitions, cf->name)
						 : xstrdup(cf->name);
			free(n->partitions);
			n->partitions = np;
		}
		pt->total_cpus = (uint32_t)cpus;
		pt->tres = tres_string(cpus, mem, (uint32_t)cf->nnodes, 1, gpus, gtype, gpus);
	}
	cd->max_pjf = max_pjf;
	cd->total_cpus = total;
	return 0;
}

/* ---- jobs on a node ---- */

static int alloc_has(const sched_alloc_t *a, uint32_t x)
{
	for (uint32_t i = 0; i < a->nnodes; i++)
		if (a->nodes[i] == x)
			return 1;
	return 0;
}

/* The node died (DOWN, not responding, FUTURE): as slurmctld's
 * kill_running_job_by_node_name(), a batch job that may be requeued
 * (JobRequeue=1 is the default; --no-requeue refuses) goes back to
 * PENDING; any other running job ends NODE_FAIL. Resources are released. */
void node_fail_jobs(ctld_t *cd, node_t *n, int64_t now)
{
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		if (!j->alloc_held || !alloc_has(&j->alloc, n->idx))
			continue;
		if ((j->state & JOB_STATE_BASE) == JOB_RUNNING ||
		    (j->state & JOB_STATE_BASE) == JOB_SUSPENDED) {
			job_signal_nodes(cd, j, SIGKILL, SIGNAL_F_KILL_JOB, JOB_NODE_FAIL);
			if (!(j->desc->flags & (JOB_F_INTERACTIVE | JOB_F_NO_REQUEUE))) {
				info("job %u: requeued due to failure of node %s", j->job_id,
				     n->cf->name);
				j->launch_seq++;   /* the old supervisor's report is stale */
				job_requeue_restart(cd, j, now);
				continue;
			}
			info("job %u: node %s failed", j->job_id, n->cf->name);
			job_end(cd, j, JOB_NODE_FAIL, 0, now);
		}
		job_release(cd, j);
	}
}

/* ---- registration ---- */

static void set_str(char **dst, const char *src)
{
	if (!src)
		return;
	if (*dst && !strcmp(*dst, src))
		return;
	free(*dst);
	*dst = xstrdup(src);
}

/* Sum of the counts of one GRES name in a "gpu:h100:8,gpu:2" string. */
static uint64_t gres_count(const char *gres, const char *name)
{
	uint64_t total = 0;
	if (!gres)
		return 0;
	char *copy = xstrdup(gres), *save = NULL;
	size_t nl = strlen(name);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strncmp(t, name, nl) || (t[nl] != ':' && t[nl] != '\0'))
			continue;
		const char *last = strrchr(t, ':');
		char *end = NULL;
		unsigned long long x = last ? strtoull(last + 1, &end, 10) : 1;
		total += last && (end == last + 1 || *end) ? 1 : x;
	}
	free(copy);
	return total;
}

/* slurmctld's validate_node_specs(): NULL when the registration offers
 * at least the configured resources, else the reason the node is drained
 * for (the GRES check first, then CPUs, memory, disk, joined by ", "). */
static char *reg_check(const ctld_t *cd, const node_t *n, const msg_node_register_t *m)
{
	const conf_node_t *cf = n->cf;
	strbuf_t sb = STRBUF_INIT;
	uint64_t want = conf_node_gpus(cf), got = gres_count(m->gres, "gpu");
	if (want && got < want)
		strbuf_addf(&sb, "gres/gpu count reported lower than configured (%" PRIu64
			    " < %" PRIu64 ")", got, want);
	if (m->cpus && m->cpus < cf->cpus)
		strbuf_addf(&sb, "%sLow CPUs", sb.len ? ", " : "");
	if (m->real_memory < cf->real_memory)
		strbuf_addf(&sb, "%sLow RealMemory (reported:%" PRIu64 " < 100.00%% of configured:%"
			    PRIu64 ")", sb.len ? ", " : "", m->real_memory, (uint64_t)cf->real_memory);
	if (m->tmp_disk < cf->tmp_disk)
		strbuf_addf(&sb, "%sLow TmpDisk", sb.len ? ", " : "");
	(void)cd;
	return sb.len ? strbuf_detach(&sb) : (strbuf_release(&sb), NULL);
}

static void set_reason(ctld_t *cd, node_t *n, const char *reason, uint32_t uid, int64_t now)
{
	(void)cd;
	if (!reason || !*reason) {
		xfree(n->reason);
		n->reason_uid = 0;
		n->reason_time = 0;
		return;
	}
	if (!n->reason || strcmp(n->reason, reason)) {
		free(n->reason);
		n->reason = xstrdup(reason);
	}
	n->reason_uid = uid;
	n->reason_time = now;
}

void node_set_reason(ctld_t *cd, node_t *n, const char *reason, uint32_t uid, int64_t now)
{
	set_reason(cd, n, reason, uid, now);
}

/* Jobs n lists that it must not run (ended, requeued, moved): kill. */
static void node_kill_strays(ctld_t *cd, node_t *n, conn_t *c, const msg_node_register_t *m)
{
	for (uint32_t k = 0; k < m->njob_ids; k++) {
		job_t *j = job_find(cd, m->job_ids[k]);
		/* running, or stopped by scontrol suspend */
		int ok = j && ((j->state & JOB_STATE_BASE) == JOB_RUNNING ||
			       (j->state & JOB_STATE_BASE) == JOB_SUSPENDED) && j->alloc_held &&
			 alloc_has(&j->alloc, n->idx);
		/* A cancelled job still holding resources is being killed. */
		if (j && JOB_IS_FINISHED(j->state) && j->alloc_held)
			ok = 1;
		if (!ok) {
			msg_signal_job_t s = { .job_id = m->job_ids[k], .signal = SIGKILL,
					       .flags = SIGNAL_F_KILL_JOB, .kill_wait = cd->conf->kill_wait,
					       .end_state = JOB_CANCELLED };
			conn_send(c, MSG_SIGNAL_JOB, &s);
		}
	}
}

int node_register(ctld_t *cd, conn_t *c, msg_node_register_t *m, int heartbeat)
{
	long idx = m->name ? conf_node_find(cd->conf, m->name) : -1;
	if (idx < 0)
		return ESLURM_INVALID_NODE_NAME;
	node_t *n = &cd->nodes[idx];
	int64_t now = ctld_now();
	n->last_heard = now;
	n->ping_sent_ms = 0;
	n->cpu_load = m->cpu_load;
	n->free_mem = m->free_mem;
	if (heartbeat) {
		/* Heard: the node renews its lease from when it sent this. */
		msg_node_ack_t ack = { m->sent_ms, ctld_realtime_ms() };
		conn_send(c, MSG_NODE_ACK, &ack);
	}
	if (heartbeat && n->conn == c) {
		/* Heard from: clears an admin's NoResp and a power up. */
		if (n->flags & (NODE_FLAG_NO_RESPOND | NODE_FLAG_POWERING_UP)) {
			n->flags &= ~(NODE_FLAG_NO_RESPOND | NODE_FLAG_POWERING_UP);
			node_dirty(cd, n);
			node_sync_sched(cd, n);
		}
		job_fence_heard(cd, n, m, 0);
		/* Only a node declared DOWN because it did not answer in time
		 * is taken back by a heartbeat; one an admin set DOWN stays
		 * so until resumed or until its node daemon registers anew
		 * (a heartbeat right after `state=down` must not undo it). */
		int noresp = n->reason && !strcmp(n->reason, "Not responding");
		if (n->base != NODE_DOWN || !noresp) {
			node_health_heard(cd, n, m, now);
			node_kill_strays(cd, n, c, m);
			return 0;
		}
		/* Declared DOWN (it did not answer in time) but alive on its
		 * connection: back as a registration brings it, per
		 * ReturnToService; its jobs were ended or requeued. */
		info("node %s: heard from again on its connection", n->cf->name);
	}
	if (n->conn && n->conn != c) {
		conn_set_data(n->conn, NULL);
		conn_close(n->conn);
	}
	n->conn = c;
	conn_set_data(c, n);
	set_str(&n->arch, m->arch);
	set_str(&n->os, m->os);
	set_str(&n->version, m->version);
	n->boot_time = m->boot_time;
	n->start_time = m->start_time;
	n->last_busy = ctld_now();   /* Slurm's LastBusyTime starts at registration */
	if (m->port)
		n->port = m->port;
	n->flags &= ~(NODE_FLAG_NO_RESPOND | NODE_FLAG_POWERING_UP);
	uint32_t rts = cd->conf->return_to_service;
	char *bad = reg_check(cd, n, m);
	if (n->base == NODE_UNKNOWN) {
		n->base = NODE_IDLE;
	} else if (n->base == NODE_DOWN && !bad) {
		/* ReturnToService=1: only a node DOWN for not responding comes
		 * back by itself; =2: any DOWN node with a valid registration. */
		int noresp = n->reason && !strcmp(n->reason, "Not responding");
		if (rts == 2 || (rts == 1 && noresp)) {
			n->base = NODE_IDLE;
			set_reason(cd, n, NULL, 0, now);
		}
	}
	if (bad) {
		error("Setting node %s state to INVAL with reason:%s", n->cf->name, bad);
		n->flags |= NODE_FLAG_DRAIN | NODE_FLAG_INVALID_REG;
		set_reason(cd, n, bad, cd->slurm_uid, now);
		free(bad);
	} else if (n->flags & NODE_FLAG_INVALID_REG) {
		/* A valid registration clears INVAL and the drain it caused. */
		n->flags &= ~(NODE_FLAG_INVALID_REG | NODE_FLAG_DRAIN);
		set_reason(cd, n, NULL, 0, now);
	}
	node_health_heard(cd, n, m, now);
	node_dirty(cd, n);
	if (!heartbeat)
		info("node %s registered (%u jobs running there)", n->cf->name, m->njob_ids);

	/* Reconcile jobs: batch jobs we run there whose supervisor is gone
	 * failed with the node; supervisors we do not know get killed. */
	for (size_t i = 0; i < cd->njobs; i++) {
		job_t *j = cd->jobs[i];
		uint32_t base = j->state & JOB_STATE_BASE;
		if ((base != JOB_RUNNING && base != JOB_SUSPENDED) || !j->alloc.nnodes ||
		    j->alloc.nodes[0] != n->idx || (j->desc->flags & JOB_F_INTERACTIVE) ||
		    (j->state & JOB_CONFIGURING))     /* not launched yet (PrologSlurmctld) */
			continue;
		int found = 0;
		for (uint32_t k = 0; k < m->njob_ids && !found; k++)
			found = m->job_ids[k] == j->job_id;
		if (!found) {
			info("job %u: not running on %s after its registration: NODE_FAIL",
			     j->job_id, n->cf->name);
			job_signal_nodes(cd, j, SIGKILL, SIGNAL_F_KILL_JOB, JOB_NODE_FAIL);
			job_end(cd, j, JOB_NODE_FAIL, 0, now);
			job_release(cd, j);
		} else {
			/* a TimeLimit update it may have missed */
			job_send_time_limit(cd, j);
		}
	}
	node_kill_strays(cd, n, c, m);
	prolog_nodes_registered(cd, n);   /* PrologFlags=Alloc answers it owes */
	/* A registration lists all there is (a launch sent on an older
	 * connection can no longer arrive); a heartbeat counts only as the
	 * answer to a ping sent after the kill. */
	job_fence_heard(cd, n, m, !heartbeat);
	node_sync_sched(cd, n);
	ctld_sched_request(cd);
	return 0;
}

void node_conn_closed(ctld_t *cd, conn_t *c)
{
	node_t *n = conn_get_data(c);
	if (!n || n->conn != c)
		return;
	n->conn = NULL;
	if (n->base != NODE_FUTURE) {
		n->flags |= NODE_FLAG_NO_RESPOND;
		info("node %s: connection lost", n->cf->name);
	}
	node_sync_sched(cd, n);
	cd->last_node_update = ctld_now();
}

int64_t node_fence_time(const ctld_t *cd, const node_t *n, int64_t now)
{
	uint32_t lease = conf_node_lease(cd->conf);
	if (!lease)
		return now + JOB_REQUEUE_DELAY;
	return n->last_heard + (int64_t)lease + (int64_t)cd->conf->kill_wait + NODE_FENCE_MARGIN;
}

uint64_t node_ping(ctld_t *cd, node_t *n)
{
	if (!n->conn)
		return UINT64_MAX;
	msg_node_ping_t p = { ++n->ping_seq };
	conn_send(n->conn, MSG_NODE_PING, &p);
	return p.seq;
}

uint64_t nodes_tick_interval(const ctld_t *cd)
{
	uint64_t ms = (uint64_t)cd->conf->slurmd_timeout * 1000u / 4;
	return ms < 500 ? 500 : ms > 5000 ? 5000 : ms;
}

/* How long a pinged node has to answer (ms): a third of SlurmdTimeout,
 * within 1..10 s. */
static uint64_t ping_wait_ms(uint32_t to)
{
	uint64_t ms = (uint64_t)to * 1000u / 3;
	return ms < 1000 ? 1000 : ms > 10000 ? 10000 : ms;
}

void nodes_periodic(ctld_t *cd, int64_t now)
{
	uint32_t to = cd->conf->slurmd_timeout;
	uint64_t mono = cd->loop ? loop_now_ms(cd->loop) : 0;
	uint64_t period = nodes_tick_interval(cd);
	/* Did the controller itself not run (stopped, stalled)? Then that
	 * time says nothing about the nodes. */
	if (cd->nodes_tick_ms && mono > cd->nodes_tick_ms + 2 * period + 1000) {
		int64_t lost = (int64_t)((mono - cd->nodes_tick_ms - period + 999) / 1000);
		info("the controller did not run for about %llds: node timeouts restart",
		     (long long)lost);
		for (uint32_t i = 0; i < cd->nnodes; i++) {
			node_t *n = &cd->nodes[i];
			n->last_heard = n->last_heard + lost > now ? now : n->last_heard + lost;
			n->ping_sent_ms = 0;
		}
	}
	cd->nodes_tick_ms = mono;
	for (uint32_t i = 0; i < cd->nnodes; i++) {
		node_t *n = &cd->nodes[i];
		/* POWER_DOWN_ASAP: powered down once its last job is gone */
		if ((n->flags & NODE_FLAG_POWER_DOWN) && !cd->sched.nodes[i].njobs) {
			n->flags = (n->flags & ~NODE_FLAG_POWER_DOWN) | NODE_FLAG_POWERED_DOWN;
			node_dirty(cd, n);
		}
		if (!to || n->base == NODE_DOWN || n->base == NODE_FUTURE)
			continue;
		if (n->flags & (NODE_FLAG_POWERED_DOWN | NODE_FLAG_POWERING_UP))
			continue;   /* not expected to answer while powered off */
		int64_t quiet = now - n->last_heard;
		/* Late: ask it, on its connection, before judging it. */
		if (n->conn && !n->ping_sent_ms && quiet * 2 >= (int64_t)to) {
			debug("node %s quiet for %llds: ping", n->cf->name, (long long)quiet);
			node_ping(cd, n);
			n->ping_sent_ms = mono ? mono : 1;
		}
		if (quiet < (int64_t)to)
			continue;
		if (n->conn && mono - n->ping_sent_ms < ping_wait_ms(to))
			continue;   /* its answer may still come */
		info("node %s not responding for %us: DOWN", n->cf->name, to);
		n->base = NODE_DOWN;
		n->flags |= NODE_FLAG_NO_RESPOND;
		set_reason(cd, n, "Not responding", cd->slurm_uid, now);
		node_dirty(cd, n);
		node_sync_sched(cd, n);
		node_fail_jobs(cd, n, now);
	}
}

/* ---- scontrol update node / partition ---- */

/* Apply one parsed State= (enum node_update_state, 0 for none) to n.
 * Returns 0 or an ESLURM_* code for this node; *kill is set when its jobs
 * must be ended or requeued. */
static int node_apply_state(ctld_t *cd, node_t *n, int op, int64_t now, int *kill)
{
	const sched_node_t *sn = &cd->sched.nodes[n->idx];
	switch (op) {
	case 0:
		return 0;
	case NODE_UPD_DRAIN:
		/* the admin's drain now: no check lifts it */
		n->flags |= NODE_FLAG_DRAIN;
		n->flags &= ~NODE_FLAG_HEALTH_DRAIN;
		return 0;
	case NODE_UPD_FAIL:
		n->flags |= NODE_FLAG_FAIL;
		return 0;
	case NODE_UPD_UNDRAIN:
		n->flags &= ~(NODE_FLAG_DRAIN | NODE_FLAG_HEALTH_DRAIN);
		return 0;
	case NODE_UPD_RESUME:
		/* slurmctld: only DOWN, DRAIN(ED/ING), FAIL, powered down or
		 * REBOOT nodes can be resumed. */
		if (n->base != NODE_DOWN && n->base != NODE_FUTURE &&
		    !(n->flags & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL | NODE_FLAG_REBOOT |
				  NODE_FLAG_POWERED_DOWN | NODE_FLAG_POWER_DOWN |
				  NODE_FLAG_INVALID_REG)))
			return ESLURM_INVALID_NODE_STATE;
		/* fall through */
	case NODE_UPD_IDLE:
		n->flags &= ~(NODE_FLAG_DRAIN | NODE_FLAG_FAIL | NODE_FLAG_REBOOT |
			      NODE_FLAG_POWER_DOWN | NODE_FLAG_INVALID_REG | NODE_FLAG_HEALTH_DRAIN);
		if (n->base == NODE_DOWN || n->base == NODE_FUTURE || n->base == NODE_UNKNOWN) {
			n->base = NODE_IDLE;
			n->last_heard = now;  /* SlurmdTimeout from now to check in */
			/* "IDLE and NoResp" until its noded registers */
			if (!n->conn)
				n->flags |= NODE_FLAG_NO_RESPOND;
		}
		return 0;
	case NODE_UPD_DOWN:
		n->base = NODE_DOWN;
		*kill = 1;
		return 0;
	case NODE_UPD_FUTURE:
		if (n->base == NODE_FUTURE)
			return 0;
		if (sn->njobs)
			return ESLURM_NODES_BUSY;
		n->base = NODE_FUTURE;
		n->flags &= ~(NODE_FLAG_NO_RESPOND | NODE_FLAG_POWERING_UP);
		return 0;
	case NODE_UPD_NORESP:
		/* cleared again by the next heartbeat of a live noded */
		n->flags |= NODE_FLAG_NO_RESPOND;
		return 0;
	case NODE_UPD_POWER_DOWN_FORCE:
		*kill = 1;
		/* fall through */
	case NODE_UPD_POWER_DOWN:
		n->flags &= ~(NODE_FLAG_POWERING_UP | NODE_FLAG_POWER_DOWN);
		n->flags |= NODE_FLAG_POWERED_DOWN;
		return 0;
	case NODE_UPD_POWER_DOWN_ASAP:
		/* drain now, power down once the running jobs are done */
		n->flags |= NODE_FLAG_DRAIN;
		if (sn->njobs)
			n->flags |= NODE_FLAG_POWER_DOWN;
		else
			n->flags |= NODE_FLAG_POWERED_DOWN;
		return 0;
	case NODE_UPD_POWER_UP:
		if (!(n->flags & (NODE_FLAG_POWERED_DOWN | NODE_FLAG_POWER_DOWN)))
			return 0;   /* already up: nothing to do */
		n->flags &= ~(NODE_FLAG_POWERED_DOWN | NODE_FLAG_POWER_DOWN);
		/* until its noded is heard from again */
		n->flags |= NODE_FLAG_POWERING_UP;
		n->last_heard = now;
		return 0;
	case NODE_UPD_CANCEL_REBOOT:
		n->flags &= ~NODE_FLAG_REBOOT;
		return 0;
	default:   /* UNKNOWN, ALLOCATED, MIXED, ERROR */
		return ESLURM_INVALID_NODE_STATE;
	}
}

int node_update(ctld_t *cd, const msg_update_node_t *m, uint32_t uid, char **msg)
{
	if (!is_super(cd, uid))
		return ESLURM_ACCESS_DENIED;
	char *err = NULL;
	hostlist_t *hl = m->names && *m->names ? hostlist_create_max(m->names, cd->nnodes, &err)
					       : NULL;
	if (!hl) {
		*msg = err;
		return ESLURM_INVALID_NODE_NAME;
	}
	size_t cnt = hostlist_count(hl);
	long *idx = xmalloc((cnt ? cnt : 1) * sizeof(long));
	for (size_t i = 0; i < cnt; i++) {
		idx[i] = conf_node_find(cd->conf, hostlist_nth(hl, i));
		if (idx[i] < 0) {
			info("update_node: node %s does not exist", hostlist_nth(hl, i));
			free(idx);
			hostlist_destroy(hl);
			return ESLURM_INVALID_NODE_NAME;
		}
	}
	hostlist_destroy(hl);
	int op = 0;
	if (m->state && *m->state) {
		op = node_update_state_parse(m->state);
		if (op < 0) {
			free(idx);
			return ESLURM_INVALID_NODE_STATE;
		}
	}
	int has_reason = m->reason && *m->reason;
	if ((op == NODE_UPD_DRAIN || op == NODE_UPD_DOWN || op == NODE_UPD_FAIL) && !has_reason) {
		*msg = xstrdup("You must specify a reason when DOWNING or DRAINING a node. Request denied");
		free(idx);
		return ESLURM_INVALID_NODE_STATE;
	}
	int64_t now = ctld_now();
	int rc = 0;
	for (size_t i = 0; i < cnt; i++) {
		node_t *n = &cd->nodes[idx[i]];
		char before[128], after[128];
		node_state_string_scontrol(node_state(cd, n), before, sizeof(before));
		int kill = 0;
		int nrc = node_apply_state(cd, n, op, now, &kill);
		if (nrc) {
			info("Invalid node state transition requested for node %s from=%s to=%s",
			     n->cf->name, before, m->state);
			rc = nrc;
			continue;
		}
		/* A reason is recorded with who set it and when; leaving
		 * DRAIN/DOWN/FAIL behind clears it. */
		if (op == NODE_UPD_RESUME || op == NODE_UPD_IDLE ||
		    (op == NODE_UPD_UNDRAIN && n->base != NODE_DOWN && !(n->flags & NODE_FLAG_FAIL)))
			set_reason(cd, n, NULL, 0, now);
		else if (has_reason)
			set_reason(cd, n, m->reason, uid, now);
		/* "" clears, as Slurm stores an empty Comment/Extra as none */
		if (m->comment) {
			free(n->comment);
			n->comment = *m->comment ? xstrdup(m->comment) : NULL;
		}
		if (m->extra) {
			free(n->extra);
			n->extra = *m->extra ? xstrdup(m->extra) : NULL;
		}
		if (m->weight) {
			cd->sched.nodes[n->idx].weight = m->weight;
			ctld_sched_request(cd);
		}
		node_dirty(cd, n);
		node_sync_sched(cd, n);
		if (kill)
			node_fail_jobs(cd, n, now);
		node_state_string_scontrol(node_state(cd, n), after, sizeof(after));
		info("update_node: node %s state set to %s by uid %u%s%s", n->cf->name, after, uid,
		     n->reason ? ", reason: " : "", n->reason ? n->reason : "");
	}
	free(idx);
	ctld_sched_request(cd);
	return rc;
}

void part_sync_sched(ctld_t *cd, part_t *p)
{
	sched_part_t *sp = &cd->sched.parts[p - cd->parts];
	sp->up = p->state == CONF_PART_UP || p->state == CONF_PART_DRAIN;
	sp->inactive = p->state == CONF_PART_INACTIVE;
	sp->max_time = p->max_time;
	sp->max_nodes = p->max_nodes;
	sp->min_nodes = p->min_nodes;
}

int part_update(ctld_t *cd, const msg_update_part_t *m, uint32_t uid, char **msg)
{
	if (!is_super(cd, uid))
		return ESLURM_ACCESS_DENIED;
	long pi = part_find(cd, m->name);
	if (pi < 0)
		return ESLURM_INVALID_PARTITION_NAME;
	part_t *p = &cd->parts[pi];
	uint32_t state = p->state, max_time = p->max_time, def_time = p->default_time;
	uint32_t max_nodes = p->max_nodes, min_nodes = p->min_nodes;
	if (m->state) {
		if (!strcasecmp(m->state, "up")) state = CONF_PART_UP;
		else if (!strcasecmp(m->state, "down")) state = CONF_PART_DOWN;
		else if (!strcasecmp(m->state, "drain")) state = CONF_PART_DRAIN;
		else if (!strcasecmp(m->state, "inactive")) state = CONF_PART_INACTIVE;
		else {
			*msg = xasprintf("Invalid input: State=%s", m->state);
			return ESLURM_NOT_SUPPORTED;
		}
	}
	for (uint32_t i = 0; i < m->keys.n && i < m->values.n; i++) {
		const char *k = m->keys.v[i], *v = m->values.v[i];
		uint32_t *dst = NULL;
		int is_time = 0;
		if (!strcasecmp(k, "MaxTime")) { dst = &max_time; is_time = 1; }
		else if (!strcasecmp(k, "DefaultTime")) { dst = &def_time; is_time = 1; }
		else if (!strcasecmp(k, "MaxNodes")) dst = &max_nodes;
		else if (!strcasecmp(k, "MinNodes")) dst = &min_nodes;
		else if (!strcasecmp(k, "State")) {
			msg_update_part_t sub = { .name = m->name, .state = (char *)v };
			int rc = part_update(cd, &sub, uid, msg);
			if (rc)
				return rc;
			state = cd->parts[pi].state;
			continue;
		} else {
			*msg = xasprintf("Update of partition %s not supported", k);
			return ESLURM_NOT_SUPPORTED;
		}
		if (is_time) {
			if (time_limit_parse(v, dst)) {
				*msg = xasprintf("Invalid input: %s=%s", k, v);
				return ESLURM_INVALID_TIME_LIMIT;
			}
		} else if (!strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE")) {
			*dst = UINT32_MAX;
		} else {
			char *end = NULL;
			unsigned long x = strtoul(v, &end, 10);
			if (end == v || *end) {
				*msg = xasprintf("Invalid input: %s=%s", k, v);
				return ESLURM_INVALID_NODE_COUNT;
			}
			*dst = (uint32_t)x;
		}
	}
	p->state = state;
	p->max_time = max_time;
	p->default_time = def_time;
	p->max_nodes = max_nodes;
	p->min_nodes = min_nodes;
	part_sync_sched(cd, p);
	part_dirty(cd, p);
	ctld_sched_request(cd);
	info("partition %s updated by uid %u", p->cf->name, uid);
	return 0;
}

/* ---- views ---- */

static char *gres_used_string(ctld_t *cd, node_t *n)
{
	const conf_node_t *cf = n->cf;
	const sched_node_t *sn = &cd->sched.nodes[n->idx];
	strbuf_t sb = STRBUF_INIT;
	for (uint32_t t = 0; t < sn->ngpu_types; t++) {
		const sched_gpu_type_t *g = &sn->gpu_types[t];
		uint32_t used = 0;
		strbuf_t idx = STRBUF_INIT;
		for (uint32_t i = g->first; i < g->first + g->count && i < 64; i++) {
			if (!(sn->gpus_used & (1ull << i)))
				continue;
			used++;
			uint32_t k = i;
			while (k + 1 < g->first + g->count && k + 1 < 64 && (sn->gpus_used & (1ull << (k + 1))))
				k++;
			if (k > i)
				strbuf_addf(&idx, "%s%u-%u", idx.len ? "," : "", i, k);
			else
				strbuf_addf(&idx, "%s%u", idx.len ? "," : "", i);
			used += k - i;
			i = k;
		}
		strbuf_addf(&sb, "%sgpu%s%s:%u(IDX:%s)", sb.len ? "," : "", g->type[0] ? ":" : "",
			    g->type, used, idx.len ? idx.buf : "N/A");
		strbuf_release(&idx);
	}
	(void)cf;
	return strbuf_detach(&sb);
}

static char *gres_conf_string(const conf_node_t *cf)
{
	strbuf_t sb = STRBUF_INIT;
	for (size_t k = 0; k < cf->ngres; k++) {
		const conf_gres_t *g = &cf->gres[k];
		strbuf_addf(&sb, "%s%s%s%s:%u", sb.len ? "," : "", g->name, g->type ? ":" : "",
			    g->type ? g->type : "", g->count);
	}
	return strbuf_detach(&sb);
}

/* Fills ni with strings it owns (free with proto_free(MSG_NODE_INFO...)
 * per node: the caller frees each with node_info_release semantics). */
void node_fill_info(ctld_t *cd, node_t *n, node_info_t *ni)
{
	const conf_node_t *cf = n->cf;
	const sched_node_t *sn = &cd->sched.nodes[n->idx];
	memset(ni, 0, sizeof(*ni));
	ni->name = xstrdup(cf->name);
	ni->addr = xstrdup(cf->addr);
	ni->hostname = xstrdup(cf->hostname);
	ni->port = n->port;
	ni->state = node_state(cd, n) | resv_node_flags(cd, n->idx);
	ni->cpus = cf->cpus;
	ni->cpus_alloc = sn->exclusive ? cf->cpus : sn->cpus_used;
	ni->cpus_efctv = cf->cpus;
	ni->boards = cf->boards;
	ni->sockets = cf->sockets;
	ni->cores = cf->cores_per_socket;
	ni->threads = cf->threads_per_core;
	ni->cpu_load = n->cpu_load;
	ni->real_memory = cf->real_memory;
	ni->alloc_mem = sn->mem_used;
	ni->free_mem = n->free_mem;
	ni->tmp_disk = cf->tmp_disk;
	ni->weight = sn->weight;
	ni->features = xstrdup(cf->features);
	ni->features_active = xstrdup(cf->features);
	ni->gres = gres_conf_string(cf);
	ni->gres_used = gres_used_string(cd, n);
	ni->arch = xstrdup(n->arch);
	ni->os = xstrdup(n->os);
	ni->version = xstrdup(n->version);
	ni->partitions = xstrdup(n->partitions);
	ni->boot_time = n->boot_time;
	ni->slurmd_start_time = n->start_time;
	ni->last_busy = n->last_busy;
	ni->reason = xstrdup(n->reason);
	ni->reason_uid = n->reason_uid;
	ni->reason_user = n->reason ? names_user(n->reason_uid) : NULL;
	ni->reason_time = n->reason_time;
	ni->cfg_tres = xstrdup(n->cfg_tres);
	ni->comment = xstrdup(n->comment);
	ni->extra = xstrdup(n->extra);
	ni->health = xstrdup(n->health);
	ni->key_digest = xstrdup(n->key_digest);
	ni->key_match = n->key_match;
	ni->health_round = n->health_round;
	ni->health_nchecks = n->health_nchecks;
	uint64_t g = (uint64_t)__builtin_popcountll(sn->gpus_used);
	const char *gt = sn->ngpu_types ? sn->gpu_types[0].type : "";
	uint32_t ac = sn->exclusive ? cf->cpus : sn->cpus_used;
	ni->alloc_tres = tres_string(ac, sn->mem_used, 0, 0, g, gt, g);
}

void part_fill_info(ctld_t *cd, part_t *p, part_info_t *pi)
{
	const conf_part_t *cf = p->cf;
	memset(pi, 0, sizeof(*pi));
	pi->name = xstrdup(cf->name);
	pi->nodes = xstrdup(cf->nodes);
	if (cf->nnodes) {
		const char **names = xmalloc(cf->nnodes * sizeof(char *));
		for (size_t k = 0; k < cf->nnodes; k++)
			names[k] = cd->conf->nodes[cf->node_idx[k]].name;
		free(pi->nodes);
		pi->nodes = hostlist_compress(names, cf->nnodes);
		free(names);
	}
	pi->flags = (cf->is_default ? PART_F_DEFAULT : 0) | (cf->hidden ? PART_F_HIDDEN : 0) |
		    (cf->root_only ? PART_F_ROOT_ONLY : 0) | (cf->exclusive_user ? PART_F_EXCL_USER : 0) |
		    (cf->lln ? PART_F_LLN : 0) | (cf->req_resv ? PART_F_REQ_RESV : 0) |
		    (cf->disable_root_jobs ? PART_F_NO_ROOT : 0);
	pi->state = p->state;
	pi->max_time = p->max_time;
	pi->default_time = p->default_time;
	pi->max_nodes = p->max_nodes;
	pi->min_nodes = p->min_nodes;
	pi->priority_job_factor = p->priority_job_factor;
	pi->priority_tier = p->priority_tier;
	/* As Slurm shows it: "YES" is "YES:4", "force:2" is "FORCE:2". */
	uint32_t share;
	int os = part_oversubscribe(cf->oversubscribe, &share);
	pi->oversubscribe = os == PART_OS_YES || os == PART_OS_FORCE ?
		xasprintf("%s:%u", os == PART_OS_FORCE ? "FORCE" : "YES", share) :
		xstrdup(os == PART_OS_EXCLUSIVE ? "EXCLUSIVE" : "NO");
	pi->allow_groups = xstrdup(cf->allow_groups);
	pi->allow_accounts = xstrdup(cf->allow_accounts);
	pi->allow_qos = xstrdup(cf->allow_qos);
	pi->total_cpus = p->total_cpus;
	pi->total_nodes = (uint32_t)cf->nnodes;
	pi->max_cpus_per_node = cf->max_cpus_per_node;
	pi->grace_time = cf->grace_time;
	pi->def_mem_per_cpu = cf->def_mem_per_cpu;
	pi->max_mem_per_cpu = cf->max_mem_per_cpu;
	pi->def_mem_per_node = cf->def_mem_per_node;
	pi->max_mem_per_node = cf->max_mem_per_node;
	pi->tres = xstrdup(p->tres);
}
