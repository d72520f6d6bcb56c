/*
 * cgroup_job: what the node daemon and its supervisors call to put jobs
 * and steps in cgroups (cgroup.c does the file work). Kept apart from
 * supervisor.c and step.c so that those only make calls here.
 *
 * When: ProctrackType=proctrack/cgroup (Slurm's default) or TaskPlugin
 * with task/cgroup. Where cgroups cannot be used (no cgroup file system,
 * read-only, no permission: a container), noded says so once at start and
 * jobs are tracked by their process groups and sessions, as without
 * cgroups. Limits come from the launch (the job's cores, memory and GPUs on
 * this node) and cgroup.conf; srun steps join the job's cgroup (job_J,
 * created with the job's share from the step's credential on a node that
 * does not run the batch script) in their own step_S, which ConstrainDevices
 * keeps to the step's GPUs.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "hostlist.h"
#include "noded.h"
#include "xalloc.h"

static int cgroups_wanted(const conf_t *c)
{
	int track = c->proctrack_type && !strcmp(c->proctrack_type, "proctrack/cgroup");
	int task = c->task_plugin && strstr(c->task_plugin, "task/cgroup");
	return track || task;
}

static int str_eq(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* The settings' line for the log (malloc'd). */
static char *settings_line(const noded_t *nd, const cg_settings_t *s)
{
	char pids[32] = "";
	if (s->pids_limit)
		snprintf(pids, sizeof(pids), ", PidsLimit=%u", s->pids_limit);
	char mem[64] = "";
	if (s->constrain_ram)
		snprintf(mem, sizeof(mem), ", ConstrainRAMSpace (AllowedRAMSpace=%u%%)",
			 s->allowed_ram_pct);
	return xasprintf("cgroup/v%d: jobs in %s%s%s%s%s", cgroup_version(nd->cgroup), s->root,
			 s->constrain_cores ? ", ConstrainCores" : "", mem,
			 s->constrain_devices ? ", ConstrainDevices" : "", pids);
}

void noded_cgroup_init(noded_t *nd)
{
	const conf_t *c = nd->conf;
	if (!cgroups_wanted(c))
		return;
	cg_settings_t s;
	cgroup_settings_from(c, nd->boot_node, nd->name, &s);
	char *why = NULL;
	nd->cgroup = cgroup_open(&s, &why);
	if (!nd->cgroup) {
		info("cgroups unavailable (%s): jobs are tracked by process group and session, "
		     "without cgroup.conf limits", why);
		free(why);
		return;
	}
	const char *u = cgroup_unsupported(nd->cgroup);
	if (u)
		error("%s", u);
	char *line = settings_line(nd, &s);
	verbose("%s", line);
	free(line);
}

void noded_cgroup_reload(noded_t *nd, const conf_t *old)
{
	const conf_t *c = nd->conf;
	/* Where jobs are tracked is fixed for the daemon's life: running
	 * jobs are found (and cleaned up) there. */
	if (cgroups_wanted(c) != cgroups_wanted(old) ||
	    !str_eq(c->cgroup_plugin, old->cgroup_plugin) ||
	    !str_eq(c->cgroup_mountpoint, old->cgroup_mountpoint)) {
		info("reconfigure: ProctrackType, TaskPlugin, CgroupPlugin or CgroupMountpoint "
		     "changed: needs a restart (the cgroups in use stay)");
		return;
	}
	if (!nd->cgroup)
		return;
	cg_settings_t s;
	cgroup_settings_from(c, nd->boot_node, nd->name, &s);
	char *why = NULL;
	cgroup_t *cg = cgroup_open(&s, &why);
	if (!cg) {
		error("reconfigure: cgroup.conf not applied (%s): the limits read before stay", why);
		free(why);
		return;
	}
	cgroup_close(nd->cgroup);
	nd->cgroup = cg;
	const char *u = cgroup_unsupported(cg);
	if (u)
		error("%s", u);
	char *line = settings_line(nd, &s);
	info("reconfigure: cgroup.conf applied to new jobs: %s", line);
	free(line);
}

/* The char devices of the node's GPUs not in mask (gres.conf File=, in
 * the order of the node's gpu GRES: index i is the i-th file). */
static size_t gpu_deny(const conf_node_t *n, uint64_t mask, dev_t **out)
{
	*out = NULL;
	size_t nd = 0, alloc = 0, idx = 0;
	for (size_t g = 0; n && g < n->ngres; g++) {
		const conf_gres_t *gr = &n->gres[g];
		if (strcmp(gr->name, "gpu"))
			continue;
		hostlist_t *hl = gr->file ? hostlist_create(gr->file, NULL) : NULL;
		size_t nf = hl ? hostlist_count(hl) : 0;
		for (size_t i = 0; i < nf; i++, idx++) {
			if (idx < 64 && (mask & (1ull << idx)))
				continue;
			struct stat st;
			const char *f = hostlist_nth(hl, i);
			if (stat(f, &st) < 0 || !S_ISCHR(st.st_mode)) {
				debug("gres.conf File=%s: not a character device, nothing to hide", f);
				continue;
			}
			*out = xgrow(*out, sizeof(dev_t), nd + 1, &alloc);
			(*out)[nd++] = st.st_rdev;
		}
		hostlist_destroy(hl);
	}
	return nd;
}

uint64_t noded_alloc_gpus(const noded_t *nd, const char *alloc)
{
	char *cores = NULL;
	uint64_t mem = 0, gpus = 0;
	if (!alloc || cgroup_alloc_entry(alloc, nd->name, &cores, &mem, &gpus) < 0)
		gpus = 0;
	free(cores);
	return gpus;
}

uint64_t noded_cgroup_gpus_visible(const noded_t *nd, uint64_t step_mask)
{
	return cgroup_hides_devices(nd->cgroup) ? step_mask : 0;
}

int noded_cgroup_create(noded_t *nd, uint32_t uid, uint32_t job, uint32_t step,
			const msg_launch_job_t *m, const char *alloc, const char *step_gpus,
			uint32_t node_id)
{
	if (!nd->cgroup)
		return 0;
	cg_limits_t lim = { 0 };
	dev_t *deny = NULL, *sdeny = NULL;
	msg_launch_job_t fromcred = { 0 };
	if (!m && alloc && cgroup_alloc_entry(alloc, nd->name, &fromcred.cores, &fromcred.mem_mb,
					      &fromcred.gpus) == 0)
		m = &fromcred;
	if (m) {
		lim.cores = m->cores;
		lim.mem_mb = m->mem_mb;
		lim.ndeny = gpu_deny(nd->node, m->gpus, &deny);
		lim.deny = deny;
	}
	/* an srun step opens only its own GPUs of the job's (those of
	 * its concurrent steps are theirs) */
	uint64_t sg;
	if (step_gpus && gpu_cred_mask(step_gpus, node_id, &sg) == 0) {
		lim.nstep_deny = gpu_deny(nd->node, sg | ~(m ? m->gpus : 0), &sdeny);
		lim.step_deny = sdeny;
	}
	char *err = NULL;
	int rc = cgroup_step_create(nd->cgroup, uid, job, step, &lim, &err);
	free(deny);
	free(sdeny);
	free(fromcred.cores);
	if (rc < 0) {
		error("job %u: %s: tracked by process group only", job, err);
		free(err);
		return 0;
	}
	return 1;
}

int noded_cgroup_attach(noded_t *nd, uint32_t uid, uint32_t job, uint32_t step)
{
	if (!nd->cgroup)
		return 0;
	return cgroup_step_attach(nd->cgroup, uid, job, step, 0);
}

int noded_cgroup_signal(noded_t *nd, uint32_t uid, uint32_t job, uint32_t step, int sig)
{
	return nd->cgroup ? cgroup_signal(nd->cgroup, uid, job, step, sig) : 0;
}

void noded_cgroup_end(noded_t *nd, uint32_t uid, uint32_t job, uint32_t step,
		      noded_cg_end_t *out)
{
	memset(out, 0, sizeof(*out));
	if (!nd->cgroup)
		return;
	/* nothing of the step outlives it (proctrack/cgroup) */
	cgroup_signal(nd->cgroup, uid, job, step, SIGKILL);
	out->oom_kills = cgroup_oom_kills(nd->cgroup, uid, job, step);
	out->have_usage = cgroup_usage(nd->cgroup, uid, job, step, &out->user_us, &out->sys_us,
				       &out->peak_kb) == 0;
	cgroup_remove(nd->cgroup, uid, job, step);
}

void noded_cgroup_usage(const noded_cg_end_t *e, int gathered_cgroup, step_usage_t *u)
{
	if (!e->have_usage)
		return;
	/* the cgroup's CPU counts every process of the step, also those
	 * the supervisor never waited for */
	if (e->user_us + e->sys_us > u->user_cpu_us + u->sys_cpu_us) {
		u->user_cpu_us = e->user_us;
		u->sys_cpu_us = e->sys_us;
		if (u->ntasks <= 1)
			u->min_cpu_us = u->sum_cpu_us = e->user_us + e->sys_us;
	}
	/* jobacct_gather/cgroup: the memory peak of the cgroup (page cache
	 * included, as the cgroup counts it) */
	if (gathered_cgroup && e->peak_kb > u->max_rss_kb) {
		u->max_rss_kb = e->peak_kb;
		if (u->ntasks <= 1)
			u->sum_rss_kb = e->peak_kb;
	}
}

int noded_cgroup_cleanup(noded_t *nd, uint32_t job, uint32_t step)
{
	if (!nd->cgroup)
		return 0;
	int n = cgroup_signal(nd->cgroup, CG_UID_ANY, job, step, SIGKILL);
	cgroup_remove(nd->cgroup, CG_UID_ANY, job, step);
	return n;
}
