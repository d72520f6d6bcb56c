/*
 * test_sched_limits: accounting limits and preemption by QOS in the pure
 * scheduler core (sched_limits.c, sched_pass), with no daemon: each limit
 * of an association or QOS against hand-computed expectations, Slurm's
 * reason names, inheritance down the tree, QOS over association
 * precedence, safe, and which running jobs preempt/qos picks.
 *
 * The cluster: 4 nodes x 8 CPUs x 4 GPUs, 16000 MB. The tree:
 *   0 root
 *   +- 1 acct_a            +- 4 acct_b
 *      +- 2 alice (1001)      +- 5 carol (1003)
 *      +- 3 bob   (1002)
 * QOS: 0 normal, 1 high (may preempt normal).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "sched_fixture.h"

#include "sched/sched.h"
#include "sched/sched_limits.h"
#include "states.h"
#include "timefmt.h"

#define NOW 100000
enum { ROOT, ACCT_A, ALICE, BOB, ACCT_B, CAROL, NA };
enum { Q_NORMAL, Q_HIGH, NQ };
#define U_ALICE 1001
#define U_BOB 1002
#define U_CAROL 1003

static char names[4][16];
static sched_assoc_t assocs[NA];
static sched_qos_t qos[NQ];
static uint64_t high_preempts[1] = { 1u << Q_NORMAL };

/* Running jobs the tests set up (their allocations are on the nodes). */
static sched_running_t run[16];
static sched_alloc_t run_alloc[16];
static uint32_t nrun;

static sched_t *cluster(void)
{
	sched_t *s = fixture_nodes(4, names, "n%u", 8, 16000);
	for (uint32_t i = 0; i < 4; i++) {
		s->nodes[i].ngpus = 4;
		s->nodes[i].ngpu_types = 1;
		s->nodes[i].gpu_types[0].count = 4;
	}
	fixture_one_part(s, 4, 1);
	sched_totals(s);
	static const struct { int32_t parent; uint32_t uid; const char *acct; } tree[NA] = {
		{ -1, UINT32_MAX, "root" }, { ROOT, UINT32_MAX, "acct_a" },
		{ ACCT_A, U_ALICE, "acct_a" }, { ACCT_A, U_BOB, "acct_a" },
		{ ROOT, UINT32_MAX, "acct_b" }, { ACCT_B, U_CAROL, "acct_b" },
	};
	memset(assocs, 0, sizeof(assocs));
	for (int a = 0; a < NA; a++) {
		assocs[a].id = (uint32_t)a + 1;
		assocs[a].parent = tree[a].parent;
		assocs[a].uid = tree[a].uid;
		assocs[a].account = tree[a].acct;
		lim_set_clear(&assocs[a].lim);
	}
	memset(qos, 0, sizeof(qos));
	qos[Q_NORMAL].name = "normal";
	qos[Q_HIGH].name = "high";
	qos[Q_HIGH].priority = 100;
	qos[Q_HIGH].preempt = high_preempts;
	for (int q = 0; q < NQ; q++) {
		qos[q].id = (uint32_t)q + 1;
		qos[q].usage_factor = 1.0;
		lim_set_clear(&qos[q].lim);
	}
	s->assocs = assocs;
	s->nassocs = NA;
	s->qos = qos;
	s->nqos = NQ;
	s->lim_enforce = SCHED_LIM_ENFORCE;
	nrun = 0;
	return s;
}

static void cluster_free(sched_t *s)
{
	for (uint32_t i = 0; i < nrun; i++)
		sched_alloc_free(&run_alloc[i]);
	nrun = 0;
	fixture_destroy(s);
}

/* A pending job: id, user (its association), QOS, tasks x 1 CPU on one
 * node, gpus per node, minutes. */
static sched_job_t job(uint32_t id, int32_t assoc, int32_t q, uint32_t cpus, uint32_t gpus,
		       uint32_t mins)
{
	sched_job_t j = fixture_job(id, cpus, 1);
	j.submit_time = 1000 + id;
	j.priority = 1000 - id;   /* lower id first */
	j.assoc = assoc;
	j.qos = q;
	j.user_id = assocs[assoc].uid;
	j.gpus_per_node = gpus;
	j.time_limit = mins;
	return j;
}

/* Start job j for real (limits off) and record it as running since
 * start, ending at end. */
static void running(sched_t *s, sched_job_t j, int64_t start, int64_t end)
{
	uint32_t saved = s->lim_enforce, saved_pm = s->preempt_mode;
	s->lim_enforce = 0;
	s->preempt_mode = LIM_PREEMPT_OFF;
	const sched_running_t *keep = s->running;
	uint32_t keepn = s->nrunning;
	s->running = NULL;
	s->nrunning = 0;
	uint32_t why = 0;
	run_alloc[nrun] = fixture_run1(s, j, &why);
	s->running = keep;
	s->nrunning = keepn;
	s->lim_enforce = saved;
	s->preempt_mode = saved_pm;
	if (!run_alloc[nrun].nnodes) {
		fprintf(stderr, "# running job %u did not start (reason %u)\n", j.job_id, why);
		return;
	}
	sched_running_t *r = &run[nrun];
	memset(r, 0, sizeof(*r));
	r->alloc = &run_alloc[nrun];
	r->end_time = end;
	r->start_time = start;
	r->job_id = j.job_id;
	r->uid = j.user_id;
	r->assoc = j.assoc;
	r->qos = j.qos;
	nrun++;
	s->running = run;
	s->nrunning = nrun;
}

/* One pass over jobs; per job (in the given order) start 1/0 into st and
 * the reason into why. */
static void pass(sched_t *s, sched_job_t *jobs, uint32_t n, int *st, uint32_t *why)
{
	sched_decision_t *d = NULL;
	sched_pass(s, jobs, n, NOW, &d);
	for (uint32_t i = 0; i < n; i++) {
		st[d[i].job_index] = d[i].start;
		why[d[i].job_index] = d[i].reason;
	}
	/* Give back what started: each test starts from its running set. */
	for (uint32_t i = 0; i < n; i++)
		if (d[i].start)
			sched_alloc_release(s, &d[i].alloc);
	sched_decisions_free(d, n);
}

/* The reason of one pending job alone. */
static uint32_t reason1(sched_t *s, sched_job_t j)
{
	int st = 0;
	uint32_t why = 0;
	pass(s, &j, 1, &st, &why);
	return st ? WAIT_NO_REASON : why;
}

#define is_reason(got, want, name) \
	is_str(job_reason_string(got), job_reason_string(want), name)

static void test_names(void)
{
	is_str(job_reason_string(WAIT_ASSOC_GRP_GRES), "AssocGrpGRES", "AssocGrpGRES name");
	is_str(job_reason_string(WAIT_QOS_MAX_GRES_PER_USER), "QOSMaxGRESPerUser",
	       "QOSMaxGRESPerUser name");
	is_str(job_reason_string(WAIT_ASSOC_MAX_WALL_PER_JOB), "AssocMaxWallDurationPerJobLimit",
	       "AssocMaxWallDurationPerJobLimit name");
	is_str(job_reason_string(WAIT_QOS_GRP_CPU), "QOSGrpCpuLimit", "QOSGrpCpuLimit name");
	is_str(job_reason_string(WAIT_QOS_MAX_JOB_PER_ACCT), "MaxJobsPerAccount",
	       "MaxJobsPerAccount name");
	is_str(job_reason_string(WAIT_QOS_MIN_CPU), "QOSMinCpuNotSatisfied", "QOSMinCpu name");
	is_str(job_reason_string(WAIT_ASSOC_GRP_CPU_RUN_MIN), "AssocGrpCPURunMinutesLimit",
	       "AssocGrpCPURunMinutesLimit name");
}

static void test_max_jobs(void)
{
	sched_t *s = cluster();
	assocs[ALICE].lim.max_jobs = 1;
	/* Two of alice's, then bob's (lower priority): alice's second is
	 * held by the limit, bob's is not blocked by it. */
	sched_job_t jobs[3] = { job(1, ALICE, Q_NORMAL, 1, 0, 60), job(2, ALICE, Q_NORMAL, 1, 0, 60),
				job(3, BOB, Q_NORMAL, 1, 0, 60) };
	int st[3];
	uint32_t why[3];
	pass(s, jobs, 3, st, why);
	ok(st[0], "alice's first job starts");
	ok(!st[1], "alice's second waits");
	is_reason(why[1], WAIT_ASSOC_MAX_JOBS, "reason AssocMaxJobsLimit");
	ok(st[2], "bob's lower-priority job starts past it");

	/* Counted from the running jobs too. */
	running(s, job(10, ALICE, Q_NORMAL, 1, 0, 60), NOW - 60, NOW + 3540);
	is_reason(reason1(s, job(4, ALICE, Q_NORMAL, 1, 0, 60)), WAIT_ASSOC_MAX_JOBS,
		  "a running job counts");
	is_reason(reason1(s, job(5, BOB, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON,
		  "bob is not limited by alice's MaxJobs");

	/* Inherited: MaxJobs=1 on acct_a applies to each user under it. */
	assocs[ALICE].lim.max_jobs = LIM_UNSET;
	assocs[ACCT_A].lim.max_jobs = 1;
	is_reason(reason1(s, job(6, ALICE, Q_NORMAL, 1, 0, 60)), WAIT_ASSOC_MAX_JOBS,
		  "MaxJobs inherited from the account");
	is_reason(reason1(s, job(7, BOB, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON,
		  "inherited MaxJobs counts per user association");
	/* The user's own value wins over the parent's. */
	assocs[ALICE].lim.max_jobs = 2;
	is_reason(reason1(s, job(8, ALICE, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON,
		  "the association's own MaxJobs overrides the parent's");
	/* Without enforcement, nothing. */
	assocs[ALICE].lim.max_jobs = 1;
	s->lim_enforce = 0;
	is_reason(reason1(s, job(9, ALICE, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON,
		  "no AccountingStorageEnforce=limits: no limit");
	cluster_free(s);
}

static void test_grp(void)
{
	sched_t *s = cluster();
	assocs[ACCT_A].lim.grp_jobs = 1;
	running(s, job(10, ALICE, Q_NORMAL, 1, 0, 60), NOW - 60, NOW + 3540);
	is_reason(reason1(s, job(1, BOB, Q_NORMAL, 1, 0, 60)), WAIT_ASSOC_GRP_JOB,
		  "GrpJobs counts the account's subtree");
	is_reason(reason1(s, job(2, CAROL, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON,
		  "another account is not limited");
	assocs[ACCT_A].lim.grp_jobs = LIM_UNSET;

	/* GrpTRES gres/gpu=4 on acct_a with 3 GPUs in use. */
	cluster_free(s);
	s = cluster();
	assocs[ACCT_A].lim.grp_tres.v[LIM_TRES_GPU] = 4;
	running(s, job(10, ALICE, Q_NORMAL, 1, 3, 60), NOW - 60, NOW + 3540);
	is_reason(reason1(s, job(1, BOB, Q_NORMAL, 1, 2, 60)), WAIT_ASSOC_GRP_GRES,
		  "GrpTRES=gres/gpu=4: 3 + 2 GPUs waits with AssocGrpGRES");
	is_reason(reason1(s, job(2, BOB, Q_NORMAL, 1, 1, 60)), WAIT_NO_REASON,
		  "3 + 1 GPUs fits");
	/* Within one pass: the first start uses up the rest. */
	sched_job_t two[2] = { job(3, BOB, Q_NORMAL, 1, 1, 60), job(4, ALICE, Q_NORMAL, 1, 1, 60) };
	int st[2];
	uint32_t why[2];
	pass(s, two, 2, st, why);
	ok(st[0] && !st[1], "the pass counts the GPUs it just gave");
	is_reason(why[1], WAIT_ASSOC_GRP_GRES, "second of the pass: AssocGrpGRES");

	/* GrpTRES cpu on the root (the whole cluster's subtree). */
	assocs[ACCT_A].lim.grp_tres.v[LIM_TRES_GPU] = LIM_UNSET;
	assocs[ROOT].lim.grp_tres.v[LIM_TRES_CPU] = 2;
	is_reason(reason1(s, job(5, CAROL, Q_NORMAL, 2, 0, 60)), WAIT_ASSOC_GRP_CPU,
		  "GrpTRES=cpu=2 on root: 1 + 2 CPUs waits (AssocGrpCpuLimit)");
	is_reason(reason1(s, job(6, CAROL, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON, "1 + 1 fits");
	assocs[ROOT].lim.grp_tres.v[LIM_TRES_CPU] = LIM_UNSET;
	assocs[ACCT_B].lim.grp_tres.v[LIM_TRES_NODE] = 1;
	sched_job_t two_nodes = job(7, CAROL, Q_NORMAL, 2, 0, 60);
	two_nodes.min_nodes = two_nodes.max_nodes = 2;
	is_reason(reason1(s, two_nodes), WAIT_ASSOC_GRP_NODE, "GrpTRES=node=1: AssocGrpNodeLimit");
	assocs[ACCT_B].lim.grp_tres.v[LIM_TRES_NODE] = LIM_UNSET;
	assocs[ACCT_B].lim.grp_tres.v[LIM_TRES_MEM] = 1000;
	is_reason(reason1(s, job(8, CAROL, Q_NORMAL, 1, 0, 60)), WAIT_ASSOC_GRP_MEM,
		  "GrpTRES=mem=1000 vs --mem=1024: AssocGrpMemLimit");
	cluster_free(s);
}

static void test_wall_and_minutes(void)
{
	sched_t *s = cluster();
	assocs[ACCT_A].lim.max_wall = 30;
	is_reason(reason1(s, job(1, ALICE, Q_NORMAL, 1, 0, 60)), WAIT_ASSOC_MAX_WALL_PER_JOB,
		  "MaxWall=30 inherited, 60-minute job: AssocMaxWallDurationPerJobLimit");
	is_reason(reason1(s, job(2, ALICE, Q_NORMAL, 1, 0, 30)), WAIT_NO_REASON,
		  "30 minutes is within MaxWall=30");
	/* A QOS MaxWall overrides the association's, even higher. */
	qos[Q_NORMAL].lim.max_wall = 120;
	is_reason(reason1(s, job(3, ALICE, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON,
		  "QOS MaxWall=120 takes precedence over the association's 30");
	is_reason(reason1(s, job(4, ALICE, Q_NORMAL, 1, 0, 121)), WAIT_QOS_MAX_WALL_PER_JOB,
		  "121 minutes: QOSMaxWallDurationPerJobLimit");
	qos[Q_NORMAL].lim.max_wall = LIM_UNSET;
	assocs[ACCT_A].lim.max_wall = LIM_UNSET;

	/* MaxTRESMins cpu=100: 2 CPUs x 60 min = 120. */
	assocs[ALICE].lim.max_tres_mins_pj.v[LIM_TRES_CPU] = 100;
	is_reason(reason1(s, job(5, ALICE, Q_NORMAL, 2, 0, 60)), WAIT_ASSOC_MAX_CPU_MINS_PER_JOB,
		  "2 CPUs x 60 min > MaxTRESMins=cpu=100");
	is_reason(reason1(s, job(6, ALICE, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON,
		  "1 CPU x 60 min fits");
	assocs[ALICE].lim.max_tres_mins_pj.v[LIM_TRES_CPU] = LIM_UNSET;

	/* GrpTRESMins cpu=100 against the decayed usage (TRES-seconds). */
	assocs[ACCT_A].lim.grp_tres_mins.v[LIM_TRES_CPU] = 100;
	assocs[ACCT_A].usage_tres[LIM_TRES_CPU] = 6000;   /* 100 minutes */
	is_reason(reason1(s, job(7, BOB, Q_NORMAL, 1, 0, 60)), WAIT_ASSOC_GRP_CPU_MIN,
		  "usage 100 CPU-min reached GrpTRESMins=cpu=100: AssocGrpCPUMinutesLimit");
	assocs[ACCT_A].usage_tres[LIM_TRES_CPU] = 5000;   /* 83.3 minutes */
	is_reason(reason1(s, job(8, BOB, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON,
		  "83 of 100 used: a 60 CPU-min job starts without safe");
	s->lim_enforce |= SCHED_LIM_SAFE;
	is_reason(reason1(s, job(9, BOB, Q_NORMAL, 1, 0, 60)), WAIT_ASSOC_GRP_CPU_MIN,
		  "safe: 83 + 60 > 100 does not start");
	is_reason(reason1(s, job(10, BOB, Q_NORMAL, 1, 0, 15)), WAIT_NO_REASON,
		  "safe: 83 + 15 <= 100 starts");
	s->lim_enforce &= ~SCHED_LIM_SAFE;
	assocs[ACCT_A].lim.grp_tres_mins.v[LIM_TRES_CPU] = LIM_UNSET;

	/* GrpWall=60 minutes of decayed wall time. */
	assocs[ACCT_B].lim.grp_wall = 60;
	assocs[ACCT_B].usage_wall = 3600;
	is_reason(reason1(s, job(11, CAROL, Q_NORMAL, 1, 0, 10)), WAIT_ASSOC_GRP_WALL,
		  "GrpWall=60 used up: AssocGrpWallLimit");
	assocs[ACCT_B].usage_wall = 0;
	assocs[ACCT_B].lim.grp_wall = LIM_UNSET;

	/* GrpTRESRunMins cpu=100: a running 1-CPU job with 50 minutes left. */
	assocs[ACCT_A].lim.grp_tres_run_mins.v[LIM_TRES_CPU] = 100;
	running(s, job(20, ALICE, Q_NORMAL, 1, 0, 60), NOW - 600, NOW + 3000);
	is_reason(reason1(s, job(12, BOB, Q_NORMAL, 1, 0, 60)), WAIT_ASSOC_GRP_CPU_RUN_MIN,
		  "50 + 60 CPU-min > GrpTRESRunMins=cpu=100");
	is_reason(reason1(s, job(13, BOB, Q_NORMAL, 1, 0, 50)), WAIT_NO_REASON,
		  "50 + 50 fits");
	cluster_free(s);
}

static void test_qos(void)
{
	sched_t *s = cluster();
	qos[Q_NORMAL].lim.max_tres_pu.v[LIM_TRES_GPU] = 2;
	running(s, job(10, ALICE, Q_NORMAL, 1, 2, 60), NOW - 60, NOW + 3540);
	is_reason(reason1(s, job(1, ALICE, Q_NORMAL, 1, 1, 60)), WAIT_QOS_MAX_GRES_PER_USER,
		  "MaxTRESPerUser=gres/gpu=2 with 2 in use: QOSMaxGRESPerUser");
	is_reason(reason1(s, job(2, BOB, Q_NORMAL, 1, 1, 60)), WAIT_NO_REASON,
		  "another user of the QOS is not limited");
	is_reason(reason1(s, job(3, ALICE, Q_HIGH, 1, 1, 60)), WAIT_NO_REASON,
		  "the user in another QOS is not limited");
	qos[Q_NORMAL].lim.max_tres_pu.v[LIM_TRES_GPU] = LIM_UNSET;

	qos[Q_NORMAL].lim.max_jobs_pu = 1;
	is_reason(reason1(s, job(4, ALICE, Q_NORMAL, 1, 0, 60)), WAIT_QOS_MAX_JOB_PER_USER,
		  "MaxJobsPerUser=1: QOSMaxJobsPerUserLimit");
	/* QOS MaxJobsPerUser overrides the association's MaxJobs. */
	assocs[BOB].lim.max_jobs = 0;
	is_reason(reason1(s, job(5, BOB, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON,
		  "QOS MaxJobsPerUser set: the association's MaxJobs=0 is not checked");
	assocs[BOB].lim.max_jobs = LIM_UNSET;
	qos[Q_NORMAL].lim.max_jobs_pu = LIM_UNSET;

	qos[Q_NORMAL].lim.max_jobs_pa = 1;
	is_reason(reason1(s, job(6, BOB, Q_NORMAL, 1, 0, 60)), WAIT_QOS_MAX_JOB_PER_ACCT,
		  "MaxJobsPerAccount=1, alice's job in acct_a: bob waits (MaxJobsPerAccount)");
	is_reason(reason1(s, job(7, CAROL, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON,
		  "acct_b has none running");
	/* As Slurm: a QOS MaxJobsPerAccount also replaces MaxJobs. */
	qos[Q_NORMAL].lim.max_jobs_pa = 5;
	assocs[CAROL].lim.max_jobs = 0;
	is_reason(reason1(s, job(8, CAROL, Q_NORMAL, 1, 0, 60)), WAIT_NO_REASON,
		  "QOS MaxJobsPerAccount set: the association's MaxJobs=0 is not checked");
	assocs[CAROL].lim.max_jobs = LIM_UNSET;
	qos[Q_NORMAL].lim.max_jobs_pa = LIM_UNSET;

	qos[Q_NORMAL].lim.grp_jobs = 1;
	is_reason(reason1(s, job(8, CAROL, Q_NORMAL, 1, 0, 60)), WAIT_QOS_GRP_JOB,
		  "QOS GrpJobs=1: QOSGrpJobsLimit");
	qos[Q_NORMAL].lim.grp_jobs = LIM_UNSET;

	qos[Q_NORMAL].lim.grp_tres.v[LIM_TRES_CPU] = 4;
	is_reason(reason1(s, job(9, CAROL, Q_NORMAL, 4, 0, 60)), WAIT_QOS_GRP_CPU,
		  "QOS GrpTRES=cpu=4, 1 used, 4 asked: QOSGrpCpuLimit");
	is_reason(reason1(s, job(11, CAROL, Q_NORMAL, 3, 0, 60)), WAIT_NO_REASON, "1 + 3 fits");
	qos[Q_NORMAL].lim.grp_tres.v[LIM_TRES_CPU] = LIM_UNSET;
	qos[Q_NORMAL].lim.grp_tres.v[LIM_TRES_GPU] = 3;
	is_reason(reason1(s, job(12, CAROL, Q_NORMAL, 1, 2, 60)), WAIT_QOS_GRP_GRES,
		  "QOS GrpTRES=gres/gpu=3, 2 used: QOSGrpGRES");
	qos[Q_NORMAL].lim.grp_tres.v[LIM_TRES_GPU] = LIM_UNSET;

	qos[Q_NORMAL].lim.max_tres_pj.v[LIM_TRES_CPU] = 2;
	is_reason(reason1(s, job(13, CAROL, Q_NORMAL, 3, 0, 60)), WAIT_QOS_MAX_CPU_PER_JOB,
		  "QOS MaxTRES=cpu=2: QOSMaxCpuPerJobLimit");
	/* The association's MaxTRES is ignored for what the QOS sets. */
	assocs[CAROL].lim.max_tres_pj.v[LIM_TRES_CPU] = 1;
	is_reason(reason1(s, job(14, CAROL, Q_NORMAL, 2, 0, 60)), WAIT_NO_REASON,
		  "QOS MaxTRES=cpu=2 overrides the association's cpu=1");
	qos[Q_NORMAL].lim.max_tres_pj.v[LIM_TRES_CPU] = LIM_UNSET;
	is_reason(reason1(s, job(15, CAROL, Q_NORMAL, 2, 0, 60)), WAIT_ASSOC_MAX_CPU_PER_JOB,
		  "without it the association's: AssocMaxCpuPerJobLimit");
	assocs[CAROL].lim.max_tres_pj.v[LIM_TRES_CPU] = LIM_UNSET;

	qos[Q_NORMAL].lim.max_tres_pj.v[LIM_TRES_NODE] = 1;
	sched_job_t two_nodes = job(16, CAROL, Q_NORMAL, 2, 0, 60);
	two_nodes.min_nodes = two_nodes.max_nodes = 2;
	is_reason(reason1(s, two_nodes), WAIT_QOS_MAX_NODE_PER_JOB,
		  "QOS MaxTRES=node=1: QOSMaxNodePerJobLimit");
	qos[Q_NORMAL].lim.max_tres_pj.v[LIM_TRES_NODE] = LIM_UNSET;
	qos[Q_NORMAL].lim.max_tres_pn.v[LIM_TRES_GPU] = 1;
	is_reason(reason1(s, job(17, CAROL, Q_NORMAL, 1, 2, 60)), WAIT_QOS_MAX_GRES_PER_NODE,
		  "QOS MaxTRESPerNode=gres/gpu=1: QOSMaxGRESPerNode");
	qos[Q_NORMAL].lim.max_tres_pn.v[LIM_TRES_GPU] = LIM_UNSET;
	qos[Q_NORMAL].lim.min_tres_pj.v[LIM_TRES_CPU] = 4;
	is_reason(reason1(s, job(18, CAROL, Q_NORMAL, 2, 0, 60)), WAIT_QOS_MIN_CPU,
		  "QOS MinTRES=cpu=4: QOSMinCpuNotSatisfied");
	qos[Q_NORMAL].lim.min_tres_pj.v[LIM_TRES_CPU] = LIM_UNSET;
	qos[Q_NORMAL].lim.max_tres_pa.v[LIM_TRES_GPU] = 2;
	is_reason(reason1(s, job(19, BOB, Q_NORMAL, 1, 1, 60)), WAIT_QOS_MAX_GRES_PER_ACCT,
		  "QOS MaxTRESPerAccount=gres/gpu=2, acct_a uses 2: MaxGRESPerAccount");
	qos[Q_NORMAL].lim.max_tres_pa.v[LIM_TRES_GPU] = LIM_UNSET;

	/* In one pass: MaxJobsPerUser=2, three of carol's: two start. */
	qos[Q_NORMAL].lim.max_jobs_pu = 2;
	sched_job_t three[3] = { job(21, CAROL, Q_NORMAL, 1, 0, 60), job(22, CAROL, Q_NORMAL, 1, 0, 60),
				 job(23, CAROL, Q_NORMAL, 1, 0, 60) };
	int st[3];
	uint32_t why[3];
	pass(s, three, 3, st, why);
	ok(st[0] && st[1] && !st[2], "MaxJobsPerUser=2: two of three start in one pass");
	is_reason(why[2], WAIT_QOS_MAX_JOB_PER_USER, "the third: QOSMaxJobsPerUserLimit");
	qos[Q_NORMAL].lim.max_jobs_pu = LIM_UNSET;

	/* The static (submit-time) check sees per-job limits only. */
	qos[Q_NORMAL].lim.max_tres_pj.v[LIM_TRES_GPU] = 1;
	sched_job_t big = job(24, CAROL, Q_NORMAL, 1, 2, 60);
	is_reason(lim_job_check_static(s, &big), WAIT_QOS_MAX_GRES_PER_JOB,
		  "static: QOSMaxGRESPerJob");
	qos[Q_NORMAL].lim.max_tres_pj.v[LIM_TRES_GPU] = LIM_UNSET;
	qos[Q_NORMAL].lim.max_tres_pu.v[LIM_TRES_GPU] = 1;
	is_reason(lim_job_check_static(s, &big), WAIT_QOS_MAX_GRES_PER_USER,
		  "static: the job alone over MaxTRESPerUser");
	qos[Q_NORMAL].lim.max_tres_pu.v[LIM_TRES_GPU] = LIM_UNSET;
	assocs[ACCT_B].lim.grp_tres.v[LIM_TRES_GPU] = 1;
	is_reason(lim_job_check_static(s, &big), WAIT_ASSOC_GRP_GRES,
		  "static: the job alone over its account's GrpTRES");
	assocs[ACCT_B].lim.grp_tres.v[LIM_TRES_GPU] = LIM_UNSET;
	qos[Q_NORMAL].lim.max_jobs_pu = 0;
	sched_job_t small = job(25, CAROL, Q_NORMAL, 1, 1, 60);
	is_reason(lim_job_check_static(s, &small), WAIT_NO_REASON,
		  "static: counts are not checked");
	cluster_free(s);
}

/* A job blocked by a limit does not hold up backfill for the others,
 * and is not planned. */
static void test_backfill(void)
{
	sched_t *s = cluster();
	s->params.backfill = 1;
	s->params.bf_window = 1440;
	s->params.bf_resolution = 60;
	s->params.bf_max_job_test = 100;
	s->run_backfill = 1;
	assocs[ALICE].lim.max_jobs = 0;
	sched_job_t jobs[2] = { job(1, ALICE, Q_NORMAL, 1, 0, 60), job(2, BOB, Q_NORMAL, 1, 0, 60) };
	sched_decision_t *d = NULL;
	sched_pass(s, jobs, 2, NOW, &d);
	for (int i = 0; i < 2; i++) {
		if (d[i].job_index == 0) {
			ok(!d[i].start && !d[i].sched_nodes,
			   "the limited job is not planned by backfill");
			/* Slurm's backfill evaluates it before the limit
			 * stops it: the capture's job 8 (AssocMaxJobsLimit)
			 * shows Scheduler=Backfill:*. */
			ok(d[i].bf_examined, "but backfill has examined it (Scheduler=Backfill:*)");
			is_reason(d[i].reason, WAIT_ASSOC_MAX_JOBS, "and keeps its limit reason");
		} else {
			ok(d[i].start, "bob's job starts");
		}
		if (d[i].start)
			sched_alloc_release(s, &d[i].alloc);
	}
	sched_decisions_free(d, 2);
	cluster_free(s);
}

static int has(const sched_decision_t *d, uint32_t run_idx)
{
	for (uint32_t i = 0; i < d->npreempt; i++)
		if (d->preempt[i] == run_idx)
			return 1;
	return 0;
}

static void test_preempt(void)
{
	sched_t *s = cluster();
	s->preempt_mode = LIM_PREEMPT_CANCEL;
	/* Fill the cluster: node n0 with 2 + 4 + 2 CPUs started at 100, 200,
	 * 300; the others with 8-CPU jobs. */
	running(s, job(10, ALICE, Q_NORMAL, 2, 0, 600), 100, NOW + 3000);
	running(s, job(11, ALICE, Q_NORMAL, 4, 0, 600), 200, NOW + 3000);
	running(s, job(12, BOB, Q_NORMAL, 2, 0, 600), 300, NOW + 3000);
	for (uint32_t k = 0; k < 3; k++)
		running(s, job(13 + k, CAROL, Q_NORMAL, 8, 0, 600), 50, NOW + 3000);
	is_int(nrun, 6, "six running jobs fill the cluster");

	sched_job_t hj = job(1, CAROL, Q_HIGH, 4, 0, 60);
	sched_decision_t *d = NULL;
	sched_pass(s, &hj, 1, NOW, &d);
	ok(!d[0].start, "the high job does not start in the same pass");
	is_reason(d[0].reason, WAIT_RESOURCES, "it waits for Resources meanwhile");
	is_int(d[0].npreempt, 1, "one job is enough to preempt");
	ok(has(&d[0], 1), "the 4-CPU job 11: the youngest (12) alone is not enough");
	sched_decisions_free(d, 1);

	sched_job_t hj2 = job(2, CAROL, Q_HIGH, 2, 0, 60);
	sched_pass(s, &hj2, 1, NOW, &d);
	is_int(d[0].npreempt, 1, "2 CPUs: one job");
	ok(has(&d[0], 2), "the youngest (12)");
	sched_decisions_free(d, 1);

	/* The second high job of a pass waits behind the first. */
	sched_job_t hh[2] = { job(3, CAROL, Q_HIGH, 2, 0, 60), job(4, CAROL, Q_HIGH, 2, 0, 60) };
	sched_pass(s, hh, 2, NOW, &d);
	ok(d[0].npreempt == 1 && d[1].npreempt == 0, "one preemptor per partition and pass");
	is_reason(d[1].reason, WAIT_PRIORITY, "the next waits with Priority");
	sched_decisions_free(d, 2);

	/* A normal job preempts nothing; nor does high without preempt/qos. */
	sched_job_t nj = job(5, CAROL, Q_NORMAL, 2, 0, 60);
	sched_pass(s, &nj, 1, NOW, &d);
	is_int(d[0].npreempt, 0, "normal may not preempt normal");
	sched_decisions_free(d, 1);
	s->preempt_mode = LIM_PREEMPT_OFF;
	sched_pass(s, &hj2, 1, NOW, &d);
	is_int(d[0].npreempt, 0, "PreemptType none: no preemption");
	sched_decisions_free(d, 1);
	s->preempt_mode = LIM_PREEMPT_REQUEUE;

	/* A victim of an earlier pass still ending: enough, nothing more
	 * goes. */
	run[2].ending = 1;
	sched_pass(s, &hj2, 1, NOW, &d);
	is_int(d[0].npreempt, 0, "the ending job's 2 CPUs will do: no new victim");
	is_reason(d[0].reason, WAIT_RESOURCES, "it waits for them");
	sched_decisions_free(d, 1);
	sched_pass(s, &hj, 1, NOW, &d);
	is_int(d[0].npreempt, 1, "4 CPUs: one more victim beside the ending job");
	ok(has(&d[0], 1), "job 11 (the youngest that is enough), not the ending job 12");
	sched_decisions_free(d, 1);
	run[2].ending = 0;

	/* The node state is as it was: nothing free. */
	uint32_t used = 0;
	for (uint32_t i = 0; i < 4; i++)
		used += s->nodes[i].cpus_used;
	is_int(used, 32, "the victims' CPUs are back on the nodes after the pass");

	/* Too big even with every normal job gone: nothing is preempted. */
	sched_job_t huge = job(6, CAROL, Q_HIGH, 8, 0, 60);
	huge.min_nodes = huge.max_nodes = 5;
	huge.ntasks = 40;
	sched_pass(s, &huge, 1, NOW, &d);
	is_int(d[0].npreempt, 0, "a job that cannot fit preempts no one");
	sched_decisions_free(d, 1);

	/* A whole-node job takes the fewest: one 8-CPU job. */
	sched_job_t whole = job(7, CAROL, Q_HIGH, 8, 0, 60);
	sched_pass(s, &whole, 1, NOW, &d);
	is_int(d[0].npreempt, 1, "8 CPUs: one 8-CPU job rather than three on n0");
	ok(has(&d[0], 5), "of equal age, the highest job id (15)");
	sched_decisions_free(d, 1);

	/* No single victim is enough: youngest first until it fits, and
	 * those not needed are put back. n0 holds 2 + 4 + 2; a 2-node job of
	 * 16 CPUs needs n0 and one whole node. */
	sched_job_t twon = job(8, CAROL, Q_HIGH, 16, 0, 60);
	twon.min_nodes = twon.max_nodes = 2;
	sched_pass(s, &twon, 1, NOW, &d);
	is_int(d[0].npreempt, 4, "2 whole nodes: n0's three jobs and one 8-CPU job");
	ok(has(&d[0], 0) && has(&d[0], 1) && has(&d[0], 2) && has(&d[0], 5),
	   "jobs 10, 11, 12 and 15");
	sched_decisions_free(d, 1);
	cluster_free(s);
}

/* Cost: a pass with many pending jobs over many associations stays
 * linear (a smoke check that it completes and counts right). */
static void test_many(void)
{
	sched_t *s = cluster();
	enum { N = 20000 };
	sched_job_t *jobs = xmalloc(N * sizeof(*jobs));
	qos[Q_NORMAL].lim.max_jobs_pu = 3;
	for (uint32_t i = 0; i < N; i++) {
		jobs[i] = job(i + 1, (int32_t)(i % 2 ? ALICE : BOB), Q_NORMAL, 1, 0, 60);
		jobs[i].priority = N - i;
	}
	int *st = xmalloc(N * sizeof(int));
	uint32_t *why = xmalloc(N * sizeof(uint32_t));
	pass(s, jobs, N, st, why);
	uint32_t started = 0, limited = 0;
	for (uint32_t i = 0; i < N; i++) {
		started += (uint32_t)st[i];
		limited += why[i] == WAIT_QOS_MAX_JOB_PER_USER;
	}
	is_int(started, 6, "3 per user start out of 20000");
	is_int(limited, N - 6, "all others: QOSMaxJobsPerUserLimit");
	free(jobs);
	free(st);
	free(why);
	cluster_free(s);
}

int main(void)
{
	test_names();
	test_max_jobs();
	test_grp();
	test_wall_and_minutes();
	test_qos();
	test_backfill();
	test_preempt();
	test_many();
	return done_testing();
}
