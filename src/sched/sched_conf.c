/*
 * sched_conf.c: the core's state from slurm.conf, gres.conf and
 * topology.conf as the config loader read them (sched.h, "From the
 * config"): nodes with their GPUs, CPU units and GPU-core affinity, the
 * switch tree, partitions, and the scheduler and priority parameters. The
 * controller (sched_glue.c) and the simulator build their sched_t with
 * the same functions, so both schedule the same cluster.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "sched/sched.h"
#include "timefmt.h"
#include "xalloc.h"

/* Parse a Cores= list ("0-15,32-47") of core indexes into CPU bits
 * (core c = CPUs c*tpc .. c*tpc+tpc-1), clipped to the node's CPUs. */
static void cores_parse(const char *spec, uint32_t tpc, uint32_t cpus, uint64_t *bits)
{
	const char *p = spec;
	while (p && *p) {
		while (*p == '[' || *p == ']' || *p == ',')
			p++;
		if (*p < '0' || *p > '9')
			break;
		char *e;
		unsigned long a = strtoul(p, &e, 10), b = a;
		if (*e == '-')
			b = strtoul(e + 1, &e, 10);
		for (unsigned long c = a; c <= b && c * tpc < cpus; c++)
			for (uint32_t t = 0; t < tpc && c * tpc + t < cpus; t++)
				bits[(c * tpc + t) / 64] |= 1ull << ((c * tpc + t) % 64);
		p = e;
	}
}

/* CPU id tracking for a node, and each GPU's close CPUs from the
 * gres.conf Cores= of the line that declared it (none: no affinity). */
static void node_cores_init(const conf_node_t *cf, sched_node_t *sn)
{
	if (!sn->cpus)
		return;
	uint32_t W = (sn->cpus + 63) / 64;
	uint32_t tpc = cf->threads_per_core ? cf->threads_per_core : 1;
	sn->core_words = W;
	sn->cores_used = xcalloc(W, sizeof(uint64_t));
	sn->cpu_share = xcalloc(sn->cpus, 1);
	uint64_t *gc = NULL;
	uint32_t gi = 0;
	for (size_t g = 0; g < cf->ngres; g++) {
		const conf_gres_t *cg = &cf->gres[g];
		if (strcmp(cg->name, "gpu"))
			continue;
		uint32_t dev = gi;
		for (size_t l = 0; l < cg->nlines; l++) {
			uint32_t cnt = cg->line_count[l];
			if (cg->line_cores[l] && sn->ngpus) {
				if (!gc)
					gc = xcalloc((size_t)sn->ngpus * W, sizeof(uint64_t));
				for (uint32_t d = dev; d < dev + cnt && d < gi + cg->count && d < sn->ngpus; d++)
					cores_parse(cg->line_cores[l], tpc, sn->cpus, gc + (size_t)d * W);
			}
			dev += cnt;
		}
		gi += cg->count;
	}
	sn->gpu_cores = gc;
}

int sched_part_oversubscribe(const char *v, uint32_t *max)
{
	*max = 1;
	if (!v)
		return SCHED_OS_NO;
	if (!strncasecmp(v, "EXCLUSIVE", 9))
		return SCHED_OS_EXCLUSIVE;
	int yes = !strncasecmp(v, "YES", 3), frc = !strncasecmp(v, "FORCE", 5);
	if (!yes && !frc)
		return SCHED_OS_NO;
	const char *colon = strchr(v, ':');
	unsigned long n = colon ? strtoul(colon + 1, NULL, 10) : 4;
	*max = n < 1 ? 1 : n > 255 ? 255 : (uint32_t)n;
	return frc ? SCHED_OS_FORCE : SCHED_OS_YES;
}

void sched_build_conf(sched_t *s, const conf_t *conf)
{
	s->nnodes = (uint32_t)conf->nnodes;
	s->nodes = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(sched_node_t));
	/* leaf switch index per node */
	int *leaf = xmalloc((s->nnodes ? s->nnodes : 1) * sizeof(int));
	for (uint32_t i = 0; i < s->nnodes; i++)
		leaf[i] = -1;
	int nleaf = 0;
	/* Switch numbering for the core: leaves first (their leaf index),
	 * then the switches above them, each in topology.conf order. */
	int32_t *sw_idx = xmalloc((conf->nswitches ? conf->nswitches : 1) * sizeof(int32_t));
	for (size_t w = 0; w < conf->nswitches; w++) {
		const conf_switch_t *sw = &conf->switches[w];
		sw_idx[w] = -1;
		if (sw->level != 0)
			continue;
		for (size_t k = 0; k < sw->nnodes; k++)
			if (sw->node_idx[k] < s->nnodes && leaf[sw->node_idx[k]] < 0)
				leaf[sw->node_idx[k]] = nleaf;
		sw_idx[w] = nleaf++;
	}
	uint32_t nsw = (uint32_t)nleaf;
	for (size_t w = 0; w < conf->nswitches; w++)
		if (conf->switches[w].level != 0)
			sw_idx[w] = (int32_t)nsw++;
	if (nsw > (uint32_t)nleaf) {
		int32_t *par = xmalloc(nsw * sizeof(int32_t));
		uint32_t *lvl = xmalloc(nsw * sizeof(uint32_t));
		for (size_t w = 0; w < conf->nswitches; w++) {
			const conf_switch_t *sw = &conf->switches[w];
			par[sw_idx[w]] = sw->parent >= 0 && (size_t)sw->parent < conf->nswitches ?
				sw_idx[sw->parent] : -1;
			lvl[sw_idx[w]] = (uint32_t)sw->level;
		}
		s->nswitches = nsw;
		s->sw_parent = par;
		s->sw_level = lvl;
	}
	free(sw_idx);
	sched_params_t sel;       /* SelectTypeParameters: the CPU unit */
	sched_params_init(&sel);
	sched_params_select(&sel, conf->select_type_parameters);
	for (uint32_t i = 0; i < s->nnodes; i++) {
		const conf_node_t *cf = &conf->nodes[i];
		sched_node_t *sn = &s->nodes[i];
		sn->name = cf->name;
		sn->cpu_unit = sched_cpu_unit(&sel, cf->cores_per_socket, cf->threads_per_core);
		sn->cpus = cf->cpus;
		sn->mem = cf->real_memory;
		sn->weight = cf->weight;
		sn->features = cf->features;
		sn->tmp_disk = cf->tmp_disk;
		sn->leaf = leaf[i];
		uint32_t first = 0;
		for (size_t g = 0; g < cf->ngres && sn->ngpu_types < SCHED_MAX_GRES_TYPES; g++) {
			if (strcmp(cf->gres[g].name, "gpu"))
				continue;
			sched_gpu_type_t *t = &sn->gpu_types[sn->ngpu_types++];
			snprintf(t->type, sizeof(t->type), "%s", cf->gres[g].type ? cf->gres[g].type : "");
			t->first = first;
			t->count = cf->gres[g].count;
			first += t->count;
		}
		sn->ngpus = first > SCHED_MAX_GPUS ? SCHED_MAX_GPUS : first;
		node_cores_init(cf, sn);
	}
	free(leaf);
	s->nparts = (uint32_t)conf->nparts;
	s->parts = xcalloc(s->nparts ? s->nparts : 1, sizeof(sched_part_t));
	for (uint32_t p = 0; p < s->nparts; p++) {
		const conf_part_t *cf = &conf->parts[p];
		sched_part_t *sp = &s->parts[p];
		sp->name = cf->name;
		sp->nnodes = (uint32_t)cf->nnodes;
		sp->nodes = xmalloc((cf->nnodes ? cf->nnodes : 1) * sizeof(uint32_t));
		for (size_t k = 0; k < cf->nnodes; k++)
			sp->nodes[k] = (uint32_t)cf->node_idx[k];
		sp->priority_tier = cf->priority_tier;
		sp->priority_job_factor = cf->priority_job_factor;
		sp->def_mem_per_cpu = cf->def_mem_per_cpu ? cf->def_mem_per_cpu : conf->def_mem_per_cpu;
		sp->force_share = sched_part_oversubscribe(cf->oversubscribe, &sp->max_share) == SCHED_OS_FORCE;
	}
	sched_totals(s);
	sched_load_conf(s, conf);
}

void sched_load_conf(sched_t *s, const conf_t *conf)
{
	sched_params_parse(&s->params, conf->scheduler_type, conf->scheduler_parameters);
	sched_params_select(&s->params, conf->select_type_parameters);
	const char *v = conf_get(conf, "TopologyParam");
	s->params.topo_optional = v && strcasestr(v, "TopoOptional") != NULL;
	sched_prio_conf_t *pc = &s->prio;
	memset(pc, 0, sizeof(*pc));
	pc->multifactor = conf->priority_type && strstr(conf->priority_type, "multifactor") != NULL;
#define W(field, key) pc->field = (v = conf_get(conf, key)) ? (uint32_t)strtoul(v, NULL, 10) : 0
	W(w_age, "PriorityWeightAge");
	W(w_assoc, "PriorityWeightAssoc");
	W(w_fairshare, "PriorityWeightFairshare");
	W(w_jobsize, "PriorityWeightJobSize");
	W(w_partition, "PriorityWeightPartition");
	W(w_qos, "PriorityWeightQOS");
#undef W
	sched_prio_parse_tres(pc, conf_get(conf, "PriorityWeightTRES"));
	uint32_t mins = 7 * 24 * 60;
	if ((v = conf_get(conf, "PriorityMaxAge")))
		time_limit_parse(v, &mins);
	pc->max_age = mins == TIME_INFINITE ? 0 : mins * 60;
	v = conf_get(conf, "PriorityFavorSmall");
	pc->favor_small = v && (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"));
	if ((v = conf_get(conf, "PriorityFlags"))) {
		if (strcasestr(v, "SMALL_RELATIVE_TO_TIME"))
			pc->flags |= SCHED_PRIO_F_SMALL_RELATIVE_TO_TIME;
		if (strcasestr(v, "ACCRUE_ALWAYS"))
			pc->flags |= SCHED_PRIO_F_ACCRUE_ALWAYS;
		if (strcasestr(v, "NO_NORMAL_PART"))
			pc->flags |= SCHED_PRIO_F_NO_NORMAL_PART;
	}
	pc->cluster_nodes = s->nnodes;
	pc->cluster_cpus = 0;
	for (uint32_t i = 0; i < s->nnodes; i++)
		pc->cluster_cpus += s->nodes[i].cpus;
	pc->parts = s->parts;
	pc->nparts = s->nparts;
}

void sched_free_conf(sched_t *s)
{
	for (uint32_t p = 0; p < s->nparts; p++)
		free(s->parts[p].nodes);
	free(s->parts);
	for (uint32_t i = 0; i < s->nnodes; i++) {
		free(s->nodes[i].cores_used);
		free(s->nodes[i].cpu_share);
		free((void *)s->nodes[i].gpu_cores);
	}
	free(s->nodes);
	free((void *)s->sw_parent);
	free((void *)s->sw_level);
}
