/*
 * turn_undo.c: putting back what a failed turn's requests changed, as
 * committed (turn.c keeps the books and calls this through turn_undo_ops):
 * each job a request changed from its row (one without a row was created
 * by the request and is forgotten), the nodes and partitions from theirs,
 * the reservations (resv_undo) and the accounting model (acct_reload);
 * and, once the turn is settled, clearing the marks and answering the
 * waiters whose answers were held.
 */
#include <sqlite3.h>

#include "ctld/ctld.h"
#include "ctld/resv.h"

#include "log.h"

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

/* Put back the nodes, partitions, reservations and accounting model the
 * turn's requests changed, as committed. */
static void undo_records(ctld_t *cd)
{
	for (size_t i = 0; i < cd->nturn_nodes; i++) {
		uint32_t x = cd->turn_nodes[i];
		node_t *n = x < cd->nnodes ? &cd->nodes[x] : NULL;
		if (!n || !n->turn_req)
			continue;
		if (db_node_restore(cd, n)) {
			error("node %s: cannot read its committed record; its uncommitted change stays",
			      n->cf->name);
			continue;
		}
		info("node %s: a change to it was not committed; put back as committed", n->cf->name);
		node_sync_sched(cd, n);
		cd->last_node_update = ctld_now();
	}
	for (size_t i = 0; i < cd->nturn_parts; i++) {
		uint32_t x = cd->turn_parts[i];
		part_t *p = x < cd->nparts ? &cd->parts[x] : NULL;
		if (!p || !p->turn_req)
			continue;
		if (db_part_restore(cd, p)) {
			error("partition %s: cannot read its committed record; its uncommitted change stays",
			      p->cf->name);
			continue;
		}
		info("partition %s: a change to it was not committed; put back as committed",
		     p->cf->name);
		part_sync_sched(cd, p);
		cd->last_part_update = ctld_now();
	}
	resv_undo(cd);
	if (cd->turn_acct) {
		if (acct_reload(cd))
			error("accounting: cannot read the committed model; the uncommitted change stays");
		else
			info("accounting: a change was not committed; the model is put back as committed");
	}
	if (cd->nturn_nodes || cd->nturn_parts)
		ctld_sched_request(cd);
}

static void undo(ctld_t *cd)
{
	if (!cd->nturn_jobs && !cd->nturn_nodes && !cd->nturn_parts && !cd->turn_acct &&
	    !resv_turn_noted(cd))
		return;
	/* The rolled back transaction must be gone before rows are read as
	 * committed (db_commit rolls back; once more if that failed). */
	if (!sqlite3_get_autocommit(cd->db))
		sqlite3_exec(cd->db, "ROLLBACK", NULL, NULL, NULL);
	if (!sqlite3_get_autocommit(cd->db)) {
		error("state db: cannot roll back: the failed requests' changes stay in memory");
		return;
	}
	for (size_t i = 0; i < cd->nturn_jobs; i++)
		undo_job(cd, cd->turn_jobs[i]);
	undo_records(cd);
}

/* The turn's requests are settled: their marks go (the lists are
 * emptied by turn.c). */
static void settle(ctld_t *cd)
{
	for (size_t i = 0; i < cd->nturn_jobs; i++) {
		job_t *j = job_find(cd, cd->turn_jobs[i]);
		if (j)
			j->turn_req = 0;
	}
	resv_turn_forget(cd);
}

static void wake(ctld_t *cd, uint32_t job_id)
{
	job_t *j = job_find(cd, job_id);
	if (j)
		jobs_wake_waiters(cd, j);
}

const struct turn_ops turn_undo_ops = { undo, settle, wake };
