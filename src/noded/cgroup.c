/*
 * cgroup: jobs and steps in cgroups, v1 and v2 (see cgroup.h for the
 * layout and the contract).
 *
 * Why files only (no libcgroup, no systemd): every operation is a mkdir, a
 * write or a read of a small file under the root, which keeps the cost of
 * a job's setup and teardown to a few dozen system calls (bench/cgroup.sh)
 * and lets the unit tests run the same code on a fake tree of plain files
 * (cg->real is 0 there: regular files are then removed before a rmdir,
 * which a real cgroup file system does by itself).
 *
 * Kill (cgroup_signal with SIGKILL): v1 freezes the freezer cgroup, sends
 * SIGKILL to every pid in cgroup.procs below it and thaws it, so nothing
 * can fork past the kill; v2 writes cgroup.kill (Linux 5.14+) or does the
 * same with cgroup.freeze. A process that left its session (a daemon that
 * double-forked) is still in the cgroup, so it is found too.
 *
 * Devices: v1 writes "c MAJOR:MINOR rwm" to job_J's devices.deny for each
 * GPU the job was not given; v2 attaches a BPF_PROG_TYPE_CGROUP_DEVICE
 * program denying them to job_J (cgroup_bpf.c). Where no such program can
 * be loaded (no CAP_BPF, an old kernel) the node says so once at start
 * (cgroup_unsupported) and jobs see every GPU.
 *
 * Pids (PidsLimit, a Sluice key): pids.max of job_J, in the v1 pids
 * hierarchy or the v2 pids controller, so a fork bomb in a job stops at its
 * limit (fork fails with EAGAIN) instead of filling the node's pid space.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "log.h"
#include "strbuf.h"
#include "fileio.h"
#include "xalloc.h"

#define CG_MAX_CTRL 8
#define CGROUP_MAGIC 0x27e0eb
#define CGROUP2_MAGIC 0x63677270

struct cgroup {
	cg_settings_t s;
	int version;
	int real;                  /* a cgroup file system (not a fake tree) */
	char *root;
	char *top;                 /* v1: "slurm_<node>"; v2: "system.slice/<..>.scope" */
	const char *ctrl[CG_MAX_CTRL]; /* v1 hierarchies used */
	int nctrl;
	int has_cpuacct, has_memory;
	const char *unsupported;
	char unsupported_buf[512];
	int bpf_failed;            /* v2: no device program can be loaded */
	int pids_failed;           /* v2: no pids controller for the jobs */
	char *node, *prefix, *plugin;
};

/* ---- small file helpers ---- */

static int wfile(const char *path, const char *s, int append)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND | O_CREAT : O_TRUNC | O_CREAT), 0644);
	if (fd < 0)
		return -1;
	size_t n = strlen(s);
	ssize_t w = write(fd, s, n);
	int e = errno;
	close(fd);
	if (w != (ssize_t)n) {
		errno = w < 0 ? e : EIO;
		return -1;
	}
	return 0;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int exists(const char *p)
{
	return access(p, F_OK) == 0;
}

uint64_t cgroup_keyed(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; ) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoull(p + kl + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* ---- CPU lists ("0-3,6") ---- */

#define CPU_WORDS 64   /* 4096 CPUs */

static int list_parse(const char *s, uint64_t *bits)
{
	memset(bits, 0, CPU_WORDS * sizeof(uint64_t));
	while (s && *s && *s != '\n') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;
		if (end == s)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		for (unsigned long i = a; i <= b && i < CPU_WORDS * 64; i++)
			bits[i / 64] |= 1ull << (i % 64);
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return 0;
}

static char *list_format(const uint64_t *bits)
{
	strbuf_t sb = STRBUF_INIT;
	for (unsigned i = 0; i < CPU_WORDS * 64; i++) {
		if (!(bits[i / 64] & (1ull << (i % 64))))
			continue;
		unsigned e = i;
		while (e + 1 < CPU_WORDS * 64 && (bits[(e + 1) / 64] & (1ull << ((e + 1) % 64))))
			e++;
		strbuf_addf(&sb, sb.len ? ",%u" : "%u", i);
		if (e > i)
			strbuf_addf(&sb, "-%u", e);
		i = e;
	}
	return strbuf_detach(&sb);
}

char *cgroup_cores_to_cpus(const char *cores, uint32_t tpc)
{
	uint64_t in[CPU_WORDS], out[CPU_WORDS];
	if (!cores || list_parse(cores, in) < 0)
		return NULL;
	if (!tpc)
		tpc = 1;
	memset(out, 0, sizeof(out));
	for (unsigned c = 0; c < CPU_WORDS * 64; c++)
		if (in[c / 64] & (1ull << (c % 64)))
			for (unsigned t = 0; t < tpc; t++) {
				unsigned cpu = c * tpc + t;
				if (cpu < CPU_WORDS * 64)
					out[cpu / 64] |= 1ull << (cpu % 64);
			}
	return list_format(out);
}

int cgroup_alloc_entry(const char *alloc, const char *node, char **cores, uint64_t *mem_mb,
		       uint64_t *gpus)
{
	*cores = NULL;
	*mem_mb = *gpus = 0;
	size_t nl = strlen(node);
	for (const char *p = alloc; p && *p; ) {
		const char *end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		if ((size_t)(end - p) > nl && !strncmp(p, node, nl) && p[nl] == '=') {
			const char *c = p + nl + 1;
			const char *c1 = memchr(c, ':', (size_t)(end - c));
			const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
			if (!c2)
				return -1;
			char *e1, *e2;
			uint64_t m = strtoull(c1 + 1, &e1, 10);
			uint64_t g = strtoull(c2 + 1, &e2, 16);
			if (e1 != c2 || e2 != end)
				return -1;
			*mem_mb = m;
			*gpus = g;
			if (c1 > c)
				*cores = xstrndup(c, (size_t)(c1 - c));
			return 0;
		}
		p = *end ? end + 1 : end;
	}
	return -1;
}

/* ---- memory limits (cgroup.conf) ---- */

uint64_t cgroup_mem_limit(const cg_settings_t *s, uint64_t mem_mb)
{
	uint64_t mb = mem_mb * s->allowed_ram_pct / 100;
	if (s->node_mem_mb && s->max_ram_pct) {
		uint64_t max = s->node_mem_mb * s->max_ram_pct / 100;
		if (mb > max)
			mb = max;
	}
	if (mb < s->min_ram_mb)
		mb = s->min_ram_mb;
	return mb << 20;
}

uint64_t cgroup_swap_limit(const cg_settings_t *s, uint64_t mem_mb)
{
	uint64_t mb = mem_mb * s->allowed_swap_pct / 100;
	if (s->node_mem_mb && s->max_swap_pct) {
		uint64_t max = s->node_mem_mb * s->max_swap_pct / 100;
		if (mb > max)
			mb = max;
	}
	return mb << 20;
}

/* ---- settings and opening ---- */

void cgroup_settings_from(const conf_t *conf, const conf_node_t *node, const char *name,
			  cg_settings_t *s)
{
	memset(s, 0, sizeof(*s));
	const char *env = getenv("SLUICE_CGROUP_ROOT");
	s->plugin = conf->cgroup_plugin ? conf->cgroup_plugin : "autodetect";
	s->root = env && *env ? env : conf->cgroup_mountpoint ? conf->cgroup_mountpoint : "/sys/fs/cgroup";
	s->node = name;
	const char *pre = getenv("SLUICE_CGROUP_PREFIX");
	s->prefix = pre && *pre ? pre : NULL;
	int task = conf->task_plugin && strstr(conf->task_plugin, "task/cgroup");
	s->constrain_cores = task && conf->constrain_cores;
	s->constrain_ram = task && conf->constrain_ram;
	s->constrain_swap = task && conf->constrain_swap;
	s->constrain_devices = task && conf->constrain_devices;
	s->allowed_ram_pct = conf->allowed_ram_pct;
	s->allowed_swap_pct = conf->allowed_swap_pct;
	s->max_ram_pct = conf->max_ram_pct;
	s->max_swap_pct = conf->max_swap_pct;
	s->min_ram_mb = conf->min_ram_mb;
	s->pids_limit = task ? conf->pids_limit : 0;
	s->node_mem_mb = node ? node->real_memory : 0;
	s->threads_per_core = node && node->threads_per_core ? node->threads_per_core : 1;
	const char *jag = conf_get(conf, "JobAcctGatherType");
	s->account = jag && !strcasecmp(jag, "jobacct_gather/cgroup");
}

static int fs_magic(const char *p, long magic)
{
	struct statfs sf;
	return statfs(p, &sf) == 0 && (long)sf.f_type == magic;
}

/* Make dir (0: made, 1: was there, -1 with errno). */
static int mkdir1(const char *p)
{
	if (mkdir(p, 0755) == 0)
		return 0;
	return errno == EEXIST ? 1 : -1;
}

/* v1 cpuset: a new cgroup starts with no CPUs and no memory nodes; give
 * it its parent's (else no task can join). */
static void cpuset_inherit(const char *dir)
{
	char *par = xstrdup(dir);
	char *sl = strrchr(par, '/');
	if (!sl) {
		free(par);
		return;
	}
	*sl = 0;
	static const char *const f[] = { "cpuset.cpus", "cpuset.mems" };
	for (int i = 0; i < 2; i++) {
		char *pp = xasprintf("%s/%s", par, f[i]), *cp = xasprintf("%s/%s", dir, f[i]);
		char *mine = file_read_small(cp, 64);
		if (!mine || !*mine || *mine == '\n') {
			char *v = file_read_small(pp, 16384);
			if (v && *v && *v != '\n')
				wfile(cp, v, 0);
			free(v);
		}
		free(mine);
		free(pp);
		free(cp);
	}
	free(par);
}

/* v2: enable the controllers we use for the children of dir. */
static void v2_enable(const char *dir)
{
	char *p = xasprintf("%s/cgroup.controllers", dir);
	char *have = file_read_small(p, 4096);
	free(p);
	p = xasprintf("%s/cgroup.subtree_control", dir);
	char *on = file_read_small(p, 4096);
	static const char *const want[] = { "cpuset", "memory", "pids", "cpu" };
	for (int i = 0; i < 4; i++) {
		if (!have || !strstr(have, want[i]) || (on && strstr(on, want[i])))
			continue;
		char *w = xasprintf("+%s", want[i]);
		if (wfile(p, w, 0) < 0)
			debug("cgroup: cannot enable %s in %s: %m", want[i], dir);
		free(w);
	}
	free(have);
	free(on);
	free(p);
}

/* v2: whether dir's cgroup.controllers lists ctrl. */
static int v2_has(const char *dir, const char *ctrl)
{
	char *p = xasprintf("%s/cgroup.controllers", dir);
	char *have = file_read_small(p, 4096);
	free(p);
	int found = 0;
	size_t cl = strlen(ctrl);
	for (const char *w = have; w && *w && !found; ) {
		w += strspn(w, " \n");
		size_t wl = strcspn(w, " \n");
		found = wl == cl && !strncmp(w, ctrl, cl);
		w += wl;
	}
	free(have);
	return found;
}

static void add_ctrl(cgroup_t *cg, const char *c)
{
	if (cg->nctrl < CG_MAX_CTRL)
		cg->ctrl[cg->nctrl++] = c;
}

static cgroup_t *open_fail(cgroup_t *cg, char **why, char *msg)
{
	*why = msg;
	cgroup_close(cg);
	return NULL;
}

cgroup_t *cgroup_open(const cg_settings_t *s, char **why)
{
	*why = NULL;
	cgroup_t *cg = xcalloc(1, sizeof(*cg));
	cg->s = *s;
	cg->root = xstrdup(s->root ? s->root : "/sys/fs/cgroup");
	cg->node = xstrdup(s->node ? s->node : "node");
	cg->prefix = xstrdup(s->prefix ? s->prefix : "slurm");
	cg->plugin = xstrdup(s->plugin ? s->plugin : "autodetect");
	cg->s.root = cg->root;
	cg->s.node = cg->node;
	cg->s.prefix = cg->prefix;
	cg->s.plugin = cg->plugin;

	char *p = xasprintf("%s/cgroup.controllers", cg->root);
	int v2 = exists(p);
	free(p);
	p = xasprintf("%s/freezer/cgroup.procs", cg->root);
	int v1 = exists(p);
	free(p);
	if (!strcasecmp(cg->plugin, "cgroup/v2")) {
		if (!v2)
			return open_fail(cg, why, xasprintf("CgroupPlugin=cgroup/v2 but %s is not a cgroup v2 "
							    "file system", cg->root));
		cg->version = CG_V2;
	} else if (!strcasecmp(cg->plugin, "cgroup/v1")) {
		if (!v1)
			return open_fail(cg, why, xasprintf("CgroupPlugin=cgroup/v1 but %s has no cgroup v1 "
							    "freezer hierarchy", cg->root));
		cg->version = CG_V1;
	} else {
		/* autodetect: a unified root is v2, else v1 controllers */
		if (v2)
			cg->version = CG_V2;
		else if (v1)
			cg->version = CG_V1;
		else
			return open_fail(cg, why, xasprintf("no cgroup v1 or v2 file system under %s",
							    cg->root));
	}

	if (cg->version == CG_V1) {
		cg->top = xasprintf("%s_%s", cg->prefix, cg->node);
		char *f = xasprintf("%s/freezer", cg->root);
		cg->real = fs_magic(f, CGROUP_MAGIC);
		free(f);
		add_ctrl(cg, "freezer");
		/* need 2: cgroup.conf asks for it; 1: used where mounted */
		struct { const char *name; int need; } opt[] = {
			{ "cpuset", s->constrain_cores ? 2 : 0 },
			{ "memory", s->constrain_ram ? 2 : s->account },
			{ "devices", s->constrain_devices ? 2 : 0 }, { "cpuacct", s->account },
			{ "pids", s->pids_limit ? 2 : 0 },
		};
		for (size_t i = 0; i < sizeof(opt) / sizeof(opt[0]); i++) {
			if (!opt[i].need)
				continue;
			char *d = xasprintf("%s/%s/cgroup.procs", cg->root, opt[i].name);
			int have = exists(d);
			free(d);
			if (!have && opt[i].need == 2)
				return open_fail(cg, why, xasprintf("no cgroup v1 %s hierarchy under %s "
								    "(needed by cgroup.conf)", opt[i].name, cg->root));
			if (!have)
				continue;
			add_ctrl(cg, opt[i].name);
			if (!strcmp(opt[i].name, "memory"))
				cg->has_memory = 1;
			if (!strcmp(opt[i].name, "cpuacct"))
				cg->has_cpuacct = 1;
		}
		for (int i = 0; i < cg->nctrl; i++) {
			char *d = xasprintf("%s/%s/%s", cg->root, cg->ctrl[i], cg->top);
			if (mkdir1(d) < 0) {
				char *m = xasprintf("cannot create %s: %s", d, strerror(errno));
				free(d);
				return open_fail(cg, why, m);
			}
			if (!strcmp(cg->ctrl[i], "cpuset"))
				cpuset_inherit(d);
			free(d);
		}
	} else {
		cg->top = xasprintf("system.slice/%s%s%s_slurmstepd.scope", s->prefix ? cg->prefix : "",
				    s->prefix ? "_" : "", cg->node);
		cg->real = fs_magic(cg->root, CGROUP2_MAGIC);
		char *sl = xasprintf("%s/system.slice", cg->root);
		char *d = xasprintf("%s/%s", cg->root, cg->top);
		if (mkdir1(sl) < 0 || mkdir1(d) < 0) {
			char *m = xasprintf("cannot create %s: %s", d, strerror(errno));
			free(sl);
			free(d);
			return open_fail(cg, why, m);
		}
		v2_enable(cg->root);
		v2_enable(sl);
		v2_enable(d);
		cg->has_memory = cg->has_cpuacct = 1;
		char *berr = NULL;
		if (s->constrain_devices && cg->real && cgroup_bpf_probe(&berr) < 0) {
			/* said once at start; jobs then see every GPU */
			cg->bpf_failed = 1;
			snprintf(cg->unsupported_buf, sizeof(cg->unsupported_buf),
				 "cgroup.conf ConstrainDevices=yes cannot be applied on cgroup v2 here (%s): "
				 "jobs on this node can open every GPU", berr);
			cg->unsupported = cg->unsupported_buf;
		}
		free(berr);
		/* the scope's controllers are what its parent enabled; a fake
		 * tree has them only at the root */
		if (s->pids_limit && !v2_has(cg->real ? d : cg->root, "pids")) {
			cg->pids_failed = 1;
			size_t n = strlen(cg->unsupported_buf);
			snprintf(cg->unsupported_buf + n, sizeof(cg->unsupported_buf) - n,
				 "%scgroup.conf PidsLimit=%u cannot be applied on cgroup v2 here (no pids "
				 "controller in %s): jobs on this node have no process limit", n ? "; " : "",
				 s->pids_limit, cg->real ? d : cg->root);
			cg->unsupported = cg->unsupported_buf;
		}
		free(sl);
		free(d);
	}
	return cg;
}

void cgroup_close(cgroup_t *cg)
{
	if (!cg)
		return;
	free(cg->root);
	free(cg->top);
	free(cg->node);
	free(cg->prefix);
	free(cg->plugin);
	free(cg);
}

int cgroup_version(const cgroup_t *cg)
{
	return cg ? cg->version : CG_NONE;
}

const char *cgroup_unsupported(const cgroup_t *cg)
{
	return cg ? cg->unsupported : NULL;
}

/* ---- paths ---- */

static void step_name(uint32_t step, char *b, size_t n)
{
	if (step == CG_STEP_BATCH)
		snprintf(b, n, "step_batch");
	else
		snprintf(b, n, "step_%u", step);
}

/* Into buf; 0, or -1 when it does not fit. */
static int path_into(char *buf, size_t n, const cgroup_t *cg, const char *ctrl, uint32_t uid,
		     uint32_t job, uint32_t step)
{
	char sn[32] = "";
	if (step != CG_STEP_ALL)
		step_name(step, sn, sizeof(sn));
	int w;
	if (cg->version == CG_V1)
		w = snprintf(buf, n, "%s/%s/%s/uid_%u/job_%u%s%s", cg->root, ctrl, cg->top, uid, job,
			     *sn ? "/" : "", sn);
	else
		w = snprintf(buf, n, "%s/%s/job_%u%s%s", cg->root, cg->top, job, *sn ? "/" : "", sn);
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

/* v1: the uid_* holding job_J (under the freezer), or CG_UID_ANY. */
static uint32_t find_uid(const cgroup_t *cg, uint32_t job)
{
	char *d = xasprintf("%s/freezer/%s", cg->root, cg->top);
	DIR *dh = opendir(d);
	uint32_t found = CG_UID_ANY;
	struct dirent *e;
	while (dh && found == CG_UID_ANY && (e = readdir(dh))) {
		if (strncmp(e->d_name, "uid_", 4))
			continue;
		char *j = xasprintf("%s/%s/job_%u", d, e->d_name, job);
		if (is_dir(j))
			found = (uint32_t)strtoul(e->d_name + 4, NULL, 10);
		free(j);
	}
	if (dh)
		closedir(dh);
	free(d);
	return found;
}

static uint32_t resolve_uid(const cgroup_t *cg, uint32_t uid, uint32_t job)
{
	if (cg->version == CG_V1 && uid == CG_UID_ANY)
		return find_uid(cg, job);
	return uid;
}

char *cgroup_path(const cgroup_t *cg, const char *ctrl, uint32_t uid, uint32_t job,
		  uint32_t step)
{
	if (!cg)
		return NULL;
	uid = resolve_uid(cg, uid, job);
	if (cg->version == CG_V1 && uid == CG_UID_ANY)
		return NULL;
	char buf[4096];
	if (path_into(buf, sizeof(buf), cg, ctrl ? ctrl : "freezer", uid, job, step) < 0)
		return NULL;
	return xstrdup(buf);
}

/* ---- creation ---- */

/* Limits on a new job_J (dir of controller ctrl; v2: ctrl NULL). */
static void set_limits(cgroup_t *cg, const char *ctrl, const char *dir, uint32_t job,
		       const cg_limits_t *lim)
{
	char *p;
	int v1 = cg->version == CG_V1;
	if ((!v1 || !strcmp(ctrl, "cpuset")) && cg->s.constrain_cores && lim->cores) {
		char *cpus = cgroup_cores_to_cpus(lim->cores, cg->s.threads_per_core);
		/* only CPUs the parent has (virtual nodes claim more than the
		 * host has): the intersection, else the parent's */
		char *pp = xstrdup(dir);
		*strrchr(pp, '/') = 0;
		char *pf = xasprintf("%s/%s", pp, v1 ? "cpuset.cpus" : "cpuset.cpus.effective");
		char *par = file_read_small(pf, 16384);
		uint64_t a[CPU_WORDS], b[CPU_WORDS];
		if (cpus && par && *par && list_parse(cpus, a) == 0 && list_parse(par, b) == 0) {
			int any = 0;
			for (int i = 0; i < CPU_WORDS; i++)
				any |= (a[i] &= b[i]) != 0;
			free(cpus);
			cpus = any ? list_format(a) : NULL;
			if (!any)
				info("job %u: none of its cores (%s) is on this host (%s): not pinned",
				     job, lim->cores, par);
		}
		if (cpus) {
			p = xasprintf("%s/cpuset.cpus", dir);
			if (wfile(p, cpus, 0) < 0)
				error("job %u: cannot set %s to %s: %m", job, p, cpus);
			free(p);
		}
		free(cpus);
		free(pp);
		free(pf);
		free(par);
	}
	if ((!v1 || !strcmp(ctrl, "memory")) && cg->s.constrain_ram && lim->mem_mb) {
		uint64_t lb = cgroup_mem_limit(&cg->s, lim->mem_mb);
		char val[32];
		snprintf(val, sizeof(val), "%" PRIu64, lb);
		p = xasprintf("%s/%s", dir, v1 ? "memory.limit_in_bytes" : "memory.max");
		if (wfile(p, val, 0) < 0)
			error("job %u: cannot set %s: %m", job, p);
		free(p);
		if (cg->s.constrain_swap) {
			uint64_t sw = cgroup_swap_limit(&cg->s, lim->mem_mb);
			snprintf(val, sizeof(val), "%" PRIu64, v1 ? lb + sw : sw);
			p = xasprintf("%s/%s", dir, v1 ? "memory.memsw.limit_in_bytes" : "memory.swap.max");
			/* v1 without swap accounting has no memsw file */
			if (wfile(p, val, 0) < 0 && errno != ENOENT)
				error("job %u: cannot set %s: %m", job, p);
			free(p);
		}
	}
	if (!v1 && cg->s.constrain_devices && lim->ndeny && cg->real && !cg->bpf_failed) {
		char *err = NULL;
		if (cgroup_bpf_deny(dir, lim->deny, lim->ndeny, &err) < 0)
			error("job %u: ConstrainDevices: %s: the job can open every GPU", job, err);
		free(err);
	}
	if ((!v1 || !strcmp(ctrl, "pids")) && cg->s.pids_limit && !cg->pids_failed) {
		char val[16];
		snprintf(val, sizeof(val), "%u", cg->s.pids_limit);
		p = xasprintf("%s/pids.max", dir);
		if (wfile(p, val, 0) < 0)
			error("job %u: cannot set %s to %s: %m: the job has no process limit", job, p, val);
		free(p);
	}
	if (v1 && !strcmp(ctrl, "devices") && cg->s.constrain_devices) {
		p = xasprintf("%s/devices.deny", dir);
		for (size_t i = 0; i < lim->ndeny; i++) {
			char val[64];
			snprintf(val, sizeof(val), "c %u:%u rwm", major(lim->deny[i]), minor(lim->deny[i]));
			if (wfile(p, val, 1) < 0)
				error("job %u: cannot deny device %s in %s: %m", job, val, p);
		}
		free(p);
	}
}

int cgroup_hides_devices(const cgroup_t *cg)
{
	if (!cg || !cg->s.constrain_devices)
		return 0;
	if (cg->version != CG_V1)
		return cg->real && !cg->bpf_failed;
	for (int i = 0; i < cg->nctrl; i++)
		if (!strcmp(cg->ctrl[i], "devices"))
			return 1;
	return 0;
}

/* A new step_S's own device limits (dir of controller ctrl; v2 NULL):
 * the job's GPUs another step holds. */
static void set_step_devices(cgroup_t *cg, const char *ctrl, const char *dir, uint32_t job,
			     const cg_limits_t *lim)
{
	if (!cg->s.constrain_devices || !lim->nstep_deny)
		return;
	if (cg->version != CG_V1) {
		char *err = NULL;
		if (cg->real && !cg->bpf_failed &&
		    cgroup_bpf_deny(dir, lim->step_deny, lim->nstep_deny, &err) < 0)
			error("job %u: ConstrainDevices: %s: the step can open every GPU of the job",
			      job, err);
		free(err);
		return;
	}
	if (strcmp(ctrl, "devices"))
		return;
	char *p = xasprintf("%s/devices.deny", dir);
	for (size_t i = 0; i < lim->nstep_deny; i++) {
		char val[64];
		snprintf(val, sizeof(val), "c %u:%u rwm", major(lim->step_deny[i]),
			 minor(lim->step_deny[i]));
		if (wfile(p, val, 1) < 0)
			error("job %u: cannot deny device %s in %s: %m", job, val, p);
	}
	free(p);
}

int cgroup_step_create(cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step,
		       const cg_limits_t *lim, char **err)
{
	static const cg_limits_t none = { 0 };
	if (!lim)
		lim = &none;
	char buf[4096];
	int tries = 0;
again:
	if (cg->version == CG_V1) {
		for (int i = 0; i < cg->nctrl; i++) {
			const char *c = cg->ctrl[i];
			int cs = !strcmp(c, "cpuset");
			snprintf(buf, sizeof(buf), "%s/%s/%s/uid_%u", cg->root, c, cg->top, uid);
			int r = mkdir1(buf);
			if (r < 0)
				goto fail;
			if (cs && r == 0)
				cpuset_inherit(buf);
			path_into(buf, sizeof(buf), cg, c, uid, job, CG_STEP_ALL);
			if ((r = mkdir1(buf)) < 0)
				goto fail;
			if (cs && r == 0)
				cpuset_inherit(buf);
			if (r == 0)
				set_limits(cg, c, buf, job, lim);
			path_into(buf, sizeof(buf), cg, c, uid, job, step);
			if ((r = mkdir1(buf)) < 0)
				goto fail;
			if (cs && r == 0)
				cpuset_inherit(buf);
			if (r == 0)
				set_step_devices(cg, c, buf, job, lim);
		}
		return 0;
	}
	path_into(buf, sizeof(buf), cg, NULL, uid, job, CG_STEP_ALL);
	int r = mkdir1(buf);
	if (r < 0)
		goto fail;
	if (r == 0) {
		v2_enable(buf);
		set_limits(cg, NULL, buf, job, lim);
	}
	path_into(buf, sizeof(buf), cg, NULL, uid, job, step);
	if ((r = mkdir1(buf)) < 0)
		goto fail;
	if (r == 0)
		set_step_devices(cg, NULL, buf, job, lim);
	return 0;
fail:
	/* the last job of the user ended meanwhile and took uid_U with it */
	if (errno == ENOENT && ++tries < 3)
		goto again;
	*err = xasprintf("cannot create cgroup %s: %s", buf, strerror(errno));
	return -1;
}

int cgroup_step_attach(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step, pid_t pid)
{
	char buf[4096], val[24];
	snprintf(val, sizeof(val), "%d", (int)(pid ? pid : getpid()));
	int n = cg->version == CG_V1 ? cg->nctrl : 1;
	for (int i = 0; i < n; i++) {
		if (path_into(buf, sizeof(buf) - 16, cg, cg->version == CG_V1 ? cg->ctrl[i] : NULL,
			      uid, job, step) < 0) {
			errno = ENAMETOOLONG;
			return -1;
		}
		strcat(buf, "/cgroup.procs");
		if (wfile(buf, val, 1) < 0)
			return -1;
	}
	return 0;
}

/* ---- processes ---- */

typedef struct pidv {
	pid_t *v;
	size_t n, alloc;
} pidv_t;

/* The pids of dir and every cgroup below it (depth-limited). */
static void collect(const char *dir, pidv_t *out, int depth)
{
	char *p = xasprintf("%s/cgroup.procs", dir);
	char *t = file_read_small(p, 1 << 20);
	free(p);
	for (char *s = t; s && *s; ) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s)
			break;
		if (v > 0) {
			out->v = xgrow(out->v, sizeof(pid_t), out->n + 1, &out->alloc);
			out->v[out->n++] = (pid_t)v;
		}
		s = end;
		while (*s == '\n' || *s == ' ')
			s++;
	}
	free(t);
	if (depth >= 4)
		return;
	DIR *dh = opendir(dir);
	struct dirent *e;
	while (dh && (e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		char *sub = xasprintf("%s/%s", dir, e->d_name);
		if (is_dir(sub))
			collect(sub, out, depth + 1);
		free(sub);
	}
	if (dh)
		closedir(dh);
}

static const char *track_ctrl(const cgroup_t *cg)
{
	return cg->version == CG_V1 ? "freezer" : NULL;
}

int cgroup_nprocs(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step)
{
	if (!cg)
		return -1;
	uid = resolve_uid(cg, uid, job);
	char buf[4096];
	if ((cg->version == CG_V1 && uid == CG_UID_ANY) ||
	    path_into(buf, sizeof(buf), cg, track_ctrl(cg), uid, job, step) < 0 || !is_dir(buf))
		return -1;
	pidv_t pv = { 0 };
	collect(buf, &pv, 0);
	free(pv.v);
	return (int)pv.n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Freeze (1) or thaw (0) dir and what is below it. */
static void freeze(const cgroup_t *cg, const char *dir, int on)
{
	char *p = xasprintf("%s/%s", dir, cg->version == CG_V1 ? "freezer.state" : "cgroup.freeze");
	const char *val = cg->version == CG_V1 ? (on ? "FROZEN" : "THAWED") : (on ? "1" : "0");
	if (wfile(p, val, 0) < 0) {
		debug("cgroup: cannot write %s to %s: %m", val, p);
	} else if (on && cg->version == CG_V1 && cg->real) {
		/* FREEZING until every task stopped (bounded: a task in an
		 * uninterruptible sleep may keep it there) */
		for (int i = 0; i < 200; i++) {
			char *s = file_read_small(p, 32);
			int done = s && !strncmp(s, "FROZEN", 6);
			free(s);
			if (done)
				break;
			sleep_ms(1);
		}
	}
	free(p);
}

int cgroup_signal(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step, int sig)
{
	if (!cg)
		return 0;
	uid = resolve_uid(cg, uid, job);
	char buf[4096];
	if ((cg->version == CG_V1 && uid == CG_UID_ANY) ||
	    path_into(buf, sizeof(buf), cg, track_ctrl(cg), uid, job, step) < 0 || !is_dir(buf))
		return 0;
	pidv_t pv = { 0 };
	if (sig == SIGKILL && cg->version == CG_V2 && cg->real) {
		collect(buf, &pv, 0);
		char *k = xasprintf("%s/cgroup.kill", buf);
		int done = exists(k) && wfile(k, "1", 0) == 0;
		free(k);
		if (done) {
			int n = (int)pv.n;
			free(pv.v);
			return n;
		}
		pv.n = 0;
	}
	int fr = sig == SIGKILL;
	if (fr)
		freeze(cg, buf, 1);
	collect(buf, &pv, 0);
	int n = 0;
	for (size_t i = 0; i < pv.n; i++)
		if (kill(pv.v[i], sig) == 0)
			n++;
	if (fr)
		freeze(cg, buf, 0);
	free(pv.v);
	return n;
}

/* ---- after the job ---- */

uint64_t cgroup_oom_kills(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step)
{
	if (!cg || !cg->has_memory)
		return 0;
	uid = resolve_uid(cg, uid, job);
	if (cg->version == CG_V1 && uid == CG_UID_ANY)
		return 0;
	/* the step's own count: the kernel counts a kill in the victim's
	 * cgroup (and, on v2, its ancestors: the job's counts every step) */
	char buf[4096];
	if (path_into(buf, sizeof(buf) - 32, cg, "memory", uid, job, step) < 0)
		return 0;
	strcat(buf, cg->version == CG_V1 ? "/memory.oom_control" : "/memory.events");
	char *t = file_read_small(buf, 4096);
	uint64_t n = cgroup_keyed(t, "oom_kill");
	free(t);
	return n;
}

int cgroup_usage(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step,
		 uint64_t *user_us, uint64_t *sys_us, uint64_t *peak_kb)
{
	*user_us = *sys_us = *peak_kb = 0;
	if (!cg)
		return -1;
	uid = resolve_uid(cg, uid, job);
	if (cg->version == CG_V1 && uid == CG_UID_ANY)
		return -1;
	char buf[4096];
	int got = 0;
	if (cg->version == CG_V1) {
		if (cg->has_cpuacct &&
		    path_into(buf, sizeof(buf) - 32, cg, "cpuacct", uid, job, step) == 0) {
			strcat(buf, "/cpuacct.stat");
			char *t = file_read_small(buf, 4096);
			long hz = sysconf(_SC_CLK_TCK);
			if (t && hz > 0) {
				*user_us = cgroup_keyed(t, "user") * 1000000 / (uint64_t)hz;
				*sys_us = cgroup_keyed(t, "system") * 1000000 / (uint64_t)hz;
				got = 1;
			}
			free(t);
		}
		if (cg->has_memory && path_into(buf, sizeof(buf) - 32, cg, "memory", uid, job, step) == 0) {
			strcat(buf, "/memory.max_usage_in_bytes");
			char *t = file_read_small(buf, 64);
			if (t && *t) {
				*peak_kb = strtoull(t, NULL, 10) >> 10;
				got = 1;
			}
			free(t);
		}
		return got ? 0 : -1;
	}
	if (path_into(buf, sizeof(buf) - 32, cg, NULL, uid, job, step) < 0)
		return -1;
	size_t bl = strlen(buf);
	strcat(buf, "/cpu.stat");
	char *t = file_read_small(buf, 4096);
	if (t) {
		*user_us = cgroup_keyed(t, "user_usec");
		*sys_us = cgroup_keyed(t, "system_usec");
		got = 1;
	}
	free(t);
	buf[bl] = 0;
	strcat(buf, "/memory.peak");
	t = file_read_small(buf, 64);
	if (t && *t) {
		*peak_kb = strtoull(t, NULL, 10) >> 10;
		got = 1;
	}
	free(t);
	return got ? 0 : -1;
}

int cgroup_job_now(const cgroup_t *cg, uint32_t job, uint64_t *cpu_us, uint64_t *mem_bytes)
{
	*cpu_us = *mem_bytes = 0;
	if (!cg)
		return -1;
	int v1 = cg->version == CG_V1;
	/* both figures or none: the caller then takes both from /proc */
	if (v1 && (!cg->has_cpuacct || !cg->has_memory))
		return -1;
	uint32_t uid = resolve_uid(cg, CG_UID_ANY, job);
	if (v1 && uid == CG_UID_ANY)
		return -1;
	char buf[4096];
	if (path_into(buf, sizeof(buf) - 32, cg, v1 ? "cpuacct" : NULL, uid, job, CG_STEP_ALL) < 0)
		return -1;
	strcat(buf, v1 ? "/cpuacct.usage" : "/cpu.stat");
	char *t = file_read_small(buf, 4096);
	if (!t)
		return -1;
	*cpu_us = v1 ? strtoull(t, NULL, 10) / 1000 : cgroup_keyed(t, "usage_usec");
	free(t);
	if (path_into(buf, sizeof(buf) - 32, cg, "memory", uid, job, CG_STEP_ALL) < 0)
		return -1;
	strcat(buf, v1 ? "/memory.usage_in_bytes" : "/memory.current");
	char *m = file_read_small(buf, 64);
	int ok = m && *m;
	if (ok)
		*mem_bytes = strtoull(m, NULL, 10);
	free(m);
	return ok ? 0 : -1;
}

/* rmdir a cgroup (and, on a fake tree, the plain files in it first). */
static int rm_cg(const cgroup_t *cg, const char *dir)
{
	if (!cg->real) {
		DIR *dh = opendir(dir);
		struct dirent *e;
		while (dh && (e = readdir(dh))) {
			char *f = xasprintf("%s/%s", dir, e->d_name);
			struct stat st;
			if (lstat(f, &st) == 0 && S_ISREG(st.st_mode))
				unlink(f);
			free(f);
		}
		if (dh)
			closedir(dh);
	}
	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	return -1;
}

/* Remove the step dirs (all: every subdir) of one job dir. */
static int rm_steps(const cgroup_t *cg, const char *jobdir, uint32_t step)
{
	int rc = 0;
	if (step != CG_STEP_ALL) {
		char sn[32];
		step_name(step, sn, sizeof(sn));
		char *d = xasprintf("%s/%s", jobdir, sn);
		rc = rm_cg(cg, d);
		free(d);
		return rc;
	}
	DIR *dh = opendir(jobdir);
	struct dirent *e;
	while (dh && (e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		char *d = xasprintf("%s/%s", jobdir, e->d_name);
		if (is_dir(d) && rm_cg(cg, d) < 0)
			rc = -1;
		free(d);
	}
	if (dh)
		closedir(dh);
	return rc;
}

/* Has dir any subdirectory? */
static int has_subdirs(const char *dir)
{
	DIR *dh = opendir(dir);
	struct dirent *e;
	int any = 0;
	while (dh && !any && (e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		char *d = xasprintf("%s/%s", dir, e->d_name);
		any = is_dir(d);
		free(d);
	}
	if (dh)
		closedir(dh);
	return any;
}

int cgroup_remove(const cgroup_t *cg, uint32_t uid, uint32_t job, uint32_t step)
{
	if (!cg)
		return 0;
	uid = resolve_uid(cg, uid, job);
	if (cg->version == CG_V1 && uid == CG_UID_ANY)
		return 0;
	/* what is left dies first: a cgroup with processes cannot go */
	for (int i = 0; i < 100 && cgroup_nprocs(cg, uid, job, step) > 0; i++) {
		if (!cgroup_signal(cg, uid, job, step, SIGKILL))
			break;         /* listed but gone (a fake tree) */
		sleep_ms(i < 10 ? 1 : 10);
	}
	int rc = 0;
	int n = cg->version == CG_V1 ? cg->nctrl : 1;
	for (int i = 0; i < n; i++) {
		char jd[4096];
		if (path_into(jd, sizeof(jd), cg, cg->version == CG_V1 ? cg->ctrl[i] : NULL, uid, job,
			      CG_STEP_ALL) < 0 || !is_dir(jd))
			continue;
		if (rm_steps(cg, jd, step) < 0)
			rc = -1;
		if (has_subdirs(jd))
			continue;          /* another step still runs */
		if (rm_cg(cg, jd) < 0) {
			rc = -1;
			continue;
		}
		if (cg->version == CG_V1) {
			*strrchr(jd, '/') = 0;     /* uid_U: gone once it is empty */
			if (!has_subdirs(jd))
				rm_cg(cg, jd);
		}
	}
	if (rc < 0)
		error("job %u: cannot remove all of its cgroups: %m", job);
	return rc;
}
