/*
 * rpc.c: the controller's message dispatch and authorization.
 *
 * Every request arrives authenticated (uid/gid from the frame credential
 * or SO_PEERCRED); uid AUTH_UID_NONE is refused for everything. Replies
 * are queued on the connection and go out after the turn's commit (see
 * ctld_main.c), so an answer never announces an uncommitted change.
 * Handlers never abort: a bad request gets an error reply.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include "ctld/ctld.h"
#include "ctld/job_array.h"
#include "ctld/job_nccl.h"
#include "ctld/resv.h"

#include "cred.h"
#include "errors.h"
#include "log.h"
#include "states.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

static void reply_rc(conn_t *c, int rc, char *msg)
{
	conn_send_rc(c, rc, msg ? msg : (rc ? slurm_strerror(rc) : NULL));
	free(msg);
}

static void do_submit(ctld_t *cd, conn_t *c, job_desc_t *in, uint32_t uid, uint32_t gid)
{
	/* A client's retry (its first try may have created the job while
	 * the client gave up waiting): the same request id from the same
	 * user gets the job it made, never a second one. */
	if (in->request_id && strlen(in->request_id) > JOB_REQUEST_ID_MAX)
		xfree(in->request_id);
	job_t *prev = job_find_request(cd, uid, in->request_id);
	if (prev) {
		info("job %u: repeated submission by uid %u (request %s): answered with its id",
		     prev->job_id, uid, in->request_id);
		if (in->flags & JOB_F_INTERACTIVE)
			cd->sched_now = 1;
		msg_submit_reply_t r = { .rc = 0, .job_id = prev->job_id };
		conn_send(c, MSG_SUBMIT_REPLY, &r);
		return;
	}
	/* sbatch --uid/--gid: root only (the client says so too), as Slurm;
	 * without --gid the submitter's group stays. */
	if (in->as_ids) {
		if (uid != 0) {
			msg_submit_reply_t r = { .rc = ESLURM_ACCESS_DENIED };
			conn_send(c, MSG_SUBMIT_REPLY, &r);
			return;
		}
		if (in->as_ids & AS_UID)
			uid = in->user_id;
		if (in->as_ids & AS_GID)
			gid = in->group_id;
	}
	/* Take the description over from the conn layer's message. */
	job_desc_t *d = xmalloc(sizeof(*d));
	*d = *in;
	memset(in, 0, sizeof(*in));
	uint32_t id = 0;
	char *msg = NULL;
	int interactive = d->flags & JOB_F_INTERACTIVE;
	if (d->flags & JOB_F_TEST_ONLY) {
		/* --test-only: an answer, no job. Slurm's will_run reply has
		 * no room for the refusal's detail line; the invalid
		 * partition line comes before it, as an info message. */
		msg_submit_reply_t r = { 0 };
		r.rc = job_submit_test(cd, d, uid, gid, &id, &msg, &r);
		if (r.rc && r.rc != ESLURM_INVALID_PARTITION_NAME)
			xfree(msg);
		r.msg = msg;
		proto_free(MSG_SUBMIT, d);
		free(d);
		conn_send(c, MSG_SUBMIT_REPLY, &r);
		free(msg);
		free(r.test_nodes);
		free(r.test_partition);
		return;
	}
	int rc = job_submit(cd, d, uid, gid, &id, &msg);
	cd->stats.jobs_submitted += rc == 0;
	cd->mstats.jobs_submitted += rc == 0;
	cd->jobs_accepted += rc == 0;
	/* srun asks right after whether it got its allocation; answer that
	 * from a pass made in this very turn, as Slurm's allocate call does. */
	if (!rc && interactive)
		cd->sched_now = 1;
	if (rc) {
		proto_free(MSG_SUBMIT, d);
		free(d);
	}
	/* The command prints slurm_strerror(rc) itself; msg only adds detail. */
	msg_submit_reply_t r = { .rc = rc, .job_id = id, .msg = msg };
	conn_send(c, MSG_SUBMIT_REPLY, &r);
	free(msg);
}

/* Room for one more job_info_t at the end of *v (n of a allocated). */
static job_info_t *xgrow_item(job_info_t **v, uint32_t *n, size_t *a)
{
	*v = xgrow(*v, sizeof(**v), (size_t)*n + 1, a);
	return &(*v)[(*n)++];
}

static void do_job_info(ctld_t *cd, conn_t *c, msg_info_req_t *req, uint32_t uid)
{
	msg_job_info_t m = { .last_update = cd->last_job_update };
	if (req->job_id) {
		job_t *j = job_find(cd, req->job_id);
		if (!j) {
			reply_rc(c, ESLURM_INVALID_JOB_ID, NULL);
			return;
		}
		if (j->array_job_id == req->job_id) {
			/* an array's id: every record of it, the array's own
			 * first, then its tasks newest first (as Slurm lists) */
			uint32_t fields = req->fields ? req->fields : JINFO_ALL;
			size_t a = 0;
			job_fill_info_fields(cd, j, xgrow_item(&m.jobs, &m.njobs, &a), fields);
			for (size_t i = cd->njobs; i-- > 0;)
				if (cd->jobs[i]->array_job_id == req->job_id && cd->jobs[i] != j)
					job_fill_info_fields(cd, cd->jobs[i],
							     xgrow_item(&m.jobs, &m.njobs, &a), fields);
			conn_send(c, MSG_JOB_INFO, &m);
			free(m.jobs);
			return;
		}
		job_info_t ji;
		job_fill_info_fields(cd, j, &ji, req->fields ? req->fields : JINFO_ALL);
		m.njobs = 1;
		m.jobs = &ji;
		conn_send(c, MSG_JOB_INFO, &m);
		return;
	}
	if (req->changed_since && req->changed_since >= cd->last_job_update) {
		conn_send(c, MSG_JOB_INFO, &m);
		return;
	}
	uint32_t fields = req->fields ? req->fields : JINFO_ALL;
	m.jobs = xmalloc((cd->njobs ? cd->njobs : 1) * sizeof(job_info_t));
	for (size_t i = 0; i < cd->njobs; i++)
		job_fill_info_fields(cd, cd->jobs[i], &m.jobs[m.njobs++], fields);
	conn_send(c, MSG_JOB_INFO, &m);
	free(m.jobs);           /* strings were borrowed */
}

static void do_node_info(ctld_t *cd, conn_t *c, msg_info_req_t *req)
{
	msg_node_info_t m = { .last_update = cd->last_node_update };
	if (req->name && *req->name) {
		long idx = conf_node_find(cd->conf, req->name);
		if (idx < 0) {
			reply_rc(c, ESLURM_INVALID_NODE_NAME, NULL);
			return;
		}
		m.nodes = xmalloc(sizeof(node_info_t));
		node_fill_info(cd, &cd->nodes[idx], &m.nodes[0]);
		m.nnodes = 1;
	} else {
		m.nodes = xmalloc((cd->nnodes ? cd->nnodes : 1) * sizeof(node_info_t));
		for (uint32_t i = 0; i < cd->nnodes; i++)
			node_fill_info(cd, &cd->nodes[i], &m.nodes[m.nnodes++]);
	}
	conn_send(c, MSG_NODE_INFO, &m);
	proto_free(MSG_NODE_INFO, &m);
}

static void do_part_info(ctld_t *cd, conn_t *c, msg_info_req_t *req)
{
	msg_part_info_t m = { .last_update = cd->last_part_update };
	m.parts = xmalloc((cd->nparts ? cd->nparts : 1) * sizeof(part_info_t));
	for (uint32_t i = 0; i < cd->nparts; i++) {
		if (req->name && *req->name && strcmp(req->name, cd->parts[i].cf->name))
			continue;
		part_fill_info(cd, &cd->parts[i], &m.parts[m.nparts++]);
	}
	if (req->name && *req->name && !m.nparts) {
		free(m.parts);
		reply_rc(c, ESLURM_INVALID_PARTITION_NAME, NULL);
		return;
	}
	conn_send(c, MSG_PART_INFO, &m);
	proto_free(MSG_PART_INFO, &m);
}

static void do_config(ctld_t *cd, conn_t *c)
{
	msg_config_t m = { .last_update = ctld_now() };
	char **keys = NULL, **vals = NULL;
	size_t n = conf_show_lines(cd->conf, &keys, &vals);
	for (size_t i = 0; i < n; i++) {
		/* The controller's own values: when it started, the id the next
		 * job gets. */
		if (!strcmp(keys[i], "BOOT_TIME")) {
			free(vals[i]);
			vals[i] = xmalloc(32);
			time_fmt_iso((time_t)cd->boot_time, vals[i], 32);
		} else if (!strcmp(keys[i], "NEXT_JOB_ID")) {
			free(vals[i]);
			vals[i] = xasprintf("%u", cd->next_job_id);
		}
		strv_push(&m.keys, keys[i]);
		strv_push(&m.values, vals[i]);
		free(keys[i]);
		free(vals[i]);
	}
	free(keys);
	free(vals);
	conn_send(c, MSG_CONFIG, &m);
	proto_free(MSG_CONFIG, &m);
}

static void do_cancel(ctld_t *cd, conn_t *c, msg_cancel_t *m, uint32_t uid)
{
	msg_cancel_reply_t r = { .nrcs = m->njob_ids };
	r.rcs = xcalloc(m->njob_ids ? m->njob_ids : 1, sizeof(int32_t));
	for (uint32_t i = 0; i < m->njob_ids; i++)
		r.rcs[i] = i < m->ntask_ids && m->task_ids[i] != NO_VAL32
			? job_array_cancel_task(cd, m->job_ids[i], m->task_ids[i], m->signal, m->flags, uid)
			: job_cancel(cd, m->job_ids[i], m->signal, m->flags, uid);
	conn_send(c, MSG_CANCEL_REPLY, &r);
	free(r.rcs);
}

#define CTLD_MAX_WAITERS_PER_UID 1000

static void do_wait(ctld_t *cd, conn_t *c, msg_job_wait_t *m, uint32_t uid)
{
	job_t *j = job_find(cd, m->job_id);
	if (!j) {
		reply_rc(c, ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	if (j->user_id != uid && !is_admin(cd, uid)) {
		reply_rc(c, ESLURM_ACCESS_DENIED, NULL);
		return;
	}
	if (m->until != WAIT_UNTIL_STARTED && m->until != WAIT_UNTIL_FINISHED) {
		reply_rc(c, SLUICE_E_PROTOCOL, xstrdup("unknown wait condition"));
		return;
	}
	/* Each waiter holds a connection: bound what one user can pin. */
	static long max_waiters = -1;
	if (max_waiters < 0) {
		const char *e = getenv("SLUICE_MAX_JOB_WAITERS");   /* tests */
		max_waiters = e && atol(e) > 0 ? atol(e) : CTLD_MAX_WAITERS_PER_UID;
	}
	if (!is_admin(cd, uid)) {
		long mine = 0;
		for (size_t i = 0; i < cd->nwaiters; i++)
			mine += cd->waiters[i].uid == uid;
		if (mine >= max_waiters) {
			reply_rc(c, EAGAIN, xasprintf("too many waiting requests for uid %u (limit %ld)",
						      uid, max_waiters));
			return;
		}
	}
	cd->waiters = xgrow(cd->waiters, sizeof(waiter_t), cd->nwaiters + 1, &cd->awaiters);
	cd->waiters[cd->nwaiters++] = (waiter_t){ c, m->job_id, m->until, uid };
	jobs_wake_waiters(cd, j);   /* already there? */
}

/* SLURM_TOPOLOGY_ADDR_PATTERN of a node's address "s1.leaf1.comp001":
 * "switch.switch.node" (no topology: "node"). malloc'd. */
static char *topo_pattern(const node_t *n)
{
	strbuf_t sb = STRBUF_INIT;
	size_t sw = n->topo_addr ? strlen(n->topo_addr) - strlen(n->cf->name) : 0;
	for (size_t i = 0; i < sw; i++)
		if (n->topo_addr[i] == '.')
			strbuf_addstr(&sb, "switch.");
	strbuf_addstr(&sb, "node");
	return strbuf_detach(&sb);
}

/* The gpu item of a TRES list ("gres:mps:1,gres:gpu:h100:2" ->
 * "gpu:h100:2"; "gres:none" -> "none"), malloc'd; NULL when none. */
static char *gpu_item(const char *s)
{
	for (const char *p = s; p && *p;) {
		size_t len = strcspn(p, ",");
		const char *t = p;
		if (!strncmp(t, "gres:", 5) || !strncmp(t, "gres/", 5))
			t += 5;
		size_t tl = len - (size_t)(t - p);
		if ((tl == 4 && !strncmp(t, "none", 4)) ||
		    (tl >= 3 && !strncmp(t, "gpu", 3) && (tl == 3 || t[3] == ':')))
			return xstrndup(t, tl);
		p += len + (p[len] == ',');
	}
	return NULL;
}

/* The GPUs a step asks for (--gres/--gpus-per-node, --gpus-per-task,
 * --gpus; "gres:none" none) into rq; a type keeps it to the job's GPUs
 * of that type (rq->gpu_ok, malloc'd). 0 or ESLURM_INVALID_GRES. */
static int step_gpu_request(ctld_t *cd, const job_t *j, const msg_step_create_t *m,
			    step_req_t *rq)
{
	char type[32] = "", t2[32] = "";
	char *pn = gpu_item(m->tres_per_node), *pt = gpu_item(m->tres_per_task);
	char *pj = gpu_item(m->tres_per_job);
	int rc = 0;
	if (pn && !strcmp(pn, "none"))
		rq->flags |= STEP_CREATE_GRES_NONE;
	else if (pn)
		rc = parse_gpu_tres(pn, &rq->gpus_per_node, type, sizeof(type));
	if (!rc && pt)
		rc = parse_gpu_tres(pt, &rq->gpus_per_task, t2, sizeof(t2));
	if (!rc && !*type)
		memcpy(type, t2, sizeof(t2));
	if (!rc && pj)
		rc = parse_gpu_tres(pj, &rq->gpus, t2, sizeof(t2));
	free(pn);
	free(pt);
	free(pj);
	if (rc)
		return rc;
	if (!*type)
		memcpy(type, t2, sizeof(t2));
	if (!*type)
		return 0;
	uint64_t *ok = xcalloc(j->alloc.nnodes + 1, sizeof(uint64_t));
	for (uint32_t x = 0; x < j->alloc.nnodes; x++) {
		const sched_node_t *sn = &cd->sched.nodes[j->alloc.nodes[x]];
		for (uint32_t t = 0; t < sn->ngpu_types; t++) {
			const sched_gpu_type_t *g = &sn->gpu_types[t];
			if (strcmp(g->type, type))
				continue;
			for (uint32_t i = g->first; i < g->first + g->count && i < 64; i++)
				ok[x] |= 1ull << i;
		}
	}
	rq->gpu_ok = ok;
	return 0;
}

static void do_step_create(ctld_t *cd, conn_t *c, msg_step_create_t *m, uint32_t uid)
{
	msg_step_create_reply_t r = { .job_id = m->job_id };
	job_t *j = job_find(cd, m->job_id);
	if (!j) {
		reply_rc(c, ESLURM_INVALID_JOB_ID, NULL);
		return;
	}
	if (j->user_id != uid && !is_admin(cd, uid)) {
		reply_rc(c, ESLURM_ACCESS_DENIED, NULL);
		return;
	}
	if ((j->state & JOB_STATE_BASE) != JOB_RUNNING) {
		reply_rc(c, JOB_IS_FINISHED(j->state) ? ESLURM_ALREADY_DONE : ESLURM_JOB_PENDING, NULL);
		return;
	}
	/* The credential covers one launch request (cred.h), not whoever
	 * holds it: no digest, no credential. */
	if (!m->digest || strlen(m->digest) != CRED_DIGEST_HEX ||
	    strspn(m->digest, "0123456789abcdef") != CRED_DIGEST_HEX) {
		reply_rc(c, ESLURM_INVALID_JOB_CREDENTIAL,
			 xstrdup("step create without the digest of its launch request"));
		return;
	}
	uint32_t nn = j->alloc.nnodes;
	if (m->min_nodes && m->min_nodes < nn)
		nn = m->min_nodes;
	uint32_t ntasks = m->ntasks;
	if (!ntasks)
		for (uint32_t i = 0; i < nn; i++)
			ntasks += j->alloc.tasks[i];
	if (!ntasks)
		ntasks = nn;
	if (ntasks < nn)
		nn = ntasks;
	if (!nn) {
		reply_rc(c, ESLURM_BAD_TASK_COUNT, NULL);
		return;
	}
	/* its nodes, CPUs and GPUs (steps spread over the allocation and
	 * queue for it: srun retries ESLURM_NODES_BUSY) */
	step_req_t rq = { .nnodes = nn, .ntasks = ntasks, .cpus_per_gpu = m->cpus_per_gpu,
			  .cpus_per_task = m->cpus_per_task ? m->cpus_per_task : j->desc->cpus_per_task,
			  .flags = m->flags & (STEP_CREATE_EXACT | STEP_CREATE_OVERLAP) };
	if (m->cpus_per_task)
		rq.flags |= STEP_CREATE_EXACT;
	int bad = step_gpu_request(cd, j, m, &rq);
	if (bad) {
		free((void *)rq.gpu_ok);
		reply_rc(c, bad, NULL);
		return;
	}
	step_pick_t pk;
	int busy = step_alloc_take(j, j->next_step, &rq, &pk);
	free((void *)rq.gpu_ok);
	if (busy) {
		reply_rc(c, busy, NULL);
		return;
	}
	r.step_id = j->next_step++;
	job_dirty(cd, j);
	r.nports = nn;
	r.ports = xcalloc(nn, sizeof(uint32_t));
	r.ntasks_per_node_n = nn;
	r.ntasks_per_node = xcalloc(nn, sizeof(uint32_t));
	r.ncpus_per_node = nn;
	r.cpus_per_node = xcalloc(nn, sizeof(uint32_t));
	uint32_t *snodes = xcalloc(nn, sizeof(uint32_t));
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t x = pk.node_idx[i];
		node_t *n = &cd->nodes[j->alloc.nodes[x]];
		snodes[i] = j->alloc.nodes[x];
		strv_push(&r.node_names, n->cf->name);
		strv_push(&r.node_addrs, n->cf->addr ? n->cf->addr : n->cf->name);
		r.ports[i] = n->port;
		r.ntasks_per_node[i] = pk.tasks[i];
		strv_push(&r.topo_addrs, n->topo_addr ? n->topo_addr : n->cf->name);
		r.cpus_per_node[i] = j->alloc.cpus[x];
	}
	r.topo_pattern = topo_pattern(&cd->nodes[snodes[0]]);
	/* the CPU ids of each node, for srun --cpu-bind */
	job_detail_build(cd, j);
	for (uint32_t i = 0; i < nn; i++) {
		const char *ids = j->cpu_ids;
		for (uint32_t x = 0; ids && x < pk.node_idx[i]; x++) {
			ids = strchr(ids, ' ');
			ids = ids ? ids + 1 : NULL;
		}
		char *one = xstrndup(ids ? ids : "", ids ? strcspn(ids, " ") : 0);
		strv_push(&r.cpu_ids, one);
		free(one);
	}
	r.nodes = alloc_nodes_string(cd, &(sched_alloc_t){ .nnodes = nn, .nodes = snodes });
	free(snodes);
	/* its record: CPUs as the tasks take them, memory in proportion */
	uint32_t cpt = j->desc->cpus_per_task ? j->desc->cpus_per_task : 1;
	uint64_t scpus = 0, smem = 0, sgpus = 0;
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t x = pk.node_idx[i];
		uint64_t c = (uint64_t)r.ntasks_per_node[i] * cpt, have = j->alloc.cpus[x];
		if (c > have)
			c = have;
		scpus += c;
		smem += have ? j->alloc.mem[x] * c / have : 0;
		sgpus += (uint64_t)__builtin_popcountll(pk.gpus[i]);
	}
	acct_step_start(cd, j->job_id, r.step_id, m->name && *m->name ? m->name : "", r.nodes, nn,
			ntasks, (uint32_t)scpus, smem, ctld_now());
	acct_step_launch_info(cd, j->job_id, r.step_id, m->time_limit, m->srun_host, m->srun_pid);
	/* what squeue -s and scontrol show step show of it (step_info.c) */
	char *stres = tres_string(scpus, smem, nn, 0, sgpus, sgpus ? j->gpu_type : NULL, sgpus);
	step_alloc_describe(j, r.step_id, &(step_desc_t){
		.name = m->name, .nodes = r.nodes, .tres = stres, .srun_host = m->srun_host,
		.ntasks = ntasks, .ncpus = (uint32_t)scpus, .time_limit = m->time_limit,
		.srun_pid = m->srun_pid, .start = ctld_now() });
	free(stres);
	/* each node's share of the job, for the step's cgroup there, and
	 * the step's own GPUs there */
	strbuf_t alloc = STRBUF_INIT, gpus = STRBUF_INIT;
	const sched_alloc_t *a = &j->alloc;
	int job_gpus = 0;
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t x = pk.node_idx[i];
		if (i)
			strbuf_addch(&alloc, ';');
		strbuf_addf(&alloc, "%s=", cd->nodes[a->nodes[x]].cf->name);
		size_t at = alloc.len;
		for (uint32_t b = 0; a->cores && b < a->cwords * 64; b++) {
			if (!(a->cores[(size_t)x * a->cwords + b / 64] & (1ull << (b % 64))))
				continue;
			uint32_t e = b;
			while (e + 1 < a->cwords * 64 &&
			       (a->cores[(size_t)x * a->cwords + (e + 1) / 64] & (1ull << ((e + 1) % 64))))
				e++;
			strbuf_addf(&alloc, alloc.len > at ? ",%u" : "%u", b);
			if (e > b)
				strbuf_addf(&alloc, "-%u", e);
			b = e;
		}
		strbuf_addf(&alloc, ":%" PRIu64 ":%" PRIx64, a->mem ? a->mem[x] : 0,
			    a->gpus ? a->gpus[x] : 0);
		strbuf_addf(&gpus, "%s%" PRIx64, i ? "," : "", pk.gpus[i]);
		job_gpus |= a->gpus && a->gpus[x];
	}
	step_pick_release(&pk);
	cred_t cr = { .job_id = j->job_id, .step_id = r.step_id, .uid = j->user_id,
		      .gid = j->group_id, .user = j->desc->user_name, .nodes = r.nodes,
		      .ntasks = ntasks, .digest = m->digest, .alloc = alloc.len ? alloc.buf : NULL,
		      .gpus = job_gpus ? gpus.buf : NULL,
		      /* each node's tasks: a node runs its own share only */
		      .layout = cred_layout_string(r.ntasks_per_node, nn),
		      /* Slurm's cred_expire (120 s): how long a step's
		       * credential may start tasks; each node also takes it
		       * only once, and a node that ended the job revokes it. */
		      .expires = ctld_now() + JOB_REQUEUE_DELAY - 1 };
	/* the job's own variables for a node whose Prolog this step runs
	 * (its first contact with the job there) and for its Epilog */
	if (prolog_nodes_configured(cd)) {
		cr.penv = prolog_nodes_env(cd, j);
	}
	char *err = NULL;
	r.cred = cred_create(cd->auth, &cr, &err);
	strv_free(&cr.penv);
	free(cr.layout);
	strbuf_release(&alloc);
	strbuf_release(&gpus);
	if (!r.cred) {
		error("step %u.%u: cannot sign credential: %s", j->job_id, r.step_id, err ? err : "?");
		r.rc = SLUICE_E_AUTH;
		free(err);
	} else if (conn_is_peercred(c) && auth_kind(cd->auth) == AUTH_HMAC) {
		/* The step's launch key, which srun MACs each node's launch
		 * with (cred.h): to a local srun that cannot derive it, over
		 * the Unix socket only. A key holder's srun comes over TCP
		 * and derives it; an eavesdropper on TCP never sees it. */
		char key[CRED_DIGEST_HEX + 1];
		if (cred_launch_key(cd->auth, r.cred, key) == 0)
			r.launch_key = xstrdup(key);
		explicit_bzero(key, sizeof(key));
	}
	conn_send(c, MSG_STEP_CREATE_REPLY, &r);
	proto_free(MSG_STEP_CREATE_REPLY, &r);
}

/* While the store cannot be written, a request that would change state
 * is refused before it changes anything (reads go on): the answer names
 * the directory and the error, and is an errno value, which a job's
 * supervisor retries (its completion is then recorded once the store
 * works again). Node registrations and heartbeats are kept in memory. */
static int changes_state(enum msg_type type, const void *msg)
{
	switch (type) {
	case MSG_ACCT_REQ: {
		/* sacctmgr's add, modify, delete: only with commit=1 does it
		 * change the model (sacctmgr_rpc.c); show and the reports
		 * change nothing */
		const msg_acct_req_t *r = msg;
		const char *commit = acct_arg(r, "commit");
		return r->op == ACCT_OP_MGR && commit && atoi(commit) != 0;
	}
	case MSG_SUBMIT: case MSG_CANCEL: case MSG_UPDATE_NODE: case MSG_UPDATE_PART:
	case MSG_UPDATE_JOB: case MSG_STEP_CREATE: case MSG_JOB_COMPLETE: case MSG_RECONFIGURE:
	case MSG_STEP_COMPLETE: case MSG_PROLOG_COMPLETE: case MSG_JOB_NCCL:
	case MSG_RESV_UPDATE:
		return 1;
	default:
		return 0;
	}
}

static int store_refused(ctld_t *cd, conn_t *c, enum msg_type type, const void *msg)
{
	if (!cd->store_failing || !changes_state(type, msg))
		return 0;
	reply_rc(c, cd->db_errno ? cd->db_errno : EIO, store_error_msg(cd));
	return 1;
}

void rpc_on_msg(conn_t *c, enum msg_type type, void *msg, uint32_t uid, uint32_t gid, void *arg)
{
	ctld_t *cd = arg;
	if (uid == AUTH_UID_NONE) {
		reply_rc(c, ESLURM_ACCESS_DENIED, xstrdup("authentication required"));
		return;
	}
	if (store_refused(cd, c, type, msg))
		return;
	char *m = NULL;
	int rc;
	ctld_rpc_mark_t mark = ctld_stats_begin(type, msg);
	/* A client's change is undone if its commit fails (turn.c); what a
	 * node daemon reports on its own link is answered as heard and
	 * kept (ctld_main.c, store_check). */
	int request = changes_state(type, msg) && !conn_get_data(c);
	turn_request(cd, request);
	switch (type) {
	case MSG_PING:
		reply_rc(c, 0, NULL);
		break;
	case MSG_SUBMIT:
		do_submit(cd, c, msg, uid, gid);
		break;
	case MSG_JOB_INFO_REQ:
		do_job_info(cd, c, msg, uid);
		break;
	case MSG_NODE_INFO_REQ:
		do_node_info(cd, c, msg);
		break;
	case MSG_PART_INFO_REQ:
		do_part_info(cd, c, msg);
		break;
	case MSG_CONFIG_REQ:
		do_config(cd, c);
		break;
	case MSG_CONFIG_FILES_REQ:
		configless_answer(cd, c, uid);
		break;
	case MSG_CANCEL:
		do_cancel(cd, c, msg, uid);
		break;
	case MSG_UPDATE_NODE:
		rc = node_update(cd, msg, uid, &m);
		reply_rc(c, rc, m);
		break;
	case MSG_UPDATE_PART:
		rc = part_update(cd, msg, uid, &m);
		reply_rc(c, rc, m);
		break;
	case MSG_UPDATE_JOB: {
		/* scontrol write batch_script: the script comes back as the
		 * reply's text */
		const msg_update_job_t *u = msg;
		if (u->action && !strcasecmp(u->action, "batch_script")) {
			char *script = NULL;
			rc = job_batch_script(cd, u->job_id, uid, &script);
			reply_rc(c, rc, script);
			break;
		}
		rc = job_update(cd, msg, uid);
		reply_rc(c, rc, NULL);
		break;
	}
	case MSG_JOB_WAIT:
		do_wait(cd, c, msg, uid);
		break;
	case MSG_STEP_INFO_REQ:
		step_info_reply(cd, c, msg);
		break;
	case MSG_STEP_CREATE:
		do_step_create(cd, c, msg, uid);
		break;
	case MSG_STEP_STAT_AUTH:
		do_step_stat_auth(cd, c, msg, uid);
		break;
	case MSG_JOB_COMPLETE:
		rc = job_complete(cd, msg, uid);
		reply_rc(c, rc, NULL);
		break;
	case MSG_STEP_COMPLETE:
		rc = acct_step_complete(cd, msg, uid);
		if (!rc) {
			const msg_step_complete_t *sm = msg;
			job_t *sj = job_find(cd, sm->job_id);
			if (sj)
				step_alloc_node_done(sj, sm->step_id, sm->node_id);
		}
		reply_rc(c, rc, NULL);
		break;
	case MSG_PROLOG_COMPLETE:
		rc = prolog_nodes_complete(cd, msg, uid);
		reply_rc(c, rc, NULL);
		break;
	case MSG_JOB_NCCL:
		rc = job_nccl_report(cd, msg, uid);
		reply_rc(c, rc, NULL);
		break;
	case MSG_RESV_UPDATE:
		rc = resv_update(cd, msg, uid, &m);
		reply_rc(c, rc, m);
		break;
	case MSG_RESV_INFO_REQ:
		resv_info_reply(cd, c, msg);
		break;
	case MSG_HEALTH_CHECK:
		rc = node_health_request(cd, msg, uid, &m);
		reply_rc(c, rc, m);
		break;
	case MSG_NODE_REGISTER:
	case MSG_NODE_HEARTBEAT:
		if (!is_admin(cd, uid)) {
			reply_rc(c, ESLURM_ACCESS_DENIED, NULL);
			break;
		}
		rc = node_register(cd, c, msg, type == MSG_NODE_HEARTBEAT);
		if (type == MSG_NODE_REGISTER || rc)
			reply_rc(c, rc, NULL);
		break;
	case MSG_RECONFIGURE:
		if (!is_super(cd, uid)) {
			reply_rc(c, ESLURM_ACCESS_DENIED, NULL);
			break;
		}
		info("reconfigure requested by uid %u", uid);
		rc = ctld_reconfigure(cd, &m);
		if (rc)
			error("reconfigure refused, running config kept:\n%s", m);
		reply_rc(c, rc, m);
		break;
	case MSG_SET_DEBUG:
		/* Slurm answers a user who may not with EACCES ("Permission
		 * denied") */
		if (!is_super(cd, uid)) {
			reply_rc(c, EACCES, NULL);
			break;
		}
		log_set_level((enum log_level)(((const msg_set_debug_t *)msg)->level > LOG_LVL_DEBUG2 ?
			LOG_LVL_DEBUG2 : ((const msg_set_debug_t *)msg)->level));
		info("debug level set to %u by uid %u", ((const msg_set_debug_t *)msg)->level, uid);
		reply_rc(c, 0, NULL);
		break;
	case MSG_SHUTDOWN:
		if (!is_super(cd, uid)) {
			reply_rc(c, ESLURM_ACCESS_DENIED, NULL);
			break;
		}
		info("shutdown requested by uid %u", uid);
		cd->shutdown = 1;
		reply_rc(c, 0, NULL);
		break;
	case MSG_PRIO_INFO_REQ:
		rpc_prio_info(cd, c, msg, uid);
		break;
	case MSG_STATS_REQ:
		rpc_stats_info(cd, c, msg, uid);
		break;
	case MSG_ACCT_REQ:
		acct_rpc(cd, c, msg, uid);
		break;
	default:
		reply_rc(c, SLUICE_E_PROTOCOL, xasprintf("unexpected message %s", proto_name(type)));
		break;
	}
	turn_request(cd, 0);
	ctld_stats_rpc(cd, &mark, uid);
}

void rpc_on_close(conn_t *c, void *arg)
{
	ctld_t *cd = arg;
	size_t k = 0;
	for (size_t i = 0; i < cd->nwaiters; i++)
		if (cd->waiters[i].c != c)
			cd->waiters[k++] = cd->waiters[i];
	cd->nwaiters = k;
	turn_conn_closed(cd, c);
	node_conn_closed(cd, c);
	acct_rpc_conn_closed(cd, c);
}
