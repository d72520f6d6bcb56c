/*
 * test_acct_usage: usage charging and decay (acct_usage.c) on a real state
 * DB: a job is charged billing x seconds x UsageFactor to its association,
 * every ancestor and its QOS; usage halves per PriorityDecayHalfLife (QOS
 * NoDecay does not); the usage and the watermark survive a reopen, and a
 * job is never charged twice for the same seconds (also across a reopen);
 * the fair-share factor of the tree follows the usage.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctld/ctld.h"
#include "errors.h"
#include "proto_schema.h"
#include "prom.h"
#include "states.h"
#include "strbuf.h"
#include "tap.h"
#include "xalloc.h"

#define NEAR(got, want, ...) ok(fabs((double)(got) - (double)(want)) < 1e-6 * (1 + fabs((double)(want))), __VA_ARGS__)

static char dir[] = "/tmp/test_acct_usage.XXXXXX";

/* root -> acct A -> users u1 (id 3), u2 (id 4); QOS normal (1, factor 1)
 * and double (2, factor 2, NoDecay). */
static void model(ctld_t *cd)
{
	acct_t *a = &cd->acct;
	a->nassocs = 4;
	a->assocs = xcalloc(4, sizeof(acct_assoc_t));
	const char *accts[] = { "root", "a", "a", "a" };
	const char *users[] = { NULL, NULL, "u1", "u2" };
	uint32_t parents[] = { 0, 1, 2, 2 };
	for (uint32_t i = 0; i < 4; i++) {
		acct_assoc_t *x = &a->assocs[i];
		x->id = i + 1;
		x->parent_id = parents[i];
		x->account = (char *)accts[i];
		x->user = (char *)users[i];
		x->uid = users[i] ? 1000 + i : UINT32_MAX;
		x->shares_raw = 1;
	}
	a->nqos = 2;
	a->qos = xcalloc(2, sizeof(acct_qos_t));
	a->qos[0].id = 1;
	a->qos[0].name = (char *)"normal";
	a->qos[0].s.usage_factor = 1.0;
	a->qos[1].id = 2;
	a->qos[1].name = (char *)"double";
	a->qos[1].s.usage_factor = 2.0;
	a->qos[1].s.flags = LIM_QOS_F_NO_DECAY;
	a->gen = 1;
}

static job_t *mkjob(uint32_t id, uint32_t assoc, uint32_t qos, uint32_t cpus, int64_t start)
{
	job_t *j = xcalloc(1, sizeof(*j));
	j->job_id = id;
	j->state = JOB_RUNNING;
	j->assoc_id = assoc;
	j->qos_id = qos;
	j->start_time = start;
	j->alloc.nnodes = 1;
	j->alloc.cpus = xcalloc(1, sizeof(uint32_t));
	j->alloc.cpus[0] = cpus;
	j->alloc.mem = xcalloc(1, sizeof(uint64_t));
	j->alloc.mem[0] = 1000;
	j->alloc.gpus = xcalloc(1, sizeof(uint64_t));
	j->alloc.gpus[0] = 0x3;
	return j;
}

/* The kept answers (acct_sshare_frame): the same bytes while nothing
 * changed, a new answer after usage, the tree or the configuration moved,
 * per caller where the rows depend on it, never with TRESRunMins. */
static char *frame_of(ctld_t *cd, const char *a1, const char *a2, uint32_t uid, int *rc)
{
	msg_acct_req_t req = { .op = ACCT_OP_SSHARE };
	strv_push(&req.args, a1);
	if (a2)
		strv_push(&req.args, a2);
	strbuf_t f = STRBUF_INIT, s = STRBUF_INIT;
	acct_sshare_frame(cd, &req, uid, &f);
	strv_free(&req.args);
	*rc = -1;
	/* the cells, ' ' around each */
	frame_t fr;
	char *err = NULL;
	msg_acct_reply_t r = { 0 };
	if (net_frame_parse(f.buf, f.len, &fr, &err) == 1 && fr.type == MSG_ACCT_REPLY &&
	    !codec_decode(proto_schema(MSG_ACCT_REPLY), &r, fr.body, fr.body_len, &err)) {
		*rc = 0;       /* a whole answer */
		uint32_t n;
		const char **cells = acct_reply_cells(&r, &n);
		for (uint32_t k = 0; k < n; k++)
			strbuf_addf(&s, " %s ", cells[k]);
		free(cells);
		proto_free(MSG_ACCT_REPLY, &r);
	}
	free(err);
	strbuf_release(&f);
	return strbuf_detach(&s);
}

static void sshare_cache_checks(ctld_t *cd, int64_t t)
{
	int rc;
	char *a = frame_of(cd, "all=1", "cols=depth,user,raw_usage", 0, &rc);
	is_int(rc, 0, "kept answer: made");
	char *b = frame_of(cd, "all=1", "cols=depth,user,raw_usage", 0, &rc);
	is_str(b, a, "kept answer: the same bytes again");
	free(b);
	b = frame_of(cd, "all=1", "cols=depth,user,raw_usage", 1003, &rc);
	is_str(b, a, "sshare -a: the same answer for another caller");
	free(b);
	char *own = frame_of(cd, "cols=depth,user,raw_usage", NULL, 1003, &rc);
	char *own0 = frame_of(cd, "cols=depth,user,raw_usage", NULL, 0, &rc);
	ok(strcmp(own, own0) != 0 && strstr(own, "u2") && !strstr(own0, "u2"),
	   "a caller's own rows are kept per caller");
	free(own);
	free(own0);
	/* one word holding a newline is not the two words around it */
	own = frame_of(cd, "all=1\ncols=depth,user", "tres=0", 0, &rc);   /* every column */
	own0 = frame_of(cd, "all=1", "cols=depth,user\ntres=0", 0, &rc);  /* depth only */
	ok(strstr(own, "0.500000") && !strstr(own0, "0.500000"), "kept answers: one word is not two");
	free(own);
	free(own0);
	double raw = cd->acct.assocs[2].usage_raw;
	acct_usage_advance(cd, t + 3600);          /* usage decays: new values */
	ok(cd->acct.assocs[2].usage_raw != raw, "usage moved");
	b = frame_of(cd, "all=1", "cols=depth,user,raw_usage", 0, &rc);
	ok(strcmp(b, a) != 0, "kept answer: made again after usage moved");
	free(a);
	a = b;
	cd->acct.assocs[2].shares_raw = 7;
	cd->acct.gen++;         /* what acct_changed bumps (its index is not this test's) */
	b = frame_of(cd, "all=1", "cols=depth,user,raw_shares", 0, &rc);
	ok(strstr(b, " 7 ") != NULL, "kept answer: made again after the tree changed");
	free(b);
	cd->acct.assocs[2].shares_raw = 1;
	cd->acct.gen++;
	cd->conf_gen++;
	b = frame_of(cd, "all=1", "cols=depth,user,raw_usage", 0, &rc);
	is_str(b, a, "after a reconfigure: made again, same rows");
	free(b);
	free(a);
	cd->jobs[0]->end_time = ctld_now() + 3600;
	a = frame_of(cd, "all=1", "cols=depth,tres_run_mins", 0, &rc);
	cd->jobs[0]->end_time -= 600;            /* its remaining time moves */
	b = frame_of(cd, "all=1", "cols=depth,tres_run_mins", 0, &rc);
	ok(rc == 0 && strcmp(a, b) != 0 && strstr(a, "cpu="), "TRESRunMins: never kept");
	cd->jobs[0]->end_time = 0;
	free(a);
	free(b);
}

/* The sshare rows for the arguments, as "depth|account|user|raw_shares|
 * norm_shares|raw_usage|norm_usage|eff_usage|fairshare|level_fs|is_user". */
static char *sshare_rows(ctld_t *cd, const char *a1, const char *a2, uint32_t uid)
{
	msg_acct_req_t req = { .op = ACCT_OP_SSHARE };
	if (a1)
		strv_push(&req.args, a1);
	if (a2)
		strv_push(&req.args, a2);
	msg_acct_reply_t out = { 0 };
	acct_sshare(cd, &req, uid, &out);
	static const char *const want[] = { "depth", "account", "user", "raw_shares", "norm_shares",
		"raw_usage", "norm_usage", "eff_usage", "fairshare", "level_fs", "is_user" };
	int ci[11];
	for (int k = 0; k < 11; k++) {
		ci[k] = -1;
		for (uint32_t c = 0; c < out.cols.n; c++)
			if (!strcmp(out.cols.v[c], want[k]))
				ci[k] = (int)c;
	}
	strbuf_t sb = STRBUF_INIT;
	for (uint32_t r = 0; out.cols.n && r < out.cells.n / out.cols.n; r++) {
		char **cell = &out.cells.v[r * out.cols.n];
		for (int k = 0; k < 11; k++) {
			const char *v = ci[k] >= 0 ? cell[ci[k]] : "?";
			strbuf_addf(&sb, "%s%s", k ? "|" : "", k == 10 ? (strcmp(v, "1") ? "" : "1") : v);
		}
		strbuf_addch(&sb, '\n');
	}
	strv_free(&req.args);
	proto_free(MSG_ACCT_REPLY, &out);
	return strbuf_detach(&sb);
}

static void open_cd(ctld_t *cd, conf_t *conf, const char *db)
{
	memset(cd, 0, sizeof(*cd));
	ctld_metrics_init(cd);     /* db_commit records its latency */
	cd->conf = conf;
	char *err = NULL;
	if (db_open(cd, db, &err)) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	model(cd);
}

static void close_cd(ctld_t *cd)
{
	acct_sshare_cache_free(cd);
	db_close(cd);
	prom_hist_release(&cd->mstats.sched_cycle);
	prom_hist_release(&cd->mstats.bf_cycle);
	prom_hist_release(&cd->mstats.commit);
	prom_hist_release(&cd->mstats.turn);
	free(cd->acct.assocs);
	free(cd->acct.qos);
}

/* acct_reply_frame: an answer over the whole-frame limit becomes an
 * error answer that says so, after what the buffer held before. */
static void too_large_answer(void)
{
	msg_acct_reply_t r = { .rc = 0 };
	r.table_len = PROTO_MAX_FRAME + 1;
	r.table = xcalloc(r.table_len, 1);
	strbuf_t f = STRBUF_INIT;
	strbuf_addstr(&f, "kept");
	acct_reply_frame(&f, &r);
	free(r.table);
	ok(f.len > 4 && f.len < 4096 && !memcmp(f.buf, "kept", 4),
	   "a short frame after the bytes already there");
	frame_t fr;
	char *err = NULL;
	msg_acct_reply_t d = { 0 };
	int parsed = net_frame_parse(f.buf + 4, f.len - 4, &fr, &err) == 1 && fr.type == MSG_ACCT_REPLY &&
		     !codec_decode(proto_schema(MSG_ACCT_REPLY), &d, fr.body, fr.body_len, &err);
	ok(parsed, "it is an accounting answer");
	is_int(d.rc, SLURM_ERROR, "an error");
	ok(d.msg && strstr(d.msg, "the answer is too large") && strstr(d.msg, "narrow the query"),
	   "that names the problem and the remedy");
	if (parsed)
		proto_free(MSG_ACCT_REPLY, &d);
	free(err);
	strbuf_release(&f);
}

int main(void)
{
	too_large_answer();
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	char *cpath = xasprintf("%s/slurm.conf", dir), *db = xasprintf("%s/state.db", dir);
	FILE *f = fopen(cpath, "w");
	fprintf(f, "ClusterName=t\nSlurmctldHost=localhost\nNodeName=n1 CPUs=8\n"
		   "PartitionName=p Nodes=n1 Default=YES\nPriorityDecayHalfLife=1-0\n");
	fclose(f);
	conf_t *conf = conf_load(cpath, CONF_CLIENT);
	ok(conf != NULL, "config loaded");
	if (!conf)
		return done_testing();

	ctld_t cd;
	open_cd(&cd, conf, db);
	int64_t t0 = ctld_now() - 200000;   /* all of it in the past */
	job_t *j1 = mkjob(1, 3, 1, 4, t0 - 100), *j2 = mkjob(2, 4, 2, 2, t0 - 100);
	job_t *jobs[] = { j1, j2 };
	cd.jobs = jobs;
	cd.njobs = 2;

	/* the first use sets the watermark: nothing before it is charged */
	acct_usage_advance(&cd, t0);
	NEAR(cd.acct.assocs[2].usage_raw, 0, "nothing charged before accounting started");

	acct_usage_advance(&cd, t0 + 60);
	double d60 = acct_usage_decay_factor(86400, 60);
	(void)d60;
	NEAR(cd.acct.assocs[2].usage_raw, 4 * 60, "u1: 4 CPUs x 60 s");
	NEAR(cd.acct.assocs[3].usage_raw, 2 * 60 * 2, "u2: 2 CPUs x 60 s x UsageFactor 2");
	NEAR(cd.acct.assocs[1].usage_raw, 240 + 240, "account a: its users' sum");
	NEAR(cd.acct.assocs[0].usage_raw, 480, "root: everything");
	NEAR(cd.acct.assocs[2].usage_tres[LIM_TRES_MEM], 1000 * 60, "u1: MB-seconds");
	NEAR(cd.acct.assocs[2].usage_tres[LIM_TRES_GPU], 2 * 60, "u1: GPU-seconds");
	NEAR(cd.acct.assocs[2].usage_wall, 60, "u1: wall seconds");
	NEAR(cd.acct.qos[1].s.usage_tres[LIM_TRES_CPU], 2 * 60 * 2, "QOS double: CPU-seconds x 2");

	/* j1 ends 30 s later: charged exactly to its end, once */
	acct_usage_job_stop(&cd, j1, t0 + 90);
	j1->state = JOB_COMPLETE;
	NEAR(cd.acct.assocs[2].usage_raw, 4 * 90, "u1 charged to its end");
	acct_usage_job_stop(&cd, j1, t0 + 95);
	NEAR(cd.acct.assocs[2].usage_raw, 4 * 90, "an ended job is not charged again");
	j2->state = JOB_COMPLETE;
	acct_usage_job_stop(&cd, j2, t0 + 95);   /* not running: nothing */
	j2->state = JOB_RUNNING;
	acct_usage_job_stop(&cd, j2, t0 + 60);
	NEAR(cd.acct.assocs[3].usage_raw, 240, "u2 not charged twice for seconds already charged");
	j2->state = JOB_COMPLETE;

	/* a half-life later everything halves, but the NoDecay QOS */
	int64_t t1 = t0 + 60 + 86400;
	acct_usage_advance(&cd, t1);
	NEAR(cd.acct.assocs[2].usage_raw, 4 * 90 / 2.0, "u1 halved after one half-life");
	NEAR(cd.acct.assocs[0].usage_raw, (360 + 240) / 2.0, "root halved");
	NEAR(cd.acct.qos[1].s.usage_tres[LIM_TRES_CPU], 240, "NoDecay QOS kept its usage");
	NEAR(acct_usage_decay_factor(0, 1000), 1, "half-life 0: no decay");
	NEAR(acct_usage_decay_factor(100, 200), 0.25, "two half-lives: a quarter");

	/* fair share follows: u2 (less usage) ranks above u1 */
	double f1 = acct_usage_fs_factor(&cd, 3), f2 = acct_usage_fs_factor(&cd, 4);
	ok(f2 > f1, "u2's fair-share factor (%.3f) above u1's (%.3f)", f2, f1);
	NEAR(f2, 1.0, "u2 ranks first of 2 users");
	NEAR(f1, 0.5, "u1 second");
	uint32_t n;
	const sched_assoc_t *tree = acct_usage_tree(&cd, &n, NULL);
	is_int(n, 4, "the tree for sshare");
	NEAR(tree[2].fs_eff_usage, 360.0 / 600, "u1 EffectvUsage within its account");

	/* sshare's rows: tree order, depth, Slurm's formatting (RawUsage is
	 * the usage truncated, as Slurm prints it: a hair under 300 after the
	 * decay steps shows 299) */
	unsigned long long r0 = (unsigned long long)cd.acct.assocs[0].usage_raw;
	unsigned long long r2 = (unsigned long long)cd.acct.assocs[2].usage_raw;
	unsigned long long r3 = (unsigned long long)cd.acct.assocs[3].usage_raw;
	char *root_a = xasprintf("0|root|||0.000000|%llu||1.000000|||\n"
				 "1|a||1|1.000000|%llu|1.000000|1.000000||1.000000|\n", r0, r0);
	char *u1 = xasprintf("2|a|u1|1|0.500000|%llu|0.600000|0.600000|0.500000|0.833333|1\n", r2);
	char *u2 = xasprintf("2|a|u2|1|0.500000|%llu|0.400000|0.400000|1.000000|1.250000|1\n", r3);
	ok(r0 >= 299 && r0 <= 300 && r2 >= 179 && r2 <= 180 && r3 >= 119 && r3 <= 120,
	   "raw usage halved: %llu %llu %llu", r0, r2, r3);
	char *want = xasprintf("%s%s%s", root_a, u1, u2);
	char *rows = sshare_rows(&cd, "all=1", NULL, 0);
	is_str(rows, want, "sshare -a: every row, values as Slurm prints them");
	free(rows);
	free(want);
	want = xasprintf("%s%s", root_a, u2);
	rows = sshare_rows(&cd, "users=u2", NULL, 0);
	is_str(rows, want, "sshare -u u2");
	free(rows);
	rows = sshare_rows(&cd, NULL, NULL, 1003);
	is_str(rows, want, "sshare as u2: its own user row");
	free(rows);
	free(want);
	rows = sshare_rows(&cd, "accounts=a", NULL, 0);
	ok(!strncmp(rows, "1|a||1|", 7) && !strchr(strchr(rows, '\n') + 1, '|'),
	   "sshare -A a: the account row only");
	free(rows);
	free(root_a);
	free(u1);
	free(u2);

	/* only the columns asked for, in the answer's order */
	{
		msg_acct_req_t req = { .op = ACCT_OP_SSHARE };
		strv_push(&req.args, "all=1");
		strv_push(&req.args, "cols=user,depth,fairshare");
		msg_acct_reply_t out = { 0 };
		acct_sshare(&cd, &req, 0, &out);
		ok(out.cols.n == 3 && !strcmp(out.cols.v[0], "depth") && !strcmp(out.cols.v[1], "user") &&
		   !strcmp(out.cols.v[2], "fairshare") && out.cells.n == 12 &&
		   !strcmp(out.cells.v[10], "u2") && !strcmp(out.cells.v[11], "1.000000"),
		   "cols=: three columns, four rows");
		strv_free(&req.args);
		proto_free(MSG_ACCT_REPLY, &out);
	}

	/* committed, reopened: the usage and the watermark are back */
	is_int(db_commit(&cd), 0, "usage committed");
	double raw1 = cd.acct.assocs[2].usage_raw, qos_cpu = cd.acct.qos[1].s.usage_tres[LIM_TRES_CPU];
	close_cd(&cd);

	open_cd(&cd, conf, db);
	job_t *j3 = mkjob(3, 3, 1, 1, t0);     /* running across the restart */
	job_t *jobs2[] = { j3 };
	cd.jobs = jobs2;
	cd.njobs = 1;
	NEAR(acct_usage_fs_factor(&cd, 4), 1.0, "factors right after a restart");
	NEAR(cd.acct.assocs[2].usage_raw, raw1, "association usage restored");
	NEAR(cd.acct.qos[1].s.usage_tres[LIM_TRES_CPU], qos_cpu, "QOS usage restored");
	acct_usage_advance(&cd, t1 + 10);
	NEAR(cd.acct.assocs[2].usage_raw, raw1 * acct_usage_decay_factor(86400, 10) + 10,
	     "a job running across the restart: charged from the watermark only");
	sshare_cache_checks(&cd, t1 + 10);
	close_cd(&cd);

	/* a job whose association is gone is ignored; a bad tree gives 0 */
	open_cd(&cd, conf, db);
	job_t *j4 = mkjob(4, 99, 0, 1, t0);
	acct_usage_job_stop(&cd, j4, t1 + 100);
	cd.acct.assocs[1].parent_id = 3;    /* a <-> u1: not a tree */
	cd.acct.gen++;
	NEAR(acct_usage_fs_factor(&cd, 3), 0, "a broken tree: no factor, no crash");
	close_cd(&cd);

	for (job_t *k[] = { j1, j2, j3, j4, NULL }, **p = k; *p; p++) {
		free((*p)->alloc.cpus);
		free((*p)->alloc.mem);
		free((*p)->alloc.gpus);
		free(*p);
	}
	conf_destroy(conf);
	unlink(db);
	char *wal = xasprintf("%s-wal", db), *shm = xasprintf("%s-shm", db);
	unlink(wal);
	unlink(shm);
	unlink(cpath);
	rmdir(dir);
	free(wal);
	free(shm);
	free(cpath);
	free(db);
	return done_testing();
}
