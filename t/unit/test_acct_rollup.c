/*
 * test_acct_rollup: the arithmetic of an hour's close (Idle, Planned and
 * Down cut to what Reported holds) and sreport's store read
 * (acct_sreport) over hour, day and month rows: a range is covered with
 * month rows where whole months fit, day rows for whole days, hour rows
 * for the rest, and never with an hour that is not closed yet. Also sreport
 * job SizesByAccount: Grouping= and the buckets, and the store's CPU time
 * of the jobs inside the range.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "ctld/ctld.h"
#include "tap.h"
#include "xalloc.h"

#define NEAR(got, want, ...) ok(fabs((double)(got) - (double)(want)) < 1e-6, __VA_ARGS__)

static void close_math(void)
{
	double alloc = 100, down = 50, planned = 30, idle;
	acct_rollup_close_math(&alloc, &down, 0, &planned, 360, &idle);
	NEAR(idle, 180, "idle = reported - alloc - down - planned");
	NEAR(planned, 30, "planned kept when it fits");

	alloc = 300, down = 100, planned = 10;
	acct_rollup_close_math(&alloc, &down, 0, &planned, 360, &idle);
	NEAR(down, 60, "down cut so alloc + down fit in reported");
	NEAR(idle, 0, "nothing idle");
	NEAR(planned, 0, "planned cut to the idle time");

	alloc = 100, down = 0, planned = 500;
	acct_rollup_close_math(&alloc, &down, 20, &planned, 360, &idle);
	NEAR(planned, 240, "planned at most what was idle");
	NEAR(idle, 0, "and taken from idle");

	alloc = 500, down = 0, planned = 0;
	acct_rollup_close_math(&alloc, &down, 0, &planned, 360, &idle);
	NEAR(alloc, 360, "alloc never above reported");
}

static sqlite3 *db;

static void row(int period, int64_t t, int tres, double v)
{
	char *sql = xasprintf("INSERT INTO acct_rollup_cluster(period, time, tres, alloc, down,"
			      " pdown, idle, planned, reported) VALUES(%d, %lld, %d, %f, 0, 0, 0, 0, %f);"
			      "INSERT INTO acct_rollup_assoc(period, time, assoc_id, tres, account, user,"
			      " lineage, alloc) VALUES(%d, %lld, 7, %d, 'a', 'u', 'root/a', %f)",
			      period, (long long)t, tres, v, v * 10, period, (long long)t, tres, v);
	char *e = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &e) != SQLITE_OK)
		printf("# %s\n", e);
	free(sql);
}

static int64_t local(int y, int mon, int d, int h)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mon - 1, .tm_mday = d, .tm_hour = h,
			 .tm_isdst = -1 };
	return (int64_t)mktime(&tm);
}

static double report(const char *what, int64_t start, int64_t end, const char *col, const char *kind,
		     int *nrows)
{
	msg_acct_req_t req = { 0 };
	char *a = xasprintf("report=%s", what);
	strv_push(&req.args, a);
	free(a);
	a = xasprintf("start=%lld", (long long)start);
	strv_push(&req.args, a);
	free(a);
	a = xasprintf("end=%lld", (long long)end);
	strv_push(&req.args, a);
	free(a);
	acct_read_ctx_t ctx = { .uid = 0, .cluster = "t", .now = end };
	msg_acct_reply_t out = { 0 };
	acct_sreport(db, &ctx, &req, &out);
	double sum = 0;
	int ci = -1;
	for (uint32_t c = 0; c < out.cols.n; c++)
		if (!strcmp(out.cols.v[c], col))
			ci = (int)c;
	*nrows = 0;
	for (uint32_t r = 0; out.cols.n && r < out.cells.n / out.cols.n; r++) {
		char **cell = &out.cells.v[r * out.cols.n];
		if (strcmp(cell[0], kind) || strcmp(cell[1], "0"))
			continue;
		(*nrows)++;
		sum += ci >= 0 ? atof(cell[ci]) : 0;
	}
	strv_free(&req.args);
	proto_free(MSG_ACCT_REPLY, &out);
	return sum;
}

static void sizes_read(void);

static void sreport_read(void)
{
	char dir[] = "/tmp/test_acct_rollup.XXXXXX";
	if (!mkdtemp(dir))
		return;
	char *path = xasprintf("%s/state.db", dir);
	ctld_t cd;
	memset(&cd, 0, sizeof(cd));
	char *err = NULL;
	if (db_open(&cd, path, &err)) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	db = cd.db;
	/* 2026 as the controller leaves it (a closed hour, day or month has
	 * its row): months Jan..Nov 1000 each and December 324; days of
	 * December 10 each but the 31st 24, November 30th 24; hours of those
	 * two days 1 each. A correct cover never counts a time twice. */
	for (int m = 1; m <= 11; m++)
		row(2, local(2026, m, 1, 0), 0, 1000);
	row(2, local(2026, 12, 1, 0), 0, 324);
	for (int d = 1; d <= 30; d++)
		row(1, local(2026, 12, d, 0), 0, 10);
	row(1, local(2026, 12, 31, 0), 0, 24);
	row(1, local(2026, 11, 30, 0), 0, 24);
	for (int h = 0; h < 24; h++) {
		row(0, local(2026, 12, 31, h), 0, 1);
		row(0, local(2026, 11, 30, h), 0, 1);
	}
	int64_t end = local(2027, 1, 1, 0);
	char *meta = xasprintf("INSERT OR REPLACE INTO meta(key, value) VALUES('rollup_hour', %lld)",
			       (long long)end);
	sqlite3_exec(db, meta, NULL, NULL, NULL);
	free(meta);
	int n;
	NEAR(report("cluster", local(2026, 1, 1, 0), end, "alloc", "cluster", &n), 11324,
	     "a year: 12 month rows");
	is_int(n, 1, "one row per TRES");
	NEAR(report("cluster", local(2026, 1, 1, 0), end, "reported", "cluster", &n), 113240,
	     "reported summed alike");
	NEAR(report("cluster", local(2026, 1, 1, 0), local(2026, 12, 31, 0), "alloc", "cluster", &n),
	     11300, "11 months and 30 days");
	NEAR(report("cluster", local(2026, 12, 31, 5), local(2026, 12, 31, 8), "alloc", "cluster", &n),
	     3, "three hours");
	NEAR(report("cluster", local(2026, 11, 30, 12), local(2026, 12, 2, 0), "alloc", "cluster", &n),
	     12 + 10, "12 hours, then a day");
	NEAR(report("assoc", local(2026, 1, 1, 0), local(2026, 12, 31, 0), "alloc", "assoc", &n), 11300,
	     "association rows over the same cover");

	/* not closed yet: the open hour and later are left out, so the
	 * last day and month come from what is closed */
	meta = xasprintf("UPDATE meta SET value = %lld WHERE key = 'rollup_hour'",
			 (long long)local(2026, 12, 31, 10));
	sqlite3_exec(db, meta, NULL, NULL, NULL);
	free(meta);
	NEAR(report("cluster", local(2026, 12, 31, 0), end, "alloc", "cluster", &n), 10,
	     "only the closed hours of the last day");
	NEAR(report("cluster", local(2026, 1, 1, 0), end, "alloc", "cluster", &n), 11310,
	     "a year up to the open hour: months, days, hours");

	/* timing: a year of hour rows for 5 TRES and 1,000 associations is
	 * what the cover avoids; a year with the cover is a few rows */
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 100; i++)
		report("cluster", local(2026, 1, 1, 0), local(2026, 12, 31, 0), "alloc", "cluster", &n);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ms = ((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6) / 100;
	printf("# sreport cluster year read: %.3f ms\n", ms);
	ok(ms < 50, "a year's read in under 50 ms (%.3f ms)", ms);
	sizes_read();

	db_close(&cd);
	char *f[] = { path, xasprintf("%s-wal", path), xasprintf("%s-shm", path) };
	for (int i = 0; i < 3; i++) {
		unlink(f[i]);
		free(f[i]);
	}
	rmdir(dir);
}

static void size_buckets(void)
{
	uint32_t e[8];
	int n = sreport_grouping("50,250,500,1000", e, 8);
	is_int(n, 4, "the default grouping: 4 edges, 5 buckets");
	is_int(sreport_size_bucket(e, n, 1), 0, "1 CPU: 0-49");
	is_int(sreport_size_bucket(e, n, 49), 0, "49 CPUs: 0-49");
	is_int(sreport_size_bucket(e, n, 50), 1, "50 CPUs: 50-249");
	is_int(sreport_size_bucket(e, n, 999), 3, "999 CPUs: 500-999");
	is_int(sreport_size_bucket(e, n, 1000), 4, "1000 CPUs: >= 1000");
	is_int(sreport_size_bucket(e, n, 100000), 4, "100000 CPUs: >= 1000");
	char *l = sreport_size_label(e, n, 0);
	is_str(l, "0-49 CPUs", "first label");
	free(l);
	l = sreport_size_label(e, n, 2);
	is_str(l, "250-499 CPUs", "middle label");
	free(l);
	l = sreport_size_label(e, n, 4);
	is_str(l, ">= 1000 CPUs", "last label");
	free(l);
	n = sreport_grouping("8,4,4,0,16", e, 8);
	is_int(n, 3, "sorted, distinct, no 0");
	ok(n == 3 && e[0] == 4 && e[1] == 8 && e[2] == 16, "edges 4,8,16");
	is_int(sreport_size_bucket(e, n, 3), 0, "3 of 4,8,16: first");
	is_int(sreport_size_bucket(e, n, 8), 2, "8 of 4,8,16: third");
	is_int(sreport_grouping("4,x", e, 8), -1, "not a number: an error");
}

/* The store's SizesByAccount rows: CPU-seconds of the jobs inside the
 * range (cut at both ends, a running job up to now), with the lineage. */
static void sizes_read(void)
{
	sqlite3_exec(db, "INSERT INTO acct_assoc(id, parent_id, account, user) VALUES(1, 0, 'root', NULL),"
			 " (2, 1, 'phys', NULL), (3, 2, 'hep', NULL), (4, 3, 'hep', 'alice');"
			 "INSERT INTO acct_job(job_id, account, user, partition, alloc_cpus, start, end)"
			 " VALUES(1, 'hep', 'alice', 'p', 4, 1000, 1100),"
			 " (2, 'hep', 'alice', 'p', 4, 900, 1050),"     /* 50 s inside */
			 " (3, 'hep', 'alice', 'p', 64, 1900, 0),"      /* running: 100 s inside */
			 " (4, 'gone', 'bob', 'q', 1, 1500, 1510),"
			 " (5, 'hep', 'alice', 'p', 4, 2100, 2200),"    /* after the range */
			 " (6, 'hep', 'alice', 'p', 4, 0, 0)",          /* never started */
		     NULL, NULL, NULL);
	msg_acct_req_t req = { 0 };
	strv_push(&req.args, "report=sizes");
	strv_push(&req.args, "start=1000");
	strv_push(&req.args, "end=2000");
	acct_read_ctx_t ctx = { .uid = 0, .cluster = "t", .now = 2000 };
	msg_acct_reply_t out = { 0 };
	acct_sreport(db, &ctx, &req, &out);
	strbuf_t got = STRBUF_INIT;
	for (uint32_t r = 0; out.cols.n == 7 && r < out.cells.n / 7; r++) {
		char **c = &out.cells.v[r * 7];
		strbuf_addf(&got, "%s %s %s %s %s %s %s;", c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
	}
	is_str(got.buf ? got.buf : "", "gone  bob q 1 1 10;hep root/phys/hep alice p 4 2 600;"
	       "hep root/phys/hep alice p 64 1 6400;", "jobs grouped, cut to the range, with lineage");
	strbuf_release(&got);
	strv_free(&req.args);
	proto_free(MSG_ACCT_REPLY, &out);
}

int main(void)
{
	size_buckets();
	close_math();
	sreport_read();
	return done_testing();
}
