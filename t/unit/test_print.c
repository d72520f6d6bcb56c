/*
 * test_print: the squeue/sinfo/scontrol formatters against Slurm 22.05's
 * captured output (t/unit/print/, copies of the compat files). Records are
 * rebuilt from the compat scenario (32 nodes comp[001-032], partitions defq
 * and short, jobs 4-14); times are UTC as on the capture host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmdutil.h"
#include "cmd/print.h"
#include "hostlist.h"
#include "states.h"
#include "tap.h"
#include "print_fixture.h"
#include "timefmt.h"
#include "xalloc.h"

static int same(const char *got, const char *want, const char *what)
{
	int eq = !strcmp(got, want);
	ok(eq, "%s matches Slurm", what);
	if (!eq)
		printf("# --- got:\n%s# --- want:\n%s", got, want);
	return eq;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *sorted_lines(const char *s)
{
	char *copy = xstrdup(s);
	char **v = NULL;
	size_t n = 0;
	for (char *save = NULL, *t = strtok_r(copy, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = t;
	}
	qsort(v, n, sizeof(*v), line_cmp);
	strbuf_t sb = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(&sb, v[i]);
		strbuf_addch(&sb, '\n');
	}
	free(v);
	free(copy);
	return strbuf_detach(&sb);
}

/* ---- the scenario ---- */

#define T0 1795991980   /* 2026-11-29T22:39:40 UTC: jobs 4-7 started */

static job_info_t jobs[16];
static size_t njobs;

static job_info_t *job(uint32_t id, const char *name, const char *user, uint32_t state,
		       uint32_t reason, uint32_t nodes, uint32_t prio)
{
	job_info_t *j = &jobs[njobs++];
	memset(j, 0, sizeof(*j));
	j->job_id = id;
	j->array_task_id = NO_VAL32;
	j->name = xstrdup(name);
	j->user_name = xstrdup(user);
	j->group_name = xstrdup(user);
	j->user_id = !strcmp(user, "alice") ? 999 : 995;
	j->group_id = !strcmp(user, "alice") ? 995 : 994;
	j->state = state;
	j->state_reason = reason;
	j->num_nodes = nodes;
	j->priority = prio;
	j->partition = xstrdup("defq");
	j->account = xstrdup("research");
	j->qos = xstrdup("normal");
	j->requeue = 1;
	j->batch_flag = 1;
	j->time_limit = 60;
	j->alloc_node = xstrdup("localhost");
	j->alloc_sid = 3756;
	j->mem_per_cpu = 1024;
	j->pn_min_cpus = 1;
	j->cpus_per_task = 1;
	j->work_dir = xstrdup("/tmp/realslurm/work");
	j->std_err = xstrdup("/dev/null");
	j->std_in = xstrdup("/dev/null");
	j->std_out = xstrdup("/dev/null");
	j->scheduler = xstrdup(state == JOB_PENDING ? "Backfill:*" : "Main");
	return j;
}

static void build_jobs(void)
{
	job_info_t *j;
	/* In squeue.txt's order (the sort itself lives in squeue.c). */
	j = job(9, "bigjob", "alice", JOB_PENDING, WAIT_RESOURCES, 12, 10290);
	j->max_nodes = 12;
	j->num_cpus = 12;
	j->num_tasks = 12;
	j->time_limit = 24 * 60;
	j->submit_time = j->eligible_time = j->accrue_time = 1795991981;
	j->start_time = 1796035180;
	j->end_time = 1796121580;
	j->last_sched_eval = 1795992003;
	j->sched_nodes = xstrdup("comp[018-029]");
	j->tres_req = xstrdup("cpu=12,mem=12G,node=12,billing=12");
	j->flags = JOB_F_EXCLUSIVE;
	j = job(10, "bigjob2", "alice", JOB_PENDING, WAIT_PRIORITY, 10, 10258);
	j = job(11, "sweep", "alice", JOB_PENDING, WAIT_PRIORITY, 10, 10258);
	j->array_job_id = 11;
	j->array_task_str = xstrdup("1-4");
	j = job(8, "eval2", "bob", JOB_PENDING, WAIT_ASSOC_MAX_JOBS, 1, 10116);
	j = job(14, "after-pretrain", "alice", JOB_PENDING, WAIT_DEPENDENCY, 1, 10115);
	j = job(12, "needs-comp032", "alice", JOB_PENDING, WAIT_NODE_NOT_AVAIL, 1, 10115);
	j->state_desc = xstrdup("UnavailableNodes:comp032");
	j = job(13, "held", "alice", JOB_PENDING, WAIT_HELD_USER, 1, 0);
	j = job(4, "pretrain", "alice", JOB_RUNNING, WAIT_NO_REASON, 16, 10353);
	j->nodes = xstrdup("comp[002-017]");
	j->start_time = T0;
	j->tres_per_node = xstrdup("gres:gpu:h100:8");
	j = job(5, "finetune", "alice", JOB_RUNNING, WAIT_NO_REASON, 8, 10350);
	j->nodes = xstrdup("comp[018-025]");
	j->batch_host = xstrdup("comp018");
	j->start_time = T0;
	j->end_time = T0 + 12 * 3600;
	j->submit_time = j->eligible_time = j->accrue_time = T0 - 1;
	j->last_sched_eval = T0;
	j->time_limit = 12 * 60;
	j->num_cpus = 512;
	j->num_tasks = 64;
	j->cpus_per_task = 8;
	j->ntasks_per_node = 8;
	j->pn_min_cpus = 64;
	j->flags = JOB_F_EXCLUSIVE;
	j->tres_alloc = xstrdup("cpu=512,mem=512G,node=8,billing=512,gres/gpu=64,gres/gpu:h100=64");
	j->tres_per_node = xstrdup("gres:gpu:h100:8");
	j = job(6, "eval", "bob", JOB_RUNNING, WAIT_NO_REASON, 1, 10116);
	j->nodes = xstrdup("comp001");
	j->start_time = T0;
	j = job(7, "smoke", "alice", JOB_RUNNING, WAIT_NO_REASON, 1, 11016);
	j->nodes = xstrdup("comp001");
	j->start_time = T0;
	free(j->partition);
	j->partition = xstrdup("short");
}

static node_info_t nodes[32];
static part_info_t parts[2];

static void build_nodes(void)
{
	for (int i = 0; i < 32; i++) {
		node_info_t *n = &nodes[i];
		char name[16];
		memset(n, 0, sizeof(*n));
		snprintf(name, sizeof(name), "comp%03d", i + 1);
		n->name = xstrdup(name);
		n->hostname = xstrdup(name);
		n->addr = xstrdup("127.0.0.1");
		n->port = 16901 + i;
		n->cpus = n->cpus_efctv = 64;
		n->boards = 1;
		n->sockets = 2;
		n->cores = 32;
		n->threads = 1;
		n->cpu_load = 155;
		n->real_memory = 512000;
		n->weight = 1;
		n->features = xstrdup("h100,ib");
		n->features_active = xstrdup("h100,ib");
		n->gres = xstrdup("gpu:h100:8");
		n->arch = xstrdup("x86_64");
		n->os = xstrdup("Linux 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0");
		n->version = xstrdup("22.05.8");
		n->partitions = xstrdup(i < 16 ? "defq,short" : "defq");
		n->cfg_tres = xstrdup("cpu=64,mem=500G,billing=64,gres/gpu=8,gres/gpu:h100=8");
		int num = i + 1;
		if (num == 1) {
			n->state = NODE_MIXED;
			n->cpus_alloc = 5;
		} else if (num <= 25) {
			n->state = NODE_ALLOCATED;
			n->cpus_alloc = 64;
			n->alloc_mem = 65536;
			n->alloc_tres = xstrdup("cpu=64,mem=64G,gres/gpu=8,gres/gpu:h100=8");
		} else if (num <= 29) {
			n->state = NODE_IDLE | NODE_FLAG_PLANNED;
		} else if (num == 30) {
			n->state = NODE_IDLE;
		} else if (num == 31) {
			n->state = NODE_DOWN;
			n->reason = xstrdup("node unresponsive");
		} else {
			n->state = NODE_IDLE | NODE_FLAG_DRAIN;
			n->reason = xstrdup("bad gpu: ECC errors");
		}
		if (n->reason) {
			n->reason_uid = 0;
			n->reason_user = xstrdup("root");
			n->reason_time = 1795991977;
		}
	}
	/* comp025 as in scontrol_show_node_comp025.txt */
	nodes[24].free_mem = 23113;
	nodes[24].boot_time = 1795990250;
	nodes[24].slurmd_start_time = nodes[24].last_busy = 1795991976;

	memset(parts, 0, sizeof(parts));
	parts[0].name = xstrdup("defq");
	parts[0].nodes = xstrdup("comp[001-032]");
	parts[0].flags = PART_F_DEFAULT;
	parts[0].max_time = TIME_INFINITE;
	parts[0].total_cpus = 2048;
	parts[0].total_nodes = 32;
	parts[0].priority_job_factor = 1;
	parts[0].tres = xstrdup("cpu=2048,mem=16000G,node=32,billing=2048,gres/gpu=256,gres/gpu:h100=256");
	parts[1].name = xstrdup("short");
	parts[1].nodes = xstrdup("comp[001-016]");
	parts[1].max_time = 60;
	parts[1].total_cpus = 1024;
	parts[1].total_nodes = 16;
	parts[1].priority_job_factor = 10;
	parts[1].tres = xstrdup("cpu=1024,mem=8000G,node=16,billing=1024,gres/gpu=128,gres/gpu:h100=128");
	for (int i = 0; i < 2; i++) {
		parts[i].default_time = TIME_NO_VAL;
		parts[i].max_nodes = UINT32_MAX;
		parts[i].max_cpus_per_node = UINT32_MAX;
		parts[i].priority_tier = 1;
		parts[i].oversubscribe = xstrdup("NO");
	}
}

static void no_bad(int c, void *arg) { (void)c; (void)arg; }

static char *squeue_out(const char *spec, time_t now)
{
	fmt_t f;
	fmt_parse(&f, spec, 1, job_fmt_valid, no_bad, NULL);
	strbuf_t sb = STRBUF_INIT;
	print_job_header(&sb, &f);
	for (size_t i = 0; i < njobs; i++)
		print_job_row(&sb, &f, &jobs[i], NO_VAL32, now);
	fmt_release(&f);
	return strbuf_detach(&sb);
}

static char *sinfo_out(const char *spec, sinfo_opts_t *o, const strv_t *pf, time_t now,
		       int long_fmt, int hash_n)
{
	msg_part_info_t pi = { 0, 2, parts };
	msg_node_info_t ni = { 0, 32, nodes };
	fmt_t f;
	fmt_parse(&f, spec, 0, node_fmt_valid, no_bad, NULL);
	if (hash_n)
		f.f[0].width = -1;
	sinfo_row_t *rows;
	size_t n = sinfo_build(&pi, &ni, &f, o, pf, NULL, &rows);
	sinfo_fix_widths(&f, rows, n);
	strbuf_t sb = STRBUF_INIT;
	if (long_fmt)
		print_date_line(&sb, now);
	print_sinfo_header(&sb, &f);
	for (size_t i = 0; i < n; i++)
		print_sinfo_row(&sb, &f, &rows[i]);
	sinfo_rows_free(rows, n);
	fmt_release(&f);
	return strbuf_detach(&sb);
}

int main(void)
{
	char *got, *want;
	setenv("TZ", "UTC", 1);
	tzset();
	build_jobs();
	build_nodes();

	/* squeue */
	got = squeue_out(SQUEUE_FMT_DEFAULT, T0 + 45);
	want = fixture("squeue.txt");
	same(got, want, "squeue default format");
	free(got);
	free(want);

	got = squeue_out("%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R %b %q %p", T0 + 46);
	want = fixture("squeue_-o_custom.txt");
	same(got, want, "squeue -o with %b %q %p");
	free(got);
	free(want);

	{
		fmt_t f;
		int nbad = 0;
		fmt_parse(&f, " %A,%T", 1, job_fmt_valid, no_bad, &nbad);
		strbuf_t sb = STRBUF_INIT;
		print_job_row(&sb, &f, &jobs[7], NO_VAL32, T0);
		is_str(sb.buf, " 4,RUNNING\n", "a leading space in -o is kept");
		strbuf_release(&sb);
		fmt_release(&f);
		fmt_parse(&f, "%!", 1, job_fmt_valid, no_bad, NULL);
		print_job_row(&sb, &f, &jobs[0], NO_VAL32, T0);
		is_str(sb.buf, "%!\n", "an invalid letter prints as %%!");
		strbuf_release(&sb);
		fmt_release(&f);
		/* squeue -l's %.9l: a day-long limit is printed whole, as
		 * Slurm's _print_secs does (right-justified times are never
		 * cut); left-justified it is cut to the width. */
		job_info_t lj = jobs[7];
		lj.time_limit = 1440;
		fmt_parse(&f, "%.9l|%9l|%.4M", 1, job_fmt_valid, no_bad, NULL);
		print_job_row(&sb, &f, &lj, NO_VAL32, (time_t)lj.start_time + 90061);
		is_str(sb.buf, "1-00:00:00|1-00:00:0|1-01:01:01\n", "squeue: right-justified times are not cut");
		strbuf_release(&sb);
		fmt_release(&f);
		fmt_parse_long(&f, "JobID:\x1f,State:.9,Name", job_fmt_lookup, NULL, NULL);
		print_job_row(&sb, &f, &jobs[7], NO_VAL32, T0);
		is_str(sb.buf, "4\x1f  RUNNINGpretrain            \n", "-O widths and suffixes");
		strbuf_release(&sb);
		fmt_release(&f);
	}

	/* scontrol show job */
	{
		strbuf_t sb = STRBUF_INIT;
		print_job_scontrol(&sb, &jobs[8], 0, 0, T0 + 46);
		want = fixture("scontrol_show_job_running_gpu.txt");
		same(sb.buf, want, "scontrol show job (running, GPUs)");
		free(want);
		strbuf_reset(&sb);
		print_job_scontrol(&sb, &jobs[0], 0, 0, T0 + 46);
		want = fixture("scontrol_show_job_pending_resources.txt");
		same(sb.buf, want, "scontrol show job (pending, Resources)");
		free(want);
		/* -d: DerivedExitCode on a line of its own after ExitCode
		 * (Slurm's "Line 5a"), signal or exit status as ExitCode's. */
		job_info_t dj = jobs[8];
		dj.derived_exit_code = 15;            /* killed by SIGTERM */
		strbuf_reset(&sb);
		print_job_scontrol(&sb, &dj, 1, 0, T0 + 46);
		ok(strstr(sb.buf, " ExitCode=0:0\n   DerivedExitCode=0:15\n   RunTime=") != NULL,
		   "scontrol show job -d: DerivedExitCode=0:15 on its own line");
		dj.derived_exit_code = 3 << 8;        /* exit 3 */
		strbuf_reset(&sb);
		print_job_scontrol(&sb, &dj, 1, 1, T0 + 46);
		ok(strstr(sb.buf, " ExitCode=0:0 DerivedExitCode=3:0 RunTime=") != NULL,
		   "scontrol show job -d -o: DerivedExitCode=3:0 between them");
		strbuf_reset(&sb);
		print_job_scontrol(&sb, &dj, 0, 0, T0 + 46);
		ok(strstr(sb.buf, "DerivedExitCode") == NULL, "without -d: no DerivedExitCode");
		strbuf_release(&sb);
	}

	/* scontrol show node / partition */
	{
		strbuf_t sb = STRBUF_INIT;
		print_node_scontrol(&sb, &nodes[24], 0);
		want = fixture("scontrol_show_node_comp025.txt");
		same(sb.buf, want, "scontrol show node comp025");
		free(want);
		strbuf_reset(&sb);
		/* Comment= and Extra=: a line each after Reason=, only when set */
		node_info_t nc = nodes[24];
		nc.reason = (char *)"disk check";
		nc.reason_user = (char *)"root";
		nc.reason_time = T0;
		nc.comment = (char *)"rack 7";
		nc.extra = (char *)"fw=1";
		print_node_scontrol(&sb, &nc, 0);
		const char *tail = "]\n   Comment=rack 7\n   Extra=fw=1\n\n";
		ok(sb.len > strlen(tail) && !strcmp(sb.buf + sb.len - strlen(tail), tail) &&
		   strstr(sb.buf, "\n   Reason=disk check [root@"), "Comment= and Extra= lines after Reason=");
		strbuf_reset(&sb);
		print_node_scontrol(&sb, &nc, 1);
		tail = "] Comment=rack 7 Extra=fw=1\n";
		ok(sb.len > strlen(tail) && !strcmp(sb.buf + sb.len - strlen(tail), tail),
		   "Comment= and Extra= one-liner");
		strbuf_reset(&sb);
		nc.comment = NULL;
		nc.reason = NULL;
		print_node_scontrol(&sb, &nc, 0);
		ok(!strstr(sb.buf, "Comment=") && strstr(sb.buf, "ExtSensorsTemp=n/s\n   Extra=fw=1\n\n"),
		   "Extra= alone, no Comment= when unset");
		strbuf_reset(&sb);
		print_part_scontrol(&sb, &parts[0], 0);
		print_part_scontrol(&sb, &parts[1], 0);
		want = fixture("scontrol_show_partition.txt");
		same(sb.buf, want, "scontrol show partition");
		free(want);
		strbuf_release(&sb);
	}

	/* sinfo */
	{
		sinfo_opts_t o = { 0 };
		got = sinfo_out("%9P %.5a %.10l %.6D %.6t %N", &o, NULL, 0, 0, 0);
		want = fixture("sinfo.txt");
		same(got, want, "sinfo default");
		free(got);
		free(want);

		strv_t pf = { 0 };
		strv_push(&pf, "defq");
		got = sinfo_out("%20N %10T %10c %10m %25f %G", &o, &pf, 0, 0, 0);
		want = fixture("sinfo_-p_defq_-o.txt");
		same(got, want, "sinfo -p defq -o ...");
		free(got);
		free(want);
		strv_free(&pf);

		sinfo_opts_t r = { .list_reasons = 1 };
		got = sinfo_out("%20E %9u %19H %N", &r, NULL, 0, 0, 0);
		want = fixture("sinfo_-R.txt");
		same(got, want, "sinfo -R");
		free(got);
		free(want);

		/* Slurm's order between the two partitions of one node is not
		 * stable (threads); compare the lines as sets, the date exactly. */
		sinfo_opts_t nl = { .node_flag = 1 };
		got = sinfo_out("%9N %.6D %.9P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E", &nl, NULL,
				1795992025, 1, 1);
		want = fixture("sinfo_-N_-l.txt");
		char *gs = sorted_lines(got), *ws = sorted_lines(want);
		same(gs, ws, "sinfo -N -l (lines)");
		ok(!strncmp(got, want, strcspn(want, "\n") + 1), "sinfo -N -l date line");
		free(gs);
		free(ws);
		free(got);
		free(want);
	}

	/* shared field writer */
	{
		strbuf_t sb = STRBUF_INIT;
		fmt_add(&sb, "needs-comp032", 8, 1);
		fmt_add(&sb, "ab", 4, 1);
		fmt_add(&sb, "ab", 4, 0);
		fmt_add(&sb, "x", 0, 0);
		is_str(sb.buf, "needs-co  abab  x", "fmt_add pads and truncates like Slurm");
		strbuf_release(&sb);
	}
	return done_testing();
}
