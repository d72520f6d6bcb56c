/*
 * turn.c: what one loop turn's requests did, until the commit that makes
 * it durable.
 *
 * "Failed" must mean "did not happen": a request whose reply is the
 * store's error (ctld_main.c, store_check) must leave no trace once the
 * store works again. The loop commits the turn's request changes before
 * its scheduling pass, so nothing is scheduled from an uncommitted
 * request; if that commit fails, turn_failed puts back every job a
 * client's request changed as its committed row says (one it created
 * has no row and is forgotten), and drops the node-bound messages those
 * requests queued. Changes that are facts (a node's registration, a
 * timer's timeout, a scheduling pass) are kept and committed on retry.
 *
 * The same holds for the other records a request changes and the store
 * keeps: nodes and partitions (scontrol update) are put back from their
 * rows, reservations by resv_undo, the accounting model (sacctmgr) by
 * acct_reload; each notes what a request changed where it marks it for
 * the store. An answer to a waiting srun/salloc/sbatch --wait announces a
 * change too (the job started or ended): if the turn that gave it is not
 * committed, it is taken back, the waiter waits again and is answered
 * after the next commit, as the job then is (turn_hold_replies).
 *
 * Messages to node daemons that announce a change (a launch, a signal, a
 * requeue's fence ping) wait here for the commit that makes their change
 * durable, whatever made them; they are encoded now and sent (signed
 * afresh, to the node's connection then) after it. Liveness (heartbeat
 * answers, registration replies, pings) goes out directly, so running
 * jobs keep their leases while the store fails.
 *
 * This file keeps the books (what was noted, the outbox, the waiters'
 * answers) and calls no module by name: putting records back is asked of
 * cd->turn_ops (turn_undo.c, set by ctld_main), so that the modules that
 * note their changes here do not loop back through it.
 */
#include <stdlib.h>
#include <string.h>

#include "ctld/ctld.h"

#include "log.h"
#include "strbuf.h"
#include "xalloc.h"

struct outbox_msg {
	char *node;               /* its name (a reconfigure may renumber) */
	enum msg_type type;
	int from_request;         /* queued by a client's request this turn */
	char *body;               /* proto_encode of the message */
	size_t len;
};

void turn_request(ctld_t *cd, int on)
{
	cd->in_request = on;
}

void turn_job_changed(ctld_t *cd, job_t *j)
{
	if (!cd->in_request || j->turn_req)
		return;
	j->turn_req = 1;
	cd->turn_jobs = xgrow(cd->turn_jobs, sizeof(uint32_t), cd->nturn_jobs + 1, &cd->aturn_jobs);
	cd->turn_jobs[cd->nturn_jobs++] = j->job_id;
}

void turn_node_changed(ctld_t *cd, node_t *n)
{
	if (!cd->in_request || n->turn_req)
		return;
	n->turn_req = 1;
	cd->turn_nodes = xgrow(cd->turn_nodes, sizeof(uint32_t), cd->nturn_nodes + 1, &cd->aturn_nodes);
	cd->turn_nodes[cd->nturn_nodes++] = n->idx;
}

void turn_part_changed(ctld_t *cd, part_t *p)
{
	if (!cd->in_request || p->turn_req)
		return;
	p->turn_req = 1;
	cd->turn_parts = xgrow(cd->turn_parts, sizeof(uint32_t), cd->nturn_parts + 1, &cd->aturn_parts);
	cd->turn_parts[cd->nturn_parts++] = (uint32_t)(p - cd->parts);
}

void turn_acct_changed(ctld_t *cd)
{
	if (cd->in_request)
		cd->turn_acct = 1;
}

void turn_waiter_answered(ctld_t *cd, const waiter_t *w)
{
	cd->turn_waiters = xgrow(cd->turn_waiters, sizeof(*w), cd->nturn_waiters + 1, &cd->aturn_waiters);
	cd->turn_waiters[cd->nturn_waiters++] = *w;
}

void turn_hold_replies(ctld_t *cd)
{
	/* A waiter's conn carries nothing else since the last flush: its
	 * request was answered before it waited (srun, salloc, sbatch
	 * wait on a conn of their own), so all its held output is the
	 * answer. */
	for (size_t i = 0; i < cd->nturn_waiters; i++) {
		waiter_t *w = &cd->turn_waiters[i];
		conn_drop_held(w->c);
		cd->waiters = xgrow(cd->waiters, sizeof(waiter_t), cd->nwaiters + 1, &cd->awaiters);
		cd->waiters[cd->nwaiters++] = *w;
		cd->held_waits = xgrow(cd->held_waits, sizeof(uint32_t), cd->nheld_waits + 1,
				       &cd->aheld_waits);
		cd->held_waits[cd->nheld_waits++] = w->job_id;
	}
	cd->nturn_waiters = 0;
}

void turn_conn_closed(ctld_t *cd, conn_t *c)
{
	size_t k = 0;
	for (size_t i = 0; i < cd->nturn_waiters; i++)
		if (cd->turn_waiters[i].c != c)
			cd->turn_waiters[k++] = cd->turn_waiters[i];
	cd->nturn_waiters = k;
}

void outbox_send(ctld_t *cd, node_t *n, enum msg_type type, const void *msg)
{
	if (!n->conn)
		return;
	cd->outbox = xgrow(cd->outbox, sizeof(*cd->outbox), cd->noutbox + 1, &cd->aoutbox);
	struct outbox_msg *m = &cd->outbox[cd->noutbox++];
	strbuf_t sb = STRBUF_INIT;
	proto_encode(type, msg, &sb);
	m->node = xstrdup(n->cf->name);
	m->type = type;
	m->from_request = cd->in_request;
	m->len = sb.len;
	m->body = strbuf_detach(&sb);
}

/* Send (send set) or drop outbox message m. */
static void outbox_take(ctld_t *cd, struct outbox_msg *m, int send)
{
	long idx = send ? conf_node_find(cd->conf, m->node) : -1;
	node_t *n = idx >= 0 && (uint32_t)idx < cd->nnodes ? &cd->nodes[idx] : NULL;
	if (n && n->conn) {
		void *msg = xcalloc(1, proto_size(m->type));
		char *err = NULL;
		if (proto_decode(m->type, msg, m->body, m->len, &err))
			error("%s for node %s: cannot decode it again: %s", proto_name(m->type), m->node,
			      err ? err : "?");
		else
			conn_send(n->conn, m->type, msg);
		proto_free(m->type, msg);
		free(msg);
		free(err);
	}
	free(m->node);
	free(m->body);
}

/* The turn's requests are settled (committed, or undone). */
static void turn_forget(ctld_t *cd)
{
	if (cd->turn_ops)
		cd->turn_ops->settle(cd);
	cd->nturn_jobs = 0;
	/* a reconfigure may have swapped the records: their marks are 0 */
	for (size_t i = 0; i < cd->nturn_nodes; i++)
		if (cd->turn_nodes[i] < cd->nnodes)
			cd->nodes[cd->turn_nodes[i]].turn_req = 0;
	cd->nturn_nodes = 0;
	for (size_t i = 0; i < cd->nturn_parts; i++)
		if (cd->turn_parts[i] < cd->nparts)
			cd->parts[cd->turn_parts[i]].turn_req = 0;
	cd->nturn_parts = 0;
	cd->turn_acct = 0;
}

void turn_committed(ctld_t *cd)
{
	for (size_t i = 0; i < cd->noutbox; i++)
		outbox_take(cd, &cd->outbox[i], 1);
	cd->noutbox = 0;
	turn_forget(cd);
	/* The answers given so far are committed; those taken back are
	 * given again, as the jobs now are (committed too). */
	cd->nturn_waiters = 0;
	size_t n = cd->nheld_waits;
	cd->nheld_waits = 0;
	for (size_t i = 0; i < n && cd->turn_ops; i++)
		cd->turn_ops->wake(cd, cd->held_waits[i]);
	cd->nturn_waiters = 0;
}

void turn_failed(ctld_t *cd, int undo)
{
	if (undo && cd->turn_ops)
		cd->turn_ops->undo(cd);
	size_t k = 0;
	for (size_t i = 0; i < cd->noutbox; i++) {
		if (undo && cd->outbox[i].from_request)
			outbox_take(cd, &cd->outbox[i], 0);
		else
			cd->outbox[k++] = cd->outbox[i];
	}
	cd->noutbox = k;
	turn_forget(cd);
	turn_hold_replies(cd);
}
