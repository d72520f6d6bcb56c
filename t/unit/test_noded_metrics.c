/* Unit tests for the node daemon's /metrics (src/noded/metrics.c): GPU
 * families under dcgm-exporter's names and labels from a fake NVML
 * (t/unit/fake_nvml.c, built here), the job labels of a GPU's holder from
 * the spool, InfiniBand ports from a fake sysfs tree, per-job CPU and
 * memory from /proc and from a fake cgroup tree, dcgm-exporter mapping
 * files, absent families without NVML or InfiniBand, and `promtool check
 * metrics` on the whole exposition when promtool is installed. */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "noded/metrics.h"
#include "noded/noded.h"
#include "xalloc.h"

static char *tmp;

/* Write path (relative to tmp) with text, creating its directories. */
static void put(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", tmp, rel);
	for (char *s = path + strlen(tmp) + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(path, 0755);
			*s = '/';
		}
	}
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(path);
}

static char *build_fake(void)
{
	char src[4096];
	snprintf(src, sizeof(src), "%s", __FILE__);
	char *slash = strrchr(src, '/');
	snprintf(slash ? slash + 1 : src, sizeof(src) - (size_t)(slash ? slash + 1 - src : 0), "fake_nvml.c");
	char *lib = xasprintf("%s/libfake-nvml.so", tmp);
	char *cmd = xasprintf("cc -shared -fPIC -o '%s' '%s'", lib, src);
	int rc = system(cmd);
	free(cmd);
	if (rc != 0) {
		free(lib);
		return NULL;
	}
	return lib;
}

/* A child leading a session of its own, as a job's task does; it waits
 * until killed. Returns once setsid has happened. */
static pid_t session_child(void)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		setsid();
		if (write(p[1], "x", 1)) {}
		close(p[1]);
		for (;;)
			pause();
	}
	close(p[1]);
	char c;
	if (read(p[0], &c, 1)) {}
	close(p[0]);
	return pid;
}

static char *render(node_metrics_t *m)
{
	strbuf_t sb = STRBUF_INIT;
	metrics_render(m, &sb);
	return strbuf_detach(&sb);
}

static int has(const char *text, const char *line)
{
	const char *p = text;
	size_t n = strlen(line);
	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

#define has_line(text, line) ok(has(text, line), "line: %s", line)

/* A spool record for a job whose "supervisor" is this process. */
static void spool_job(const char *spool, uint32_t job, const char *env_user, const char *acct,
		      const char *gpus, pid_t sid)
{
	char *dir = spool_job_dir(spool, job);
	mkdir(dir, 0755);
	spool_rec_t r = { .job_id = job, .step_id = NODED_BATCH_STEP, .pid = getpid(),
			  .pid_start = proc_start_time(getpid()) };
	spool_rec_write(dir, &r);
	strv_t env = { 0 };
	if (env_user)
		env_set(&env, "SLURM_JOB_USER", env_user);
	if (acct)
		env_set(&env, "SLURM_JOB_ACCOUNT", acct);
	if (gpus)
		env_set(&env, "SLURM_JOB_GPUS", gpus);
	env_set(&env, "SLURM_JOB_NUM_NODES", "2");
	is_int(metrics_job_meta_write(dir, &env, 1000, 0), 0, "job %u: meta written", job);
	if (sid > 0)
		spool_tasks_write(dir, &sid, 1);
	strv_free(&env);
	free(dir);
}

int main(void)
{
	is_int((long long)ib_rate_parse("100 Gb/sec (4X EDR)"), 12500000000LL, "EDR rate");
	is_int((long long)ib_rate_parse("2.5 Gb/sec (1X SDR)"), 312500000LL, "SDR rate");
	is_int((long long)ib_rate_parse("fast"), -1, "not a rate");

	char tmpl[] = "/tmp/sluice-metrics.XXXXXX";
	tmp = mkdtemp(tmpl);
	if (!tmp)
		return 1;
	char *lib = build_fake();
	if (!lib) {
		ok(1, "# SKIP no C compiler to build the fake NVML library");
		return done_testing();
	}

	/* Without NVML or InfiniBand: those families are absent. */
	metrics_paths_t bare = { .sysfs = tmp, .cgroup = tmp, .nvml_lib = "/nonexistent/libnvidia-ml.so.1" };
	node_metrics_t *m = metrics_create(NULL, &bare);
	char *out = render(m);
	ok(!strstr(out, "DCGM_") && !strstr(out, "infiniband_"), "no GPU or IB families without them");
	ok(strstr(out, "sluice_node_info{node=\"\",version=\"") != NULL, "node info still served");
	free(out);
	metrics_destroy(m);

	/* A fake sysfs: mlx5_0 port 1 active EDR with errors, mlx5_1 port 1
	 * down without counters. */
	put("sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
	put("sys/class/infiniband/mlx5_0/ports/1/phys_state", "5: LinkUp\n");
	put("sys/class/infiniband/mlx5_0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
	put("sys/class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", "1000\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", "250\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_packets", "77\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_packets", "66\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error", "3\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/link_downed", "1\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_errors", "0\n");
	put("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_discards", "9\n");
	put("sys/class/infiniband/mlx5_1/ports/1/state", "1: DOWN\n");
	put("sys/class/infiniband/mlx5_1/ports/1/phys_state", "3: Disabled\n");
	put("sys/class/infiniband/mlx5_1/ports/1/rate", "10 Gb/sec (4X SDR)\n");
	put("sys/class/infiniband/mlx5_1/ports/1/link_layer", "Ethernet\n");
	/* A cgroup for job 43 (Slurm's v2 layout). */
	put("cg/system.slice/slurmstepd.scope/job_43/cpu.stat", "usage_usec 2500000\nuser_usec 2000000\n");
	put("cg/system.slice/slurmstepd.scope/job_43/memory.current", "1048576\n");

	/* Jobs: 42 holds GPUs 0 and 3 with a session of its own as its task
	 * (a child that called setsid: the test's own session may have a
	 * leader outside this pid namespace, or none); 43 holds GPU 1 and
	 * has a cgroup. */
	pid_t task = session_child();
	char *spool = xasprintf("%s/spool", tmp);
	mkdir(spool, 0755);
	spool_job(spool, 42, "alice", "phys\"ics", "0,3", task);
	spool_job(spool, 43, "bob", "bio", "1", 0);
	/* A step of job 44 whose srun inherited another node's GPU list: it
	 * must not claim GPU 2 here (no SLURM_STEP_GPUS). */
	char *sdir = spool_step_dir(spool, 44, 0);
	mkdir(sdir, 0755);
	spool_rec_t sr = { .job_id = 44, .step_id = 0, .pid = getpid(), .pid_start = proc_start_time(getpid()) };
	spool_rec_write(sdir, &sr);
	strv_t senv = { 0 };
	env_set(&senv, "SLURM_JOB_USER", "carol");
	env_set(&senv, "SLURM_JOB_GPUS", "2");
	env_set(&senv, "CUDA_VISIBLE_DEVICES", "2");
	is_int(metrics_job_meta_write(sdir, &senv, 1002, 1), 0, "step 44.0: meta written");
	strv_free(&senv);
	free(sdir);

	noded_t nd = { .name = "gpu01", .spool = spool, .start_time = 1700000000 };
	char *sys = xasprintf("%s/sys", tmp), *cg = xasprintf("%s/cg", tmp);
	metrics_paths_t paths = { .sysfs = sys, .cgroup = cg, .nvml_lib = lib };
	setenv("FAKE_NVML_COUNT", "4", 1);
	setenv("FAKE_NVML_SET", "1.dbe=3,1.sbe=7,2.temp=95,2.xid=79,3.nvl_crc=5,0.throttle=4", 1);
	m = metrics_create(&nd, &paths);
	out = render(m);

	const char *g0 = "{gpu=\"0\",UUID=\"GPU-00000000-0000-0000-0000-000000000000\",device=\"nvidia0\","
			 "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"gpu01\"";
	char *l = xasprintf("DCGM_FI_DEV_GPU_UTIL%s,job_id=\"42\",user=\"alice\",account=\"phys\\\"ics\"} 5", g0);
	has_line(out, l);
	free(l);
	has_line(out, "# TYPE DCGM_FI_DEV_GPU_UTIL gauge");
	has_line(out, "# TYPE DCGM_FI_DEV_ECC_DBE_VOL_TOTAL counter");
	has_line(out, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{gpu=\"1\",UUID=\"GPU-00000000-0000-0000-0000-000000000001\","
		 "device=\"nvidia1\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"gpu01\",job_id=\"43\","
		 "user=\"bob\",account=\"bio\"} 3");
	has_line(out, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL{gpu=\"1\",UUID=\"GPU-00000000-0000-0000-0000-000000000001\","
		 "device=\"nvidia1\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"gpu01\",job_id=\"43\","
		 "user=\"bob\",account=\"bio\"} 7");
	/* GPU 2 is free: no job labels */
	const char *g2 = "{gpu=\"2\",UUID=\"GPU-00000000-0000-0000-0000-000000000002\",device=\"nvidia2\","
			 "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"gpu01\"}";
	l = xasprintf("DCGM_FI_DEV_GPU_TEMP%s 95", g2);
	has_line(out, l);
	free(l);
	l = xasprintf("DCGM_FI_DEV_XID_ERRORS%s 79", g2);
	has_line(out, l);
	free(l);
	l = xasprintf("sluice_gpu_xid_errors_total%s 1", g2);
	has_line(out, l);
	free(l);
	l = xasprintf("DCGM_FI_DEV_POWER_USAGE%s 102.000", g2);
	has_line(out, l);
	free(l);
	l = xasprintf("DCGM_FI_DEV_FB_USED%s 2048", g2);
	has_line(out, l);
	free(l);
	l = xasprintf("DCGM_FI_DEV_FB_FREE%s 79511", g2);
	has_line(out, l);
	free(l);
	l = xasprintf("DCGM_FI_DEV_SM_CLOCK%s 1980", g2);
	has_line(out, l);
	free(l);
	ok(strstr(out, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{gpu=\"3\"") &&
	   strstr(out, "job_id=\"42\",user=\"alice\",account=\"phys\\\"ics\"} 5\n"), "NVLink errors of GPU 3");
	l = xasprintf("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS%s,job_id=\"42\",user=\"alice\",account=\"phys\\\"ics\"} 4",
		      g0);
	has_line(out, l);
	free(l);
	/* Each family's HELP/TYPE once, and its series together. */
	const char *first = strstr(out, "# TYPE DCGM_FI_DEV_GPU_TEMP");
	ok(first && !strstr(first + 1, "# TYPE DCGM_FI_DEV_GPU_TEMP"), "one TYPE line per family");

	has_line(out, "infiniband_port_state_id{device=\"mlx5_0\",port=\"1\",link_layer=\"InfiniBand\"} 4");
	has_line(out, "infiniband_port_state_id{device=\"mlx5_1\",port=\"1\",link_layer=\"Ethernet\"} 1");
	has_line(out, "infiniband_port_physical_state_id{device=\"mlx5_1\",port=\"1\"} 3");
	has_line(out, "infiniband_port_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 12500000000");
	has_line(out, "infiniband_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"} 4000");
	has_line(out, "infiniband_port_data_transmitted_bytes_total{device=\"mlx5_0\",port=\"1\"} 1000");
	has_line(out, "infiniband_port_packets_received_total{device=\"mlx5_0\",port=\"1\"} 77");
	has_line(out, "infiniband_port_errors_total{device=\"mlx5_0\",port=\"1\",error=\"symbol_error\"} 3");
	has_line(out, "infiniband_port_errors_total{device=\"mlx5_0\",port=\"1\",error=\"link_downed\"} 1");
	has_line(out, "infiniband_port_errors_total{device=\"mlx5_0\",port=\"1\",error=\"port_rcv_errors\"} 0");
	has_line(out, "infiniband_port_dropped_total{device=\"mlx5_0\",port=\"1\",counter=\"port_xmit_discards\"} 9");
	ok(!strstr(out, "infiniband_port_errors_total{device=\"mlx5_1\""), "no counters: no error series");

	has_line(out, "sluice_job_cpu_seconds_total{job_id=\"43\",user=\"bob\",account=\"bio\"} 2.50");
	has_line(out, "sluice_job_memory_bytes{job_id=\"43\",user=\"bob\",account=\"bio\"} 1048576");
	has_line(out, "sluice_job_nodes{job_id=\"42\",user=\"alice\",account=\"phys\\\"ics\"} 2");
	has_line(out, "sluice_job_gpus{job_id=\"42\",user=\"alice\",account=\"phys\\\"ics\"} 2");
	has_line(out, "sluice_job_rdma_fds{job_id=\"42\",user=\"alice\",account=\"phys\\\"ics\"} 0");
	ok(!has(out, "sluice_job_processes{job_id=\"42\",user=\"alice\",account=\"phys\\\"ics\"} 0") &&
	   strstr(out, "sluice_job_processes{job_id=\"42\""), "job 42's session has processes");
	has_line(out, "sluice_node_info{node=\"gpu01\",version=\"22.05.8\"} 1");
	has_line(out, "sluice_node_registered 0");
	has_line(out, "sluice_job_gpus{job_id=\"44\",user=\"carol\",account=\"\"} 0");
	has_line(out, "sluice_node_jobs 3");
	has_line(out, "sluice_node_gpus 4");

	/* promtool's own check of the exposition. It lints dcgm-exporter's
	 * names (camelCase labels, counters ending in _TOTAL), which stay as
	 * dcgm-exporter has them so existing queries work (our own GPU family
	 * shares the labels, to join with them); anything else it
	 * says is a failure. */
	if (system("command -v promtool >/dev/null 2>&1") == 0) {
		char *f = xasprintf("%s/out.prom", tmp);
		FILE *fp = fopen(f, "w");
		fputs(out, fp);
		fclose(fp);
		char *cmd = xasprintf("promtool check metrics < '%s' 2>&1 | grep -v -E "
				      "'^(DCGM_FI_DEV_[A-Z_]+|sluice_gpu_[a-z_]+) (label names should be written in "
				      ".snake_case. not .camelCase.|counter metrics should have \"_total\" suffix)$' | sed 's/^/# /'"
				      " | tee '%s.log'; test ! -s '%s.log'", f, f, f);
		is_int(system(cmd), 0, "promtool check metrics: nothing but dcgm-exporter's own names");
		free(cmd);
		free(f);
	} else {
		ok(1, "# SKIP promtool not installed");
	}
	free(out);

	/* The XID event is counted once, not at every scrape; a job's CPU
	 * counter never goes down (here its cgroup's usage is lower). */
	put("cg/system.slice/slurmstepd.scope/job_43/cpu.stat", "usage_usec 1000000\n");
	out = render(m);
	has_line(out, "sluice_job_cpu_seconds_total{job_id=\"43\",user=\"bob\",account=\"bio\"} 2.50");
	l = xasprintf("sluice_gpu_xid_errors_total%s 1", g2);
	has_line(out, l);
	free(l);
	free(out);

	/* Render time with 8 GPUs (the bench measures it properly). */
	metrics_destroy(m);
	setenv("FAKE_NVML_COUNT", "8", 1);
	m = metrics_create(&nd, &paths);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	out = render(m);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	ok(strstr(out, "DCGM_FI_DEV_GPU_UTIL{gpu=\"7\"") != NULL, "8 GPUs rendered (%.2f ms, %zu bytes)", ms,
	   strlen(out));
	free(out);
	metrics_destroy(m);

	/* dcgm-exporter mapping files instead of GPU families. */
	char *map = xasprintf("%s/map", tmp);
	mkdir(map, 0755);
	setenv("FAKE_NVML_COUNT", "4", 1);
	paths.dcgm_map_dir = map;
	m = metrics_create(&nd, &paths);
	out = render(m);
	ok(!strstr(out, "DCGM_FI_DEV_GPU_UTIL"), "mapping mode: no GPU families");
	free(out);
	char *f0 = xasprintf("%s/0", map), *f2 = xasprintf("%s/2", map), *f1 = xasprintf("%s/1", map);
	FILE *fp = fopen(f0, "r");
	char buf[64] = "";
	if (fp) {
		if (!fgets(buf, sizeof(buf), fp))
			buf[0] = '\0';
		fclose(fp);
	}
	is_str(buf, "42\n", "GPU 0 file names job 42");
	fp = fopen(f1, "r");
	buf[0] = '\0';
	if (fp) {
		if (!fgets(buf, sizeof(buf), fp))
			buf[0] = '\0';
		fclose(fp);
	}
	is_str(buf, "43\n", "GPU 1 file names job 43");
	struct stat st;
	ok(stat(f2, &st) == 0 && st.st_size == 0, "free GPU 2: empty file");
	free(f0);
	free(f1);
	free(f2);
	metrics_destroy(m);
	if (task > 0) {
		kill(task, SIGKILL);
		waitpid(task, NULL, 0);
	}

	char *cmd = xasprintf("rm -rf '%s'", tmp);
	if (system(cmd)) {}
	free(cmd);
	free(map);
	free(sys);
	free(cg);
	free(spool);
	free(lib);
	return done_testing();
}
