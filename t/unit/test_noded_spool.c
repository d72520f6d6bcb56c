/* Unit tests for the node daemon's spool records and control requests
 * (src/noded/spool.c) and the /proc parsers of resources.c. */
#include "tap.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "noded/noded.h"
#include "states.h"
#include "xalloc.h"

int main(void)
{
	char tmpl[] = "/tmp/test_noded_spool.XXXXXX";
	char *spool = mkdtemp(tmpl);
	ok(spool != NULL, "temp spool");
	if (!spool)
		return done_testing();

	char *dir = spool_job_dir(spool, 17);
	ok(mkdir(dir, 0755) == 0, "job dir created");
	spool_rec_t r = { .job_id = 17, .step_id = NODED_BATCH_STEP, .launch_seq = 3,
			  .pid = getpid(), .pid_start = proc_start_time(getpid()) };
	ok(r.pid_start > 0, "own start time read");
	ok(spool_rec_write(dir, &r) == 0, "record written");
	spool_rec_t back;
	ok(spool_rec_read(dir, &back) == 0, "record read");
	is_int(back.job_id, 17, "job id");
	is_int(back.step_id, NODED_BATCH_STEP, "step id");
	is_int(back.launch_seq, 3, "launch seq");
	is_int(back.pid, getpid(), "pid");
	ok(back.pid_start == r.pid_start, "pid start");
	ok(!back.done, "not done");
	ok(spool_rec_alive(&back), "we are alive");
	back.pid_start++;
	ok(!spool_rec_alive(&back), "another start time is another process");

	r.done = 1;
	r.exit_status = 3 << 8;
	r.end_state = JOB_FAILED;
	r.end_time = 1700000000;
	ok(spool_rec_write(dir, &r) == 0, "result written");
	ok(spool_rec_read(dir, &back) == 0 && back.done && back.exit_status == (3u << 8) &&
	   back.end_state == JOB_FAILED && back.end_time == 1700000000, "result read back");

	spool_rec_t bad;
	ok(spool_rec_parse("job_id=1\n", &bad) < 0, "record without pid rejected");
	ok(spool_rec_parse("job_id=x\npid=2\n", &bad) < 0, "bad number rejected");
	ok(spool_rec_parse("job_id=1\npid=2\nfuture=9\n", &bad) == 0, "unknown key skipped");

	msg_signal_job_t m1 = { .job_id = 17, .signal = 10 };
	msg_signal_job_t m2 = { .job_id = 17, .signal = 15, .flags = SIGNAL_F_KILL_JOB,
				.kill_wait = 5, .end_state = JOB_CANCELLED };
	ok(spool_request_write(dir, &m1) == 0, "request 1 queued");
	ok(spool_request_write(dir, &m2) == 0, "request 2 queued");
	msg_signal_job_t got;
	ok(spool_request_take(dir, &got) == 1 && got.signal == 10 && got.flags == 0,
	   "first request first");
	ok(spool_request_take(dir, &got) == 1 && got.signal == 15 &&
	   got.flags == SIGNAL_F_KILL_JOB && got.kill_wait == 5 && got.end_state == JOB_CANCELLED,
	   "second request");
	ok(spool_request_take(dir, &got) == 0, "queue empty");

	ok(proc_start_time(0x7ffffff0) == 0, "no such pid");

	/* step credentials: once per node, until they expire */
	int64_t now = 1700000000;
	ok(spool_cred_use(spool, 17, 0, now + 120, now) == 0, "credential 17.0 used");
	ok(spool_cred_use(spool, 17, 0, now + 120, now + 1) < 0, "17.0 again refused");
	ok(spool_cred_use(spool, 17, 1, now + 120, now + 1) == 0, "17.1 is another one");
	ok(spool_cred_use(spool, 18, 0, now + 30, now + 1) == 0, "18.0 used");
	ok(spool_cred_use(spool, 17, 0, now + 120, now + 60) < 0,
	   "17.0 still refused after another one expired");
	char *mark = xasprintf("%s/cred.18.0", spool);
	ok(access(mark, F_OK) != 0, "the expired mark was dropped");
	free(mark);
	ok(spool_cred_use(spool, 17, 0, now + 120, now + 121) == 0,
	   "17.0 past its expiry: the mark is gone (the credential itself is refused as expired)");

	is_int(meminfo_avail_mb("MemTotal: 100 kB\nMemFree: 2048 kB\nMemAvailable: 4096 kB\n"), 4,
	       "MemAvailable in MB");
	is_int(meminfo_avail_mb("MemFree: 8192 kB\n"), 8, "MemFree fallback");
	is_int(loadavg_x100("0.57 0.40 0.30 1/100 999\n"), 57, "load * 100");
	is_int(stat_btime("cpu 1 2 3\nbtime 1699999999\nprocesses 5\n"), 1699999999, "btime");

	ok(rm_rf(spool) == 0, "spool removed");
	ok(access(spool, F_OK) != 0, "gone");
	free(dir);
	return done_testing();
}
