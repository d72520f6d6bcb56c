/*
 * test_sched_reasons: the pending reasons the scheduler core decides, in
 * the situations where Slurm 22.05's main pass tells them apart (captured
 * on a real Slurm cluster, see docs/reasons.md): a node count over the
 * partition's (PartitionNodeLimit), a request only down or drained nodes
 * could hold (ReqNodeNotAvail, UnavailableNodes:...), a --nodelist job on
 * busy nodes (Resources, without blocking its partition; the next job
 * naming those nodes gets ReqNodeNotAvail), a request no node of the
 * partition can ever hold (PartitionNodeLimit), and Resources/Priority.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "sched_fixture.h"

#include "sched/sched.h"
#include "states.h"
#include "xalloc.h"

static char names[64][16];

static sched_t *mk(uint32_t n)
{
	sched_t *s = fixture_nodes(n, names, "n%05u", 8, 16000);
	fixture_one_part(s, n, 1);
	return s;
}

static sched_job_t job(uint32_t id)
{
	sched_job_t j = fixture_job(id, 1, 1);
	j.mem_per_node = 0;
	return j;
}

static sched_decision_t *pass(sched_t *s, sched_job_t *jobs, uint32_t n)
{
	sched_decision_t *d, *byjob = xcalloc(n, sizeof(*byjob));
	sched_pass(s, jobs, n, 2000, &d);
	for (uint32_t i = 0; i < n; i++)
		byjob[d[i].job_index] = d[i];
	free(d);
	return byjob;
}

static void done(sched_t *s, sched_decision_t *d, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		free(d[i].reason_detail);
		sched_alloc_free(&d[i].alloc);
	}
	free(d);
	fixture_destroy(s);
}

/* sbatch -N 5 into a 4-node partition: Slurm caps MaxNodes at the node
 * count and says PartitionNodeLimit (not PartitionConfig). */
static void test_nodes_over_partition(void)
{
	sched_t *s = mk(4);
	sched_job_t j[2] = { job(1), job(2) };
	j[0].min_nodes = j[0].max_nodes = 5;
	j[0].ntasks = 5;
	sched_decision_t *d = pass(s, j, 2);
	is_int(d[0].reason, WAIT_PART_NODE_LIMIT, "-N 5 in a 4-node partition: PartitionNodeLimit");
	ok(d[1].start, "and it blocks no one");
	done(s, d, 2);
}

/* -N 4 with one of the 4 nodes drained: only the drained node could
 * complete it. */
static void test_drained_partition_node(void)
{
	sched_t *s = mk(4);
	s->nodes[3].usable = 0;
	sched_job_t j[3] = { job(1), job(2), job(3) };
	j[0].min_nodes = j[0].max_nodes = 4;
	j[0].ntasks = 4;
	uint32_t req = 3;
	j[1].req_nodes = &req;
	j[1].nreq_nodes = 1;
	sched_decision_t *d = pass(s, j, 3);
	is_int(d[0].reason, WAIT_NODE_NOT_AVAIL, "-N 4 with a drained node: ReqNodeNotAvail");
	is_str(d[0].reason_detail, "UnavailableNodes:n00003", "lists the partition's unavailable node");
	is_int(d[1].reason, WAIT_NODE_NOT_AVAIL, "-w drained node: ReqNodeNotAvail");
	is_str(d[1].reason_detail, "UnavailableNodes:n00003", "lists the required node");
	ok(d[2].start, "a job that fits starts: the partition is not blocked");
	done(s, d, 3);

	/* Several unavailable nodes, listed in node order. */
	s = mk(6);
	s->nodes[1].usable = s->nodes[2].usable = s->nodes[4].usable = 0;
	sched_job_t k = job(1);
	k.min_nodes = k.max_nodes = 4;
	k.ntasks = 4;
	d = pass(s, &k, 1);
	is_str(d[0].reason_detail, "UnavailableNodes:n[00001-00002,00004]", "all of them, ranged");
	done(s, d, 1);
}

/* --nodelist jobs on busy nodes (Slurm: the nodes leave avail_node_bitmap
 * for the rest of the pass, the partition stays open). */
static void test_nodelist_busy(void)
{
	sched_t *s = mk(3);
	s->nodes[0].cpus_used = 8;            /* n00000 full */
	s->nodes[0].njobs = 1;
	sched_job_t j[5] = { job(1), job(2), job(3), job(4), job(5) };
	uint32_t r0 = 0, r1 = 1;
	j[0].req_nodes = &r0;                 /* -w n00000: busy */
	j[0].nreq_nodes = 1;
	j[1].req_nodes = &r0;                 /* -w n00000 again */
	j[1].nreq_nodes = 1;
	j[2].req_nodes = &r1;                 /* -w n00001: free */
	j[2].nreq_nodes = 1;
	j[3].ntasks = 8;                      /* any node */
	j[4].ntasks = 8;                      /* no whole node left */
	sched_decision_t *d = pass(s, j, 5);
	is_int(d[0].reason, WAIT_RESOURCES, "first -w job on a busy node: Resources");
	is_int(d[1].reason, WAIT_NODE_NOT_AVAIL, "second one naming it: ReqNodeNotAvail");
	is_str(d[1].reason_detail, "UnavailableNodes:n00000", "naming the withheld node");
	ok(d[2].start, "-w on a free node starts");
	ok(d[3].start && d[3].alloc.nodes[0] == 2, "a job without -w starts on the free node");
	is_int(d[4].reason, WAIT_RESOURCES, "the next one waits on Resources");
	done(s, d, 5);

	/* Without -w the first busy job blocks the partition: Priority. */
	s = mk(1);
	s->nodes[0].cpus_used = 8;
	s->nodes[0].njobs = 1;
	sched_job_t p[2] = { job(1), job(2) };
	d = pass(s, p, 2);
	is_int(d[0].reason, WAIT_RESOURCES, "busy: Resources");
	is_int(d[1].reason, WAIT_PRIORITY, "behind it: Priority");
	done(s, d, 2);
}

/* Behind a job that waits for resources, a job naming a drained node
 * keeps ReqNodeNotAvail (the capture's job 12, -w comp032 behind bigjob:
 * "ReqNodeNotAvail, UnavailableNodes:comp032", Scheduler=Backfill:*);
 * one naming a usable busy node gets Priority. */
static void test_blocked_drained(void)
{
	for (int bf = 0; bf <= 1; bf++) {
		sched_t *s = mk(3);
		s->nodes[2].usable = 0;
		for (uint32_t x = 0; x < 2; x++) {
			s->nodes[x].cpus_used = 8;
			s->nodes[x].njobs = 1;
		}
		if (bf) {
			s->params.backfill = 1;
			s->params.bf_window = 1440;
			s->params.bf_resolution = 60;
			s->params.bf_max_job_test = 100;
			s->run_backfill = 1;
		}
		sched_job_t j[3] = { job(1), job(2), job(3) };
		uint32_t r1 = 1, r2 = 2;
		j[0].ntasks = 8;                      /* any whole node: busy */
		j[1].req_nodes = &r2;                 /* -w the drained node */
		j[1].nreq_nodes = 1;
		j[2].req_nodes = &r1;                 /* -w a busy usable node */
		j[2].nreq_nodes = 1;
		sched_decision_t *d = pass(s, j, 3);
		is_int(d[0].reason, WAIT_RESOURCES, "first job: Resources");
		is_int(d[1].reason, WAIT_NODE_NOT_AVAIL,
		       bf ? "with backfill: -w drained node behind it: ReqNodeNotAvail"
			  : "-w drained node behind it: ReqNodeNotAvail");
		is_str(d[1].reason_detail, "UnavailableNodes:n00002", "naming the drained node");
		ok(!d[1].start && !d[1].sched_nodes, "and it is neither started nor planned");
		if (bf)
			ok(d[1].bf_examined, "backfill has examined it (Scheduler=Backfill:*)");
		is_int(d[2].reason, WAIT_PRIORITY, "-w busy usable node behind it: Priority");
		for (int i = 0; i < 3; i++)
			free(d[i].sched_nodes);
		done(s, d, 3);
	}
}

/* Nothing in the partition could ever hold it (a feature no node has
 * any more): PartitionNodeLimit, and it blocks no one. */
static void test_never(void)
{
	sched_t *s = mk(2);
	s->nodes[0].features = "a";
	s->nodes[1].features = "a";
	sched_job_t j[2] = { job(1), job(2) };
	j[0].features = "b";
	sched_decision_t *d = pass(s, j, 2);
	is_int(d[0].reason, WAIT_PART_NODE_LIMIT, "feature no node has: PartitionNodeLimit");
	ok(d[1].start, "the next job starts");
	done(s, d, 2);
}

int main(void)
{
	test_nodes_over_partition();
	test_drained_partition_node();
	test_nodelist_busy();
	test_blocked_drained();
	test_never();
	return done_testing();
}
