/*
 * why_large: the controller's cost of `sluice why` on a job behind a big
 * queue (issue 10: under 50 ms behind 100,000 pending jobs).
 *
 * Builds a controller state in memory (t/unit/ctld_fixture.h) with NODES
 * nodes (8 CPUs, 8 GPUs each), every node running one 8-CPU job, and JOBS
 * pending jobs of 1,000 users; then answers ACCT_OP_WHY for the last
 * pending job REPS times (the whole answer: every node judged, the rank
 * among the pending jobs, the JSON document) and for one node.
 * Prints key=value lines: median and max CPU time per answer, its size.
 *
 * usage: why_large [NODES [JOBS [REPS]]]   (default 1000 100000 20)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../t/unit/ctld_fixture.h"
#include "log.h"

static uint64_t cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t run(ctld_t *cd, const char *arg, int reps, size_t *bytes)
{
	uint64_t *t = xcalloc((size_t)reps, sizeof(*t));
	for (int r = 0; r < reps; r++) {
		msg_acct_req_t req = { .op = ACCT_OP_WHY };
		strv_push(&req.args, arg);
		msg_acct_reply_t out = { 0 };
		uint64_t t0 = cpu_us();
		why_op(cd, &req, 0, &out);
		t[r] = cpu_us() - t0;
		if (out.rc) {
			fprintf(stderr, "why_large: %s: %s\n", arg, out.msg ? out.msg : "?");
			exit(1);
		}
		*bytes = out.msg ? strlen(out.msg) : 0;
		free(out.msg);
		strv_free(&req.args);
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp_u64);
	uint64_t med = t[reps / 2];
	printf("%s_max_us=%llu\n", strncmp(arg, "job", 3) ? "node" : "job",
	       (unsigned long long)t[reps - 1]);
	free(t);
	return med;
}

int main(int argc, char **argv)
{
	uint32_t nodes = argc > 1 ? (uint32_t)atoi(argv[1]) : 1000;
	uint32_t jobs = argc > 2 ? (uint32_t)atoi(argv[2]) : 100000;
	int reps = argc > 3 ? atoi(argv[3]) : 20;
	log_init("why_large", 0, LOG_LVL_ERROR, NULL);
	char dir[] = "/tmp/why_large.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	ctld_t *cd = fixture_ctld(dir, nodes, NULL);
	for (uint32_t i = 0; i < nodes; i++) {
		job_t *j = fixture_job(cd, JOB_RUNNING, 1000 + i % 1000, "u", "a", 0, i, 8, 0xff);
		j->time_limit = 60;
		j->end_time = j->start_time + 3600;
		sched_alloc_commit(&cd->sched, &j->alloc);
	}
	job_t *last = NULL;
	for (uint32_t i = 0; i < jobs; i++) {
		last = fixture_job(cd, JOB_PENDING, 1000 + i % 1000, "u", "a", 0, 0, 0, 0);
		last->priority = 1000000 - i;
		last->time_limit = 60;
		last->desc->ntasks = 1;
	}
	char arg[64];
	snprintf(arg, sizeof(arg), "job=%u", last->job_id);
	size_t bytes = 0;
	uint64_t med = run(cd, arg, reps, &bytes);
	printf("nodes=%u pending=%u job_median_us=%llu job_answer_bytes=%zu\n", nodes, jobs,
	       (unsigned long long)med, bytes);
	snprintf(arg, sizeof(arg), "node=%s", cd->nodes[nodes / 2].cf->name);
	med = run(cd, arg, reps, &bytes);
	printf("node_median_us=%llu node_answer_bytes=%zu\n", (unsigned long long)med, bytes);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {}
	return 0;
}
