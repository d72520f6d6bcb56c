/* Unit tests for advance reservations: the scontrol spec parser
 * (src/lib/resv_spec.c: times, flags, node lists, Slurm's client-side
 * errors), the repeat periods, and the controller's model (src/ctld/resv.c)
 * with its acct_resv rows: updated in place before the start, a closed
 * row and a new one for a change while active, end/deleted on delete,
 * everything recovered from the DB. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctld/resv.h"
#include "ctld_fixture.h"
#include "errors.h"
#include "resv_spec.h"
#include "tap.h"
#include "timefmt.h"

static char dir[] = "/tmp/test_resv.XXXXXX";
/* The first controller of test_model stays reachable when the fixture
 * keeps the second (leak checks report only what is truly lost). */
static ctld_t *volatile first_ctld;

static int parse(msg_resv_update_t *m, uint32_t op, const char *line, time_t now, char **err,
		 char **timerr)
{
	char *dup = xstrdup(line), *save = NULL, *argv[32];
	int argc = 0;
	for (char *t = strtok_r(dup, " ", &save); t && argc < 32; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	int rc = resv_spec_parse(m, op, argc, argv, now, err, timerr);
	free(dup);
	return rc;
}

static void test_spec(void)
{
	msg_resv_update_t m;
	char *err, *terr;
	time_t now = 1700000000;
	ok(!parse(&m, RESV_OP_CREATE, "ReservationName=r StartTime=now+1hour Duration=1-00:30:00 "
		  "Nodes=n[1-4] Users=alice,bob Flags=MAINT,ignore_jobs,Daily PartitionName=defq",
		  now, &err, &terr), "a full spec parses");
	is_str(m.name, "r", "name");
	is_int(m.start_time, now + 3600, "now+1hour");
	is_int(m.duration, 24 * 60 + 30, "duration in minutes");
	is_str(m.nodes, "n[1-4]", "nodes kept as typed");
	is_str(m.users, "alice,bob", "users");
	is_str(m.partition, "defq", "partition");
	is_int(m.flags_set, RESV_F_MAINT | RESV_F_IGNORE_JOBS | RESV_F_DAILY, "flags, any case");
	proto_free(MSG_RESV_UPDATE, &m);

	ok(!parse(&m, RESV_OP_CREATE, "StartTime=2026-12-02T10:00:00 EndTime=2026-12-02T11:00 "
		  "NodeCnt=2 Accounts=physics", now, &err, &terr), "ISO times, NodeCnt, accounts");
	is_int(m.end_time - m.start_time, 3600, "end - start");
	is_int(m.node_cnt, 2, "node count");
	is_int(m.duration, TIME_NO_VAL, "no duration");
	proto_free(MSG_RESV_UPDATE, &m);

	ok(!parse(&m, RESV_OP_CREATE, "StartTime=now Duration=UNLIMITED Nodes=ALL Users=-bob",
		  now, &err, &terr), "UNLIMITED, ALL, an exclusion list");
	is_int(m.duration, TIME_INFINITE, "infinite");
	proto_free(MSG_RESV_UPDATE, &m);

	ok(!parse(&m, RESV_OP_UPDATE, "ReservationName=r Flags=-MAINT,OVERLAP", now, &err, &terr),
	   "update: flags set and cleared");
	is_int(m.flags_set, RESV_F_OVERLAP, "set");
	is_int(m.flags_clear, RESV_F_MAINT, "cleared");
	proto_free(MSG_RESV_UPDATE, &m);

	static const struct { const char *line, *err, *timerr; } bad[] = {
		{ "StartTime=now Duration=10 Nodes=n1 Users=a Flags=FOO", "Error parsing flags FOO", NULL },
		{ "StartTime=now Duration=10 Nodes=n1 Users=a Flags=SPEC_NODES",
		  "Error parsing flags SPEC_NODES", NULL },
		{ "StartTime=now Duration=10 Nodes=n1", "Either Users/Groups and/or Accounts must be specified", NULL },
		{ "StartTime=garbage Duration=10 Nodes=n1 Users=a", "Invalid start time StartTime=garbage",
		  "Invalid time specification (pos=0): garbage" },
		{ "StartTime=now Duration=abc Nodes=n1 Users=a", "Invalid duration Duration=abc", NULL },
		{ "StartTime=now Duration=10 Nodes=n1 Users=a Foo=bar", "Unknown parameter Foo=bar", NULL },
		{ "Duration=10 Nodes=n1 Users=a", "A start time must be given", NULL },
		{ "StartTime=now Nodes=n1 Users=a", "An end time or duration must be given", NULL },
		{ "StartTime=now EndTime=2020-01-01 Nodes=n1 Users=a", "Start time cannot be after end time", NULL },
		{ "StartTime=now Duration=10 NodeCnt=x Users=a", "Invalid node count NodeCnt=x", NULL },
		{ "StartTime=now Duration=10 Nodes=n1 Users=a stray", "Unknown parameter stray", NULL },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(&m, RESV_OP_CREATE, bad[i].line, now, &err, &terr);
		ok(rc == -1, "refused: %s", bad[i].line);
		is_str(err, bad[i].err, "  its error");
		is_str(terr, bad[i].timerr, "  its time line");
		free(err);
		free(terr);
		proto_free(MSG_RESV_UPDATE, &m);
	}

	char buf[200];
	resv_flags_fmt(RESV_F_SPEC_NODES | RESV_F_WEEKLY | RESV_F_MAINT | RESV_F_OVERLAP |
		       RESV_F_IGNORE_JOBS | RESV_F_DAILY | RESV_F_WEEKDAY | RESV_F_WEEKEND, buf, sizeof(buf));
	is_str(buf, "MAINT,OVERLAP,IGNORE_JOBS,DAILY,WEEKDAY,WEEKEND,WEEKLY,SPEC_NODES",
	       "flags in Slurm's order");
	resv_flags_fmt(0, buf, sizeof(buf));
	is_str(buf, "", "no flags");
}

static void test_periods(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	/* 2026-12-04 is a Friday */
	struct tm tm = { .tm_year = 126, .tm_mon = 11, .tm_mday = 4, .tm_hour = 10 };
	int64_t fri = (int64_t)timegm(&tm);
	is_int(resv_next_start(fri, RESV_F_DAILY), fri + 86400, "DAILY: the next day");
	is_int(resv_next_start(fri, RESV_F_WEEKLY), fri + 7 * 86400, "WEEKLY: a week later");
	is_int(resv_next_start(fri, RESV_F_WEEKDAY), fri + 3 * 86400, "WEEKDAY: Friday to Monday");
	is_int(resv_next_start(fri, RESV_F_WEEKEND), fri + 86400, "WEEKEND: Friday to Saturday");
	is_int(resv_next_start(fri + 86400, RESV_F_WEEKEND), fri + 2 * 86400, "WEEKEND: Saturday to Sunday");
	is_int(resv_next_start(fri + 2 * 86400, RESV_F_WEEKEND), fri + 8 * 86400, "WEEKEND: Sunday to Saturday");
	is_int(resv_next_start(fri, 0), fri, "no repeat: unchanged");
}

static char *db_rows(ctld_t *cd, const char *sql)
{
	sqlite3_stmt *st = NULL;
	strbuf_t sb = STRBUF_INIT;
	if (sqlite3_prepare_v2(cd->db, sql, -1, &st, NULL) == SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW) {
			for (int c = 0; c < sqlite3_column_count(st); c++)
				strbuf_addf(&sb, "%s%s", c ? "|" : "",
					    sqlite3_column_text(st, c) ? (const char *)sqlite3_column_text(st, c) : "NULL");
			strbuf_addch(&sb, '\n');
		}
	sqlite3_finalize(st);
	return strbuf_detach(&sb);
}

static int op(ctld_t *cd, uint32_t o, const char *line, char **msg)
{
	msg_resv_update_t m;
	char *err = NULL, *terr = NULL;
	if (parse(&m, o, line, time(NULL), &err, &terr)) {
		free(err);
		free(terr);
		return -1;
	}
	*msg = NULL;
	int rc = resv_update(cd, &m, 0, msg);
	proto_free(MSG_RESV_UPDATE, &m);
	return rc;
}

static void test_model(void)
{
	ctld_t *cd = fixture_ctld(dir, 4, NULL);
	first_ctld = cd;
	char *err = NULL, *msg = NULL;
	char *dbp = xasprintf("%s/sluice.db", dir);
	if (db_open(cd, dbp, &err)) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	int64_t now = ctld_now();
	is_int(op(cd, RESV_OP_CREATE, "StartTime=now+1hour Duration=60 Nodes=n[00001-00002] Users=root", &msg), 0,
	       "future reservation created");
	is_str(msg, "root_1", "generated name <user>_<ResvID>");
	free(msg);
	is_int(db_commit(cd), 0, "committed");
	is_int(op(cd, RESV_OP_UPDATE, "ReservationName=root_1 Duration=30", &msg), 0, "updated before its start");
	free(msg);
	is_int(db_commit(cd), 0, "committed");
	char *s = db_rows(cd, "SELECT resv_id, time_end - time_start, nodelist, node_count, tres, flags,"
			  " users, deleted FROM acct_resv");
	is_str(s, "1|1800|n[00001-00002]|2|cpu=16,mem=64G,node=2,billing=16,gres/gpu=16|SPEC_NODES|root|0\n",
	       "before the start: one row, changed in place");
	free(s);

	is_int(op(cd, RESV_OP_CREATE, "ReservationName=act StartTime=now Duration=90 NodeCnt=1 Accounts=root Flags=MAINT", &msg), 0,
	       "active reservation by node count");
	free(msg);
	is_int(cd->sched.nresvs, 2, "the core's mirror follows a create at once");
	is_str(cd->sched.resvs[1].name, "act", "  with the new one");
	is_int(resv_node_flags(cd, 2), NODE_FLAG_RESERVED | NODE_FLAG_MAINT,
	       "its node (the first idle one not reserved) shows RESERVED+MAINT");
	is_int(resv_node_flags(cd, 0), 0, "a node of a future one shows nothing yet");
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=x StartTime=now+80minutes Duration=60 Nodes=n00001 Users=root", &msg),
	       ESLURM_RESERVATION_OVERLAP, "overlap refused");
	free(msg);
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=act StartTime=now Duration=60 Nodes=n00004 Users=root", &msg),
	       ESLURM_RESERVATION_NAME_DUP, "duplicate name refused");
	free(msg);
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=y StartTime=now Duration=60 NodeCnt=9 Users=root", &msg),
	       ESLURM_NODES_BUSY, "more nodes than are free: busy");
	free(msg);
	job_t *run = fixture_job(cd, JOB_RUNNING, 1001, "alice", NULL, 0, 3, 1, 0);
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=z StartTime=now Duration=60 Nodes=n00004 Users=root", &msg),
	       ESLURM_NODES_BUSY, "a node a job runs on is busy");
	free(msg);
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=z StartTime=now Duration=60 Nodes=n00004 Users=root Flags=IGNORE_JOBS", &msg),
	       0, "unless IGNORE_JOBS");
	free(msg);
	run->desc->reservation = xstrdup("z");
	msg_resv_update_t m = { .op = RESV_OP_DELETE, .name = (char *)"z", .duration = TIME_NO_VAL };
	is_int(resv_update(cd, &m, 0, &msg), ESLURM_RESERVATION_BUSY, "a job in it: in use");
	is_int(resv_job_check(cd, run, 1002), ESLURM_RESERVATION_ACCESS, "bob may not use it");
	is_int(resv_job_check(cd, run, 0), 0, "root may");
	run->state = JOB_COMPLETE;
	run->alloc_held = 0;
	is_int(resv_update(cd, &m, 0, &msg), 0, "once it ended: deleted");
	is_int(cd->sched.nresvs, 2, "the core's mirror follows a delete at once");
	memset(&cd->sched.resvs, 0, sizeof(cd->sched.resvs));
	cd->sched.nresvs = 0;        /* as sched_glue_build after a reconfigure */
	is_int(resv_sched_index(cd, "act"), 2, "a job's index refills a rebuilt mirror");
	is_int(cd->sched.nresvs, 2, "  which holds them all again");
	m.name = (char *)"act";
	is_int(resv_update(cd, &m, 1001, &msg), ESLURM_USER_ID_MISSING, "a user may not delete");
	is_int(db_commit(cd), 0, "committed");

	/* a change while active: the old period ends, a new one starts */
	sleep(1);
	is_int(op(cd, RESV_OP_UPDATE, "ReservationName=act Duration=120", &msg), 0, "active one extended");
	is_int(db_commit(cd), 0, "committed");
	s = db_rows(cd, "SELECT count(*), min(time_start) < max(time_start),"
		    " sum(time_end = (SELECT max(time_start) FROM acct_resv WHERE resv_id = 2))"
		    " FROM acct_resv WHERE resv_id = 2");
	is_str(s, "2|1|1\n", "two rows: the first ends where the second starts");
	free(s);

	/* restart: the model comes back from the DB */
	ctld_t *cd2 = fixture_ctld(dir, 4, NULL);
	char *dbp2 = xasprintf("%s/sluice.db", dir);
	if (db_open(cd2, dbp2, &err)) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	resv_load(cd2);
	resv_sched_fill(cd2);
	is_int(cd2->sched.nresvs, 2, "two reservations recovered");
	is_str(cd2->sched.resvs[1].name, "act", "by ResvID");
	is_int(cd2->sched.resvs[1].nnodes, 1, "its node");
	is_int(cd2->sched.resvs[1].nodes[0], 2, "n00003");
	is_int(cd2->sched.resvs[1].flags, SCHED_RESV_F_MAINT, "MAINT for the core");
	ok(cd2->sched.resvs[1].end - cd2->sched.resvs[1].start >= 120 * 60 - 2, "its new end");
	is_int(resv_sched_index(cd2, "act"), 2, "a job's index: 1 + position");
	is_int(resv_sched_index(cd2, "nosuch"), 0, "unknown: none");
	is_int(op(cd2, RESV_OP_CREATE, "StartTime=now+3hours Duration=60 Nodes=n00004 Users=root", &msg), 0,
	       "created after recovery");
	is_str(msg, "root_4", "ResvID goes on from the recovered ones");
	free(msg);

	/* delete: the active one ends now, the future one is marked deleted */
	m.name = (char *)"act";
	is_int(resv_update(cd2, &m, 0, &msg), 0, "active one deleted");
	m.name = (char *)"root_1";
	is_int(resv_update(cd2, &m, 0, &msg), 0, "future one deleted");
	is_int(db_commit(cd2), 0, "committed");
	s = db_rows(cd2, "SELECT resv_id, deleted, time_end <= strftime('%s','now') + 1 FROM acct_resv"
		    " WHERE resv_id = 1 OR (resv_id = 2 AND time_start = (SELECT max(time_start) FROM acct_resv"
		    " WHERE resv_id = 2)) ORDER BY resv_id");
	is_str(s, "1|1|0\n2|0|1\n", "future: deleted=1; active: its row ends now");
	free(s);
	s = db_rows(cd2, "SELECT name FROM resvs");
	is_str(s, "root_4\n", "only the remaining one in resvs");
	free(s);
	(void)now;
	free(dbp);
	free(dbp2);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	test_spec();
	test_periods();
	test_model();
	int rc = done_testing();
	char *cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd)) {}
	free(cmd);
	return rc;
}
