/*
 * acct_sacct.c: ACCT_OP_SACCT, the store read behind sacct. Runs on the
 * reader thread (acct_rpc.c) with its read-only connection: it may use
 * only the request and the context, never ctld_t.
 *
 * The request names the raw columns it wants (cols=, the acct_job and
 * acct_step names of acct.h's tables) and the selection; sacct formats.
 * Arguments (all optional):
 *   cols=a,b,...     columns wanted (job_id and step_id always come first)
 *   jobs=N,N.batch,N.extern,N.3,N_M,...   job, step and array task ids
 *   users=uid,...    all=1 (every user; else the caller alone, unless users=)
 *   gids=, accounts=, partitions=, qos=, names=   lists
 *   nodes=hostlist   jobs that ran on any of these nodes
 *   states=n,...     job_state_base numbers (states.h)
 *   start=, end=     the window, Unix seconds (sacct resolves its defaults:
 *                    start=0 is "since ever"); end defaults to now
 *   nosteps=1        job rows only (-X)
 * Job rows come in job id order, each followed by its steps (batch,
 * extern, interactive, then numbered steps), as sacct prints them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ctld.h"
#include "errors.h"
#include "hostlist.h"
#include "jobid.h"
#include "states.h"
#include "strbuf.h"
#include "xalloc.h"


static const char *const job_cols[] = {
	"job_id", "array_job_id", "array_task_id", "cluster", "partition", "account", "qos",
	"assoc_id", "qos_id", "uid", "gid", "user", "grp", "name", "state", "reason",
	"exit_code", "derived_ec", "submit", "eligible", "start", "end", "suspended",
	"timelimit", "priority", "nice", "req_cpus", "req_mem", "req_mem_per_cpu",
	"req_nodes", "alloc_cpus", "alloc_nodes", "nodelist", "req_tres", "alloc_tres",
	"workdir", "comment", "constraints", "std_out", "std_err", "flags", "requeues",
	"requid", "reservation", "array_task_str", "resv_id",
};

/* acct_step's columns a step row takes from its step (the rest from
 * its job); alloc_nodes is the step's nnodes. */
static const char *const step_cols[] = {
	"name", "state", "exit_code", "start", "end", "suspended", "nodelist", "nnodes",
	"ntasks", "alloc_cpus", "alloc_tres", "req_cpufreq", "user_cpu_us", "sys_cpu_us",
	"max_rss_kb", "max_rss_node", "max_rss_task", "ave_rss_kb", "max_vmsize_kb",
	"max_vmsize_node", "max_vmsize_task", "ave_vmsize_kb", "max_pages", "max_pages_node",
	"max_pages_task", "ave_pages", "min_cpu_s", "min_cpu_node", "min_cpu_task",
	"ave_cpu_s", "max_disk_read", "max_disk_read_node", "max_disk_read_task",
	"ave_disk_read", "max_disk_write", "max_disk_write_node", "max_disk_write_task",
	"ave_disk_write", "tres_usage_in_max", "tres_usage_in_ave", "tres_usage_out_max",
	"tres_usage_out_ave",
};

static int in_list(const char *const *list, size_t n, const char *w)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], w))
			return 1;
	return 0;
}

/* One -j selector. */
typedef struct sel {
	uint32_t job;             /* job id, or array job id when task set */
	uint32_t task;            /* array task id, NO_VAL32 = not an array task */
	uint32_t step;            /* STEP_ALL, or one step id */
} sel_t;

/* Append "col IN (...)" for a comma list: numbers (num) or quoted texts. */
static int add_in(strbuf_t *w, const char *col, const char *list, int num, char **err)
{
	if (!list)
		return 0;
	strbuf_addf(w, " AND %s IN (", col);
	char *dup = xstrdup(list), *save = NULL;
	int n = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (num) {
			char *e;
			unsigned long long v = strtoull(t, &e, 10);
			if (*e || e == t) {
				*err = xasprintf("invalid number '%s' for %s", t, col);
				free(dup);
				return -1;
			}
			strbuf_addf(w, "%s%llu", n ? "," : "", v);
		} else {
			char *q = sqlite3_mprintf("%Q", t);
			strbuf_addf(w, "%s%s", n ? "," : "", q);
			sqlite3_free(q);
		}
		n++;
	}
	free(dup);
	if (!n)
		strbuf_addstr(w, "NULL");
	strbuf_addch(w, ')');
	return 0;
}

/* The time window (see sacct(1), DEFAULT TIME WINDOW), on j. The end
 * index does the work (jobs that ended after the start, and those not
 * ended): "+" keeps SQLite from scanning the eligible times instead,
 * which reach back to the first record. */
static void add_window(strbuf_t *w, const char *states, int64_t s, int64_t e, int have_end)
{
	if (!states) {
		if (s)
			strbuf_addf(w, " AND +j.eligible > 0 AND +j.eligible <= %" PRId64
				    " AND (j.end >= %" PRId64 " OR j.end = 0)", e, s);
		else if (have_end)
			strbuf_addf(w, " AND j.eligible > 0 AND j.eligible <= %" PRId64, e);
		return;
	}
	/* With states: jobs that were in one of them during the window (an
	 * OR of indexable terms, no constant: SQLite then searches each). */
	strbuf_addstr(w, " AND (");
	char *dup = xstrdup(states), *save = NULL;
	int n = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
		uint32_t st = (uint32_t)strtoul(t, NULL, 10);
		if (n)
			strbuf_addstr(w, " OR ");
		/* A job pending or running at some moment of the window ended
		 * after its start or has not ended: each is written as two
		 * terms, one per side of that, so the end index serves both. */
		if (st == JOB_PENDING)
			strbuf_addf(w, "((j.state & 255 = 0 OR j.start >= %" PRId64 ") AND j.submit <= %"
				    PRId64 " AND j.end >= %" PRId64 ") OR ((j.state & 255 = 0 OR j.start >= %"
				    PRId64 ") AND j.submit <= %" PRId64 " AND j.end = 0)", s, e, s, s, e);
		else if (st == JOB_RUNNING)
			strbuf_addf(w, "(j.start > 0 AND j.start <= %" PRId64 " AND j.end >= %" PRId64
				    ") OR (j.start > 0 AND j.start <= %" PRId64 " AND j.end = 0)", e, s, e);
		else if (st == JOB_SUSPENDED)
			strbuf_addf(w, "(j.state & 255 = %u)", st);
		else
			strbuf_addf(w, "(j.state & 255 = %u AND j.end >= %" PRId64
				    " AND j.end <= %" PRId64 ")", st, s, e);
	}
	free(dup);
	strbuf_addstr(w, n ? ")" : "0)");
}

static int has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1", -1,
			       &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return found;
}

/* Did a job on nodelist run on one of the wanted nodes? */
static int nodes_match(const char *nodelist, const hostset_t *want)
{
	if (!nodelist || !*nodelist)
		return 0;
	hostlist_t *hl = hostlist_create(nodelist, NULL);
	int hit = 0;
	for (size_t i = 0; hl && i < hostlist_count(hl) && !hit; i++)
		hit = hostset_has(want, hostlist_nth(hl, i));
	hostlist_destroy(hl);
	return hit;
}

/* Which steps of job id the selectors want: -1 none named, 1 all, or 2
 * only the listed ones (and not the job row). */
static int sel_steps(const sel_t *sel, size_t nsel, uint32_t job, uint32_t atask, uint32_t ajob,
		     uint32_t step)
{
	int named = 0;
	for (size_t i = 0; i < nsel; i++) {
		const sel_t *x = &sel[i];
		int match = x->task == NO_VAL32 ? (x->job == job || x->job == ajob)
			: x->job == ajob && x->task == atask;
		if (!match)
			continue;
		named = 1;
		if (x->step == STEP_ALL || x->step == step)
			return 1;
	}
	return named ? 0 : -1;
}

void acct_sacct_read(sqlite3 *db, const acct_read_ctx_t *ctx, const msg_acct_req_t *req,
		     msg_acct_reply_t *out)
{
	char *err = NULL;
	strv_t cols = { 0 };
	const char *cl = acct_arg(req, "cols");
	int nosteps = acct_arg(req, "nosteps") != NULL;
	int steps = !nosteps && has_table(db, "acct_step");
	char *dup = xstrdup(cl ? cl : "state");
	char *save = NULL;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!in_list(job_cols, ARRAY_SIZE(job_cols), t) &&
		    !in_list(step_cols, ARRAY_SIZE(step_cols), t)) {
			out->rc = SLURM_ERROR;
			out->msg = xasprintf("sacct: unknown record column '%s'", t);
			free(dup);
			return;
		}
		strv_push(&cols, t);
	}
	free(dup);

	/* The selection, on acct_job j. */
	strbuf_t w = STRBUF_INIT;
	strbuf_addstr(&w, "1");
	sel_t *sel = NULL;
	size_t nsel = 0;
	const char *jobs = acct_arg(req, "jobs");
	if (jobs) {
		char *jd = xstrdup(jobs), *sv = NULL;
		strbuf_t ids = STRBUF_INIT, arr = STRBUF_INIT;
		size_t asel = 0;
		for (char *t = strtok_r(jd, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
			sel_t x;
			if (jobid_parse_selector(t, &x.job, &x.task, &x.step)) {
				out->rc = SLURM_ERROR;
				out->msg = xasprintf("Invalid job id: %s", t);
				free(jd);
				strbuf_release(&ids);
				strbuf_release(&arr);
				goto done;
			}
			sel = xgrow(sel, sizeof(*sel), nsel + 1, &asel);
			sel[nsel++] = x;
			if (x.task == NO_VAL32)
				strbuf_addf(&ids, "%s%u", ids.len ? "," : "", x.job);
			else
				strbuf_addf(&arr, " OR (j.array_job_id = %u AND j.array_job_id != 0"
					    " AND j.array_task_id = %u)", x.job, x.task);
		}
		free(jd);
		/* ids, or array ids, or array tasks: indexable terms only */
		strbuf_addstr(&w, " AND (");
		if (ids.len)
			strbuf_addf(&w, "j.job_id IN (%s) OR (j.array_job_id IN (%s)"
				    " AND j.array_job_id != 0)", ids.buf, ids.buf);
		strbuf_addf(&w, "%s)", ids.len ? arr.buf : arr.buf + 4);
		strbuf_release(&ids);
		strbuf_release(&arr);
	}
	const char *users = acct_arg(req, "users");
	if (users) {
		if (add_in(&w, "j.uid", users, 1, &err))
			goto bad;
	} else if (!acct_arg(req, "all")) {
		strbuf_addf(&w, " AND j.uid = %u", ctx->uid);
	}
	if (add_in(&w, "j.gid", acct_arg(req, "gids"), 1, &err) ||
	    add_in(&w, "j.account", acct_arg(req, "accounts"), 0, &err) ||
	    add_in(&w, "j.partition", acct_arg(req, "partitions"), 0, &err) ||
	    add_in(&w, "j.qos", acct_arg(req, "qos"), 0, &err) ||
	    add_in(&w, "j.name", acct_arg(req, "names"), 0, &err))
		goto bad;
	const char *states = acct_arg(req, "states");
	if (states) {
		for (const char *p = states; *p; p++)
			if ((*p < '0' || *p > '9') && *p != ',') {
				err = xasprintf("invalid state list '%s'", states);
				goto bad;
			}
	}
	const char *sa = acct_arg(req, "start"), *ea = acct_arg(req, "end");
	int64_t s = sa ? strtoll(sa, NULL, 10) : 0;
	int64_t e = ea ? strtoll(ea, NULL, 10) : ctx->now;
	add_window(&w, states, s, e, ea != NULL);

	hostset_t *want_nodes = NULL;
	const char *nodes = acct_arg(req, "nodes");
	if (nodes && !(want_nodes = hostset_create(nodes, &err)))
		goto bad;
	strbuf_t q = STRBUF_INIT;
	strbuf_addstr(&q, "SELECT j.job_id, j.array_job_id, j.array_task_id, j.nodelist");
	int have_steps = has_table(db, "acct_step");
	for (size_t i = 0; i < cols.n; i++) {
		const char *c = cols.v[i];
		/* A job's CPU times are its steps' sum, its derived exit code
		 * the highest of its srun steps' (as Slurm's). */
		if (have_steps && (!strcmp(c, "user_cpu_us") || !strcmp(c, "sys_cpu_us")))
			strbuf_addf(&q, ", (SELECT sum(s.%s) FROM acct_step s WHERE s.job_id = j.job_id)", c);
		else if (have_steps && !strcmp(c, "derived_ec"))
			strbuf_addf(&q, ", CASE WHEN j.derived_ec THEN j.derived_ec ELSE (SELECT"
				    " coalesce(max(s.exit_code), 0) FROM acct_step s WHERE s.job_id = j.job_id"
				    " AND s.step_id < %u) END", STEP_INTERACTIVE);
		else if (in_list(job_cols, ARRAY_SIZE(job_cols), c))
			strbuf_addf(&q, ", j.\"%s\"", c);
		else
			strbuf_addstr(&q, ", NULL");
	}
	/* "+": ordered by a sort of what the indexes found, not by a scan
	 * of every record in id order */
	strbuf_addf(&q, " FROM acct_job j WHERE %s ORDER BY +j.job_id", w.buf);
	sqlite3_stmt *jq = NULL, *sq = NULL;
	if (sqlite3_prepare_v2(db, q.buf, -1, &jq, NULL) != SQLITE_OK) {
		err = xasprintf("sacct query: %s", sqlite3_errmsg(db));
		strbuf_release(&q);
		goto free_nodes;
	}
	if (steps) {
		strbuf_setlen(&q, 0);
		strbuf_addstr(&q, "SELECT s.job_id, s.step_id, s.nodelist");
		for (size_t i = 0; i < cols.n; i++) {
			const char *c = cols.v[i];
			if (!strcmp(c, "alloc_nodes"))
				strbuf_addstr(&q, ", s.nnodes");
			else if (in_list(step_cols, ARRAY_SIZE(step_cols), c))
				strbuf_addf(&q, ", s.\"%s\"", c);
			else
				strbuf_addf(&q, ", j.\"%s\"", c);
		}
		/* CROSS JOIN: the selection on j first, then its steps by key */
		strbuf_addf(&q, " FROM acct_job j CROSS JOIN acct_step s ON s.job_id = j.job_id WHERE %s"
			    " ORDER BY +s.job_id, CASE s.step_id WHEN %u THEN 0 WHEN %u THEN 1"
			    " WHEN %u THEN 2 ELSE 3 END, s.step_id", w.buf, STEP_BATCH, STEP_EXTERN,
			    STEP_INTERACTIVE);
		if (sqlite3_prepare_v2(db, q.buf, -1, &sq, NULL) != SQLITE_OK) {
			err = xasprintf("sacct step query: %s", sqlite3_errmsg(db));
			sqlite3_finalize(jq);
			strbuf_release(&q);
			goto free_nodes;
		}
	}
	strbuf_release(&q);

	acct_reply_col(out, "job_id");
	acct_reply_col(out, "step_id");
	for (size_t i = 0; i < cols.n; i++)
		acct_reply_col(out, cols.v[i]);
	int src = sq ? sqlite3_step(sq) : SQLITE_DONE;
	int rc;
	while ((rc = sqlite3_step(jq)) == SQLITE_ROW) {
		uint32_t id = (uint32_t)sqlite3_column_int64(jq, 0);
		uint32_t ajob = (uint32_t)sqlite3_column_int64(jq, 1);
		uint32_t atask = (uint32_t)sqlite3_column_int64(jq, 2);
		if (want_nodes && !nodes_match((const char *)sqlite3_column_text(jq, 3), want_nodes))
			continue;
		/* -X shows the job of a step named (Slurm does) */
		if (!nsel || nosteps || sel_steps(sel, nsel, id, atask, ajob, STEP_ALL) == 1) {
			acct_reply_cellf(out, "%u", id);
			acct_reply_cell(out, "");
			for (size_t i = 0; i < cols.n; i++)
				acct_reply_cell(out, (const char *)sqlite3_column_text(jq, 4 + (int)i));
		}
		/* Its steps (the step query runs in the same job id order). */
		while (src == SQLITE_ROW && (uint32_t)sqlite3_column_int64(sq, 0) < id)
			src = sqlite3_step(sq);
		for (; src == SQLITE_ROW && (uint32_t)sqlite3_column_int64(sq, 0) == id;
		     src = sqlite3_step(sq)) {
			uint32_t step = (uint32_t)sqlite3_column_int64(sq, 1);
			if (nsel && sel_steps(sel, nsel, id, atask, ajob, step) != 1)
				continue;
			acct_reply_cellf(out, "%u", id);
			acct_reply_cellf(out, "%u", step);
			for (size_t i = 0; i < cols.n; i++)
				acct_reply_cell(out, (const char *)sqlite3_column_text(sq, 3 + (int)i));
		}
	}
	if (rc != SQLITE_DONE) {
		err = xasprintf("sacct query: %s", sqlite3_errmsg(db));
		strv_free(&out->cols);
		strv_free(&out->cells);
	}
	sqlite3_finalize(jq);
	sqlite3_finalize(sq);
free_nodes:
	hostset_destroy(want_nodes);
bad:
	if (err) {
		out->rc = SLURM_ERROR;
		out->msg = err;
	}
done:
	strbuf_release(&w);
	strv_free(&cols);
	free(sel);
}
