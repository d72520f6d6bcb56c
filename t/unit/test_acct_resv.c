/*
 * test_acct_resv: the store read of sreport reservation Utilization
 * (acct_sreport_resv.c) over acct_resv and acct_job rows inserted by
 * hand: the allocated TRES-seconds of the jobs of each reservation inside
 * its periods, the records of one reservation merged as slurmdbd does,
 * the range, Names= and Nodes= filters, and the plan of the job query
 * (the reservation's own jobs by index, not a scan of all job records).
 * And the reservations' share of an hour's close (acct_rollup_resv): the
 * maintenance reservations' TRES-seconds are planned down, the others'
 * allocated, checked against real Slurm's numbers for the same records.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctld/ctld.h"
#include "strbuf.h"
#include "tap.h"
#include "xalloc.h"

static sqlite3 *db;

static void sql(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *q = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	char *e = NULL;
	if (sqlite3_exec(db, q, NULL, NULL, &e) != SQLITE_OK)
		printf("# %s: %s\n", q, e);
	sqlite3_free(e);
	sqlite3_free(q);
}

static void resv(int id, long ts, long te, const char *name, const char *nodes, const char *tres,
		 const char *flags, const char *users, int deleted)
{
	sql("INSERT INTO acct_resv(resv_id, time_start, time_end, name, nodelist, node_count, tres,"
	    " flags, users, accounts, deleted) VALUES(%d, %ld, %ld, %Q, %Q, 2, %Q, %Q, %Q, NULL, %d)",
	    id, ts, te, name, nodes, tres, flags, users, deleted);
}

static void job(int id, const char *resv, long start, long end, const char *tres)
{
	sql("INSERT INTO acct_job(job_id, reservation, start, end, alloc_tres, submit) VALUES(%d, %Q,"
	    " %ld, %ld, %Q, %ld)", id, resv, start, end, tres, start ? start - 5 : 100);
}

/* The report's rows as "name start end tres alloc assocs;" */
static char *report(long start, long end, const char *names, const char *nodes)
{
	msg_acct_req_t req = { 0 };
	char *a;
	strv_push(&req.args, "report=resv");
	a = xasprintf("start=%ld", start);
	strv_push(&req.args, a);
	free(a);
	a = xasprintf("end=%ld", end);
	strv_push(&req.args, a);
	free(a);
	if (names) {
		a = xasprintf("names=%s", names);
		strv_push(&req.args, a);
		free(a);
	}
	if (nodes) {
		a = xasprintf("nodes=%s", nodes);
		strv_push(&req.args, a);
		free(a);
	}
	acct_read_ctx_t ctx = { .uid = 0, .cluster = "t", .now = end };
	msg_acct_reply_t out = { 0 };
	acct_sreport(db, &ctx, &req, &out);
	strbuf_t sb = STRBUF_INIT;
	if (out.rc)
		strbuf_addf(&sb, "error %s", out.msg ? out.msg : "");
	for (uint32_t r = 0; out.cols.n == 9 && r < out.cells.n / 9; r++) {
		char **c = &out.cells.v[r * 9];
		strbuf_addf(&sb, "%s %s %s %s %s %s %s;", c[1], c[2], c[3], c[7], c[8], c[6], c[4]);
	}
	strv_free(&req.args);
	proto_free(MSG_ACCT_REPLY, &out);
	char *s = strbuf_detach(&sb);
	return s ? s : xstrdup("");
}

static void check(long start, long end, const char *names, const char *nodes, const char *want,
		  const char *what)
{
	char *got = report(start, end, names, nodes);
	is_str(got, want, "%s", what);
	free(got);
}

int main(void)
{
	char dir[] = "/tmp/test_acct_resv.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char *path = xasprintf("%s/state.db", dir);
	ctld_t cd;
	memset(&cd, 0, sizeof(cd));
	char *err = NULL;
	if (db_open(&cd, path, &err)) {
		printf("Bail out! %s\n", err);
		return 1;
	}
	db = cd.db;
	sql("INSERT INTO acct_assoc(id, parent_id, account, user) VALUES(1, 0, 'root', NULL),"
	    " (2, 1, 'root', 'root'), (3, 1, 'phys', NULL), (4, 3, 'phys', 'alice')");

	/* Real Slurm 22.05 (t/compat README): rr_x on 2 nodes of 64 CPUs for
	 * 30 min, a 1-CPU job for 30 s and a 4-CPU job for 20 s: Allocated
	 * 110 CPU-seconds, its TRES cpu=128. */
	long t0 = 1796161569;
	resv(10, t0, t0 + 1800, "rr_x", "comp[001-002]", "cpu=128", "SPEC_NODES", "root", 0);
	job(5, "rr_x", t0 + 2, t0 + 32, "billing=1,cpu=1,mem=1G,node=1");
	job(6, "rr_x", t0 + 2, t0 + 22, "billing=4,cpu=4,mem=4G,node=2");
	job(7, NULL, t0 + 2, t0 + 1000, "cpu=64,node=1");               /* not in it */
	job(8, "rr_x", 0, 0, "cpu=64,node=1");                         /* never started */
	check(t0 - 3600, t0 + 7200, NULL, NULL,
	      "rr_x 1796161569 1796163369 cpu=128 cpu=110 2 comp[001-002];",
	      "Slurm's numbers: only the reservation's started jobs, its TRES only");

	/* an earlier reservation of the same name (another id) keeps its jobs */
	resv(3, t0 - 86400, t0 - 86400 + 600, "rr_x", "comp003", "cpu=64", "", NULL, 0);
	job(9, "rr_x", t0 - 86400 + 10, t0 - 86400 + 110, "cpu=2");
	check(t0 - 3600, t0 + 7200, NULL, NULL,
	      "rr_x 1796161569 1796163369 cpu=128 cpu=110 2 comp[001-002];",
	      "a reservation before the range is not listed, its jobs not counted in the next");
	check(t0 - 86400 - 3600, t0 + 7200, "RR_X", NULL,
	      "rr_x 1796075169 1796075769 cpu=64 cpu=200  comp003;"
	      "rr_x 1796161569 1796163369 cpu=128 cpu=110 2 comp[001-002];",
	      "both, each with its own jobs (Names= ignores case)");

	/* two periods (its nodes changed at t1): the counts averaged as
	 * Slurm does, a job running across the change counted in both, a job
	 * still running counted to the period's end; memory in MB */
	long t1 = t0 + 10000;
	resv(20, t1, t1 + 600, "rr_y", "comp[001-002]", "cpu=128,mem=2G", "MAINT,SPEC_NODES",
	     "alice", 0);
	resv(20, t1 + 600, t1 + 1200, "rr_y", "comp[001-004]", "cpu=256,mem=4G", "MAINT,SPEC_NODES",
	     "alice", 0);
	job(10, "rr_y", t1 + 500, t1 + 700, "cpu=2,mem=1000M,node=1");
	job(11, "rr_y", t1 + 1100, 0, "cpu=1,mem=10M,node=1");
	check(t1, t1 + 3600, NULL, NULL,
	      "rr_y 1796171569 1796172769 cpu=192,mem=3072 cpu=500,mem=201000 4 comp[001-004];",
	      "records merged: counts averaged, job time in each period, a running job to the end");
	check(t1 + 600, t1 + 3600, NULL, NULL,
	      "rr_y 1796171569 1796172769 cpu=192,mem=3072 cpu=500,mem=201000 4 comp[001-004];",
	      "a record ending at the range's start still counts (time_end >= start)");
	check(t1 + 601, t1 + 3600, NULL, NULL,
	      "rr_y 1796172169 1796172769 cpu=256,mem=4096 cpu=300,mem=101000 4 comp[001-004];",
	      "only the records that meet the range");

	/* filters */
	check(t0 - 3600, t1 + 3600, NULL, "comp004",
	      "rr_y 1796171569 1796172769 cpu=192,mem=3072 cpu=500,mem=201000 4 comp[001-004];",
	      "Nodes=: only reservations holding one of them");
	check(t0 - 3600, t1 + 3600, NULL, "comp[001,009]",
	      "rr_x 1796161569 1796163369 cpu=128 cpu=110 2 comp[001-002];"
	      "rr_y 1796171569 1796172769 cpu=192,mem=3072 cpu=500,mem=201000 4 comp[001-004];",
	      "Nodes= with a range expression");
	check(t0 - 3600, t1 + 3600, "rr_y,nope", NULL,
	      "rr_y 1796171569 1796172769 cpu=192,mem=3072 cpu=500,mem=201000 4 comp[001-004];",
	      "Names= list");
	check(t0 - 3600, t1 + 3600, "nope", NULL, "", "no reservation: no rows");
	char *bad = report(t0, t1, NULL, "comp[");
	ok(!strncmp(bad, "error sreport: invalid node list comp[", 38), "a bad Nodes= is an error: %s", bad);
	free(bad);

	/* deleted before it started: never listed */
	resv(30, t1 + 100, t1 + 200, "rr_z", "comp005", "cpu=64", "", NULL, 1);
	check(t1, t1 + 3600, "rr_z", NULL, "", "a reservation deleted before its start is not listed");

	/* the job query reads the reservation's jobs by index */
	sqlite3_stmt *st;
	strbuf_t plan = STRBUF_INIT;
	if (sqlite3_prepare_v2(db, "EXPLAIN QUERY PLAN SELECT alloc_tres, start, end FROM acct_job"
			       " WHERE reservation = ?1 AND start >= ?2 AND start < ?3 AND start > 0", -1,
			       &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			strbuf_addf(&plan, "%s;", (const char *)sqlite3_column_text(st, 3));
		sqlite3_finalize(st);
	}
	ok(plan.buf && strstr(plan.buf, "acct_job_resv (reservation=? AND start>? AND start<?)"),
	   "jobs by acct_job_resv: %s", plan.buf ? plan.buf : "");
	strbuf_release(&plan);

	/* PLND Down of the hour [h, h + 3600), by hand: A (MAINT) 900 s of
	 * 128 CPUs and 2 nodes; D (MAINT) 600 s of 2 GB and 8 GPUs; B
	 * (IGNORE_JOBS too), C (no MAINT), E (deleted), G (before) nothing */
	long h = 1800000000;
	resv(40, h - 600, h + 900, "A", "comp[001-002]", "cpu=128,node=2", "MAINT,SPEC_NODES", NULL, 0);
	resv(41, h, h + 3600, "B", "comp[001-032]", "cpu=2048", "MAINT,IGNORE_JOBS", NULL, 0);
	resv(42, h, h + 3600, "C", "comp003", "cpu=64", "SPEC_NODES", NULL, 0);
	resv(43, h + 3000, h + 3700, "D", "comp004", "mem=2G,gres/gpu=8", "MAINT", NULL, 0);
	resv(44, h, h + 3600, "E", "comp005", "cpu=64", "MAINT", NULL, 1);
	resv(45, h - 3600, h, "G", "comp006", "cpu=64", "MAINT", NULL, 0);
	double pd[LIM_TRES_N], adj[LIM_TRES_N];
	acct_rollup_resv(db, h, h + 3600, pd, adj);
	ok(pd[LIM_TRES_CPU] == 128.0 * 900, "PLND Down cpu: 128 x 900 s (%.0f)", pd[LIM_TRES_CPU]);
	ok(pd[LIM_TRES_NODE] == 2.0 * 900, "node: 2 x 900 s (%.0f)", pd[LIM_TRES_NODE]);
	ok(pd[LIM_TRES_MEM] == 2048.0 * 600, "mem in MB: 2048 x 600 s (%.0f)", pd[LIM_TRES_MEM]);
	ok(pd[LIM_TRES_GPU] == 8.0 * 600, "gres/gpu: 8 x 600 s (%.0f)", pd[LIM_TRES_GPU]);
	ok(pd[LIM_TRES_BILLING] == 0, "a TRES none holds: 0");
	ok(adj[LIM_TRES_CPU] == 64.0 * 3600 && adj[LIM_TRES_MEM] == 0,
	   "Allocated gains C's idle reserved time, not the MAINT or IGNORE_JOBS ones' (%.0f)",
	   adj[LIM_TRES_CPU]);
	acct_rollup_resv(db, h + 3600, h + 7200, pd, adj);
	ok(pd[LIM_TRES_CPU] == 0 && pd[LIM_TRES_MEM] == 2048.0 * 100, "the next hour: D's last 100 s only");
	/* Slurm 22.05's hour 21:00 of 2026-12-01 (t/compat/
	 * sacctmgr_show_reservation_pdown.txt, sreport_cluster_Utilization_
	 * pdown.txt, sacct_reservation_jobs_pdown.txt): PLND Down 102016
	 * CPU-seconds from three MAINT ones (overlapping on comp030), the
	 * MAINT,IGNORE_JOBS ones not counted; Allocated 160578: the jobs outside
	 * reservations (130) and the other reservations' whole time (160448),
	 * the jobs inside them (882, of which 4 in a MAINT one) not again */
	long H = 1796158800;    /* 2026-12-01T21:00:00Z */
	sql("DELETE FROM acct_resv WHERE resv_id = 10; DELETE FROM acct_job WHERE reservation = 'rr_x'");
	struct { int id; const char *name, *st, *en, *flags, *tres; } sl[] = {
		{ 101, "resv_a", "21:45:50", "21:45:51", "MAINT,IGNORE_JOBS,SPEC_NODES", "cpu=2048" },
		{ 104, "alice_4", "21:46:02", "21:46:16", "", "cpu=64" },
		{ 103, "resv_c", "21:46:02", "21:46:20", "MAINT,SPEC_NODES", "cpu=64" },
		{ 106, "resv_d", "21:46:02", "21:46:04", "SPEC_NODES", "cpu=64" },
		{ 108, "rs_rvs_act", "21:46:06", "21:51:52", "SPEC_NODES", "cpu=128" },
		{ 109, "rs_rvs_m", "21:46:06", "21:51:48", "MAINT,SPEC_NODES", "cpu=128" },
		{ 110, "rr_x", "21:46:09", "22:16:09", "SPEC_NODES", "cpu=128" },
		{ 113, "resv_g", "21:46:15", "21:46:15", "OVERLAP,WEEKLY,SPEC_NODES", "cpu=64" },
		{ 114, "resv_h", "21:46:15", "21:46:16", "SPEC_NODES", "cpu=64" },
		{ 115, "resv_i", "21:46:15", "21:46:17", "", "cpu=1408" },
		{ 107, "rs_rvs_fut", "21:51:06", "21:51:52", "SPEC_NODES", "cpu=128" },
		{ 119, "resv_q", "21:51:23", "21:51:23", "MAINT,IGNORE_JOBS", "cpu=1024" },
		{ 120, "rr_m", "21:52:34", "22:02:34", "MAINT,SPEC_NODES", "cpu=128" },
	};
	for (size_t i = 0; i < sizeof(sl) / sizeof(sl[0]); i++) {
		int h1, m1, s1, h2, m2, s2;
		sscanf(sl[i].st, "%d:%d:%d", &h1, &m1, &s1);
		sscanf(sl[i].en, "%d:%d:%d", &h2, &m2, &s2);
		resv(sl[i].id, H + (h1 - 21) * 3600 + m1 * 60 + s1, H + (h2 - 21) * 3600 + m2 * 60 + s2,
		     sl[i].name, "comp001", sl[i].tres, sl[i].flags, NULL, 0);
	}
	/* its jobs (start, end in seconds after 21:00; sacct) */
	struct { int id; const char *resv; long s, e; const char *tres; } sj[] = {
		{ 1004, NULL, 2762, 2762, "billing=1,cpu=1,mem=1G,node=1" },
		{ 1005, "rr_x", 2771, 2801, "billing=1,cpu=1,mem=1G,node=1" },
		{ 1006, "rr_x", 2771, 2791, "billing=4,cpu=4,mem=4G,node=2" },
		{ 1008, "resv_c", 2774, 2778, "billing=1,cpu=1,mem=1G,node=1" },
		{ 1009, "rs_rvs_fut", 3067, 3109, "billing=2,cpu=2,mem=2G,node=2" },
		{ 1010, "rs_rvs_fut", 3067, 3109, "billing=1,cpu=1,mem=1G,node=1" },
		{ 1011, "rs_rvs_act", 2777, 3087, "billing=1,cpu=1,mem=1G,node=1" },
		{ 1012, "rs_rvs_act", 2777, 3109, "billing=1,cpu=1,mem=1G,node=1" },
		{ 1013, "rs_rvs_act", 2777, 2777, "" },
		{ 1015, NULL, 2777, 2907, "billing=1,cpu=1,mem=1G,node=1" },
	};
	double steps = 0;       /* what the hour's steps counted: every job */
	for (size_t i = 0; i < sizeof(sj) / sizeof(sj[0]); i++) {
		job(sj[i].id, sj[i].resv, H + sj[i].s, H + sj[i].e, sj[i].tres);
		double c = strstr(sj[i].tres, "cpu=") ? atof(strstr(sj[i].tres, "cpu=") + 4) : 0;
		steps += c * (double)(sj[i].e - sj[i].s);
	}
	acct_rollup_resv(db, H, H + 3600, pd, adj);
	ok(pd[LIM_TRES_CPU] == 102016, "Slurm's PLND Down of the same records: 102016 (%.0f)",
	   pd[LIM_TRES_CPU]);
	ok(steps == 1012 && steps + adj[LIM_TRES_CPU] == 160578,
	   "Slurm's Allocated of the same records: 160578 (%.0f + %.0f)", steps, adj[LIM_TRES_CPU]);
	ok(adj[LIM_TRES_MEM] == 0, "the jobs' memory stays theirs (the reservations hold cpu only)");

	/* the close: Idle = Reported - Allocated - Down - PLND Down - Planned */
	double alloc = 1000, down = 500, planned = 100, idle;
	acct_rollup_close_math(&alloc, &down, 128.0 * 900, &planned, 64.0 * 4 * 3600, &idle);
	ok(idle == 64.0 * 4 * 3600 - 1000 - 500 - 128.0 * 900 - 100, "Idle net of PLND Down (%.0f)", idle);

	db_close(&cd);
	unlink(path);
	char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path);
	unlink(wal);
	unlink(shm);
	free(wal);
	free(shm);
	rmdir(dir);
	free(path);
	return done_testing();
}
