/*
 * acct_sreport.c: ACCT_OP_SREPORT, a store read over the rollups
 * (acct_rollup.c) with the read-only connection; it never touches the
 * loop's state.
 *
 * Arguments: report=cluster|assoc|sizes, start=, end= (Unix seconds, the range
 * the command already rounded to hours). The range is covered with the
 * coarsest closed rows that fit: whole months from month rows, whole days
 * from day rows, the rest from hour rows, and only hours already closed
 * (meta rollup_hour), so a year costs about 12 + 2 x 30 + 2 x 23 rows per
 * TRES, not 8,760.
 *
 * Answer columns: kind ("cluster" or "assoc"), tres (LIM_TRES_* index),
 * assoc_id, account, user, lineage, alloc, down, pdown, idle, planned,
 * reported (TRES-seconds). report=assoc answers the cluster rows too (the
 * command's percentages are of Reported). report=sizes reads acct_job
 * instead (job_sizes below), report=resv the reservation records
 * (acct_sreport_resv.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctld.h"
#include "errors.h"
#include "strbuf.h"
#include "xalloc.h"

typedef struct seg {
	int period;
	int64_t from, to;
} seg_t;

static int64_t local_next(int64_t t, int days, int months)
{
	time_t tt = (time_t)t;
	struct tm tm;
	localtime_r(&tt, &tm);
	tm.tm_mday += days;
	tm.tm_mon += months;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

static int midnight(int64_t t, int *mday)
{
	time_t tt = (time_t)t;
	struct tm tm;
	localtime_r(&tt, &tm);
	*mday = tm.tm_mday;
	return !tm.tm_hour && !tm.tm_min && !tm.tm_sec;
}

/* Cover [start, end) (up to `closed`) with (period, from, to) pieces. */
static uint32_t segments(int64_t start, int64_t end, int64_t closed, seg_t *s, uint32_t max)
{
	uint32_t n = 0;
	if (end > closed)
		end = closed;
	int64_t t = rollup_hour_floor(start);
	if (t < start)
		t = rollup_hour_next(t);
	int test_hours = rollup_hour_is_test();
	for (uint32_t guard = 0; t < end && guard < 200000; guard++) {
		int mday = 0, p = 0;
		int64_t next;
		if (!test_hours && midnight(t, &mday) && mday == 1 &&
		    (next = local_next(t, 0, 1)) <= end)
			p = 2;
		else if (!test_hours && midnight(t, &mday) && (next = local_next(t, 1, 0)) <= end)
			p = 1;
		else
			next = rollup_hour_next(t);
		if (next > end && p == 0)
			break;       /* a partial hour: not rolled */
		if (n && s[n - 1].period == p && s[n - 1].to == t) {
			s[n - 1].to = next;
		} else {
			if (n == max)
				break;
			s[n++] = (seg_t){ p, t, next };
		}
		t = next;
	}
	return n;
}

/* The rows of the n pieces, each by its primary key range (an OR of
 * ranges would scan the table). */
static void from_segs(strbuf_t *sb, const char *table, const char *cols, uint32_t n)
{
	strbuf_addstr(sb, " FROM (");
	for (uint32_t i = 0; i < n; i++)
		strbuf_addf(sb, "%sSELECT %s FROM %s WHERE period = ?%u AND time >= ?%u AND time < ?%u",
			    i ? " UNION ALL " : "", cols, table, 3 * i + 1, 3 * i + 2, 3 * i + 3);
	strbuf_addstr(sb, ")");
}

static void bind_segs(sqlite3_stmt *st, const seg_t *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		sqlite3_bind_int(st, (int)(3 * i + 1), s[i].period);
		sqlite3_bind_int64(st, (int)(3 * i + 2), s[i].from);
		sqlite3_bind_int64(st, (int)(3 * i + 3), s[i].to);
	}
}

static const char *text(sqlite3_stmt *st, int c)
{
	const char *v = (const char *)sqlite3_column_text(st, c);
	return v ? v : "";
}

/* One association's usage of one TRES over the range. */
typedef struct asum {
	int64_t assoc_id;
	int tres;
	char *account, *user, *lineage;
	double alloc;
} asum_t;

static int asum_cmp(const void *a, const void *b)
{
	const asum_t *x = a, *y = b;
	if (x->assoc_id != y->assoc_id)
		return x->assoc_id < y->assoc_id ? -1 : 1;
	return x->tres - y->tres;
}

/* The "assoc" rows: alloc per (association, TRES), summed in one pass
 * over the pieces' primary-key ranges into a hash table (a GROUP BY here
 * would sort every row with its three names), answered in (assoc_id,
 * tres) order, only those with usage. Returns -1 on an SQL error. */
static int assoc_sums(sqlite3 *db, strbuf_t *sb, const seg_t *segs, uint32_t n,
		      msg_acct_reply_t *out)
{
	sqlite3_stmt *st;
	strbuf_reset(sb);
	strbuf_addstr(sb, "SELECT tres, assoc_id, account, user, lineage, alloc");
	from_segs(sb, "acct_rollup_assoc", "tres, assoc_id, account, user, lineage, alloc", n);
	if (sqlite3_prepare_v2(db, sb->buf, -1, &st, NULL) != SQLITE_OK)
		return -1;
	bind_segs(st, segs, n);
	uint32_t cap = 1024, used = 0;
	asum_t *h = xcalloc(cap, sizeof(*h));
	uint8_t *full = xcalloc(cap, 1);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 1);
		int tres = sqlite3_column_int(st, 0);
		if (2 * (used + 1) > cap) {     /* grow: rehash into twice the slots */
			asum_t *oh = h;
			uint8_t *of = full;
			uint32_t oc = cap;
			cap *= 2;
			h = xcalloc(cap, sizeof(*h));
			full = xcalloc(cap, 1);
			for (uint32_t i = 0; i < oc; i++) {
				if (!of[i])
					continue;
				uint32_t k = (uint32_t)((uint64_t)oh[i].assoc_id * 8 + (uint64_t)oh[i].tres) *
					     2654435761u & (cap - 1);
				while (full[k])
					k = (k + 1) & (cap - 1);
				h[k] = oh[i];
				full[k] = 1;
			}
			free(oh);
			free(of);
		}
		uint32_t k = (uint32_t)((uint64_t)id * 8 + (uint64_t)tres) * 2654435761u & (cap - 1);
		while (full[k] && (h[k].assoc_id != id || h[k].tres != tres))
			k = (k + 1) & (cap - 1);
		if (!full[k]) {
			full[k] = 1;
			used++;
			h[k] = (asum_t){ .assoc_id = id, .tres = tres, .account = xstrdup(text(st, 2)),
					 .user = xstrdup(text(st, 3)), .lineage = xstrdup(text(st, 4)) };
		}
		h[k].alloc += sqlite3_column_double(st, 5);
	}
	sqlite3_finalize(st);
	uint32_t m = 0;
	for (uint32_t i = 0; i < cap; i++)
		if (full[i])
			h[m++] = h[i];
	qsort(h, m, sizeof(*h), asum_cmp);
	for (uint32_t i = 0; i < m; i++) {
		if (h[i].alloc > 0) {
			acct_reply_cell(out, "assoc");
			acct_reply_cellf(out, "%d", h[i].tres);
			acct_reply_cellf(out, "%" PRId64, h[i].assoc_id);
			acct_reply_cell(out, h[i].account);
			acct_reply_cell(out, h[i].user);
			acct_reply_cell(out, h[i].lineage);
			acct_reply_cellf(out, "%.0f", h[i].alloc);
			for (int c = 0; c < 5; c++)
				acct_reply_cell(out, "0");
		}
		free(h[i].account);
		free(h[i].user);
		free(h[i].lineage);
	}
	free(h);
	free(full);
	return 0;
}

/* report=sizes (sreport job SizesByAccount): the jobs that ran in
 * [start, end), grouped by (account, user, partition, alloc_cpus), with
 * the job count and the CPU-seconds inside the range (a running job up to
 * now), and the account's lineage from the association tree ("" for an
 * account no longer in it). Columns: account, lineage, user, partition,
 * cpus, jobs, cpu_secs. The command buckets and filters. */
static void job_sizes(sqlite3 *db, int64_t start, int64_t end, msg_acct_reply_t *out)
{
	static const char *const cols[] = { "account", "lineage", "user", "partition", "cpus", "jobs",
		"cpu_secs" };
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		acct_reply_col(out, cols[c]);
	static const char sql[] =
		"WITH RECURSIVE tree(id, account, lineage) AS (SELECT id, account, account FROM acct_assoc"
		" WHERE parent_id = 0 AND COALESCE(user, '') = '' UNION ALL SELECT a.id, a.account,"
		" tree.lineage || '/' || a.account FROM acct_assoc a JOIN tree ON a.parent_id = tree.id"
		" WHERE COALESCE(a.user, '') = ''),"
		" j AS (SELECT account, user, partition, alloc_cpus, COUNT(*) AS n,"
		" SUM(alloc_cpus * MAX(0, MIN(CASE WHEN end > 0 THEN end ELSE ?3 END, ?2) - MAX(start, ?1)))"
		" AS secs FROM acct_job WHERE start > 0 AND start < ?2 AND (end = 0 OR end > ?1)"
		" GROUP BY account, user, partition, alloc_cpus)"
		" SELECT j.account, COALESCE((SELECT lineage FROM tree WHERE tree.account = j.account"
		" LIMIT 1), ''), j.user, j.partition, j.alloc_cpus, j.n, j.secs FROM j";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		out->rc = SLURM_ERROR;
		out->msg = xasprintf("sreport: %s", sqlite3_errmsg(db));
		return;
	}
	sqlite3_bind_int64(st, 1, start);
	sqlite3_bind_int64(st, 2, end);
	sqlite3_bind_int64(st, 3, (int64_t)time(NULL));
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int c = 0; c < 4; c++)
			acct_reply_cell(out, text(st, c));
		for (int c = 4; c < 7; c++)
			acct_reply_cellf(out, "%" PRId64, (int64_t)sqlite3_column_int64(st, c));
	}
	sqlite3_finalize(st);
}

void acct_sreport(sqlite3 *db, const acct_read_ctx_t *ctx, const msg_acct_req_t *req,
		  msg_acct_reply_t *out)
{
	(void)ctx;
	const char *rep = acct_arg(req, "report"), *a = acct_arg(req, "start"), *b = acct_arg(req, "end");
	if (rep && a && b && !strcmp(rep, "sizes")) {
		job_sizes(db, strtoll(a, NULL, 10), strtoll(b, NULL, 10), out);
		return;
	}
	if (rep && a && b && !strcmp(rep, "resv")) {
		acct_sreport_resv(db, req, strtoll(a, NULL, 10), strtoll(b, NULL, 10), out);
		return;
	}
	static const char *const cols[] = { "kind", "tres", "assoc_id", "account", "user", "lineage",
		"alloc", "down", "pdown", "idle", "planned", "reported" };
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		acct_reply_col(out, cols[c]);
	if (!rep || !a || !b) {
		out->rc = SLURM_ERROR;
		out->msg = xstrdup("sreport: report, start and end are required");
		return;
	}
	int64_t start = strtoll(a, NULL, 10), end = strtoll(b, NULL, 10), closed = 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'rollup_hour'", -1, &st,
			       NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			closed = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	seg_t segs[16];
	uint32_t n = segments(start, end, closed, segs, 16);
	if (!n)
		return;
	strbuf_t sb = STRBUF_INIT;
	strbuf_addstr(&sb, "SELECT tres, SUM(alloc), SUM(down), SUM(pdown), SUM(idle), SUM(planned),"
			   " SUM(reported)");
	from_segs(&sb, "acct_rollup_cluster", "tres, alloc, down, pdown, idle, planned, reported", n);
	strbuf_addstr(&sb, " GROUP BY tres ORDER BY tres");
	if (sqlite3_prepare_v2(db, sb.buf, -1, &st, NULL) != SQLITE_OK) {
		out->rc = SLURM_ERROR;
		out->msg = xasprintf("sreport: %s", sqlite3_errmsg(db));
		strbuf_release(&sb);
		return;
	}
	bind_segs(st, segs, n);
	while (sqlite3_step(st) == SQLITE_ROW) {
		acct_reply_cell(out, "cluster");
		acct_reply_cellf(out, "%d", sqlite3_column_int(st, 0));
		acct_reply_cell(out, "0");
		acct_reply_cell(out, "");
		acct_reply_cell(out, "");
		acct_reply_cell(out, "");
		for (int c = 1; c <= 6; c++)
			acct_reply_cellf(out, "%.0f", sqlite3_column_double(st, c));
	}
	sqlite3_finalize(st);
	if (!strcmp(rep, "assoc") && assoc_sums(db, &sb, segs, n, out)) {
		out->rc = SLURM_ERROR;
		out->msg = xasprintf("sreport: %s", sqlite3_errmsg(db));
	}
	strbuf_release(&sb);
}
