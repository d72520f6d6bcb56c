/*
 * metrics: what a node daemon serves on /metrics for its node, in the
 * Prometheus text format (0.0.4):
 *
 * - GPUs through NVML (nvml.c), under dcgm-exporter's family names and
 *   labels (gpu, UUID, device, modelName, Hostname), each series also
 *   labelled with the job_id, user and account of the job holding that
 *   GPU, so the queries and rules written for dcgm-exporter keep working
 *   and gain the job. With SlurmdMetricsDcgmMapDir set, the GPU families
 *   are left to a site's own dcgm-exporter and this node writes its job
 *   mapping files instead (metrics_dcgm_map_write).
 * - InfiniBand/RoCE ports from sysfs (<root>/class/infiniband/DEV/ports/
 *   N/...), as infiniband_port_* (the node exporter's infiniband collector
 *   names without its node_ prefix, errors and drops in one family each,
 *   so `rate(infiniband_port_errors_total[5m]) > 0` covers every error).
 * - Per job: CPU time and memory of its processes (the job's cgroup when
 *   one exists, else the sessions its supervisors recorded in the spool),
 *   and whether they hold RDMA devices open (a multi-node job that holds
 *   none runs its collectives over TCP).
 * - The node daemon itself: registered with the controller, lease left.
 *
 * Host CPU, memory and disks are the node exporter's: not served here.
 * Everything is read at scrape time from the loop: NVML calls, a few sysfs
 * files per port, one pass over /proc when jobs run here. What the host
 * lacks (no NVML, no InfiniBand) is absent, with one log line at start.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "prom.h"
#include "cmd/cmds.h"
#include "http.h"
#include "cgroup.h"
#include "ib_sysfs.h"
#include "metrics.h"
#include "noded.h"
#include "nvml.h"
#include "fileio.h"
#include "xalloc.h"

/* ---- job metadata in the spool ---- */

/* Parse "0,2,5-7" into a bitmask of GPU indexes below 64. */
static uint64_t gpu_mask_parse(const char *s)
{
	uint64_t m = 0;
	while (s && *s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;
		if (end == s)
			break;
		if (*end == '-') {
			const char *t = end + 1;
			b = strtoul(t, &end, 10);
			if (end == t)
				break;
		}
		for (unsigned long i = a; i <= b && i < 64; i++)
			m |= 1ull << i;
		s = *end == ',' ? end + 1 : NULL;
	}
	return m;
}

int metrics_job_meta_write(const char *dir, const strv_t *env, uint32_t uid, int step)
{
	strbuf_t sb = STRBUF_INIT;
	const char *user = env_get(env, "SLURM_JOB_USER");
	const char *acct = env_get(env, "SLURM_JOB_ACCOUNT");
	/* A batch job's SLURM_JOB_GPUS is this node's (the controller sets
	 * it for the batch host). A step's environment is srun's, inherited
	 * from the batch script: its SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES
	 * name the batch host's GPUs, wrong on the other nodes, so a step
	 * counts only the GPUs given to it on this node (SLURM_STEP_GPUS). */
	const char *gpus = step ? env_get(env, "SLURM_STEP_GPUS") : env_get(env, "SLURM_JOB_GPUS");
	const char *nn = env_get(env, "SLURM_JOB_NUM_NODES");
	if (!nn)
		nn = env_get(env, "SLURM_NNODES");
	if (user && *user)
		strbuf_addf(&sb, "user=%s\n", user);
	else
		strbuf_addf(&sb, "user=%u\n", uid);
	strbuf_addf(&sb, "account=%s\n", acct ? acct : "");
	strbuf_addf(&sb, "gpus=%" PRIu64 "\n", gpu_mask_parse(gpus));
	strbuf_addf(&sb, "nodes=%lu\n", nn ? strtoul(nn, NULL, 10) : 1ul);
	char *path = xasprintf("%s/meta", dir);
	int rc = write_file_atomic(path, sb.buf, sb.len, 0644);
	free(path);
	strbuf_release(&sb);
	return rc;
}

/* One job as seen on this node (its batch supervisor and steps). */
typedef struct mjob {
	uint32_t job_id;
	char *user, *account;
	uint64_t gpus;             /* GPU indexes held here */
	uint32_t nodes;
	pid_t *sids;               /* sessions of its tasks */
	size_t nsids;
	uint64_t cpu_ticks, rss_pages;
	uint32_t procs, rdma_fds;
	int cgroup;                /* cpu/mem below came from its cgroup */
	uint64_t cg_cpu_usec, cg_mem_bytes;
} mjob_t;

typedef struct mjobs {
	mjob_t *v;
	size_t n, alloc;
} mjobs_t;

static mjob_t *mjob_get(mjobs_t *js, uint32_t id)
{
	for (size_t i = 0; i < js->n; i++)
		if (js->v[i].job_id == id)
			return &js->v[i];
	if (js->n == js->alloc) {
		js->alloc = js->alloc ? 2 * js->alloc : 8;
		js->v = xrealloc(js->v, js->alloc * sizeof(*js->v));
	}
	mjob_t *j = &js->v[js->n++];
	memset(j, 0, sizeof(*j));
	j->job_id = id;
	j->nodes = 1;
	return j;
}

static void mjobs_release(mjobs_t *js)
{
	for (size_t i = 0; i < js->n; i++) {
		free(js->v[i].user);
		free(js->v[i].account);
		free(js->v[i].sids);
	}
	free(js->v);
}

static const char *meta_field(const char *text, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; ) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			const char *v = p + kl + 1;
			*len = strcspn(v, "\n");
			return v;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static void job_add_meta(mjob_t *j, const char *dir)
{
	char *path = xasprintf("%s/meta", dir);
	char *text = file_read_small(path, 4096);
	free(path);
	if (!text)
		return;
	size_t len;
	const char *v;
	if (!j->user && (v = meta_field(text, "user", &len)))
		j->user = xstrndup(v, len);
	if (!j->account && (v = meta_field(text, "account", &len)))
		j->account = xstrndup(v, len);
	if ((v = meta_field(text, "gpus", &len)))
		j->gpus |= strtoull(v, NULL, 10);
	if ((v = meta_field(text, "nodes", &len))) {
		unsigned long n = strtoul(v, NULL, 10);
		if (n > j->nodes)
			j->nodes = (uint32_t)n;
	}
	free(text);
	path = xasprintf("%s/tasks", dir);
	text = file_read_small(path, 1 << 16);
	free(path);
	for (const char *p = text; p && *p; ) {
		long sid = strtol(p, NULL, 10);
		if (sid > 0) {
			j->sids = xrealloc(j->sids, (j->nsids + 1) * sizeof(*j->sids));
			j->sids[j->nsids++] = (pid_t)sid;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	free(text);
}

static void scan_one(const char *dir, const spool_rec_t *r, void *arg)
{
	if (!r || r->done || !spool_rec_alive(r))
		return;
	mjob_t *j = mjob_get(arg, r->job_id);
	job_add_meta(j, dir);
}

/* ---- /proc and cgroups ---- */

/* utime+stime (ticks), rss (pages) and session of /proc/PID/stat. */
static int proc_stat_read(const char *proc, const char *pid, pid_t *sid, uint64_t *ticks,
			  uint64_t *rss)
{
	char path[512], buf[1024];
	snprintf(path, sizeof(path), "%s/%s/stat", proc, pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* fields from 3: state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime cutime cstime priority nice
	 * threads itrealvalue starttime vsize rss */
	int s;
	unsigned long long ut, st, rs;
	long long cut, cst;
	if (sscanf(p + 1, " %*c %*d %*d %d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld %*d %*d %*d %*d "
		   "%*u %*u %llu", &s, &ut, &st, &cut, &cst, &rs) != 6)
		return -1;
	*sid = s;
	/* with the children it has waited for: their time stays counted
	 * after they exit */
	*ticks = ut + st + (uint64_t)(cut > 0 ? cut : 0) + (uint64_t)(cst > 0 ? cst : 0);
	*rss = rs;
	return 0;
}

/* RDMA devices (/dev/infiniband/uverbs*) the process holds open. */
static uint32_t proc_rdma_fds(const char *proc, const char *pid)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s/fd", proc, pid);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	uint32_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char lp[1024], tgt[256];
		snprintf(lp, sizeof(lp), "%s/%s", path, e->d_name);
		ssize_t l = readlink(lp, tgt, sizeof(tgt) - 1);
		if (l <= 0)
			continue;
		tgt[l] = '\0';
		if (!strncmp(tgt, "/dev/infiniband/uverbs", 22))
			n++;
	}
	closedir(d);
	return n;
}

static void job_add_proc(const char *proc, const char *pid, mjob_t *j, uint64_t ticks, uint64_t rss)
{
	j->procs++;
	j->cpu_ticks += ticks;
	j->rss_pages += rss;
	j->rdma_fds += proc_rdma_fds(proc, pid);
}

/* Add every process of the jobs' sessions: one pass over /proc (when the
 * kernel has no children files; the cost follows the host's processes). */
static void proc_scan_all(const char *proc, mjobs_t *js)
{
	DIR *d = opendir(proc);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid_t sid;
		uint64_t ticks, rss;
		if (proc_stat_read(proc, e->d_name, &sid, &ticks, &rss) < 0)
			continue;
		for (size_t i = 0; i < js->n; i++) {
			mjob_t *j = &js->v[i];
			size_t k = 0;
			while (k < j->nsids && j->sids[k] != sid)
				k++;
			if (k < j->nsids) {
				job_add_proc(proc, e->d_name, j, ticks, rss);
				break;
			}
		}
	}
	closedir(d);
}

#define WALK_MAX 65536   /* processes walked per job per scrape, a bound */

/* Add the processes of one job: each task's session leader and its
 * descendants still in that session, found through the kernel's
 * /proc/PID/task/TID/children lists, so the cost follows the job's own
 * processes, not the host's (a busy node has thousands). A pid that now
 * belongs to another session (reused, or a child that called setsid) is
 * not counted, nor are its descendants. */
static void job_walk(const char *proc, mjob_t *j)
{
	struct ent { pid_t pid, sid; } *st = NULL;
	size_t n = 0, alloc = 0, walked = 0;
	for (size_t i = 0; i < j->nsids; i++) {
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			st = xrealloc(st, alloc * sizeof(*st));
		}
		st[n].pid = st[n].sid = j->sids[i];
		n++;
	}
	while (n && walked++ < WALK_MAX) {
		struct ent e = st[--n];
		char ps[24];
		snprintf(ps, sizeof(ps), "%d", (int)e.pid);
		pid_t sid;
		uint64_t ticks, rss;
		if (proc_stat_read(proc, ps, &sid, &ticks, &rss) < 0 || sid != e.sid)
			continue;
		job_add_proc(proc, ps, j, ticks, rss);
		char path[512];
		snprintf(path, sizeof(path), "%s/%s/task", proc, ps);
		DIR *d = opendir(path);
		struct dirent *t;
		while (d && (t = readdir(d))) {
			if (!isdigit((unsigned char)t->d_name[0]))
				continue;
			char cp[800];
			snprintf(cp, sizeof(cp), "%s/%s/children", path, t->d_name);
			char *kids = file_read_small(cp, 1 << 16);
			for (char *k = kids; k && *k; ) {
				char *end;
				long c = strtol(k, &end, 10);
				if (end == k)
					break;
				if (c > 0) {
					if (n == alloc) {
						alloc = alloc ? 2 * alloc : 16;
						st = xrealloc(st, alloc * sizeof(*st));
					}
					st[n].pid = (pid_t)c;
					st[n].sid = e.sid;
					n++;
				}
				k = end;
			}
			free(kids);
		}
		if (d)
			closedir(d);
	}
	free(st);
}

static void proc_collect(const char *proc, int children_ok, mjobs_t *js)
{
	size_t total = 0;
	for (size_t i = 0; i < js->n; i++)
		total += js->v[i].nsids;
	if (!total)
		return;
	if (!children_ok) {
		proc_scan_all(proc, js);
		return;
	}
	for (size_t i = 0; i < js->n; i++)
		job_walk(proc, &js->v[i]);
}

/* The job's cgroup: where the node daemon made it (cgroup.c, nd->cgroup);
 * without one, Slurm's own v2 layout, <root>/system.slice/slurmstepd.scope/
 * job_<ID>/{cpu.stat,memory.current}, where another stepd may have put it. */
static void cgroup_collect(const noded_t *nd, const char *root, mjob_t *j)
{
	if (nd && nd->cgroup) {
		if (cgroup_job_now(nd->cgroup, j->job_id, &j->cg_cpu_usec, &j->cg_mem_bytes) == 0)
			j->cgroup = 1;
		return;
	}
	char path[512];
	snprintf(path, sizeof(path), "%s/system.slice/slurmstepd.scope/job_%u/cpu.stat", root, j->job_id);
	char *cpu = file_read_small(path, 4096);
	if (!cpu)
		return;
	snprintf(path, sizeof(path), "%s/system.slice/slurmstepd.scope/job_%u/memory.current", root,
		 j->job_id);
	char *mem = file_read_small(path, 64);
	size_t len;
	const char *u = NULL;
	for (const char *p = cpu; p && *p && !u; ) {
		if (!strncmp(p, "usage_usec ", 11))
			u = p + 11;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	(void)len;
	if (u && mem) {
		j->cgroup = 1;
		j->cg_cpu_usec = strtoull(u, NULL, 10);
		j->cg_mem_bytes = strtoull(mem, NULL, 10);
	}
	free(cpu);
	free(mem);
}

/* ---- the text format ---- */

static void add_escaped(strbuf_t *o, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			strbuf_addch(o, '\\');
		if (*s == '\n') {
			strbuf_addstr(o, "\\n");
			continue;
		}
		strbuf_addch(o, *s);
	}
}

static void family(strbuf_t *o, const char *name, const char *type, const char *help)
{
	strbuf_addf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* ---- the collector ---- */

struct node_metrics {
	noded_t *nd;
	http_server_t *http;       /* NULL when not served */
	uint64_t map_timer;        /* dcgm mapping files refresh */
	nvml_lib_t *nvml;
	char *sysfs, *proc, *cgroup, *nvml_lib;
	char *dcgm_map_dir;        /* write mapping files, serve no GPU families */
	long ticks_per_s;
	long page_size;
	int children_ok;           /* the kernel has /proc/PID/task/TID/children */
	struct cpu_seen { uint32_t job_id; double s; } *cpu_seen; /* highest CPU time served, per job */
	size_t ncpu_seen;
	int ib_absent_said;
};

/* The collector without its hardware (metrics_open_hw). */
static node_metrics_t *metrics_alloc(noded_t *nd, const metrics_paths_t *paths)
{
	node_metrics_t *m = xcalloc(1, sizeof(*m));
	m->nd = nd;
	/* Tests point a daemon at fake trees through the environment. */
	const char *sys = getenv("SLUICE_SYSFS_ROOT"), *cg = getenv("SLUICE_CGROUP_ROOT");
	m->sysfs = xstrdup(paths && paths->sysfs ? paths->sysfs : sys && *sys ? sys : "/sys");
	m->proc = xstrdup(paths && paths->proc ? paths->proc : "/proc");
	m->cgroup = xstrdup(paths && paths->cgroup ? paths->cgroup : cg && *cg ? cg : "/sys/fs/cgroup");
	m->nvml_lib = paths && paths->nvml_lib ? xstrdup(paths->nvml_lib) : NULL;
	const char *map = nd && nd->conf ? conf_get(nd->conf, "SlurmdMetricsDcgmMapDir") : NULL;
	if (paths && paths->dcgm_map_dir)
		map = paths->dcgm_map_dir;
	m->dcgm_map_dir = map && *map ? xstrdup(map) : NULL;
	m->ticks_per_s = sysconf(_SC_CLK_TCK);
	if (m->ticks_per_s <= 0)
		m->ticks_per_s = 100;
	m->page_size = sysconf(_SC_PAGESIZE);
	if (m->page_size <= 0)
		m->page_size = 4096;
	char *self = xasprintf("%s/self/task/%d/children", m->proc, (int)gettid());
	m->children_ok = access(self, R_OK) == 0;
	free(self);
	return m;
}

/* Open NVML and look for InfiniBand once; say what is missing. */
static void metrics_open_hw(node_metrics_t *m)
{
	char *err = NULL;
	m->nvml = nvml_open(m->nvml_lib, &err);
	if (!m->nvml) {
		info("metrics: no GPU families: %s", err);
		free(err);
	} else if (m->dcgm_map_dir) {
		info("metrics: %u GPU(s); GPU families left to dcgm-exporter, job mapping files in %s",
		     nvml_count(m->nvml), m->dcgm_map_dir);
	} else {
		verbose("metrics: %u GPU(s) through NVML", nvml_count(m->nvml));
	}
	char *ib = xasprintf("%s/class/infiniband", m->sysfs);
	DIR *d = opendir(ib);
	int any = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		any |= e->d_name[0] != '.';
	if (d)
		closedir(d);
	if (!any)
		info("metrics: no InfiniBand families: no device in %s", ib);
	free(ib);
}

node_metrics_t *metrics_create(noded_t *nd, const metrics_paths_t *paths)
{
	node_metrics_t *m = metrics_alloc(nd, paths);
	metrics_open_hw(m);
	return m;
}

void metrics_destroy(node_metrics_t *m)
{
	if (!m)
		return;
	http_stop(m->http);
	if (m->map_timer && m->nd && m->nd->loop)
		loop_cancel_timer(m->nd->loop, m->map_timer);
	nvml_close(m->nvml);
	free(m->sysfs);
	free(m->proc);
	free(m->cgroup);
	free(m->nvml_lib);
	free(m->dcgm_map_dir);
	free(m->cpu_seen);
	free(m);
}

/* The job holding GPU minor number g, or NULL. */
static const mjob_t *gpu_job(const mjobs_t *js, unsigned g)
{
	for (size_t i = 0; g < 64 && i < js->n; i++)
		if (js->v[i].gpus & (1ull << g))
			return &js->v[i];
	return NULL;
}

static void job_labels(strbuf_t *o, const mjob_t *j)
{
	strbuf_addf(o, "job_id=\"%u\",user=\"", j->job_id);
	add_escaped(o, j->user);
	strbuf_addstr(o, "\",account=\"");
	add_escaped(o, j->account);
	strbuf_addch(o, '"');
}

/* dcgm-exporter's families: name, type, help, NVS_* bit. */
enum gpu_field {
	GF_UTIL, GF_MEM_COPY_UTIL, GF_FB_USED, GF_FB_FREE, GF_FB_TOTAL, GF_TEMP, GF_POWER, GF_ENERGY,
	GF_SM_CLOCK, GF_MEM_CLOCK, GF_SBE_VOL, GF_DBE_VOL, GF_SBE_AGG, GF_DBE_AGG, GF_XID,
	GF_XID_COUNT, GF_THROTTLE, GF_NVL_FLIT, GF_NVL_DATA, GF_NVL_REPLAY, GF_NVL_RECOVERY,
};
static const struct gpu_family {
	const char *name, *type, *help;
	unsigned need;
} gpu_families[] = {
	[GF_UTIL] = { "DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", NVS_UTIL },
	[GF_MEM_COPY_UTIL] = { "DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", NVS_UTIL },
	[GF_FB_USED] = { "DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", NVS_MEM },
	[GF_FB_FREE] = { "DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", NVS_MEM },
	[GF_FB_TOTAL] = { "DCGM_FI_DEV_FB_TOTAL", "gauge", "Framebuffer memory total (in MiB).", NVS_MEM },
	[GF_TEMP] = { "DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", NVS_TEMP },
	[GF_POWER] = { "DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", NVS_POWER },
	[GF_ENERGY] = { "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
			"Total energy consumption since boot (in mJ).", NVS_ENERGY },
	[GF_SM_CLOCK] = { "DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", NVS_SM_CLOCK },
	[GF_MEM_CLOCK] = { "DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).",
			   NVS_MEM_CLOCK },
	[GF_SBE_VOL] = { "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter",
			 "Total number of single-bit volatile ECC errors.", NVS_ECC_VOL },
	[GF_DBE_VOL] = { "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter",
			 "Total number of double-bit volatile ECC errors.", NVS_ECC_VOL },
	[GF_SBE_AGG] = { "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "counter",
			 "Total number of single-bit persistent ECC errors.", NVS_ECC_AGG },
	[GF_DBE_AGG] = { "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "counter",
			 "Total number of double-bit persistent ECC errors.", NVS_ECC_AGG },
	[GF_XID] = { "DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.",
		     NVS_XID },
	[GF_XID_COUNT] = { "sluice_gpu_xid_errors_total", "counter",
			   "XID errors seen since the node daemon started.", NVS_XID },
	[GF_THROTTLE] = { "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "gauge",
			  "Current clock throttle reasons (NVML bitmask).", NVS_THROTTLE },
	[GF_NVL_FLIT] = { "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "counter",
			  "Total number of NVLink flow-control CRC errors.", NVS_NVLINK },
	[GF_NVL_DATA] = { "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "counter",
			  "Total number of NVLink data CRC errors.", NVS_NVLINK },
	[GF_NVL_REPLAY] = { "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "counter",
			    "Total number of NVLink retries.", NVS_NVLINK },
	[GF_NVL_RECOVERY] = { "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", "counter",
			      "Total number of NVLink recovery errors.", NVS_NVLINK },
};

static void gpu_value(strbuf_t *o, enum gpu_field f, const nvml_sample_t *s)
{
	switch (f) {
	case GF_UTIL: strbuf_addf(o, "%u", s->util_gpu); break;
	case GF_MEM_COPY_UTIL: strbuf_addf(o, "%u", s->util_mem); break;
	case GF_FB_USED: strbuf_addf(o, "%" PRIu64, s->fb_used >> 20); break;
	case GF_FB_FREE: strbuf_addf(o, "%" PRIu64, s->fb_free >> 20); break;
	case GF_FB_TOTAL: strbuf_addf(o, "%" PRIu64, s->fb_total >> 20); break;
	case GF_TEMP: strbuf_addf(o, "%u", s->temp_c); break;
	case GF_POWER: strbuf_addf(o, "%u.%03u", s->power_mw / 1000, s->power_mw % 1000); break;
	case GF_ENERGY: strbuf_addf(o, "%" PRIu64, s->energy_mj); break;
	case GF_SM_CLOCK: strbuf_addf(o, "%u", s->sm_clock_mhz); break;
	case GF_MEM_CLOCK: strbuf_addf(o, "%u", s->mem_clock_mhz); break;
	case GF_SBE_VOL: strbuf_addf(o, "%" PRIu64, s->sbe_vol); break;
	case GF_DBE_VOL: strbuf_addf(o, "%" PRIu64, s->dbe_vol); break;
	case GF_SBE_AGG: strbuf_addf(o, "%" PRIu64, s->sbe_agg); break;
	case GF_DBE_AGG: strbuf_addf(o, "%" PRIu64, s->dbe_agg); break;
	case GF_XID: strbuf_addf(o, "%u", s->xid_last); break;
	case GF_XID_COUNT: strbuf_addf(o, "%" PRIu64, s->xid_count); break;
	case GF_THROTTLE: strbuf_addf(o, "%" PRIu64, s->throttle); break;
	case GF_NVL_FLIT: strbuf_addf(o, "%" PRIu64, s->nvl_crc_flit); break;
	case GF_NVL_DATA: strbuf_addf(o, "%" PRIu64, s->nvl_crc_data); break;
	case GF_NVL_REPLAY: strbuf_addf(o, "%" PRIu64, s->nvl_replay); break;
	case GF_NVL_RECOVERY: strbuf_addf(o, "%" PRIu64, s->nvl_recovery); break;
	}
}

static void render_gpus(node_metrics_t *m, const mjobs_t *js, strbuf_t *o)
{
	unsigned n = nvml_count(m->nvml);
	if (!n || m->dcgm_map_dir)
		return;
	nvml_sample_t *s = xcalloc(n, sizeof(*s));
	for (unsigned i = 0; i < n; i++)
		nvml_sample(m->nvml, i, &s[i]);
	/* The labels of each GPU, built once. */
	strbuf_t *lab = xcalloc(n, sizeof(*lab));
	for (unsigned i = 0; i < n; i++) {
		strbuf_init(&lab[i]);
		unsigned minor = nvml_dev_minor(m->nvml, i);
		strbuf_addf(&lab[i], "{gpu=\"%u\",UUID=\"", i);
		add_escaped(&lab[i], nvml_dev_uuid(m->nvml, i));
		strbuf_addf(&lab[i], "\",device=\"nvidia%u\",modelName=\"", minor);
		add_escaped(&lab[i], nvml_dev_name(m->nvml, i));
		strbuf_addstr(&lab[i], "\",Hostname=\"");
		add_escaped(&lab[i], m->nd ? m->nd->name : "");
		strbuf_addch(&lab[i], '"');
		const mjob_t *j = gpu_job(js, minor);
		if (j) {
			strbuf_addch(&lab[i], ',');
			job_labels(&lab[i], j);
		}
		strbuf_addstr(&lab[i], "} ");
	}
	for (size_t f = 0; f < sizeof(gpu_families) / sizeof(gpu_families[0]); f++) {
		const struct gpu_family *gf = &gpu_families[f];
		int any = 0;
		for (unsigned i = 0; i < n && !any; i++)
			any = (s[i].have & gf->need) != 0;
		if (!any)
			continue;
		family(o, gf->name, gf->type, gf->help);
		for (unsigned i = 0; i < n; i++) {
			if (!(s[i].have & gf->need))
				continue;
			strbuf_addstr(o, gf->name);
			strbuf_add(o, lab[i].buf, lab[i].len);
			gpu_value(o, (enum gpu_field)f, &s[i]);
			strbuf_addch(o, '\n');
		}
	}
	for (unsigned i = 0; i < n; i++)
		strbuf_release(&lab[i]);
	free(lab);
	free(s);
}

/* ---- InfiniBand ---- */

static void ib_labels(strbuf_t *o, const ib_port_t *p)
{
	strbuf_addstr(o, "{device=\"");
	add_escaped(o, p->device);
	strbuf_addstr(o, "\",port=\"");
	add_escaped(o, p->port);
	strbuf_addch(o, '"');
}

static void ib_series(strbuf_t *o, const char *name, const ib_port_t *p, int64_t v)
{
	if (v < 0)
		return;
	strbuf_addstr(o, name);
	ib_labels(o, p);
	strbuf_addf(o, "} %" PRId64 "\n", v);
}

static void render_ib(node_metrics_t *m, strbuf_t *o)
{
	size_t np = 0;
	ib_port_t *ports = ib_ports_read(m->sysfs, &np);
	if (!np) {
		ib_ports_free(ports, np);
		return;
	}
	family(o, "infiniband_port_state_id", "gauge",
	       "Port state (sysfs state: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER).");
	for (size_t i = 0; i < np; i++) {
		if (ports[i].state < 0)
			continue;
		strbuf_addstr(o, "infiniband_port_state_id");
		ib_labels(o, &ports[i]);
		strbuf_addstr(o, ",link_layer=\"");
		add_escaped(o, ports[i].link_layer);
		strbuf_addf(o, "\"} %d\n", ports[i].state);
	}
	family(o, "infiniband_port_physical_state_id", "gauge",
	       "Physical port state (sysfs phys_state: 2 Polling, 3 Disabled, 5 LinkUp, ...).");
	for (size_t i = 0; i < np; i++)
		ib_series(o, "infiniband_port_physical_state_id", &ports[i], ports[i].phys_state);
	family(o, "infiniband_port_rate_bytes_per_second", "gauge", "Port link rate in bytes per second.");
	for (size_t i = 0; i < np; i++)
		ib_series(o, "infiniband_port_rate_bytes_per_second", &ports[i],
			  ports[i].rate_bps < 0 ? -1 : (int64_t)ports[i].rate_bps);
	static const struct { const char *name, *help; size_t off; } ctr[] = {
		{ "infiniband_port_data_received_bytes_total", "Data received on the port, bytes.",
		  offsetof(ib_port_t, rx_bytes) },
		{ "infiniband_port_data_transmitted_bytes_total", "Data transmitted on the port, bytes.",
		  offsetof(ib_port_t, tx_bytes) },
		{ "infiniband_port_packets_received_total", "Packets received on the port.",
		  offsetof(ib_port_t, rx_pkts) },
		{ "infiniband_port_packets_transmitted_total", "Packets transmitted on the port.",
		  offsetof(ib_port_t, tx_pkts) },
		{ "infiniband_port_transmit_wait_total", "Ticks the port had data to send but no credit.",
		  offsetof(ib_port_t, xmit_wait) },
	};
	for (size_t c = 0; c < sizeof(ctr) / sizeof(ctr[0]); c++) {
		family(o, ctr[c].name, "counter", ctr[c].help);
		for (size_t i = 0; i < np; i++)
			ib_series(o, ctr[c].name, &ports[i],
				  *(const int64_t *)((const char *)&ports[i] + ctr[c].off));
	}
	family(o, "infiniband_port_errors_total", "counter",
	       "Port error counters (sysfs counters/<error>), by error.");
	for (size_t i = 0; i < np; i++) {
		for (size_t e = 0; e < IB_NERRORS; e++) {
			if (ports[i].errors[e] < 0)
				continue;
			strbuf_addstr(o, "infiniband_port_errors_total");
			ib_labels(o, &ports[i]);
			strbuf_addf(o, ",error=\"%s\"} %" PRId64 "\n", ib_error_names[e], ports[i].errors[e]);
		}
	}
	family(o, "infiniband_port_dropped_total", "counter",
	       "Packets the port dropped (sysfs counters/<counter>), by counter.");
	for (size_t i = 0; i < np; i++) {
		for (size_t e = 0; e < IB_NDROPS; e++) {
			if (ports[i].drops[e] < 0)
				continue;
			strbuf_addstr(o, "infiniband_port_dropped_total");
			ib_labels(o, &ports[i]);
			strbuf_addf(o, ",counter=\"%s\"} %" PRId64 "\n", ib_drop_names[e], ports[i].drops[e]);
		}
	}
	ib_ports_free(ports, np);
}

/* ---- jobs and the daemon ---- */

static void render_jobs(node_metrics_t *m, mjobs_t *js, strbuf_t *o)
{
	for (size_t i = 0; i < js->n; i++)
		cgroup_collect(m->nd, m->cgroup, &js->v[i]);
	proc_collect(m->proc, m->children_ok, js);
	if (!js->n) {
		free(m->cpu_seen);
		m->cpu_seen = NULL;
		m->ncpu_seen = 0;
		return;
	}
	family(o, "sluice_job_cpu_seconds_total", "counter",
	       "CPU time of the job's processes on this node (its cgroup when present).");
	/* A counter must not go down: a process that exits without being
	 * waited for within the job takes its time with it, so the highest
	 * value served so far is kept per running job. */
	struct cpu_seen *seen = xcalloc(js->n, sizeof(*seen));
	for (size_t i = 0; i < js->n; i++) {
		const mjob_t *j = &js->v[i];
		double s = j->cgroup ? (double)j->cg_cpu_usec / 1e6 : (double)j->cpu_ticks / (double)m->ticks_per_s;
		for (size_t k = 0; k < m->ncpu_seen; k++)
			if (m->cpu_seen[k].job_id == j->job_id && m->cpu_seen[k].s > s)
				s = m->cpu_seen[k].s;
		seen[i].job_id = j->job_id;
		seen[i].s = s;
		strbuf_addstr(o, "sluice_job_cpu_seconds_total{");
		job_labels(o, j);
		strbuf_addf(o, "} %.2f\n", s);
	}
	free(m->cpu_seen);
	m->cpu_seen = seen;
	m->ncpu_seen = js->n;
	family(o, "sluice_job_memory_bytes", "gauge",
	       "Memory of the job on this node: its cgroup's memory.current, else the processes' RSS.");
	for (size_t i = 0; i < js->n; i++) {
		const mjob_t *j = &js->v[i];
		uint64_t b = j->cgroup ? j->cg_mem_bytes : j->rss_pages * (uint64_t)m->page_size;
		strbuf_addstr(o, "sluice_job_memory_bytes{");
		job_labels(o, j);
		strbuf_addf(o, "} %" PRIu64 "\n", b);
	}
	family(o, "sluice_job_processes", "gauge", "Processes of the job on this node.");
	for (size_t i = 0; i < js->n; i++) {
		strbuf_addstr(o, "sluice_job_processes{");
		job_labels(o, &js->v[i]);
		strbuf_addf(o, "} %u\n", js->v[i].procs);
	}
	family(o, "sluice_job_nodes", "gauge", "Nodes of the job's allocation.");
	for (size_t i = 0; i < js->n; i++) {
		strbuf_addstr(o, "sluice_job_nodes{");
		job_labels(o, &js->v[i]);
		strbuf_addf(o, "} %u\n", js->v[i].nodes);
	}
	family(o, "sluice_job_rdma_fds", "gauge",
	       "RDMA devices (/dev/infiniband/uverbs*) the job's processes hold open on this node.");
	for (size_t i = 0; i < js->n; i++) {
		strbuf_addstr(o, "sluice_job_rdma_fds{");
		job_labels(o, &js->v[i]);
		strbuf_addf(o, "} %u\n", js->v[i].rdma_fds);
	}
	family(o, "sluice_job_gpus", "gauge", "GPUs the job holds on this node.");
	for (size_t i = 0; i < js->n; i++) {
		strbuf_addstr(o, "sluice_job_gpus{");
		job_labels(o, &js->v[i]);
		strbuf_addf(o, "} %d\n", __builtin_popcountll(js->v[i].gpus));
	}
}

static void render_node(node_metrics_t *m, const mjobs_t *js, strbuf_t *o)
{
	noded_t *nd = m->nd;
	family(o, "sluice_node_info", "gauge", "The node daemon: node name and version.");
	strbuf_addstr(o, "sluice_node_info{node=\"");
	add_escaped(o, nd ? nd->name : "");
	strbuf_addf(o, "\",version=\"%s\"} 1\n", SLURM_COMPAT_VERSION);
	if (nd) {
		family(o, "sluice_node_start_time_seconds", "gauge", "When the node daemon started (epoch).");
		strbuf_addf(o, "sluice_node_start_time_seconds %" PRId64 "\n", nd->start_time);
		family(o, "sluice_node_registered", "gauge",
		       "1 while the node daemon is registered with the controller.");
		strbuf_addf(o, "sluice_node_registered %d\n", nd->link ? ctld_link_registered(nd->link) : 0);
		uint64_t renewed, lease;
		if (nd->spool && spool_lease_read(nd->spool, &renewed, &lease) == 0 && lease) {
			int64_t left = (int64_t)(renewed + lease) - (int64_t)boottime_ms();
			family(o, "sluice_node_lease_remaining_seconds", "gauge",
			       "Time left on the node's lease on its jobs; at 0 its jobs are stopped.");
			strbuf_addf(o, "sluice_node_lease_remaining_seconds %.3f\n",
				    (double)(left < 0 ? 0 : left) / 1000.0);
		}
	}
	family(o, "sluice_node_jobs", "gauge", "Jobs with processes on this node.");
	strbuf_addf(o, "sluice_node_jobs %zu\n", js->n);
	if (m->nvml) {
		family(o, "sluice_node_gpus", "gauge", "GPUs NVML reports on this node.");
		strbuf_addf(o, "sluice_node_gpus %u\n", nvml_count(m->nvml));
	}
}

static void jobs_collect(node_metrics_t *m, mjobs_t *js)
{
	if (m->nd && m->nd->spool)
		spool_scan(m->nd->spool, scan_one, js);
}

void metrics_render(node_metrics_t *m, strbuf_t *o)
{
	mjobs_t js = { 0 };
	jobs_collect(m, &js);
	render_gpus(m, &js, o);
	if (m->dcgm_map_dir)
		metrics_dcgm_map_write(m);
	render_ib(m, o);
	render_jobs(m, &js, o);
	render_node(m, &js, o);
	mjobs_release(&js);
}

int metrics_dcgm_map_write(node_metrics_t *m)
{
	if (!m->dcgm_map_dir)
		return 0;
	mjobs_t js = { 0 };
	jobs_collect(m, &js);
	unsigned n = nvml_count(m->nvml);
	int rc = 0;
	/* dcgm-exporter's --hpc-job-mapping-dir: one file per GPU index,
	 * named by it, holding the ids of the jobs on that GPU, one a line;
	 * an empty file for a free GPU. */
	for (unsigned i = 0; i < n; i++) {
		const mjob_t *j = gpu_job(&js, nvml_dev_minor(m->nvml, i));
		char *path = xasprintf("%s/%u", m->dcgm_map_dir, i);
		char line[32] = "";
		if (j)
			snprintf(line, sizeof(line), "%u\n", j->job_id);
		if (write_file_atomic(path, line, strlen(line), 0644) < 0) {
			error("metrics: cannot write %s: %m", path);
			rc = -1;
		}
		free(path);
	}
	mjobs_release(&js);
	return rc;
}

/* ---- serving ---- */

static void handle(void *arg, const char *path, http_reply_t *r)
{
	node_metrics_t *m = arg;
	if (!strcmp(path, "/metrics")) {
		metrics_render(m, &r->body);
		r->content_type = PROM_CONTENT_TYPE;
	} else if (!strcmp(path, "/livez") || !strcmp(path, "/healthz")) {
		strbuf_addstr(&r->body, "ok\n");
	} else if (!strcmp(path, "/readyz")) {
		if (m->nd && m->nd->link && ctld_link_registered(m->nd->link)) {
			strbuf_addstr(&r->body, "ok\n");
		} else {
			r->status = 503;
			strbuf_addstr(&r->body, "not ready: not registered with the controller\n");
		}
	} else if (!strcmp(path, "/")) {
		strbuf_addstr(&r->body, "sluice noded: /metrics /livez /readyz /healthz\n");
	} else {
		r->status = 404;
		strbuf_addstr(&r->body, "404 not found\n");
	}
}

#define MAP_REFRESH_MS 5000

static void map_tick(loop_t *l, void *arg)
{
	node_metrics_t *m = arg;
	metrics_dcgm_map_write(m);
	m->map_timer = loop_add_timer(l, MAP_REFRESH_MS, map_tick, m);
}

int metrics_start(noded_t *nd, char **err)
{
	uint16_t port = conf_node_metrics_port(nd->conf, nd->node);
	*err = NULL;
	if (!port && !conf_get(nd->conf, "SlurmdMetricsDcgmMapDir"))
		return 0;
	node_metrics_t *m = metrics_alloc(nd, NULL);
	if (port) {
		/* On the node's NodeAddr when it is numeric (virtual nodes on
		 * loopback stay there), else on every address. */
		unsigned char a[16];
		const char *addr = nd->node->addr;
		if (addr && inet_pton(AF_INET, addr, a) != 1 && inet_pton(AF_INET6, addr, a) != 1)
			addr = NULL;
		http_opts_t o = {
			.name = "node metrics port",
			.addr = addr,
			.port = port,
			.token_file = conf_get(nd->conf, "MetricsTokenFile"),
			.allow = conf_get(nd->conf, "MetricsAllowFrom"),
		};
		m->http = http_start(nd->loop, &o, handle, m, err);
		if (!m->http) {
			metrics_destroy(m);
			return -1;
		}
		info("metrics on http://%s:%u/metrics%s%s", addr ? addr : "*", (unsigned)http_port(m->http),
		     o.token_file ? " (bearer token)" : "", o.allow ? " (allow-list)" : "");
	}
	nd->metrics = m;
	return 0;
}

void metrics_start_hw(noded_t *nd)
{
	node_metrics_t *m = nd->metrics;
	if (!m)
		return;
	metrics_open_hw(m);
	/* Mapping files follow the jobs between scrapes too. */
	if (m->dcgm_map_dir)
		m->map_timer = loop_add_timer(nd->loop, 0, map_tick, m);
}
