/*
 * test_sacct: sacct's field formatting (values as Slurm 22.05 prints
 * them, widths and the '+' of a cut value, units), its --format and -j
 * parsers, and the controller's query (acct_sacct_read) over an
 * in-memory acct_job table: selection, the time window, visibility and
 * the rows it answers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd/sacct.h"
#include "ctld/ctld.h"
#include "jobid.h"
#include "states.h"
#include "tap.h"
#include "timefmt.h"
#include "xalloc.h"

static char *value(const char *field, const sacct_row_t *r, const sacct_opts_t *o)
{
	static char buf[512];
	strbuf_t sb = STRBUF_INIT;
	sacct_value(&sb, sacct_field_find(field), r, o);
	snprintf(buf, sizeof(buf), "%s", sb.buf);
	strbuf_release(&sb);
	return buf;
}

static void test_values(void)
{
	sacct_opts_t o = { .units = -1 };
	sacct_row_t r = { .now = 1000 };
	r.c[SC_JOB_ID] = "42";
	r.c[SC_STATE] = "5";            /* FAILED */
	r.c[SC_EXIT_CODE] = "768";      /* exit 3 */
	r.c[SC_START] = "100";
	r.c[SC_END] = "3761";
	r.c[SC_ALLOC_CPUS] = "4";
	r.c[SC_REQ_CPUS] = "4";
	r.c[SC_TIMELIMIT] = "90";
	r.c[SC_REQ_TRES] = "billing=4,cpu=4,mem=8G,node=1";
	r.c[SC_ALLOC_TRES] = "billing=4,cpu=4,mem=8G,node=1";
	is_str(value("JobID", &r, &o), "42", "JobID of a job");
	is_str(value("State", &r, &o), "FAILED", "State FAILED");
	is_str(value("ExitCode", &r, &o), "3:0", "ExitCode rc:sig");
	is_str(value("Elapsed", &r, &o), "01:01:01", "Elapsed");
	is_str(value("ElapsedRaw", &r, &o), "3661", "ElapsedRaw");
	is_str(value("CPUTime", &r, &o), "04:04:04", "CPUTime = elapsed x CPUs");
	is_str(value("CPUTimeRAW", &r, &o), "14644", "CPUTimeRAW");
	is_str(value("Timelimit", &r, &o), "01:30:00", "Timelimit");
	is_str(value("TimelimitRaw", &r, &o), "90", "TimelimitRaw");
	is_str(value("ReqMem", &r, &o), "8G", "ReqMem from the TRES");
	is_str(value("NodeList", &r, &o), "None assigned", "no nodes: None assigned");
	is_str(value("Partition", &r, &o), "", "no partition: empty");
	is_str(value("MaxRSS", &r, &o), "", "MaxRSS: nothing on a job row");
	is_str(value("ConsumedEnergy", &r, &o), "0", "energy 0");
	is_str(value("TotalCPU", &r, &o), "00:00:00", "TotalCPU without steps");

	/* cancelled: by whom; the job's own exit code is 0:0 */
	r.c[SC_STATE] = "4";
	r.c[SC_REQUID] = "1001";
	r.c[SC_EXIT_CODE] = "15";
	is_str(value("State", &r, &o), "CANCELLED by 1001", "CANCELLED by <uid>");
	is_str(value("ExitCode", &r, &o), "0:0", "cancelled job ExitCode 0:0");
	r.c[SC_REQUID] = NULL;
	is_str(value("State", &r, &o), "CANCELLED", "CANCELLED without a requester");

	/* never started */
	r.c[SC_START] = "0";
	r.c[SC_END] = "500";
	is_str(value("Start", &r, &o), "None", "cancelled before it ran: Start None");
	r.c[SC_STATE] = "0";
	r.c[SC_END] = "0";
	is_str(value("Start", &r, &o), "Unknown", "pending: Start Unknown");
	is_str(value("End", &r, &o), "Unknown", "pending: End Unknown");
	is_str(value("Elapsed", &r, &o), "00:00:00", "pending: no elapsed time");
	r.c[SC_TIMELIMIT] = "4294967295";
	is_str(value("Timelimit", &r, &o), "UNLIMITED", "Timelimit UNLIMITED");
	r.c[SC_TIMELIMIT] = "4294967294";
	is_str(value("Timelimit", &r, &o), "Partition_Limit", "Timelimit NO_VAL");
	r.c[SC_TIMELIMIT] = "2880";
	is_str(value("Timelimit", &r, &o), "2-00:00:00", "Timelimit in days");

	/* a step row */
	sacct_row_t s = { .now = 1000, .step = 1 };
	s.c[SC_JOB_ID] = "42";
	s.c[SC_STEP_ID] = "4294967291";
	s.c[SC_STATE] = "4";
	s.c[SC_REQUID] = "0";
	s.c[SC_EXIT_CODE] = "15";
	s.c[SC_MAX_RSS_KB] = "62164";
	s.c[SC_MAX_DISK_READ] = "152696";
	s.c[SC_USER_CPU_US] = "59324";
	s.c[SC_SYS_CPU_US] = "26468";
	s.c[SC_PARTITION] = "defq";
	is_str(value("JobID", &s, &o), "42.batch", "batch step id");
	is_str(value("JobIDRaw", &s, &o), "42.batch", "batch step raw id");
	is_str(value("State", &s, &o), "CANCELLED", "a step is never 'by'");
	is_str(value("ExitCode", &s, &o), "0:15", "step keeps its signal");
	is_str(value("MaxRSS", &s, &o), "62164K", "MaxRSS in K");
	is_str(value("MaxDiskRead", &s, &o), "0.15M", "disk in M with two decimals");
	is_str(value("TotalCPU", &s, &o), "00:00.085", "TotalCPU mm:ss.mmm");
	is_str(value("UserCPU", &s, &o), "00:00.059", "UserCPU");
	is_str(value("Partition", &s, &o), "", "a step shows no partition");
	is_str(value("ReqCPUFreq", &s, &o), "0", "batch step ReqCPUFreq 0");
	s.c[SC_STEP_ID] = "3";
	is_str(value("JobID", &s, &o), "42.3", "srun step id");
	s.c[SC_STEP_ID] = "4294967292";
	is_str(value("JobID", &s, &o), "42.extern", "extern step id");

	/* units */
	sacct_opts_t om = { .units = 1 }, ok2 = { .units = 0 }, onc = { .units = -1, .noconvert = 1 };
	is_str(value("MaxRSS", &s, &om), "60.71M", "--units=M");
	s.c[SC_MAX_RSS_KB] = "1048576";
	is_str(value("MaxRSS", &s, &o), "1G", "exact multiples convert");
	is_str(value("MaxRSS", &s, &om), "1024M", "whole numbers without decimals");
	is_str(value("MaxRSS", &s, &onc), "1073741824", "--noconvert: bytes");
	is_str(value("AllocTRES", &r, &ok2), "billing=4,cpu=4,mem=8388608K,node=1", "--units=K TRES");
	is_str(value("AllocTRES", &r, &onc), "billing=4,cpu=4,mem=8192M,node=1", "--noconvert TRES");

	/* array task ids */
	r.c[SC_ARRAY_JOB_ID] = "40";
	r.c[SC_ARRAY_TASK_ID] = "2";
	is_str(value("JobID", &r, &o), "40_2", "array task JobID A_T");
	is_str(value("JobIDRaw", &r, &o), "42", "array task JobIDRaw");
}

static void test_pad(void)
{
	strbuf_t sb = STRBUF_INIT;
	sacct_pad(&sb, "CANCELLED by 0", 10, 0);
	is_str(sb.buf, "CANCELLED+ ", "cut to the width with a '+'");
	strbuf_setlen(&sb, 0);
	sacct_pad(&sb, "1", 12, 1);
	is_str(sb.buf, "1            ", "left-justified");
	strbuf_setlen(&sb, 0);
	sacct_pad(&sb, "0:0", 8, 0);
	is_str(sb.buf, "     0:0 ", "right-justified");
	strbuf_setlen(&sb, 0);
	sacct_pad(&sb, "abcdefghij", 10, 0);
	is_str(sb.buf, "abcdefghij ", "exactly the width: not cut");
	strbuf_release(&sb);
}

static void test_format(void)
{
	sacct_out_t *out = NULL;
	size_t n = 0;
	char *bad = NULL;
	ok(sacct_format_parse("JobID,jobname%30,State%-12,exitcode", &out, &n, &bad) == 0, "format parses");
	is_int(n, 4, "four fields");
	is_str(out[1].def->name, "JobName", "case-insensitive names");
	is_int(out[1].width, 30, "%%30");
	is_int(out[1].left, 0, "%%30 right");
	is_int(out[2].width, 12, "%%-12");
	is_int(out[2].left, 1, "%%-12 left");
	is_int(out[3].width, 8, "default width");
	ok(sacct_format_parse("JobID,Nope", &out, &n, &bad) == -1 && bad && !strcmp(bad, "Nope"),
	   "an unknown field is named");
	free(bad);
	free(out);
	ok(sacct_field_find("tresusageinmaxn") && !strcmp(sacct_field_find("tresusageinmaxn")->name,
							    "TRESUsageInMaxNode"), "unique prefix");
	ok(!sacct_field_find("Max"), "an ambiguous prefix is no field");
	is_int(sacct_state_parse("ca"), JOB_CANCELLED, "CA");
	is_int(sacct_state_parse("timeout"), JOB_TIMEOUT, "timeout");
	is_int(sacct_state_parse("xx"), -1, "unknown state");

	uint32_t j, t, s;
	ok(jobid_parse_selector("12", &j, &t, &s) == 0 && j == 12 && t == NO_VAL32 && s == STEP_ALL, "N");
	ok(jobid_parse_selector("12.batch", &j, &t, &s) == 0 && s == STEP_BATCH, "N.batch");
	ok(jobid_parse_selector("12.extern", &j, &t, &s) == 0 && s == STEP_EXTERN, "N.extern");
	ok(jobid_parse_selector("12.0", &j, &t, &s) == 0 && s == 0, "N.0");
	ok(jobid_parse_selector("12_3.1", &j, &t, &s) == 0 && j == 12 && t == 3 && s == 1, "N_M.S");
	ok(jobid_parse_selector("abc", &j, &t, &s) == -1, "abc refused");
	ok(jobid_parse_selector("0", &j, &t, &s) == -1, "0 refused");
	ok(jobid_parse_selector("12.", &j, &t, &s) == -1, "N. refused");
	ok(jobid_parse_selector("12x", &j, &t, &s) == -1, "trailing text refused");
	ok(jobid_parse_selector("99999999999", &j, &t, &s) == -1, "too large refused");
}

/* ---- the controller's query ---- */

static sqlite3 *db;

static void add_job(uint32_t id, uint32_t uid, uint32_t state, int64_t submit, int64_t elig,
		    int64_t start, int64_t end, const char *name, const char *nodes)
{
	char *sql = sqlite3_mprintf("INSERT INTO acct_job(job_id, uid, state, submit, eligible,"
				    " start, end, name, nodelist, partition, account) VALUES(%u, %u, %u,"
				    " %lld, %lld, %lld, %lld, %Q, %Q, 'defq', 'lab')", id, uid, state,
				    (long long)submit, (long long)elig, (long long)start,
				    (long long)end, name, nodes);
	char *err = NULL;
	if (db_exec(db, sql, &err))
		fprintf(stderr, "# %s\n", err);
	free(err);
	sqlite3_free(sql);
}

/* The job ids (and steps) a query answers, "1 2.batch 3". */
static char *query(uint32_t uid, const char *args)
{
	static char buf[1024];
	msg_acct_req_t req = { .op = ACCT_OP_SACCT };
	strv_push(&req.args, "cols=state");
	char *dup = xstrdup(args), *save = NULL;
	for (char *w = strtok_r(dup, " ", &save); w; w = strtok_r(NULL, " ", &save))
		strv_push(&req.args, w);
	free(dup);
	acct_read_ctx_t ctx = { .uid = uid, .cluster = "c", .now = 10000 };
	msg_acct_reply_t r = { 0 };
	acct_sacct_read(db, &ctx, &req, &r);
	strbuf_t sb = STRBUF_INIT;
	if (r.rc)
		strbuf_addf(&sb, "error: %s", r.msg);
	for (uint32_t i = 0; r.cols.n && i + r.cols.n <= r.cells.n; i += r.cols.n) {
		strbuf_addf(&sb, "%s%s", sb.len ? " " : "", r.cells.v[i]);
		if (*r.cells.v[i + 1]) {
			uint32_t st = (uint32_t)strtoul(r.cells.v[i + 1], NULL, 10);
			if (st == STEP_BATCH)
				strbuf_addstr(&sb, ".batch");
			else
				strbuf_addf(&sb, ".%u", st);
		}
	}
	snprintf(buf, sizeof(buf), "%s", sb.buf);
	strbuf_release(&sb);
	proto_free(MSG_ACCT_REQ, &req);
	proto_free(MSG_ACCT_REPLY, &r);
	return buf;
}

static void test_query(void)
{
	char *err = NULL;
	ok(sqlite3_open(":memory:", &db) == SQLITE_OK, "memory db");
	db_exec(db, "CREATE TABLE jobs(job_id INTEGER PRIMARY KEY, state, reason, user_id, group_id,"
		" partition, priority, hold, time_limit, submit_time, eligible_time, start_time,"
		" end_time, exit_code, nodes, restarts)", &err);
	ok(acct_jobs_migrate(db, &err) == 0, "acct_job DDL");
	free(err);
	/* uid 1: 1 completed in the window, 2 failed before it, 3 running;
	 * uid 2: 4 cancelled in the window, 5 held (never eligible) */
	add_job(1, 1, JOB_COMPLETE, 5000, 5000, 5100, 5200, "a", "n1");
	add_job(2, 1, JOB_FAILED, 100, 100, 200, 300, "b", "n2");
	add_job(3, 1, JOB_RUNNING, 6000, 6000, 6100, 0, "c", "n[1-2]");
	add_job(4, 2, JOB_CANCELLED, 7000, 7000, 7000, 7100, "a", "n3");
	add_job(5, 2, JOB_PENDING, 7000, 0, 0, 0, "e", NULL);

	is_str(query(1, "start=4000"), "1 3", "own jobs in the window");
	is_str(query(1, "start=4000 all=1"), "1 3 4", "-a: everyone's; the held job is outside");
	is_str(query(1, "start=4000 users=2"), "4", "-u another user");
	is_str(query(1, "start=0 all=1"), "1 2 3 4 5", "start 0: since ever, held included");
	is_str(query(1, "start=0 jobs=2,5 all=1"), "2 5", "-j");
	is_str(query(1, "start=4000 end=5500 all=1"), "1", "-E cuts later jobs");
	is_str(query(1, "start=0 all=1 names=a"), "1 4", "--name");
	is_str(query(1, "start=0 all=1 nodes=n2"), "2 3", "-N matches ranges");
	is_str(query(1, "start=0 end=10000 all=1 states=5,4"), "2 4", "-s F,CA: ended in the window");
	is_str(query(1, "start=10000 end=10000 all=1 states=1"), "3", "-s R: running now");
	is_str(query(1, "start=0 all=1 partitions=short"), "", "-r: none");
	is_str(query(1, "start=0 all=1 accounts=lab jobs=1"), "1", "-A");
	ok(!strncmp(query(1, "jobs=1;DROP"), "error:", 6), "a bad job id is refused");
	ok(!strncmp(query(1, "users=1)"), "error:", 6), "a bad uid is refused");
	ok(!strncmp(query(1, "states=1'"), "error:", 6), "a bad state is refused");
	is_str(query(1, "start=0 all=1 names=x')"), "", "names are quoted, not SQL");

	/* steps, once acct_step exists: batch, extern, then numbered */
	db_exec(db, "CREATE TABLE acct_step(job_id INTEGER NOT NULL, step_id INTEGER NOT NULL,"
		" name TEXT, state INTEGER, exit_code INTEGER, start INTEGER, end INTEGER,"
		" suspended INTEGER, nodelist TEXT, nnodes INTEGER, ntasks INTEGER,"
		" alloc_cpus INTEGER, alloc_tres TEXT, PRIMARY KEY(job_id, step_id));"
		"INSERT INTO acct_step(job_id, step_id, state) VALUES(1, 0, 3), (1, 4294967291, 3),"
		" (4, 4294967291, 4), (1, 1, 5);", &err);
	is_str(query(1, "start=0 all=1 jobs=1,4"), "1 1.batch 1.0 1.1 4 4.batch", "job rows and their steps in order");
	is_str(query(1, "start=0 all=1 jobs=1,4 nosteps=1"), "1 4", "-X");
	is_str(query(1, "start=0 all=1 jobs=1.batch"), "1.batch", "-j N.batch: that step only");
	is_str(query(1, "start=0 all=1 jobs=1.1,4"), "1.1 4 4.batch", "-j N.S and M");
	is_str(query(1, "start=0 all=1 jobs=1.1 nosteps=1"), "1", "-j N.S -X: the job");
	sqlite3_close(db);
}

int main(void)
{
	test_values();
	test_pad();
	test_format();
	test_query();
	return done_testing();
}
