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
 * Messages to node daemons that announce a change (a launch, a signal, a
 * requeue's fence ping) wait here for the commit that makes their change
 * durable, whatever made them; they are encoded now and sent (signed
 * afresh, to the node's connection then) after it. Liveness (heartbeat
 * answers, registration replies, pings) goes out directly, so running
 * jobs keep their leases while the store fails.
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
	for (size_t i = 0; i < cd->nturn_jobs; i++) {
		job_t *j = job_find(cd, cd->turn_jobs[i]);
		if (j)
			j->turn_req = 0;
	}
	cd->nturn_jobs = 0;
}

void turn_committed(ctld_t *cd)
{
	for (size_t i = 0; i < cd->noutbox; i++)
		outbox_take(cd, &cd->outbox[i], 1);
	cd->noutbox = 0;
	turn_forget(cd);
}

/* Put job id back as committed: its row, or nothing if it has none. */
static void undo_job(ctld_t *cd, uint32_t id)
{
	job_t *j = job_find(cd, id);
	if (!j)
		return;
	job_t *f = NULL;
	int rc = db_job_read(cd, id, &f);
	if (rc < 0) {
		error("job %u: cannot read its committed record; its uncommitted change stays", id);
		return;
	}
	if (rc > 0) {
		info("job %u: its submission was not committed; forgotten", id);
		job_forget(cd, j);
		return;
	}
	info("job %u: a change to it was not committed; put back as committed", id);
	job_replace(cd, j, f);
}

void turn_failed(ctld_t *cd, int undo)
{
	if (undo && cd->nturn_jobs) {
		/* The rolled back transaction must be gone before rows are
		 * read as committed (db_commit rolls back; once more if that
		 * failed). */
		if (!sqlite3_get_autocommit(cd->db))
			sqlite3_exec(cd->db, "ROLLBACK", NULL, NULL, NULL);
		if (sqlite3_get_autocommit(cd->db)) {
			for (size_t i = 0; i < cd->nturn_jobs; i++)
				undo_job(cd, cd->turn_jobs[i]);
		} else {
			error("state db: cannot roll back: the failed requests' changes stay in memory");
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < cd->noutbox; i++) {
		if (undo && cd->outbox[i].from_request)
			outbox_take(cd, &cd->outbox[i], 0);
		else
			cd->outbox[k++] = cd->outbox[i];
	}
	cd->noutbox = k;
	turn_forget(cd);
}
