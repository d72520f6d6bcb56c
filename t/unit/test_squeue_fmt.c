/*
 * test_squeue_fmt: squeue's -t state names, its -o/-O field table and the
 * rows they print for jobs with no data in a field (what Slurm 22.05
 * prints: "N/A", "(null)", "0", ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmdutil.h"
#include "cmd/print.h"
#include "states.h"
#include "tap.h"
#include "xalloc.h"

static void test_states(void)
{
	static const char *const good[] = {
		"PD", "R", "CG", "CD", "CF", "CA", "F", "TO", "NF", "PR", "S", "OOM", "BF",
		"DL", "RS", "SI", "SO", "ST", "RF", "RH", "SE", "RD", "RV", "RQ",
		"pending", "Running", "completing", "resv_del_hold", "requeue_fed",
		"special_exit", "stage_out", "stopped", "signaling", "revoked",
		"resizing", "requeued", "requeue_hold", "out_of_memory", "boot_fail",
		"deadline", "node_fail", "preempted", "timeout", "cancelled", "failed",
		"completed", "suspended", "configuring", "pd", "oom",
	};
	job_state_sel_t sel;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok(!job_state_sel_parse(good[i], &sel), "-t %s is a state", good[i]);
	ok(job_state_sel_parse("all", &sel) < 0, "all is no state inside a list");
	ok(job_state_sel_parse("pd r", &sel) < 0, "a blank does not separate states");
	ok(job_state_sel_parse("", &sel) < 0, "empty is no state");
	ok(job_state_sel_parse("X", &sel) < 0, "X is no state");
	ok(strstr(squeue_valid_states, "SPECIAL_EXIT,STAGE_OUT,STOPPED") != NULL,
	   "the list of valid states ends as Slurm's");

	job_state_sel_t cg, r, cd, rq;
	job_state_sel_parse("CG", &cg);
	job_state_sel_parse("R", &r);
	job_state_sel_parse("CD", &cd);
	job_state_sel_parse("RQ", &rq);
	ok(job_state_sel_match(&cg, 1, JOB_COMPLETE | JOB_COMPLETING), "CG matches a completing job");
	ok(!job_state_sel_match(&cg, 1, JOB_COMPLETE), "CG does not match a completed job");
	ok(job_state_sel_match(&cd, 1, JOB_COMPLETE), "CD matches a completed job");
	ok(!job_state_sel_match(&r, 1, JOB_PENDING), "R does not match a pending job");
	ok(job_state_sel_match(&rq, 1, JOB_PENDING | JOB_REQUEUE), "RQ matches a requeued job");
	job_state_sel_t two[2] = { r, cd };
	ok(job_state_sel_match(two, 2, JOB_COMPLETE), "a list matches any of its states");
	ok(!job_state_sel_match(two, 2, JOB_FAILED), "a list matches none else");
}

static char *row(const char *spec, const job_info_t *j)
{
	fmt_t f;
	fmt_parse(&f, spec, 1, job_fmt_valid, NULL, NULL);
	strbuf_t sb = STRBUF_INIT;
	print_job_row(&sb, &f, j, NO_VAL32, 1796138400);
	fmt_release(&f);
	if (sb.len && sb.buf[sb.len - 1] == '\n')
		strbuf_setlen(&sb, sb.len - 1);
	return strbuf_detach(&sb);
}

static char *row_long(const char *spec, const job_info_t *j, int header)
{
	fmt_t f;
	fmt_parse_long(&f, spec, job_fmt_lookup, NULL, NULL);
	strbuf_t sb = STRBUF_INIT;
	if (header)
		print_job_header(&sb, &f);
	else
		print_job_row(&sb, &f, j, NO_VAL32, 1796138400);
	fmt_release(&f);
	if (sb.len && sb.buf[sb.len - 1] == '\n')
		strbuf_setlen(&sb, sb.len - 1);
	return strbuf_detach(&sb);
}

static void test_fields(void)
{
	/* Every letter of man squeue (22.05) is known. */
	const char *letters = "aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ";
	for (const char *p = letters; *p; p++)
		ok(job_fmt_valid(*p), "-o %%%c is a field", *p);
	/* -O names are case-insensitive. */
	static const char *const names[] = {
		"Account", "AccrueTime", "admin_comment", "AllocNodes", "AllocSID",
		"ArrayJobID", "ArrayTaskID", "AssocID", "BatchFlag", "BatchHost",
		"BoardsPerNode", "BurstBuffer", "BurstBufferState", "Cluster",
		"ClusterFeature", "Command", "Comment", "Contiguous", "Container",
		"Cores", "CoreSpec", "cpus-per-task", "cpus-per-tres",
		"Deadline", "DelayBoot", "Dependency", "DerivedEC", "EligibleTime",
		"EndTime", "exit_code", "Feature", "GroupID", "GroupName", "HetJobID",
		"HetJobIDSet", "HetJobOffset", "JobArrayID", "JobID", "LastSchedEval",
		"Licenses", "MaxCPUs", "MaxNodes", "MCSLabel", "mem-per-tres",
		"MinCpus", "MinMemory", "MinTime", "MinTmpDisk", "Name", "Network",
		"Nice", "NodeList", "Nodes", "NTPerBoard", "NTPerCore", "NTPerNode",
		"NTPerSocket", "NumCPUs", "NumNodes", "NumTasks", "Origin", "OriginRaw",
		"OverSubscribe", "Partition", "PendingTime", "PreemptTime", "Prefer",
		"Priority", "PriorityLong", "Profile", "QOS", "Reason", "ReasonList",
		"Reboot", "ReqNodes", "ReqSwitch", "Requeue", "Reservation",
		"ResizeTime", "RestartCnt", "SchedNodes", "SCT",
		"SelectJobInfo", "SiblingsActive", "SiblingsActiveRaw", "SiblingsViable",
		"SiblingsViableRaw", "Sockets", "SPerBoard", "StartTime", "State",
		"StateCompact", "STDERR", "STDIN", "STDOUT", "SubmitTime", "system_comment", "Threads", "TimeLeft",
		"TimeLimit", "TimeUsed", "tres-alloc", "tres-bind", "tres-freq",
		"tres-per-job", "tres-per-node", "tres-per-socket", "tres-per-task", "UserID", "UserName", "Wait4Switch", "WCKey", "WorkDir",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ok(job_fmt_lookup(names[i]) >= 0, "-O %s is a field", names[i]);
	ok(job_fmt_lookup("accrueTIME") == job_fmt_lookup("AccrueTime"), "-O names ignore case");
	ok(job_fmt_lookup("NoSuchField") < 0, "an unknown -O name is refused");
	/* Step fields are no job fields (Slurm 22.05 refuses them for jobs). */
	static const char *const step_only[] = {
		"CPUFreq", "ResvPort", "StepID", "StepName", "StepState", "tres-per-step",
	};
	for (size_t i = 0; i < sizeof(step_only) / sizeof(step_only[0]); i++)
		ok(job_fmt_lookup(step_only[i]) < 0, "-O %s is no job field", step_only[i]);

	job_info_t j = { 0 };
	j.job_id = 7;
	j.array_task_id = NO_VAL32;
	j.state = JOB_PENDING;
	j.user_name = "alice";
	j.group_name = "alice";
	j.time_limit = 60;
	j.cpus_per_task = 1;
	char *s;
	/* What Slurm 22.05 prints for a plain pending job (captured). */
	s = row("%a|%b|%d|%e|%E|%f|%k|%n|%v|%w|%W|%x|%Y|%Z", &j);
	is_str(s, "(null)|N/A|0|N/A|(null)|(null)|(null)||(null)|(null)|(null)||(null)|(null)", "empty fields");
	free(s);
	s = row("%.5A|%-5A|%5A|%5.5A", &j);
	is_str(s, "    7|%-5A|7    |%5.5A", "widths, right-justification; no - or precision (Slurm prints them as text)");
	free(s);
	s = row_long("JobID:.6,Name:3|,TimeLimit:0,Nice", &j, 0);
	is_str(s, "     7   |1:00:000                   ", "-O widths, suffix and default width 20");
	free(s);
	s = row_long("JobID:.6,Name:3|,TimeLimit:0,Nice", &j, 1);
	is_str(s, " JOBIDNAM|TIME_LIMITNICE                ", "-O headers");
	free(s);
}

/* job_resources as Slurm 22.05 showed job 7 of the compat scenario: 2
 * CPUs on comp001 (2 sockets x 32 cores), one on each socket. */
static void test_json(void)
{
	node_info_t node = { 0 };
	node.name = "comp001";
	node.cpus = 64;
	node.sockets = 2;
	node.cores = 32;
	node.threads = 1;
	msg_node_info_t ni = { 0, 1, &node };
	job_info_t j = { 0 };
	j.job_id = 7;
	j.array_task_id = NO_VAL32;
	j.state = JOB_RUNNING;
	j.name = "smoke";
	j.user_name = "alice";
	j.group_name = "alice";
	j.partition = "short";
	j.nodes = "comp001";
	j.num_nodes = 1;
	j.num_cpus = 2;
	j.start_time = 1795991980;
	j.time_limit = 30;
	j.cpu_ids = "0,32";
	j.mem_alloc = "2048";
	j.tres_alloc = "cpu=2,mem=2G,node=1,billing=2";
	const job_info_t *jp = &j;
	strbuf_t sb = STRBUF_INIT;
	print_jobs_json(&sb, &jp, 1, &ni);
	const char *want =
		"      \"job_resources\": {\n"
		"        \"nodes\": \"comp001\",\n"
		"        \"allocated_cores\": 2,\n"
		"        \"allocated_hosts\": 1,\n"
		"        \"allocated_nodes\": [\n"
		"          {\n"
		"            \"sockets\": {\n"
		"              \"0\": {\n"
		"                \"cores\": {\n"
		"                  \"0\": \"allocated\"\n"
		"                }\n"
		"              },\n"
		"              \"1\": {\n"
		"                \"cores\": {\n"
		"                  \"0\": \"allocated\"\n"
		"                }\n"
		"              }\n"
		"            },\n"
		"            \"nodename\": \"comp001\",\n"
		"            \"cpus_used\": 0,\n"
		"            \"memory_used\": 0,\n"
		"            \"memory_allocated\": 2048\n"
		"          }\n"
		"        ]\n"
		"      },\n"
		"      \"job_state\": \"RUNNING\",\n";
	ok(sb.buf && strstr(sb.buf, want) != NULL, "job_resources: sockets and cores as Slurm");
	ok(sb.buf && strstr(sb.buf, "\"errors\": [\n  ],\n") != NULL, "empty arrays as Slurm prints them");
	ok(sb.buf && strstr(sb.buf, "\"billable_tres\": 2.0,\n") != NULL, "billable_tres from the billing TRES");
	ok(sb.buf && strstr(sb.buf, "\"flags\": [\n        \"JOB_ACCRUE_OVER\",\n        \"JOB_WAS_RUNNING\"\n      ],") != NULL,
	   "a running job's flags");
	ok(sb.len > 2 && !strcmp(sb.buf + sb.len - 2, "\n}"), "no newline after the last brace");
	size_t keys = 0;
	for (const char *p = strstr(sb.buf, "\"jobs\": ["); p && (p = strstr(p, "\n      \"")); p++)
		keys++;
	is_int(keys, 111, "111 job fields for a started job");
	strbuf_release(&sb);
}

int main(void)
{
	test_states();
	test_fields();
	test_json();
	return done_testing();
}
