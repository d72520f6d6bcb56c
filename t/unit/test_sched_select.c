/*
 * test_sched_select: the select/cons_tres rules set by slurm.conf rather
 * than by the job: SelectTypeParameters (CPUs allocated by core or socket
 * and rounded up, CR_ONE_TASK_PER_CORE, memory consumed or only checked
 * against RealMemory), partition OverSubscribe (CPUs shared by up to N
 * jobs, YES only for jobs that ask, FORCE for all; memory and GPUs never
 * shared), and --contiguous.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "sched_fixture.h"

#include "errors.h"
#include "sched/sched.h"
#include "states.h"
#include "timefmt.h"
#include "xalloc.h"

#define CPUS 64

/* n nodes of 64 CPUs (32 cores x 2 threads), 512000 MB, 8 GPUs, with CPU
 * id and sharing tracking as the controller sets them up. */
static sched_t *mk(uint32_t n, uint32_t unit)
{
	static char names[16][16];
	sched_t *s = fixture_nodes(n, names, "n%u", CPUS, 512000);
	for (uint32_t i = 0; i < n; i++) {
		sched_node_t *nd = &s->nodes[i];
		nd->ngpus = 8;
		nd->core_words = 1;
		nd->cores_used = xcalloc(1, sizeof(uint64_t));
		nd->cpu_share = xcalloc(CPUS, 1);
		nd->cpu_unit = unit;
	}
	fixture_one_part(s, n, 1);
	return s;
}

static void test_core_units(void)
{
	sched_t *s = mk(1, 2);              /* CR_Core, ThreadsPerCore=2 */
	sched_alloc_t a = fixture_run1(s, fixture_job(1, 1, 1), NULL);
	is_int(a.cpus[0], 2, "CR_Core: -n1 gets both threads of a core");
	ok(a.cores[0] == 0x3ull, "CPU ids 0-1");
	sched_alloc_t b = fixture_run1(s, fixture_job(2, 3, 1), NULL);
	is_int(b.cpus[0], 4, "-n3 rounds up to 2 cores (4 CPUs)");
	ok(b.cores[0] == 0x3cull, "CPU ids 2-5: whole cores");
	sched_alloc_t c = fixture_run1(s, fixture_job(3, 1, 3), NULL);
	is_int(c.cpus[0], 4, "-c3 rounds up to 4 CPUs");
	is_int(s->nodes[0].cpus_used, 10, "10 CPUs used");
	uint32_t why;
	sched_alloc_t d = fixture_run1(s, fixture_job(4, 55, 1), &why);
	ok(!d.nnodes && why == WAIT_RESOURCES, "-n55 needs 56 CPUs: 54 free, pends");
	sched_alloc_t e = fixture_run1(s, fixture_job(5, 54, 1), NULL);
	is_int(e.cpus[0], 54, "-n54 fills the node");
	sched_alloc_release(s, &b);
	is_int(s->nodes[0].cpus_used, 60, "release gives back the rounded count");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	sched_alloc_free(&c);
	sched_alloc_free(&d);
	sched_alloc_free(&e);
	fixture_destroy(s);

	/* --mem-per-cpu counts the rounded CPUs (slurm.conf(5) CR_Core). */
	s = mk(1, 2);
	sched_job_t j = fixture_job(1, 1, 1);
	j.mem_per_node = 0;
	j.mem_per_cpu = 1000;
	a = fixture_run1(s, j, NULL);
	is_int(a.mem[0], 2000, "mem per CPU x 2 CPUs");
	sched_alloc_free(&a);
	fixture_destroy(s);

	/* CR_CPU: single threads. */
	s = mk(1, 1);
	a = fixture_run1(s, fixture_job(1, 1, 1), NULL);
	is_int(a.cpus[0], 1, "CR_CPU: -n1 gets 1 CPU");
	b = fixture_run1(s, fixture_job(2, 3, 1), NULL);
	ok(b.cpus[0] == 3 && b.cores[0] == 0xeull, "-n3: CPU ids 1-3");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	fixture_destroy(s);

	/* CR_CPU on a node with 2 threads per core: the job's count is what
	 * it asked, but no two jobs share a core (slurm.conf(5)). */
	s = mk(1, 2);
	s->params.cr_unit = SCHED_CR_CPU;
	j = fixture_job(1, 1, 1);
	j.mem_per_node = 0;
	j.mem_per_cpu = 1000;
	a = fixture_run1(s, j, NULL);
	ok(a.cpus[0] == 1 && a.cores[0] == 0x3ull && a.mem[0] == 1000,
	   "CR_CPU: -n1 counts 1 CPU (1000 MB) on CPU ids 0-1");
	b = fixture_run1(s, fixture_job(2, 3, 1), NULL);
	ok(b.cpus[0] == 3 && b.cores[0] == 0x3cull, "-n3: 3 CPUs on ids 2-5");
	is_int(s->nodes[0].cpus_used, 6, "the node counts whole cores in use");
	sched_alloc_release(s, &a);
	is_int(s->nodes[0].cpus_used, 4, "release gives back the core");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	fixture_destroy(s);

	/* CR_ONE_TASK_PER_CORE: each task a whole core. */
	s = mk(1, 2);
	s->params.one_task_per_core = 1;
	a = fixture_run1(s, fixture_job(1, 4, 1), NULL);
	is_int(a.cpus[0], 8, "one task per core: -n4 gets 4 cores");
	sched_alloc_free(&a);
	d = fixture_run1(s, fixture_job(2, 29, 1), &why);
	ok(!d.nnodes, "29 tasks need 29 cores: 28 free");
	fixture_destroy(s);

	/* CR_Socket: a socket of 16 cores x 2 threads. */
	s = mk(1, 32);
	a = fixture_run1(s, fixture_job(1, 1, 1), NULL);
	ok(a.cpus[0] == 32 && a.cores[0] == 0xffffffffull, "CR_Socket: -n1 gets socket 0");
	b = fixture_run1(s, fixture_job(2, 1, 1), NULL);
	ok(b.cores[0] == 0xffffffff00000000ull, "the next job socket 1");
	d = fixture_run1(s, fixture_job(3, 1, 1), &why);
	ok(!d.nnodes && why == WAIT_RESOURCES, "a third waits");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	fixture_destroy(s);
}

static void test_memory_not_consumed(void)
{
	sched_t *s = mk(1, 1);
	sched_job_t j = fixture_job(1, 1, 1);
	j.mem_per_node = 400000;
	uint32_t why;
	sched_alloc_t a = fixture_run1(s, j, NULL);
	sched_alloc_t b = fixture_run1(s, j, &why);
	ok(a.nnodes && !b.nnodes && why == WAIT_RESOURCES,
	   "CR_Core_Memory: two 400000 MB jobs on 512000 MB: second waits");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	fixture_destroy(s);

	s = mk(1, 1);
	s->params.mem_not_consumed = 1;
	a = fixture_run1(s, j, NULL);
	b = fixture_run1(s, j, NULL);
	ok(a.nnodes && b.nnodes, "CR_Core: both run (memory is not consumed)");
	is_int(b.mem[0], 0, "memory is not recorded (Slurm: Mem=0)");
	is_int(s->nodes[0].mem_used, 0, "nor counted on the node (AllocMem=0)");
	j.mem_per_node = 600000;
	is_int(sched_job_validate(s, &j), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
	       "more than RealMemory is still refused");
	is_str(sched_job_refusal_detail(s, &j), "Memory specification can not be satisfied",
	       "with Slurm's detail line");
	j.mem_per_node = 1000;
	j.cpus_per_task = 65;
	is_str(sched_job_refusal_detail(s, &j), "CPU count per node can not be satisfied",
	       "65 CPUs per task on 64-CPU nodes");
	j.cpus_per_task = 1;
	j.ntasks = 1000;
	ok(sched_job_refusal_detail(s, &j) == NULL, "no detail for other refusals");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	fixture_destroy(s);
}

static void test_oversubscribe(void)
{
	/* FORCE:2 */
	sched_t *s = mk(1, 1);
	s->parts[0].max_share = 2;
	s->parts[0].force_share = 1;
	uint32_t why;
	sched_alloc_t a = fixture_run1(s, fixture_job(1, 64, 1), NULL);
	sched_alloc_t b = fixture_run1(s, fixture_job(2, 64, 1), NULL);
	sched_alloc_t c = fixture_run1(s, fixture_job(3, 64, 1), &why);
	ok(a.nnodes && b.nnodes, "FORCE:2: two 64-CPU jobs share the node");
	ok(a.shared && b.shared, "their allocations are marked shared");
	ok(!c.nnodes && why == WAIT_RESOURCES, "a third waits");
	is_int(s->nodes[0].cpus_used, 64, "64 CPUs in use, counted once");
	is_int(s->nodes[0].cpu_share[0], 2, "each CPU held by 2 jobs");
	sched_alloc_release(s, &a);
	is_int(s->nodes[0].cpus_used, 64, "one ends: still all in use");
	c = fixture_run1(s, fixture_job(3, 64, 1), NULL);
	ok(c.nnodes, "then the third starts");
	sched_alloc_release(s, &b);
	sched_alloc_release(s, &c);
	ok(s->nodes[0].cpus_used == 0 && s->nodes[0].cores_used[0] == 0 &&
	   s->nodes[0].cpu_share[63] == 0, "all released");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	sched_alloc_free(&c);

	/* Free CPUs first: two half-node jobs do not overlap. */
	a = fixture_run1(s, fixture_job(1, 32, 1), NULL);
	b = fixture_run1(s, fixture_job(2, 32, 1), NULL);
	ok(a.cores[0] == 0xffffffffull && b.cores[0] == 0xffffffff00000000ull,
	   "free CPUs are taken before shared ones");
	c = fixture_run1(s, fixture_job(3, 40, 1), NULL);
	ok(c.nnodes && s->nodes[0].cpu_share[0] == 2 && s->nodes[0].cpu_share[40] == 1,
	   "a 40-CPU job shares CPUs 0-39");
	sched_alloc_release(s, &a);
	sched_alloc_release(s, &b);
	sched_alloc_release(s, &c);
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	sched_alloc_free(&c);

	/* Memory and GPUs are not shared. */
	sched_job_t m = fixture_job(1, 1, 1);
	m.mem_per_node = 300000;
	a = fixture_run1(s, m, NULL);
	b = fixture_run1(s, m, &why);
	ok(a.nnodes && !b.nnodes && why == WAIT_RESOURCES, "memory still consumed");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	sched_job_t g = fixture_job(1, 1, 1);
	g.gpus_per_node = 8;
	a = fixture_run1(s, g, NULL);
	b = fixture_run1(s, g, &why);
	ok(a.nnodes && !b.nnodes, "GPUs are not shared");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);

	/* --exclusive in a FORCE partition (Slurm: "without any means for
	 * users to disable it"): every CPU and GPU, but others still share
	 * its CPUs. */
	a = fixture_run1(s, fixture_job(1, 1, 1), NULL);
	sched_job_t x = fixture_job(2, 1, 1);
	x.exclusive = 1;
	b = fixture_run1(s, x, &why);
	ok(b.nnodes && b.cpus[0] == 64 && b.gpus[0] == 0xffull && b.shared,
	   "FORCE --exclusive: all 64 CPUs and 8 GPUs, shared");
	c = fixture_run1(s, fixture_job(3, 1, 1), &why);
	ok(c.nnodes, "another job still shares the node");
	sched_alloc_t d = fixture_run1(s, g, &why);
	ok(!d.nnodes, "a GPU job waits: the GPUs are held");
	sched_alloc_release(s, &a);
	sched_alloc_release(s, &b);
	sched_alloc_release(s, &c);
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	sched_alloc_free(&c);
	fixture_destroy(s);

	/* YES:2 shares only between jobs that ask (--oversubscribe). */
	s = mk(1, 1);
	s->parts[0].max_share = 2;
	a = fixture_run1(s, fixture_job(1, 64, 1), NULL);
	b = fixture_run1(s, fixture_job(2, 64, 1), &why);
	ok(a.nnodes && !a.shared && !b.nnodes, "YES:2 without --oversubscribe: no sharing");
	sched_job_t o = fixture_job(3, 64, 1);
	o.oversubscribe = 1;
	c = fixture_run1(s, o, &why);
	ok(!c.nnodes, "an oversubscribing job does not share a non-sharing job's CPUs");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	a = fixture_run1(s, o, NULL);
	c = fixture_run1(s, o, NULL);
	ok(a.nnodes && c.nnodes, "two jobs that ask share");
	d = fixture_run1(s, fixture_job(4, 1, 1), &why);
	ok(!d.nnodes, "a job that does not ask gets no shared CPU");
	sched_alloc_release(s, &a);
	sched_alloc_release(s, &c);
	sched_alloc_free(&a);
	sched_alloc_free(&c);
	a = fixture_run1(s, o, NULL);
	c.nnodes = 0;
	x.oversubscribe = 1;
	b = fixture_run1(s, x, &why);
	ok(!b.nnodes && why == WAIT_RESOURCES, "YES:2 --exclusive waits for a sharing job");
	sched_alloc_free(&a);
	sched_alloc_free(&c);
	fixture_destroy(s);

	/* Sharing with CR_Core units. */
	s = mk(1, 2);
	s->parts[0].max_share = 2;
	s->parts[0].force_share = 1;
	a = fixture_run1(s, fixture_job(1, 63, 1), NULL);
	b = fixture_run1(s, fixture_job(2, 3, 1), NULL);
	ok(a.cpus[0] == 64 && b.cpus[0] == 4 && b.cores[0] == 0xfull,
	   "shared cores are whole cores too");
	sched_alloc_free(&a);
	sched_alloc_free(&b);
	fixture_destroy(s);
}

static void test_contiguous(void)
{
	sched_t *s = mk(6, 1);
	/* Nodes 1 and 4 busy. */
	sched_job_t busy = fixture_job(1, 64, 1);
	busy.req_nodes = (uint32_t[]){ 1 };
	busy.nreq_nodes = 1;
	sched_alloc_t b1 = fixture_run1(s, busy, NULL);
	busy.req_nodes = (uint32_t[]){ 4 };
	sched_alloc_t b4 = fixture_run1(s, busy, NULL);
	ok(b1.nnodes && b4.nnodes, "nodes 1 and 4 busy");
	sched_job_t j = fixture_job(2, 2, 64);
	j.min_nodes = j.max_nodes = 2;
	j.contiguous = 1;
	sched_alloc_t a = fixture_run1(s, j, NULL);
	ok(a.nnodes == 2 && a.nodes[0] == 2 && a.nodes[1] == 3, "--contiguous: nodes 2-3");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	j.min_nodes = j.max_nodes = 3;
	j.ntasks = 3;
	uint32_t why;
	a = fixture_run1(s, j, &why);
	ok(!a.nnodes && why == WAIT_RESOURCES, "3 contiguous nodes: none free, waits");
	j.contiguous = 0;
	a = fixture_run1(s, j, NULL);
	ok(a.nnodes == 3 && a.nodes[0] == 0 && a.nodes[1] == 2, "without it: nodes 0,2,3");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	/* Best fit: a 1-node contiguous job takes the shortest run (node 0
	 * or 5), leaving 2-3 whole. */
	j = fixture_job(3, 1, 64);
	j.contiguous = 1;
	a = fixture_run1(s, j, NULL);
	ok(a.nnodes == 1 && (a.nodes[0] == 0 || a.nodes[0] == 5), "1 node: shortest run");
	sched_alloc_free(&a);
	sched_alloc_free(&b1);
	sched_alloc_free(&b4);
	fixture_destroy(s);
}

/* --constraint: matching OR and counts. Nodes 0,1 "a"; 2,3 "b"; 4 "a,b";
 * 5 none. */
static void test_feature_counts(void)
{
	sched_t *s = mk(6, 1);
	const char *feats[6] = { "a", "a", "b", "b", "a,b", NULL };
	for (int i = 0; i < 6; i++)
		s->nodes[i].features = (char *)feats[i];
	sched_job_t j = fixture_job(1, 3, 64);
	j.min_nodes = j.max_nodes = 3;
	j.features = "[a|b]";
	sched_alloc_t a = fixture_run1(s, j, NULL);
	ok(a.nnodes == 3 && a.nodes[0] == 0 && a.nodes[1] == 1 && a.nodes[2] == 4,
	   "[a|b]: all three nodes have a");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	j.features = "a|b";
	a = fixture_run1(s, j, NULL);
	ok(a.nnodes == 3 && a.nodes[2] == 2, "a|b: any mix (nodes 0,1,2)");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	/* Node 0 busy: only 1 and 4 have a free, so the job gets b. */
	sched_job_t busy = fixture_job(9, 64, 1);
	busy.req_nodes = (uint32_t[]){ 0 };
	busy.nreq_nodes = 1;
	sched_alloc_t b0 = fixture_run1(s, busy, NULL);
	j.features = "[a|b]";
	a = fixture_run1(s, j, NULL);
	ok(a.nnodes == 3 && a.nodes[0] == 2 && a.nodes[1] == 3 && a.nodes[2] == 4,
	   "[a|b] with an a node busy: all three have b");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	sched_alloc_release(s, &b0);
	sched_alloc_free(&b0);

	/* Counts. */
	j = fixture_job(2, 1, 64);
	j.features = "[a*1&b*2]";
	a = fixture_run1(s, j, NULL);
	ok(a.nnodes == 3 && a.nodes[0] == 0 && a.nodes[1] == 2 && a.nodes[2] == 3,
	   "[a*1&b*2]: one a node and two b nodes");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	j = fixture_job(3, 2, 64);
	j.min_nodes = j.max_nodes = 2;
	j.features = "b*1";
	a = fixture_run1(s, j, NULL);
	ok(a.nnodes == 2 && a.nodes[0] == 0 && a.nodes[1] == 2, "-N2 b*1: node 0 and one b node");
	sched_alloc_release(s, &a);
	sched_alloc_free(&a);
	j.features = "[a*4]";
	is_int(sched_job_validate(s, &j), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
	       "a*4 with three a nodes: refused at submission");
	j.features = "a*4";
	j.min_nodes = 1;
	j.max_nodes = 0;
	is_int(sched_job_validate(s, &j), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
	       "a*4 without brackets, no -N: refused too");
	j.min_nodes = j.max_nodes = 4;
	j.features = "[a|b]";
	is_int(sched_job_validate(s, &j), ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
	       "[a|b] on 4 nodes: no feature on 4 nodes, refused");
	j.min_nodes = j.max_nodes = 3;
	is_int(sched_job_validate(s, &j), 0, "on 3 nodes: valid");
	fixture_destroy(s);
}

/* --exclusive=user: a node is shared only among one user's jobs. */
static void test_exclusive_user(void)
{
	sched_t *s = mk(2, 1);
	sched_job_t a1 = fixture_job(1, 1, 1), b1 = fixture_job(2, 1, 1), a2 = fixture_job(3, 1, 1);
	a1.user_id = a2.user_id = 1001;
	b1.user_id = 1002;
	a1.exclusive_user = 1;
	sched_alloc_t x = fixture_run1(s, a1, NULL);
	ok(x.nnodes && x.cpus[0] == 1 && x.nodes[0] == 0, "user-exclusive job: 1 CPU on n0");
	sched_alloc_t y = fixture_run1(s, b1, NULL);
	ok(y.nnodes && y.nodes[0] == 1, "another user's job goes to n1");
	sched_alloc_t z = fixture_run1(s, a2, NULL);
	ok(z.nnodes && z.nodes[0] == 0, "the same user's job shares n0");
	sched_job_t b2 = fixture_job(4, 1, 1);
	b2.user_id = 1002;
	b2.exclusive_user = 1;
	sched_job_t a3 = fixture_job(5, 63, 1);     /* more than n0 has left (62) */
	a3.user_id = 1001;
	sched_alloc_t w = fixture_run1(s, b2, NULL);
	ok(w.nnodes && w.nodes[0] == 1, "user 1002's exclusive job shares its own node n1");
	uint32_t why;
	sched_alloc_t v = fixture_run1(s, a3, &why);
	ok(!v.nnodes && why == WAIT_RESOURCES, "63 CPUs for user 1001: n0 is too full, n1 is 1002's: waits");
	sched_alloc_release(s, &w);
	sched_alloc_release(s, &y);
	ok(s->nodes[1].njobs == 0 && s->nodes[1].excl_user_jobs == 0, "n1 empty again");
	v = fixture_run1(s, a3, NULL);
	ok(v.nnodes, "then user 1001's job starts");
	sched_alloc_free(&v);
	sched_alloc_free(&w);
	sched_alloc_free(&x);
	sched_alloc_free(&y);
	sched_alloc_free(&z);
	fixture_destroy(s);
}

static void test_params(void)
{
	sched_params_t p;
	sched_params_init(&p);
	sched_params_select(&p, NULL);
	ok(!p.mem_not_consumed && p.cr_unit == SCHED_CR_CORE, "default CR_Core_Memory");
	sched_params_select(&p, "CR_Core");
	ok(p.mem_not_consumed && p.cr_unit == SCHED_CR_CORE, "CR_Core: memory not consumed");
	sched_params_select(&p, "CR_CPU_Memory");
	ok(!p.mem_not_consumed && p.cr_unit == SCHED_CR_CPU, "CR_CPU_Memory");
	sched_params_select(&p, "CR_Socket_Memory,CR_CORE_DEFAULT_DIST_BLOCK");
	ok(!p.mem_not_consumed && p.cr_unit == SCHED_CR_SOCKET, "CR_Socket_Memory + a flag");
	sched_params_select(&p, "CR_Core_Memory,CR_ONE_TASK_PER_CORE");
	ok(p.one_task_per_core && p.cr_unit == SCHED_CR_CORE, "CR_ONE_TASK_PER_CORE");
	sched_params_select(&p, "CR_Socket");
	is_int(sched_cpu_unit(&p, 16, 2), 32, "socket unit = cores x threads");
	sched_params_select(&p, "CR_Core");
	is_int(sched_cpu_unit(&p, 16, 2), 2, "core unit = threads");
	sched_params_select(&p, "CR_CPU");
	is_int(sched_cpu_unit(&p, 16, 2), 2, "CR_CPU still keeps jobs off each other's cores");
	is_int(sched_cpu_unit(&p, 16, 1), 1, "CR_CPU without threads: single CPUs");
}

int main(void)
{
	test_core_units();
	test_memory_not_consumed();
	test_oversubscribe();
	test_contiguous();
	test_feature_counts();
	test_exclusive_user();
	test_params();
	return done_testing();
}
