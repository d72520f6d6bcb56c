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
#include "ctld/resv.h"
#include "resv_spec.h"
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

static int count(ctld_t *cd, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int n = -1;
	if (sqlite3_prepare_v2(cd->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* scontrol create reservation with the words of line (as typed). */
static int resv_create_line(ctld_t *cd, char *line)
{
	char *argv[16], *save = NULL;
	int argc = 0;
	for (char *t = strtok_r(line, " ", &save); t && argc < 16; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	msg_resv_update_t m;
	char *err = NULL, *terr = NULL, *msg = NULL;
	int rc = resv_spec_parse(&m, RESV_OP_CREATE, argc, argv, time(NULL), &err, &terr);
	free(err);
	free(terr);
	if (rc)
		return -1;
	rc = resv_update(cd, &m, 0, &msg);
	free(msg);
	proto_free(MSG_RESV_UPDATE, &m);
	return rc;
}

/* sacctmgr -i add account name (as sacctmgr sends it). */
static int add_account(ctld_t *cd, const char *name)
{
	msg_acct_req_t req = { .op = ACCT_OP_MGR };
	char *n = xasprintf("n=%s", name);
	strv_push(&req.args, "verb=add");
	strv_push(&req.args, "entity=account");
	strv_push(&req.args, "commit=1");
	strv_push(&req.args, n);
	free(n);
	msg_acct_reply_t r = { 0 };
	acct_mgr_op(cd, &req, 0, &r);
	int rc = (int)r.rc;
	proto_free(MSG_ACCT_REPLY, &r);
	strv_free(&req.args);
	return rc;
}

/* A turn whose requests change nodes, a partition, a reservation and the
 * accounts fails: each is put back as committed; the next commit writes
 * none of it. */
static void test_records(ctld_t *cd)
{
	char *msg = NULL;
	/* committed: the nodes as registered, n00002 drained ("old"),
	 * defq's MaxTime 60 */
	node_dirty(cd, &cd->nodes[0]);  /* a registration: not a request */
	turn_request(cd, 1);
	msg_update_node_t dn = { .names = (char *)"n00002", .state = (char *)"drain",
				 .reason = (char *)"old" };
	is_int(node_update(cd, &dn, 0, &msg), 0, "n00002 drained");
	char *k[] = { (char *)"MaxTime" }, *v60[] = { (char *)"60" };
	msg_update_part_t up = { .name = (char *)"defq", .keys = { k, 1 }, .values = { v60, 1 } };
	is_int(part_update(cd, &up, 0, &msg), 0, "defq MaxTime=60");
	turn_request(cd, 0);
	is_int(db_commit(cd), 0, "committed");
	turn_committed(cd);

	uint32_t flags1 = cd->nodes[0].flags;
	int usable1 = cd->sched.nodes[0].usable;
	store_fails(cd, 1);
	turn_request(cd, 1);
	msg_update_node_t down = { .names = (char *)"n00001", .state = (char *)"down",
				   .reason = (char *)"bad", .comment = (char *)"c", .weight = 7 };
	is_int(node_update(cd, &down, 0, &msg), 0, "n00001 set down");
	msg_update_node_t res = { .names = (char *)"n00002", .state = (char *)"resume" };
	is_int(node_update(cd, &res, 0, &msg), 0, "n00002 resumed");
	char *v5[] = { (char *)"5" };
	msg_update_part_t up2 = { .name = (char *)"defq", .state = (char *)"down", .keys = { k, 1 },
				  .values = { v5, 1 } };
	is_int(part_update(cd, &up2, 0, &msg), 0, "defq down, MaxTime=5");
	char line[] = "ReservationName=undo StartTime=now Duration=60 Nodes=n00001 Users=root";
	is_int(resv_create_line(cd, line), 0, "reservation created");
	is_int(add_account(cd, "physics"), 0, "account added");
	turn_request(cd, 0);
	node_t *n1 = &cd->nodes[0], *n2 = &cd->nodes[1];
	ok(n1->base == NODE_DOWN && !(n2->flags & NODE_FLAG_DRAIN), "in memory: n00001 down, n00002 up");
	ok(resv_id_of(cd, "undo") != 0 && acct_account_find(cd, "physics"), "in memory: reservation, account");

	ok(db_commit(cd) != 0, "the commit fails");
	turn_failed(cd, 1);
	ok(n1->base == NODE_IDLE && !n1->reason && !n1->comment, "n00001 is up again, no reason or comment");
	is_int(cd->sched.nodes[0].weight, n1->cf->weight, "its weight is the configured one");
	ok(n1->flags == flags1 && cd->sched.nodes[0].usable == usable1,
	   "its flags as before, the scheduler's view too");
	ok((n2->flags & NODE_FLAG_DRAIN) && n2->reason && !strcmp(n2->reason, "old"),
	   "n00002 is drained again, its reason kept");
	ok(!cd->sched.nodes[1].usable, "the scheduler may not use it");
	part_t *p = &cd->parts[0];
	ok(p->state == CONF_PART_UP && p->max_time == 60, "defq up with MaxTime 60 again");
	ok(cd->sched.parts[0].up && cd->sched.parts[0].max_time == 60, "so is the scheduler's copy");
	is_int(resv_id_of(cd, "undo"), 0, "the reservation is gone");
	ok(!acct_account_find(cd, "physics"), "the account is gone");
	ok(acct_account_find(cd, "root") != NULL, "root stays");

	store_fails(cd, 0);
	is_int(db_commit(cd), 0, "the retry commits");
	turn_committed(cd);
	is_int(count(cd, "SELECT count(*) FROM resvs"), 0, "no reservation row");
	is_int(count(cd, "SELECT count(*) FROM acct_account WHERE name='physics'"), 0, "no account row");
	char *q = xasprintf("SELECT count(*) FROM nodes WHERE name='n00002' AND flags & %u AND reason='old'",
			    NODE_FLAG_DRAIN);
	is_int(count(cd, q), 1, "n00002's row still drained");
	free(q);
	is_int(count(cd, "SELECT base FROM nodes WHERE name='n00001'"), NODE_IDLE, "n00001's row up");
	is_int(count(cd, "SELECT max_time FROM parts WHERE name='defq'"), 60, "defq's row as before");

	/* a change made again commits as any */
	turn_request(cd, 1);
	is_int(add_account(cd, "physics"), 0, "account added again");
	char line2[] = "ReservationName=undo StartTime=now Duration=60 Nodes=n00001 Users=root";
	is_int(resv_create_line(cd, line2), 0, "reservation created again");
	turn_request(cd, 0);
	is_int(db_commit(cd), 0, "committed");
	turn_committed(cd);
	is_int(count(cd, "SELECT count(*) FROM acct_account WHERE name='physics'"), 1, "the account row");
	is_int(count(cd, "SELECT count(*) FROM resvs WHERE name='undo'"), 1, "the reservation row");
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
	if (db_open(cd, dbp, &err) || acct_init(cd, &err)) {
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

	test_records(cd);

	db_close(cd);
	char *cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd)) {}
	free(cmd);
	free(dbp);
	done_testing();
}
