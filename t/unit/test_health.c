/* Unit tests for the built-in health checks: the health.conf parser
 * (src/lib/health_conf.c: defaults, every key, FILE:LINE errors), the key
 * digest, and rounds of src/noded/health.c on the fake NVML
 * (t/unit/fake_nvml.c, built here), a fake sysfs InfiniBand tree and a
 * fake /proc: each check fails with its evidence and passes again, the
 * gate, and the cost of a round. */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "health_conf.h"
#include "noded/health.h"
#include "noded/noded.h"
#include "xalloc.h"

static char *tmp;

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

static int has(const char *text, const char *line)
{
	if (!text)
		return 0;
	size_t l = strlen(line);
	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[l] == '\n' || p[l] == '\0'))
			return 1;
	return 0;
}

static void parser(void)
{
	health_conf_t *hc = health_conf_parse("# built-in checks\n"
		"gpu count=8 type=h100 max_temp=85 throttle=thermal,power xid=79,48 nvlink_down=1\n"
		"ib device=mlx5_0 port=1 rate=400 error_growth=10  # the HCA\n"
		"fs path=/scratch min_free=10G\n"
		"memory min_free=512M\n"
		"clock max_offset=2.5\n"
		"procs\n"
		"authkey path=/etc/munge/munge.key\n"
		"gate checks=gpu,memory\n", "h.conf");
	is_int(hc->nerrors, 0, "a full health.conf parses");
	is_int(hc->n, 7, "seven checks");
	const hc_check_t *g = health_conf_find(hc, HC_GPU);
	ok(g && g->gpu_count == 8 && !strcmp(g->gpu_type, "h100") && g->max_temp == 85 &&
	   g->throttle == (HC_THROTTLE_THERMAL | HC_THROTTLE_POWER) && g->nxids == 2 &&
	   g->xids[0] == 79 && g->nvlink_down == 1 && g->ecc_volatile == 0 && g->persistence == 1,
	   "gpu keys and defaults");
	const hc_check_t *ib = health_conf_find(hc, HC_IB);
	ok(ib && !strcmp(ib->device, "mlx5_0") && ib->port == 1 && ib->rate_gbps == 400 &&
	   ib->error_growth == 10, "ib keys");
	const hc_check_t *fs = health_conf_find(hc, HC_FS);
	ok(fs && !strcmp(fs->path, "/scratch") && fs->min_free == 10ull << 30 && fs->writable,
	   "fs keys, writable by default");
	ok(health_conf_find(hc, HC_MEMORY)->min_free == 512ull << 20, "memory min_free");
	ok(health_conf_find(hc, HC_CLOCK)->max_offset == 2.5, "clock max_offset");
	is_str(health_conf_find(hc, HC_AUTHKEY)->key_path, "/etc/munge/munge.key", "authkey path");
	is_int(hc->gate, (1u << HC_GPU) | (1u << HC_MEMORY), "gate checks");
	health_conf_free(hc);

	hc = health_conf_parse("gpux count=1\n"
		"gpu count=eight\n"
		"\n"
		"ib speed=400\n"
		"fs min_free=1G\n"
		"memory min_free=lots\n"
		"clock max_offset=0\n"
		"gate checks=authkey\n"
		"procs x=1\n"
		"fs path=relative\n"
		"gpu\n"
		"gpu\n"
		"ib rate\n", "/etc/slurm/health.conf");
	const char *want[] = {
		"/etc/slurm/health.conf:1: unknown check 'gpux' (gpu, ib, fs, memory, clock, procs, authkey, nccl or gate)",
		"/etc/slurm/health.conf:2: count 'eight': a number or auto",
		"/etc/slurm/health.conf:4: 'speed' is not a key of check 'ib' (keys: device, port, rate, error_growth)",
		"/etc/slurm/health.conf:5: check 'fs' needs path=",
		"/etc/slurm/health.conf:6: min_free 'lots': a size such as 10G, 512M or 4096",
		"/etc/slurm/health.conf:7: max_offset '0': seconds, more than 0",
		"/etc/slurm/health.conf:8: gate: 'authkey' cannot gate a job (use gpu, ib, fs, memory or procs)",
		"/etc/slurm/health.conf:9: 'x' is not a key of check 'procs' (it takes none)",
		"/etc/slurm/health.conf:10: path 'relative': an absolute path",
		"/etc/slurm/health.conf:12: check 'gpu' given twice (first on line 11)",
		"/etc/slurm/health.conf:13: 'rate': expected key=value",
	};
	size_t nw = sizeof(want) / sizeof(want[0]);
	is_int(hc->nerrors, nw, "every bad line reported");
	for (size_t i = 0; i < nw && i < hc->nerrors; i++)
		is_str(hc->errors[i], want[i], "error %zu", i + 1);
	health_conf_free(hc);

	int missing = 0;
	char *p = xasprintf("%s/none.conf", tmp);
	hc = health_conf_load(p, &missing);
	ok(missing && hc->n == 0 && hc->nerrors == 0, "a missing file: no checks, no error");
	health_conf_free(hc);
	free(p);

	is_int(health_parse_size("4096"), 4096, "size bytes");
	is_int(health_parse_size("2k"), 2048, "size k");
	is_int(health_parse_size("3GB"), 3ll << 30, "size GB");
	is_int(health_parse_size("1X"), -1, "size bad unit");
	is_int(health_parse_size("-1"), -1, "size negative");
}

static void keys(void)
{
	put("k1", "abc");
	char *k = xasprintf("%s/k1", tmp), out[65];
	is_int(health_key_digest(k, out), 0, "digest of a readable key");
	is_str(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "SHA-256 of the file");
	free(k);
	k = xasprintf("%s/nokey", tmp);
	is_int(health_key_digest(k, out), -1, "missing key");
	is_str(out, "unreadable", "reported as unreadable");
	free(k);

	conf_t c = { 0 };
	c.dir = "/etc/slurm";
	c.auth_type = "auth/slurm";
	char *kp = health_key_path(&c, NULL);
	is_str(kp, "/etc/slurm/slurm.key", "auth/slurm: slurm.key beside slurm.conf");
	free(kp);
	c.auth_info = "ttl=60,key=/srv/k.key";
	kp = health_key_path(&c, NULL);
	is_str(kp, "/srv/k.key", "auth/slurm: AuthInfo key=");
	free(kp);
	c.auth_type = "auth/munge";
	kp = health_key_path(&c, NULL);
	is_str(kp, "/etc/munge/munge.key", "auth/munge: munged's key");
	free(kp);
}

static void ib_port(const char *dev, const char *port, const char *state, const char *phys,
		    const char *rate, const char *symerr)
{
	char *b = xasprintf("sys/class/infiniband/%s/ports/%s", dev, port), *f;
	f = xasprintf("%s/state", b); put(f, state); free(f);
	f = xasprintf("%s/phys_state", b); put(f, phys); free(f);
	f = xasprintf("%s/rate", b); put(f, rate); free(f);
	f = xasprintf("%s/link_layer", b); put(f, "InfiniBand\n"); free(f);
	f = xasprintf("%s/counters/symbol_error", b); put(f, symerr); free(f);
	f = xasprintf("%s/counters/link_downed", b); put(f, "0\n"); free(f);
	f = xasprintf("%s/counters/port_rcv_errors", b); put(f, "0\n"); free(f);
	free(b);
}

static void rounds(const char *lib)
{
	ib_port("mlx5_0", "1", "4: ACTIVE\n", "5: LinkUp\n", "400 Gb/sec (4X NDR)\n", "0\n");
	ib_port("mlx5_1", "1", "4: ACTIVE\n", "5: LinkUp\n", "400 Gb/sec (4X NDR)\n", "0\n");
	put("proc/meminfo", "MemTotal:       65536000 kB\nMemAvailable:   8388608 kB\n");
	char *sys = xasprintf("%s/sys", tmp), *proc = xasprintf("%s/proc", tmp);
	char *fsdir = xasprintf("%s/fs", tmp);
	mkdir(fsdir, 0755);
	char *text = xasprintf("gpu count=4 type=h100 max_temp=85\n"
			       "ib rate=400\n"
			       "fs path=%s\n"
			       "memory min_free=4G\n"
			       "clock max_offset=5\n"
			       "gate checks=gpu\n", fsdir);
	health_conf_t *hc = health_conf_parse(text, "t.conf");
	free(text);
	is_int(hc->nerrors, 0, "round config parses");
	char *setf = xasprintf("%s/nvml.set", tmp);
	put("nvml.set", "");
	setenv("FAKE_NVML_COUNT", "4", 1);
	setenv("FAKE_NVML_SET_FILE", setf, 1);
	unsetenv("FAKE_NVML_SET");
	health_paths_t paths = { .sysfs = sys, .proc = proc, .nvml_lib = lib };
	health_t *h = health_create(NULL, hc, &paths);

	is_int(health_round(h), 0, "healthy node: nothing fails");
	ok(health_failing(h) == NULL, "no failing lines");
	is_int(health_rounds(h), 1, "one round counted");

	put("nvml.set", "3.dbe=2\n1.temp=91\n0.throttle=64\n2.nvl_down=3\n1.persist=0\n2.remap_pending=1\n");
	is_int(health_round(h), 6, "six GPU problems");
	const char *f = health_failing(h);
	ok(has(f, "gpu: gpu3 ECC uncorrectable=2"), "ECC evidence");
	ok(has(f, "gpu: gpu1 temperature 91C > 85C"), "temperature evidence");
	ok(has(f, "gpu: gpu0 throttled (thermal)"), "thermal throttling evidence");
	ok(has(f, "gpu: gpu2 NVLink down=3"), "NVLink evidence");
	ok(has(f, "gpu: gpu1 persistence mode off"), "persistence evidence");
	ok(has(f, "gpu: gpu2 row remapping pending (reset the GPU)"), "remap evidence");
	char *why = NULL;
	is_int(health_gate(h, &why), -1, "the gate refuses a job");
	ok(why && strstr(why, "gpu3 ECC uncorrectable=2"), "gate says why");
	free(why);

	put("nvml.set", "");
	is_int(health_round(h), 0, "repaired: passes again");
	is_int(health_gate(h, &why), 0, "the gate lets a job through");

	/* XID 79 fails and stays failed; XID 13 (an application's) does not. */
	put("nvml.set", "2.xid=79\n");
	is_int(health_round(h), 1, "XID 79 fails");
	ok(has(health_failing(h), "gpu: gpu2 XID 79"), "XID evidence");
	put("nvml.set", "");
	is_int(health_round(h), 1, "an XID stays failed for the daemon's life");

	health_destroy(h);

	/* Count and type against what is configured. */
	hc = health_conf_parse("gpu count=8 type=a100\n", "t.conf");
	h = health_create(NULL, hc, &paths);
	is_int(health_round(h), 5, "count and each GPU's type");
	ok(has(health_failing(h), "gpu: 4 GPU(s) found, 8 expected"), "count evidence");
	ok(has(health_failing(h), "gpu: gpu0 type nvidia_h100_80gb_hbm3, expected a100"), "type evidence");
	health_destroy(h);

	/* No NVML where GPUs are expected. */
	hc = health_conf_parse("gpu count=2\n", "t.conf");
	char *nolib = xasprintf("%s/no-such-nvml.so", tmp);
	health_paths_t p2 = { .sysfs = sys, .proc = proc, .nvml_lib = nolib };
	h = health_create(NULL, hc, &p2);
	is_int(health_round(h), 1, "NVML missing fails a GPU node");
	ok(health_failing(h) && strstr(health_failing(h), "gpu: NVML not available ("), "and says so");
	health_destroy(h);
	free(nolib);

	/* InfiniBand */
	hc = health_conf_parse("ib rate=400 error_growth=5\n", "t.conf");
	h = health_create(NULL, hc, &paths);
	is_int(health_round(h), 0, "two active NDR ports pass");
	ib_port("mlx5_1", "1", "1: DOWN\n", "3: Disabled\n", "200 Gb/sec (4X HDR)\n", "100\n");
	is_int(health_round(h), 4, "a port down, disabled, at half rate, with errors growing");
	f = health_failing(h);
	ok(has(f, "ib: mlx5_1/1 state DOWN"), "state evidence");
	ok(has(f, "ib: mlx5_1/1 phys_state Disabled"), "phys_state evidence");
	ok(has(f, "ib: mlx5_1/1 rate 200 Gb/s, expected 400"), "rate evidence");
	ok(has(f, "ib: mlx5_1/1 symbol_error +100"), "counter growth evidence");
	ib_port("mlx5_1", "1", "4: ACTIVE\n", "5: LinkUp\n", "400 Gb/sec (4X NDR)\n", "103\n");
	is_int(health_round(h), 0, "growth within error_growth passes");
	health_destroy(h);
	hc = health_conf_parse("ib device=mlx5_9\n", "t.conf");
	h = health_create(NULL, hc, &paths);
	is_int(health_round(h), 1, "a configured device that is absent fails");
	health_destroy(h);

	/* Memory, filesystem, clock */
	text = xasprintf("memory min_free=16G\nfs path=%s/nosuch\nfs path=%s min_free=1000T\nclock max_offset=1\n",
			 tmp, fsdir);
	hc = health_conf_parse(text, "t.conf");
	free(text);
	h = health_create(NULL, hc, &paths);
	health_clock_sample(h, 1000, 1100, (int64_t)time(NULL) * 1000 - 30000);
	is_int(health_round(h), 4, "memory, a missing path, a full fs, the clock");
	f = health_failing(h);
	ok(has(f, "memory: available 8.0G < 16.0G"), "memory evidence");
	text = xasprintf("fs: %s/nosuch: No such file or directory", tmp);
	ok(has(f, text), "missing filesystem evidence");
	free(text);
	ok(strstr(f, " min_free") == NULL && strstr(f, "free ") && strstr(f, "< 1000.0T"), "free space evidence");
	ok(strstr(f, "clock: offset +30.") != NULL, "clock evidence");
	health_clock_sample(h, 1000, 1100, (int64_t)time(NULL) * 1000);
	put("proc/meminfo", "MemTotal:       65536000 kB\nMemAvailable:   33554432 kB\n");
	is_int(health_round(h), 2, "memory and clock pass again");
	health_destroy(h);

	free(setf);
	free(sys);
	free(proc);
	free(fsdir);
}

/* Leftover processes: a fake /proc with two user processes, one of a live
 * job and one of an ended job, and a root daemon. */
static void procs(void)
{
	put("p2/100/environ", "HOME=/home/a\0SLURM_JOB_ID=7\0");
	put("p2/200/environ", "SLURM_JOB_ID=8\0PATH=/bin");
	put("p2/300/environ", "SLURM_JOB_ID=9");
	put("p2/meminfo", "MemAvailable: 1 kB\n");
	/* environ files are written with fputs: the NULs end them early; make
	 * them whole. */
	char *p = xasprintf("%s/p2/200/environ", tmp);
	FILE *fp = fopen(p, "w");
	fwrite("PATH=/bin\0SLURM_JOB_ID=8\0", 1, 25, fp);
	fclose(fp);
	free(p);
	/* uid of the directories: the test runs as root; a process dir owned
	 * by another uid is a user's. chown 100 and 200 to 1000. */
	p = xasprintf("%s/p2/100", tmp);
	int r1 = chown(p, 1000, 1000);
	free(p);
	p = xasprintf("%s/p2/200", tmp);
	int r2 = chown(p, 1000, 1000);
	free(p);
	if (r1 || r2 || getuid() != 0) {
		ok(1, "# SKIP procs: not root (cannot make another user's fake process)");
		return;
	}
	char *proc = xasprintf("%s/p2", tmp);
	health_paths_t paths = { .sysfs = tmp, .proc = proc };
	health_t *h = health_create(NULL, health_conf_parse("procs\n", "t.conf"), &paths);
	uint32_t live[] = { 7 };
	health_set_live_jobs(h, live, 1);
	is_int(health_round(h), 0, "first sight of a leftover: not yet (it may be dying)");
	is_int(health_round(h), 1, "still there a round later: fails");
	ok(has(health_failing(h), "procs: 1 leftover process(es) of ended job 8 (pid 200)"), "procs evidence");
	health_set_live_jobs(h, (uint32_t[]){ 7, 8 }, 2);
	is_int(health_round(h), 0, "a job running here is no leftover");
	health_destroy(h);
	free(proc);
}

/* The cost of one round (docs/benchmarks.md reports the figure of
 * bench/health-round): here only a sanity bound. */
static void cost(const char *lib)
{
	char *sys = xasprintf("%s/sys", tmp), *proc = xasprintf("%s/proc", tmp);
	char *text = xasprintf("gpu count=4\nib\nfs path=%s\nmemory min_free=1M\nclock\nprocs\n", tmp);
	health_paths_t paths = { .sysfs = sys, .proc = "/proc", .nvml_lib = lib };
	health_t *h = health_create(NULL, health_conf_parse(text, "t.conf"), &paths);
	free(text);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 10; i++)
		health_round(h);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ms = ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6) / 10;
	ok(ms < 500, "a round takes %.2f ms (well under 500 even on a loaded machine)", ms);
	health_destroy(h);
	free(sys);
	free(proc);
}

int main(void)
{
	char tmpl[] = "/tmp/test_health.XXXXXX";
	tmp = mkdtemp(tmpl);
	parser();
	keys();
	char *lib = build_fake();
	if (lib) {
		rounds(lib);
		cost(lib);
	} else {
		ok(1, "# SKIP no C compiler for the fake NVML");
	}
	procs();
	char *cmd = xasprintf("rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", tmp);
	free(cmd);
	free(lib);
	return done_testing();
}
