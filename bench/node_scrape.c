/*
 * node_scrape: how long a node daemon takes to render its /metrics, and how
 * big the answer is, for a GPU node as sites build them: 8 GPUs (the fake
 * NVML of t/unit/fake_nvml.c by default, or a real libnvidia-ml with
 * --lib), 8 InfiniBand ports (a fake sysfs tree), and --jobs jobs holding
 * the GPUs (spool records whose tasks are this process's session, so the
 * /proc pass is done as on a busy node). Target: under 10 ms.
 *
 *   node_scrape [--lib PATH] [--gpus N] [--ports N] [--jobs N] [--iter N] [--dump]
 *
 * Prints key=value lines (node_scrape_*), or with --dump one exposition.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "noded/metrics.h"
#include "noded/noded.h"
#include "xalloc.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void mkdirs(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
	free(p);
}

static void fake_ib(const char *root, int nports)
{
	static const char *const ctr[] = { "port_rcv_data", "port_xmit_data", "port_rcv_packets",
		"port_xmit_packets", "port_xmit_wait", "symbol_error", "port_rcv_errors",
		"port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors", "link_error_recovery",
		"link_downed", "local_link_integrity_errors", "excessive_buffer_overrun_errors",
		"port_rcv_constraint_errors", "port_xmit_constraint_errors", "port_xmit_discards",
		"VL15_dropped" };
	for (int d = 0; d < nports; d++) {
		char *dir = xasprintf("%s/class/infiniband/mlx5_%d/ports/1/counters", root, d);
		mkdirs(dir);
		for (size_t c = 0; c < sizeof(ctr) / sizeof(ctr[0]); c++) {
			char *f = xasprintf("%s/%s", dir, ctr[c]);
			put(f, "123456789\n");
			free(f);
		}
		free(dir);
		const char *files[][2] = { { "state", "4: ACTIVE\n" }, { "phys_state", "5: LinkUp\n" },
			{ "rate", "400 Gb/sec (4X NDR)\n" }, { "link_layer", "InfiniBand\n" } };
		for (size_t k = 0; k < 4; k++) {
			char *f = xasprintf("%s/class/infiniband/mlx5_%d/ports/1/%s", root, d, files[k][0]);
			put(f, files[k][1]);
			free(f);
		}
	}
}

/* CPU time of this thread, ms: what a render costs the daemon, apart from
 * the waits of a loaded machine (wall time includes being preempted). */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "lib", required_argument, NULL, 'l' }, { "gpus", required_argument, NULL, 'g' },
		{ "ports", required_argument, NULL, 'p' }, { "jobs", required_argument, NULL, 'j' },
		{ "iter", required_argument, NULL, 'i' }, { "dump", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const char *lib = NULL;
	int gpus = 8, ports = 8, jobs = 4, iter = 200, dump = 0, c;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'l': lib = optarg; break;
		case 'g': gpus = atoi(optarg); break;
		case 'p': ports = atoi(optarg); break;
		case 'j': jobs = atoi(optarg); break;
		case 'i': iter = atoi(optarg); break;
		case 'd': dump = 1; break;
		default:
			fprintf(stderr, "usage: node_scrape [--lib PATH] [--gpus N] [--ports N] [--jobs N] "
				"[--iter N] [--dump]\n");
			return 2;
		}
	}
	if (iter < 1)
		iter = 1;
	char tmpl[] = "/tmp/sluice-bench-node.XXXXXX";
	char *tmp = mkdtemp(tmpl);
	if (!tmp)
		return 1;
	char gbuf[16];
	snprintf(gbuf, sizeof(gbuf), "%d", gpus);
	setenv("FAKE_NVML_COUNT", gbuf, 1);
	fake_ib(tmp, ports);
	char *spool = xasprintf("%s/spool", tmp);
	mkdir(spool, 0755);
	/* jobs holding the GPUs round-robin, tasks = this session */
	for (int j = 0; j < jobs; j++) {
		char *dir = spool_job_dir(spool, 1000 + (uint32_t)j);
		mkdir(dir, 0755);
		spool_rec_t r = { .job_id = 1000 + (uint32_t)j, .step_id = NODED_BATCH_STEP, .pid = getpid(),
				  .pid_start = proc_start_time(getpid()) };
		spool_rec_write(dir, &r);
		strbuf_t g = STRBUF_INIT;
		for (int k = j; k < gpus; k += jobs)
			strbuf_addf(&g, "%s%d", g.len ? "," : "", k);
		strv_t env = { 0 };
		env_set(&env, "SLURM_JOB_USER", "alice");
		env_set(&env, "SLURM_JOB_ACCOUNT", "physics");
		env_set(&env, "SLURM_JOB_GPUS", g.buf);
		metrics_job_meta_write(dir, &env, 1000, 0);
		pid_t sid = getsid(0);
		spool_tasks_write(dir, &sid, 1);
		strv_free(&env);
		strbuf_release(&g);
		free(dir);
	}
	noded_t nd = { .name = "gpu001", .spool = spool, .start_time = time(NULL) };
	char *fake = NULL;
	if (!lib) {
		fake = xasprintf("%s/libfake-nvml.so", tmp);
		char *cmd = xasprintf("cc -shared -fPIC -o '%s' t/unit/fake_nvml.c", fake);
		if (system(cmd) != 0) {
			fprintf(stderr, "node_scrape: cannot build the fake NVML (run from the source tree)\n");
			return 1;
		}
		free(cmd);
		lib = fake;
	}
	metrics_paths_t paths = { .sysfs = tmp, .nvml_lib = lib };
	node_metrics_t *m = metrics_create(&nd, &paths);
	strbuf_t out = STRBUF_INIT;
	metrics_render(m, &out);          /* warm-up */
	if (dump) {
		fwrite(out.buf, 1, out.len, stdout);
	} else {
		double *t = xcalloc((size_t)iter, sizeof(*t)), sum = 0;
		double *ct = xcalloc((size_t)iter, sizeof(*ct)), csum = 0;
		for (int i = 0; i < iter; i++) {
			strbuf_reset(&out);
			double t0 = now_ms(), c0 = cpu_ms();
			metrics_render(m, &out);
			ct[i] = cpu_ms() - c0;
			t[i] = now_ms() - t0;
			sum += t[i];
			csum += ct[i];
		}
		qsort(t, (size_t)iter, sizeof(*t), cmp_d);
		qsort(ct, (size_t)iter, sizeof(*ct), cmp_d);
		double load[1] = { 0 };
		if (getloadavg(load, 1) < 1)
			load[0] = -1;
		size_t lines = 0;
		for (size_t i = 0; i < out.len; i++)
			lines += out.buf[i] == '\n';
		printf("node_scrape_gpus=%d\nnode_scrape_ib_ports=%d\nnode_scrape_jobs=%d\n"
		       "node_scrape_nvml=%s\n", gpus, ports, jobs, fake ? "fake" : lib);
		printf("node_scrape_ms_mean=%.3f\nnode_scrape_ms_p50=%.3f\nnode_scrape_ms_p99=%.3f\n"
		       "node_scrape_ms_max=%.3f\n", sum / iter, t[iter / 2], t[(iter * 99) / 100], t[iter - 1]);
		printf("node_scrape_cpu_ms_mean=%.3f\nnode_scrape_cpu_ms_p50=%.3f\nnode_scrape_cpu_ms_p99=%.3f\n",
		       csum / iter, ct[iter / 2], ct[(iter * 99) / 100]);
		printf("node_scrape_bytes=%zu\nnode_scrape_lines=%zu\nnode_scrape_loadavg=%.2f\n", out.len, lines,
		       load[0]);
		free(t);
		free(ct);
	}
	strbuf_release(&out);
	metrics_destroy(m);
	char *cmd = xasprintf("rm -rf '%s'", tmp);
	if (system(cmd)) {}
	free(cmd);
	free(fake);
	free(spool);
	return 0;
}
