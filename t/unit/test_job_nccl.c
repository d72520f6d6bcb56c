/*
 * test_job_nccl: the controller's side of the NCCL transport check
 * (src/ctld/job_nccl.c) on a state built in memory (ctld_fixture.h): who
 * may report, stale runs and bad values refused, a log verdict outweighing
 * the counters', the verdict in the job info and in /metrics, and a
 * requeued run showing none.
 */
#include <stdlib.h>
#include <string.h>

#include "ctld_fixture.h"
#include "ctld/job_nccl.h"
#include "errors.h"
#include "log.h"
#include "nccl_log.h"
#include "tap.h"

static int report(ctld_t *cd, uint32_t job, uint32_t seq, const char *t, uint32_t src,
		  const char *detail, uint32_t uid)
{
	msg_job_nccl_t m = { .job_id = job, .launch_seq = seq, .node = (char *)"n00001",
			     .transport = (char *)t, .source = src, .detail = (char *)detail,
			     .time = 1700000000 };
	return job_nccl_report(cd, &m, uid);
}

int main(void)
{
	log_init("test", 0, LOG_LVL_QUIET, NULL);
	char dir[] = "/tmp/test_job_nccl.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	ctld_t *cd = fixture_ctld(dir, 4, NULL);
	job_t *j = fixture_job(cd, JOB_RUNNING, 1000, "alice", "phys", 0, 0, 8, 0xff);
	j->launch_seq = 3;

	is_int(report(cd, j->job_id, 3, "Socket", NCCL_SRC_LOG, "x", 1000), ESLURM_ACCESS_DENIED,
	       "a user cannot report a verdict");
	is_int(report(cd, 999, 3, "Socket", NCCL_SRC_LOG, "x", 0), ESLURM_INVALID_JOB_ID,
	       "unknown job");
	is_int(report(cd, j->job_id, 2, "Socket", NCCL_SRC_LOG, "x", 0), ESLURM_ALREADY_DONE,
	       "an older run's verdict is refused");
	is_int(report(cd, j->job_id, 3, "So cket", NCCL_SRC_LOG, "x", 0), SLURM_ERROR,
	       "a transport with a blank is refused");
	is_int(report(cd, j->job_id, 3, "A=B", NCCL_SRC_LOG, "x", 0), SLURM_ERROR,
	       "a transport with '=' is refused (scontrol's Key=Value)");
	is_int(report(cd, j->job_id, 3, "Socket", 7, "x", 0), SLURM_ERROR, "unknown source");
	ok(job_nccl_get(j) == NULL, "nothing recorded by refused reports");

	/* counters first, then the log outweighs them, and stays */
	is_int(report(cd, j->job_id, 3, "Socket", NCCL_SRC_COUNTERS, "still", 0), 0, "counters verdict");
	is_str(job_nccl_get(j)->transport, "Socket", "recorded");
	ok(j->dirty, "the job is marked dirty for the state DB");
	char longd[2000];
	memset(longd, 'x', sizeof(longd) - 1);
	longd[sizeof(longd) - 1] = '\0';
	longd[3] = '\n';
	is_int(report(cd, j->job_id, 3, "IB", NCCL_SRC_LOG, longd, 0), 0, "log verdict");
	const job_nccl_t *v = job_nccl_get(j);
	is_str(v->transport, "IB", "the log's verdict replaces the counters'");
	is_int(strlen(v->detail), 512, "evidence cut to 512 bytes");
	ok(v->detail[3] == '?', "control characters in the evidence replaced");
	is_int(report(cd, j->job_id, 3, "Socket", NCCL_SRC_COUNTERS, "still", 0), 0,
	       "a counters verdict after a log one is accepted...");
	is_str(job_nccl_get(j)->transport, "IB", "...and ignored");
	is_int(report(cd, j->job_id, 3, "Socket", NCCL_SRC_LOG, "NCCL INFO Using network Socket", 0), 0,
	       "socket from the log");

	job_info_t ji;
	job_fill_info(cd, j, &ji);
	is_str(ji.nccl_transport, "Socket", "job info: transport");
	is_str(ji.nccl_source, "log", "job info: source");
	is_str(ji.nccl_node, "n00001", "job info: node");
	is_int(ji.nccl_time, 1700000000, "job info: time");

	strbuf_t sb = STRBUF_INIT;
	job_nccl_metrics(cd, &sb);
	char want[256];
	snprintf(want, sizeof(want), "sluice_job_nccl_transport{job_id=\"%u\",user=\"alice\","
		 "transport=\"Socket\",source=\"log\",node=\"n00001\"} 1\n", j->job_id);
	ok(strstr(sb.buf, want) != NULL, "metrics: the running job's verdict");
	ok(strstr(sb.buf, "\nsluice_jobs_nccl_socket_fallback_total 2\n") != NULL,
	   "metrics: two socket verdicts (counters, then log after IB)");
	strbuf_release(&sb);

	/* a requeued run (new launch_seq) shows none until judged */
	j->launch_seq = 4;
	ok(job_nccl_get(j) == NULL, "a new run has no verdict");
	job_fill_info(cd, j, &ji);
	ok(ji.nccl_transport == NULL, "job info: none for the new run");
	sb = (strbuf_t)STRBUF_INIT;
	job_nccl_metrics(cd, &sb);
	ok(strstr(sb.buf, "sluice_job_nccl_transport{") == NULL, "metrics: none for the new run");
	strbuf_release(&sb);
	char *f = xasprintf("%s/slurm.conf", dir);
	unlink(f);
	free(f);
	f = xasprintf("%s/gres.conf", dir);
	unlink(f);
	free(f);
	rmdir(dir);
	return done_testing();
}
