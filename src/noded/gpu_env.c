/*
 * gpu_env: the GPUs a task of an srun step sees, as Slurm 22.05's
 * gres/gpu sets them: SLURM_STEP_GPUS (the step's GPUs on the node, by
 * the node's GPU index), SLURM_JOB_GPUS (the job's), SLURM_GPUS_ON_NODE,
 * and CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL (the task's GPUs after
 * --gpu-bind). Where ConstrainDevices hides the other GPUs from the step
 * (its device cgroup, cgroup_job.c), the CUDA numbers count only the GPUs
 * the step can open (0-based within them), as CUDA numbers the devices it
 * finds; otherwise they are the node's indexes.
 *
 * --gpu-bind (ignored for a single task on the node, as man srun says):
 * none: every GPU of the step; per_task:N: task i gets the step's GPUs
 * i*N..i*N+N-1 (wrapping); single:N: N tasks per GPU (task i the GPU
 * i/N); map_gpu:ID,ID*n: task i the node GPU ID of item i (wrapping);
 * mask_gpu:M,...: those of mask M; closest: the step's GPUs whose gres.conf
 * Cores= hold a CPU the task is bound to, or that have no Cores= (the
 * step's first GPU when none is: Slurm 22.05's _get_usable_gres). A GPU
 * outside the step is never bound.
 * verbose,...: each task prints Slurm's "gpu-bind: usable_gres=..." line
 * on its stderr (gpu_bind_verbose).
 */
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostlist.h"
#include "noded.h"
#include "strbuf.h"
#include "xalloc.h"

/* "0,2,3": the indexes of mask, each counted among the bits of within
 * (within 0: the index itself). malloc'd. */
static char *gpu_list(uint64_t mask, uint64_t within)
{
	strbuf_t sb = STRBUF_INIT;
	for (int i = 0; i < 64; i++) {
		if (!(mask & (1ull << i)))
			continue;
		int n = within ? __builtin_popcountll(within & ((1ull << i) - 1)) : i;
		strbuf_addf(&sb, "%s%d", sb.len ? "," : "", n);
	}
	return strbuf_detach(&sb);
}

/* Item k (wrapping) of "a,b*3,c" as a number (base 0: 0x hex; masks in
 * hex always). */
static int list_item(const char *list, uint32_t k, int hex, uint64_t *out)
{
	uint32_t total = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass && !total)
			return -1;
		uint32_t want = pass ? k % total : 0, at = 0;
		for (const char *p = list; *p;) {
			char *end = NULL;
			uint64_t v = strtoull(p, &end, hex ? 16 : 0);
			if (end == p)
				return -1;
			uint32_t rep = 1;
			if (*end == '*') {
				rep = (uint32_t)strtoul(end + 1, &end, 10);
				if (!rep)
					return -1;
			}
			if (pass && want < at + rep) {
				*out = v;
				return 0;
			}
			at += rep;
			if (*end == ',')
				end++;
			else if (*end)
				return -1;
			p = end;
		}
		total = at;
	}
	return -1;
}

/* The nth (wrapping) set bit of mask. */
static uint64_t nth_bit(uint64_t mask, uint32_t n)
{
	uint32_t c = (uint32_t)__builtin_popcountll(mask);
	if (!c)
		return 0;
	n %= c;
	for (int i = 0; i < 64; i++)
		if ((mask & (1ull << i)) && n-- == 0)
			return 1ull << i;
	return 0;
}

uint64_t gpu_bind_task(const char *bind, uint64_t step, uint32_t local, uint32_t ntasks,
		       uint64_t close)
{
	if (!bind || !*bind || ntasks <= 1 || !step)
		return step;
	if (!strncasecmp(bind, "verbose,", 8))
		bind += 8;
	uint64_t v = 0, m = 0;
	if (!strncasecmp(bind, "per_task:", 9)) {
		uint32_t n = (uint32_t)strtoul(bind + 9, NULL, 10);
		for (uint32_t k = 0; n && k < n && k < 64; k++)
			m |= nth_bit(step, local * n + k);
		return m ? m : step;
	}
	if (!strncasecmp(bind, "single:", 7)) {
		uint32_t n = (uint32_t)strtoul(bind + 7, NULL, 10);
		return n ? nth_bit(step, local / n) : step;
	}
	if (!strncasecmp(bind, "map_gpu:", 8) && list_item(bind + 8, local, 0, &v) == 0)
		return v < 64 && (step & (1ull << v)) ? 1ull << v : step;
	if (!strncasecmp(bind, "mask_gpu:", 9) && list_item(bind + 9, local, 1, &v) == 0)
		return (v & step) ? (v & step) : step;
	/* none near: the first of the step's, as Slurm (which says so) */
	if (!strcasecmp(bind, "closest"))
		return (close & step) ? (close & step) : step & -step;
	return step;
}

void gpu_env_set(strv_t *env, uint64_t job, uint64_t step, uint64_t task, uint64_t visible)
{
	char *l = gpu_list(step, 0);
	env_set(env, "SLURM_STEP_GPUS", l);
	free(l);
	if (job) {
		l = gpu_list(job, 0);
		env_set(env, "SLURM_JOB_GPUS", l);
		free(l);
	}
	env_setf(env, "SLURM_GPUS_ON_NODE", "%d", __builtin_popcountll(step));
	gpu_env_cuda(env, task, visible);
}

void gpu_env_cuda(strv_t *env, uint64_t gpus, uint64_t visible)
{
	char *l = gpu_list(gpus, visible);
	env_set(env, "CUDA_VISIBLE_DEVICES", l);
	env_set(env, "GPU_DEVICE_ORDINAL", l);
	free(l);
}

char *gpu_bind_verbose(uint64_t step, uint64_t task, uint64_t visible)
{
	/* Slurm's bitmaps: the task's usable GPUs counted as its CUDA
	 * numbers are (0-based within the step's where devices are hidden),
	 * the step's by the node's index; local_inx: how many local
	 * numbers were handed out (none when the node's indexes are used) */
	uint64_t usable = task;
	if (visible) {
		usable = 0;
		for (int i = 0; i < 64; i++)
			if (task & (1ull << i))
				usable |= 1ull << __builtin_popcountll(visible & ((1ull << i) - 1));
	}
	char *global = gpu_list(task, 0), *local = gpu_list(task, visible);
	char *line = xasprintf("gpu-bind: usable_gres=0x%" PRIx64 "; bit_alloc=0x%" PRIx64
			       "; local_inx=%d; global_list=%s; local_list=%s\n",
			       usable, step, visible ? __builtin_popcountll(step) : 0, global, local);
	free(global);
	free(local);
	return line;
}

int gpu_cred_mask(const char *gpus, uint32_t node_id, uint64_t *out)
{
	const char *p = gpus;
	for (uint32_t i = 0; p && i < node_id; i++) {
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	if (!p || !*p || *p == ',')
		return -1;
	char *end = NULL;
	*out = strtoull(p, &end, 16);
	return *end && *end != ',' ? -1 : 0;
}

uint64_t gpu_close_to_task(const conf_node_t *n)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (!n || sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	uint64_t close = 0;
	uint32_t idx = 0;
	for (size_t g = 0; g < n->ngres; g++) {
		const conf_gres_t *gr = &n->gres[g];
		if (strcmp(gr->name, "gpu"))
			continue;
		for (size_t l = 0; l < gr->nlines; l++) {
			/* Cores= as "0-3" ids, like a hostlist's ranges */
			char *expr = gr->line_cores && gr->line_cores[l] ?
				     xasprintf("[%s]", gr->line_cores[l]) : NULL;
			hostlist_t *hl = expr ? hostlist_create(expr, NULL) : NULL;
			int near = !hl; /* no Cores=: near every CPU */
			for (size_t c = 0; hl && c < hostlist_count(hl) && !near; c++) {
				long cpu = strtol(hostlist_nth(hl, c), NULL, 10);
				near = cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET((int)cpu, &set);
			}
			for (uint32_t k = 0; k < gr->line_count[l]; k++, idx++)
				if (near && idx < 64)
					close |= 1ull << idx;
			hostlist_destroy(hl);
			free(expr);
		}
	}
	return close;
}
