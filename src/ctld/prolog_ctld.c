/*
 * prolog_ctld: what the controller does when a node's Prolog or Epilog
 * failed (docs/node-operations.md, "Prolog and epilog").
 *
 * The batch supervisor reports the job's end with msg_job_complete_t.rc
 * set to ESLURMD_PROLOG_FAILED (the Prolog failed or timed out: the job
 * never ran) or ESLURMD_EPILOG_FAILED (the Epilog failed after it ran).
 * As Slurm 22.05 does: a Prolog failure drains the node with reason
 * "Prolog error" and requeues the job held (JobHeldUser, shown as
 * "launch failed requeued held"; SchedulerParameters=nohold_on_prolog_fail
 * requeues it without the hold); an Epilog failure drains the node with
 * reason "Epilog error" and leaves the job's end as it was. The drain is
 * recorded as set by SlurmUser.
 */
#include <stdlib.h>
#include <string.h>

#include "ctld/ctld.h"
#include "errors.h"
#include "log.h"
#include "states.h"
#include "xalloc.h"

const char *const job_launch_failed_desc = "launch failed requeued held";

void node_drain_by_slurm(ctld_t *cd, const char *name, const char *reason)
{
	long idx = name ? conf_node_find(cd->conf, name) : -1;
	if (idx < 0 || (uint32_t)idx >= cd->nnodes)
		return;
	node_t *n = &cd->nodes[idx];
	/* Slurm leaves a node that is already drained (by a person or an
	 * earlier failure) with the reason it has. */
	if (n->flags & (NODE_FLAG_DRAIN | NODE_FLAG_FAIL))
		return;
	int64_t now = ctld_now();
	n->flags |= NODE_FLAG_DRAIN;
	free(n->reason);
	n->reason = xstrdup(reason);
	n->reason_uid = cd->slurm_uid;
	n->reason_time = now;
	node_dirty(cd, n);
	node_sync_sched(cd, n);
	cd->last_node_update = now;
	error("node %s drained: %s", n->cf->name, reason);
	ctld_sched_request(cd);
}

static int nohold_on_prolog_fail(const ctld_t *cd)
{
	const char *sp = cd->conf->scheduler_parameters;
	return sp && strstr(sp, "nohold_on_prolog_fail") != NULL;
}

int job_node_error(ctld_t *cd, job_t *j, const msg_job_complete_t *m)
{
	if (m->rc == ESLURMD_EPILOG_FAILED) {
		error("job %u: epilog error on %s, draining the node", j->job_id,
		      m->node ? m->node : "?");
		node_drain_by_slurm(cd, m->node, "Epilog error");
		return 0;
	}
	if (m->rc != ESLURMD_PROLOG_FAILED)
		return 0;
	error("job %u: prolog error on %s, draining the node and requeueing the job", j->job_id,
	      m->node ? m->node : "?");
	node_drain_by_slurm(cd, m->node, "Prolog error");
	int64_t now = ctld_now();
	job_requeue_restart(cd, j, now);
	if (!nohold_on_prolog_fail(cd)) {
		j->hold = WAIT_HELD_USER;
		j->reason = WAIT_HELD_USER;
		j->priority = 0;
		free(j->reason_detail);
		j->reason_detail = xstrdup(job_launch_failed_desc);
	}
	job_dirty(cd, j);
	ctld_sched_request(cd);
	return 1;
}
