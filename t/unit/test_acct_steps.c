/* Unit tests for the controller's step records (src/ctld/acct_steps.c) on
 * an in-memory SQLite: rows at the start, merging the nodes' reports,
 * repeated reports, closing with the job, a redo after a rollback. */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#include "ctld/ctld.h"
#include "states.h"
#include "step_usage.h"

static ctld_t cd;

static void commit(void)
{
	sqlite3_exec(cd.db, "BEGIN", NULL, NULL, NULL);
	acct_steps_commit(&cd);
	ok(sqlite3_exec(cd.db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK && !cd.db_failed,
	   "committed");
	acct_steps_committed(&cd);
}

/* One integer (or -1 for NULL / no row) of a step's row. */
static long long col(uint32_t job, uint32_t step, const char *c)
{
	char sql[256];
	snprintf(sql, sizeof(sql), "SELECT %s FROM acct_step WHERE job_id=%u AND step_id=%u", c,
		 job, step);
	sqlite3_stmt *st = NULL;
	long long v = -1;
	if (sqlite3_prepare_v2(cd.db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static char *scol(uint32_t job, uint32_t step, const char *c)
{
	static char buf[256];
	char sql[256];
	snprintf(sql, sizeof(sql), "SELECT %s FROM acct_step WHERE job_id=%u AND step_id=%u", c,
		 job, step);
	sqlite3_stmt *st = NULL;
	buf[0] = 0;
	if (sqlite3_prepare_v2(cd.db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, sizeof(buf), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

static msg_step_complete_t report(uint32_t job, uint32_t step, const char *node, uint32_t node_id,
				  uint32_t nnodes, uint32_t state, uint32_t ex, int64_t end,
				  uint32_t first_rank, uint32_t ntasks, uint64_t rss)
{
	msg_step_complete_t m = { .job_id = job, .step_id = step, .node = (char *)node,
				  .node_id = node_id, .nnodes = nnodes, .end_state = state,
				  .exit_status = ex, .start_time = 100, .end_time = end,
				  .gathered = 1 };
	for (uint32_t i = 0; i < ntasks; i++) {
		task_usage_t t = { .rss_kb = rss + i, .vmsize_kb = 2 * rss, .user_cpu_us = 1500000,
				   .sys_cpu_us = 500000, .disk_read = 10, .disk_write = 20 };
		step_usage_add_task(&m.usage, first_rank + i, &t);
	}
	return m;
}

int main(void)
{
	char *err = NULL;
	ok(sqlite3_open(":memory:", &cd.db) == SQLITE_OK, "db");
	ok(acct_steps_migrate(cd.db, &err) == 0, "table created (migration step)");
	ok(step_info_migrate(cd.db, &err) == 0, "live step columns (migration step)");
	ok(acct_steps_db_init(&cd, &err) == 0, "statements");
	ok(acct_steps_db_init(&cd, &err) == 0, "again");
	ok(!acct_steps_pending(&cd), "nothing queued");

	acct_step_start(&cd, 7, 0, "a.out", "n[1-2]", 2, 4, 4, 2048, 100);
	ok(acct_steps_pending(&cd), "a start queued");
	is_int(col(7, 0, "state"), -1, "nothing written before the commit");
	commit();
	ok(!acct_steps_pending(&cd), "queue dropped after the commit");
	is_int(col(7, 0, "state"), JOB_RUNNING, "row RUNNING from the start");
	is_int(col(7, 0, "end"), 0, "end 0");
	is_int(col(7, 0, "start"), 100, "start");
	is_int(col(7, 0, "max_rss_kb"), -1, "no usage yet");
	is_str(scol(7, 0, "alloc_tres"), "cpu=4,mem=2G,node=2", "AllocTRES");
	is_str(scol(7, 0, "req_cpufreq"), "Unknown", "ReqCPUFreq of an srun step");

	/* node 2 (index 1) reports first: tasks 2 and 3, the bigger ones */
	msg_step_complete_t b = report(7, 0, "n2", 1, 2, JOB_FAILED, 3 << 8, 150, 2, 2, 5000);
	acct_steps_queue_report(&cd, &b);
	commit();
	is_int(col(7, 0, "state"), JOB_RUNNING, "one node of two: still RUNNING");
	is_int(col(7, 0, "end"), 0, "no end yet");
	is_int(col(7, 0, "tasks_done"), 2, "2 tasks in");

	/* its retry (a controller crash before the answer) changes nothing */
	acct_steps_queue_report(&cd, &b);
	commit();
	is_int(col(7, 0, "tasks_done"), 2, "a repeated report is ignored");

	msg_step_complete_t a = report(7, 0, "n1", 0, 2, JOB_COMPLETE, 0, 160, 0, 2, 1000);
	acct_steps_queue_report(&cd, &a);
	commit();
	is_int(col(7, 0, "state"), JOB_FAILED, "both in: the worse state");
	is_int(col(7, 0, "exit_code"), 3 << 8, "with its exit status");
	is_int(col(7, 0, "end"), 160, "end: the last report's");
	is_int(col(7, 0, "max_rss_kb"), 5001, "MaxRSS");
	is_str(scol(7, 0, "max_rss_node"), "n2", "MaxRSSNode");
	is_int(col(7, 0, "max_rss_task"), 3, "MaxRSSTask");
	is_int(col(7, 0, "ave_rss_kb"), (1000 + 1001 + 5000 + 5001) / 4, "AveRSS over 4 tasks");
	is_int(col(7, 0, "user_cpu_us"), 6000000, "user CPU summed");
	is_int(col(7, 0, "sys_cpu_us"), 2000000, "system CPU summed");
	is_int(col(7, 0, "min_cpu_s"), 2, "MinCPU in s");
	is_int(col(7, 0, "max_disk_write"), 20, "MaxDiskWrite");
	is_int(col(7, 0, "ave_disk_read"), 10, "AveDiskRead");
	is_str(scol(7, 0, "tres_usage_in_ave"),
	       "cpu=00:00:02,energy=0,fs/disk=10,mem=3000K,pages=0,vmem=6000K", "TRESUsageInAve");

	/* the job ends with steps open: batch and 1 never reported */
	job_t j = { .job_id = 7, .start_time = 100 };
	acct_step_start(&cd, 7, 1, "sleep", "n1", 1, 1, 1, 1024, 120);
	acct_step_start(&cd, 7, 0xfffffffb, "batch", "n1", 1, 1, 1, 1024, 100);
	acct_step_start(&cd, 7, 0xfffffffc, "extern", "n[1-2]", 2, 2, 4, 2048, 100);
	commit();
	is_str(scol(7, 0xfffffffb, "req_cpufreq"), "0", "ReqCPUFreq of batch");
	acct_steps_job_end(&cd, &j, JOB_CANCELLED, 0, 200);
	commit();
	is_int(col(7, 1, "state"), JOB_CANCELLED, "an open step ends CANCELLED with its job");
	is_int(col(7, 1, "end"), 200, "at the job's end");
	is_int(col(7, 0xfffffffb, "state"), JOB_CANCELLED, "batch takes the job's state");
	is_int(col(7, 0xfffffffc, "state"), JOB_CANCELLED, "extern CANCELLED with a cancelled job");
	is_int(col(7, 0, "state"), JOB_FAILED, "an ended step is left alone");
	is_int(col(7, 0, "end"), 160, "its end too");

	/* a report after the closing still brings its usage and truth */
	msg_step_complete_t late = report(7, 1, "n1", 0, 1, JOB_COMPLETE, 0, 190, 0, 1, 777);
	acct_steps_queue_report(&cd, &late);
	commit();
	is_int(col(7, 1, "state"), JOB_COMPLETE, "the node's report is the truth");
	is_int(col(7, 1, "end"), 190, "and its end");
	is_int(col(7, 1, "max_rss_kb"), 777, "and its usage");

	/* NODE_FAIL: open steps end NODE_FAIL; extern COMPLETED otherwise */
	job_t k = { .job_id = 8, .start_time = 100 };
	acct_step_start(&cd, 8, 0, "x", "n1", 1, 1, 1, 1024, 100);
	acct_step_start(&cd, 8, 0xfffffffc, "extern", "n1", 1, 1, 1, 1024, 100);
	commit();
	acct_steps_job_end(&cd, &k, JOB_NODE_FAIL, 0, 300);
	commit();
	is_int(col(8, 0, "state"), JOB_NODE_FAIL, "a step whose node died ends with the job");
	is_int(col(8, 0xfffffffc, "state"), JOB_NODE_FAIL, "extern too");
	job_t l = { .job_id = 9, .start_time = 100 };
	acct_step_start(&cd, 9, 0xfffffffc, "extern", "n1", 1, 1, 1, 1024, 100);
	commit();
	acct_steps_job_end(&cd, &l, JOB_TIMEOUT, 0, 300);
	commit();
	is_int(col(9, 0xfffffffc, "state"), JOB_COMPLETE, "extern of a timed out job COMPLETED");

	/* a rolled back transaction is applied again from what is stored */
	acct_step_start(&cd, 10, 0, "y", "n[1-2]", 2, 2, 2, 2048, 100);
	commit();
	msg_step_complete_t r1 = report(10, 0, "n1", 0, 2, JOB_COMPLETE, 0, 150, 0, 1, 100);
	acct_steps_queue_report(&cd, &r1);
	sqlite3_exec(cd.db, "BEGIN", NULL, NULL, NULL);
	acct_steps_commit(&cd);
	sqlite3_exec(cd.db, "ROLLBACK", NULL, NULL, NULL);
	is_int(col(10, 0, "tasks_done"), 0, "rolled back");
	ok(acct_steps_pending(&cd), "still queued");
	commit();
	is_int(col(10, 0, "tasks_done"), 1, "redone once, not twice");

	/* a start undone in its own turn (launch failed, requeued) */
	acct_step_start(&cd, 12, 0xfffffffb, "batch", "n1", 1, 1, 1, 1024, 100);
	acct_step_start(&cd, 13, 0xfffffffb, "batch", "n1", 1, 1, 1, 1024, 100);
	acct_steps_job_unstart(&cd, 12);
	commit();
	is_int(col(12, 0xfffffffb, "state"), -1, "an undone start writes no row");
	is_int(col(13, 0xfffffffb, "state"), JOB_RUNNING, "another job's start stays");

	/* a report for a row never started makes one */
	msg_step_complete_t orphan = report(11, 0xfffffffb, "n3", 0, 1, JOB_COMPLETE, 0, 50, 0, 1, 10);
	acct_steps_queue_report(&cd, &orphan);
	commit();
	is_int(col(11, 0xfffffffb, "state"), JOB_COMPLETE, "a report without a start row");
	is_str(scol(11, 0xfffffffb, "nodelist"), "n3", "its node");
	/* a report that does not fit the step is refused */
	msg_step_complete_t bad = report(10, 0, "n9", 5, 9, JOB_COMPLETE, 0, 150, 0, 1, 100);
	acct_steps_queue_report(&cd, &bad);
	commit();
	is_int(col(10, 0, "tasks_done"), 1, "a node outside the step is ignored");

	acct_steps_db_close(&cd);
	sqlite3_close(cd.db);
	return done_testing();
}
