/*
 * health: the built-in node health checks (see health.h; the checks and
 * their keys are documented in docs/node-operations.md, "Health checks").
 *
 * A round: for each check of health.conf, read what it needs and append
 * one "check: evidence" line per problem found, e.g.
 *   gpu: gpu3 ECC uncorrectable=2
 *   ib: mlx5_0/1 rate 200 Gb/s, expected 400
 * Counters that must not grow (InfiniBand errors) and events (XIDs) are
 * compared with the previous round. An XID that fails a check stays failed
 * until the daemon restarts (the GPU needs a reset, which restarts the
 * daemon's NVML session anyway): a one-round failure would let the node
 * resume on the next round. The clock offset comes from the answers to
 * heartbeats (health_clock_sample); leftover processes are processes whose
 * environment names a job (SLURM_JOB_ID) that no longer runs here, seen
 * in two rounds in a row (a job's tasks are still being killed for a
 * moment after it ends).
 *
 * HealthCheckProgram runs as in Slurm: as root, with a plain environment,
 * at start and every HealthCheckInterval, killed after 60 s; the daemon's
 * loop polls for its end and never waits on it.
 */
#include "health.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errors.h"
#include "ib_sysfs.h"
#include "noded.h"
#include "nvml.h"
#include "states.h"
#include "fileio.h"
#include "xalloc.h"

#define PROGRAM_TIMEOUT_S 60
#define PROGRAM_POLL_MS 200
#define RETRY_MAX_MS 10000     /* rounds while failing: at most this apart */

/* Error counters whose growth fails the ib check. */
static const char *const ib_watch[] = { "link_downed", "symbol_error", "port_rcv_errors" };
#define NWATCH (sizeof(ib_watch) / sizeof(ib_watch[0]))

struct ib_prev {
	char *key;                 /* "dev/port" */
	int64_t v[NWATCH];
};

struct health {
	struct noded *nd;
	health_conf_t *hc;
	char *sysfs, *proc, *nvml_lib;
	nvml_lib_t *nvml;
	int nvml_tried_ok;
	char *nvml_err;
	uint64_t *xid_seen;        /* per NVML device: xid_count at the last round */
	char **xid_fail;           /* per device: sticky XID failure text */
	unsigned ndev;
	struct ib_prev *ib;
	size_t nib;
	int have_clock;
	double clock_offset;       /* s, node minus controller */
	pid_t *leftover;           /* pids seen as leftovers last round */
	size_t nleftover;
	uint32_t *live, nlive;
	int live_set;              /* health_set_live_jobs was called */
	int in_reg;                /* health_round_quiet: no poke */
	char *failing;
	uint32_t rounds;
	char key[65];
	char *key_path;
	/* periodic */
	uint64_t timer, prog_timer;
	uint64_t interval_ms;
	unsigned state_mask;       /* HealthCheckNodeState */
	pid_t prog_pid;
	int64_t prog_deadline;
	int prog_timeout_s;        /* PROGRAM_TIMEOUT_S; tests shorten it */
};

enum { HS_IDLE = 1, HS_ALLOC = 2, HS_MIXED = 4, HS_ANY = 8, HS_CYCLE = 16, HS_NONDRAINED = 32 };

health_t *health_create(noded_t *nd, health_conf_t *hc, const health_paths_t *paths)
{
	health_t *h = xcalloc(1, sizeof(*h));
	h->nd = nd;
	if (!hc) {
		char *p = health_conf_path(nd ? nd->conf : NULL);
		int missing = 0;
		hc = health_conf_load(p, &missing);
		for (size_t i = 0; i < hc->nerrors; i++)
			error("%s", hc->errors[i]);
		if (hc->nerrors)
			error("%s: %zu error(s); the checks on the other lines run", p, hc->nerrors);
		else if (!missing)
			info("health: %zu check(s) from %s%s", hc->n, p, hc->gate ? ", gating each job" : "");
		free(p);
	}
	h->hc = hc;
	const char *sys = getenv("SLUICE_SYSFS_ROOT"), *proc = getenv("SLUICE_PROC_ROOT");
	h->sysfs = xstrdup(paths && paths->sysfs ? paths->sysfs : sys && *sys ? sys : "/sys");
	h->proc = xstrdup(paths && paths->proc ? paths->proc : proc && *proc ? proc : "/proc");
	h->nvml_lib = paths && paths->nvml_lib ? xstrdup(paths->nvml_lib) : NULL;
	h->key_path = health_key_path(nd ? nd->conf : NULL, hc);
	health_key_digest(h->key_path, h->key);
	return h;
}

void health_destroy(health_t *h)
{
	if (!h)
		return;
	if (h->nd && h->timer)
		loop_cancel_timer(h->nd->loop, h->timer);
	if (h->nd && h->prog_timer)
		loop_cancel_timer(h->nd->loop, h->prog_timer);
	nvml_close(h->nvml);
	for (unsigned i = 0; i < h->ndev; i++)
		free(h->xid_fail[i]);
	free(h->xid_fail);
	free(h->xid_seen);
	for (size_t i = 0; i < h->nib; i++)
		free(h->ib[i].key);
	free(h->ib);
	health_conf_free(h->hc);
	free(h->sysfs);
	free(h->proc);
	free(h->nvml_lib);
	free(h->nvml_err);
	free(h->leftover);
	free(h->live);
	free(h->failing);
	free(h->key_path);
	free(h);
}

const char *health_failing(const health_t *h)
{
	return h ? h->failing : NULL;
}

uint32_t health_rounds(const health_t *h)
{
	return h ? h->rounds : 0;
}

uint32_t health_nchecks(const health_t *h)
{
	return h ? (uint32_t)h->hc->n : 0;
}

const char *health_key(const health_t *h)
{
	return h->key;
}

void health_key_refresh(health_t *h)
{
	health_key_digest(h->key_path, h->key);
}

void health_clock_sample(health_t *h, uint64_t sent_boot_ms, uint64_t now_boot_ms, int64_t ctld_ms)
{
	if (!h || !ctld_ms || now_boot_ms < sent_boot_ms)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	double now = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	/* The controller answered about half a round trip ago. */
	double ctld = (double)ctld_ms / 1000.0 + (double)(now_boot_ms - sent_boot_ms) / 2000.0;
	h->clock_offset = now - ctld;
	h->have_clock = 1;
}

void health_set_live_jobs(health_t *h, const uint32_t *ids, uint32_t n)
{
	free(h->live);
	h->live = n ? xmalloc(n * sizeof(*ids)) : NULL;
	if (n)
		memcpy(h->live, ids, n * sizeof(*ids));
	h->nlive = n;
	h->live_set = 1;
}

/* ---- helpers ---- */

static void fail(strbuf_t *out, enum hc_kind k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(strbuf_t *out, enum hc_kind k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	strbuf_addf(out, "%s%s: %s", out->len ? "\n" : "", hc_kind_name(k), m);
	free(m);
}

static void fmt_size(char *buf, size_t len, uint64_t b)
{
	static const char u[] = "KMGT";
	double v = (double)b;
	int i = -1;
	while (v >= 1024 && i < 3) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%" PRIu64, b);
	else
		snprintf(buf, len, "%.1f%c", v, u[i]);
}

/* ---- gpu ---- */

static const char *conf_gpu_type(const noded_t *nd)
{
	const conf_node_t *cf = nd ? nd->node : NULL;
	for (size_t k = 0; cf && k < cf->ngres; k++)
		if (!strcmp(cf->gres[k].name, "gpu") && cf->gres[k].type)
			return cf->gres[k].type;
	return NULL;
}

static void nvml_ensure(health_t *h)
{
	if (h->nvml)
		return;
	free(h->nvml_err);
	h->nvml_err = NULL;
	h->nvml = nvml_open(h->nvml_lib, &h->nvml_err);
	if (!h->nvml)
		return;
	h->ndev = nvml_count(h->nvml);
	h->xid_seen = xcalloc(h->ndev + 1, sizeof(*h->xid_seen));
	h->xid_fail = xcalloc(h->ndev + 1, sizeof(*h->xid_fail));
}

static int xid_bad(const hc_check_t *c, unsigned code)
{
	if (c->xid_all)
		return 1;
	for (size_t i = 0; i < c->nxids; i++)
		if (c->xids[i] == code)
			return 1;
	return 0;
}

static void check_gpu(health_t *h, const hc_check_t *c, strbuf_t *out)
{
	long want = c->gpu_count >= 0 ? c->gpu_count
		    : h->nd && h->nd->node ? (long)conf_node_gpus(h->nd->node) : -1;
	nvml_ensure(h);
	if (!h->nvml) {
		if (want > 0)
			fail(out, HC_GPU, "NVML not available (%s), %ld GPU(s) expected", h->nvml_err, want);
		return;
	}
	unsigned n = nvml_count(h->nvml);
	if (want >= 0 && (long)n != want)
		fail(out, HC_GPU, "%u GPU(s) found, %ld expected", n, want);
	const char *type = c->gpu_type ? c->gpu_type : conf_gpu_type(h->nd);
	for (unsigned i = 0; i < n; i++) {
		unsigned g = nvml_dev_minor(h->nvml, i);
		if (type) {
			char *tn = nvml_type_name(nvml_dev_name(h->nvml, i));
			if (!strcasestr(tn, type))
				fail(out, HC_GPU, "gpu%u type %s, expected %s", g, tn, type);
			free(tn);
		}
		nvml_sample_t s;
		nvml_sample(h->nvml, i, &s);
		if ((s.have & NVS_ECC_VOL) && c->ecc_volatile >= 0 && s.dbe_vol > (uint64_t)c->ecc_volatile)
			fail(out, HC_GPU, "gpu%u ECC uncorrectable=%" PRIu64, g, s.dbe_vol);
		if ((s.have & NVS_ECC_AGG) && c->ecc_aggregate >= 0 && s.dbe_agg > (uint64_t)c->ecc_aggregate)
			fail(out, HC_GPU, "gpu%u ECC uncorrectable aggregate=%" PRIu64, g, s.dbe_agg);
		if (c->retired_pending && (s.have & NVS_RETIRE) && s.retire_pending)
			fail(out, HC_GPU, "gpu%u retired pages pending (reset the GPU)", g);
		if (c->retired_pending && (s.have & NVS_REMAP) && s.remap_pending)
			fail(out, HC_GPU, "gpu%u row remapping pending (reset the GPU)", g);
		if ((s.have & NVS_REMAP) && s.remap_failed)
			fail(out, HC_GPU, "gpu%u row remapping failed", g);
		if ((s.have & NVS_XID) && i < h->ndev) {
			if (s.xid_count > h->xid_seen[i] && xid_bad(c, s.xid_last) && !h->xid_fail[i])
				h->xid_fail[i] = xasprintf("gpu%u XID %u", g, s.xid_last);
			h->xid_seen[i] = s.xid_count;
			if (h->xid_fail[i])
				fail(out, HC_GPU, "%s", h->xid_fail[i]);
		}
		if ((s.have & NVS_TEMP) && c->max_temp >= 0 && s.temp_c > (unsigned)c->max_temp)
			fail(out, HC_GPU, "gpu%u temperature %uC > %ldC", g, s.temp_c, c->max_temp);
		if ((s.have & NVS_THROTTLE) && (s.throttle & c->throttle))
			fail(out, HC_GPU, "gpu%u throttled (%s%s%s)", g,
			     s.throttle & c->throttle & HC_THROTTLE_THERMAL ? "thermal" : "",
			     (s.throttle & c->throttle & HC_THROTTLE_THERMAL) &&
			     (s.throttle & c->throttle & HC_THROTTLE_POWER) ? "," : "",
			     s.throttle & c->throttle & HC_THROTTLE_POWER ? "power" : "");
		if ((s.have & NVS_NVLINK) && c->nvlink_down >= 0 && s.nvl_down > (unsigned)c->nvlink_down)
			fail(out, HC_GPU, "gpu%u NVLink down=%u", g, s.nvl_down);
		if (c->persistence && (s.have & NVS_PERSIST) && !s.persistence)
			fail(out, HC_GPU, "gpu%u persistence mode off", g);
	}
}

/* ---- ib ---- */

static const char *ib_state_name(int s)
{
	static const char *const n[] = { "?", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };
	return s >= 0 && s <= 5 ? n[s] : "?";
}

static const char *ib_phys_name(int s)
{
	static const char *const n[] = { "?", "Sleep", "Polling", "Disabled", "PortConfigurationTraining",
		"LinkUp", "LinkErrorRecovery", "PhyTest" };
	return s >= 0 && s <= 7 ? n[s] : "?";
}

static struct ib_prev *ib_prev_get(health_t *h, const char *key)
{
	for (size_t i = 0; i < h->nib; i++)
		if (!strcmp(h->ib[i].key, key))
			return &h->ib[i];
	h->ib = xrealloc(h->ib, (h->nib + 1) * sizeof(*h->ib));
	struct ib_prev *p = &h->ib[h->nib++];
	p->key = xstrdup(key);
	for (size_t k = 0; k < NWATCH; k++)
		p->v[k] = -1;
	return p;
}

static void check_ib(health_t *h, const hc_check_t *c, const ib_port_t *ports, size_t np, strbuf_t *out)
{
	size_t matched = 0;
	for (size_t i = 0; i < np; i++) {
		const ib_port_t *p = &ports[i];
		if (c->device && strcmp(c->device, p->device))
			continue;
		if (c->port >= 0 && atol(p->port) != c->port)
			continue;
		matched++;
		char key[256];
		snprintf(key, sizeof(key), "%s/%s", p->device, p->port);
		if (p->state != IB_STATE_ACTIVE)
			fail(out, HC_IB, "%s state %s", key, ib_state_name(p->state));
		if (p->phys_state != IB_PHYS_LINKUP)
			fail(out, HC_IB, "%s phys_state %s", key, ib_phys_name(p->phys_state));
		if (c->rate_gbps > 0) {
			double gbps = p->rate_bps < 0 ? -1 : p->rate_bps * 8 / 1e9;
			if (fabs(gbps - c->rate_gbps) > 0.5)
				fail(out, HC_IB, "%s rate %g Gb/s, expected %g", key, gbps < 0 ? 0 : gbps,
				     c->rate_gbps);
		}
		struct ib_prev *prev = ib_prev_get(h, key);
		for (size_t k = 0; k < NWATCH; k++) {
			int e = ib_error_index(ib_watch[k]);
			int64_t v = e < 0 ? -1 : p->errors[e];
			if (c->error_growth >= 0 && v >= 0 && prev->v[k] >= 0 &&
			    v - prev->v[k] > c->error_growth)
				fail(out, HC_IB, "%s %s +%" PRId64, key, ib_watch[k], v - prev->v[k]);
			prev->v[k] = v;
		}
	}
	if (!matched)
		fail(out, HC_IB, "no port%s%s%s%s found under %s/class/infiniband",
		     c->device ? " of " : "", c->device ? c->device : "",
		     c->port >= 0 ? " numbered " : "", c->port >= 0 ? "as configured" : "", h->sysfs);
}

/* ---- fs, memory, clock ---- */

static void check_fs(health_t *h, const hc_check_t *c, strbuf_t *out)
{
	(void)h;
	struct stat st, up;
	if (stat(c->path, &st) < 0) {
		fail(out, HC_FS, "%s: %s", c->path, strerror(errno));
		return;
	}
	if (c->mounted && strcmp(c->path, "/")) {
		char *parent = xasprintf("%s/..", c->path);
		if (stat(parent, &up) == 0 && up.st_dev == st.st_dev && up.st_ino != st.st_ino)
			fail(out, HC_FS, "%s not mounted", c->path);
		free(parent);
	}
	struct statvfs vs;
	if (statvfs(c->path, &vs) == 0) {
		uint64_t avail = (uint64_t)vs.f_bavail * vs.f_frsize;
		if (c->min_free && avail < c->min_free) {
			char a[32], b[32];
			fmt_size(a, sizeof(a), avail);
			fmt_size(b, sizeof(b), c->min_free);
			fail(out, HC_FS, "%s free %s < %s", c->path, a, b);
		}
		if (c->writable && (vs.f_flag & ST_RDONLY)) {
			fail(out, HC_FS, "%s mounted read-only", c->path);
			return;
		}
	}
	if (c->writable) {
		char *probe = xasprintf("%s/.sluice-health.%d", c->path, (int)getpid());
		int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0 || write(fd, "x", 1) != 1)
			fail(out, HC_FS, "%s not writable: %s", c->path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(probe);
		}
		free(probe);
	}
}

static void check_memory(health_t *h, const hc_check_t *c, strbuf_t *out)
{
	char *path = xasprintf("%s/meminfo", h->proc);
	char *t = file_read_small(path, 1 << 14);
	free(path);
	if (!t) {
		fail(out, HC_MEMORY, "cannot read %s/meminfo", h->proc);
		return;
	}
	uint64_t avail = meminfo_avail_mb(t) << 20;
	free(t);
	if (avail < c->min_free) {
		char a[32], b[32];
		fmt_size(a, sizeof(a), avail);
		fmt_size(b, sizeof(b), c->min_free);
		fail(out, HC_MEMORY, "available %s < %s", a, b);
	}
}

static void check_clock(health_t *h, const hc_check_t *c, strbuf_t *out)
{
	if (h->have_clock && fabs(h->clock_offset) > c->max_offset)
		fail(out, HC_CLOCK, "offset %+.1fs from the controller (max %gs)", h->clock_offset,
		     c->max_offset);
}

/* ---- procs ---- */

struct live_scan {
	uint32_t *ids;
	uint32_t n;
	size_t alloc;
};

static void live_one(const char *dir, const spool_rec_t *r, void *arg)
{
	(void)dir;
	struct live_scan *s = arg;
	if (!r || !spool_rec_alive(r))
		return;
	s->ids = xgrow(s->ids, sizeof(*s->ids), s->n + 1, &s->alloc);
	s->ids[s->n++] = r->job_id;
}

static int is_live(const uint32_t *ids, uint32_t n, uint32_t id)
{
	for (uint32_t i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* SLURM_JOB_ID of a process environment (NUL-separated), 0 if none. */
static uint32_t env_job_id(const char *env, size_t len)
{
	for (size_t i = 0; i < len; i += strlen(env + i) + 1)
		if (!strncmp(env + i, "SLURM_JOB_ID=", 13))
			return (uint32_t)strtoul(env + i + 13, NULL, 10);
	return 0;
}

static void check_procs(health_t *h, strbuf_t *out)
{
	struct live_scan ls = { NULL, 0, 0 };
	const uint32_t *live = h->live;
	uint32_t nlive = h->nlive;
	if (!h->live_set && h->nd) {
		spool_scan(h->nd->spool, live_one, &ls);
		live = ls.ids;
		nlive = ls.n;
	}
	DIR *d = opendir(h->proc);
	pid_t *now = NULL;
	size_t nnow = 0, alloc = 0, shown = 0;
	uint32_t first_job = 0;
	strbuf_t pids = STRBUF_INIT;
	struct dirent *e;
	pid_t self = getpid();
	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid_t pid = (pid_t)atol(e->d_name);
		if (pid == self)
			continue;
		char path[512];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", h->proc, e->d_name);
		/* Jobs run as their users: root's processes are daemons'. */
		if (stat(path, &st) < 0 || st.st_uid == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/environ", h->proc, e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		char buf[32768];
		ssize_t r = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		uint32_t job = env_job_id(buf, (size_t)r);
		if (!job || is_live(live, nlive, job))
			continue;
		now = xgrow(now, sizeof(*now), nnow + 1, &alloc);
		now[nnow++] = pid;
		int seen = 0;
		for (size_t i = 0; i < h->nleftover && !seen; i++)
			seen = h->leftover[i] == pid;
		if (!seen)
			continue;
		if (!first_job)
			first_job = job;
		if (shown++ < 5)
			strbuf_addf(&pids, "%s%d", pids.len ? "," : "", (int)pid);
	}
	if (d)
		closedir(d);
	if (shown)
		fail(out, HC_PROCS, "%zu leftover process(es) of ended job %u%s (pid %s%s)", shown,
		     first_job, shown > 1 ? " and others" : "", pids.buf, shown > 5 ? ",..." : "");
	strbuf_release(&pids);
	free(h->leftover);
	h->leftover = now;
	h->nleftover = nnow;
	free(ls.ids);
}

/* ---- rounds ---- */

/* Run the checks in mask (1 << kind) into out. */
static void run_checks(health_t *h, unsigned mask, strbuf_t *out)
{
	ib_port_t *ports = NULL;
	size_t np = 0;
	int ib_read = 0;
	for (size_t i = 0; i < h->hc->n; i++) {
		const hc_check_t *c = &h->hc->checks[i];
		if (!(mask & (1u << c->kind)))
			continue;
		switch (c->kind) {
		case HC_GPU: check_gpu(h, c, out); break;
		case HC_IB:
			if (!ib_read) {
				ports = ib_ports_read(h->sysfs, &np);
				ib_read = 1;
			}
			check_ib(h, c, ports, np, out);
			break;
		case HC_FS: check_fs(h, c, out); break;
		case HC_MEMORY: check_memory(h, c, out); break;
		case HC_CLOCK: check_clock(h, c, out); break;
		case HC_PROCS: check_procs(h, out); break;
		case HC_AUTHKEY: break;  /* compared by the controller */
		case HC_NCCL: break;     /* the batch supervisor's (nccl_watch.c) */
		default: break;
		}
	}
	ib_ports_free(ports, np);
}

int health_round(health_t *h)
{
	health_key_refresh(h);
	if (!h->hc->n) {
		h->rounds++;
		return 0;
	}
	strbuf_t out = STRBUF_INIT;
	run_checks(h, ~0u, &out);
	h->rounds++;
	int nfail = 0;
	for (size_t i = 0; i < out.len; i++)
		nfail += out.buf[i] == '\n';
	nfail += out.len ? 1 : 0;
	char *now = out.len ? strbuf_detach(&out) : (strbuf_release(&out), NULL);
	if (now && (!h->failing || strcmp(now, h->failing))) {
		/* one log line: "a; b; c" */
		strbuf_t l = STRBUF_INIT;
		for (const char *p = now; *p; p++) {
			if (*p == '\n')
				strbuf_addstr(&l, "; ");
			else
				strbuf_addch(&l, *p);
		}
		error("health check failing: %s", l.buf);
		strbuf_release(&l);
	}
	else if (!now && h->failing)
		info("health checks pass again");
	int changed = (now == NULL) != (h->failing == NULL) || (now && strcmp(now, h->failing));
	free(h->failing);
	h->failing = now;
	/* Tell the controller now, not at the next heartbeat (a
	 * registration in progress carries it anyway). */
	if (changed && h->nd && h->nd->link && !h->in_reg)
		ctld_link_poke(h->nd->link);
	return nfail;
}

int health_round_quiet(health_t *h)
{
	h->in_reg = 1;
	int r = health_round(h);
	h->in_reg = 0;
	return r;
}

int health_gate(health_t *h, char **why)
{
	*why = NULL;
	if (!h || !h->hc->gate)
		return 0;
	strbuf_t out = STRBUF_INIT;
	run_checks(h, h->hc->gate, &out);
	if (!out.len) {
		strbuf_release(&out);
		return 0;
	}
	*why = strbuf_detach(&out);
	return -1;
}

int health_launch_gate(noded_t *nd, const msg_launch_job_t *m, const char *dir)
{
	char *why = NULL;
	if (!nd->health || health_gate(nd->health, &why) == 0)
		return 0;
	for (char *p = why; *p; p++)
		if (*p == '\n')
			*p = ';';
	error("job %u: refused by the health gate: %s", m->job_id, why);
	free(why);
	/* The whole round, so the controller drains the node with the
	 * evidence before it hears of the job (same connection, in order). */
	health_round(nd->health);
	int r = detach_fork(nd, NULL, 0);
	if (r != 0) {
		if (r < 0) {
			error("job %u: cannot fork the launch failure's reporter: %m", m->job_id);
			rm_rf(dir);
		}
		return 1;
	}
	set_proctitle(nd, "gate");
	/* A record, so the node keeps listing the job until it is reported. */
	spool_rec_t rec = { .job_id = m->job_id, .step_id = NODED_BATCH_STEP,
			    .launch_seq = m->launch_seq, .pid = getpid(),
			    .pid_start = proc_start_time(getpid()), .done = 1,
			    .exit_status = 1u << 8, .end_state = JOB_FAILED, .end_time = time(NULL) };
	spool_rec_write(dir, &rec);
	msg_job_complete_t c = {
		.job_id = m->job_id, .step_id = NO_VAL32, .launch_seq = m->launch_seq,
		.exit_status = rec.exit_status, .end_state = JOB_FAILED, .node = nd->name,
		.end_time = rec.end_time, .rc = ESLURMD_PROLOG_FAILED,
	};
	char what[48];
	snprintf(what, sizeof(what), "job %u", m->job_id);
	sup_report(nd, dir, MSG_JOB_COMPLETE, &c, what);
	rm_rf(dir);
	_exit(0);
}

void health_reload(health_t *h)
{
	char *p = health_conf_path(h->nd ? h->nd->conf : NULL);
	int missing = 0;
	health_conf_t *hc = health_conf_load(p, &missing);
	if (hc->nerrors) {
		for (size_t i = 0; i < hc->nerrors; i++)
			error("reconfigure: %s", hc->errors[i]);
		error("reconfigure: %s not applied: the %zu check(s) read before stay", p, h->hc->n);
		health_conf_free(hc);
	} else {
		health_conf_free(h->hc);
		h->hc = hc;
		free(h->key_path);
		h->key_path = health_key_path(h->nd ? h->nd->conf : NULL, hc);
		info("reconfigure: %s %s: %zu check(s)%s", p, missing ? "absent" : "re-read", hc->n,
		     hc->gate ? ", gating each job" : "");
	}
	free(p);
}

/* ---- periodic rounds and HealthCheckProgram ---- */

static void prog_poll(loop_t *l, void *arg)
{
	health_t *h = arg;
	h->prog_timer = 0;
	if (!h->prog_pid)
		return;
	int st;
	pid_t r = waitpid(h->prog_pid, &st, WNOHANG);
	if (r == h->prog_pid || (r < 0 && errno == ECHILD)) {
		const char *prog = conf_get(h->nd->conf, "HealthCheckProgram");
		if (r == h->prog_pid && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			error("HealthCheckProgram %s failed: %s %d%s", prog ? prog : "",
			      WIFEXITED(st) ? "exit status" : "signal",
			      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
			      WIFEXITED(st) && WEXITSTATUS(st) == 127 ? " (not found or not executable?)" : "");
		h->prog_pid = 0;
		return;
	}
	if (time(NULL) >= h->prog_deadline) {
		error("HealthCheckProgram still running after %ds: killed", h->prog_timeout_s);
		kill(-h->prog_pid, SIGKILL);
		kill(h->prog_pid, SIGKILL);
		h->prog_deadline = time(NULL) + 5;   /* reap it next polls */
	}
	h->prog_timer = loop_add_timer(l, PROGRAM_POLL_MS, prog_poll, h);
}

static void prog_start(health_t *h)
{
	const char *prog = conf_get(h->nd->conf, "HealthCheckProgram");
	if (!prog || !*prog || !strcmp(prog, "(null)") || h->prog_pid)
		return;
	pid_t pid = fork();
	if (pid < 0) {
		error("HealthCheckProgram: fork: %m");
		return;
	}
	if (pid == 0) {
		setsid();
		child_reset_signals();
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		child_close_fds(-1);
		char *argv[] = { (char *)prog, NULL };
		char *envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
		execve(prog, argv, envp);
		_exit(127);
	}
	h->prog_pid = pid;
	h->prog_deadline = time(NULL) + h->prog_timeout_s;
	h->prog_timer = loop_add_timer(h->nd->loop, PROGRAM_POLL_MS, prog_poll, h);
}

static int state_allows(health_t *h)
{
	if (!h->state_mask || (h->state_mask & (HS_ANY | HS_CYCLE)))
		return 1;
	struct live_scan ls = { NULL, 0, 0 };
	spool_scan(h->nd->spool, live_one, &ls);
	free(ls.ids);
	int busy = ls.n > 0;
	if (busy)
		return (h->state_mask & (HS_ALLOC | HS_MIXED)) != 0;
	return (h->state_mask & (HS_IDLE | HS_NONDRAINED)) != 0;
}

static void tick(loop_t *l, void *arg)
{
	health_t *h = arg;
	if (state_allows(h)) {
		health_round(h);
		prog_start(h);
	}
	uint64_t next = h->interval_ms;
	if (h->failing && next > RETRY_MAX_MS)
		next = RETRY_MAX_MS;   /* notice a repair soon */
	h->timer = loop_add_timer(l, next, tick, h);
}

void health_start(health_t *h)
{
	const char *iv = conf_get(h->nd->conf, "HealthCheckInterval");
	h->interval_ms = iv ? strtoull(iv, NULL, 10) * 1000u : 0;
	const char *e = getenv("SLUICE_HEALTH_INTERVAL_MS");   /* tests */
	if (e && atol(e) > 0)
		h->interval_ms = (uint64_t)atol(e);
	h->prog_timeout_s = PROGRAM_TIMEOUT_S;
	e = getenv("SLUICE_HEALTH_PROGRAM_TIMEOUT");             /* tests */
	if (e && atoi(e) > 0)
		h->prog_timeout_s = atoi(e);
	const char *ns = conf_get(h->nd->conf, "HealthCheckNodeState");
	if (ns) {
		char *copy = xstrdup(ns), *save = NULL;
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (!strcasecmp(t, "idle")) h->state_mask |= HS_IDLE;
			else if (!strcasecmp(t, "alloc")) h->state_mask |= HS_ALLOC;
			else if (!strcasecmp(t, "mixed")) h->state_mask |= HS_MIXED;
			else if (!strcasecmp(t, "any")) h->state_mask |= HS_ANY;
			else if (!strcasecmp(t, "cycle")) h->state_mask |= HS_CYCLE;
			else if (!strcasecmp(t, "nondrained_idle")) h->state_mask |= HS_NONDRAINED;
		}
		free(copy);
	}
	prog_start(h);
	if (!h->interval_ms)
		return;
	uint64_t first = h->interval_ms;
	if (h->state_mask & HS_CYCLE) {
		/* spread the nodes' rounds over the interval */
		uint32_t hash = 5381;
		for (const char *p = h->nd->name; *p; p++)
			hash = hash * 33 + (unsigned char)*p;
		first = 1 + hash % h->interval_ms;
	}
	h->timer = loop_add_timer(h->nd->loop, first, tick, h);
}
