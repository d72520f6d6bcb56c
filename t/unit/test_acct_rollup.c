/*
 * test_acct_rollup: the arithmetic of an hour's close (Idle, Planned and
 * Down cut to what Reported holds) and sreport's store read
 * (acct_sreport) over hour, day and month rows: a range is covered with
 * month rows where whole months fit, day rows for whole days, hour rows
 * for the rest, and never with an hour that is not closed yet.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

	db_close(&cd);
	char *f[] = { path, xasprintf("%s-wal", path), xasprintf("%s-shm", path) };
	for (int i = 0; i < 3; i++) {
		unlink(f[i]);
		free(f[i]);
	}
	rmdir(dir);
}

int main(void)
{
	close_math();
	sreport_read();
	return done_testing();
}
