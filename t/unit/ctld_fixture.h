/*
 * ctld_fixture.h: a controller's state built in memory, without a loop or
 * sockets: slurm.conf generated for N nodes (8 CPUs, 32 GB, 8 h100 each) in
 * two partitions, then jobs added as recovery adds them. Used by
 * test_metrics and bench/metrics_scrape.c (10,000 nodes, 100,000 jobs).
 */
#ifndef SLUICE_CTLD_FIXTURE_H
#define SLUICE_CTLD_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctld/ctld.h"
#include "states.h"
#include "xalloc.h"

/* The controller's state is never freed (as in ctld_main.c): kept
 * reachable here so that leak checks report only what is truly lost. */
static ctld_t *volatile fixture_keep;

/* A config for nnodes nodes in dir (created), plus the lines of extra
 * (or NULL); returns the ctld. */
static ctld_t *fixture_ctld(const char *dir, uint32_t nnodes, const char *extra)
{
	char *p = xasprintf("%s/slurm.conf", dir);
	FILE *f = fopen(p, "w");
	fprintf(f, "ClusterName=fix\nSlurmctldHost=localhost\nStateSaveLocation=%s\n"
		"SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nGresTypes=gpu\n"
		"AuthType=auth/slurm\n"
		"NodeName=DEFAULT CPUs=8 Boards=1 SocketsPerBoard=1 CoresPerSocket=8 ThreadsPerCore=1 "
		"RealMemory=32768 Gres=gpu:h100:8\n"
		"NodeName=n[%05u-%05u]\n"
		"PartitionName=defq Nodes=n[%05u-%05u] Default=YES MaxTime=INFINITE State=UP\n"
		"PartitionName=short Nodes=n[%05u-%05u] MaxTime=1:00:00 State=UP\n",
		dir, 1u, nnodes, 1u, nnodes, 1u, nnodes > 1 ? nnodes / 2 : 1u);
	if (extra)
		fputs(extra, f);
	fclose(f);
	char *g = xasprintf("%s/gres.conf", dir);
	f = fopen(g, "w");
	fprintf(f, "AutoDetect=off\nNodeName=n[%05u-%05u] Name=gpu Type=h100 Count=8\n", 1u, nnodes);
	fclose(f);
	conf_t *conf = conf_load(p, CONF_FULL);
	for (size_t i = 0; i < conf->nerrors; i++)
		fprintf(stderr, "fixture: %s\n", conf->errors[i]);
	free(p);
	free(g);
	ctld_t *cd = xcalloc(1, sizeof(*cd));
	fixture_keep = cd;
	cd->conf = conf;
	cd->turn_ops = &turn_undo_ops;   /* as ctld_main sets it */
	cd->boot_time = ctld_now();
	ctld_stats_init(cd);
	ctld_metrics_init(cd);
	nodes_init(cd);
	sched_glue_build(cd);
	for (uint32_t i = 0; i < cd->nnodes; i++) {
		cd->nodes[i].base = NODE_IDLE;
		node_sync_sched(cd, &cd->nodes[i]);
	}
	cd->next_job_id = 1;
	return cd;
}

/* Add a job of user uid/name, account acct, in partition part. Running
 * (state JOB_RUNNING) jobs hold cpus CPUs, 1 GB per CPU and the GPUs of
 * gpu_mask on node node_idx. */
static job_t *fixture_job(ctld_t *cd, uint32_t state, uint32_t uid, const char *user,
			  const char *acct, uint32_t part, uint32_t node_idx, uint32_t cpus,
			  uint64_t gpu_mask)
{
	job_t *j = xcalloc(1, sizeof(*j));
	j->job_id = cd->next_job_id++;
	j->state = state;
	j->user_id = uid;
	j->group_id = uid;
	j->part = part;
	j->submit_time = ctld_now() - 60;
	j->desc = xcalloc(1, sizeof(job_desc_t));
	j->desc->name = xstrdup("fix");
	j->desc->user_name = xstrdup(user);
	j->desc->account = acct ? xstrdup(acct) : NULL;
	j->desc->partition = xstrdup(cd->parts[part].cf->name);
	j->desc->min_nodes = 1;
	if ((state & JOB_STATE_BASE) == JOB_RUNNING) {
		sched_alloc_t *a = &j->alloc;
		a->nnodes = 1;
		a->nodes = xcalloc(1, sizeof(uint32_t));
		a->cpus = xcalloc(1, sizeof(uint32_t));
		a->mem = xcalloc(1, sizeof(uint64_t));
		a->gpus = xcalloc(1, sizeof(uint64_t));
		a->tasks = xcalloc(1, sizeof(uint32_t));
		a->nodes[0] = node_idx;
		a->cpus[0] = cpus;
		a->mem[0] = 1024ull * cpus;
		a->gpus[0] = gpu_mask;
		a->tasks[0] = 1;
		j->alloc_held = 1;
		j->start_time = ctld_now() - 30;
	} else if ((state & JOB_STATE_BASE) == JOB_PENDING) {
		j->reason = WAIT_RESOURCES;
	}
	job_add_recovered(cd, j);
	return j;
}

#endif
