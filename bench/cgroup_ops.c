/*
 * cgroup_ops: the node's extra cost per job of its cgroup (src/noded/
 * cgroup.c) on this machine's real hierarchy: the setup (job and step
 * cgroups with cpuset, memory and device limits), the job's process
 * joining it, and the teardown (kill through the cgroup, OOM count and
 * usage read, removal), against the launch it adds to: fork, exec
 * /bin/true, wait.
 *
 * Runs ROUNDS jobs (default 200) each way, interleaved, as root, under
 * $SLUICE_CGROUP_ROOT or /sys/fs/cgroup (CgroupPlugin=autodetect), in a
 * subtree of its own that it removes. Prints key=value lines: the mean and
 * median microseconds per job of the plain launch, of the launch in a
 * cgroup, and of the difference, in wall time and in CPU (this process and
 * the job's, user + system).
 *   make bench-cgroup [ROUNDS=200] [TRACK_ONLY=1] [CORES=0-1]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "noded/cgroup.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* CPU of this process and its reaped children so far (us). */
static double cpu_us(void)
{
	struct rusage a, b;
	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) * 1e6 +
	       (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Time spent in each phase with a cgroup (ns, summed). */
static double ph_create, ph_run, ph_kill, ph_read, ph_remove;

/* One job: fork, (join the cgroup,) exec true, wait. */
static uint64_t one(cgroup_t *cg, uint32_t job)
{
	uint64_t t0 = now_ns(), t1 = t0, t2, t3, t4;
	if (cg) {
		dev_t deny[7];
		for (int i = 0; i < 7; i++)
			deny[i] = makedev(195, (unsigned)i + 1);
		const char *cores = getenv("CORES");
		cg_limits_t lim = { .cores = cores && *cores ? cores : "0", .mem_mb = 1024, .deny = deny, .ndeny = 7 };
		char *err = NULL;
		if (cgroup_step_create(cg, 0, job, CG_STEP_BATCH, &lim, &err) < 0) {
			fprintf(stderr, "cgroup_ops: %s\n", err);
			exit(1);
		}
		t1 = now_ns();
		ph_create += (double)(t1 - t0);
	}
	pid_t p = fork();
	if (p == 0) {
		if (cg && cgroup_step_attach(cg, 0, job, CG_STEP_BATCH, 0) < 0)
			_exit(2);
		execl("/bin/true", "true", (char *)NULL);
		_exit(1);
	}
	int st;
	waitpid(p, &st, 0);
	if (cg) {
		uint64_t u, s, pk;
		t2 = now_ns();
		ph_run += (double)(t2 - t1);
		cgroup_signal(cg, 0, job, CG_STEP_BATCH, SIGKILL);
		t3 = now_ns();
		ph_kill += (double)(t3 - t2);
		(void)cgroup_oom_kills(cg, 0, job, CG_STEP_BATCH);
		(void)cgroup_usage(cg, 0, job, CG_STEP_BATCH, &u, &s, &pk);
		t4 = now_ns();
		ph_read += (double)(t4 - t3);
		if (cgroup_remove(cg, 0, job, CG_STEP_BATCH) < 0)
			exit(1);
		ph_remove += (double)(now_ns() - t4);
	}
	return now_ns() - t0;
}

int main(void)
{
	const char *r = getenv("ROUNDS");
	int rounds = r && atoi(r) > 0 ? atoi(r) : 200;
	cg_settings_t s = {
		.plugin = "autodetect", .node = "bench", .prefix = "sluice-bench",
		.constrain_cores = 1, .constrain_ram = 1, .constrain_swap = 1, .constrain_devices = 1,
		.allowed_ram_pct = 100, .max_ram_pct = 100, .max_swap_pct = 100, .min_ram_mb = 30,
		.threads_per_core = 1,
	};
	/* TRACK_ONLY=1: proctrack/cgroup alone (the freezer, no constraint) */
	const char *to = getenv("TRACK_ONLY");
	if (to && atoi(to) > 0)
		s.constrain_cores = s.constrain_ram = s.constrain_swap = s.constrain_devices = 0;
	const char *root = getenv("SLUICE_CGROUP_ROOT");
	s.root = root && *root ? root : "/sys/fs/cgroup";
	char *why = NULL;
	cgroup_t *cg = cgroup_open(&s, &why);
	if (!cg) {
		printf("cgroup_ops=skipped (%s)\n", why);
		return 0;
	}
	uint64_t *plain = calloc((size_t)rounds, sizeof(uint64_t));
	uint64_t *in = calloc((size_t)rounds, sizeof(uint64_t));
	double sp = 0, si = 0, cp = 0, ci = 0;
	for (int i = 0; i < rounds; i++) {
		double c0 = cpu_us();
		plain[i] = one(NULL, 0);
		double c1 = cpu_us();
		in[i] = one(cg, 1000000 + (uint32_t)i);
		cp += c1 - c0;
		ci += cpu_us() - c1;
		sp += (double)plain[i];
		si += (double)in[i];
	}
	qsort(plain, (size_t)rounds, sizeof(uint64_t), cmp_u64);
	qsort(in, (size_t)rounds, sizeof(uint64_t), cmp_u64);
	printf("cgroup_version=%d\nrounds=%d\n", cgroup_version(cg), rounds);
	printf("plain_launch_us_mean=%.0f\nplain_launch_us_median=%.0f\n", sp / rounds / 1000,
	       (double)plain[rounds / 2] / 1000);
	printf("cgroup_launch_us_mean=%.0f\ncgroup_launch_us_median=%.0f\n", si / rounds / 1000,
	       (double)in[rounds / 2] / 1000);
	printf("cgroup_extra_us_mean=%.0f\ncgroup_extra_us_median=%.0f\n", (si - sp) / rounds / 1000,
	       ((double)in[rounds / 2] - (double)plain[rounds / 2]) / 1000);
	printf("plain_launch_cpu_us=%.0f\ncgroup_launch_cpu_us=%.0f\ncgroup_extra_cpu_us=%.0f\n",
	       cp / rounds, ci / rounds, (ci - cp) / rounds);
	printf("phase_create_us=%.0f\nphase_run_us=%.0f\nphase_kill_us=%.0f\nphase_read_us=%.0f\n"
	       "phase_remove_us=%.0f\n", ph_create / rounds / 1000, ph_run / rounds / 1000,
	       ph_kill / rounds / 1000, ph_read / rounds / 1000, ph_remove / rounds / 1000);
	/* the node subtree itself */
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "find %s/*/sluice-bench_bench %s/system.slice/sluice-bench_bench_slurmstepd.scope "
		 "-depth -type d -exec rmdir {} + 2>/dev/null", s.root, s.root);
	(void)!system(cmd);
	cgroup_close(cg);
	free(plain);
	free(in);
	return 0;
}
