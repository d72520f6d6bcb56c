/* Unit tests for the node's resource-use gathering (src/noded/jobacct.c)
 * on fixture /proc trees, and for the step merge (src/lib/step_usage.c). */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "noded/jobacct.h"
#include "states.h"
#include "step_usage.h"
#include "xalloc.h"

static char root[64];

/* A fake /proc/PID with its stat (and io unless io is NULL). */
static void fake_proc(int pid, const char *comm, int ppid, int session, unsigned majflt,
		      unsigned cmajflt, unsigned ut, unsigned st, unsigned cut, unsigned cst,
		      unsigned long long vsize, unsigned long rss, const char *io)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%d", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/stat", root, pid);
	FILE *f = fopen(path, "w");
	fprintf(f, "%d (%s) S %d %d %d 0 -1 4194304 99 0 %u %u %u %u %u %u 20 0 1 0 1452073 "
		"%llu %lu 18446744073709551615 1 2 3 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
		pid, comm, ppid, session, session, majflt, cmajflt, ut, st, cut, cst, vsize, rss);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%d/io", root, pid);
	if (io) {
		f = fopen(path, "w");
		fputs(io, f);
		fclose(f);
	} else {
		unlink(path);
	}
}

static void test_parsers(void)
{
	proc_stat_t ps;
	const char *real = "28610 (cat) R 28608 28608 28165 0 -1 4194304 99 0 3 1 7 2 4 5 20 0 1 0 "
		"1452073 3133440 374 18446744073709551615 94214731841536 94214731861417 0\n";
	ok(jobacct_parse_stat(real, &ps) == 0, "stat parsed");
	is_int(ps.pid, 28610, "pid");
	is_int(ps.ppid, 28608, "ppid");
	is_int(ps.session, 28165, "session");
	is_int(ps.majflt, 3, "majflt (field 12)");
	is_int(ps.cmajflt, 1, "cmajflt");
	is_int(ps.utime, 7, "utime");
	is_int(ps.stime, 2, "stime");
	is_int(ps.cutime, 4, "cutime");
	is_int(ps.cstime, 5, "cstime");
	is_int(ps.vsize, 3133440, "vsize");
	is_int(ps.rss, 374, "rss");
	ok(ps.state == 'R', "state");
	const char *odd = "77 (a) b (c) d) S 1 77 77 0 -1 0 0 0 9 0 1 1 0 0 20 0 1 0 5 4096 2 0\n";
	ok(jobacct_parse_stat(odd, &ps) == 0 && ps.session == 77 && ps.majflt == 9 &&
	   ps.rss == 2, "a comm with spaces and parentheses ends at the last ')'");
	ok(jobacct_parse_stat("12 (x) S 1 2 3\n", &ps) < 0, "a short line is refused");
	ok(jobacct_parse_stat("garbage", &ps) < 0, "garbage is refused");
	ok(jobacct_parse_stat("", &ps) < 0, "empty is refused");

	uint64_t r, w;
	ok(jobacct_parse_io("rchar: 6976\nwchar: 12\nsyscr: 10\nread_bytes: 4096\n", &r, &w) == 0 &&
	   r == 6976 && w == 12, "io: rchar and wchar");
	ok(jobacct_parse_io("syscr: 10\n", &r, &w) < 0, "io without them is refused");
}

static void test_conf(void)
{
	jobacct_conf_t c;
	char *err = NULL;
	ok(jobacct_conf_parse(NULL, NULL, &c, &err) == 0 && c.type == JAG_NONE && c.freq_s == 30,
	   "defaults: none, 30 s");
	ok(jobacct_conf_parse("jobacct_gather/linux", "task=5", &c, &err) == 0 &&
	   c.type == JAG_LINUX && c.freq_s == 5, "linux, task=5");
	ok(jobacct_conf_parse("jobacct_gather/cgroup", "10", &c, &err) == 0 &&
	   c.type == JAG_CGROUP && c.freq_s == 10, "cgroup, a plain number");
	ok(jobacct_conf_parse("jobacct_gather/linux", "energy=0,task=0,network=30", &c, &err) == 0 &&
	   c.freq_s == 0, "task=0 among other kinds: only at the end");
	ok(jobacct_conf_parse("jobacct_gather/none", NULL, &c, &err) == 0 && c.type == JAG_NONE,
	   "none");
	ok(jobacct_conf_parse("jobacct_gather/bogus", NULL, &c, &err) < 0 && err &&
	   strstr(err, "jobacct_gather/bogus"), "an unknown type is named");
	free(err);
	err = NULL;
	ok(jobacct_conf_parse("jobacct_gather/linux", "task=abc", &c, &err) < 0 && err &&
	   strstr(err, "task=abc"), "a bad frequency is named");
	free(err);
}

static void test_sample(void)
{
	snprintf(root, sizeof(root), "/tmp/test_jobacct.XXXXXX");
	ok(mkdtemp(root) != NULL, "fixture root");
	/* task 0 leads session 100: itself, a child, a grandchild with an
	 * odd name; 200 is someone else's; task 1 leads session 300 */
	fake_proc(100, "bash", 1, 100, 2, 1, 10, 5, 20, 10, 100ull << 20, 1000,
		  "rchar: 1000\nwchar: 10\n");
	fake_proc(101, "perl", 100, 100, 3, 0, 7, 1, 0, 0, 50ull << 20, 500,
		  "rchar: 500\nwchar: 5\n");
	fake_proc(102, "a (b) c", 101, 100, 0, 0, 1, 1, 0, 0, 10ull << 20, 100, NULL);
	fake_proc(200, "other", 1, 200, 99, 99, 999, 999, 999, 999, 999ull << 20, 99999,
		  "rchar: 99999\nwchar: 99999\n");
	fake_proc(300, "sh", 1, 300, 0, 0, 1, 0, 0, 0, 5ull << 20, 50, "rchar: 1\nwchar: 2\n");

	jobacct_conf_t c = { JAG_LINUX, 1 };
	jobacct_t *ja = jobacct_new(&c, 2, root);
	jobacct_task_start(ja, 0, 100, 4, 1000);
	jobacct_task_start(ja, 1, 300, 5, 1000);
	is_int(jobacct_due_ms(ja, 1500), 500, "first sample a period after the start");
	jobacct_sample(ja, 2000);
	ok(ja->full_scan, "no children files: every process of the host is read");
	is_int(jobacct_due_ms(ja, 2000), 1000, "next sample a period later");
	uint64_t pk = ja->page_kb, hz = ja->tick_hz;
	const task_usage_t *u = &ja->t[0].u;
	is_int(u->rss_kb, 1600 * pk, "RSS: the session's processes added up");
	is_int(u->vmsize_kb, 160 * 1024, "VMSize added up");
	is_int(u->pages, 2 + 1 + 3, "major faults, the leader's reaped children's included");
	is_int(u->user_cpu_us, (10 + 20 + 7 + 1) * 1000000 / hz, "user CPU with cutime");
	is_int(u->sys_cpu_us, (5 + 10 + 1 + 1) * 1000000 / hz, "system CPU with cstime");
	is_int(u->disk_read, 1500, "read bytes (rchar)");
	is_int(u->disk_write, 15, "write bytes (wchar)");
	is_int(ja->t[1].u.rss_kb, 50 * pk, "the other task has its own session");
	is_int(ja->samples, 1, "one sample counted");

	/* the child exits (RSS drops): the highest figures stay */
	char p[200];
	snprintf(p, sizeof(p), "rm -rf %s/101 %s/102", root, root);
	ok(system(p) == 0, "children gone");
	fake_proc(100, "bash", 1, 100, 2, 4, 10, 5, 30, 10, 100ull << 20, 800,
		  "rchar: 1700\nwchar: 20\n");
	jobacct_sample(ja, 3000);
	is_int(u->rss_kb, 1600 * pk, "MaxRSS kept after the tree shrank");
	is_int(u->disk_read, 1700, "read grows with the reaped child folded into the parent");
	is_int(u->user_cpu_us, (10 + 30) * 1000000 / hz, "CPU: the reaped children now in cutime");

	/* reaped: the exact rusage raises what the samples missed */
	struct rusage ru = { .ru_utime = { 100, 500 }, .ru_stime = { 0, 20 },
			     .ru_maxrss = 999999, .ru_majflt = 1 };
	jobacct_task_end(ja, 100, &ru);
	ok(ja->t[0].done, "task 0 done");
	is_int(u->user_cpu_us, 100000500, "user CPU from rusage when higher");
	is_int(u->sys_cpu_us, (5 + 10 + 1 + 1) * 1000000 / hz, "system CPU kept when higher");
	is_int(u->rss_kb, 999999, "ru_maxrss (a short job's memory)");
	jobacct_sample(ja, 4000);
	is_int(u->rss_kb, 999999, "a reaped task is sampled no more");

	/* sstat: the figures so far survive a save and a load, and one
	 * more sample on the loaded copy adds what runs now */
	ok(jobacct_save(ja, root) == 0, "usage saved");
	jobacct_t *ld = jobacct_load(&c, root, root);
	ok(ld && ld->n == 2, "usage loaded: 2 tasks");
	if (ld) {
		ok(ld->t[0].done && !ld->t[1].done, "task 0 reaped, task 1 running");
		is_int(ld->t[0].rank, 4, "rank kept");
		is_int(ld->t[1].sid, 300, "session kept");
		is_int(ld->t[0].u.rss_kb, 999999, "highest RSS kept");
		is_int(ld->t[0].u.user_cpu_us, 100000500, "CPU kept");
		fake_proc(300, "sh", 1, 300, 0, 0, 1, 0, 0, 0, 5ull << 20, 70, "rchar: 1\nwchar: 2\n");
		strbuf_t pids = STRBUF_INIT;
		ld->pids = &pids;
		jobacct_sample(ld, 0);
		is_int(ld->t[1].u.rss_kb, 70 * pk, "a live sample raises the running task's RSS");
		is_int(ld->t[0].u.rss_kb, 999999, "the reaped task is not sampled");
		is_str(pids.buf, "300,", "the pids the sample counted");
		strbuf_release(&pids);
		jobacct_free(ld);
	}
	snprintf(p, sizeof(p), "%s/usage", root);
	FILE *bad = fopen(p, "w");
	fputs("sluice-usage 1 2\n4 100 1 1 2 3\n", bad);
	fclose(bad);
	ok(jobacct_load(&c, root, root) == NULL, "a truncated usage file is refused");
	unlink(p);
	ok(jobacct_load(&c, root, root) == NULL, "no usage file: NULL");

	step_usage_t su;
	jobacct_usage(ja, &su);
	is_int(su.ntasks, 2, "usage of 2 tasks");
	is_int(su.max_rss_kb, 999999, "max RSS");
	is_int(su.max_rss_task, 4, "on rank 4");
	is_int(su.sum_rss_kb, 999999 + 50 * pk, "sum RSS");
	is_int(su.min_cpu_task, 5, "min CPU on rank 5");
	jobacct_free(ja);

	/* none: nothing is sampled, the rusage gives the CPU only */
	jobacct_conf_t none = { JAG_NONE, 30 };
	ja = jobacct_new(&none, 1, root);
	jobacct_task_start(ja, 0, 100, 0, 0);
	is_int(jobacct_due_ms(ja, 0), -1, "none: no periodic sample");
	jobacct_sample(ja, 0);
	is_int(ja->t[0].u.rss_kb, 0, "none: no sample taken");
	jobacct_task_end(ja, 100, &ru);
	is_int(ja->t[0].u.user_cpu_us, 100000500, "none: CPU from rusage");
	is_int(ja->t[0].u.rss_kb, 0, "none: no memory figure");
	jobacct_free(ja);
	snprintf(p, sizeof(p), "rm -rf %s", root);
	ok(system(p) == 0, "fixture removed");
}

static void children(int pid, const char *list)
{
	char path[200];
	snprintf(path, sizeof(path), "%s/%d/task", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task/%d", root, pid, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task/%d/children", root, pid, pid);
	FILE *f = fopen(path, "w");
	fputs(list, f);
	fclose(f);
}

/* With the kernel's children files: the tree from the task down. */
static void test_tree(void)
{
	snprintf(root, sizeof(root), "/tmp/test_jobacct.XXXXXX");
	ok(mkdtemp(root) != NULL, "fixture root");
	fake_proc(100, "bash", 1, 100, 0, 0, 1, 0, 0, 0, 10ull << 20, 100, "rchar: 1\nwchar: 1\n");
	fake_proc(101, "perl", 100, 100, 0, 0, 1, 0, 0, 0, 10ull << 20, 200, "rchar: 1\nwchar: 1\n");
	fake_proc(102, "x", 101, 100, 0, 0, 1, 0, 0, 0, 10ull << 20, 400, NULL);
	fake_proc(103, "own", 101, 103, 0, 0, 1, 0, 0, 0, 10ull << 20, 800, NULL);
	fake_proc(104, "y", 103, 103, 0, 0, 1, 0, 0, 0, 10ull << 20, 1600, NULL);
	/* same session but reparented to init: not in the tree */
	fake_proc(150, "orphan", 1, 100, 0, 0, 1, 0, 0, 0, 10ull << 20, 3200, NULL);
	children(100, "101 ");
	children(101, "102 103 ");
	children(102, "");
	children(103, "104 ");
	children(104, "");
	children(150, "");
	jobacct_conf_t c = { JAG_LINUX, 0 };
	jobacct_t *ja = jobacct_new(&c, 1, root);
	jobacct_task_start(ja, 0, 100, 0, 0);
	is_int(jobacct_due_ms(ja, 0), -1, "task=0: no periodic sample");
	jobacct_sample(ja, 0);
	ok(!ja->full_scan, "children files: the tree is walked");
	is_int(ja->t[0].u.rss_kb, 700 * ja->page_kb,
	       "the tree in the session: not what left it (setsid), nor an orphan");
	jobacct_free(ja);
	/* a visit budget (sstat's answer) stops the walk: 2 of the tree */
	ja = jobacct_new(&c, 1, root);
	jobacct_task_start(ja, 0, 100, 0, 0);
	int64_t budget = 2;
	ja->visit_budget = &budget;
	jobacct_sample(ja, 0);
	is_int(ja->t[0].u.rss_kb, 300 * ja->page_kb, "budget of 2: the leader and its child");
	ok(budget <= 0, "budget spent");
	jobacct_free(ja);
	char p[200];
	snprintf(p, sizeof(p), "rm -rf %s", root);
	ok(system(p) == 0, "fixture removed");
}

static void test_merge(void)
{
	/* node A: tasks 0,1; node B: tasks 2,3 */
	step_usage_t a = { 0 }, b = { 0 };
	task_usage_t t0 = { .rss_kb = 100, .vmsize_kb = 1000, .pages = 1, .user_cpu_us = 5000000,
			    .sys_cpu_us = 1000000, .disk_read = 10, .disk_write = 1 };
	task_usage_t t1 = { .rss_kb = 300, .vmsize_kb = 900, .pages = 0, .user_cpu_us = 1000000,
			    .sys_cpu_us = 0, .disk_read = 30, .disk_write = 0 };
	task_usage_t t2 = { .rss_kb = 200, .vmsize_kb = 5000, .pages = 7, .user_cpu_us = 2000000,
			    .sys_cpu_us = 0, .disk_read = 5, .disk_write = 50 };
	task_usage_t t3 = { .rss_kb = 300, .vmsize_kb = 100, .pages = 7, .user_cpu_us = 500000,
			    .sys_cpu_us = 0, .disk_read = 0, .disk_write = 0 };
	step_usage_add_task(&a, 0, &t0);
	step_usage_add_task(&a, 1, &t1);
	step_usage_add_task(&b, 2, &t2);
	step_usage_add_task(&b, 3, &t3);
	is_int(a.max_rss_kb, 300, "node A max RSS");
	is_int(a.max_rss_task, 1, "on task 1");
	is_int(a.min_cpu_us, 1000000, "node A min CPU");
	is_int(a.min_cpu_task, 1, "on task 1");

	step_usage_t s = { 0 };
	unsigned took = step_usage_merge(&s, &a);
	is_int(took, USAGE_M_RSS | USAGE_M_VMSIZE | USAGE_M_PAGES | USAGE_M_CPU | USAGE_M_READ |
	       USAGE_M_WRITE, "an empty step takes every extreme from the first node");
	took = step_usage_merge(&s, &b);
	is_int(took, USAGE_M_VMSIZE | USAGE_M_PAGES | USAGE_M_CPU | USAGE_M_WRITE,
	       "the second node gives the extremes it beats (an RSS tie stays)");
	is_int(s.ntasks, 4, "4 tasks");
	is_int(s.max_rss_kb, 300, "max RSS");
	is_int(s.max_rss_task, 1, "tie keeps the first");
	is_int(s.max_vmsize_kb, 5000, "max VMSize");
	is_int(s.max_vmsize_task, 2, "on task 2");
	is_int(s.min_cpu_us, 500000, "min CPU");
	is_int(s.min_cpu_task, 3, "on task 3");
	is_int(s.user_cpu_us, 8500000, "user CPU summed");
	is_int(s.sys_cpu_us, 1000000, "system CPU summed");
	is_int(step_usage_ave(s.sum_rss_kb, s.ntasks), 225, "average RSS over the tasks");
	is_int(step_usage_ave(s.sum_disk_write, s.ntasks), 12, "average write");
	is_int(step_usage_ave(5, 0), 0, "no tasks, no average");
	step_usage_t empty = { 0 };
	is_int(step_usage_merge(&s, &empty), 0, "an empty report changes nothing");
	is_int(s.ntasks, 4, "still 4 tasks");

	/* weighted by tasks: 1 task of 100 + 3 tasks of 300 -> 250 */
	step_usage_t x = { 0 }, y = { 0 };
	task_usage_t small = { .rss_kb = 100 }, big = { .rss_kb = 300 };
	step_usage_add_task(&x, 0, &small);
	for (uint32_t i = 1; i < 4; i++)
		step_usage_add_task(&y, i, &big);
	step_usage_merge(&x, &y);
	is_int(step_usage_ave(x.sum_rss_kb, x.ntasks), 250, "averages weighted by tasks");

	uint32_t st = 0, ex = 0;
	step_state_merge(&st, &ex, JOB_COMPLETE, 0);
	is_int(st, JOB_COMPLETE, "first state taken");
	step_state_merge(&st, &ex, JOB_FAILED, 3 << 8);
	is_int(st, JOB_FAILED, "FAILED beats COMPLETED");
	step_state_merge(&st, &ex, JOB_FAILED, 7 << 8);
	is_int(ex, 7 << 8, "between equals the higher exit");
	step_state_merge(&st, &ex, JOB_COMPLETE, 0);
	is_int(st, JOB_FAILED, "COMPLETED does not undo FAILED");
	step_state_merge(&st, &ex, JOB_CANCELLED, 9);
	is_int(st, JOB_CANCELLED, "CANCELLED beats FAILED");
	is_int(ex, 9, "with its status");
	step_state_merge(&st, &ex, JOB_TIMEOUT, 15);
	is_int(st, JOB_TIMEOUT, "TIMEOUT beats CANCELLED");
	step_state_merge(&st, &ex, JOB_NODE_FAIL, 0);
	is_int(st, JOB_NODE_FAIL, "NODE_FAIL beats all");
}

static void test_states(void)
{
	uint32_t st, ex;
	int ok3[] = { 0, 0, 0 };
	step_node_state(ok3, 3, 0, 0, &st, &ex);
	ok(st == JOB_COMPLETE && ex == 0, "every task 0: COMPLETED 0:0");
	int f[] = { 0, 3 << 8, 1 << 8 };
	step_node_state(f, 3, 0, 0, &st, &ex);
	ok(st == JOB_FAILED && ex == 3 << 8, "exit 3 and 1: FAILED 3:0");
	int k[] = { 3 << 8, 9 };
	step_node_state(k, 2, 0, 0, &st, &ex);
	ok(st == JOB_CANCELLED && ex == 9, "killed by 9: CANCELLED 0:9");
	int t[] = { 15 };
	step_node_state(t, 1, 1, 0, &st, &ex);
	ok(st == JOB_TIMEOUT && ex == 15, "past its limit: TIMEOUT 0:15");
	int done[] = { 0 };
	step_node_state(done, 1, 1, 0, &st, &ex);
	ok(st == JOB_COMPLETE, "ended well at the limit: COMPLETED");
	step_node_state(t, 1, 0, JOB_NODE_FAIL, &st, &ex);
	ok(st == JOB_NODE_FAIL, "stopped for its node: NODE_FAIL");
	step_node_state(t, 1, 0, JOB_CANCELLED, &st, &ex);
	ok(st == JOB_CANCELLED && ex == 15, "cancelled with its job: CANCELLED 0:15");

	batch_step_state(0, &st, &ex);
	ok(st == JOB_COMPLETE && ex == 0, "batch: COMPLETED");
	batch_step_state(2 << 8, &st, &ex);
	ok(st == JOB_FAILED && ex == 2 << 8, "batch exit 2: FAILED 2:0");
	/* The Slurm 22.05 capture: job 3 (sleep 600) cancelled while
	 * running, sacct_default.txt's 3.batch reads CANCELLED 0:15. */
	batch_step_state(15, &st, &ex);
	ok(st == JOB_CANCELLED && ex == 15, "batch after scancel or past its limit: CANCELLED 0:15");
	batch_step_state(9, &st, &ex);
	ok(st == JOB_CANCELLED && ex == 9, "batch killed by a signal: CANCELLED 0:9");
	batch_step_state(3 << 8, &st, &ex);
	ok(st == JOB_FAILED && ex == 3 << 8, "a cancelled script that exits: its exit code");
}

int main(void)
{
	test_parsers();
	test_conf();
	test_sample();
	test_tree();
	test_merge();
	test_states();
	return done_testing();
}
