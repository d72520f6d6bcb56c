/*
 * test_step_alloc: where srun steps run in their job's allocation and what
 * they hold (ctld/step_alloc.c), driven with a hand-built job: steps of
 * fewer nodes spread over the least used nodes and wait only when no node
 * has room; concurrent steps never share a GPU unless --overlap; a step
 * without a GPU option takes all of the job's GPUs on its nodes.
 */
#include <string.h>

#include "ctld/ctld.h"
#include "errors.h"
#include "tap.h"
#include "xalloc.h"

/* A running job of nn nodes with cpus CPUs and the GPUs of gpus on each. */
static job_t *mkjob(uint32_t nn, uint32_t cpus, uint64_t gpus)
{
	job_t *j = xcalloc(1, sizeof(*j));
	j->start_time = 1000;
	j->alloc.nnodes = nn;
	j->alloc.nodes = xcalloc(nn, sizeof(uint32_t));
	j->alloc.cpus = xcalloc(nn, sizeof(uint32_t));
	j->alloc.tasks = xcalloc(nn, sizeof(uint32_t));
	j->alloc.mem = xcalloc(nn, sizeof(uint64_t));
	j->alloc.gpus = xcalloc(nn, sizeof(uint64_t));
	for (uint32_t i = 0; i < nn; i++) {
		j->alloc.nodes[i] = 10 + i;
		j->alloc.cpus[i] = cpus;
		j->alloc.tasks[i] = 1;
		j->alloc.gpus[i] = gpus;
	}
	return j;
}

static void rmjob(job_t *j)
{
	step_alloc_free(j);
	free(j->alloc.nodes);
	free(j->alloc.cpus);
	free(j->alloc.tasks);
	free(j->alloc.mem);
	free(j->alloc.gpus);
	free(j);
}

/* Take step id with rq; the rc, and the first node and its GPUs. */
static int take(job_t *j, uint32_t id, step_req_t rq, uint32_t *node, uint64_t *gpus)
{
	step_pick_t p;
	int rc = step_alloc_take(j, id, &rq, &p);
	if (!rc) {
		if (node)
			*node = p.node_idx[0];
		if (gpus)
			*gpus = p.gpus[0];
		step_pick_release(&p);
	}
	return rc;
}

static void test_spread(void)
{
	/* salloc -N2 with 4 CPUs a node; four srun -N1 -n1 --exact */
	job_t *j = mkjob(2, 4, 0);
	step_req_t rq = { .nnodes = 1, .ntasks = 1, .flags = STEP_CREATE_EXACT };
	uint32_t on[6];
	for (uint32_t s = 0; s < 4; s++)
		ok(take(j, s, rq, &on[s], NULL) == 0, "exact step %u placed", s);
	ok(on[0] == 0 && on[1] == 1 && on[2] == 0 && on[3] == 1,
	   "the four steps alternate over the least used node (%u %u %u %u)", on[0], on[1], on[2], on[3]);
	/* two CPUs a step: the next two fill the nodes, a further one waits */
	rq.cpus_per_task = 1;
	rq.ntasks = 2;
	ok(take(j, 4, rq, &on[4], NULL) == 0 && take(j, 5, rq, &on[5], NULL) == 0 && on[4] != on[5],
	   "two 2-CPU steps take the rest of both nodes");
	ok(take(j, 6, (step_req_t){ .nnodes = 1, .ntasks = 1, .flags = STEP_CREATE_EXACT }, NULL,
		NULL) == ESLURM_NODES_BUSY, "a step waits only when no node has room");
	step_alloc_node_done(j, 1, 0);   /* step 1 (on node 1) ended */
	ok(take(j, 7, (step_req_t){ .nnodes = 1, .ntasks = 1, .flags = STEP_CREATE_EXACT }, &on[0],
		NULL) == 0 && on[0] == 1, "the freed CPU is taken on its node");
	rmjob(j);

	/* without --exact a step takes its node's CPUs: the next goes to
	 * the other node, a third waits */
	j = mkjob(2, 4, 0);
	rq = (step_req_t){ .nnodes = 1, .ntasks = 1 };
	ok(take(j, 0, rq, &on[0], NULL) == 0 && take(j, 1, rq, &on[1], NULL) == 0 &&
	   on[0] == 0 && on[1] == 1, "whole-node steps go one per node");
	ok(take(j, 2, rq, NULL, NULL) == ESLURM_NODES_BUSY, "a third whole-node step waits");
	rq.flags = STEP_CREATE_OVERLAP;
	ok(take(j, 3, rq, NULL, NULL) == 0, "--overlap never waits");
	rmjob(j);

	/* steps over all nodes keep the allocation's order */
	j = mkjob(3, 4, 0);
	ok(take(j, 0, (step_req_t){ .nnodes = 1, .ntasks = 1, .flags = STEP_CREATE_EXACT }, &on[0],
		NULL) == 0 && on[0] == 0, "first step on node 0");
	step_pick_t p;
	ok(step_alloc_take(j, 1, &(step_req_t){ .nnodes = 2, .ntasks = 3, .flags = STEP_CREATE_EXACT },
			   &p) == 0 && p.nnodes == 2, "a 2-node step placed");
	ok(p.node_idx[0] == 1 && p.node_idx[1] == 2 && p.tasks[0] + p.tasks[1] == 3,
	   "on the two unused nodes, in order (%u %u), its 3 tasks", p.node_idx[0], p.node_idx[1]);
	step_pick_release(&p);
	rmjob(j);
}

static void test_gpus(void)
{
	job_t *j = mkjob(1, 8, 0xf);   /* salloc --gres=gpu:4 */
	uint64_t g1 = 0, g2 = 0, g3 = 0;
	step_req_t rq = { .nnodes = 1, .ntasks = 1, .flags = STEP_CREATE_EXACT, .gpus_per_node = 2 };
	int r1 = take(j, 0, rq, NULL, &g1), r2 = take(j, 1, rq, NULL, &g2);
	ok(r1 == 0 && r2 == 0, "two --gres=gpu:2 steps in a 4-GPU job");
	ok(g1 == 0x3 && g2 == 0xc, "they get disjoint GPUs (%#llx %#llx)",
	   (unsigned long long)g1, (unsigned long long)g2);
	ok(take(j, 2, rq, NULL, NULL) == ESLURM_NODES_BUSY, "a third waits for GPUs, not CPUs");
	rq.flags |= STEP_CREATE_OVERLAP;
	ok(take(j, 3, rq, NULL, &g3) == 0 && __builtin_popcountll(g3) == 2 && (g3 & 0xf) == g3,
	   "--overlap shares the job's GPUs");
	step_alloc_node_done(j, 0, 0);
	rq.flags = STEP_CREATE_EXACT;
	ok(take(j, 4, rq, NULL, &g3) == 0 && g3 == 0x3, "the ended step's GPUs are free again");
	rq.gpus_per_node = 5;
	ok(take(j, 5, rq, NULL, NULL) == ESLURM_INVALID_GRES, "more GPUs than the job has: invalid");
	rmjob(j);

	j = mkjob(1, 8, 0xf0);
	int rc = take(j, 0, (step_req_t){ .nnodes = 1, .ntasks = 2, .flags = STEP_CREATE_EXACT,
					 .gpus_per_task = 1 }, NULL, &g1);
	ok(rc == 0 && g1 == 0x30, "--gpus-per-task=1 -n2: two of the job's GPUs (%#llx)",
	   (unsigned long long)g1);
	ok(take(j, 1, (step_req_t){ .nnodes = 1, .ntasks = 1, .flags = STEP_CREATE_EXACT },
		NULL, &g2) == ESLURM_NODES_BUSY,
	   "a step without a GPU option wants all of the job's GPUs: waits");
	ok(take(j, 2, (step_req_t){ .nnodes = 1, .ntasks = 1,
				   .flags = STEP_CREATE_EXACT | STEP_CREATE_GRES_NONE }, NULL, &g2) == 0 &&
	   g2 == 0, "--gres=none takes none");
	uint64_t ok_mask = 0xc0;
	rc = take(j, 3, (step_req_t){ .nnodes = 1, .ntasks = 1, .flags = STEP_CREATE_EXACT,
				     .gpus_per_node = 1, .gpu_ok = &ok_mask }, NULL, &g3);
	ok(rc == 0 && g3 == 0x40, "a typed request takes a GPU of that type (%#llx)", (unsigned long long)g3);
	rmjob(j);

	j = mkjob(2, 8, 0x3);
	step_pick_t p;
	ok(step_alloc_take(j, 0, &(step_req_t){ .nnodes = 2, .ntasks = 2, .gpus = 3,
						.flags = STEP_CREATE_EXACT }, &p) == 0 &&
	   __builtin_popcountll(p.gpus[0]) + __builtin_popcountll(p.gpus[1]) == 3,
	   "--gpus=3 over two nodes: 3 GPUs in all");
	step_pick_release(&p);
	ok(step_alloc_take(j, 1, &(step_req_t){ .nnodes = 1, .ntasks = 1, .gpus_per_node = 1,
						.flags = STEP_CREATE_EXACT }, &p) == 0 &&
	   p.gpus[0] != 0, "the GPU --gpus left is taken");
	step_pick_release(&p);
	rmjob(j);
}

int main(void)
{
	test_spread();
	test_gpus();
	return done_testing();
}
