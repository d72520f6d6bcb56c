/* Unit tests for the node daemon's spool records and control requests
 * (src/noded/spool.c) and the /proc parsers of resources.c. */
#include "tap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
	msg_signal_job_t m3 = { .job_id = 17, .flags = SIGNAL_F_TIME_LIMIT, .end_time = 1800000123 };
	ok(spool_request_write(dir, &m3) == 0 && spool_request_take(dir, &got) == 1 &&
	   got.flags == SIGNAL_F_TIME_LIMIT && got.end_time == 1800000123 && got.signal == 0,
	   "a time limit request carries the new end");
	msg_signal_job_t m4 = { .job_id = 17, .flags = SIGNAL_F_NOTIFY,
				.message = (char *)"hello\nthere=1 \xc3\xa9" };
	ok(spool_request_write(dir, &m4) == 0 && spool_request_take(dir, &got) == 1 &&
	   got.flags == SIGNAL_F_NOTIFY && got.message &&
	   !strcmp(got.message, "hello\nthere=1 \xc3\xa9"),
	   "a notify request carries its text, any byte");
	free(got.message);

	/* The node's lease: missing or 0 never expires; renewed just now
	 * with a lease is current; renewed longer ago than the lease is not. */
	uint64_t rn = 0, ln = 0;
	ok(spool_lease_read(spool, &rn, &ln) < 0, "no lease file");
	ok(!spool_lease_expired(spool), "no lease file: nothing expires");
	uint64_t now = boottime_ms();
	ok(now > 0, "boot time clock");
	ok(spool_lease_write(spool, now, 12000) == 0, "lease written");
	ok(spool_lease_read(spool, &rn, &ln) == 0 && rn == now && ln == 12000, "lease read back");
	ok(!spool_lease_expired(spool), "fresh lease holds");
	ok(spool_lease_write(spool, now > 20000 ? now - 20000 : 0, 12000) == 0 &&
	   (now <= 20000 || spool_lease_expired(spool)), "a lease renewed 20 s ago for 12 s ran out");
	ok(spool_lease_write(spool, now > 20000 ? now - 20000 : 0, 0) == 0 &&
	   !spool_lease_expired(spool), "lease 0 (SlurmdTimeout=0) never runs out");

	/* The tasks of a dead supervisor: killed by group, session and
	 * start time; a recorded pid that now names another process (a
	 * different start time) is left alone. */
	pid_t child = fork();
	if (child == 0) {
		setsid();
		pause();
		_exit(0);
	}
	ok(child > 0, "task forked");
	while (child > 0 && getsid(child) != child)
		usleep(1000);
	ok(spool_tasks_write(dir, &child, 1) == 0, "tasks written");
	char *tpath = xasprintf("%s/tasks", dir);
	char *line = xasprintf("%d %llu\n", (int)child,
			       (unsigned long long)proc_start_time(child) + 1);
	FILE *fp = fopen(tpath, "w");
	ok(fp && fputs(line, fp) >= 0 && fclose(fp) == 0, "tasks rewritten with another start time");
	is_int(spool_tasks_kill(dir), 0, "another process under that pid is not killed");
	ok(kill(child, 0) == 0, "task still alive");
	ok(spool_tasks_write(dir, &child, 1) == 0, "tasks written again");
	is_int(spool_tasks_kill(dir), 1, "the task's group is killed");
	int st = 0;
	ok(waitpid(child, &st, 0) == child && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	   "task died of SIGKILL");
	free(line);
	free(tpath);

	ok(proc_start_time(0x7ffffff0) == 0, "no such pid");

	/* step credentials: once per node, until they expire */
	int64_t cnow = 1700000000;
	ok(spool_cred_use(spool, 17, 0, cnow + 120, cnow) == 0, "credential 17.0 used");
	ok(spool_cred_use(spool, 17, 0, cnow + 120, cnow + 1) < 0, "17.0 again refused");
	ok(spool_cred_use(spool, 17, 1, cnow + 120, cnow + 1) == 0, "17.1 is another one");
	ok(spool_cred_use(spool, 18, 0, cnow + 30, cnow + 1) == 0, "18.0 used");
	ok(spool_cred_use(spool, 17, 0, cnow + 120, cnow + 60) < 0,
	   "17.0 still refused after another one expired");
	char *mark = xasprintf("%s/cred.18.0", spool);
	ok(access(mark, F_OK) != 0, "the expired mark was dropped");
	free(mark);
	ok(spool_cred_use(spool, 17, 0, cnow + 120, cnow + 121) == 0,
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
