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

#include "ctld/intern.h"
#include "ctld/resv.h"
#include "ctld_fixture.h"
#include "errors.h"
#include "resv_spec.h"
#include "tap.h"
#include "timefmt.h"

static char dir[] = "/tmp/test_resv.XXXXXX";
/* The controllers of test_model stay reachable when the fixture keeps
 * test_replace's (leak checks report only what is truly lost). */
static ctld_t *volatile first_ctld, *volatile second_ctld;

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

	/* +=/-= of an update */
	ok(!parse(&m, RESV_OP_UPDATE, "ReservationName=r Users+=alice,bob Accounts-=phys Flags+=DAILY "
		  "Duration+=10", now, &err, &terr), "Users+=, Accounts-=, Flags+=, Duration+=");
	is_str(m.users, "+alice,+bob", "  each user with its sign");
	is_str(m.accounts, "-phys", "  each account with its sign");
	is_int(m.flags_set, RESV_F_DAILY, "  the flag set");
	is_int(m.duration_delta, 10, "  ten minutes more");
	proto_free(MSG_RESV_UPDATE, &m);
	ok(!parse(&m, RESV_OP_UPDATE, "ReservationName=r Flags-=DAILY,MAINT Duration-=1:00:00", now, &err,
		  &terr), "Flags-= of two, Duration-=");
	is_int(m.flags_clear, RESV_F_DAILY | RESV_F_MAINT, "  both cleared");
	is_int(m.flags_set, 0, "  none set");
	is_int(m.duration_delta, -60, "  an hour less");
	proto_free(MSG_RESV_UPDATE, &m);
	ok(!parse(&m, RESV_OP_UPDATE, "ReservationName=r Users+= Flags+=PURGE_COMP=1-00:00:00", now, &err,
		  &terr), "Users+= of nothing, Flags+= with a days- time");
	ok(!m.users, "  no users change");
	is_int(m.purge_comp, 86400, "  a day");
	proto_free(MSG_RESV_UPDATE, &m);
	static const struct { const char *line, *err; } badpm[] = {
		{ "ReservationName=r Flags+=-MAINT", "Error parsing flags +-MAINT" },
		{ "ReservationName=r Flags-=OVERLAP", "Error parsing flags -OVERLAP" },
		{ "ReservationName=r NodeCnt+=1", "The +=/-= notation is not supported when updating NodeCnt" },
		{ "ReservationName=r nodes+=n1", "The +=/-= notation is not supported when updating nodes" },
	};
	for (size_t i = 0; i < sizeof(badpm) / sizeof(badpm[0]); i++) {
		ok(parse(&m, RESV_OP_UPDATE, badpm[i].line, now, &err, &terr) == -1, "refused: %s", badpm[i].line);
		is_str(err, badpm[i].err, "  its error");
		free(err);
		free(terr);
		proto_free(MSG_RESV_UPDATE, &m);
	}

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

	/* Slurm's flag words: a name begun with enough letters, in its
	 * order of trying; "-" only where Slurm takes it */
	static const struct { const char *flags; uint32_t set, clear; } words[] = {
		{ "MAINT,Static_Alloc,NO_HOLD_JOBS_AFTER", RESV_F_MAINT | RESV_F_STATIC | RESV_F_NO_HOLD, 0 },
		{ "HOURLY,REPLACE", RESV_F_HOURLY | RESV_F_REPLACE, 0 },
		{ "REPLACE_DOWN,replace_,STATIC", RESV_F_REPLACE_DOWN | RESV_F_STATIC, 0 },
		{ "M,I", RESV_F_MAINT | RESV_F_IGNORE_JOBS, 0 },
		{ "MAG,FLEX,TIME_FLOAT", RESV_F_MAGNETIC | RESV_F_FLEX | RESV_F_TIME_FLOAT, 0 },
		{ "+DAILY,-WEEKLY,-STATIC_ALLOC", RESV_F_DAILY, RESV_F_WEEKLY | RESV_F_STATIC },
		{ "PURGE_COMP,PART_NODES,LICENSE_ONLY", RESV_F_PURGE_COMP | RESV_F_PART_NODES | RESV_F_ANY_NODES, 0 },
		{ "PU=1:00,-PURGE_COMP", RESV_F_PURGE_COMP, RESV_F_PURGE_COMP },
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		uint32_t st = 0, cl = 0, pc;
		ok(!resv_flags_parse(words[i].flags, &st, &cl, &pc) && st == words[i].set && cl == words[i].clear,
		   "Flags=%s", words[i].flags);
	}
	static const char *const badwords[] = { "-OVERLAP", "-REPLACE", "P", "REPLACE_DOWNX", "MAINTENANCEX",
						"SPEC_NODES", "ALL_NODES", "x" };
	for (size_t i = 0; i < sizeof(badwords) / sizeof(badwords[0]); i++) {
		uint32_t st, cl, pc;
		ok(resv_flags_parse(badwords[i], &st, &cl, &pc) == -1, "Flags=%s refused", badwords[i]);
	}
	uint32_t st, cl, pc;
	ok(!resv_flags_parse("MAINT,PURGE_COMP=10:00", &st, &cl, &pc) && pc == 600 &&
	   st == (RESV_F_MAINT | RESV_F_PURGE_COMP), "PURGE_COMP=10:00: ten minutes");
	ok(!resv_flags_parse("purge_comp", &st, &cl, &pc) && pc == 0, "PURGE_COMP alone: no time given");
	ok(resv_flags_parse("PURGE_COMP=0", &st, &cl, &pc) == -1 &&
	   resv_flags_parse("PURGE_COMP=x", &st, &cl, &pc) == -1 &&
	   resv_flags_parse("MAINT=5", &st, &cl, &pc) == -1 &&
	   resv_flags_parse("PURGE_COMP=5", &st, &cl, NULL) == -1, "a bad or misplaced time refused");

	char buf[256];
	resv_flags_fmt(RESV_F_MAINT | RESV_F_FLEX | RESV_F_IGNORE_JOBS | RESV_F_STATIC | RESV_F_PURGE_COMP |
		       RESV_F_NO_HOLD | RESV_F_MAGNETIC, 300, buf, sizeof(buf));
	is_str(buf, "MAINT,FLEX,IGNORE_JOBS,STATIC,PURGE_COMP=00:05:00,NO_HOLD_JOBS_AFTER_END,MAGNETIC",
	       "flags in Slurm's order (as 22.05 printed this set)");
	resv_flags_fmt(RESV_F_MAINT | RESV_F_SPEC_NODES | RESV_F_ALL_NODES | RESV_F_HOURLY | RESV_F_REPLACE |
		       RESV_F_REPLACE_DOWN, 0, buf, sizeof(buf));
	is_str(buf, "MAINT,HOURLY,SPEC_NODES,ALL_NODES,REPLACE,REPLACE_DOWN", "and these");
	resv_flags_fmt(~0u, 86400 * 400, buf, sizeof(buf));
	ok(strlen(buf) < sizeof(buf) - 1 && strstr(buf, ",MAGNETIC"), "every name fits 256 bytes");
	resv_flags_fmt(RESV_F_SPEC_NODES | RESV_F_WEEKLY | RESV_F_MAINT | RESV_F_OVERLAP |
		       RESV_F_IGNORE_JOBS | RESV_F_DAILY | RESV_F_WEEKDAY | RESV_F_WEEKEND, 0, buf, sizeof(buf));
	is_str(buf, "MAINT,OVERLAP,IGNORE_JOBS,DAILY,WEEKDAY,WEEKEND,WEEKLY,SPEC_NODES",
	       "flags in Slurm's order");
	resv_flags_fmt(0, 0, buf, sizeof(buf));
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
	is_int(resv_next_start(fri, RESV_F_HOURLY), fri + 3600, "HOURLY: an hour later");
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
	       0, "more nodes than the partition has outside other reservations: what it has (22.05)");
	free(msg);
	is_int(cd->sched.nresvs, 3, "  created");
	is_int(cd->sched.resvs[2].nnodes, 3, "  with the three nodes left then");
	msg_resv_update_t dy = { .op = RESV_OP_DELETE, .name = (char *)"y", .duration = TIME_NO_VAL };
	is_int(resv_update(cd, &dy, 0, &msg), 0, "  deleted again");
	job_t *run = fixture_job(cd, JOB_RUNNING, 1001, "alice", NULL, 0, 3, 1, 0);
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=y StartTime=now Duration=60 NodeCnt=9 Users=root", &msg),
	       ESLURM_NODES_BUSY, "the nodes it could have are busy: refused");
	free(msg);
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
	run->state = JOB_CANCELLED;      /* still completing: alloc_held */
	is_int(resv_update(cd, &m, 0, &msg), 0, "once it ended: deleted, even while it completes");
	run->state = JOB_COMPLETE;
	run->alloc_held = 0;
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
	second_ctld = cd2;      /* test_replace makes the fixture's last one */
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
	is_str(msg, "root_5", "ResvID goes on from the recovered ones (y took 3)");
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
	is_str(s, "root_5\n", "only the remaining one in resvs");
	free(s);
	(void)now;
	free(dbp);
	free(dbp2);
}

/* The flag rules, the nodes a reservation picked by count gives up
 * (down, drained; REPLACE: taken by a job; not STATIC_ALLOC, not named
 * nodes) and NO_HOLD_JOBS_AFTER_END. */
static void test_replace(void)
{
	ctld_t *cd = fixture_ctld(dir, 6, NULL);
	char *err = NULL, *msg = NULL;
	char *dbp = xasprintf("%s/replace.db", dir);
	if (db_open(cd, dbp, &err)) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	static const struct { const char *line; int rc; const char *msg; } rules[] = {
		{ "StartTime=now Duration=60 NodeCnt=1 Users=root Flags=WEEKDAY,WEEKEND", ESLURM_NOT_SUPPORTED,
		  "Reservation has multiple reoccurring flags. Please specify only one reoccurring flag" },
		{ "StartTime=now Duration=60 NodeCnt=1 Users=root Flags=HOURLY,DAILY", ESLURM_NOT_SUPPORTED,
		  "Reservation has multiple reoccurring flags. Please specify only one reoccurring flag" },
		{ "StartTime=now Duration=60 Nodes=n00001 Users=root Flags=REPLACE", ESLURM_INVALID_NODE_NAME, NULL },
		{ "StartTime=now Duration=60 NodeCnt=1 Users=root Flags=REPLACE_DOWN,STATIC_ALLOC",
		  ESLURM_NOT_SUPPORTED, "REPLACE and REPLACE_DOWN flags cannot be used with STATIC_ALLOC" },
		{ "StartTime=now Duration=60 NodeCnt=1 Users=root Flags=FLEX,MAGNETIC", ESLURM_NOT_SUPPORTED,
		  "Flags=FLEX,MAGNETIC: not supported by Sluice" },
	};
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		is_int(op(cd, RESV_OP_CREATE, rules[i].line, &msg), rules[i].rc, "refused: %s", rules[i].line);
		is_str(msg, rules[i].msg, "  saying so");
		free(msg);
	}
	is_int(cd->sched.nresvs, 0, "none created");

	/* n00001..n00006 idle: a by count gets n00001-2, s (STATIC_ALLOC)
	 * n00003, p (REPLACE) n00004, named one n00005 */
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=a StartTime=now Duration=60 NodeCnt=2 Users=root Flags=MAINT", &msg), 0, "a");
	free(msg);
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=s StartTime=now Duration=60 NodeCnt=1 Users=root Flags=STATIC_ALLOC", &msg), 0, "s");
	free(msg);
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=p StartTime=now Duration=60 NodeCnt=1 Users=root Flags=REPLACE", &msg), 0, "p");
	free(msg);
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=n StartTime=now Duration=60 Nodes=n00005 Users=root", &msg), 0, "n");
	free(msg);
	is_int(db_commit(cd), 0, "committed");
	int64_t now = ctld_now();
	resv_periodic(cd, now);
	is_int(cd->resv ? 1 : 0, 1, "nothing to replace yet");
	cd->nodes[0].base = NODE_DOWN;        /* a's n00001 */
	cd->nodes[2].base = NODE_DOWN;        /* s's n00003 */
	cd->nodes[4].base = NODE_DOWN;        /* n's n00005 */
	resv_periodic(cd, now + 10);
	is_int(db_commit(cd), 0, "committed");
	char *s = db_rows(cd, "SELECT name, nodes FROM resvs ORDER BY name");
	is_str(s, "a|n[00002,00006]\nn|n00005\np|n00004\ns|n00003\n",
	       "a (MAINT too) gives up its down node for the idle one; STATIC_ALLOC and named nodes keep theirs");
	free(s);
	s = db_rows(cd, "SELECT count(*), sum(time_end < (SELECT max(time_start) FROM acct_resv r2"
		    " WHERE r2.resv_id = acct_resv.resv_id) OR time_end = time_start) FROM acct_resv"
		    " WHERE name = 'a'");
	ok(s && !strncmp(s, "2|", 2), "its acct_resv period closed, a new one opened (%s)", s ? s : "");
	free(s);
	cd->nodes[0].base = NODE_IDLE;
	cd->nodes[2].base = NODE_IDLE;
	resv_periodic(cd, now + 10);
	is_int(db_commit(cd), 0, "committed");
	s = db_rows(cd, "SELECT nodes FROM resvs WHERE name = 'p'");
	is_str(s, "n00004\n", "REPLACE: nothing taken yet");
	free(s);
	job_t *run = fixture_job(cd, JOB_RUNNING, 1001, "alice", NULL, 0, 3, 1, 0);   /* on n00004 */
	run->desc->reservation = xstrdup("p");
	resv_periodic(cd, now + 10);
	is_int(db_commit(cd), 0, "committed");
	s = db_rows(cd, "SELECT nodes FROM resvs WHERE name = 'p'");
	is_str(s, "n00001\n", "REPLACE: the node its job took is replaced by an idle one");
	free(s);
	run->state = JOB_COMPLETE;
	run->alloc_held = 0;

	/* Users+= / -= as Slurm 22.05 applied them (system users: the unit
	 * tests run before t/setup-users.sh) */
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=u StartTime=now+2hours Duration=60 NodeCnt=1 Users=root", &msg), 0, "u");
	free(msg);
	static const struct { const char *upd; int rc; const char *users, *accounts; } edits[] = {
		{ "Users+=daemon", 0, "root,daemon", NULL },
		{ "Users+=bin,daemon", 0, "root,daemon,bin", NULL },
		{ "Users-=daemon", 0, "root,bin", NULL },
		{ "Users+=-nosuchuser", ESLURM_USER_ID_MISSING, "root,bin", NULL },
		{ "Users-=root,bin", ESLURM_RESERVATION_EMPTY, "root,bin", NULL },
		{ "Users+=root", 0, "root,bin", NULL },
		{ "Accounts-=root", 0, "root,bin", "-root" },
		{ "Users=-bin", 0, "root", "-root" },
		{ "Accounts+=root", 0, "root", NULL },
		{ "Users=daemon,bin", 0, "daemon,bin", NULL },
	};
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		char line[128];
		snprintf(line, sizeof(line), "ReservationName=u %s", edits[i].upd);
		is_int(op(cd, RESV_OP_UPDATE, line, &msg), edits[i].rc, "%s", edits[i].upd);
		free(msg);
		is_int(db_commit(cd), 0, "committed");
		s = db_rows(cd, "SELECT coalesce(users, '(null)') || ' ' || coalesce(accounts, '(null)') FROM resvs WHERE name = 'u'");
		char *want = xasprintf("%s %s\n", edits[i].users ? edits[i].users : "(null)",
				       edits[i].accounts ? edits[i].accounts : "(null)");
		is_str(s, want, "  Users= and Accounts= now");
		free(want);
		free(s);
	}
	s = db_rows(cd, "SELECT end_time - start_time FROM resvs WHERE name = 'u'");
	is_str(s, "3600\n", "an hour");
	free(s);
	is_int(op(cd, RESV_OP_UPDATE, "ReservationName=u Duration+=10", &msg), 0, "Duration+=10");
	free(msg);
	is_int(op(cd, RESV_OP_UPDATE, "ReservationName=u Duration-=70", &msg), ESLURM_INVALID_TIME_VALUE,
	       "Duration-= past its start: refused");
	free(msg);
	msg_resv_update_t huge = { .op = RESV_OP_UPDATE, .name = (char *)"u", .duration = TIME_NO_VAL,
				   .duration_delta = INT64_MAX / 2 };
	is_int(resv_update(cd, &huge, 0, &msg), ESLURM_INVALID_TIME_VALUE,
	       "a Duration+= off the wire past a year: refused, no overflow");
	huge.duration_delta = INT64_MIN / 2;
	is_int(resv_update(cd, &huge, 0, &msg), ESLURM_INVALID_TIME_VALUE, "  and -=");
	is_int(db_commit(cd), 0, "committed");
	s = db_rows(cd, "SELECT end_time - start_time FROM resvs WHERE name = 'u'");
	is_str(s, "4200\n", "  ten minutes more");
	free(s);

	/* PURGE_COMP: removed once it has had no job for its time */
	is_int(op(cd, RESV_OP_CREATE, "ReservationName=g StartTime=now Duration=60 NodeCnt=1 Users=root Flags=PURGE_COMP=0:30",
		  &msg), 0, "g (PURGE_COMP=0:30)");
	free(msg);
	job_t *gj = fixture_job(cd, JOB_PENDING, 1001, "alice", NULL, 0, 0, 1, 0);
	gj->desc->reservation = intern_get("g");
	now = ctld_now();
	resv_periodic(cd, now);
	resv_periodic(cd, now + 100);
	ok(resv_sched_index(cd, "g"), "a pending job in it: kept");
	gj->state = JOB_CANCELLED;
	resv_periodic(cd, now + 110);         /* idle from here */
	resv_periodic(cd, now + 139);
	ok(resv_sched_index(cd, "g"), "idle for 29 s: kept");
	resv_periodic(cd, now + 140);
	ok(!resv_sched_index(cd, "g"), "idle for 30 s: purged");
	is_int(db_commit(cd), 0, "committed");
	s = db_rows(cd, "SELECT count(*) FROM resvs WHERE name = 'g'");
	is_str(s, "0\n", "  and gone from the DB");
	free(s);
	s = db_rows(cd, "SELECT flags FROM acct_resv WHERE name = 'g'");
	is_str(s, "PURGE_COMP=00:00:30\n", "  its period record names the flag as Slurm prints it");
	free(s);

	/* NO_HOLD_JOBS_AFTER_END: its pending jobs lose it, not held */
	is_int(op(cd, RESV_OP_UPDATE, "ReservationName=s Flags=NO_HOLD_JOBS_AFTER_END", &msg), 0,
	       "NO_HOLD_JOBS_AFTER_END set");
	free(msg);
	job_t *pj = fixture_job(cd, JOB_PENDING, 1001, "alice", NULL, 0, 0, 1, 0);
	pj->desc->reservation = intern_get("s");    /* as jobs.c keeps it */
	job_t *hj = fixture_job(cd, JOB_PENDING, 1001, "alice", NULL, 0, 0, 1, 0);
	hj->desc->reservation = intern_get("a");
	resv_periodic(cd, now + 4000);    /* both ended */
	ok(!pj->desc->reservation && !pj->hold, "NO_HOLD_JOBS_AFTER_END: the job lost it, not held");
	ok(!hj->desc->reservation && hj->hold, "otherwise held");
	free(dbp);
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
	test_replace();
	int rc = done_testing();
	char *cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd)) {}
	free(cmd);
	return rc;
}
