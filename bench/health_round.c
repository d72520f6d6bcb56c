/*
 * health_round: the cost of one built-in health check round on a GPU node
 * as sites build them (src/noded/health.c): 8 GPUs (the fake NVML of
 * t/unit/fake_nvml.c, or a real libnvidia-ml with --lib), 8 InfiniBand
 * ports (a fake sysfs tree), two filesystem checks (write probe and free
 * space), memory, clock and the leftover-process scan over this host's
 * real /proc. Target: under 50 ms (so it can run every 60 s without
 * disturbing jobs); the gate (GPU checks only) is measured apart.
 *
 *   health_round [--lib PATH] [--gpus N] [--ports N] [--iter N]
 *
 * Prints key=value lines (health_round_*): wall and thread CPU time per
 * round, mean, p50 and p99.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "health_conf.h"
#include "noded/health.h"
#include "xalloc.h"

static double clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
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
	static const char *const ctr[] = { "symbol_error", "port_rcv_errors", "link_downed",
		"port_rcv_data", "port_xmit_data" };
	for (int d = 0; d < nports; d++) {
		char *dir = xasprintf("%s/class/infiniband/mlx5_%d/ports/1/counters", root, d);
		mkdirs(dir);
		for (size_t c = 0; c < sizeof(ctr) / sizeof(ctr[0]); c++) {
			char *f = xasprintf("%s/%s", dir, ctr[c]);
			put(f, "0\n");
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

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, int n)
{
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	printf("health_round_%s_mean_ms=%.3f\nhealth_round_%s_p50_ms=%.3f\nhealth_round_%s_p99_ms=%.3f\n",
	       what, sum / n, what, v[n / 2], what, v[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1]);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lib", required_argument, NULL, 'l' }, { "gpus", required_argument, NULL, 'g' },
		{ "ports", required_argument, NULL, 'p' }, { "iter", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *lib = NULL;
	int gpus = 8, ports = 8, iter = 200, c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': lib = optarg; break;
		case 'g': gpus = atoi(optarg); break;
		case 'p': ports = atoi(optarg); break;
		case 'i': iter = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: health_round [--lib PATH] [--gpus N] [--ports N] [--iter N]\n");
			return 2;
		}
	}
	if (iter < 1)
		iter = 1;
	char tmpl[] = "/tmp/health_round.XXXXXX";
	char *tmp = mkdtemp(tmpl);
	if (!tmp)
		return 1;
	fake_ib(tmp, ports);
	char *fake = NULL;
	if (!lib) {
		fake = xasprintf("%s/libfake-nvml.so", tmp);
		char *cmd = xasprintf("cc -shared -fPIC -o '%s' t/unit/fake_nvml.c", fake);
		if (system(cmd) != 0) {
			fprintf(stderr, "health_round: cannot build the fake NVML (run from the source tree)\n");
			return 1;
		}
		free(cmd);
		lib = fake;
		char n[16];
		snprintf(n, sizeof(n), "%d", gpus);
		setenv("FAKE_NVML_COUNT", n, 1);
	}
	char *text = xasprintf("gpu count=%d\nib rate=400\nfs path=%s min_free=1M\nfs path=/tmp min_free=1M\n"
			       "memory min_free=64M\nclock max_offset=5\nprocs\ngate checks=gpu\n", gpus, tmp);
	health_conf_t *hc = health_conf_parse(text, "bench.conf");
	free(text);
	health_paths_t paths = { .sysfs = tmp, .nvml_lib = lib };
	health_t *h = health_create(NULL, hc, &paths);
	int fails = health_round(h);   /* opens NVML: not counted */
	double *wall = xcalloc((size_t)iter, sizeof(double)), *cpu = xcalloc((size_t)iter, sizeof(double));
	double *gate = xcalloc((size_t)iter, sizeof(double));
	for (int i = 0; i < iter; i++) {
		double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
		fails = health_round(h);
		cpu[i] = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
		wall[i] = clock_ms(CLOCK_MONOTONIC) - w0;
		char *why = NULL;
		w0 = clock_ms(CLOCK_MONOTONIC);
		health_gate(h, &why);
		gate[i] = clock_ms(CLOCK_MONOTONIC) - w0;
		free(why);
	}
	printf("health_round_gpus=%d\nhealth_round_ports=%d\nhealth_round_iter=%d\nhealth_round_nvml=%s\n"
	       "health_round_failing=%d\n", gpus, ports, iter, fake ? "fake" : lib, fails);
	report("wall", wall, iter);
	report("cpu", cpu, iter);
	report("gate_wall", gate, iter);
	health_destroy(h);
	char *cmd = xasprintf("rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "health_round: cannot remove %s\n", tmp);
	free(cmd);
	free(fake);
	free(wall);
	free(cpu);
	free(gate);
	return 0;
}
