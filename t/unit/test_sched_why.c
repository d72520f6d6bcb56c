/*
 * test_sched_why: the scheduler core's per-node judgement for `sluice
 * why` (src/sched/sched_why.c): never (partition, -x, -w, features, CPUs,
 * memory, GPUs) before not-now (unusable, exclusive, busy CPUs, memory,
 * GPUs), the numbers it reports, and agreement with the pass: a node
 * judged FITS is one the pass can start the job on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "sched_fixture.h"

#include "sched/sched_why.h"
#include "states.h"

static char names[8][16];

static sched_t *mk(void)
{
	/* 4 nodes of 8 CPUs, 16000 MB; n0-n1 8 h100, n2 4 h100, n3 none */
	sched_t *s = fixture_nodes(4, names, "n%u", 8, 16000);
	for (uint32_t i = 0; i < 3; i++) {
		sched_node_t *nd = &s->nodes[i];
		nd->ngpus = i < 2 ? 8 : 4;
		nd->ngpu_types = 1;
		strcpy(nd->gpu_types[0].type, "h100");
		nd->gpu_types[0].count = nd->ngpus;
	}
	s->nodes[0].features = "ib,h100";
	s->nodes[1].features = "h100";
	fixture_one_part(s, 3, 2);       /* n3 is in no partition */
	return s;
}

#define NOW 1000000

static uint32_t code(const sched_t *s, const sched_job_t *j, uint32_t x, sched_why_node_t *w)
{
	sched_why_node(s, j, x, 0, NOW, w);
	return w->code;
}

/* Reservations: a node another one holds while the job would run is
 * RESERVED (not now, not never); a job in one is judged on its nodes only
 * (NOT_IN_RESV: never) and waits for its start (RESV_LATER). */
static void test_reservations(sched_t *s)
{
	sched_why_node_t w;
	sched_job_t j = fixture_job(50, 1, 1);      /* 60-minute limit */
	static const uint32_t n0[] = { 0 }, n1[] = { 1 };
	sched_resv_t rv[2] = {
		{ .name = "now", .nodes = n0, .nnodes = 1, .start = NOW - 10, .end = NOW + 3600 },
		{ .name = "later", .nodes = n1, .nnodes = 1, .start = NOW + 1800, .end = NOW + 7200 },
	};
	s->resvs = rv;
	s->nresvs = 2;
	is_int(code(s, &j, 0, &w), SCHED_WHY_RESERVED, "an active reservation's node: reserved");
	ok(!SCHED_WHY_NEVER(w.code), "reserved is not never");
	is_int(code(s, &j, 1, &w), SCHED_WHY_RESERVED, "one starting before the job's 60 minutes end: reserved");
	j.time_limit = 20;
	is_int(code(s, &j, 1, &w), SCHED_WHY_FITS, "a 20-minute job ends before it starts: fits");
	is_int(code(s, &j, 2, &w), SCHED_WHY_FITS, "a node of no reservation fits");
	j.resv = 1;                                  /* in "now" */
	is_int(code(s, &j, 0, &w), SCHED_WHY_FITS, "its own reservation's node fits");
	is_int(code(s, &j, 2, &w), SCHED_WHY_NOT_IN_RESV, "a node outside its reservation: never");
	ok(SCHED_WHY_NEVER(w.code), "not in its reservation is a never code");
	j.resv = 2;                                  /* in "later" */
	is_int(code(s, &j, 1, &w), SCHED_WHY_RESV_LATER, "its reservation has not started");
	ok(!strcmp(sched_why_name(SCHED_WHY_RESERVED), "reserved for others while it would run"),
	   "the reserved node's name");
	s->resvs = NULL;
	s->nresvs = 0;
}

int main(void)
{
	sched_t *s = mk();
	sched_why_node_t w;
	sched_job_t j = fixture_job(1, 1, 1);
	j.gpus_per_node = 8;
	strcpy(j.gpu_type, "h100");

	is_int(code(s, &j, 0, &w), SCHED_WHY_FITS, "an idle 8-GPU node fits");
	ok(w.tasks_now >= 1, "with at least one task now");
	is_int(code(s, &j, 2, &w), SCHED_WHY_GPUS, "4 GPUs for 8 per node: never");
	is_int(w.gpus_total, 4, "it has 4");
	is_int(w.gpus_need, 8, "the job needs 8");
	ok(SCHED_WHY_NEVER(w.code), "GPUS is a never code");
	is_int(code(s, &j, 3, &w), SCHED_WHY_NOT_IN_PART, "a node outside the partition");
	is_int(sched_why_min_nodes(s, &j), 1, "one node needed");

	/* busy: a job holds 6 GPUs of n1 */
	s->nodes[1].gpus_used = 0x3f;
	s->nodes[1].njobs = 1;
	is_int(code(s, &j, 1, &w), SCHED_WHY_BUSY_GPUS, "6 of 8 GPUs used: busy GPUs");
	is_int(w.gpus_free, 2, "2 free");
	ok(!SCHED_WHY_NEVER(w.code), "busy is not never");
	s->nodes[1].gpus_used = 0;
	s->nodes[1].njobs = 0;

	/* CPUs: -c 16 on 8-CPU nodes is never; -c 4 with 6 used is busy */
	sched_job_t c = fixture_job(2, 1, 16);
	is_int(code(s, &c, 0, &w), SCHED_WHY_CPUS, "-c16 on 8 CPUs: never");
	is_int(w.cpus_need, 16, "needs 16");
	c = fixture_job(3, 1, 4);
	s->nodes[0].cpus_used = 6;
	is_int(code(s, &c, 0, &w), SCHED_WHY_BUSY_CPUS, "6 of 8 CPUs used, -c4: busy CPUs");
	is_int(w.cpus_free, 2, "2 CPUs free");
	s->nodes[0].cpus_used = 0;

	/* memory: more than RealMemory is never; more than free is busy */
	sched_job_t m = fixture_job(4, 1, 1);
	m.mem_per_node = 20000;
	is_int(code(s, &m, 0, &w), SCHED_WHY_MEMORY, "20000 MB on 16000: never");
	m.mem_per_node = 8000;
	s->nodes[0].mem_used = 10000;
	is_int(code(s, &m, 0, &w), SCHED_WHY_BUSY_MEMORY, "8000 MB with 6000 free: busy memory");
	is_int((int)w.mem_free, 6000, "6000 MB free");
	s->nodes[0].mem_used = 0;

	/* features, -x, -w */
	sched_job_t f = fixture_job(5, 1, 1);
	f.features = "ib";
	is_int(code(s, &f, 1, &w), SCHED_WHY_FEATURES, "n1 lacks ib");
	is_int(code(s, &f, 0, &w), SCHED_WHY_FITS, "n0 has it");
	uint32_t ex[] = { 0 }, req[] = { 1 };
	f.features = NULL;
	f.exc_nodes = ex;
	f.nexc_nodes = 1;
	is_int(code(s, &f, 0, &w), SCHED_WHY_EXCLUDED, "-x n0");
	f.exc_nodes = NULL;
	f.nexc_nodes = 0;
	f.req_nodes = req;
	f.nreq_nodes = 1;
	is_int(code(s, &f, 0, &w), SCHED_WHY_NOT_LISTED, "-w n1: n0 is not listed");
	is_int(code(s, &f, 1, &w), SCHED_WHY_FITS, "n1 is");

	/* unusable (drained/down) comes after the never checks */
	s->nodes[0].usable = 0;
	is_int(code(s, &j, 0, &w), SCHED_WHY_UNUSABLE, "a drained node that could run it");
	is_int(code(s, &c, 0, &w), SCHED_WHY_UNUSABLE, "same for -c4");
	c.cpus_per_task = 16;
	is_int(code(s, &c, 0, &w), SCHED_WHY_CPUS, "but never beats unusable");
	c.cpus_per_task = 4;
	s->nodes[0].usable = 1;

	/* exclusive holder */
	s->nodes[0].exclusive = 1;
	s->nodes[0].njobs = 1;
	is_int(code(s, &c, 0, &w), SCHED_WHY_EXCLUSIVE, "a node held whole");
	s->nodes[0].exclusive = 0;
	s->nodes[0].njobs = 0;

	/* agreement with the pass: what FITS, the pass starts */
	uint32_t reason;
	sched_alloc_t a = fixture_run1(s, j, &reason);
	ok(a.nnodes == 1 && (a.nodes[0] == 0 || a.nodes[0] == 1), "the pass starts it on n0 or n1");
	is_int(code(s, &j, a.nodes[0], &w), SCHED_WHY_BUSY_GPUS, "after that, its node is busy for a twin");
	sched_alloc_free(&a);

	ok(!strcmp(sched_why_name(SCHED_WHY_BUSY_GPUS), "busy: GPUs"), "names");
	test_reservations(s);
	fixture_destroy(s);
	return done_testing();
}
