/*
 * test_sched_affinity: CPU ids and GPU/core affinity in the scheduler core
 * (gres.conf Cores=): which CPU ids a job gets, which GPU indices go with
 * them, that commit/release keep the CPU bitmap right, and that recovered
 * allocations without CPU ids get consistent ones.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "sched_fixture.h"

#include "sched/sched.h"
#include "timefmt.h"
#include "xalloc.h"

#define CPUS 64
#define W 1                         /* core words for 64 CPUs */

/* GPUs 0-3 close to CPUs 0-31 (socket 0), 4-7 close to 32-63. */
static uint64_t two_socket[8];

static sched_t *mk(uint32_t n, int affinity)
{
	static char names[8][16];
	for (int g = 0; g < 8; g++)
		two_socket[g] = g < 4 ? 0x00000000ffffffffull : 0xffffffff00000000ull;
	sched_t *s = fixture_nodes(n, names, "n%u", CPUS, 512000);
	for (uint32_t i = 0; i < n; i++) {
		sched_node_t *nd = &s->nodes[i];
		nd->ngpus = 8;
		nd->ngpu_types = 1;
		snprintf(nd->gpu_types[0].type, sizeof(nd->gpu_types[0].type), "h100");
		nd->gpu_types[0].count = 8;
		nd->core_words = W;
		nd->cores_used = xcalloc(W, sizeof(uint64_t));
		nd->gpu_cores = affinity ? two_socket : NULL;
	}
	fixture_one_part(s, n, 1);
	return s;
}

static sched_job_t job(uint32_t id, uint32_t cpus, uint32_t gpus)
{
	sched_job_t j = fixture_job(id, cpus, 1);
	j.gpus_per_node = gpus;
	return j;
}

static void test_lowest_first(void)
{
	sched_t *s = mk(1, 1);
	sched_alloc_t a = fixture_run1(s, job(1, 8, 2), NULL);
	ok(a.nnodes == 1 && a.cwords == W, "job with CPU ids");
	ok(a.cores && a.cores[0] == 0xffull, "8 CPUs: ids 0-7");
	ok(a.gpus[0] == 0x3ull, "2 GPUs: 0,1 (close to 0-7)");
	ok(s->nodes[0].cores_used[0] == 0xffull, "committed CPU ids");
	sched_alloc_release(s, &a);
	ok(s->nodes[0].cores_used[0] == 0, "released CPU ids");
	sched_alloc_free(&a);
	fixture_destroy(s);
}

static void test_gpus_follow_free_cores(void)
{
	sched_t *s = mk(1, 1);
	sched_alloc_t a = fixture_run1(s, job(1, 40, 0), NULL);
	ok(a.cores[0] == 0xffffffffffull && a.gpus[0] == 0, "CPU job: ids 0-39, no GPU");
	/* 8 CPUs: the free ones are 40-63, close to GPUs 4-7. */
	sched_alloc_t b = fixture_run1(s, job(2, 8, 2), NULL);
	ok(b.gpus[0] == 0x30ull, "GPUs 4,5 chosen next to the free CPUs");
	ok(b.cores[0] == 0xffull << 40, "CPU ids 40-47");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	fixture_destroy(s);

	/* 30 CPUs used on socket 0: a 4-CPU 4-GPU job goes to socket 1. */
	s = mk(1, 1);
	a = fixture_run1(s, job(1, 30, 0), NULL);
	b = fixture_run1(s, job(2, 4, 4), NULL);
	ok(b.gpus[0] == 0xf0ull, "4 GPUs on the socket with free CPUs");
	ok(b.cores[0] == 0xfull << 32, "CPU ids 32-35 next to them");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	fixture_destroy(s);
}

static void test_no_close_cpus_left(void)
{
	sched_t *s = mk(1, 1);
	sched_alloc_t a = fixture_run1(s, job(1, 32, 4), NULL);   /* socket 0 + GPUs 0-3 */
	ok(a.gpus[0] == 0xfull && a.cores[0] == 0xffffffffull, "socket 0 job");
	sched_alloc_t b = fixture_run1(s, job(2, 8, 0), NULL);    /* takes 32-39 */
	sched_alloc_release(s, &a);
	/* Now CPUs 0-31 and 40-63 are free, GPUs 0-7 free: both sockets
	 * have the 20 CPUs free, so the lowest GPUs win. */
	sched_alloc_t c = fixture_run1(s, job(3, 20, 4), NULL);
	ok(c.gpus[0] == 0xfull, "GPUs 0-3: their 32 close CPUs are free");
	ok(c.cores[0] == 0xfffffull, "CPU ids 0-19");
	/* A job wanting more CPUs than its GPU's socket has free spills
	 * over to the lowest other free ones. */
	sched_alloc_t d = fixture_run1(s, job(4, 30, 1), NULL);
	ok(d.gpus[0] == 0x10ull, "GPU 4 (the free one)");
	ok(d.cores[0] == ((0xffffffull << 40) | (0x3full << 20)),
	   "24 close CPU ids 40-63, then 6 more, lowest free (20-25)");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	sched_alloc_free(&c);
	sched_alloc_free(&d);
	fixture_destroy(s);
}

static void test_no_affinity(void)
{
	sched_t *s = mk(1, 0);
	sched_alloc_t a = fixture_run1(s, job(1, 40, 0), NULL);
	sched_alloc_t b = fixture_run1(s, job(2, 8, 2), NULL);
	ok(b.gpus[0] == 0x3ull, "no Cores=: lowest GPU indices");
	ok(b.cores[0] == 0xffull << 40, "CPU ids: lowest free");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	fixture_destroy(s);
}

static void test_exclusive_and_multi_node(void)
{
	sched_t *s = mk(2, 1);
	sched_job_t j = job(1, 2, 1);
	j.min_nodes = 2;
	j.ntasks = 2;
	sched_alloc_t a = fixture_run1(s, j, NULL);
	ok(a.nnodes == 2 && a.cwords == W, "2-node job");
	ok(a.cores[0] == 0x1ull && a.cores[1] == 0x1ull, "CPU id 0 on each node");
	ok(a.gpus[0] == 1 && a.gpus[1] == 1, "GPU 0 on each node");
	sched_alloc_release(s, &a);
	j = job(2, 1, 0);
	j.exclusive = 1;
	sched_alloc_t b = fixture_run1(s, j, NULL);
	ok(b.cores[0] == ~0ull, "--exclusive: all 64 CPU ids");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	fixture_destroy(s);
}

static void test_fill_cores(void)
{
	sched_t *s = mk(1, 1);
	sched_alloc_t a = fixture_run1(s, job(1, 4, 0), NULL);      /* ids 0-3 */
	/* A recovered allocation: 8 CPUs and GPUs 4,5, no CPU ids. */
	sched_alloc_t r;
	memset(&r, 0, sizeof(r));
	r.nnodes = 1;
	r.nodes = xcalloc(1, sizeof(uint32_t));
	r.cpus = xcalloc(1, sizeof(uint32_t));
	r.mem = xcalloc(1, sizeof(uint64_t));
	r.gpus = xcalloc(1, sizeof(uint64_t));
	r.tasks = xcalloc(1, sizeof(uint32_t));
	r.cpus[0] = 8;
	r.gpus[0] = 0x30;
	r.tasks[0] = 8;
	sched_alloc_fill_cores(s, &r);
	ok(r.cwords == W && r.cores[0] == 0xffull << 32, "recovered: ids 32-39 next to GPUs 4,5");
	sched_alloc_commit(s, &r);
	ok(s->nodes[0].cores_used[0] == (0xfull | (0xffull << 32)), "committed with the rest");
	sched_alloc_free(&a);
	sched_alloc_free(&r);
	fixture_destroy(s);
}

int main(void)
{
	test_lowest_first();
	test_gpus_follow_free_cores();
	test_no_close_cpus_left();
	test_no_affinity();
	test_exclusive_and_multi_node();
	test_fill_cores();
	return done_testing();
}
