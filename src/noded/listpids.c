/*
 * listpids: scontrol listpids, answered by the node daemon on its step port
 * (MSG_LIST_PIDS_REQ -> MSG_LIST_PIDS). What a step's processes are comes
 * from what its supervisor recorded in the spool (<dir>/tasks: each task's
 * process group, which it leads as its own session, with its start time,
 * global rank and local id): the task leaders are listed with their ids,
 * then every other process of their groups and sessions (what the tasks
 * started) with "-", as Slurm lists a step's other processes. A recorded
 * pid whose start time changed is another process now and is left out.
 *
 * Order: by job, then extern, batch and the numbered steps, then task
 * leaders by local id and the others by pid. Any user may ask (Slurm's
 * stepd sockets let anyone list; /proc shows the same pids).
 * Cost: one spool scan and one /proc scan per request.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "fileio.h"
#include "jobid.h"
#include "noded.h"
#include "xalloc.h"

typedef struct grp {
	uint32_t job_id, step_id;
	pid_t pg;
	uint32_t rank, local;
} grp_t;

typedef struct lp_ctx {
	const msg_list_pids_req_t *m;
	grp_t *g;
	size_t ng, ag;
	int matched;
} lp_ctx_t;

/* Sort key of a step id: extern, batch, then 0, 1, ... */
static uint64_t step_key(uint32_t step_id)
{
	if (step_id == STEP_EXTERN)
		return 0;
	if (step_id == STEP_BATCH)
		return 1;
	return (uint64_t)step_id + 2;
}

static void take_dir(const char *dir, const spool_rec_t *r, void *arg)
{
	lp_ctx_t *x = arg;
	if (!r || r->done || !spool_rec_alive(r))
		return;
	if (x->m->job_id && r->job_id != x->m->job_id)
		return;
	if (x->m->step_id != NO_VAL32 && r->step_id != x->m->step_id)
		return;
	x->matched = 1;
	char *path = xasprintf("%s/tasks", dir);
	char *text = file_read_small(path, 1 << 20);
	free(path);
	uint32_t idx = 0;
	for (char *save = NULL, *l = text ? strtok_r(text, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save), idx++) {
		int pg;
		unsigned long long start;
		unsigned rank, local;
		int n = sscanf(l, "%d %llu %u %u", &pg, &start, &rank, &local);
		if (n < 2 || pg <= 1)
			continue;
		if (n < 4)          /* an older record: ranks in order */
			rank = local = idx;
		if (proc_start_time((pid_t)pg) != (uint64_t)start)
			continue;    /* gone, or another process now */
		x->g = xgrow(x->g, sizeof(*x->g), x->ng + 1, &x->ag);
		x->g[x->ng++] = (grp_t){ r->job_id, r->step_id, (pid_t)pg, rank, local };
	}
	free(text);
}

typedef struct row {
	list_pid_t p;
	uint64_t key;      /* step order */
	int task;          /* a task leader (listed first) */
} row_t;

static int row_cmp(const void *a, const void *b)
{
	const row_t *x = a, *y = b;
	if (x->p.job_id != y->p.job_id)
		return x->p.job_id < y->p.job_id ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->task != y->task)
		return x->task ? -1 : 1;
	if (x->task && x->p.local_id != y->p.local_id)
		return x->p.local_id < y->p.local_id ? -1 : 1;
	return x->p.pid < y->p.pid ? -1 : x->p.pid > y->p.pid;
}

void listpids_answer(noded_t *nd, conn_t *c, const msg_list_pids_req_t *m)
{
	lp_ctx_t x = { .m = m };
	spool_scan(nd->spool, take_dir, &x);
	row_t *rows = NULL;
	size_t nrows = 0, arows = 0;
	for (size_t i = 0; i < x.ng; i++) {
		rows = xgrow(rows, sizeof(*rows), nrows + 1, &arows);
		rows[nrows++] = (row_t){ { (uint32_t)x.g[i].pg, x.g[i].job_id, x.g[i].step_id,
					   x.g[i].local, x.g[i].rank },
					 step_key(x.g[i].step_id), 1 };
	}
	DIR *d = x.ng ? opendir("/proc") : NULL;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		pid_t pgrp, sid;
		if (*end || pid <= 1 || proc_pgrp_sid((pid_t)pid, &pgrp, &sid) < 0)
			continue;
		for (size_t i = 0; i < x.ng; i++) {
			if ((pid_t)pid == x.g[i].pg || (pgrp != x.g[i].pg && sid != x.g[i].pg))
				continue;
			rows = xgrow(rows, sizeof(*rows), nrows + 1, &arows);
			rows[nrows++] = (row_t){ { (uint32_t)pid, x.g[i].job_id, x.g[i].step_id,
						   NO_VAL32, NO_VAL32 },
						 step_key(x.g[i].step_id), 0 };
			break;
		}
	}
	if (d)
		closedir(d);
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), row_cmp);
	msg_list_pids_t r = { .rc = x.matched ? 0 : ESLURM_INVALID_JOB_ID, .node = nd->name,
			      .npids = (uint32_t)nrows };
	r.pids = xcalloc(nrows + 1, sizeof(*r.pids));
	for (size_t i = 0; i < nrows; i++)
		r.pids[i] = rows[i].p;
	conn_send(c, MSG_LIST_PIDS, &r);
	free(r.pids);
	free(rows);
	free(x.g);
}
