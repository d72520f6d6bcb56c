/* Unit tests for src/ctld/turn.c: what a loop turn's requests changed is
 * put back as committed when their commit fails (a submission forgotten,
 * a hold, an update and a cancel undone), what did not come from a
 * request is kept for the retry, and the node-bound messages the
 * requests queued are dropped while the others wait for a commit. */
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "ctld_fixture.h"
#include "errors.h"
#include "tap.h"
#include "timefmt.h"

static char dir[] = "/tmp/test_turn.XXXXXX";

static uint32_t submit(ctld_t *cd, const char *name)
{
	job_desc_t *d = xcalloc(1, sizeof(*d));
	d->script = xstrdup("#!/bin/sh\ntrue\n");
	d->work_dir = xstrdup("/tmp");
	d->time_limit = TIME_NO_VAL;
	d->name = xstrdup(name);
	uint32_t id = 0;
	char *msg = NULL;
	int rc = job_submit(cd, d, 0, 0, &id, &msg);
	free(msg);
	if (rc) {
		proto_free(MSG_SUBMIT, d);
		free(d);
	}
	return id;
}

static int rows(ctld_t *cd, uint32_t id)
{
	sqlite3_stmt *st = NULL;
	int n = -1;
	if (sqlite3_prepare_v2(cd->db, "SELECT count(*) FROM jobs WHERE job_id = ?1", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return n;
}

/* Writes fail from now on (as on a full disk), or work again. */
static void store_fails(ctld_t *cd, int on)
{
	sqlite3_exec(cd->db, on ? "PRAGMA query_only=1" : "PRAGMA query_only=0", NULL, NULL, NULL);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	(void)fixture_job;
	ctld_t *cd = fixture_ctld(dir, 2, NULL);
	char *err = NULL;
	char *dbp = xasprintf("%s/sluice.db", dir);
	if (db_open(cd, dbp, &err)) {
		printf("Bail out! %s\n", err);
		return 1;
	}

	/* committed: a, b, c pending */
	turn_request(cd, 1);
	uint32_t a = submit(cd, "alpha"), b = submit(cd, "beta"), c = submit(cd, "gamma");
	turn_request(cd, 0);
	is_int(db_commit(cd), 0, "first turn committed");
	turn_committed(cd);
	ok(a && b && c && cd->njobs == 3, "three jobs");

	/* The next turn's requests: a held, b cancelled, c renamed, d
	 * submitted; a timer's change to c (not a request) too. */
	store_fails(cd, 1);
	turn_request(cd, 1);
	is_int(job_control(cd, job_find(cd, a), "hold", 0, 1), 0, "hold a");
	is_int(job_cancel(cd, b, 0, 0, 0), 0, "cancel b");
	char *k[] = { (char *)"Name" }, *v[] = { (char *)"renamed" };
	msg_update_job_t u = { .job_id = c, .keys = { k, 1 }, .values = { v, 1 } };
	is_int(job_update(cd, &u, 0), 0, "rename c");
	uint32_t d = submit(cd, "delta");
	ok(d != 0, "d submitted");
	/* what the requests sent a node, and what a timer sent */
	node_t *n = &cd->nodes[0];
	n->conn = (conn_t *)n;          /* never sent to: see below */
	msg_signal_job_t sig = { .job_id = a, .signal = SIGTERM };
	outbox_send(cd, n, MSG_SIGNAL_JOB, &sig);
	turn_request(cd, 0);
	outbox_send(cd, n, MSG_SIGNAL_JOB, &sig);
	job_t *ja = job_find(cd, a);
	ok(ja->hold && job_find(cd, b)->state == JOB_CANCELLED, "in memory: a held, b cancelled");
	ok(!strcmp(job_find(cd, c)->desc->name, "renamed"), "in memory: c renamed");
	is_int(cd->noutbox, 2, "two messages wait for the commit");

	ok(db_commit(cd) != 0, "the commit fails");
	turn_failed(cd, 1);
	ok(job_find(cd, d) == NULL, "the failed submission is forgotten");
	is_int(cd->njobs, 3, "three jobs again");
	ja = job_find(cd, a);
	ok(ja && !ja->hold && ja->state == JOB_PENDING, "the hold is undone");
	ok(job_find(cd, b) && job_find(cd, b)->state == JOB_PENDING, "the cancel is undone");
	ok(job_find(cd, c) && !strcmp(job_find(cd, c)->desc->name, "gamma"), "the rename is undone");
	ok(cd->jobs[0] == job_find(cd, a) && cd->jobs[1] == job_find(cd, b) &&
	   cd->jobs[2] == job_find(cd, c), "the id list holds the put back records");
	is_int(cd->ndirty_jobs, 0, "nothing of theirs left to write");
	is_int(cd->noutbox, 1, "the requests' message dropped, the timer's kept");

	/* a change that did not come from a request is kept for the retry */
	job_t *jc = job_find(cd, c);
	jc->priority = 4242;
	job_dirty(cd, jc);
	ok(db_commit(cd) != 0, "still failing");
	turn_failed(cd, 0);
	is_int(job_find(cd, c)->priority, 4242, "a non-request change stays");
	store_fails(cd, 0);
	n->conn = NULL;                 /* the kept message finds no link */
	is_int(db_commit(cd), 0, "the retry commits");
	turn_committed(cd);
	is_int(cd->noutbox, 0, "the outbox is empty after a commit");
	is_int(rows(cd, d), 0, "no row of the failed submission");
	is_int(rows(cd, a), 1, "a's row stays");

	/* the put back jobs work as any: hold, commit, a restart's view */
	turn_request(cd, 1);
	is_int(job_control(cd, job_find(cd, a), "hold", 0, 1), 0, "hold a again");
	turn_request(cd, 0);
	is_int(db_commit(cd), 0, "committed");
	turn_committed(cd);
	job_t *f = NULL;
	is_int(db_job_read(cd, a, &f), 0, "a read back");
	ok(f && f->hold, "the committed hold is in the DB");
	if (f) {                        /* never linked: its strings are its own */
		proto_free(MSG_SUBMIT, f->desc);
		free(f->desc);
		f->desc = NULL;
		job_free(f);
	}
	f = NULL;
	is_int(db_job_read(cd, d, &f), 1, "no record of d");

	db_close(cd);
	char *cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd)) {}
	free(cmd);
	free(dbp);
	done_testing();
}
