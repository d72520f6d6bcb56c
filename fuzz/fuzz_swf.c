/*
 * fuzz_swf: libFuzzer target for the SWF trace parser (src/sim/swf.c) and
 * the simulator behind it. A refusal must name its line; an accepted
 * trace has submit times and increasing line numbers; a small one runs
 * on a 4 x 2-CPU machine, where every job the mapping kept must start,
 * no earlier than its submit, and leave the nodes empty.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/swf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	swf_t t;
	char err[256];
	err[0] = '\0';
	int rc = swf_parse((const char *)data, size, &t, err, sizeof(err));
	if (rc) {
		if (strncmp(err, "line ", 5))
			abort();
		swf_free(&t);
		return 0;
	}
	for (size_t i = 0; i < t.n; i++)
		if (t.jobs[i].submit < 0 || (i && t.jobs[i].line <= t.jobs[i - 1].line))
			abort();
	if (t.n <= 20) {
		sched_t s;
		sim_machine_bare(&s, 4, 2, 0, (int)(size & 1));
		sim_job_t *jobs;
		size_t n;
		sim_skipped_t sk;
		sim_jobs_from_swf(&t, &s, 0, &jobs, &n, &sk);
		if (n + sk.no_runtime + sk.no_procs + sk.too_big != t.n)
			abort();
		sim_counts_t c;
		sim_run(&s, jobs, n, &c, NULL, NULL);
		if (c.never_started)
			abort();
		for (size_t i = 0; i < n; i++)
			if (!jobs[i].started || jobs[i].start < jobs[i].req.submit_time ||
			    jobs[i].end - jobs[i].start > (int64_t)jobs[i].req.time_limit * 60)
				abort();
		for (uint32_t i = 0; i < s.nnodes; i++)
			if (s.nodes[i].cpus_used || s.nodes[i].njobs)
				abort();
		free(jobs);
		sim_machine_free(&s);
	}
	swf_free(&t);
	return 0;
}
