/*
 * test_sched_prio: multifactor priority computed by the core
 * (sched_priority) against Slurm's formula and real sprio numbers, the
 * basic (FIFO) priority, and the parsing of SchedulerParameters and
 * PriorityWeightTRES.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#include "sched/sched.h"
#include "timefmt.h"

static sched_prio_conf_t compat_conf(void)
{
	/* ../shared/compat's cluster: 32 nodes x 64 CPUs, weights from its
	 * slurm.conf, PriorityMaxAge=7-0. */
	sched_prio_conf_t c;
	memset(&c, 0, sizeof(c));
	c.multifactor = 1;
	c.w_age = 1000;
	c.w_fairshare = 10000;
	c.w_jobsize = 1000;
	c.w_partition = 1000;
	c.w_qos = 1000;
	c.max_age = 7 * 86400;
	c.cluster_nodes = 32;
	c.cluster_cpus = 32 * 64;
	c.max_part_job_factor = 10;
	return c;
}

static sched_job_t pjob(void)
{
	sched_job_t j;
	memset(&j, 0, sizeof(j));
	j.job_id = 1;
	j.submit_time = j.eligible_time = 100000;
	j.min_nodes = 1;
	j.ntasks = 1;
	j.cpus_per_task = 1;
	j.time_limit = 60;
	j.part_job_factor = 1;
	j.fairshare = 1.0;
	return j;
}

static void test_compat_sprio(void)
{
	sched_prio_conf_t c = compat_conf();
	sched_job_t j = pjob();
	sched_prio_factors_t f;
	/* sprio row "12 defq 10115 0 0 10000 16 100 0" (1 node, 1 CPU) */
	uint32_t p = sched_priority(&c, &j, 100000, &f);
	is_int(p, 10115, "1-cpu job priority as real sprio");
	is_int(lround(f.jobsize), 16, "JOBSIZE column rounds to 16");
	is_int(lround(f.partition), 100, "PARTITION = 1/10 * 1000");
	is_int(lround(f.fairshare), 10000, "FAIRSHARE from the hook value");
	is_int(lround(f.age), 0, "no age at submission");
	ok(fabs(f.n_jobsize - (1.0 / 32 + 1.0 / 2048) / 2) < 1e-12, "normalized job size");
	/* row "8 defq 10116 ... 17": 4 CPUs */
	j.ntasks = 4;
	p = sched_priority(&c, &j, 100000, &f);
	is_int(p, 10116, "4-cpu job priority as real sprio");
	is_int(lround(f.jobsize), 17, "JOBSIZE 17");
}

static void test_age_nice(void)
{
	sched_prio_conf_t c = compat_conf();
	c.w_fairshare = 0;
	c.w_jobsize = 0;
	c.w_partition = 0;
	sched_job_t j = pjob();
	sched_prio_factors_t f;
	uint32_t p = sched_priority(&c, &j, 100000 + 7 * 86400 / 2, &f);
	is_int(p, 500, "half of PriorityMaxAge: half the age weight");
	ok(fabs(f.n_age - 0.5) < 1e-12, "age factor 0.5");
	p = sched_priority(&c, &j, 100000 + 30 * 86400, &f);
	is_int(p, 1000, "age factor caps at 1");
	j.eligible_time = 100000 + 86400;   /* eligible later (begin time) */
	p = sched_priority(&c, &j, 100000 + 86400, NULL);
	is_int(p, 1, "age counts from eligibility; floor is 1");
	c.flags = SCHED_PRIO_F_ACCRUE_ALWAYS;
	p = sched_priority(&c, &j, 100000 + 86400, NULL);
	is_int(p, 142, "ACCRUE_ALWAYS counts from submission (1/7 of 1000)");
	c.flags = 0;
	j.eligible_time = 100000;
	j.nice = 200;
	p = sched_priority(&c, &j, 100000 + 7 * 86400, &f);
	is_int(p, 800, "nice is subtracted");
	is_int(f.nice, 200, "nice reported");
	j.nice = -100;
	p = sched_priority(&c, &j, 100000 + 7 * 86400, NULL);
	is_int(p, 1100, "negative nice adds");
	j.nice = 5000;
	p = sched_priority(&c, &j, 100000 + 7 * 86400, NULL);
	is_int(p, 1, "priority never below 1");
}

static void test_size_partition_qos_tres(void)
{
	sched_prio_conf_t c = compat_conf();
	c.w_age = c.w_fairshare = c.w_partition = c.w_qos = 0;
	sched_job_t j = pjob();
	j.min_nodes = 32;
	j.ntasks = 2048;
	is_int(sched_priority(&c, &j, 100000, NULL), 1000, "whole cluster: job size 1");
	c.favor_small = 1;
	is_int(sched_priority(&c, &j, 100000, NULL), 1, "favor small: whole cluster gets 0 (floor 1)");
	j.min_nodes = 1;
	j.ntasks = 1;
	is_int(sched_priority(&c, &j, 100000, NULL), 984, "favor small: 1 cpu job near 1");
	c.favor_small = 0;
	c.w_jobsize = 0;
	c.w_partition = 1000;
	j.part_job_factor = 10;
	is_int(sched_priority(&c, &j, 100000, NULL), 1000, "top partition factor 1");
	j.part_job_factor = 5;
	is_int(sched_priority(&c, &j, 100000, NULL), 500, "partition factor normalized by the max");
	c.w_partition = 0;
	c.w_qos = 2000;
	c.max_qos_priority = 100;
	j.qos_priority = 25;
	is_int(sched_priority(&c, &j, 100000, NULL), 500, "qos factor normalized by the max");
	c.w_qos = 0;
	/* TRES: CPU=1000,GRES/gpu=3000 against the partition's totals */
	sched_part_t part;
	memset(&part, 0, sizeof(part));
	part.total_cpus = 2048;
	part.total_gpus = 256;
	part.total_nodes = 32;
	c.parts = &part;
	c.nparts = 1;
	sched_prio_parse_tres(&c, "CPU=1000,GRES/gpu=3000");
	ok(c.w_tres[SCHED_TRES_CPU] == 1000 && c.w_tres[SCHED_TRES_GPU] == 3000, "TRES weights parsed");
	j.part = 0;
	j.ntasks = 64;
	j.gpus_per_node = 8;
	sched_prio_factors_t f;
	uint32_t p = sched_priority(&c, &j, 100000, &f);
	ok(fabs(f.tres[SCHED_TRES_CPU] - 31.25) < 1e-9, "cpu tres 64/2048*1000");
	ok(fabs(f.tres[SCHED_TRES_GPU] - 93.75) < 1e-9, "gpu tres 8/256*3000");
	is_int(p, 125, "tres factors summed");
}

static void test_basic(void)
{
	ok(sched_priority_basic(1, 0) > sched_priority_basic(2, 0), "basic: FIFO by id");
	ok(sched_priority_basic(1, 10) < sched_priority_basic(1, 0), "basic: nice lowers");
	sched_prio_conf_t c;
	memset(&c, 0, sizeof(c));
	sched_job_t j = pjob();
	is_int(sched_priority(&c, &j, 1, NULL), 0, "not multifactor: 0");
}

static void test_params(void)
{
	sched_params_t p;
	sched_params_parse(&p, "sched/backfill", NULL);
	ok(p.backfill && p.bf_window == 1440 && p.bf_resolution == 60 && p.bf_max_job_test == 500 &&
	   p.default_queue_depth == 100 && p.bf_interval == 30 && !p.bf_continue, "defaults");
	sched_params_parse(&p, "sched/backfill",
			   "bf_window=2880,bf_resolution=120,bf_max_job_test=1000,bf_max_job_user=10,"
			   "bf_continue,default_queue_depth=50,bf_interval=5,some_other=3");
	ok(p.bf_window == 2880 && p.bf_resolution == 120 && p.bf_max_job_test == 1000 &&
	   p.bf_max_job_user == 10 && p.bf_continue && p.default_queue_depth == 50 &&
	   p.bf_interval == 5, "SchedulerParameters parsed");
	sched_params_parse(&p, "sched/builtin", NULL);
	ok(!p.backfill, "sched/builtin: no backfill");
	sched_params_parse(&p, "sched/backfill", "bf_interval=-1");
	ok(!p.backfill && p.bf_interval == 30, "bf_interval=-1: no backfill, as Slurm");
}

int main(void)
{
	test_compat_sprio();
	test_age_nice();
	test_size_partition_qos_tres();
	test_basic();
	test_params();
	return done_testing();
}
