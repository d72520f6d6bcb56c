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
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "noded.h"
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

void resources_fill(const noded_t *nd, msg_node_register_t *reg)
{
	const conf_node_t *n = nd->node;
	reg->name = xstrdup(nd->name);
	reg->port = n->port;
	reg->cpus = (uint32_t)fake_u64("SLUICE_FAKE_CPUS", n->cpus);
	reg->boards = n->boards;
	reg->sockets = n->sockets;
	reg->cores = n->cores_per_socket;
	reg->threads = n->threads_per_core;
	reg->real_memory = fake_u64("SLUICE_FAKE_MEM", n->real_memory);
	reg->tmp_disk = n->tmp_disk;
	reg->gres = gres_string(n);

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
