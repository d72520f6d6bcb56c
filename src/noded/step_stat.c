/*
 * step_stat: sstat's request to a node daemon (MSG_STEP_STAT, on the step
 * port): the live usage of a job's steps running on this node.
 *
 * The request carries a stat credential signed by the controller (cred.h,
 * cred_stat_digest), which the controller gives only to the job's owner,
 * operators and administrators; the frame itself may be unsigned (a user's
 * sstat cannot sign with auth/slurm), as a step launch. The credential
 * must name this job and this node and be unexpired.
 *
 * Each step's supervisor keeps its figures so far in <dir>/usage
 * (jobacct_save); here they are loaded and one more sample of the tasks
 * still running is taken right now (jobacct_sample, walking only the
 * job's own process trees), so sstat shows what the tasks use at this
 * moment, as Slurm's slurmstepd polls on a stat request. A step whose
 * supervisor has finished (its record is done) is not running any more
 * and is left out. Cost: one pass over the spool directory (the
 * supervisors of this node) and one sample of the job's processes.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "cred.h"
#include "errors.h"
#include "hostlist.h"
#include "jobacct.h"
#include "jobid.h"
#include "log.h"
#include "noded.h"
#include "xalloc.h"

/* Most processes one answer samples, over all the job's steps here: past
 * it the figures are the supervisors' last samples (the node daemon's loop
 * must not walk a huge process tree per request). */
#define STAT_MAX_VISIT 20000

typedef struct stat_ctx {
	noded_t *nd;
	int64_t budget;
	uint32_t job_id, step_id;
	jobacct_conf_t jc;
	msg_step_stat_reply_t *r;
	uint32_t cap_steps, cap_tasks;
} stat_ctx_t;

static void add_step(const char *dir, const spool_rec_t *rec, void *arg)
{
	stat_ctx_t *x = arg;
	if (!rec || rec->done || rec->job_id != x->job_id || !spool_rec_alive(rec))
		return;
	const char *base = strrchr(dir, '/');
	base = base ? base + 1 : dir;
	uint32_t step = strncmp(base, "job", 3) ? rec->step_id : STEP_BATCH;
	if (x->step_id != STEP_ALL && step != x->step_id)
		return;
	jobacct_t *ja = jobacct_load(&x->jc, dir, NULL);
	if (!ja)
		return;               /* starting: its tasks are not there yet */
	strbuf_t pids = STRBUF_INIT;
	ja->pids = &pids;
	ja->visit_budget = &x->budget;
	jobacct_sample(ja, 0);
	ja->pids = NULL;
	ja->visit_budget = NULL;
	if (pids.len)
		strbuf_setlen(&pids, pids.len - 1);    /* the last ',' */
	msg_step_stat_reply_t *r = x->r;
	if (r->nsteps == x->cap_steps) {
		x->cap_steps = x->cap_steps ? 2 * x->cap_steps : 4;
		r->steps = xrealloc(r->steps, x->cap_steps * sizeof(*r->steps));
	}
	r->steps[r->nsteps++] = (stat_step_t){ .step_id = step, .pids = strbuf_detach(&pids) };
	for (uint32_t i = 0; i < ja->n; i++) {
		const task_usage_t *u = &ja->t[i].u;
		if (r->ntasks == x->cap_tasks) {
			x->cap_tasks = x->cap_tasks ? 2 * x->cap_tasks : 16;
			r->tasks = xrealloc(r->tasks, x->cap_tasks * sizeof(*r->tasks));
		}
		r->tasks[r->ntasks++] = (stat_task_t){
			.step_id = step, .rank = ja->t[i].rank, .rss_kb = u->rss_kb,
			.vmsize_kb = u->vmsize_kb, .pages = u->pages,
			.cpu_us = u->user_cpu_us + u->sys_cpu_us,
			.disk_read = u->disk_read, .disk_write = u->disk_write };
	}
	jobacct_free(ja);
}

void step_stat_handle(noded_t *nd, conn_t *c, const msg_step_stat_t *m, uint32_t uid)
{
	cred_t cr;
	memset(&cr, 0, sizeof(cr));
	char *err = NULL, digest[CRED_DIGEST_HEX + 1];
	const char *why = NULL;
	cred_stat_digest(digest);
	if (!m->cred || cred_verify(nd->auth, m->cred, nd->slurm_uid, time(NULL), &cr, &err) < 0) {
		char *t = xasprintf("invalid job credential: %s", err ? err : "missing");
		error("stat of job %u from %s: %s", m->job_id, conn_peer(c), t);
		conn_send_rc(c, ESLURM_USER_ID_MISSING, t);
		free(t);
		free(err);
		return;
	}
	hostlist_t *hl = hostlist_create(cr.nodes, NULL);
	if (strcmp(cr.digest, digest))
		why = "not a stat credential";
	else if (cr.job_id != m->job_id)
		why = "credential is for another job";
	else if (!hl || hostlist_find(hl, nd->name) < 0)
		why = "this node is not in the credential";
	hostlist_destroy(hl);
	if (why) {
		error("stat of job %u from %s: %s", m->job_id, conn_peer(c), why);
		conn_send_rc(c, ESLURM_USER_ID_MISSING, why);
		cred_release(&cr);
		return;
	}
	cred_release(&cr);
	msg_step_stat_reply_t r = { .node = xstrdup(nd->name) };
	stat_ctx_t x = { .nd = nd, .budget = STAT_MAX_VISIT, .job_id = m->job_id,
			 .step_id = m->step_id, .r = &r };
	jobacct_conf_from(nd->conf, &x.jc);
	spool_scan(nd->spool, add_step, &x);
	conn_send(c, MSG_STEP_STAT_REPLY, &r);
	proto_free(MSG_STEP_STAT_REPLY, &r);
}
