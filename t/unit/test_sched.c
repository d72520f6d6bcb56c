/*
 * test_sched: the scheduler core driven directly, no daemon: fits and
 * does not fit, exclusive, GPU types, memory, pending reasons, commit and
 * release accounting, leaf best fit, and the timing of a large pass.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "sched_fixture.h"

#include "errors.h"
#include "sched/sched.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

static char names[16384][16];

/* n nodes of cpus/mem/gpus (type h100 when gpus), one partition "all". */
static sched_t *mk(uint32_t n, uint32_t cpus, uint64_t mem, uint32_t gpus, const char *type)
{
	sched_t *s = fixture_nodes(n, names, "n%05u", cpus, mem);
	for (uint32_t i = 0; i < n; i++) {
		sched_node_t *nd = &s->nodes[i];
		if (gpus) {
			nd->ngpus = gpus;
			nd->ngpu_types = 1;
			snprintf(nd->gpu_types[0].type, sizeof(nd->gpu_types[0].type), "%s", type);
			nd->gpu_types[0].count = gpus;
		}
	}
	fixture_one_part(s, n, 1);
	return s;
}

static sched_job_t job(uint32_t id)
{
	sched_job_t j = fixture_job(id, 1, 1);
	j.mem_per_node = 0;      /* these tests set memory themselves */
	return j;
}

/* Run a pass; returns decisions re-indexed by job order given. */
static sched_decision_t *pass(sched_t *s, sched_job_t *jobs, uint32_t n, int64_t now)
{
	sched_decision_t *d, *byjob = xcalloc(n, sizeof(*byjob));
	sched_pass(s, jobs, n, now, &d);
	for (uint32_t i = 0; i < n; i++)
		byjob[d[i].job_index] = d[i];
	free(d);
	return byjob;
}

static void test_basic_fit(void)
{
	sched_t *s = mk(2, 8, 16000, 0, "");
	sched_job_t j[3] = { job(1), job(2), job(3) };
	j[0].ntasks = 8;                      /* fills node 0 */
	j[1].ntasks = 4;                      /* half of node 1 */
	j[2].ntasks = 8;                      /* does not fit anymore */
	sched_decision_t *d = pass(s, j, 3, 2000);
	ok(d[0].start && d[0].alloc.nnodes == 1 && d[0].alloc.nodes[0] == 0, "8 tasks on node 0");
	is_int(d[0].alloc.cpus[0], 8, "8 cpus");
	ok(d[1].start && d[1].alloc.nodes[0] == 1, "4 tasks on node 1");
	ok(!d[2].start, "third does not fit");
	is_int(d[2].reason, WAIT_RESOURCES, "reason Resources");
	is_int(s->nodes[0].cpus_used, 8, "node 0 accounted");
	is_int(s->nodes[1].cpus_used, 4, "node 1 accounted");
	sched_alloc_release(s, &d[0].alloc);
	is_int(s->nodes[0].cpus_used, 0, "release gives cpus back");
	is_int(s->nodes[0].njobs, 0, "release njobs");
	for (int i = 0; i < 3; i++)
		sched_alloc_free(&d[i].alloc);
	free(d);
	fixture_destroy(s);
}

static void test_multi_node_and_priority(void)
{
	sched_t *s = mk(4, 4, 0, 0, "");
	sched_job_t j[3] = { job(1), job(2), job(3) };
	j[0].ntasks = 12;                     /* spans 3 nodes, no -N */
	j[0].max_nodes = UINT32_MAX;
	j[1].min_nodes = 2;                   /* needs 2 nodes, only 1 left */
	j[1].max_nodes = 2;
	j[1].ntasks = 2;
	j[2].priority = 50;                   /* lower priority, would fit */
	sched_decision_t *d = pass(s, j, 3, 2000);
	ok(d[0].start, "12 tasks start");
	is_int(d[0].alloc.nnodes, 3, "on 3 nodes");
	is_int(d[0].alloc.tasks[0] + d[0].alloc.tasks[1] + d[0].alloc.tasks[2], 12, "12 tasks placed");
	ok(!d[1].start, "2-node job waits");
	is_int(d[1].reason, WAIT_RESOURCES, "Resources");
	ok(!d[2].start, "lower priority job waits");
	is_int(d[2].reason, WAIT_PRIORITY, "Priority behind a blocked job");
	for (int i = 0; i < 3; i++)
		sched_alloc_free(&d[i].alloc);
	free(d);
	fixture_destroy(s);
}

static void test_exclusive(void)
{
	sched_t *s = mk(2, 8, 0, 0, "");
	sched_job_t j[3] = { job(1), job(2), job(3) };
	j[1].exclusive = 1;
	j[2].ntasks = 7;
	sched_decision_t *d = pass(s, j, 3, 2000);
	ok(d[0].start && d[0].alloc.nodes[0] == 0, "small job on node 0");
	ok(d[1].start && d[1].alloc.nodes[0] == 1, "exclusive job skips the used node");
	is_int(d[1].alloc.cpus[0], 8, "exclusive gets all cpus");
	ok(d[2].start && d[2].alloc.nodes[0] == 0, "7 tasks share node 0");
	sched_job_t k = job(4);
	sched_decision_t *e = pass(s, &k, 1, 2000);
	ok(!e[0].start, "nothing left");
	sched_alloc_release(s, &d[1].alloc);
	sched_alloc_free(&e[0].alloc);
	free(e);
	e = pass(s, &k, 1, 2000);
	ok(e[0].start && e[0].alloc.nodes[0] == 1, "node free after exclusive release");
	sched_alloc_free(&e[0].alloc);
	free(e);
	for (int i = 0; i < 3; i++)
		sched_alloc_free(&d[i].alloc);
	free(d);
	fixture_destroy(s);
}

static void test_gpus(void)
{
	sched_t *s = mk(2, 64, 0, 8, "h100");
	/* node 1 carries a100s instead */
	snprintf(s->nodes[1].gpu_types[0].type, 32, "a100");
	sched_job_t j = job(1);
	j.gpus_per_node = 2;
	snprintf(j.gpu_type, sizeof(j.gpu_type), "a100");
	sched_decision_t *d = pass(s, &j, 1, 2000);
	ok(d[0].start && d[0].alloc.nodes[0] == 1, "typed gpu request goes to the a100 node");
	is_int(d[0].alloc.gpus[0], 0x3, "lowest gpu indices 0,1");
	sched_job_t j2 = job(2);
	j2.gpus_per_node = 3;                 /* untyped: any */
	sched_decision_t *d2 = pass(s, &j2, 1, 2000);
	ok(d2[0].start && d2[0].alloc.nodes[0] == 0, "untyped request takes first node");
	is_int(d2[0].alloc.gpus[0], 0x7, "gpus 0-2");
	sched_job_t j3 = job(3);
	j3.gpus_per_node = 7;
	sched_decision_t *d3 = pass(s, &j3, 1, 2000);
	ok(!d3[0].start, "7 more gpus do not fit anywhere");
	sched_job_t v = job(4);
	v.gpus_per_node = 1;
	snprintf(v.gpu_type, sizeof(v.gpu_type), "v100");
	is_int(sched_job_validate(s, &v), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, "unknown gpu type rejected");
	v.gpus_per_node = 9;
	v.gpu_type[0] = 0;
	is_int(sched_job_validate(s, &v), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, "9 gpus per node rejected");
	v.gpus_per_node = 8;
	is_int(sched_job_validate(s, &v), 0, "8 gpus per node valid");
	sched_job_t c = job(5);
	c.cpus_per_task = 65;
	is_int(sched_job_validate(s, &c), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, "65 cpus per task rejected");
	sched_job_t big = job(6);
	big.min_nodes = big.max_nodes = 100;
	is_int(sched_job_validate(s, &big), 0, "too many nodes accepted (pends)");
	sched_decision_t *db = pass(s, &big, 1, 2000);
	is_int(db[0].reason, WAIT_PART_NODE_LIMIT, "and pends PartitionNodeLimit (as Slurm 22.05)");
	sched_job_t gj = job(7);
	gj.gpus_per_job = 10;
	gj.max_nodes = UINT32_MAX;
	gj.min_nodes = 1;
	sched_decision_t *dg = pass(s, &gj, 1, 2000);
	ok(dg[0].start && dg[0].alloc.nnodes == 2, "--gpus=10 spans both nodes");
	if (dg[0].start)
		is_int(__builtin_popcountll(dg[0].alloc.gpus[0]) + __builtin_popcountll(dg[0].alloc.gpus[1]), 10, "10 gpus");
	sched_alloc_free(&dg[0].alloc);
	free(dg);
	sched_alloc_free(&db[0].alloc);
	free(db);
	sched_alloc_free(&d[0].alloc);
	sched_alloc_free(&d2[0].alloc);
	sched_alloc_free(&d3[0].alloc);
	free(d); free(d2); free(d3);
	fixture_destroy(s);
}

/* --gpus-per-task, --cpus-per-gpu, --mem-per-gpu. */
static void test_gpu_relative(void)
{
	sched_t *s = mk(2, 16, 64000, 4, "h100");
	sched_job_t j = job(1);
	j.ntasks = 2;
	j.max_nodes = UINT32_MAX;
	j.gpus_per_task = 2;
	sched_decision_t *d = pass(s, &j, 1, 2000);
	ok(d[0].start && d[0].alloc.nnodes == 1, "2 tasks x 2 gpus on one node");
	if (d[0].start)
		is_int(__builtin_popcountll(d[0].alloc.gpus[0]), 4, "4 gpus");
	sched_job_t t = job(2);
	t.ntasks = 3;
	t.max_nodes = UINT32_MAX;
	t.gpus_per_task = 2;
	sched_t *s3 = mk(2, 16, 64000, 4, "h100");
	sched_decision_t *dt = pass(s3, &t, 1, 2000);
	ok(dt[0].start && dt[0].alloc.nnodes == 2, "the node's gpus limit its tasks: 3 x 2 gpus span 2 nodes");
	if (dt[0].start)
		ok(dt[0].alloc.tasks[0] == 2 && __builtin_popcountll(dt[0].alloc.gpus[1]) == 2,
		   "2 tasks + 4 gpus, then 1 task + 2 gpus");
	sched_job_t c = job(3);
	c.gpus_per_job = 2;
	c.max_nodes = UINT32_MAX;
	c.cpus_per_gpu = 2;
	c.mem_per_gpu = 1024;
	sched_t *s2 = mk(1, 16, 64000, 4, "h100");
	sched_decision_t *dc = pass(s2, &c, 1, 2000);
	ok(dc[0].start, "--gpus=2 --cpus-per-gpu=2 starts");
	if (dc[0].start) {
		is_int(dc[0].alloc.cpus[0], 4, "4 cpus");
		is_int(dc[0].alloc.mem[0], 2048, "2 x 1024 MB");
	}
	sched_job_t n = job(4);
	n.gpus_per_node = 4;
	n.cpus_per_gpu = 5;                   /* 20 cpus > 16 */
	is_int(sched_job_validate(s2, &n), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
	       "gpus x cpus-per-gpu over the node's cpus rejected");
	for (uint32_t i = 0; i < 1; i++) {
		sched_alloc_free(&d[i].alloc);
		sched_alloc_free(&dt[i].alloc);
		sched_alloc_free(&dc[i].alloc);
	}
	free(d); free(dt); free(dc);
	fixture_destroy(s);
	fixture_destroy(s2);
	fixture_destroy(s3);
}

static void test_memory(void)
{
	sched_t *s = mk(1, 16, 4000, 0, "");
	sched_job_t j[3] = { job(1), job(2), job(3) };
	j[0].mem_per_node = 3000;
	j[1].mem_per_node = 2000;             /* does not fit: 1000 left */
	j[2].mem_per_cpu = 500;
	j[2].ntasks = 2;                      /* 1000 MB: fits exactly */
	sched_decision_t *d = pass(s, j, 3, 2000);
	ok(d[0].start, "3000 MB fits");
	ok(!d[1].start && d[1].reason == WAIT_RESOURCES, "2000 MB more does not");
	ok(!d[2].start, "later job blocked by Priority");
	is_int(d[2].reason, WAIT_PRIORITY, "Priority");
	sched_decision_t *e = pass(s, &j[2], 1, 2000);
	ok(e[0].start, "mem-per-cpu 2x500 fits alone");
	is_int(e[0].alloc.mem[0], 1000, "1000 MB allocated");
	is_int(s->nodes[0].mem_used, 4000, "node memory all used");
	sched_job_t big = job(4);
	big.mem_per_node = 5000;
	is_int(sched_job_validate(s, &big), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, "more memory than a node has");
	sched_alloc_free(&e[0].alloc);
	free(e);
	for (int i = 0; i < 3; i++)
		sched_alloc_free(&d[i].alloc);
	free(d);
	fixture_destroy(s);
}

static void test_reasons(void)
{
	sched_t *s = mk(3, 4, 0, 0, "");
	s->nodes[2].usable = 0;               /* drained */
	sched_job_t j[6] = { job(1), job(2), job(3), job(4), job(5), job(6) };
	j[0].held = 1;
	j[0].held_reason = WAIT_HELD_USER;
	j[1].begin_time = 5000;
	j[2].dependency_wait = 1;
	j[3].dependency_wait = 2;
	uint32_t req = 2;
	j[4].req_nodes = &req;
	j[4].nreq_nodes = 1;
	j[5].time_limit = 120;
	s->parts[0].max_time = 60;
	sched_decision_t *d = pass(s, j, 6, 2000);
	is_int(d[0].reason, WAIT_HELD_USER, "held");
	is_int(d[1].reason, WAIT_TIME, "begin time");
	is_int(d[2].reason, WAIT_DEPENDENCY, "dependency");
	is_int(d[3].reason, WAIT_DEP_INVALID, "dependency never satisfied");
	is_int(d[4].reason, WAIT_NODE_NOT_AVAIL, "required node drained");
	is_str(d[4].reason_detail, "UnavailableNodes:n00002", "detail names the node");
	is_int(d[5].reason, WAIT_PART_TIME_LIMIT, "time limit above MaxTime");
	for (int i = 0; i < 6; i++) {
		free(d[i].reason_detail);
		sched_alloc_free(&d[i].alloc);
	}
	free(d);
	s->parts[0].up = 0;
	sched_job_t k = job(7);
	d = pass(s, &k, 1, 2000);
	is_int(d[0].reason, WAIT_PART_DOWN, "partition down");
	free(d[0].reason_detail);
	free(d);
	s->parts[0].inactive = 1;
	d = pass(s, &k, 1, 2000);
	is_int(d[0].reason, WAIT_PART_INACTIVE, "partition inactive");
	free(d[0].reason_detail);
	free(d);
	s->parts[0].up = 1;
	uint32_t req1 = 1;
	k.req_nodes = &req1;
	k.nreq_nodes = 1;
	d = pass(s, &k, 1, 2000);
	ok(d[0].start && d[0].alloc.nodes[0] == 1, "-w node 1 honoured");
	sched_alloc_free(&d[0].alloc);
	free(d[0].reason_detail);
	free(d);
	uint32_t exc[2] = { 0, 1 };
	sched_job_t x = job(8);
	x.exc_nodes = exc;
	x.nexc_nodes = 2;
	d = pass(s, &x, 1, 2000);
	ok(!d[0].start, "-x all usable nodes: cannot start");
	free(d[0].reason_detail);
	free(d);
	fixture_destroy(s);
}

static void test_features_weight(void)
{
	sched_t *s = mk(3, 4, 0, 0, "");
	char f0[] = "ib", f1[] = "h100,ib", f2[] = "a100";
	s->nodes[0].features = f0;
	s->nodes[1].features = f1;
	s->nodes[2].features = f2;
	s->nodes[0].weight = 10;
	sched_job_t j = job(1);
	sched_decision_t *d = pass(s, &j, 1, 2000);
	ok(d[0].start && d[0].alloc.nodes[0] == 1, "lowest weight first");
	sched_alloc_release(s, &d[0].alloc);
	sched_alloc_free(&d[0].alloc);
	free(d);
	j.features = "h100&ib";
	d = pass(s, &j, 1, 2000);
	ok(d[0].start && d[0].alloc.nodes[0] == 1, "h100&ib");
	sched_alloc_release(s, &d[0].alloc);
	sched_alloc_free(&d[0].alloc);
	free(d);
	j.features = "a100|nothing";
	d = pass(s, &j, 1, 2000);
	ok(d[0].start && d[0].alloc.nodes[0] == 2, "a100|nothing");
	sched_alloc_release(s, &d[0].alloc);
	sched_alloc_free(&d[0].alloc);
	free(d);
	j.features = "nothing";
	is_int(sched_job_validate(s, &j), ESLURM_INVALID_FEATURE, "unknown feature rejected");
	fixture_destroy(s);
}

static void test_leaf(void)
{
	/* leaf 0: nodes 0-3, leaf 1: nodes 4-5; node 0 busy. A 2-node job
	 * should go to leaf 1 (fewest free nodes that fit). */
	sched_t *s = mk(6, 4, 0, 0, "");
	for (int i = 0; i < 6; i++)
		s->nodes[i].leaf = i < 4 ? 0 : 1;
	sched_job_t j = job(1);
	j.min_nodes = j.max_nodes = 2;
	j.ntasks = 2;
	sched_decision_t *d = pass(s, &j, 1, 2000);
	ok(d[0].start && d[0].alloc.nodes[0] == 4 && d[0].alloc.nodes[1] == 5, "best-fit leaf chosen");
	sched_alloc_free(&d[0].alloc);
	free(d);
	j.min_nodes = j.max_nodes = 3;
	j.ntasks = 3;
	d = pass(s, &j, 1, 2000);
	ok(d[0].start && d[0].alloc.nodes[0] == 0, "3 nodes fit only in leaf 0");
	sched_alloc_free(&d[0].alloc);
	free(d);
	fixture_destroy(s);
}

static void test_ntasks_per_node(void)
{
	sched_t *s = mk(4, 64, 0, 8, "h100");
	sched_job_t j = job(1);
	j.min_nodes = j.max_nodes = 2;
	j.ntasks_per_node = 8;
	j.ntasks = 16;
	j.cpus_per_task = 8;
	j.gpus_per_node = 8;
	sched_decision_t *d = pass(s, &j, 1, 2000);
	ok(d[0].start && d[0].alloc.nnodes == 2, "2 nodes");
	is_int(d[0].alloc.tasks[0], 8, "8 tasks per node");
	is_int(d[0].alloc.cpus[1], 64, "64 cpus per node");
	is_int(d[0].alloc.gpus[1], 0xff, "all 8 gpus");
	sched_alloc_free(&d[0].alloc);
	free(d);
	fixture_destroy(s);
}

/* Tasks per node x nodes past 32 bits: the request is too large for any
 * node, not 0 tasks (it wrapped and -N4 --ntasks-per-node=1073741824 started
 * on four 4-CPU nodes). */
static void test_ntasks_overflow(void)
{
	sched_t *s = mk(4, 4, 0, 0, "");
	sched_job_t j = job(1);
	j.min_nodes = j.max_nodes = 4;
	j.ntasks = 0;
	j.ntasks_per_node = 1073741824;
	sched_decision_t *d = pass(s, &j, 1, 2000);
	ok(!d[0].start, "-N4 --ntasks-per-node=2^30 does not start on 4-CPU nodes");
	sched_alloc_free(&d[0].alloc);
	free(d);
	j.ntasks_per_node = 1;
	d = pass(s, &j, 1, 2000);
	ok(d[0].start && d[0].alloc.nnodes == 4, "-N4 --ntasks-per-node=1 starts");
	sched_alloc_free(&d[0].alloc);
	free(d);
	fixture_destroy(s);
}

/* ASan+UBSan builds (make test-san) run the pass several times slower:
 * the time bound is for plain builds. */
#ifdef __SANITIZE_ADDRESS__
#define TIME_SCALE 10.0
#else
#define TIME_SCALE 1.0
#endif

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_scale(void)
{
	uint32_t nn = 10000, nj = 100000;
	sched_t *s = mk(nn, 64, 512000, 8, "h100");
	for (uint32_t i = 0; i < nn; i++)
		s->nodes[i].leaf = (int)(i / 32);
	sched_job_t *jobs = xcalloc(nj, sizeof(*jobs));
	for (uint32_t i = 0; i < nj; i++) {
		jobs[i] = job(i + 1);
		jobs[i].priority = 1000 + (i % 7);
		jobs[i].ntasks = 1 + i % 8;
		jobs[i].mem_per_cpu = 1024;
		if (i % 10 == 0) {
			jobs[i].min_nodes = jobs[i].max_nodes = 2;
			jobs[i].ntasks = 2;
			jobs[i].gpus_per_node = 1;
		}
	}
	double t0 = now_s();
	sched_decision_t *d;
	sched_pass(s, jobs, nj, 2000, &d);
	double t1 = now_s();
	uint32_t started = 0;
	for (uint32_t i = 0; i < nj; i++)
		started += d[i].start;
	printf("# pass over %u nodes x %u jobs: %.3f s, %u started\n", nn, nj, t1 - t0, started);
	ok(t1 - t0 < 5.0 * TIME_SCALE, "large pass within a few seconds");
	ok(started > 0, "jobs started");
	sched_decisions_free(d, nj);
	/* second pass: all blocked quickly */
	t0 = now_s();
	sched_pass(s, jobs, nj, 2000, &d);
	t1 = now_s();
	printf("# second pass (cluster full): %.3f s\n", t1 - t0);
	sched_decisions_free(d, nj);
	free(jobs);
	fixture_destroy(s);
}

int main(void)
{
	test_basic_fit();
	test_multi_node_and_priority();
	test_exclusive();
	test_gpus();
	test_gpu_relative();
	test_memory();
	test_reasons();
	test_features_weight();
	test_leaf();
	test_ntasks_per_node();
	test_ntasks_overflow();
	test_scale();
	return done_testing();
}
