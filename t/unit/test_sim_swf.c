/*
 * test_sim_swf: the SWF v2 parser (src/sim/swf.c) and the trace-to-jobs
 * mapping of the simulator (src/sim/sim_swf.c): header keys, comments,
 * -1 fields, fractions, and bad lines refused with their line numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "sim/sim.h"
#include "sim/swf.h"

static int parse(const char *text, swf_t *t, char *err, size_t n)
{
	err[0] = '\0';
	return swf_parse(text, strlen(text), t, err, n);
}

static void refused(const char *text, const char *want, const char *name)
{
	swf_t t;
	char err[256];
	int rc = parse(text, &t, err, sizeof(err));
	ok(rc == -1, "%s: refused", name);
	is_str(err, want, "%s: the message names the line", name);
	swf_free(&t);
}

int main(void)
{
	swf_t t;
	char err[256];
	const char *good =
		"; Version: 2\n"
		";   MaxNodes: 64\n"
		"; MaxProcs: 128\n"
		";\n"
		"\n"
		"1 0 -1 100 4 -1 -1 8 600 -1 1 3 1 -1 2 -1 -1 -1\n"
		"  2\t5  10 50.75 2 12.5 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\r\n"
		"; a comment between jobs\n"
		"3 7 -1 -1 1 -1 -1 1 60 -1 0 4 1 -1 1 -1 -1 -1";   /* no final newline */
	ok(parse(good, &t, err, sizeof(err)) == 0, "a trace with header, comments, CRLF and tabs parses");
	is_str(err, "", "no error");
	is_int(t.n, 3, "three jobs");
	is_int(t.max_nodes, 64, "MaxNodes from the header");
	is_int(t.max_procs, 128, "MaxProcs from the header");
	is_int(t.jobs[0].req_procs, 8, "job 1 requested processors (field 8)");
	is_int(t.jobs[0].req_time, 600, "job 1 requested time (field 9)");
	is_int(t.jobs[0].user, 3, "job 1 user (field 12)");
	is_int(t.jobs[0].queue, 2, "job 1 queue (field 15)");
	is_int(t.jobs[0].line, 6, "job 1 is on line 6");
	is_int(t.jobs[1].run, 50, "a fractional run time is truncated");
	is_int(t.jobs[1].req_procs, -1, "-1 is kept as unknown");
	is_int(t.jobs[1].wait, 10, "wait (field 3)");
	is_int(t.jobs[2].run, -1, "job 3 has no run time");
	is_int(t.jobs[2].line, 9, "the last line without a newline is read");
	swf_free(&t);

	ok(parse("", &t, err, sizeof(err)) == 0 && t.n == 0 && t.max_nodes == -1,
	   "an empty trace: no jobs, no machine");
	swf_free(&t);

	refused("; h\n1 0 -1 100 4 -1 -1 8 600 -1 1 3 1 -1 2 -1 -1\n",
		"line 2: 17 fields, SWF has 18", "17 fields");
	refused("1 0 -1 100 4 -1 -1 8 600 -1 1 3 1 -1 2 -1 -1 -1 7\n",
		"line 1: more than 18 fields", "19 fields");
	refused("1 0 -1 100 4 -1 -1 8 600 -1 1 3 1 -1 2 -1 -1 -1\n\n1 0 -1 1x0 4 -1 -1 8 600 -1 1 3 1 -1 2 -1 -1 -1\n",
		"line 3: field 4 is not a number or -1", "a word in a number");
	refused("1 0 -1 100 -2 -1 -1 8 600 -1 1 3 1 -1 2 -1 -1 -1\n",
		"line 1: field 5 is not a number or -1", "-2 is not SWF");
	refused("1 -1 -1 100 4 -1 -1 8 600 -1 1 3 1 -1 2 -1 -1 -1\n",
		"line 1: no submit time", "no submit time");
	refused("1 99999999999999999999 -1 100 4 -1 -1 8 600 -1 1 3 1 -1 2 -1 -1 -1\n",
		"line 1: field 2 is not a number or -1", "a number past int64");

	/* Jobs for the simulator on a 4 x 2-CPU machine. */
	const char *trace =
		"10 50 -1 100 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n"   /* alloc procs, no limit */
		"11 20 -1 700 2 -1 -1 3 130 -1 1 5 -1 -1 -1 -1 -1 -1\n"    /* cut at 3 min */
		"12 20 -1 -1 2 -1 -1 2 60 -1 0 -1 -1 -1 -1 -1 -1 -1\n"     /* no run time */
		"13 30 -1 10 -1 -1 -1 -1 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n"   /* no processors */
		"14 40 -1 10 9 -1 -1 9 60 -1 1 -1 -1 -1 -1 -1 -1 -1\n";    /* 9 > 8 CPUs */
	ok(parse(trace, &t, err, sizeof(err)) == 0, "the machine's trace parses");
	sched_t s;
	sim_machine_bare(&s, 4, 2, 0, 1);
	sim_job_t *jobs;
	size_t n;
	sim_skipped_t sk;
	sim_jobs_from_swf(&t, &s, 0, &jobs, &n, &sk);
	is_int(n, 2, "two jobs can be simulated");
	is_int(sk.no_runtime, 1, "one left out without run time");
	is_int(sk.no_procs, 1, "one left out without processors");
	is_int(sk.too_big, 1, "one left out as too big for the machine");
	is_int(jobs[0].trace_id, 11, "sorted by submit time: job 11 first");
	is_int(jobs[0].req.time_limit, 3, "130 s requested is a 3-minute limit");
	is_int(jobs[0].run, 180, "its 700 s run is cut at the limit");
	is_int(jobs[0].req.ntasks, 3, "requested processors are its tasks");
	is_int(jobs[0].user, 5, "its user");
	is_int(jobs[1].trace_id, 10, "job 10 second");
	is_int(jobs[1].req.ntasks, 4, "no requested processors: the allocated ones");
	is_int(jobs[1].req.time_limit, 2, "no requested time: the run time, in whole minutes");
	is_int(jobs[1].run, 100, "run as the trace says");
	ok(jobs[0].req.priority > jobs[1].req.priority, "FCFS: the earlier submit has the higher priority");
	free(jobs);
	sim_machine_free(&s);
	swf_free(&t);

	/* swf_load: a missing file says so */
	ok(swf_load("/nonexistent/trace.swf", &t, err, sizeof(err)) == -1 &&
	   strstr(err, "/nonexistent/trace.swf") != NULL, "a missing file is an error naming it");
	swf_free(&t);
	return done_testing();
}
