/*
 * step_info: the live step view, one RPC (MSG_STEP_INFO_REQ) that squeue -s
 * and scontrol show step share. It lists, for each running (or suspended)
 * job, what Slurm 22.05 lists: the extern step (PrologFlags=Contain), the
 * batch step (batch jobs), then the srun steps still running (step_alloc.c
 * records), in that order; the commands filter, sort and format.
 *
 * The srun steps are memory only. After a controller restart they come
 * back from their acct_step rows (step_info_recover): a row with no end,
 * of a job still running since the row's run, whose nodes have not all
 * reported (nodes_done). Those rows are written in the same transaction
 * as the step create's reply, so every step srun was told about is there;
 * the nodes could only tell which steps run on them, not their names,
 * sizes or srun, and a step whose node is down would vanish. The columns
 * this view adds to acct_step (its own time limit, srun's host and pid)
 * come with migration step_info_migrate.
 *
 * Cost: one reply walks the jobs once and each running job's steps once.
 */
#include <string.h>
#include <strings.h>

#include "ctld/ctld.h"

#include "errors.h"
#include "hostlist.h"
#include "jobid.h"
#include "log.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

int step_info_migrate(sqlite3 *db, char **err)
{
	static const db_column_t added[] = {
		{ "acct_step", "time_limit", "INTEGER DEFAULT 0" },
		{ "acct_step", "srun_host", "TEXT" },
		{ "acct_step", "srun_pid", "INTEGER DEFAULT 0" },
	};
	return db_add_columns(db, added, sizeof(added) / sizeof(added[0]), err);
}

static step_info_t *xgrow_item(step_info_t **v, uint32_t *n, size_t *a)
{
	*v = xgrow(*v, sizeof(**v), (size_t)*n + 1, a);
	return &(*v)[(*n)++];
}

static int job_shows_steps(const job_t *j)
{
	uint32_t base = j->state & JOB_STATE_BASE;
	return (base == JOB_RUNNING || base == JOB_SUSPENDED) && j->alloc.nnodes;
}

/* The fields every step of j shares (strings borrowed). */
static void fill_common(ctld_t *cd, const job_t *j, step_info_t *s)
{
	memset(s, 0, sizeof(*s));
	s->job_id = j->job_id;
	s->array_task_id = NO_VAL32;
	if (j->array_job_id) {
		s->array_job_id = j->array_job_id;
		s->array_task_id = j->array_task_id;
	}
	s->user_id = j->user_id;
	s->user_name = j->desc->user_name;
	s->partition = cd->parts[j->part].cf->name;
	s->start_time = j->start_time;
	s->time_limit = TIME_INFINITE;
	s->state = JOB_RUNNING;
}

/* Append job j's steps to *v (strings borrowed from the records). */
static void add_job_steps(ctld_t *cd, job_t *j, int ext, step_info_t **v, uint32_t *n,
			  size_t *a)
{
	if (ext) {
		step_info_t *s = xgrow_item(v, n, a);
		fill_common(cd, j, s);
		s->step_id = STEP_EXTERN;
		s->name = "extern";
		s->nodes = j->nodes;
		s->num_nodes = j->alloc.nnodes;
		s->num_tasks = j->alloc.nnodes;
		s->tres_alloc = j->tres;
	}
	if (!(j->desc->flags & JOB_F_INTERACTIVE)) {
		step_info_t *s = xgrow_item(v, n, a);
		fill_common(cd, j, s);
		s->step_id = STEP_BATCH;
		s->name = "batch";
		s->nodes = cd->nodes[j->alloc.nodes[0]].cf->name;
		s->num_nodes = 1;
		s->num_tasks = 1;
	}
	uint32_t nh;
	const step_hold_t *h = step_alloc_list(j, &nh);
	/* created in id order, but completions reorder the array */
	size_t first = *n;
	for (uint32_t i = 0; i < nh; i++) {
		step_info_t *s = xgrow_item(v, n, a);
		fill_common(cd, j, s);
		s->step_id = h[i].step_id;
		s->name = h[i].name ? h[i].name : "";
		s->nodes = h[i].nodes;
		s->num_nodes = h[i].nnodes;
		s->num_tasks = h[i].ntasks;
		s->num_cpus = h[i].ncpus;
		s->tres_alloc = h[i].tres;
		s->srun_host = h[i].srun_host;
		s->srun_pid = h[i].srun_pid;
		if (h[i].start)
			s->start_time = h[i].start;
		if (h[i].time_limit)
			s->time_limit = h[i].time_limit;
		/* Slurm's default: cyclic when a node gets at most one task */
		s->dist = h[i].ntasks <= h[i].nnodes ? STEP_DIST_CYCLIC : STEP_DIST_BLOCK;
	}
	for (size_t i = first + 1; i < *n; i++)   /* insertion sort: few steps */
		for (size_t k = i; k > first && (*v)[k - 1].step_id > (*v)[k].step_id; k--) {
			step_info_t t = (*v)[k];
			(*v)[k] = (*v)[k - 1];
			(*v)[k - 1] = t;
		}
}

void step_info_reply(ctld_t *cd, conn_t *c, const msg_info_req_t *req)
{
	msg_step_info_t m = { .last_update = cd->last_job_update };
	size_t a = 0;
	int ext = conf_prolog_contain(cd->conf);
	if (req->job_id) {
		job_t *j = job_find(cd, req->job_id);
		if (!j) {
			conn_send_rc(c, ESLURM_INVALID_JOB_ID, slurm_strerror(ESLURM_INVALID_JOB_ID));
			return;
		}
		if (job_shows_steps(j))
			add_job_steps(cd, j, ext, &m.steps, &m.nsteps, &a);
	} else {
		for (size_t i = 0; i < cd->njobs; i++)
			if (job_shows_steps(cd->jobs[i]))
				add_job_steps(cd, cd->jobs[i], ext, &m.steps, &m.nsteps, &a);
	}
	conn_send(c, MSG_STEP_INFO, &m);
	free(m.steps);          /* strings were borrowed */
}

/* The allocation indexes of a step's nodes (its ranged list, nn of
 * them), malloc'd; NULL when they are not the job's. */
static uint32_t *step_node_indexes(ctld_t *cd, const job_t *j, const char *nodes, uint32_t nn)
{
	hostlist_t *hl = nodes ? hostlist_create_max(nodes, j->alloc.nnodes, NULL) : NULL;
	if (!hl || !nn || hostlist_count(hl) != nn) {
		hostlist_destroy(hl);
		return NULL;
	}
	uint32_t *idx = xcalloc(nn, sizeof(uint32_t));
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t x = 0;
		while (x < j->alloc.nnodes &&
		       strcmp(cd->nodes[j->alloc.nodes[x]].cf->name, hostlist_nth(hl, i)))
			x++;
		if (x == j->alloc.nnodes) {
			free(idx);
			idx = NULL;
			break;
		}
		idx[i] = x;
	}
	hostlist_destroy(hl);
	return idx;
}

void step_info_recover(ctld_t *cd)
{
	sqlite3_stmt *st = NULL;
	const char *sql = "SELECT job_id, step_id, name, start, nodelist, nnodes, ntasks,"
		" alloc_cpus, alloc_tres, nodes_done, time_limit, srun_host, srun_pid"
		" FROM acct_step WHERE end=0 AND step_id<?1";
	if (sqlite3_prepare_v2(cd->db, sql, -1, &st, NULL) != SQLITE_OK) {
		error("recovery: cannot read the running steps: %s", sqlite3_errmsg(cd->db));
		return;
	}
	sqlite3_bind_int64(st, 1, STEP_BATCH - 1);   /* srun steps only */
	size_t n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		job_t *j = job_find(cd, (uint32_t)sqlite3_column_int64(st, 0));
		int64_t start = sqlite3_column_int64(st, 3);
		/* a row of an earlier run of a requeued job is not this run's */
		if (!j || !job_shows_steps(j) || start < j->start_time)
			continue;
		step_desc_t d = {
			.name = (const char *)sqlite3_column_text(st, 2),
			.start = start,
			.nodes = (const char *)sqlite3_column_text(st, 4),
			.ntasks = (uint32_t)sqlite3_column_int64(st, 6),
			.ncpus = (uint32_t)sqlite3_column_int64(st, 7),
			.tres = (const char *)sqlite3_column_text(st, 8),
			.time_limit = (uint32_t)sqlite3_column_int64(st, 10),
			.srun_host = (const char *)sqlite3_column_text(st, 11),
			.srun_pid = (uint32_t)sqlite3_column_int64(st, 12),
		};
		uint32_t step_id = (uint32_t)sqlite3_column_int64(st, 1);
		uint32_t nn = (uint32_t)sqlite3_column_int64(st, 5);
		uint32_t *idx = step_node_indexes(cd, j, d.nodes, nn);
		if (idx)
			step_alloc_recover(j, step_id, nn, idx, sqlite3_column_blob(st, 9),
					   (size_t)sqlite3_column_bytes(st, 9), &d);
		free(idx);
		n++;
	}
	sqlite3_finalize(st);
	if (n)
		info("recovered %zu running step%s", n, n == 1 ? "" : "s");
}
