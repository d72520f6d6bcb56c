/*
 * job_env.c: the environment a batch job starts with (job_build_env):
 * the submitter's exported variables and the SLURM_* variables Slurm's
 * slurmd sets for a batch script (job, nodes, tasks, CPUs, GPUs, the
 * restart count of a requeued job), built by the controller for the
 * launch message.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/ctld.h"
#include "ctld/job_array.h"
#include "hostlist.h"
#include "strbuf.h"
#include "xalloc.h"

static void env_set(strv_t *sv, const char *k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void env_set(strv_t *sv, const char *k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *v = xvasprintf(fmt, ap);
	va_end(ap);
	char *kv = xasprintf("%s=%s", k, v);
	strv_push(sv, kv);
	free(kv);
	free(v);
}

/* "64(x2),32": run-length form Slurm uses for per-node counts. */
static void env_set_kv(void *arg, const char *k, const char *v)
{
	env_set(arg, k, "%s", v);
}

static char *rle_counts(const uint32_t *v, uint32_t n)
{
	strbuf_t sb = STRBUF_INIT;
	for (uint32_t i = 0; i < n;) {
		uint32_t k = i;
		while (k < n && v[k] == v[i])
			k++;
		strbuf_addf(&sb, "%s%u", sb.len ? "," : "", v[i]);
		if (k - i > 1)
			strbuf_addf(&sb, "(x%u)", k - i);
		i = k;
	}
	return strbuf_detach(&sb);
}

static char *gpu_list(uint64_t mask)
{
	strbuf_t sb = STRBUF_INIT;
	for (int i = 0; i < 64; i++)
		if (mask & (1ull << i))
			strbuf_addf(&sb, "%s%d", sb.len ? "," : "", i);
	return strbuf_detach(&sb);
}

char **job_build_env(ctld_t *cd, job_t *j, const job_desc_t *full, uint32_t *n)
{
	strv_t ours = { 0 };
	const job_desc_t *d = j->desc;
	const char *part = cd->parts[j->part].cf->name;
	env_set(&ours, "SLURM_JOB_ID", "%u", j->job_id);
	env_set(&ours, "SLURM_JOBID", "%u", j->job_id);
	job_array_env(j, env_set_kv, &ours);   /* SLURM_ARRAY_* of a task */
	env_set(&ours, "SLURM_JOB_NAME", "%s", d->name ? d->name : "");
	env_set(&ours, "SLURM_JOB_USER", "%s", d->user_name ? d->user_name : "");
	env_set(&ours, "SLURM_JOB_UID", "%u", j->user_id);
	env_set(&ours, "SLURM_JOB_GID", "%u", j->group_id);
	if (d->account)
		env_set(&ours, "SLURM_JOB_ACCOUNT", "%s", d->account);
	env_set(&ours, "SLURM_JOB_PARTITION", "%s", part);
	env_set(&ours, "SLURM_JOB_NODELIST", "%s", j->nodes ? j->nodes : "");
	env_set(&ours, "SLURM_NODELIST", "%s", j->nodes ? j->nodes : "");
	env_set(&ours, "SLURM_JOB_NUM_NODES", "%u", j->alloc.nnodes);
	env_set(&ours, "SLURM_NNODES", "%u", j->alloc.nnodes);
	uint32_t ntasks = job_ntasks(j);
	env_set(&ours, "SLURM_NTASKS", "%u", ntasks);
	env_set(&ours, "SLURM_NPROCS", "%u", ntasks);
	if (d->ntasks_per_node)
		env_set(&ours, "SLURM_NTASKS_PER_NODE", "%u", d->ntasks_per_node);
	if (j->alloc.nnodes) {
		env_set(&ours, "SLURM_CPUS_ON_NODE", "%u", j->alloc.cpus[0]);
		char *c = rle_counts(j->alloc.cpus, j->alloc.nnodes);
		env_set(&ours, "SLURM_JOB_CPUS_PER_NODE", "%s", c);
		free(c);
		c = rle_counts(j->alloc.tasks, j->alloc.nnodes);
		env_set(&ours, "SLURM_TASKS_PER_NODE", "%s", c);
		free(c);
	}
	if (d->cpus_per_task)
		env_set(&ours, "SLURM_CPUS_PER_TASK", "%u", d->cpus_per_task);
	if (d->flags & JOB_F_OVERCOMMIT)
		env_set(&ours, "SLURM_OVERCOMMIT", "1");
	if (d->mem_per_node)
		env_set(&ours, "SLURM_MEM_PER_NODE", "%" PRIu64, d->mem_per_node);
	else if (d->mem_per_cpu)
		env_set(&ours, "SLURM_MEM_PER_CPU", "%" PRIu64, d->mem_per_cpu);
	env_set(&ours, "SLURM_SUBMIT_DIR", "%s", d->work_dir ? d->work_dir : "/");
	env_set(&ours, "SLURM_SUBMIT_HOST", "%s", d->alloc_node ? d->alloc_node : "");
	env_set(&ours, "SLURM_CLUSTER_NAME", "%s", cd->conf->cluster_name ? cd->conf->cluster_name : "");
	env_set(&ours, "SLURM_CONF", "%s", cd->conf->path ? cd->conf->path : "");
	env_set(&ours, "SLURM_PROCID", "0");
	env_set(&ours, "SLURM_LOCALID", "0");
	env_set(&ours, "SLURM_NODEID", "0");
	env_set(&ours, "SLURM_GTIDS", "0");
	env_set(&ours, "SLURM_PRIO_PROCESS", "0");
	/* Slurm sets it only for a job that was requeued. */
	if (j->restarts)
		env_set(&ours, "SLURM_RESTART_COUNT", "%u", j->restarts);
	env_set(&ours, "ENVIRONMENT", "BATCH");
	if (j->alloc.nnodes) {
		node_t *bh = &cd->nodes[j->alloc.nodes[0]];
		env_set(&ours, "SLURM_TOPOLOGY_ADDR", "%s", bh->topo_addr ? bh->topo_addr : bh->cf->name);
		uint64_t g = j->alloc.gpus[0];
		if (g) {
			char *l = gpu_list(g);
			env_set(&ours, "SLURM_GPUS_ON_NODE", "%d", __builtin_popcountll(g));
			env_set(&ours, "CUDA_VISIBLE_DEVICES", "%s", l);
			env_set(&ours, "SLURM_JOB_GPUS", "%s", l);
			env_set(&ours, "GPU_DEVICE_ORDINAL", "%s", l);
			free(l);
		}
	}
	/* Submitted environment first, minus what we set. */
	strv_t out = { 0 };
	for (uint32_t i = 0; full && i < full->env.n; i++) {
		const char *e = full->env.v[i];
		const char *eq = strchr(e, '=');
		size_t kl = eq ? (size_t)(eq - e) : strlen(e);
		int dup = 0;
		for (uint32_t k = 0; k < ours.n && !dup; k++)
			dup = !strncmp(ours.v[k], e, kl) && ours.v[k][kl] == '=';
		if (!dup)
			strv_push(&out, e);
	}
	for (uint32_t k = 0; k < ours.n; k++)
		strv_push(&out, ours.v[k]);
	strv_free(&ours);
	*n = out.n;
	return out.v;
}
