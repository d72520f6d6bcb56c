/*
 * resources: what a node reports when it registers. CPUs, topology, memory
 * and GRES come from the node's slurm.conf entry (several virtual nodes
 * share one host, so the host's own counts would be wrong for each of
 * them); free memory, load, architecture, OS and boot time are the host's
 * real values, as slurmd reports them.
 *
 * Tests fake a node with fewer resources than configured through
 * SLUICE_FAKE_CPUS, SLUICE_FAKE_MEM (MB) and SLUICE_FAKE_GPUS (count of
 * every gpu GRES entry): the controller must then drain it as slurmctld
 * does ("Low CPUs", "Low RealMemory ...", "gres/gpu count reported lower
 * than configured ...").
 *
 * With gres.conf AutoDetect=nvml the GPUs come from NVML instead (nvml.c),
 * looked up at each registration; when NVML cannot be used the configured
 * GRES is reported, after one error in the log saying why and how to fix it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "noded.h"
#include "nvml.h"
#include "xalloc.h"

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "re");
	if (!fp)
		return xstrdup("");
	strbuf_t sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0 && sb.len < (1u << 20))
		strbuf_add(&sb, buf, n);
	fclose(fp);
	return strbuf_detach(&sb);
}

static const char *find_line(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; ) {
		if (!strncmp(p, key, kl))
			return p + kl;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

uint64_t meminfo_avail_mb(const char *meminfo)
{
	const char *v = find_line(meminfo, "MemAvailable:");
	if (!v)
		v = find_line(meminfo, "MemFree:");
	if (!v)
		return 0;
	return strtoull(v, NULL, 10) / 1024;     /* kB -> MB */
}

uint32_t loadavg_x100(const char *loadavg)
{
	double d = strtod(loadavg, NULL);
	if (d < 0)
		d = 0;
	return (uint32_t)(d * 100.0 + 0.5);
}

int64_t stat_btime(const char *stat)
{
	const char *v = find_line(stat, "btime ");
	return v ? strtoll(v, NULL, 10) : 0;
}

/* An unsigned override from the environment, or dflt. */
static uint64_t fake_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return dflt;
	char *end = NULL;
	unsigned long long x = strtoull(v, &end, 10);
	return end && !*end ? (uint64_t)x : dflt;
}

char *gres_string(const conf_node_t *n)
{
	strbuf_t sb = STRBUF_INIT;
	for (size_t i = 0; i < n->ngres; i++) {
		const conf_gres_t *g = &n->gres[i];
		if (sb.len)
			strbuf_addch(&sb, ',');
		strbuf_addstr(&sb, g->name);
		if (g->type)
			strbuf_addf(&sb, ":%s", g->type);
		uint32_t count = g->count;
		if (!strcmp(g->name, "gpu"))
			count = (uint32_t)fake_u64("SLUICE_FAKE_GPUS", count);
		strbuf_addf(&sb, ":%u", count);
	}
	return sb.len ? strbuf_detach(&sb) : (strbuf_release(&sb), NULL);
}

/* The configured type of a gpu entry when it names the detected one
 * (slurmd 22.05 keeps gres.conf's Type=h100 for a detected
 * "nvidia_h100_80gb_hbm3": a case-insensitive substring match), else the
 * detected type; NULL when NVML gave no name. */
static const char *gpu_report_type(const conf_node_t *n, const char *detected)
{
	if (!detected || !*detected)
		return NULL;
	for (size_t i = 0; i < n->ngres; i++) {
		const conf_gres_t *g = &n->gres[i];
		if (!strcmp(g->name, "gpu") && g->type && *g->type && strcasestr(detected, g->type))
			return g->type;
	}
	return detected;
}

static int same_type(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

char *gres_string_detected(const conf_node_t *n, const nvml_gpu_t *gpus, size_t ngpus)
{
	strbuf_t sb = STRBUF_INIT;
	/* GPUs by type, in the order NVML listed them. */
	for (size_t i = 0; i < ngpus; i++) {
		const char *t = gpu_report_type(n, gpus[i].type);
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = same_type(gpu_report_type(n, gpus[j].type), t);
		if (seen)
			continue;
		uint32_t count = 0;
		for (size_t j = i; j < ngpus; j++)
			count += same_type(gpu_report_type(n, gpus[j].type), t);
		if (sb.len)
			strbuf_addch(&sb, ',');
		strbuf_addstr(&sb, "gpu");
		if (t)
			strbuf_addf(&sb, ":%s", t);
		strbuf_addf(&sb, ":%u", count);
	}
	/* Other GRES (NVML only knows GPUs) as configured. */
	for (size_t i = 0; i < n->ngres; i++) {
		const conf_gres_t *g = &n->gres[i];
		if (!strcmp(g->name, "gpu"))
			continue;
		if (sb.len)
			strbuf_addch(&sb, ',');
		strbuf_addstr(&sb, g->name);
		if (g->type)
			strbuf_addf(&sb, ":%s", g->type);
		strbuf_addf(&sb, ":%u", g->count);
	}
	return sb.len ? strbuf_detach(&sb) : (strbuf_release(&sb), NULL);
}

/* NVML's answer, kept between registrations: heartbeats reuse it rather
 * than loading the library every few seconds. */
static char *nvml_gres;
static int nvml_valid;

void resources_rescan(void)
{
	nvml_valid = 0;
}

/* The GRES a registration reports: NVML's view under AutoDetect=nvml when
 * it works, else the configured one. */
static char *gres_report(const noded_t *nd)
{
	const char *ad = nd->conf ? nd->conf->gres_autodetect : NULL;
	if (!ad || strcasecmp(ad, "nvml"))
		return gres_string(nd->node);
	if (!nvml_valid) {
		static int complained;     /* one error per daemon, not per registration */
		nvml_gpu_t *gpus = NULL;
		char *err = NULL;
		int ng = nvml_detect(NULL, &gpus, &err);
		free(nvml_gres);
		if (ng < 0) {
			if (!complained)
				error("%s", err);
			complained = 1;
			free(err);
			nvml_gres = gres_string(nd->node);
		} else {
			nvml_gres = gres_string_detected(nd->node, gpus, (size_t)ng);
			verbose("gres.conf AutoDetect=nvml: %d GPU(s) found: %s", ng,
				nvml_gres ? nvml_gres : "(none)");
			nvml_gpus_free(gpus, (size_t)ng);
		}
		nvml_valid = 1;
	}
	return nvml_gres ? xstrdup(nvml_gres) : NULL;
}

void resources_fill(const noded_t *nd, msg_node_register_t *reg)
{
	/* The hardware as read at start: a reconfigure does not change
	 * what the node has (noded_reconfigure says it needs a restart). */
	const conf_node_t *n = nd->boot_node;
	reg->name = xstrdup(nd->name);
	reg->port = n->port;
	reg->cpus = (uint32_t)fake_u64("SLUICE_FAKE_CPUS", n->cpus);
	reg->boards = n->boards;
	reg->sockets = n->sockets;
	reg->cores = n->cores_per_socket;
	reg->threads = n->threads_per_core;
	reg->real_memory = fake_u64("SLUICE_FAKE_MEM", n->real_memory);
	reg->tmp_disk = n->tmp_disk;
	reg->gres = gres_report(nd);

	char *t = slurp("/proc/meminfo");
	reg->free_mem = meminfo_avail_mb(t);
	free(t);
	t = slurp("/proc/loadavg");
	reg->cpu_load = loadavg_x100(t);
	free(t);
	t = slurp("/proc/stat");
	reg->boot_time = stat_btime(t);
	free(t);

	struct utsname u;
	if (uname(&u) == 0) {
		reg->arch = xstrdup(u.machine);
		reg->os = xasprintf("%s %s %s", u.sysname, u.release, u.version);
	}
	reg->version = xstrdup(SLURM_COMPAT_VERSION);
	reg->start_time = nd->start_time;
}
