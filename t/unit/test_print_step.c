/* print_step: squeue -s rows and scontrol show step records from fixed
 * step records, compared with what Slurm 22.05 printed for the same
 * steps (captured with ../shared/tools/realslurm: job 2 of alice, -N2 -n4,
 * `srun -n4 sleep 300`, and its batch step). */
#include <stdio.h>
#include <string.h>

#include "cmd/print.h"
#include "jobid.h"
#include "states.h"
#include "tap.h"
#include "timefmt.h"

static step_info_t step0(void)
{
	step_info_t s = {
		.job_id = 2, .step_id = 0, .array_task_id = NO_VAL32, .name = "sleep",
		.user_id = 1001, .user_name = "alice", .partition = "defq",
		.start_time = 1796150026, .time_limit = TIME_INFINITE, .state = JOB_RUNNING,
		.nodes = "comp[001-002]", .num_nodes = 2, .num_tasks = 4, .num_cpus = 4,
		.tres_alloc = "cpu=4,mem=4G,node=2", .srun_host = "vm", .srun_pid = 3206,
		.dist = STEP_DIST_BLOCK,
	};
	return s;
}

static step_info_t batch(void)
{
	step_info_t s = step0();
	s.step_id = STEP_BATCH;
	s.name = "batch";
	s.nodes = "comp001";
	s.num_nodes = s.num_tasks = 1;
	s.num_cpus = 0;
	s.tres_alloc = NULL;
	s.srun_host = NULL;
	s.srun_pid = 0;
	s.dist = STEP_DIST_NONE;
	return s;
}

static void test_ids(void)
{
	uint32_t j, s;
	ok(step_id_parse("12", &j, &s) == 0 && j == 12 && s == NO_VAL32, "job alone");
	ok(step_id_parse("12.3", &j, &s) == 0 && j == 12 && s == 3, "job.step");
	ok(step_id_parse("12.batch", &j, &s) == 0 && s == STEP_BATCH, "job.batch");
	ok(step_id_parse("12.extern", &j, &s) == 0 && s == STEP_EXTERN, "job.extern");
	ok(step_id_parse("12.", &j, &s) < 0, "empty step refused");
	ok(step_id_parse("12.x", &j, &s) < 0, "word step refused");
	ok(step_id_parse("abc", &j, &s) < 0, "no job id refused");
	ok(step_id_parse("0.1", &j, &s) < 0, "job 0 refused");
	ok(step_id_parse("1.3z", &j, &s) < 0, "trailing text refused");
	char buf[64];
	step_info_t b = batch();
	step_id_fmt(buf, sizeof(buf), &b, 1);
	is_str(buf, "2.batch", "batch id");
	step_info_t a = step0();
	a.array_job_id = 7;
	a.array_task_id = 3;
	step_id_fmt(buf, sizeof(buf), &a, 1);
	is_str(buf, "7_3.0", "an array task's step in squeue");
	step_id_fmt(buf, sizeof(buf), &a, 0);
	is_str(buf, "2.0", "and its plain id");
}

static void test_squeue(void)
{
	fmt_t f;
	fmt_parse(&f, SQUEUE_FMT_STEPS, 1, step_fmt_valid, NULL, NULL);
	strbuf_t sb = STRBUF_INIT;
	print_step_header(&sb, &f);
	step_info_t s = step0(), b = batch();
	print_step_row(&sb, &f, &s, 1796150026 + 30);
	print_step_row(&sb, &f, &b, 1796150026 + 30);
	is_str(sb.buf,
	       "         STEPID     NAME PARTITION     USER      TIME NODELIST\n"
	       "            2.0    sleep      defq    alice      0:30 comp[001-002]\n"
	       "        2.batch    batch      defq    alice      0:30 comp001\n",
	       "default squeue -s (Slurm's bytes)");
	fmt_release(&f);
	strbuf_setlen(&sb, 0);
	/* a short time column is padded, never cut; strings are cut */
	fmt_parse(&f, "%.5b|%.5i|%5j|%.3M|%l|%A|%U", 1, step_fmt_valid, NULL, NULL);
	print_step_header(&sb, &f);
	print_step_row(&sb, &f, &s, 1796150026 + 44);
	is_str(sb.buf, "TRES_|STEPI|NAME |TIM|TIME_LIMIT|TASKS|UID\n(null|  2.0|sleep|0:44|UNLIMITED|4|1001\n",
	       "widths as Slurm");
	fmt_release(&f);
	strbuf_setlen(&sb, 0);
	int bad = step_fmt_valid('D') || step_fmt_valid('t');
	ok(!bad, "job-only letters are not step letters");
	ok(step_fmt_lookup("stepid") >= 0 && step_fmt_lookup("Nodes") >= 0, "-O names, any case");
	ok(step_fmt_lookup("NodeList") < 0 && step_fmt_lookup("Name") < 0 &&
	   step_fmt_lookup("ResvPort") < 0, "job-only -O names refused as Slurm");
	strbuf_release(&sb);
}

static void test_scontrol(void)
{
	strbuf_t sb = STRBUF_INIT;
	step_info_t s = step0(), b = batch();
	char start[32];
	time_fmt_iso((time_t)s.start_time, start, sizeof(start));
	print_step_scontrol(&sb, &b, 0);
	print_step_scontrol(&sb, &s, 0);
	char want[2048];
	snprintf(want, sizeof(want),
		 "StepId=2.batch UserId=1001 StartTime=%s TimeLimit=UNLIMITED\n"
		 "   State=RUNNING Partition=defq NodeList=comp001\n"
		 "   Nodes=1 CPUs=0 Tasks=1 Name=batch Network=(null)\n"
		 "   TRES=(null)\n"
		 "   ResvPorts=(null)\n"
		 "   CPUFreqReq=Default\n"
		 "   SrunHost:Pid=(null):0\n"
		 "\n"
		 "StepId=2.0 UserId=1001 StartTime=%s TimeLimit=UNLIMITED\n"
		 "   State=RUNNING Partition=defq NodeList=comp[001-002]\n"
		 "   Nodes=2 CPUs=4 Tasks=4 Name=sleep Network=(null)\n"
		 "   TRES=cpu=4,mem=4G,node=2\n"
		 "   ResvPorts=(null)\n"
		 "   CPUFreqReq=Default Dist=Block\n"
		 "   SrunHost:Pid=vm:3206\n"
		 "\n", start, start);
	is_str(sb.buf, want, "scontrol show step (Slurm's layout)");
	strbuf_setlen(&sb, 0);
	s.time_limit = 5;
	print_step_scontrol(&sb, &s, 1);
	snprintf(want, sizeof(want),
		 "StepId=2.0 UserId=1001 StartTime=%s TimeLimit=00:05:00 State=RUNNING "
		 "Partition=defq NodeList=comp[001-002] Nodes=2 CPUs=4 Tasks=4 Name=sleep "
		 "Network=(null) TRES=cpu=4,mem=4G,node=2 ResvPorts=(null) CPUFreqReq=Default "
		 "Dist=Block SrunHost:Pid=vm:3206\n", start);
	is_str(sb.buf, want, "scontrol -o show step, a step time limit");
	strbuf_release(&sb);
}

static void test_sort(void)
{
	step_info_t v[4] = { batch(), step0(), step0(), step0() };
	v[2].job_id = 1;
	v[2].partition = "short";
	v[3].job_id = 3;
	const step_info_t *p[4] = { &v[0], &v[1], &v[2], &v[3] };
	steps_sort(p, 4, NULL);
	ok(p[0] == &v[1] && p[1] == &v[0] && p[2] == &v[3] && p[3] == &v[2],
	   "default: partition, then job and step id (batch after 0)");
	steps_sort(p, 4, "-i");
	ok(p[0] == &v[3] && p[1] == &v[0] && p[2] == &v[1] && p[3] == &v[2], "-S -i");
}

static void test_listpids(void)
{
	/* Slurm 22.05's lines for job 1 on comp001 (captured) */
	strbuf_t sb = STRBUF_INIT;
	print_listpids_header(&sb);
	list_pid_t p[] = {
		{ 3201, 1, STEP_BATCH, 0, 0 },
		{ 3256, 1, STEP_BATCH, NO_VAL32, NO_VAL32 },
		{ 3315, 1, 0, 0, 0 },
		{ 3260, 2, 0, 0, 3 },
	};
	for (size_t i = 0; i < 4; i++)
		print_listpids_row(&sb, &p[i]);
	is_str(sb.buf,
	       "PID      JOBID    STEPID   LOCALID GLOBALID\n"
	       "3201     1        batch    0       0       \n"
	       "3256     1        batch    -       -       \n"
	       "3315     1        0        0       0       \n"
	       "3260     2        0        0       3       \n",
	       "listpids table (Slurm's bytes)");
	strbuf_release(&sb);
}

int main(void)
{
	test_listpids();
	test_ids();
	test_squeue();
	test_scontrol();
	test_sort();
	return done_testing();
}
