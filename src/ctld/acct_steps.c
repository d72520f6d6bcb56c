/*
 * acct_steps.c: the step records (acct_step, see the table contract in
 * docs/accounting.md): the batch step N.batch, the extern step N.extern
 * (PrologFlags=Contain) and every srun step N.0, N.1, ...
 *
 * A row is written when the step starts (state RUNNING, end 0): at the
 * job's start for batch and extern, at MSG_STEP_CREATE for srun steps.
 * Each node of a step reports its share at the end (MSG_STEP_COMPLETE from
 * the step's supervisor, with the resource use gathered there, retried
 * until answered); the reports are merged into the row: sums add, maxima
 * keep their node and task, averages are sums over the tasks reported
 * (kept exact in the sum_* columns), the most severe state wins. A bitmap
 * of the nodes that reported (nodes_done) makes a repeated report (a
 * retry after a controller crash) harmless. When every node reported the
 * row gets its end, state and exit code. When the job ends, the rows of
 * its steps still open are closed with the job (a node that died, a
 * report that never came: nothing stays RUNNING); a report that arrives
 * later still merges in.
 *
 * Durability: none of this is written at once. Each change is queued
 * (struct step_op) and applied inside the loop turn's transaction from
 * db_commit (acct_steps_commit), so it commits with the job state change
 * it belongs to and before any reply of the turn goes out. The queue is
 * dropped only once the commit succeeded; after a rolled back commit it
 * is applied again (a merge reads the row inside the transaction, so a
 * redo starts from what is really stored). A node's report is answered
 * only after its commit, so a controller crash loses no report: the node
 * sends it again.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/ctld.h"

#include "errors.h"
#include "log.h"
#include "states.h"
#include "step_usage.h"
#include "strbuf.h"
#include "xalloc.h"

/* Slurm's step ids of the batch and extern steps. */
#define STEP_BATCH  0xfffffffbu
#define STEP_EXTERN 0xfffffffcu
/* The most nodes a step report may claim (bounds the nodes_done bitmap). */
#define STEP_MAX_NODES (1u << 20)

static const char *ddl =
	"CREATE TABLE IF NOT EXISTS acct_step(job_id INTEGER NOT NULL, step_id INTEGER NOT NULL,"
	" name TEXT, state INTEGER, exit_code INTEGER, start INTEGER, end INTEGER,"
	" suspended INTEGER, nodelist TEXT, nnodes INTEGER, ntasks INTEGER, alloc_cpus INTEGER,"
	" alloc_tres TEXT, req_cpufreq TEXT, user_cpu_us INTEGER, sys_cpu_us INTEGER,"
	" max_rss_kb INTEGER, max_rss_node TEXT, max_rss_task INTEGER, ave_rss_kb INTEGER,"
	" max_vmsize_kb INTEGER, max_vmsize_node TEXT, max_vmsize_task INTEGER,"
	" ave_vmsize_kb INTEGER, max_pages INTEGER, max_pages_node TEXT, max_pages_task INTEGER,"
	" ave_pages INTEGER, min_cpu_s INTEGER, min_cpu_node TEXT, min_cpu_task INTEGER,"
	" ave_cpu_s INTEGER, max_disk_read INTEGER, max_disk_read_node TEXT,"
	" max_disk_read_task INTEGER, ave_disk_read INTEGER, max_disk_write INTEGER,"
	" max_disk_write_node TEXT, max_disk_write_task INTEGER, ave_disk_write INTEGER,"
	" tres_usage_in_max TEXT, tres_usage_in_ave TEXT, tres_usage_out_max TEXT,"
	" tres_usage_out_ave TEXT,"
	/* added by a2 (not in the shared contract): the merge state */
	" nodes_done BLOB, tasks_done INTEGER DEFAULT 0, done_state INTEGER DEFAULT 0,"
	" done_exit INTEGER DEFAULT 0, gathered INTEGER DEFAULT 0, min_cpu_us INTEGER,"
	" sum_rss_kb INTEGER, sum_vmsize_kb INTEGER, sum_pages INTEGER, sum_cpu_us INTEGER,"
	" sum_disk_read INTEGER, sum_disk_write INTEGER,"
	" PRIMARY KEY(job_id, step_id));";

enum { OP_START = 1, OP_REPORT, OP_JOB_END };

typedef struct step_op {
	int kind;
	uint32_t job_id, step_id;
	/* OP_START */
	char *name, *nodelist, *tres;
	uint32_t nnodes, ntasks, cpus;
	int64_t time;
	uint32_t time_limit, srun_pid;   /* acct_step_launch_info */
	char *srun_host;
	/* OP_JOB_END */
	uint32_t state, exit_status;
	/* OP_REPORT */
	msg_step_complete_t rep;   /* rep.node owned */
} step_op_t;

struct acct_steps {
	step_op_t *ops;
	size_t nops, aops;
	sqlite3_stmt *ins, *get, *put, *open_of_job, *close_one;
};

int acct_steps_migrate(sqlite3 *db, char **err)
{
	return db_exec(db, ddl, err);
}

int acct_steps_db_init(ctld_t *cd, char **err)
{
	struct acct_steps *s = cd->steps ? cd->steps : xcalloc(1, sizeof(*s));
	cd->steps = s;
	static const char *sql[] = {
		"INSERT OR REPLACE INTO acct_step(job_id, step_id, name, state, exit_code, start, end,"
		" suspended, nodelist, nnodes, ntasks, alloc_cpus, alloc_tres, req_cpufreq, tasks_done,"
		" time_limit, srun_host, srun_pid)"
		" VALUES(?1,?2,?3,?4,0,?5,0,0,?6,?7,?8,?9,?10,?11,0,?12,?13,?14)",
		"SELECT state, exit_code, end, nnodes, nodes_done, tasks_done, done_state, done_exit,"
		" user_cpu_us, sys_cpu_us, max_rss_kb, max_rss_node, max_rss_task, max_vmsize_kb,"
		" max_vmsize_node, max_vmsize_task, max_pages, max_pages_node, max_pages_task,"
		" min_cpu_us, min_cpu_node, min_cpu_task, max_disk_read, max_disk_read_node,"
		" max_disk_read_task, max_disk_write, max_disk_write_node, max_disk_write_task,"
		" sum_rss_kb, sum_vmsize_kb, sum_pages, sum_cpu_us, sum_disk_read, sum_disk_write,"
		" gathered FROM acct_step WHERE job_id=?1 AND step_id=?2",
		"UPDATE acct_step SET state=?3, exit_code=?4, end=?5, nodes_done=?6, tasks_done=?7,"
		" done_state=?8, done_exit=?9, user_cpu_us=?10, sys_cpu_us=?11, max_rss_kb=?12,"
		" max_rss_node=?13, max_rss_task=?14, ave_rss_kb=?15, max_vmsize_kb=?16,"
		" max_vmsize_node=?17, max_vmsize_task=?18, ave_vmsize_kb=?19, max_pages=?20,"
		" max_pages_node=?21, max_pages_task=?22, ave_pages=?23, min_cpu_s=?24,"
		" min_cpu_node=?25, min_cpu_task=?26, ave_cpu_s=?27, max_disk_read=?28,"
		" max_disk_read_node=?29, max_disk_read_task=?30, ave_disk_read=?31,"
		" max_disk_write=?32, max_disk_write_node=?33, max_disk_write_task=?34,"
		" ave_disk_write=?35, min_cpu_us=?36, sum_rss_kb=?37, sum_vmsize_kb=?38,"
		" sum_pages=?39, sum_cpu_us=?40, sum_disk_read=?41, sum_disk_write=?42,"
		" gathered=?43, tres_usage_in_max=?44, tres_usage_in_ave=?45,"
		" tres_usage_out_max=?46, tres_usage_out_ave=?47 WHERE job_id=?1 AND step_id=?2",
		"SELECT step_id, tasks_done, done_state, done_exit, nnodes FROM acct_step"
		" WHERE job_id=?1 AND end=0",
		"UPDATE acct_step SET state=?3, exit_code=?4, end=?5 WHERE job_id=?1 AND step_id=?2",
	};
	sqlite3_stmt **st[] = { &s->ins, &s->get, &s->put, &s->open_of_job, &s->close_one };
	for (size_t i = 0; i < ARRAY_SIZE(sql); i++) {
		sqlite3_finalize(*st[i]);
		*st[i] = NULL;
		if (sqlite3_prepare_v3(cd->db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, st[i],
				       NULL) != SQLITE_OK) {
			*err = xasprintf("state db: acct_step: %s", sqlite3_errmsg(cd->db));
			return -1;
		}
	}
	return 0;
}

static void op_release(step_op_t *o)
{
	free(o->name);
	free(o->nodelist);
	free(o->tres);
	free(o->srun_host);
	free(o->rep.node);
}

void acct_steps_db_close(ctld_t *cd)
{
	struct acct_steps *s = cd->steps;
	if (!s)
		return;
	sqlite3_finalize(s->ins);
	sqlite3_finalize(s->get);
	sqlite3_finalize(s->put);
	sqlite3_finalize(s->open_of_job);
	sqlite3_finalize(s->close_one);
	for (size_t i = 0; i < s->nops; i++)
		op_release(&s->ops[i]);
	free(s->ops);
	free(s);
	cd->steps = NULL;
}

static step_op_t *op_new(ctld_t *cd, int kind, uint32_t job_id, uint32_t step_id)
{
	struct acct_steps *s = cd->steps;
	s->ops = xgrow(s->ops, sizeof(*s->ops), s->nops + 1, &s->aops);
	step_op_t *o = &s->ops[s->nops++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->job_id = job_id;
	o->step_id = step_id;
	return o;
}

int acct_steps_pending(const ctld_t *cd)
{
	return cd->steps && cd->steps->nops;
}

void acct_step_start(ctld_t *cd, uint32_t job_id, uint32_t step_id, const char *name,
		     const char *nodelist, uint32_t nnodes, uint32_t ntasks, uint32_t cpus,
		     uint64_t mem_mb, int64_t start)
{
	if (!cd->steps)
		return;
	step_op_t *o = op_new(cd, OP_START, job_id, step_id);
	o->name = xstrdup(name ? name : "");
	o->nodelist = xstrdup(nodelist ? nodelist : "");
	o->tres = tres_string(cpus, mem_mb, nnodes, 0, 0, NULL, 0);
	o->nnodes = nnodes;
	o->ntasks = ntasks;
	o->cpus = cpus;
	o->time = start;
}

void acct_step_launch_info(ctld_t *cd, uint32_t job_id, uint32_t step_id, uint32_t time_limit,
			   const char *srun_host, uint32_t srun_pid)
{
	struct acct_steps *s = cd->steps;
	for (size_t i = s ? s->nops : 0; i-- > 0;) {
		step_op_t *o = &s->ops[i];
		if (o->kind != OP_START || o->job_id != job_id || o->step_id != step_id)
			continue;
		o->time_limit = time_limit;
		o->srun_pid = srun_pid;
		free(o->srun_host);
		o->srun_host = srun_host && *srun_host ? xstrdup(srun_host) : NULL;
		return;
	}
}

void acct_steps_job_start(ctld_t *cd, const job_t *j)
{
	if (!j->alloc.nnodes)
		return;
	uint64_t mem = 0, cpus = 0;
	for (uint32_t i = 0; i < j->alloc.nnodes; i++) {
		cpus += j->alloc.cpus[i];
		mem += j->alloc.mem[i];
	}
	if (conf_prolog_contain(cd->conf))
		acct_step_start(cd, j->job_id, STEP_EXTERN, "extern", j->nodes, j->alloc.nnodes,
				j->alloc.nnodes, (uint32_t)cpus, mem, j->start_time);
	if (!(j->desc->flags & JOB_F_INTERACTIVE)) {
		const char *host = cd->nodes[j->alloc.nodes[0]].cf->name;
		acct_step_start(cd, j->job_id, STEP_BATCH, "batch", host, 1, 1, j->alloc.cpus[0],
				j->alloc.mem[0], j->start_time);
	}
}

void acct_steps_job_unstart(ctld_t *cd, uint32_t job_id)
{
	struct acct_steps *s = cd->steps;
	if (!s)
		return;
	size_t k = 0;
	for (size_t i = 0; i < s->nops; i++) {
		if (s->ops[i].kind == OP_START && s->ops[i].job_id == job_id) {
			op_release(&s->ops[i]);
			continue;
		}
		s->ops[k++] = s->ops[i];
	}
	s->nops = k;
}

void acct_steps_job_forget(ctld_t *cd, uint32_t job_id)
{
	struct acct_steps *s = cd->steps;
	if (!s)
		return;
	size_t k = 0;
	for (size_t i = 0; i < s->nops; i++) {
		if (s->ops[i].job_id == job_id) {
			op_release(&s->ops[i]);
			continue;
		}
		s->ops[k++] = s->ops[i];
	}
	s->nops = k;
}

void acct_steps_job_end(ctld_t *cd, const job_t *j, uint32_t state, uint32_t exit_status,
			int64_t now)
{
	if (!cd->steps || !j->start_time)
		return;
	step_op_t *o = op_new(cd, OP_JOB_END, j->job_id, 0);
	o->state = state & JOB_STATE_BASE;
	o->exit_status = exit_status;
	o->time = now;
}

void acct_steps_queue_report(ctld_t *cd, const msg_step_complete_t *m)
{
	if (!cd->steps)
		return;
	step_op_t *o = op_new(cd, OP_REPORT, m->job_id, m->step_id);
	o->rep = *m;
	o->rep.node = xstrdup(m->node ? m->node : "");
}

int acct_step_complete(ctld_t *cd, const msg_step_complete_t *m, uint32_t uid)
{
	/* node traffic: the supervisors run as root or SlurmUser */
	if (!is_admin(cd, uid))
		return ESLURM_ACCESS_DENIED;
	job_t *j = job_find(cd, m->job_id);
	if (!j)
		return ESLURM_INVALID_JOB_ID;
	if (!m->nnodes || m->nnodes > STEP_MAX_NODES || m->node_id >= m->nnodes || !m->node)
		return ESLURM_INVALID_NODE_NAME;
	if (m->step_id == STEP_BATCH && m->launch_seq != j->launch_seq) {
		verbose("step %u.batch: stale report (launch %u, now %u) ignored", j->job_id,
			m->launch_seq, j->launch_seq);
		return 0;
	}
	if (m->step_id < STEP_BATCH - 1 && m->step_id >= j->next_step)
		return ESLURM_INVALID_JOB_ID;    /* no such step was created */
	acct_steps_queue_report(cd, m);
	debug("step %u.%u: %s reported %s, %u task%s", m->job_id, m->step_id, m->node,
	      job_state_string(m->end_state), m->usage.ntasks, m->usage.ntasks == 1 ? "" : "s");
	return 0;
}

/* ---- applying the queue inside the transaction ---- */

static void apply_start(ctld_t *cd, const step_op_t *o)
{
	sqlite3_stmt *st = cd->steps->ins;
	sqlite3_bind_int64(st, 1, o->job_id);
	sqlite3_bind_int64(st, 2, o->step_id);
	sqlite3_bind_text(st, 3, o->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, JOB_RUNNING);
	sqlite3_bind_int64(st, 5, o->time);
	sqlite3_bind_text(st, 6, o->nodelist, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, o->nnodes);
	sqlite3_bind_int64(st, 8, o->ntasks);
	sqlite3_bind_int64(st, 9, o->cpus);
	sqlite3_bind_text(st, 10, o->tres, -1, SQLITE_STATIC);
	/* what sacct shows as ReqCPUFreq: 0 for batch and extern */
	sqlite3_bind_text(st, 11, o->step_id >= STEP_BATCH - 1 ? "0" : "Unknown", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 12, o->time_limit);
	if (o->srun_host)
		sqlite3_bind_text(st, 13, o->srun_host, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 13);
	sqlite3_bind_int64(st, 14, o->srun_pid);
	db_exec_step(cd, st, "insert step");
}

/* What a row holds for the merge. */
typedef struct row {
	uint32_t state, exit_status, done_state, done_exit, nnodes, gathered;
	int64_t end;
	uint8_t *done;            /* bitmap, (nnodes + 7) / 8 bytes */
	step_usage_t u;
	char *node[6];            /* USAGE_M_* order: rss vmsize pages cpu read write */
} row_t;

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? xstrdup((const char *)t) : NULL;
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
	sqlite3_int64 v = sqlite3_column_int64(st, i);
	return v > 0 ? (uint64_t)v : 0;
}

/* Read the row (1), or 0 when there is none. */
static int row_get(ctld_t *cd, uint32_t job_id, uint32_t step_id, row_t *r)
{
	sqlite3_stmt *st = cd->steps->get;
	memset(r, 0, sizeof(*r));
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, step_id);
	int found = sqlite3_step(st) == SQLITE_ROW;
	if (found) {
		r->state = (uint32_t)col_u64(st, 0);
		r->exit_status = (uint32_t)col_u64(st, 1);
		r->end = sqlite3_column_int64(st, 2);
		r->nnodes = (uint32_t)col_u64(st, 3);
		size_t want = (r->nnodes + 7) / 8;
		r->done = xcalloc(want ? want : 1, 1);
		const void *b = sqlite3_column_blob(st, 4);
		size_t bl = (size_t)sqlite3_column_bytes(st, 4);
		if (b)
			memcpy(r->done, b, bl < want ? bl : want);
		r->u.ntasks = (uint32_t)col_u64(st, 5);
		r->done_state = (uint32_t)col_u64(st, 6);
		r->done_exit = (uint32_t)col_u64(st, 7);
		step_usage_t *u = &r->u;
		u->user_cpu_us = col_u64(st, 8);
		u->sys_cpu_us = col_u64(st, 9);
		u->max_rss_kb = col_u64(st, 10);
		r->node[0] = col_str(st, 11);
		u->max_rss_task = (uint32_t)col_u64(st, 12);
		u->max_vmsize_kb = col_u64(st, 13);
		r->node[1] = col_str(st, 14);
		u->max_vmsize_task = (uint32_t)col_u64(st, 15);
		u->max_pages = col_u64(st, 16);
		r->node[2] = col_str(st, 17);
		u->max_pages_task = (uint32_t)col_u64(st, 18);
		u->min_cpu_us = col_u64(st, 19);
		r->node[3] = col_str(st, 20);
		u->min_cpu_task = (uint32_t)col_u64(st, 21);
		u->max_disk_read = col_u64(st, 22);
		r->node[4] = col_str(st, 23);
		u->max_disk_read_task = (uint32_t)col_u64(st, 24);
		u->max_disk_write = col_u64(st, 25);
		r->node[5] = col_str(st, 26);
		u->max_disk_write_task = (uint32_t)col_u64(st, 27);
		u->sum_rss_kb = col_u64(st, 28);
		u->sum_vmsize_kb = col_u64(st, 29);
		u->sum_pages = col_u64(st, 30);
		u->sum_cpu_us = col_u64(st, 31);
		u->sum_disk_read = col_u64(st, 32);
		u->sum_disk_write = col_u64(st, 33);
		r->gathered = (uint32_t)col_u64(st, 34);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return found;
}

static void row_free(row_t *r)
{
	free(r->done);
	for (int i = 0; i < 6; i++)
		free(r->node[i]);
}

/* sacct's TRESUsageIn* form ("cpu=00:00:00,energy=0,fs/disk=N,mem=NK,
 * pages=N,vmem=NK"); cpu omitted when NULL. */
static char *tres_usage(const char *cpu, uint64_t mem_kb, uint64_t vmem_kb, uint64_t pages,
			uint64_t disk)
{
	return xasprintf("%s%s%senergy=0,fs/disk=%" PRIu64 ",mem=%" PRIu64 "K,pages=%" PRIu64
			 ",vmem=%" PRIu64 "K", cpu ? "cpu=" : "", cpu ? cpu : "", cpu ? "," : "",
			 disk, mem_kb, pages, vmem_kb);
}

static void hms(uint64_t us, char *buf, size_t len)
{
	uint64_t s = us / 1000000;
	snprintf(buf, len, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, s / 3600, s / 60 % 60, s % 60);
}

static void row_put(ctld_t *cd, uint32_t job_id, uint32_t step_id, const row_t *r)
{
	sqlite3_stmt *st = cd->steps->put;
	const step_usage_t *u = &r->u;
	uint32_t n = u->ntasks;
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_int64(st, 2, step_id);
	sqlite3_bind_int64(st, 3, r->state);
	sqlite3_bind_int64(st, 4, r->exit_status);
	sqlite3_bind_int64(st, 5, r->end);
	sqlite3_bind_blob(st, 6, r->done, (int)((r->nnodes + 7) / 8), SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, n);
	sqlite3_bind_int64(st, 8, r->done_state);
	sqlite3_bind_int64(st, 9, r->done_exit);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)u->user_cpu_us);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)u->sys_cpu_us);
	char *in_max = NULL, *in_ave = NULL, *out_max = NULL, *out_ave = NULL;
	if (r->gathered && n) {
		/* memory and disk figures exist only when gathered */
		struct { int col; uint64_t max; uint32_t task; uint64_t sum; int node; } f[] = {
			{ 12, u->max_rss_kb, u->max_rss_task, u->sum_rss_kb, 0 },
			{ 16, u->max_vmsize_kb, u->max_vmsize_task, u->sum_vmsize_kb, 1 },
			{ 20, u->max_pages, u->max_pages_task, u->sum_pages, 2 },
			{ 28, u->max_disk_read, u->max_disk_read_task, u->sum_disk_read, 4 },
			{ 32, u->max_disk_write, u->max_disk_write_task, u->sum_disk_write, 5 },
		};
		for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
			sqlite3_bind_int64(st, f[i].col, (sqlite3_int64)f[i].max);
			sqlite3_bind_text(st, f[i].col + 1, r->node[f[i].node], -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, f[i].col + 2, f[i].task);
			sqlite3_bind_int64(st, f[i].col + 3,
					   (sqlite3_int64)step_usage_ave(f[i].sum, n));
		}
		/* the highest CPU of a task is not kept: InMax has no cpu */
		char ave_cpu[32];
		hms(step_usage_ave(u->sum_cpu_us, n), ave_cpu, sizeof(ave_cpu));
		in_max = tres_usage(NULL, u->max_rss_kb, u->max_vmsize_kb, u->max_pages,
				    u->max_disk_read);
		in_ave = tres_usage(ave_cpu, step_usage_ave(u->sum_rss_kb, n),
				    step_usage_ave(u->sum_vmsize_kb, n),
				    step_usage_ave(u->sum_pages, n), step_usage_ave(u->sum_disk_read, n));
		out_max = xasprintf("energy=0,fs/disk=%" PRIu64, u->max_disk_write);
		out_ave = xasprintf("energy=0,fs/disk=%" PRIu64, step_usage_ave(u->sum_disk_write, n));
	}
	if (n) {
		/* CPU comes from the reaped rusage: there even without gathering */
		sqlite3_bind_int64(st, 24, (sqlite3_int64)(u->min_cpu_us / 1000000));
		sqlite3_bind_text(st, 25, r->node[3], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 26, u->min_cpu_task);
		sqlite3_bind_int64(st, 27,
				   (sqlite3_int64)(step_usage_ave(u->sum_cpu_us, n) / 1000000));
		sqlite3_bind_int64(st, 36, (sqlite3_int64)u->min_cpu_us);
		sqlite3_bind_int64(st, 37, (sqlite3_int64)u->sum_rss_kb);
		sqlite3_bind_int64(st, 38, (sqlite3_int64)u->sum_vmsize_kb);
		sqlite3_bind_int64(st, 39, (sqlite3_int64)u->sum_pages);
		sqlite3_bind_int64(st, 40, (sqlite3_int64)u->sum_cpu_us);
		sqlite3_bind_int64(st, 41, (sqlite3_int64)u->sum_disk_read);
		sqlite3_bind_int64(st, 42, (sqlite3_int64)u->sum_disk_write);
	}
	sqlite3_bind_int64(st, 43, r->gathered);
	sqlite3_bind_text(st, 44, in_max, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 45, in_ave, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 46, out_max, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 47, out_ave, -1, SQLITE_STATIC);
	db_exec_step(cd, st, "update step");
	free(in_max);
	free(in_ave);
	free(out_max);
	free(out_ave);
}

static uint32_t popcount_bytes(const uint8_t *b, size_t n)
{
	uint32_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += (uint32_t)__builtin_popcount(b[i]);
	return c;
}

static void apply_report(ctld_t *cd, const step_op_t *o)
{
	const msg_step_complete_t *m = &o->rep;
	row_t r;
	if (!row_get(cd, o->job_id, o->step_id, &r)) {
		/* No start row (written by a controller that lost it, or a
		 * step the controller never knew): the report makes one. */
		step_op_t so = { .kind = OP_START, .job_id = o->job_id, .step_id = o->step_id,
				 .name = (char *)(o->step_id == STEP_BATCH ? "batch" : ""),
				 .nodelist = m->node, .nnodes = m->nnodes, .ntasks = m->usage.ntasks,
				 .time = m->start_time };
		so.tres = tres_string(0, 0, m->nnodes, 0, 0, NULL, 0);
		apply_start(cd, &so);
		free(so.tres);
		if (!row_get(cd, o->job_id, o->step_id, &r))
			return;      /* the insert failed: the commit fails too */
	}
	if (r.nnodes != m->nnodes || m->node_id >= r.nnodes) {
		error("step %u.%u: report from %s for node %u of %u, the step has %u nodes: ignored",
		      o->job_id, o->step_id, m->node, m->node_id, m->nnodes, r.nnodes);
		row_free(&r);
		return;
	}
	uint8_t bit = (uint8_t)(1u << (m->node_id % 8));
	if (r.done[m->node_id / 8] & bit) {
		debug("step %u.%u: repeated report from %s ignored", o->job_id, o->step_id, m->node);
		row_free(&r);
		return;
	}
	uint32_t before = popcount_bytes(r.done, (r.nnodes + 7) / 8);
	r.done[m->node_id / 8] |= bit;
	if (!before) {
		r.done_state = m->end_state & JOB_STATE_BASE;
		r.done_exit = m->exit_status;
	} else {
		step_state_merge(&r.done_state, &r.done_exit, m->end_state & JOB_STATE_BASE,
				 m->exit_status);
	}
	unsigned took = step_usage_merge(&r.u, &m->usage);
	for (int i = 0; i < 6; i++)
		if (took & (1u << i)) {
			free(r.node[i]);
			r.node[i] = xstrdup(m->node);
		}
	r.gathered |= m->gathered;
	if (before + 1 >= r.nnodes) {
		/* every node reported: the step's end */
		r.state = r.done_state;
		r.exit_status = r.done_exit;
		r.end = m->end_time > 0 ? m->end_time : ctld_now();
	} else if (r.end) {
		/* closed with its job before this report came: the report is
		 * what the node saw, the job's end what it guessed */
		step_state_merge(&r.state, &r.exit_status, m->end_state & JOB_STATE_BASE,
				 m->exit_status);
	}
	row_put(cd, o->job_id, o->step_id, &r);
	row_free(&r);
}

/* The state an open step gets when its job ends without its report. */
static void closed_state(uint32_t step_id, uint32_t job_state, uint32_t job_exit,
			 uint32_t *state, uint32_t *exit_status)
{
	*exit_status = 0;
	if (job_state == JOB_NODE_FAIL) {
		*state = JOB_NODE_FAIL;
	} else if (step_id == STEP_EXTERN) {
		/* it holds nothing the job's end could fail */
		*state = job_state == JOB_CANCELLED ? JOB_CANCELLED : JOB_COMPLETE;
	} else if (step_id == STEP_BATCH) {
		*state = job_state;
		*exit_status = job_exit;
	} else if (job_state == JOB_COMPLETE || job_state == JOB_FAILED) {
		/* an srun allocation that ended before its step's report */
		*state = job_state;
		*exit_status = job_exit;
	} else {
		*state = JOB_CANCELLED;    /* killed with its job */
	}
}

static void apply_job_end(ctld_t *cd, const step_op_t *o)
{
	struct acct_steps *s = cd->steps;
	struct { uint32_t step_id, tasks, done_state, done_exit; } open[64];
	for (;;) {
		/* at most 64 per query: the updates below change the result */
		size_t n = 0;
		sqlite3_bind_int64(s->open_of_job, 1, o->job_id);
		while (n < ARRAY_SIZE(open) && sqlite3_step(s->open_of_job) == SQLITE_ROW) {
			open[n].step_id = (uint32_t)col_u64(s->open_of_job, 0);
			open[n].tasks = (uint32_t)col_u64(s->open_of_job, 1);
			open[n].done_state = (uint32_t)col_u64(s->open_of_job, 2);
			open[n].done_exit = (uint32_t)col_u64(s->open_of_job, 3);
			n++;
		}
		sqlite3_reset(s->open_of_job);
		sqlite3_clear_bindings(s->open_of_job);
		for (size_t i = 0; i < n; i++) {
			uint32_t st, ex;
			closed_state(open[i].step_id, o->state, o->exit_status, &st, &ex);
			if (open[i].tasks)     /* some nodes reported */
				step_state_merge(&st, &ex, open[i].done_state, open[i].done_exit);
			sqlite3_stmt *c = s->close_one;
			sqlite3_bind_int64(c, 1, o->job_id);
			sqlite3_bind_int64(c, 2, open[i].step_id);
			sqlite3_bind_int64(c, 3, st);
			sqlite3_bind_int64(c, 4, ex);
			sqlite3_bind_int64(c, 5, o->time > 0 ? o->time : 1);
			if (db_exec_step(cd, c, "close step") < 0)
				return;
		}
		if (n < ARRAY_SIZE(open))
			return;
	}
}

void acct_steps_commit(ctld_t *cd)
{
	struct acct_steps *s = cd->steps;
	if (!s)
		return;
	for (size_t i = 0; i < s->nops; i++) {
		const step_op_t *o = &s->ops[i];
		switch (o->kind) {
		case OP_START: apply_start(cd, o); break;
		case OP_REPORT: apply_report(cd, o); break;
		case OP_JOB_END: apply_job_end(cd, o); break;
		}
	}
}

void acct_steps_committed(ctld_t *cd)
{
	struct acct_steps *s = cd->steps;
	if (!s)
		return;
	for (size_t i = 0; i < s->nops; i++)
		op_release(&s->ops[i]);
	s->nops = 0;
}
