/*
 * sched_prio.c: job priority (priority/multifactor and priority/basic) and
 * the parsing of the scheduler's slurm.conf parameters into core structs.
 *
 * Multifactor follows Slurm 22.05's published formula: every factor is a
 * number in [0,1], the priority is the sum of weight * factor, minus the
 * job's nice, truncated to an integer and clamped to [1, 0xfffffffe]
 * (0 is reserved for held jobs):
 *   age       = min(1, (now - eligible) / PriorityMaxAge)
 *   jobsize   = (min_nodes / cluster_nodes + cpus / cluster_cpus) / 2,
 *               or 1 - that with PriorityFavorSmall, or the
 *               SMALL_RELATIVE_TO_TIME variant (size / time limit)
 *   partition = PriorityJobFactor / max PriorityJobFactor
 *   qos       = QOS Priority / max QOS Priority
 *   fairshare = given by the caller (accounting); the controller passes 0
 *               until an accounting layer computes it
 *   tres      = per TRES: requested / partition total, times its weight
 * Pure: no clock, the caller passes now.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sched.h"

#include "timefmt.h"

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

uint32_t sched_priority_basic(uint32_t job_id, int32_t nice)
{
	int64_t p = (int64_t)0xffff0000u - job_id - nice;
	if (p < 1)
		p = 1;
	if (p > 0xfffffffe)
		p = 0xfffffffe;
	return (uint32_t)p;
}

/* Total CPUs the job asks for (tasks x cpus per task, at least one per
 * node). */
static double job_cpus(const sched_job_t *j)
{
	uint32_t nodes = j->min_nodes ? j->min_nodes : 1;
	uint64_t ntasks = j->ntasks;
	if (!ntasks && j->ntasks_per_node)
		ntasks = (uint64_t)j->ntasks_per_node * nodes;
	if (ntasks < nodes)
		ntasks = nodes;
	return (double)ntasks * (j->cpus_per_task ? j->cpus_per_task : 1);
}

uint32_t sched_priority(const sched_prio_conf_t *c, const sched_job_t *j, int64_t now,
			sched_prio_factors_t *out)
{
	sched_prio_factors_t f;
	memset(&f, 0, sizeof(f));
	if (!c->multifactor) {
		if (out)
			*out = f;
		return 0;
	}
	/* age: from eligibility (ACCRUE_ALWAYS: from submission) */
	int64_t since = (c->flags & SCHED_PRIO_F_ACCRUE_ALWAYS) ? j->submit_time
		      : j->eligible_time ? j->eligible_time : j->submit_time;
	if (c->w_age && since) {
		int64_t diff = now > since ? now - since : 0;
		f.n_age = c->max_age && diff < (int64_t)c->max_age ? (double)diff / c->max_age : 1.0;
	}
	f.n_fairshare = clamp01(j->fairshare);
	if (c->w_jobsize && c->cluster_nodes && c->cluster_cpus) {
		double nn = c->cluster_nodes, cc = c->cluster_cpus;
		double mn = j->min_nodes ? j->min_nodes : 1, cpus = job_cpus(j);
		double js;
		if (c->flags & SCHED_PRIO_F_SMALL_RELATIVE_TO_TIME) {
			js = mn * cc / nn;
			if (cpus > js)
				js = cpus;
			uint32_t tl = j->time_limit;
			if (tl == TIME_NO_VAL || tl == TIME_INFINITE || !tl)
				tl = tl == 0 ? 1 : TIME_INFINITE;
			js /= (double)tl;
			js /= cc;
			if (c->favor_small)
				js = 1.0 - js;
		} else if (c->favor_small) {
			js = ((nn - mn) / nn + (cc - cpus) / cc) / 2;
		} else {
			js = (mn / nn + cpus / cc) / 2;
		}
		f.n_jobsize = clamp01(js);
	}
	if (c->w_partition && j->part_job_factor) {
		if (c->flags & SCHED_PRIO_F_NO_NORMAL_PART)
			f.n_partition = j->part_job_factor;
		else if (c->max_part_job_factor)
			f.n_partition = clamp01((double)j->part_job_factor / c->max_part_job_factor);
	}
	if (c->w_qos && j->qos_priority && c->max_qos_priority)
		f.n_qos = clamp01((double)j->qos_priority / c->max_qos_priority);
	/* ASSOC: the association's Priority / the highest one. */
	if (c->w_assoc && j->assoc_priority && c->max_assoc_priority)
		f.n_assoc = clamp01((double)j->assoc_priority / c->max_assoc_priority);
	f.age = f.n_age * c->w_age;
	f.fairshare = f.n_fairshare * c->w_fairshare;
	f.jobsize = f.n_jobsize * c->w_jobsize;
	f.partition = f.n_partition * c->w_partition;
	f.qos = f.n_qos * c->w_qos;
	f.assoc = f.n_assoc * c->w_assoc;
	double tres = 0;
	if (c->parts && j->part < c->nparts) {
		const sched_part_t *pt = &c->parts[j->part];
		double mn = j->min_nodes ? j->min_nodes : 1, cpus = job_cpus(j);
		double req[SCHED_PRIO_MAX_TRES] = { 0 }, tot[SCHED_PRIO_MAX_TRES] = { 0 };
		req[SCHED_TRES_CPU] = cpus;
		req[SCHED_TRES_NODE] = mn;
		req[SCHED_TRES_MEM] = j->mem_per_node ? (double)j->mem_per_node * mn
				    : (double)j->mem_per_cpu * cpus;
		req[SCHED_TRES_GPU] = j->gpus_per_job ? j->gpus_per_job
				    : (double)j->gpus_per_node * mn;
		tot[SCHED_TRES_CPU] = pt->total_cpus;
		tot[SCHED_TRES_NODE] = pt->total_nodes;
		tot[SCHED_TRES_MEM] = (double)pt->total_mem;
		tot[SCHED_TRES_GPU] = pt->total_gpus;
		for (int i = 0; i < SCHED_PRIO_MAX_TRES; i++) {
			if (!c->w_tres[i] || tot[i] <= 0)
				continue;
			f.n_tres[i] = clamp01(req[i] / tot[i]);
			f.tres[i] = f.n_tres[i] * c->w_tres[i];
			tres += f.tres[i];
		}
	}
	f.site = j->site_factor;
	f.nice = j->nice;
	double p = (double)f.site + f.age + f.fairshare + f.jobsize + f.partition + f.qos +
		   f.assoc + tres - (double)j->nice;
	if (p < 1)
		p = 1;
	if (p > 4294967294.0)
		p = 4294967294.0;
	f.priority = (uint32_t)p;
	if (out)
		*out = f;
	return f.priority;
}

void sched_prio_parse_tres(sched_prio_conf_t *c, const char *weights)
{
	for (int i = 0; i < SCHED_PRIO_MAX_TRES; i++)
		c->w_tres[i] = 0;
	if (!weights)
		return;
	char *dup = strdup(weights), *save = NULL;
	if (!dup)
		return;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = 0;
		double w = strtod(eq + 1, NULL);
		if (!strcasecmp(tok, "cpu"))
			c->w_tres[SCHED_TRES_CPU] = w;
		else if (!strcasecmp(tok, "mem"))
			c->w_tres[SCHED_TRES_MEM] = w;
		else if (!strcasecmp(tok, "node"))
			c->w_tres[SCHED_TRES_NODE] = w;
		else if (!strncasecmp(tok, "gres/gpu", 8))
			c->w_tres[SCHED_TRES_GPU] = w;
	}
	free(dup);
}

/* ---- SchedulerParameters ---- */

void sched_params_init(sched_params_t *p)
{
	memset(p, 0, sizeof(*p));
	p->backfill = 1;
	p->bf_window = 1440;
	p->bf_resolution = 60;
	p->bf_max_job_test = 500;
	p->bf_max_job_user = 0;
	p->default_queue_depth = 100;
	p->bf_interval = 30;
	p->cr_unit = SCHED_CR_CORE;
}

void sched_params_parse(sched_params_t *p, const char *scheduler_type,
			const char *scheduler_parameters)
{
	sched_params_init(p);
	if (scheduler_type && !strstr(scheduler_type, "backfill"))
		p->backfill = 0;
	if (!scheduler_parameters)
		return;
	char *dup = strdup(scheduler_parameters), *save = NULL;
	if (!dup)
		return;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		unsigned long v = eq ? strtoul(eq + 1, NULL, 10) : 0;
		if (eq)
			*eq = 0;
		if (!strcasecmp(tok, "bf_window") && eq && v)
			p->bf_window = (uint32_t)v;
		else if (!strcasecmp(tok, "bf_resolution") && eq && v)
			p->bf_resolution = (uint32_t)v;
		else if (!strcasecmp(tok, "bf_max_job_test") && eq && v)
			p->bf_max_job_test = (uint32_t)v;
		else if (!strcasecmp(tok, "bf_max_job_user") && eq)
			p->bf_max_job_user = (uint32_t)v;
		else if (!strcasecmp(tok, "bf_continue"))
			p->bf_continue = 1;
		else if (!strcasecmp(tok, "default_queue_depth") && eq && v)
			p->default_queue_depth = (uint32_t)v;
		else if (!strcasecmp(tok, "bf_interval") && eq && !strcmp(eq + 1, "-1"))
			p->backfill = 0;   /* as Slurm: -1 disables the backfill loop */
		else if (!strcasecmp(tok, "bf_interval") && eq && v)
			p->bf_interval = (uint32_t)v;
	}
	free(dup);
}

/* ---- SelectTypeParameters ---- */

void sched_params_select(sched_params_t *p, const char *stp)
{
	p->mem_not_consumed = 0;
	p->cr_unit = SCHED_CR_CORE;
	p->one_task_per_core = 0;
	if (!stp || !*stp)
		return;
	char *dup = strdup(stp), *save = NULL;
	if (!dup)
		return;
	int mem = 0, seen = 0;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strncasecmp(tok, "CR_CPU", 6)) {
			p->cr_unit = SCHED_CR_CPU;
			seen = 1;
			mem = !strcasecmp(tok, "CR_CPU_Memory");
		} else if (!strncasecmp(tok, "CR_Core", 7) && strncasecmp(tok, "CR_CORE_DEFAULT", 15)) {
			p->cr_unit = SCHED_CR_CORE;
			seen = 1;
			mem = !strcasecmp(tok, "CR_Core_Memory");
		} else if (!strncasecmp(tok, "CR_Socket", 9)) {
			p->cr_unit = SCHED_CR_SOCKET;
			seen = 1;
			mem = !strcasecmp(tok, "CR_Socket_Memory");
		} else if (!strcasecmp(tok, "CR_Memory")) {
			seen = 1;
			mem = 1;
		} else if (!strcasecmp(tok, "CR_ONE_TASK_PER_CORE")) {
			p->one_task_per_core = 1;
		}
	}
	if (seen)
		p->mem_not_consumed = !mem;
	free(dup);
}

uint32_t sched_cpu_unit(const sched_params_t *p, uint32_t cores_per_socket,
			uint32_t threads_per_core)
{
	uint32_t tpc = threads_per_core ? threads_per_core : 1;
	/* CR_CPU too: slurm.conf(5) says a node described with cores and
	 * threads never gets two jobs on one core. */
	if (p->cr_unit == SCHED_CR_SOCKET)
		return (cores_per_socket ? cores_per_socket : 1) * tpc;
	return tpc;
}
