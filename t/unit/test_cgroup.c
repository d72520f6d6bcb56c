/* Unit tests for the node daemon's cgroups (src/noded/cgroup.c) on fake
 * v1 and v2 trees of plain files: layout, limits, attach, kill, OOM and
 * usage figures, removal, version detection, and the pure helpers. */
#include "tap.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "noded/cgroup.h"
#include "xalloc.h"

static void put(const char *root, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

static char *get(const char *root, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(p, "r");
	free(p);
	if (!f)
		return xstrdup("(none)");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	return xstrdup(buf);
}

static int isdir(const char *root, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	struct stat st;
	int r = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
	free(p);
	return r;
}

static void mkd(const char *root, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	mkdir(p, 0755);
	free(p);
}

#define IS_FILE(root, rel, want, what) do { char *g__ = get(root, rel); \
	is_str(g__, want, what); free(g__); } while (0)

static pid_t sleeper(void)
{
	pid_t p = fork();
	if (p == 0) {
		pause();
		_exit(0);
	}
	return p;
}

static void fake_settings(cg_settings_t *s, const char *root, const char *plugin)
{
	memset(s, 0, sizeof(*s));
	s->plugin = plugin;
	s->root = root;
	s->node = "comp001";
	s->constrain_cores = s->constrain_ram = s->constrain_swap = s->constrain_devices = 1;
	s->allowed_ram_pct = 100;
	s->allowed_swap_pct = 10;
	s->max_ram_pct = s->max_swap_pct = 100;
	s->min_ram_mb = 30;
	s->node_mem_mb = 32768;
	s->threads_per_core = 1;
}

static void test_v1(void)
{
	char tmpl[] = "/tmp/test_cgroup_v1.XXXXXX";
	char *root = mkdtemp(tmpl);
	ok(root != NULL, "v1: fake root");
	static const char *const ctrls[] = { "freezer", "cpuset", "memory", "devices" };
	for (int i = 0; i < 4; i++) {
		mkd(root, ctrls[i]);
		char *f = xasprintf("%s/cgroup.procs", ctrls[i]);
		put(root, f, "");
		free(f);
	}
	put(root, "cpuset/cpuset.cpus", "0-7\n");
	put(root, "cpuset/cpuset.mems", "0\n");

	cg_settings_t s;
	fake_settings(&s, root, "autodetect");
	char *why = NULL;
	cgroup_t *cg = cgroup_open(&s, &why);
	ok(cg != NULL, "v1: opened (%s)", why ? why : "no error");
	if (!cg)
		return;
	is_int(cgroup_version(cg), CG_V1, "v1: autodetect finds v1");
	ok(cgroup_unsupported(cg) == NULL, "v1: ConstrainDevices supported");
	ok(isdir(root, "freezer/slurm_comp001") && isdir(root, "memory/slurm_comp001") &&
	   isdir(root, "devices/slurm_comp001"), "v1: node subtree slurm_<node> in each hierarchy");
	IS_FILE(root, "cpuset/slurm_comp001/cpuset.cpus", "0-7", "v1: node cpuset has the parent's CPUs");
	IS_FILE(root, "cpuset/slurm_comp001/cpuset.mems", "0", "v1: and memory nodes");

	dev_t deny[2] = { makedev(195, 3), makedev(195, 5) };
	cg_limits_t lim = { .cores = "1-2", .mem_mb = 100, .deny = deny, .ndeny = 2 };
	char *err = NULL;
	ok(cgroup_step_create(cg, 1000, 5, CG_STEP_BATCH, &lim, &err) == 0, "v1: job 5 created");
	const char *J = "slurm_comp001/uid_1000/job_5";
	char *p;
	ok(isdir(root, p = xasprintf("freezer/%s/step_batch", J)), "v1: freezer .../job_5/step_batch");
	free(p);
	IS_FILE(root, p = xasprintf("memory/%s/memory.limit_in_bytes", J), "104857600",
		"v1: memory limit of the job");
	free(p);
	IS_FILE(root, p = xasprintf("memory/%s/memory.memsw.limit_in_bytes", J), "115343360",
		"v1: memory+swap limit (AllowedSwapSpace=10)");
	free(p);
	IS_FILE(root, p = xasprintf("cpuset/%s/cpuset.cpus", J), "1-2", "v1: job cpuset = its cores");
	free(p);
	IS_FILE(root, p = xasprintf("cpuset/%s/step_batch/cpuset.cpus", J), "1-2",
		"v1: step inherits the job's CPUs");
	free(p);
	IS_FILE(root, p = xasprintf("devices/%s/devices.deny", J), "c 195:3 rwmc 195:5 rwm",
		"v1: GPUs not given denied");
	free(p);

	/* a second step: the job's limits are not set again */
	put(root, "memory/slurm_comp001/uid_1000/job_5/memory.limit_in_bytes", "1");
	ok(cgroup_step_create(cg, 1000, 5, 0, &lim, &err) == 0, "v1: step 0 created");
	IS_FILE(root, p = xasprintf("memory/%s/memory.limit_in_bytes", J), "1",
		"v1: existing job keeps its limits");
	free(p);

	pid_t kid = sleeper();
	ok(cgroup_step_attach(cg, 1000, 5, CG_STEP_BATCH, kid) == 0, "v1: attach");
	char want[32];
	snprintf(want, sizeof(want), "%d", (int)kid);
	IS_FILE(root, p = xasprintf("freezer/%s/step_batch/cgroup.procs", J), want,
		"v1: pid in the freezer step");
	free(p);
	IS_FILE(root, p = xasprintf("memory/%s/step_batch/cgroup.procs", J), want,
		"v1: pid in the memory step");
	free(p);
	is_int(cgroup_nprocs(cg, 1000, 5, CG_STEP_BATCH), 1, "v1: one process in the step");
	is_int(cgroup_nprocs(cg, CG_UID_ANY, 5, CG_STEP_ALL), 1, "v1: found by job id alone");
	char *path = cgroup_path(cg, "memory", CG_UID_ANY, 5, 0);
	char *wantp = xasprintf("%s/memory/%s/step_0", root, J);
	is_str(path, wantp, "v1: path found by job id (after a restart)");
	free(path);
	free(wantp);
	is_int(cgroup_signal(cg, CG_UID_ANY, 5, CG_STEP_ALL, SIGKILL), 1, "v1: kill signals the process");
	int st = 0;
	waitpid(kid, &st, 0);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "v1: it died of SIGKILL");
	IS_FILE(root, p = xasprintf("freezer/%s/freezer.state", J), "THAWED", "v1: thawed after the kill");
	free(p);

	put(root, "memory/slurm_comp001/uid_1000/job_5/step_batch/memory.oom_control",
	    "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
	is_int(cgroup_oom_kills(cg, 1000, 5, CG_STEP_BATCH), 2, "v1: oom_kill of memory.oom_control");
	is_int(cgroup_oom_kills(cg, 1000, 5, 0), 0, "v1: none in step 0");
	put(root, "memory/slurm_comp001/uid_1000/job_5/step_batch/memory.max_usage_in_bytes", "2097152\n");
	put(root, "memory/slurm_comp001/uid_1000/job_5/memory.usage_in_bytes", "4096\n");
	uint64_t cpu_now = 1, mem_now = 0;
	ok(cgroup_job_now(cg, 5, &cpu_now, &mem_now) < 0,
	   "v1: no cpuacct in use: no figures (metrics takes both from /proc)");
	ok(cgroup_job_now(cg, 6, &cpu_now, &mem_now) < 0, "v1: no cgroup for job 6");
	uint64_t u, sy, pk;
	ok(cgroup_usage(cg, 1000, 5, CG_STEP_BATCH, &u, &sy, &pk) == 0 && pk == 2048,
	   "v1: peak memory from memory.max_usage_in_bytes");

	ok(cgroup_remove(cg, 1000, 5, 0) == 0, "v1: step 0 removed");
	ok(!isdir(root, "freezer/slurm_comp001/uid_1000/job_5/step_0") &&
	   isdir(root, "freezer/slurm_comp001/uid_1000/job_5"), "v1: the job stays while a step is left");
	ok(cgroup_remove(cg, 1000, 5, CG_STEP_BATCH) == 0, "v1: batch step removed");
	ok(!isdir(root, "freezer/slurm_comp001/uid_1000") && !isdir(root, "memory/slurm_comp001/uid_1000") &&
	   isdir(root, "memory/slurm_comp001"), "v1: job and uid dirs gone, node subtree stays");
	cgroup_close(cg);

	/* jobacct_gather/cgroup: cpuacct and memory joined, read for usage */
	mkd(root, "cpuacct");
	put(root, "cpuacct/cgroup.procs", "");
	fake_settings(&s, root, "cgroup/v1");
	s.account = 1;
	cg = cgroup_open(&s, &why);
	ok(cg != NULL, "v1 with cpuacct: opened");
	if (cg) {
		ok(cgroup_step_create(cg, 1000, 7, CG_STEP_BATCH, NULL, &err) == 0, "v1: job 7 created");
		put(root, "cpuacct/slurm_comp001/uid_1000/job_7/cpuacct.usage", "5000000\n");
		put(root, "memory/slurm_comp001/uid_1000/job_7/memory.usage_in_bytes", "100\n");
		uint64_t cpu_now = 0, mem_now = 0;
		ok(cgroup_job_now(cg, 7, &cpu_now, &mem_now) == 0 && cpu_now == 5000 && mem_now == 100,
		   "v1: the job's CPU and memory now from cpuacct.usage and memory.usage_in_bytes");
		long hz = sysconf(_SC_CLK_TCK);
		char st[64];
		snprintf(st, sizeof(st), "user %ld\nsystem %ld\n", 2 * hz, hz);
		put(root, "cpuacct/slurm_comp001/uid_1000/job_7/step_batch/cpuacct.stat", st);
		ok(cgroup_usage(cg, 1000, 7, CG_STEP_BATCH, &u, &sy, &pk) == 0 && u == 2000000 && sy == 1000000,
		   "v1: user and system CPU of the step from cpuacct.stat");
		ok(cgroup_remove(cg, 1000, 7, CG_STEP_ALL) == 0 && !isdir(root, "cpuacct/slurm_comp001/uid_1000"),
		   "v1: job 7 removed");
		cgroup_close(cg);
	}

	/* what the config asks for must be there */
	fake_settings(&s, root, "cgroup/v2");
	cg = cgroup_open(&s, &why);
	ok(!cg && why && strstr(why, "CgroupPlugin=cgroup/v2 but"), "v1 root, cgroup/v2 asked: refused (%s)",
	   why ? why : "");
	free(why);
	fake_settings(&s, "/nonexistent/cg", "autodetect");
	cg = cgroup_open(&s, &why);
	ok(!cg && why && strstr(why, "no cgroup v1 or v2"), "no cgroups: refused with a reason");
	free(why);
	char *cmd = xasprintf("rm -rf %s", root);
	(void)!system(cmd);
	free(cmd);
}

static void test_v2(void)
{
	char tmpl[] = "/tmp/test_cgroup_v2.XXXXXX";
	char *root = mkdtemp(tmpl);
	ok(root != NULL, "v2: fake root");
	put(root, "cgroup.controllers", "cpuset cpu io memory pids\n");
	put(root, "cgroup.procs", "");
	cg_settings_t s;
	fake_settings(&s, root, "autodetect");
	s.prefix = "t1";
	char *why = NULL;
	cgroup_t *cg = cgroup_open(&s, &why);
	ok(cg != NULL, "v2: opened");
	if (!cg)
		return;
	is_int(cgroup_version(cg), CG_V2, "v2: autodetect finds v2");
	ok(cgroup_unsupported(cg) == NULL, "v2: ConstrainDevices through a BPF program (not on a fake tree)");
	const char *S = "system.slice/t1_comp001_slurmstepd.scope";
	ok(isdir(root, S), "v2: node scope under system.slice");
	char *err = NULL;
	cg_limits_t lim = { .cores = "0,2", .mem_mb = 2048 };
	ok(cgroup_step_create(cg, 1000, 9, CG_STEP_BATCH, &lim, &err) == 0, "v2: job 9 created");
	char *p;
	IS_FILE(root, p = xasprintf("%s/job_9/memory.max", S), "2147483648", "v2: memory.max");
	free(p);
	IS_FILE(root, p = xasprintf("%s/job_9/memory.swap.max", S), "213909504", "v2: memory.swap.max (10%% of 2048 MB, whole MB)");
	free(p);
	IS_FILE(root, p = xasprintf("%s/job_9/cpuset.cpus", S), "0,2", "v2: cpuset.cpus");
	free(p);
	ok(isdir(root, p = xasprintf("%s/job_9/step_batch", S)), "v2: step_batch");
	free(p);

	pid_t kid = sleeper();
	ok(cgroup_step_attach(cg, 1000, 9, CG_STEP_BATCH, kid) == 0, "v2: attach");
	is_int(cgroup_nprocs(cg, 1000, 9, CG_STEP_ALL), 1, "v2: one process in the job");
	is_int(cgroup_signal(cg, 1000, 9, CG_STEP_ALL, SIGKILL), 1, "v2: kill");
	int st = 0;
	waitpid(kid, &st, 0);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "v2: it died of SIGKILL");
	IS_FILE(root, p = xasprintf("%s/job_9/cgroup.freeze", S), "0", "v2: thawed after the kill");
	free(p);
	put(root, "system.slice/t1_comp001_slurmstepd.scope/job_9/memory.events",
	    "low 0\nhigh 0\nmax 4\noom 1\noom_kill 3\n");
	put(root, "system.slice/t1_comp001_slurmstepd.scope/job_9/step_batch/memory.events",
	    "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n");
	is_int(cgroup_oom_kills(cg, 1000, 9, CG_STEP_BATCH), 1, "v2: oom_kill of the step's memory.events");
	is_int(cgroup_oom_kills(cg, 1000, 9, CG_STEP_ALL), 3, "v2: and the job's (every step)");
	put(root, "system.slice/t1_comp001_slurmstepd.scope/job_9/step_batch/cpu.stat",
	    "usage_usec 3000\nuser_usec 2000\nsystem_usec 1000\n");
	put(root, "system.slice/t1_comp001_slurmstepd.scope/job_9/step_batch/memory.peak", "1048576\n");
	put(root, "system.slice/t1_comp001_slurmstepd.scope/job_9/cpu.stat", "usage_usec 7000\n");
	put(root, "system.slice/t1_comp001_slurmstepd.scope/job_9/memory.current", "8192\n");
	uint64_t cpu_now = 0, mem_now = 0;
	ok(cgroup_job_now(cg, 9, &cpu_now, &mem_now) == 0 && cpu_now == 7000 && mem_now == 8192,
	   "v2: the job's CPU and memory now (metrics)");
	uint64_t u, sy, pk;
	ok(cgroup_usage(cg, 1000, 9, CG_STEP_BATCH, &u, &sy, &pk) == 0 && u == 2000 && sy == 1000 &&
	   pk == 1024, "v2: usage from cpu.stat and memory.peak");
	put(root, "system.slice/t1_comp001_slurmstepd.scope/job_9/step_batch/cgroup.procs", "");
	ok(cgroup_remove(cg, 1000, 9, CG_STEP_ALL) == 0 && !isdir(root, "system.slice/t1_comp001_slurmstepd.scope/job_9"),
	   "v2: job removed");
	cgroup_close(cg);

	fake_settings(&s, root, "cgroup/v1");
	cg = cgroup_open(&s, &why);
	ok(!cg && why && strstr(why, "no cgroup v1 freezer"), "v2 root, cgroup/v1 asked: refused");
	free(why);
	char *cmd = xasprintf("rm -rf %s", root);
	(void)!system(cmd);
	free(cmd);
}

/* PidsLimit (a Sluice key): pids.max on job_J, in the v1 pids hierarchy
 * or the v2 pids controller; nothing of it without the key. */
static void test_pids(void)
{
	char tmpl[] = "/tmp/test_cgroup_pids.XXXXXX";
	char *root = mkdtemp(tmpl);
	ok(root != NULL, "pids: fake v1 root");
	static const char *const ctrls[] = { "freezer", "pids" };
	for (int i = 0; i < 2; i++) {
		mkd(root, ctrls[i]);
		char *f = xasprintf("%s/cgroup.procs", ctrls[i]);
		put(root, f, "");
		free(f);
	}
	cg_settings_t s;
	fake_settings(&s, root, "cgroup/v1");
	s.constrain_cores = s.constrain_ram = s.constrain_swap = s.constrain_devices = 0;
	char *why = NULL, *err = NULL, *p;
	cgroup_t *cg = cgroup_open(&s, &why);
	ok(cg != NULL, "pids v1, no PidsLimit: opened (%s)", why ? why : "no error");
	if (cg) {
		ok(cgroup_step_create(cg, 1000, 3, CG_STEP_BATCH, NULL, &err) == 0, "pids v1: job 3 created");
		ok(isdir(root, "freezer/slurm_comp001/uid_1000/job_3/step_batch") &&
		   !isdir(root, "pids/slurm_comp001"), "pids v1: without PidsLimit the pids hierarchy is not used");
		cgroup_remove(cg, 1000, 3, CG_STEP_ALL);
		cgroup_close(cg);
	}

	s.pids_limit = 64;
	cg = cgroup_open(&s, &why);
	ok(cg != NULL, "pids v1, PidsLimit=64: opened (%s)", why ? why : "no error");
	if (cg) {
		ok(cgroup_step_create(cg, 1000, 4, CG_STEP_BATCH, NULL, &err) == 0, "pids v1: job 4 created");
		const char *J = "pids/slurm_comp001/uid_1000/job_4";
		IS_FILE(root, p = xasprintf("%s/pids.max", J), "64", "pids v1: pids.max of the job");
		free(p);
		ok(!isdir(root, p = xasprintf("%s/step_batch/pids.max", J)), "pids v1: not on the step");
		free(p);
		put(root, "pids/slurm_comp001/uid_1000/job_4/pids.max", "max");
		ok(cgroup_step_create(cg, 1000, 4, 0, NULL, &err) == 0, "pids v1: step 0 created");
		IS_FILE(root, p = xasprintf("%s/pids.max", J), "max", "pids v1: a second step sets nothing again");
		free(p);
		pid_t kid = sleeper();
		ok(cgroup_step_attach(cg, 1000, 4, CG_STEP_BATCH, kid) == 0, "pids v1: attach");
		char want[32];
		snprintf(want, sizeof(want), "%d", (int)kid);
		IS_FILE(root, p = xasprintf("%s/step_batch/cgroup.procs", J), want, "pids v1: pid in the pids step");
		free(p);
		cgroup_signal(cg, 1000, 4, CG_STEP_ALL, SIGKILL);
		waitpid(kid, NULL, 0);
		put(root, "freezer/slurm_comp001/uid_1000/job_4/step_batch/cgroup.procs", "");
		put(root, "pids/slurm_comp001/uid_1000/job_4/step_batch/cgroup.procs", "");
		ok(cgroup_remove(cg, 1000, 4, CG_STEP_ALL) == 0 && !isdir(root, "pids/slurm_comp001/uid_1000"),
		   "pids v1: removed with the job");
		cgroup_close(cg);
	}
	char *cmd = xasprintf("rm -rf %s/pids", root);
	(void)!system(cmd);
	free(cmd);
	cg = cgroup_open(&s, &why);
	ok(!cg && why && strstr(why, "no cgroup v1 pids hierarchy"), "pids v1: no pids hierarchy: refused (%s)",
	   why ? why : "");
	free(why);
	cmd = xasprintf("rm -rf %s", root);
	(void)!system(cmd);
	free(cmd);

	/* v2 */
	char tmpl2[] = "/tmp/test_cgroup_pids2.XXXXXX";
	root = mkdtemp(tmpl2);
	ok(root != NULL, "pids: fake v2 root");
	put(root, "cgroup.controllers", "cpuset cpu io memory pids\n");
	fake_settings(&s, root, "cgroup/v2");
	s.constrain_devices = 0;
	const char *S = "system.slice/comp001_slurmstepd.scope";
	cg = cgroup_open(&s, &why);
	ok(cg != NULL, "pids v2, no PidsLimit: opened");
	if (cg) {
		ok(cgroup_step_create(cg, 1000, 5, CG_STEP_BATCH, NULL, &err) == 0, "pids v2: job 5 created");
		IS_FILE(root, p = xasprintf("%s/job_5/pids.max", S), "(none)", "pids v2: no pids.max without PidsLimit");
		free(p);
		cgroup_remove(cg, 1000, 5, CG_STEP_ALL);
		cgroup_close(cg);
	}
	s.pids_limit = 100;
	cg = cgroup_open(&s, &why);
	ok(cg != NULL, "pids v2, PidsLimit=100: opened");
	if (cg) {
		ok(cgroup_unsupported(cg) == NULL, "pids v2: the pids controller is there");
		ok(cgroup_step_create(cg, 1000, 6, CG_STEP_BATCH, NULL, &err) == 0, "pids v2: job 6 created");
		IS_FILE(root, p = xasprintf("%s/job_6/pids.max", S), "100", "pids v2: pids.max of the job");
		free(p);
		cgroup_remove(cg, 1000, 6, CG_STEP_ALL);
		cgroup_close(cg);
	}
	put(root, "cgroup.controllers", "cpuset cpu io memory\n");
	cg = cgroup_open(&s, &why);
	ok(cg != NULL, "pids v2 without the pids controller: opened (the other limits still apply)");
	if (cg) {
		const char *u = cgroup_unsupported(cg);
		ok(u && strstr(u, "PidsLimit=100 cannot be applied on cgroup v2 here"), "pids v2: said once (%s)",
		   u ? u : "nothing");
		ok(cgroup_step_create(cg, 1000, 7, CG_STEP_BATCH, NULL, &err) == 0, "pids v2: job 7 created");
		IS_FILE(root, p = xasprintf("%s/job_7/pids.max", S), "(none)", "pids v2: no pids.max written");
		free(p);
		cgroup_remove(cg, 1000, 7, CG_STEP_ALL);
		cgroup_close(cg);
	}
	cmd = xasprintf("rm -rf %s", root);
	(void)!system(cmd);
	free(cmd);

	/* only with task/cgroup, as the other constraints */
	conf_t c;
	memset(&c, 0, sizeof(c));
	c.pids_limit = 512;
	char tp[] = "task/affinity,task/cgroup", ta[] = "task/affinity";
	c.task_plugin = tp;
	cgroup_settings_from(&c, NULL, "comp001", &s);
	is_int(s.pids_limit, 512, "pids: PidsLimit with task/cgroup");
	c.task_plugin = ta;
	cgroup_settings_from(&c, NULL, "comp001", &s);
	is_int(s.pids_limit, 0, "pids: none without task/cgroup");
}

int main(void)
{
	char *c = cgroup_cores_to_cpus("0-1,3", 2);
	is_str(c, "0-3,6-7", "cores to CPUs, 2 threads per core");
	free(c);
	c = cgroup_cores_to_cpus("5", 1);
	is_str(c, "5", "cores to CPUs, 1 thread");
	free(c);
	ok(cgroup_cores_to_cpus("x", 1) == NULL, "bad core list");

	cg_settings_t s;
	fake_settings(&s, "/", "autodetect");
	s.allowed_ram_pct = 50;
	is_int(cgroup_mem_limit(&s, 1000), 500ull << 20, "AllowedRAMSpace=50");
	s.allowed_ram_pct = 100;
	s.node_mem_mb = 2000;
	s.max_ram_pct = 10;
	is_int(cgroup_mem_limit(&s, 1000), 200ull << 20, "MaxRAMPercent caps it");
	is_int(cgroup_mem_limit(&s, 10), 30ull << 20, "MinRAMSpace floor");
	s.allowed_swap_pct = 0;
	is_int(cgroup_swap_limit(&s, 1000), 0, "AllowedSwapSpace=0");
	is_int(cgroup_keyed("a 1\noom_kill 7\n", "oom_kill"), 7, "keyed file");
	char *cores = NULL;
	uint64_t mem = 0, gpus = 0;
	ok(cgroup_alloc_entry("n1=0-3:1024:3;n10=4,6:512:a", "n10", &cores, &mem, &gpus) == 0 &&
	   cores && !strcmp(cores, "4,6") && mem == 512 && gpus == 10, "credential alloc: this node's entry");
	free(cores);
	ok(cgroup_alloc_entry("n1=0-3:1024:3", "n1", &cores, &mem, &gpus) == 0 && mem == 1024 &&
	   gpus == 3 && cores && !strcmp(cores, "0-3"), "credential alloc: the only entry");
	free(cores);
	ok(cgroup_alloc_entry("n1=:0:0", "n1", &cores, &mem, &gpus) == 0 && !cores && !mem,
	   "credential alloc: no cores, no memory");
	ok(cgroup_alloc_entry("n1=0-3:1024:3", "n", &cores, &mem, &gpus) < 0, "credential alloc: no entry");
	ok(cgroup_alloc_entry("n1=0-3:10x4:3", "n1", &cores, &mem, &gpus) < 0, "credential alloc: malformed");
	is_int(cgroup_keyed("oom_kill_disable 0\n", "oom_kill"), 0, "keyed: prefix is not the key");

	/* the v2 device program: deny (195,3) and (195,5) */
	struct bpf_insn prog[7 + 4 * 2];
	dev_t dd[2] = { makedev(195, 3), makedev(195, 5) };
	size_t n = cgroup_bpf_prog(dd, 2, prog);
	is_int(n, 15, "BPF device program: 7 + 4 per device");
	ok(prog[4].code == (BPF_JMP | BPF_JNE | BPF_K) && prog[4].imm == BPF_DEVCG_DEV_CHAR &&
	   prog[4].off == 8, "not a char device: jump to allow");
	ok(prog[5].imm == 195 && prog[5].off == 3 && prog[6].imm == 3 && prog[6].off == 2 &&
	   prog[7].code == (BPF_ALU64 | BPF_MOV | BPF_K) && prog[7].imm == 0 &&
	   prog[8].code == (BPF_JMP | BPF_EXIT), "major and minor match: return 0 (deny)");
	ok(prog[10].imm == 5 && prog[13].imm == 1 && prog[14].code == (BPF_JMP | BPF_EXIT),
	   "second device, then return 1 (allow)");

	test_v1();
	test_v2();
	test_pids();
	return done_testing();
}
