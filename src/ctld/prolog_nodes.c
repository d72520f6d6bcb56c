/*
 * prolog_nodes: the controller's side of the node Prolog and Epilog on
 * every node of a job (docs/node-operations.md, "Prolog and epilog";
 * the node's side is src/noded/prolog_node.c).
 *
 * Without PrologFlags=Alloc a node runs the job's Prolog when the job
 * first needs it there (the batch launch, or the job's first srun step
 * on the node), with the job's own variables carried in the launch or in
 * the step's credential. With Alloc (implied by Contain) the controller
 * asks every node of the allocation to run it at once (MSG_LAUNCH_PROLOG)
 * and keeps the job CONFIGURING until each has answered
 * (MSG_PROLOG_COMPLETE): only then is the batch script launched or a
 * waiting srun/salloc answered; with NoHold it does not wait, and a step
 * that reaches a node whose Prolog still runs waits there instead.
 *
 * A node whose Prolog failed (or timed out) is drained "Prolog error" and
 * the job is ended everywhere: a batch job requeued held (as the batch
 * host's failure, prolog_ctld.c), an srun/salloc allocation ended
 * FAILED, which the waiting command reports as its allocation revoked. A
 * node whose Epilog failed is drained "Epilog error".
 *
 * The wait is kept in memory (a bit per node of the allocation): a
 * controller restarted with CONFIGURING jobs asks their nodes again when
 * they register, and each node answers from its record of the run.
 * Cost: one message per node at the start, one answer each, and a
 * registration looks at the CONFIGURING jobs once.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/ctld.h"
#include "errors.h"
#include "log.h"
#include "xalloc.h"

int prolog_nodes_configured(const ctld_t *cd)
{
	return (cd->conf->prolog && *cd->conf->prolog) || (cd->conf->epilog && *cd->conf->epilog);
}

/* Alloc (or Contain, which implies it), with a script to run. */
static int alloc_mode(const ctld_t *cd)
{
	return prolog_nodes_configured(cd) && (conf_prolog_flag(cd->conf, "Alloc") || conf_prolog_contain(cd->conf));
}

/* The names a node's Prolog gets of the job's variables (the node daemon
 * keeps only these too: noded/prolog.c). */
static int prolog_name(const char *kv)
{
	static const char *const names[] = {
		"SLURM_JOB_", "SLURM_JOBID=", "SLURM_NODELIST=", "SLURM_CLUSTER_NAME=",
		"SLURM_CONF=", "CUDA_VISIBLE_DEVICES=", "GPU_DEVICE_ORDINAL=",
		"SLURM_ARRAY_JOB_ID=", "SLURM_ARRAY_TASK_ID=", "SLURM_RESTART_COUNT=",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(kv, names[i], strlen(names[i])))
			return 1;
	return 0;
}

strv_t prolog_nodes_env(ctld_t *cd, job_t *j)
{
	uint32_t n = 0;
	char **e = job_build_env(cd, j, NULL, &n);
	strv_t out = { NULL, 0 };
	for (uint32_t i = 0; i < n; i++)
		if (prolog_name(e[i]))
			strv_push(&out, e[i]);
	strv_t all = { e, n };
	strv_free(&all);
	return out;
}

static void send_prolog(ctld_t *cd, job_t *j, node_t *n, const strv_t *env)
{
	if (!n->conn)
		return;        /* asked again when it registers */
	msg_launch_prolog_t m = { .job_id = j->job_id, .launch_seq = j->prolog_seq,
				  .prolog_env = *env };
	outbox_send(cd, n, MSG_LAUNCH_PROLOG, &m);
}

static void wait_set(job_t *j)
{
	uint32_t words = (j->alloc.nnodes + 63) / 64;
	free(j->prolog_wait);
	j->prolog_wait = xcalloc(words ? words : 1, sizeof(uint64_t));
	for (uint32_t i = 0; i < j->alloc.nnodes; i++)
		j->prolog_wait[i / 64] |= 1ull << (i % 64);
}

int prolog_nodes_start(ctld_t *cd, job_t *j)
{
	xfree(j->prolog_wait);
	if (!alloc_mode(cd) || !j->alloc.nnodes)
		return 0;
	/* a number of this run, so an answer for an earlier one is known */
	j->prolog_seq = ++j->launch_seq;
	job_dirty(cd, j);
	strv_t env = prolog_nodes_env(cd, j);
	for (uint32_t i = 0; i < j->alloc.nnodes; i++)
		send_prolog(cd, j, &cd->nodes[j->alloc.nodes[i]], &env);
	strv_free(&env);
	if (conf_prolog_flag(cd->conf, "NoHold") && !conf_prolog_contain(cd->conf))
		return 0;      /* the steps wait on the nodes instead */
	wait_set(j);
	j->state |= JOB_CONFIGURING;
	j->reason = WAIT_PROLOG;   /* scontrol show job: Reason=Prolog, as Slurm */
	job_dirty(cd, j);
	debug("job %u: waiting for the prolog of %u node(s)", j->job_id, j->alloc.nnodes);
	return 1;
}

void prolog_nodes_registered(ctld_t *cd, node_t *n)
{
	strv_t env = { NULL, 0 };
	for (size_t k = 0; k < cd->njobs; k++) {
		job_t *j = cd->jobs[k];
		if (!j->prolog_wait || !(j->state & JOB_CONFIGURING) ||
		    (j->state & JOB_STATE_BASE) != JOB_RUNNING)
			continue;
		for (uint32_t i = 0; i < j->alloc.nnodes; i++) {
			if (j->alloc.nodes[i] != n->idx ||
			    !(j->prolog_wait[i / 64] & (1ull << (i % 64))))
				continue;
			env = prolog_nodes_env(cd, j);
			send_prolog(cd, j, n, &env);
			strv_free(&env);
			break;
		}
	}
}

void prolog_nodes_recover(ctld_t *cd)
{
	if (!alloc_mode(cd) || (conf_prolog_flag(cd->conf, "NoHold") && !conf_prolog_contain(cd->conf)))
		return;
	for (size_t k = 0; k < cd->njobs; k++) {
		job_t *j = cd->jobs[k];
		if ((j->state & JOB_STATE_BASE) != JOB_RUNNING || !(j->state & JOB_CONFIGURING) ||
		    j->prolog_wait || !j->alloc.nnodes)
			continue;
		/* its nodes answer again from their records as they register */
		j->prolog_seq = j->launch_seq;
		wait_set(j);
		info("job %u: waiting again for the prolog of its nodes", j->job_id);
		/* those registered already are asked now, the others when
		 * they register */
		strv_t env = prolog_nodes_env(cd, j);
		for (uint32_t i = 0; i < j->alloc.nnodes; i++)
			send_prolog(cd, j, &cd->nodes[j->alloc.nodes[i]], &env);
		strv_free(&env);
	}
}

void job_configured(ctld_t *cd, job_t *j)
{
	j->state &= ~JOB_CONFIGURING;
	if (j->reason == WAIT_PROLOG)
		j->reason = WAIT_NO_REASON;
	job_dirty(cd, j);
	cd->last_job_update = ctld_now();
	if (j->desc->flags & JOB_F_INTERACTIVE) {
		jobs_wake_waiters(cd, j);
	} else if (job_launch(cd, j)) {
		info("job %u: batch host %s not connected; requeued", j->job_id,
		     cd->nodes[j->alloc.nodes[0]].cf->name);
		job_requeue(cd, j);
	}
}

void job_prolog_failed(ctld_t *cd, job_t *j, const char *node)
{
	xfree(j->prolog_wait);
	if (j->reason == WAIT_PROLOG)
		j->reason = WAIT_NO_REASON;
	/* its other nodes end it too (their Epilog runs) */
	job_signal_nodes(cd, j, SIGKILL, SIGNAL_F_KILL_JOB, JOB_CANCELLED);
	if (j->desc->flags & JOB_F_INTERACTIVE) {
		info("job %u: prolog failed on %s: allocation ended", j->job_id, node);
		job_end(cd, j, JOB_FAILED, 1 << 8, ctld_now());
		job_release(cd, j);
		return;
	}
	job_requeue_held(cd, j);
}

int prolog_nodes_complete(ctld_t *cd, const msg_prolog_complete_t *m, uint32_t uid)
{
	if (!is_admin(cd, uid))
		return ESLURM_ACCESS_DENIED;
	long idx = m->node ? conf_node_find(cd->conf, m->node) : -1;
	if (idx < 0 || (uint32_t)idx >= cd->nnodes)
		return ESLURM_INVALID_NODE_NAME;
	if (m->flags & PROLOG_F_EPILOG) {
		if (m->rc) {
			error("job %u: epilog error on %s, draining the node", m->job_id, m->node);
			node_drain_by_slurm(cd, m->node, "Epilog error");
		}
		return 0;
	}
	if (m->rc) {
		error("job %u: prolog error on %s, draining the node", m->job_id, m->node);
		node_drain_by_slurm(cd, m->node, "Prolog error");
	}
	job_t *j = job_find(cd, m->job_id);
	if (!j)
		return ESLURM_INVALID_JOB_ID;
	/* for this run of it (a step's prolog: launch_seq 0, the current) */
	if ((j->state & JOB_STATE_BASE) != JOB_RUNNING || (m->launch_seq && m->launch_seq != j->prolog_seq))
		return 0;
	if (m->rc) {
		job_prolog_failed(cd, j, m->node);
		return 0;
	}
	if (!j->prolog_wait || m->launch_seq != j->prolog_seq)
		return 0;
	int left = 0;
	for (uint32_t i = 0; i < j->alloc.nnodes; i++) {
		if (j->alloc.nodes[i] == (uint32_t)idx)
			j->prolog_wait[i / 64] &= ~(1ull << (i % 64));
		left |= (j->prolog_wait[i / 64] & (1ull << (i % 64))) != 0;
	}
	if (left)
		return 0;
	xfree(j->prolog_wait);
	debug("job %u: prolog done on all its nodes", j->job_id);
	if ((j->state & JOB_CONFIGURING) && !prolog_ctld_running(j->job_id))
		job_configured(cd, j);
	return 0;
}
